// ALU instructions executed by the shader cores on many lanes.
//
// Part 1 runs EVERY ALU operation of the table, vector form on 32-lane warps and scalar form on
// 1-lane warps, and compares each lane with the operation's semantic function: that checks operand
// routing, register pairs and commits for the whole table. Part 2 checks the semantics themselves
// against references written independently here (C++ arithmetic, double-precision maths with an
// ulp bound, bit loops).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include "gsgpu/emu/shader/alu_ops.h"
#include "gsgpu/isa/isa.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::testing {
namespace {

constexpr uint32_t kItems = 256;

std::string reg(char file, unsigned index, int bits) {
  if (bits == 64) return std::string(1, file) + "[" + std::to_string(index) + ":" + std::to_string(index + 1) + "]";
  return std::string(1, file) + std::to_string(index);
}

// A kernel that loads three 8-byte inputs per work-item, applies `mnemonic` and stores 8 bytes.
std::string alu_kernel(const std::string& name, int d, int a, int b, int c, bool scalar) {
  std::string k =
      "  s_special s[0:1], arg_ptr\n"
      "  s_load_b64 s[2:3], s[0:1], 0\n"
      "  s_load_b64 s[4:5], s[0:1], 8\n"
      "  s_load_b64 s[6:7], s[0:1], 16\n"
      "  s_load_b64 s[8:9], s[0:1], 24\n"
      "  v_special v[0:1], global_id_x\n"
      "  v_shl_b64 v[2:3], v[0:1], 3\n"
      "  v_add_u64 v[4:5], s[2:3], v[2:3]\n"
      "  global_load_b64 v[10:11], v[4:5], 0\n"
      "  v_add_u64 v[4:5], s[4:5], v[2:3]\n"
      "  global_load_b64 v[12:13], v[4:5], 0\n"
      "  v_add_u64 v[4:5], s[6:7], v[2:3]\n"
      "  global_load_b64 v[14:15], v[4:5], 0\n"
      "  v_mov_b64 v[16:17], 0\n";
  const char file = scalar ? 's' : 'v';
  if (scalar) {
    for (unsigned r = 10; r < 16; ++r)
      k += "  s_readfirstlane_b32 s" + std::to_string(r) + ", v" + std::to_string(r) + "\n";
  }
  std::string op = "  " + std::string(scalar ? "s_" : "v_") + name + " " + reg(file, 16, d) + ", " + reg(file, 10, a);
  if (b) op += ", " + reg(file, 12, b);
  if (c) op += ", " + reg(file, 14, c);
  k += op + "\n";
  if (scalar) k += "  v_mov_b32 v16, s16\n" + std::string(d == 64 ? "  v_mov_b32 v17, s17\n" : "");
  k += "  v_add_u64 v[4:5], s[8:9], v[2:3]\n"
       "  global_store_b64 v[4:5], v[16:17], 0\n"
       "  s_end\n";
  return k;
}

uint64_t interesting_value(std::mt19937_64& rng) {
  static const uint64_t values[] = {
      0, 1, 2, 3, 7, 31, 32, 33, 63, ~0ull, 0x80000000ull, 0x7fffffffull, 0xffffffff80000000ull,
      0x8000000000000000ull, 0x7fffffffffffffffull, 0xffffffffull,
      std::bit_cast<uint32_t>(1.0f), std::bit_cast<uint32_t>(-2.5f), std::bit_cast<uint32_t>(0.5f),
      std::bit_cast<uint32_t>(3.75f), std::bit_cast<uint32_t>(-0.0f), std::bit_cast<uint32_t>(1e30f),
      std::bit_cast<uint32_t>(-1e-30f), std::bit_cast<uint32_t>(INFINITY), std::bit_cast<uint32_t>(-INFINITY),
      std::bit_cast<uint32_t>(NAN), 0x00000001u /* denormal */, std::bit_cast<uint32_t>(2.5f),
      std::bit_cast<uint32_t>(-3.5f), std::bit_cast<uint32_t>(1234567.8f)};
  switch (rng() % 4) {
    case 0: return values[rng() % std::size(values)];
    case 1: return rng();
    case 2: return rng() % 64;
    default: return std::bit_cast<uint32_t>(std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
  }
}

struct AluCase {
  const char* name;
  int d, a, b, c;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t)> reference;
};

template <int Bits>
auto narrow(uint64_t v) {
  if constexpr (Bits == 64) return v;
  else return static_cast<uint32_t>(v);
}

template <class Op, int B, int C, int A>
uint64_t call_semantics(uint64_t a, uint64_t b, uint64_t c) {
  if constexpr (B == 0) return static_cast<uint64_t>(Op::apply(narrow<A>(a)));
  else if constexpr (C == 0) return static_cast<uint64_t>(Op::apply(narrow<A>(a), narrow<B>(b)));
  else return static_cast<uint64_t>(Op::apply(narrow<A>(a), narrow<B>(b), narrow<C>(c)));
}

const std::vector<AluCase>& table_cases() {
  static const std::vector<AluCase> cases = {
#define GSGPU_ALU(name, D, A, B, C) {#name, D, A, B, C, &call_semantics<alu::name, B, C, A>},
#define GSGPU_LOAD(space, type, bytes, sign)
#define GSGPU_STORE(space, type, bytes)
#define GSGPU_ATOMIC(space, op_type, kind, bits)
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm)
#include "gsgpu/isa/opcodes.def"
  };
  return cases;
}

struct Inputs {
  std::vector<uint64_t> a, b, c;
};

Inputs random_inputs(uint32_t seed) {
  std::mt19937_64 rng(seed);
  Inputs in;
  for (uint32_t i = 0; i < kItems; ++i) {
    in.a.push_back(interesting_value(rng));
    in.b.push_back(interesting_value(rng));
    in.c.push_back(interesting_value(rng));
  }
  return in;
}

// Runs the op over kItems work-items and returns the 8-byte result slots.
std::vector<uint64_t> run_alu(const AluCase& op, const Inputs& in, bool scalar) {
  FlatMemory memory(0x100000, 4 << 20);
  ShaderConfig config;
  config.warp_width = scalar ? 1 : 32;
  config.num_cores = 2;
  config.host_threads = 2;
  ShaderCores cores(config);
  DispatchParams p = linear_dispatch(kItems / 64, 64);
  load_kernel(memory, alu_kernel(op.name, op.d, op.a, op.b, op.c, scalar), &p);
  const uint64_t out = memory.alloc(kItems * 8);
  set_args(memory, {memory.upload(in.a), memory.upload(in.b), memory.upload(in.c), out}, &p);
  run_ok(cores, memory, p);
  return memory.download<uint64_t>(out, kItems);
}

uint64_t mask_for(int bits) { return bits == 64 ? ~0ull : 0xffffffffull; }

TEST(AluTable, EveryVectorAndScalarOperationMatchesItsSemantics) {
  const Inputs in = random_inputs(7);
  for (const AluCase& op : table_cases()) {
    for (bool scalar : {false, true}) {
      SCOPED_TRACE(std::string(scalar ? "s_" : "v_") + op.name);
      const std::vector<uint64_t> got = run_alu(op, in, scalar);
      for (uint32_t i = 0; i < kItems; ++i) {
        const uint64_t want = op.reference(in.a[i], in.b[i], in.c[i]) & mask_for(op.d);
        ASSERT_EQ(got[i], want) << "work-item " << i << " a=" << std::hex << in.a[i] << " b=" << in.b[i]
                                << " c=" << in.c[i];
      }
    }
  }
}

// ---- independent references ----
float fl(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
int32_t s32(uint64_t v) { return static_cast<int32_t>(v); }
int64_t s64(uint64_t v) { return static_cast<int64_t>(v); }

const AluCase* find_case(const char* name) {
  for (const AluCase& c : table_cases())
    if (std::string(c.name) == name) return &c;
  return nullptr;
}

void check_against(const char* name, const std::function<uint64_t(uint64_t, uint64_t, uint64_t)>& reference,
                   uint32_t seed = 11) {
  const AluCase* op = find_case(name);
  ASSERT_NE(op, nullptr) << name;
  const Inputs in = random_inputs(seed);
  const std::vector<uint64_t> got = run_alu(*op, in, false);
  for (uint32_t i = 0; i < kItems; ++i) {
    const uint64_t want = reference(in.a[i], in.b[i], in.c[i]) & mask_for(op->d);
    if (op->d == 32 && std::isnan(fl(want)) && std::isnan(fl(got[i])) && std::string(name).find("_f32") != std::string::npos &&
        std::string(name).find("cmp") == std::string::npos && std::string(name).find("cvt_i") == std::string::npos &&
        std::string(name).find("cvt_u") == std::string::npos)
      continue;  // any NaN is a NaN
    ASSERT_EQ(got[i], want) << name << " work-item " << i << std::hex << " a=" << in.a[i] << " b=" << in.b[i]
                            << " c=" << in.c[i];
  }
}

TEST(AluSemantics, Integer32) {
  check_against("add_u32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(a) + uint32_t(b); });
  check_against("sub_u32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(uint32_t(a) - uint32_t(b)); });
  check_against("mul_lo_u32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(uint32_t(a) * uint32_t(b)); });
  check_against("mul_hi_u32", [](uint64_t a, uint64_t b, uint64_t) { return (uint64_t(uint32_t(a)) * uint32_t(b)) >> 32; });
  check_against("mul_hi_i32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((int64_t(s32(a)) * s32(b)) >> 32); });
  check_against("div_u32", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return uint32_t(b) ? uint32_t(a) / uint32_t(b) : 0xffffffffu; });
  check_against("rem_u32", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return uint32_t(b) ? uint32_t(a) % uint32_t(b) : uint32_t(a); });
  check_against("div_i32", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    if (s32(b) == 0) return 0xffffffffu;
    return uint32_t(int32_t(int64_t(s32(a)) / s32(b)));  // wraps INT_MIN / -1 back to INT_MIN
  });
  check_against("rem_i32", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    if (s32(b) == 0) return uint32_t(a);
    return uint32_t(int32_t(int64_t(s32(a)) % s32(b)));
  });
  check_against("min_i32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(std::min(s32(a), s32(b))); });
  check_against("max_u32", [](uint64_t a, uint64_t b, uint64_t) { return std::max(uint32_t(a), uint32_t(b)); });
  check_against("abs_i32", [](uint64_t a, uint64_t, uint64_t) { return uint32_t(std::llabs(int64_t(s32(a)))); });
  check_against("neg_i32", [](uint64_t a, uint64_t, uint64_t) { return uint32_t(-int64_t(s32(a))); });
  check_against("mad_u32", [](uint64_t a, uint64_t b, uint64_t c) { return uint32_t(uint64_t(uint32_t(a)) * uint32_t(b) + uint32_t(c)); });
}

TEST(AluSemantics, Integer64) {
  using u128 = unsigned __int128;
  check_against("add_u64", [](uint64_t a, uint64_t b, uint64_t) { return a + b; });
  check_against("sub_u64", [](uint64_t a, uint64_t b, uint64_t) { return a - b; });
  check_against("mul_lo_u64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(u128(a) * b); });
  check_against("mul_hi_u64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((u128(a) * b) >> 64); });
  check_against("mul_hi_i64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t((__int128(s64(a)) * s64(b)) >> 64); });
  check_against("div_u64", [](uint64_t a, uint64_t b, uint64_t) { return b ? a / b : ~0ull; });
  check_against("rem_i64", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    if (b == 0) return a;
    return uint64_t(int64_t(__int128(s64(a)) % s64(b)));
  });
  check_against("div_i64", [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
    if (b == 0) return ~0ull;
    return uint64_t(__int128(s64(a)) / s64(b));
  });
  check_against("min_i64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(std::min(s64(a), s64(b))); });
  check_against("max_u64", [](uint64_t a, uint64_t b, uint64_t) { return std::max(a, b); });
  check_against("mad_u64", [](uint64_t a, uint64_t b, uint64_t c) { return a * b + c; });
  check_against("mul_wide_i32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(int64_t(s32(a)) * s32(b)); });
  check_against("shl_b64", [](uint64_t a, uint64_t b, uint64_t) { return a << (b % 64); });
  check_against("shr_i64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(s64(a) >> (b % 64)); });
  check_against("cmp_lt_i64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(s64(a) < s64(b)); });
  check_against("cmp_ge_u64", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(a >= b); });
  check_against("popcnt_b64", [](uint64_t a, uint64_t, uint64_t) {
    uint64_t n = 0;
    for (int i = 0; i < 64; ++i) n += a >> i & 1;
    return n;
  });
}

TEST(AluSemantics, Float32Arithmetic) {
  check_against("add_f32", [](uint64_t a, uint64_t b, uint64_t) { return bits_of(fl(a) + fl(b)); });
  check_against("mul_f32", [](uint64_t a, uint64_t b, uint64_t) { return bits_of(fl(a) * fl(b)); });
  check_against("div_f32", [](uint64_t a, uint64_t b, uint64_t) { return bits_of(float(double(fl(a)) / double(fl(b)))); });
  check_against("fma_f32", [](uint64_t a, uint64_t b, uint64_t c) { return bits_of(std::fmaf(fl(a), fl(b), fl(c))); });
  check_against("mad_f32", [](uint64_t a, uint64_t b, uint64_t c) {
    volatile float product = fl(a) * fl(b);  // rounded before the add
    return bits_of(product + fl(c));
  });
  check_against("sqrt_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(float(std::sqrt(double(fl(a))))); });
  // OpenCL fmin/fmax: a NaN operand (quiet or signalling) yields the other operand.
  check_against("min_f32", [](uint64_t a, uint64_t b, uint64_t) {
    if (std::isnan(fl(a))) return b;
    if (std::isnan(fl(b))) return a;
    return bits_of(fl(b) < fl(a) ? fl(b) : fl(a));
  });
  check_against("max_f32", [](uint64_t a, uint64_t b, uint64_t) {
    if (std::isnan(fl(a))) return b;
    if (std::isnan(fl(b))) return a;
    return bits_of(fl(b) > fl(a) ? fl(b) : fl(a));
  });
  check_against("abs_f32", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(uint32_t(a) & 0x7fffffffu); });
  check_against("neg_f32", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(uint32_t(a) ^ 0x80000000u); });
  check_against("floor_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(std::floor(fl(a))); });
  check_against("ceil_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(std::ceil(fl(a))); });
  check_against("trunc_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(std::trunc(fl(a))); });
  check_against("rndne_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(std::nearbyint(fl(a))); });
  check_against("rcp_f32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(float(1.0 / double(fl(a)))); });
}

// Transcendentals: within the documented bound (docs/isa.md) of the correctly rounded result.
double ulp_error(float got, double exact) {
  if (std::isnan(exact)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(exact) || std::fabs(exact) > 3.4e38) return std::isinf(got) && (got > 0) == (exact > 0) ? 0 : 1e9;
  const float rounded = static_cast<float>(exact);
  const float ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
  return std::fabs(double(got) - exact) / ulp;
}

TEST(AluSemantics, TranscendentalsWithinTwoUlp) {
  struct Case {
    const char* name;
    double (*exact)(double, double);
    float lo, hi, lo2, hi2;
  };
  const Case cases[] = {
      {"exp2_f32", [](double x, double) { return std::exp2(x); }, -100, 100, 0, 0},
      {"log2_f32", [](double x, double) { return std::log2(x); }, 1e-20f, 1e20f, 0, 0},
      {"sin_f32", [](double x, double) { return std::sin(x); }, -100, 100, 0, 0},
      {"cos_f32", [](double x, double) { return std::cos(x); }, -100, 100, 0, 0},
      {"exp_f32", [](double x, double) { return std::exp(x); }, -80, 80, 0, 0},
      {"log_f32", [](double x, double) { return std::log(x); }, 1e-20f, 1e20f, 0, 0},
      {"tan_f32", [](double x, double) { return std::tan(x); }, -1.5f, 1.5f, 0, 0},
      {"rsqrt_f32", [](double x, double) { return 1.0 / std::sqrt(x); }, 1e-10f, 1e10f, 0, 0},
      {"atan2_f32", [](double y, double x) { return std::atan2(y, x); }, -10, 10, -10, 10},
      {"pow_f32", [](double x, double y) { return std::pow(x, y); }, 0.01f, 10, -5, 5},
  };
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const AluCase* op = find_case(c.name);
    ASSERT_NE(op, nullptr);
    Inputs in;
    for (uint32_t i = 0; i < kItems; ++i) {
      const bool log_scale = c.lo > 0 && c.hi / c.lo > 1e6;
      float x = log_scale ? std::exp(std::uniform_real_distribution<float>(std::log(c.lo), std::log(c.hi))(rng))
                          : std::uniform_real_distribution<float>(c.lo, c.hi)(rng);
      float y = std::uniform_real_distribution<float>(c.lo2, c.hi2 == 0 ? 1 : c.hi2)(rng);
      in.a.push_back(bits_of(x));
      in.b.push_back(bits_of(y));
      in.c.push_back(0);
    }
    const std::vector<uint64_t> got = run_alu(*op, in, false);
    for (uint32_t i = 0; i < kItems; ++i) {
      const double exact = c.exact(fl(in.a[i]), fl(in.b[i]));
      EXPECT_LE(ulp_error(fl(got[i]), exact), 2.0) << "x=" << fl(in.a[i]) << " y=" << fl(in.b[i]) << " got "
                                                   << fl(got[i]) << " exact " << exact;
    }
  }
}

TEST(AluSemantics, ComparesOrderedAndUnordered) {
  auto nan = [](uint64_t a, uint64_t b) { return std::isnan(fl(a)) || std::isnan(fl(b)); };
  check_against("cmp_olt_f32", [=](uint64_t a, uint64_t b, uint64_t) { return uint64_t(!nan(a, b) && fl(a) < fl(b)); });
  check_against("cmp_ult_f32", [=](uint64_t a, uint64_t b, uint64_t) { return uint64_t(nan(a, b) || fl(a) < fl(b)); });
  check_against("cmp_one_f32", [=](uint64_t a, uint64_t b, uint64_t) { return uint64_t(!nan(a, b) && fl(a) != fl(b)); });
  check_against("cmp_ueq_f32", [=](uint64_t a, uint64_t b, uint64_t) { return uint64_t(nan(a, b) || fl(a) == fl(b)); });
  check_against("cmp_uno_f32", [=](uint64_t a, uint64_t b, uint64_t) { return uint64_t(nan(a, b)); });
  check_against("cmp_le_i32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(s32(a) <= s32(b)); });
  check_against("cmp_gt_u32", [](uint64_t a, uint64_t b, uint64_t) { return uint64_t(uint32_t(a) > uint32_t(b)); });
  check_against("cndmask_b32", [](uint64_t a, uint64_t b, uint64_t c) { return uint32_t(a) ? uint32_t(b) : uint32_t(c); });
  check_against("cndmask_b64", [](uint64_t a, uint64_t b, uint64_t c) { return uint32_t(a) ? b : c; });
}

TEST(AluSemantics, Conversions) {
  check_against("cvt_f32_i32", [](uint64_t a, uint64_t, uint64_t) { return bits_of(float(s32(a))); });
  check_against("cvt_f32_u64", [](uint64_t a, uint64_t, uint64_t) { return bits_of(float(a)); });
  check_against("cvt_i32_f32", [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
    const double x = fl(a);
    if (std::isnan(x)) return 0;
    if (x <= -2147483648.0) return 0x80000000u;
    if (x >= 2147483647.0) return 0x7fffffffu;
    return uint32_t(int32_t(std::trunc(x)));
  });
  check_against("cvt_u32_f32", [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
    const double x = fl(a);
    if (std::isnan(x) || x <= 0) return 0;
    if (x >= 4294967295.0) return 0xffffffffu;
    return uint32_t(std::trunc(x));
  });
  check_against("cvt_i64_f32", [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
    const double x = fl(a);
    if (std::isnan(x)) return 0;
    if (x <= -9223372036854775808.0) return 0x8000000000000000ull;
    if (x >= 9223372036854775807.0) return 0x7fffffffffffffffull;
    return uint64_t(int64_t(x));
  });
  // Directed int -> float rounding: the result brackets the exact value on the named side.
  check_against("cvt_f32_i32_rtz", [](uint64_t a, uint64_t, uint64_t) {
    const double exact = s32(a);
    float r = float(exact);
    if (std::fabs(double(r)) > std::fabs(exact)) r = std::nextafter(r, 0.0f);
    return bits_of(r);
  });
  check_against("cvt_f32_u32_rtp", [](uint64_t a, uint64_t, uint64_t) {
    const double exact = uint32_t(a);
    float r = float(exact);
    if (double(r) < exact) r = std::nextafter(r, INFINITY);
    return bits_of(r);
  });
  check_against("sext_i32_i8", [](uint64_t a, uint64_t, uint64_t) { return uint32_t(int32_t(int8_t(a & 0xff))); });
  check_against("zext_u32_u16", [](uint64_t a, uint64_t, uint64_t) { return a & 0xffff; });
  check_against("sext_i64_i32", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(int64_t(s32(a))); });
  check_against("trunc_u32_u64", [](uint64_t a, uint64_t, uint64_t) { return a & 0xffffffffu; });
  // Half precision: exact round trip for values representable in binary16.
  const AluCase* to_half = find_case("cvt_f16_f32");
  const AluCase* from_half = find_case("cvt_f32_f16");
  ASSERT_TRUE(to_half && from_half);
  EXPECT_EQ(to_half->reference(bits_of(1.0f), 0, 0), 0x3c00u);
  EXPECT_EQ(to_half->reference(bits_of(-2.0f), 0, 0), 0xc000u);
  EXPECT_EQ(to_half->reference(bits_of(65520.0f), 0, 0), 0x7c00u);  // rounds to infinity
  EXPECT_EQ(fl(from_half->reference(0x3555, 0, 0)), 0.333251953125f);
  EXPECT_EQ(to_half->reference(bits_of(0x1p-25f), 0, 0), 0u);      // halfway to the smallest: even
  EXPECT_EQ(to_half->reference(bits_of(0x1.8p-25f), 0, 0), 1u);    // above halfway rounds up
  EXPECT_EQ(to_half->reference(bits_of(-0x1p-24f), 0, 0), 0x8001u);
  // Every binary16 value converts to binary32 and back unchanged (NaNs stay NaNs).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint64_t back = to_half->reference(from_half->reference(h, 0, 0), 0, 0);
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
      EXPECT_EQ(back & 0x7c00, 0x7c00u);
      EXPECT_NE(back & 0x3ff, 0u);
    } else {
      ASSERT_EQ(back, h) << std::hex << h;
    }
  }
  // Midpoints between neighbouring halves round to the even one.
  for (uint32_t h = 0x0400; h < 0x7bff; h += 97) {
    const double lo = fl(from_half->reference(h, 0, 0)), hi = fl(from_half->reference(h + 1, 0, 0));
    const uint64_t mid = to_half->reference(bits_of(float((lo + hi) / 2)), 0, 0);
    EXPECT_EQ(mid, (h & 1) ? h + 1 : h) << std::hex << h;
  }
}

TEST(AluSemantics, BitOperations) {
  check_against("shl_b32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(uint32_t(a) << (b % 32)); });
  check_against("shr_i32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(s32(a) >> (b % 32)); });
  check_against("shr_u32", [](uint64_t a, uint64_t b, uint64_t) { return uint32_t(a) >> (b % 32); });
  check_against("rotl_b32", [](uint64_t a, uint64_t b, uint64_t) {
    const uint32_t x = uint32_t(a), n = b % 32;
    return n ? uint32_t((x << n) | (x >> (32 - n))) : x;
  });
  check_against("popcnt_b32", [](uint64_t a, uint64_t, uint64_t) {
    uint64_t n = 0;
    for (int i = 0; i < 32; ++i) n += a >> i & 1;
    return n;
  });
  check_against("clz_b32", [](uint64_t a, uint64_t, uint64_t) {
    uint64_t n = 0;
    for (int i = 31; i >= 0 && !(a >> i & 1); --i) ++n;
    return n;
  });
  check_against("ctz_b32", [](uint64_t a, uint64_t, uint64_t) {
    uint64_t n = 0;
    for (int i = 0; i < 32 && !(a >> i & 1); ++i) ++n;
    return n;
  });
  check_against("bfe_u32", [](uint64_t a, uint64_t b, uint64_t c) {
    const uint32_t offset = b % 32;
    uint32_t width = uint32_t(c);
    if (width > 32 - offset) width = 32 - offset;
    uint64_t r = 0;
    for (uint32_t i = 0; i < width; ++i) r |= (a >> (offset + i) & 1) << i;
    return r;
  });
  check_against("bfe_i32", [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
    const uint32_t offset = b % 32;
    uint32_t width = uint32_t(c);
    if (width > 32 - offset) width = 32 - offset;
    if (width == 0) return 0;
    int64_t r = 0;
    for (uint32_t i = 0; i < width; ++i) r |= int64_t(a >> (offset + i) & 1) << i;
    if (r >> (width - 1) & 1) r -= int64_t(1) << width;
    return uint32_t(int32_t(r));
  });
  check_against("bfi_b32", [](uint64_t a, uint64_t b, uint64_t c) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= uint32_t((a >> i & 1) ? (b >> i & 1) : (c >> i & 1)) << i;
    return r;
  });
  check_against("xor_b64", [](uint64_t a, uint64_t b, uint64_t) { return a ^ b; });
  check_against("clz_b64", [](uint64_t a, uint64_t, uint64_t) { return uint64_t(std::countl_zero(a)); });
}

TEST(AluOperands, ScalarAndLiteralSourcesBroadcast) {
  FlatMemory memory(0x100000, 1 << 20);
  ShaderCores cores(ShaderConfig{});
  DispatchParams p = linear_dispatch(2, 64);
  load_kernel(memory,
              "  s_special s[0:1], arg_ptr\n"
              "  s_load_b64 s[2:3], s[0:1], 0\n"
              "  s_mov_b32 s4, 1000\n"
              "  v_special v0, local_id_x\n"
              "  v_mad_u32 v1, v0, 3, s4\n"          // literal and scalar operands
              "  v_special v[2:3], global_id_x\n"
              "  v_shl_b64 v[2:3], v[2:3], 2\n"
              "  v_add_u64 v[2:3], v[2:3], s[2:3]\n"
              "  global_store_b32 v[2:3], v1, 0\n"
              "  s_end\n",
              &p);
  const uint64_t out = memory.alloc(128 * 4);
  set_args(memory, {out}, &p);
  run_ok(cores, memory, p);
  const auto got = memory.download<uint32_t>(out, 128);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(got[i], (i % 64) * 3 + 1000) << i;
}

}  // namespace
}  // namespace gsgpu::testing
