// cl_khr_fp64 and the half conversions: OpenCL C using doubles and vload/vstore_half in every rounding
// mode, compiled and run on the shader cores. Expected values come from the host: its IEEE double
// arithmetic, its conversions under fesetround, glibc's double functions with an ulp bound, and, for
// binary16, values worked out in the comments.
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

constexpr int kHostModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
constexpr const char* kSuffixes[] = {"_rte", "_rtz", "_rtp", "_rtn"};

template <typename To, typename From>
To convert_in(int host_mode, From x) {
  volatile From in = x;
  std::fesetround(host_mode);
  volatile To out = static_cast<To>(in);
  std::fesetround(FE_TONEAREST);
  return out;
}

std::vector<double> test_doubles(size_t n) {
  std::mt19937_64 rng(11);
  std::vector<double> v = {0.0, -0.0, 1.0, -1.5, 2.5, 0x1p-1074, 0x1.fffffffffffffp1023, INFINITY, -INFINITY,
                           0x1.000001p0, 0x1.0000008p0, 3.4028235677973366e38, 1e-300, 65519.0, 2147483647.5, -7.5};
  while (v.size() < n) {
    const double x = std::bit_cast<double>(rng());
    v.push_back(std::isnan(x) ? 1.25 : x);
    v.push_back(std::uniform_real_distribution<double>(-1e4, 1e4)(rng));
  }
  v.resize(n);
  return v;
}

template <typename T>
std::vector<T> run_map(const std::string& body, const std::string& out_type, const std::vector<double>& a,
                       const std::vector<double>& b = {}) {
  ClRunner cl;
  const std::string source = "kernel void k(global " + out_type + "* out, global const double* a, global const double* b) {\n"
                             "  size_t i = get_global_id(0);\n  double x = a[i], y = b[i];\n  " + body + "\n}\n";
  if (!cl.build(source)) return {};
  const std::vector<double> second = b.empty() ? std::vector<double>(a.size(), 1.0) : b;
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(second);
  const uint64_t vout = cl.memory.upload(std::vector<T>(a.size(), T{}));
  cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(va), Arg::buffer(vb)}, NDRange::linear(static_cast<uint32_t>(a.size()), a.size() % 64 == 0 ? 64 : 1));
  return cl.memory.download<T>(vout, a.size());
}

uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }

TEST(Fp64, ArithmeticIsCorrectlyRoundedBitForBit) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<double> a = test_doubles(256), b = test_doubles(256 + 7);
  const std::vector<double> bb(b.begin() + 7, b.end());
  struct Case { const char* expr; double (*host)(double, double); };
  const Case cases[] = {
      {"x + y", [](double x, double y) { return x + y; }}, {"x - y", [](double x, double y) { return x - y; }},
      {"x * y", [](double x, double y) { return x * y; }}, {"x / y", [](double x, double y) { return x / y; }},
      {"fma(x, y, x)", [](double x, double y) { return std::fma(x, y, x); }},
      {"sqrt(x)", [](double x, double) { return std::sqrt(x); }},
      {"fmin(x, y)", [](double x, double y) { return std::fmin(x, y); }},
      {"-x", [](double x, double) { return -x; }},
      {"x < y ? x : y", [](double x, double y) { return x < y ? x : y; }},
      {"(double)(float)x", [](double x, double) { return static_cast<double>(static_cast<float>(x)); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    const auto got = run_map<double>(std::string("out[i] = ") + c.expr + ";", "double", a, bb);
    ASSERT_EQ(got.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const double want = c.host(a[i], bb[i]);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got[i])) << a[i] << " " << bb[i];
      else EXPECT_EQ(bits(got[i]), bits(want)) << a[i] << " " << bb[i];
    }
  }
}

TEST(Fp64, ComparesAndClassificationFollowIeee) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<double> a = {1.0, NAN, -0.0, INFINITY, 0x1p-1074, 2.0, -3.0, 0x1p-1022};
  const std::vector<double> b = {2.0, 1.0, 0.0, INFINITY, 0.0, NAN, -3.0, 1.0};
  const auto got = run_map<int>(
      "out[i] = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | isnan(x) << 4 | isinf(x) << 5 | "
      "isfinite(x) << 6 | isnormal(x) << 7 | signbit(x) << 8 | isunordered(x, y) << 9 | (x > y) << 10;",
      "int", a, b);
  ASSERT_EQ(got.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    const int want = (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | std::isnan(x) << 4 | std::isinf(x) << 5 |
                     std::isfinite(x) << 6 | std::isnormal(x) << 7 | std::signbit(x) << 8 |
                     (std::isnan(x) || std::isnan(y)) << 9 | (x > y) << 10;
    EXPECT_EQ(got[i], want) << x << " " << y;
  }
}

TEST(Fp64, ConversionsInEachRoundingModeMatchTheHostUnderFesetround) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<double> a = test_doubles(128);
  std::mt19937_64 rng(12);
  std::vector<double> ints;  // 64-bit integers carried as their bit patterns
  for (size_t i = 0; i < a.size(); ++i) ints.push_back(std::bit_cast<double>(rng() >> (rng() % 64)));
  for (int m = 0; m < 4; ++m) {
    const std::string s = kSuffixes[m];
    SCOPED_TRACE(s);
    // One kernel per mode, every conversion in it.
    ClRunner cl;
    ASSERT_TRUE(cl.build("kernel void k(global float* f, global double* d, global double* ud, global float* lf,\n"
                         "  global int* i32, global int* i8, global ulong* u64, global const double* a, global const long* n) {\n"
                         "  size_t i = get_global_id(0);\n"
                         "  f[i] = convert_float" + s + "(a[i]);\n  d[i] = convert_double" + s + "(n[i]);\n"
                         "  ud[i] = convert_double" + s + "(as_ulong(n[i]));\n  lf[i] = convert_float" + s + "(n[i]);\n"
                         "  i32[i] = convert_int_sat" + s + "(a[i]);\n  i8[i] = convert_char_sat" + s + "(a[i]);\n"
                         "  u64[i] = convert_ulong_sat" + s + "(a[i]);\n}\n"));
    const size_t count = a.size();
    std::vector<uint64_t> buffers;
    for (int k = 0; k < 7; ++k) buffers.push_back(cl.memory.upload(std::vector<uint64_t>(count, 0)));
    const uint64_t va = cl.memory.upload(a), vn = cl.memory.upload(ints);
    std::vector<Arg> args;
    for (uint64_t b : buffers) args.push_back(Arg::buffer(b));
    args.push_back(Arg::buffer(va));
    args.push_back(Arg::buffer(vn));
    cl.run_ok("k", args, NDRange::linear(static_cast<uint32_t>(count), 64));
    const auto to_float = cl.memory.download<float>(buffers[0], count);
    const auto long_to_double = cl.memory.download<double>(buffers[1], count);
    const auto ulong_to_double = cl.memory.download<double>(buffers[2], count);
    const auto long_to_float = cl.memory.download<float>(buffers[3], count);
    const auto to_int = cl.memory.download<int>(buffers[4], count);
    const auto to_char = cl.memory.download<int>(buffers[5], count);
    const auto to_ulong = cl.memory.download<uint64_t>(buffers[6], count);
    ASSERT_EQ(to_float.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const double x = a[i];
      EXPECT_EQ(std::bit_cast<uint32_t>(to_float[i]), std::bit_cast<uint32_t>(convert_in<float>(kHostModes[m], x))) << x;
      const auto n = std::bit_cast<int64_t>(ints[i]);
      const auto u = std::bit_cast<uint64_t>(ints[i]);
      EXPECT_EQ(bits(long_to_double[i]), bits(convert_in<double>(kHostModes[m], n))) << n;
      EXPECT_EQ(bits(ulong_to_double[i]), bits(convert_in<double>(kHostModes[m], u))) << u;
      EXPECT_EQ(std::bit_cast<uint32_t>(long_to_float[i]), std::bit_cast<uint32_t>(convert_in<float>(kHostModes[m], n))) << n;
      // Integer results: the host rounds to an integral double in the mode (nearbyint), then clamps.
      std::fesetround(kHostModes[m]);
      const double integral = std::nearbyint(x);
      std::fesetround(FE_TONEAREST);
      auto clamp = [&](double lo, double hi) { return std::isnan(x) ? 0.0 : std::fmin(std::fmax(integral, lo), hi); };
      EXPECT_EQ(to_int[i], static_cast<int>(clamp(INT32_MIN, INT32_MAX))) << x;
      EXPECT_EQ(to_char[i], static_cast<int>(static_cast<signed char>(clamp(-128, 127)))) << x;
      const uint64_t want_ulong = std::isnan(x) || integral <= 0 ? 0
                                  : integral >= 0x1p64           ? ~0ull
                                                                 : static_cast<uint64_t>(integral);
      EXPECT_EQ(to_ulong[i], want_ulong) << x;
    }
  }
}

// vstore_half in each mode, from float and from double. The cases, with their binary16 neighbours:
//   1 + 2^-11: exactly between 1.0 (0x3c00) and 1 + 2^-10 (0x3c01): a tie, to even 0x3c00
//   1 + 3 * 2^-11: between 0x3c01 and 0x3c02, a tie, to even 0x3c02
//   2^-25: half of the smallest denormal 2^-24 (0x0001): a tie, to even 0
//   -3 * 2^-26: between -0 and -2^-24, nearer -2^-24
//   65520: between 65504 (0x7bff) and 65536 (inf): a tie, to "even" inf; rtz keeps 65504
//   1e6: overflow: inf when rounding away from zero on its side, 65504 otherwise
//   inf, -inf, NaN: kept (NaN stays a NaN)
TEST(Fp64, VstoreHalfRoundsInEachModeFromFloatAndDouble) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<double> x = {1 + 0x1p-11, 1 + 3 * 0x1p-11, 0x1p-25, -3 * 0x1p-26, 65520.0, 1e6, -1e6,
                                 INFINITY, -INFINITY, NAN, 0x1.0000000001p0, 0.1};
  //                               rte     rtz     rtp     rtn
  const uint16_t want[][4] = {{0x3c00, 0x3c00, 0x3c01, 0x3c00}, {0x3c02, 0x3c01, 0x3c02, 0x3c01},
                              {0x0000, 0x0000, 0x0001, 0x0000}, {0x8001, 0x8000, 0x8000, 0x8001},
                              {0x7c00, 0x7bff, 0x7c00, 0x7bff}, {0x7c00, 0x7bff, 0x7c00, 0x7bff},
                              {0xfc00, 0xfbff, 0xfbff, 0xfc00}, {0x7c00, 0x7c00, 0x7c00, 0x7c00},
                              {0xfc00, 0xfc00, 0xfc00, 0xfc00}, {0x7e00, 0x7e00, 0x7e00, 0x7e00},
                              // 1 + 2^-40 (double only; as float it is 1.0): above 1.0, below the midpoint
                              {0x3c00, 0x3c00, 0x3c01, 0x3c00},
                              // 0.1 = 0x1.999999999999ap-4; half has 10 bits: 0x2e66 (0.0999756) below, 0x2e67 above,
                              // the rest 0.6 of a unit
                              {0x2e66, 0x2e66, 0x2e67, 0x2e66}};
  for (int m = 0; m < 4; ++m) {
    for (const char* source_type : {"double", "float"}) {
      const std::string s = kSuffixes[m];
      SCOPED_TRACE(s + " " + source_type);
      ClRunner cl;
      const std::string src = std::string("kernel void k(global half* out, global const double* a) {\n") +
                              "  size_t i = get_global_id(0);\n  vstore_half" + s + "((" + source_type + ")a[i], i, out);\n}\n";
      ASSERT_TRUE(cl.build(src));
      const uint64_t va = cl.memory.upload(x), vout = cl.memory.upload(std::vector<uint16_t>(x.size(), 0x1234));
      cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(va)}, NDRange::linear(static_cast<uint32_t>(x.size()), 1));
      const auto got = cl.memory.download<uint16_t>(vout, x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        if (std::string(source_type) == "float" && i == 10) continue;  // not a float
        if (std::isnan(x[i])) EXPECT_EQ(got[i] & 0x7e00, 0x7e00);
        else EXPECT_EQ(got[i], want[i][m]) << x[i];
      }
    }
  }
}

TEST(Fp64, VloadHalfAndVectorFormsRoundTripEveryMode) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  // vstorea_half3 aligns like 4 halves; vload_half4 / vloada_half4 read back; the double source uses _rtz.
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global half* h, global float* f, global const double* d) {
      vstorea_half3_rtp((float3)(1.0f + 0x1p-12f, -2.5f, 0x1p-26f), 0, h);
      vstore_half4_rtz((double4)(d[0], d[1], d[2], d[3]), 1, h);
      vstorea_half2_rtn((float2)(-0x1p-30f, 3.0f), 4, h);
      float4 a = vloada_half4(0, h);
      float4 b = vload_half4(1, h);
      f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = b.x; f[4] = b.y; f[5] = b.z; f[6] = b.w;
      f[7] = vload_half(8, h); f[8] = vload_half(9, h);
    })"));
  const uint64_t vh = cl.memory.upload(std::vector<uint16_t>(16, 0)), vf = cl.memory.upload(std::vector<float>(9, 0));
  const uint64_t vd = cl.memory.upload(std::vector<double>{65535.0, -1e-10, 0.3, 1e300});
  cl.run_ok("k", {Arg::buffer(vh), Arg::buffer(vf), Arg::buffer(vd)}, NDRange::linear(1, 1));
  const auto f = cl.memory.download<float>(vf, 9);
  EXPECT_EQ(f[0], 1.0f + 0x1p-10f);  // rtp: up to the next half
  EXPECT_EQ(f[1], -2.5f);
  EXPECT_EQ(f[2], 0x1p-24f);          // rtp of a positive value below the smallest denormal
  EXPECT_EQ(f[3], 65504.0f);          // rtz: the largest finite half
  EXPECT_EQ(f[4], -0.0f);
  EXPECT_TRUE(std::signbit(f[4]));
  EXPECT_EQ(f[5], 0x1.33p-2f);        // 0.3 truncated to 10 bits: 0x1.333...p-2 -> 0x1.330p-2
  EXPECT_EQ(f[6], 65504.0f);
  EXPECT_EQ(f[7], -0x1p-24f);         // rtn of a tiny negative value
  EXPECT_EQ(f[8], 3.0f);
}

double ulps(double got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (got == want) return 0;
  if (std::isinf(want) || std::isinf(got)) return 1e9;
  return std::fabs(got - want) / std::ldexp(1.0, std::max(std::ilogb(want), -1022) - 52);
}

TEST(Fp64, BuiltInsAreWithinTheirBoundsOfTheHostLibrary) {
  GSGPU_REQUIRE_FRONT_END();
  std::mt19937_64 rng(13);
  std::vector<double> a, b;
  for (int i = 0; i < 128; ++i) {
    a.push_back(std::uniform_real_distribution<double>(0.01, 50)(rng));
    b.push_back(std::uniform_real_distribution<double>(-8, 8)(rng));
  }
  struct Case { const char* expr; double (*host)(double, double); double bound; };
  const Case cases[] = {
      {"sin(x)", [](double x, double) { return std::sin(x); }, 1},
      {"exp(y)", [](double, double y) { return std::exp(y); }, 1},
      {"log(x)", [](double x, double) { return std::log(x); }, 1},
      {"pow(x, y)", [](double x, double y) { return std::pow(x, y); }, 1},
      {"atan2(y, x)", [](double x, double y) { return std::atan2(y, x); }, 1},
      {"tanh(y)", [](double, double y) { return std::tanh(y); }, 1},
      {"sinpi(y)", [](double, double y) { return std::sin(M_PI * y); }, 1e-3 / 0x1p-52},  // host's pi*y rounds
      {"fmod(x, y)", [](double x, double y) { return std::fmod(x, y); }, 0},
      {"remainder(x, y)", [](double x, double y) { return std::remainder(x, y); }, 0},
      {"hypot(x, y)", [](double x, double y) { return std::hypot(x, y); }, 1},
      {"ldexp(x, (int)y)", [](double x, double y) { return std::ldexp(x, static_cast<int>(y)); }, 0},
      {"floor(y) + ceil(y) * 4 + round(y) * 16 + rint(y) * 64", [](double, double y) {
         return std::floor(y) + std::ceil(y) * 4 + std::round(y) * 16 + std::nearbyint(y) * 64; }, 0},
      {"clamp(y, -1.0, 2.0) + mix(x, y, 0.25) + step(0.5, y) + sign(y)", [](double x, double y) {
         return std::fmin(std::fmax(y, -1.0), 2.0) + (x + (y - x) * 0.25) + (y < 0.5 ? 0.0 : 1.0) + (y > 0 ? 1.0 : -1.0); }, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    const auto got = run_map<double>(std::string("out[i] = ") + c.expr + ";", "double", a, b);
    ASSERT_EQ(got.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_LE(ulps(got[i], c.host(a[i], b[i])), c.bound) << a[i] << " " << b[i];
  }
}

TEST(Fp64, TwoResultAndGeometricBuiltIns) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void k(global double* out, global int* ints, global const double* in) {
      int e; double whole; int q; int sign;
      out[0] = frexp(in[0], &e); ints[0] = e;
      out[1] = fract(in[1], &whole); out[2] = whole;
      out[3] = modf(in[1], &whole); out[4] = whole;
      out[5] = remquo(in[2], in[3], &q); ints[1] = q;
      out[6] = lgamma_r(in[4], &sign); ints[2] = sign;
      out[7] = length((double3)(in[5], in[5], in[5]));
      out[8] = distance((double2)(0.0, 3.0), (double2)(4.0, 0.0));
      double4 n = normalize((double4)(in[5], 0.0, 0.0, 0.0));
      out[9] = n.x; out[10] = n.y;
      out[11] = dot((double3)(1.0, 2.0, 3.0), (double3)(4.0, 5.0, 6.0));
      double3 c = cross((double3)(1.0, 0.0, 0.0), (double3)(0.0, 1.0, 0.0));
      out[12] = c.z; out[13] = c.x;
      ints[3] = ilogb(in[0]);
      out[14] = nan(5ul);
      double s, co; s = sincos(in[6], &co); out[15] = s; out[16] = co;
      out[17] = length((double2)(0.0, 0.0));
      // An int operand of a vector built-in is a 32-bit register: 16 lanes put some at odd numbers.
      double16 v = ldexp((double16)(in[0]), (int16)(ints[3]));
      out[18] = v.s0 + v.sf;
      out[19] = pown(in[1], ints[3]) + rootn(in[0], -ints[0]);
    })"));
  const std::vector<double> in = {48.0, -2.75, 1000.5, 0.75, -0.5, 1e300, 0.5};
  const uint64_t vin = cl.memory.upload(in), vout = cl.memory.upload(std::vector<double>(20, 0));
  const uint64_t vints = cl.memory.upload(std::vector<int>(4, 0));
  cl.run_ok("k", {Arg::buffer(vout), Arg::buffer(vints), Arg::buffer(vin)}, NDRange::linear(1, 1));
  const auto out = cl.memory.download<double>(vout, 20);
  const auto ints = cl.memory.download<int>(vints, 4);
  EXPECT_EQ(out[0], 0.75);  // 48 = 0.75 * 2^6
  EXPECT_EQ(ints[0], 6);
  EXPECT_EQ(out[1], 0.25);  // -2.75 - floor(-2.75)
  EXPECT_EQ(out[2], -3.0);
  EXPECT_EQ(out[3], -0.75);
  EXPECT_EQ(out[4], -2.0);
  // 1000.5 / 0.75 = 1334: remainder exactly 0, quotient 1334 = 0b10100110110, low 7 bits 0x36
  EXPECT_EQ(out[5], std::remainder(1000.5, 0.75));
  EXPECT_EQ(ints[1], 1334 & 0x7f);
  int host_sign = 0;
  EXPECT_LE(ulps(out[6], lgamma_r(-0.5, &host_sign)), 2);
  EXPECT_EQ(ints[2], host_sign);
  EXPECT_LE(ulps(out[7], 1e300 * std::sqrt(3.0)), 2);  // no overflow in the squares
  EXPECT_EQ(out[8], 5.0);
  EXPECT_EQ(out[9], 1.0);
  EXPECT_EQ(out[10], 0.0);
  EXPECT_EQ(out[11], 32.0);
  EXPECT_EQ(out[12], 1.0);
  EXPECT_EQ(out[13], 0.0);
  EXPECT_EQ(ints[3], 5);
  EXPECT_EQ(std::bit_cast<uint64_t>(out[14]), 0x7ff8000000000005ull);
  EXPECT_EQ(out[15], std::sin(0.5));
  EXPECT_EQ(out[16], std::cos(0.5));
  EXPECT_EQ(out[17], 0.0);
  EXPECT_EQ(out[18], 2 * 48.0 * 32);  // ldexp(48, 5) twice (ints[3] = ilogb(48) = 5)
  // pown exact here (-2.75^5 = -157.2763671875); rootn within an ulp or two of the host's pow(48, -1/6)
  EXPECT_NEAR(out[19], -157.2763671875 + std::pow(48.0, -1.0 / 6), 1e-12);
}

}  // namespace
}  // namespace gsgpu::compiler::testing
