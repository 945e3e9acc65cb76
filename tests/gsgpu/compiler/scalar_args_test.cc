// Kernel arguments in scalar registers: loaded once per warp at entry (s_load) and read by vector
// instructions as scalar operands. These kernels use arguments in divergent code, in loops, in
// 64-bit address math, and with more arguments than there are scalar registers (the rest are
// loaded per lane as before); each is checked against a C++ reference, at several warp widths and
// with the scalar path restricted or switched off.
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

using gsvirt::kernel_sources::kVectorAdd;

CompileOptions scalar_budget(uint32_t registers) {
  CompileOptions o;
  o.max_scalar_registers = registers;
  return o;
}

TEST(ScalarArguments, VectorAddLoadsArgumentsOncePerWarp) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(kVectorAdd));
  const CompiledKernel* k = cl.program.find("vadd");
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  // The argument pointer is a scalar special, the four arguments scalar loads; the only per-lane
  // loads left are a[i] and b[i], and no vector register receives arg_ptr.
  EXPECT_EQ(count_lines(s, "s_special s\\[0:1\\], arg_ptr"), 1u) << s;
  EXPECT_EQ(count_lines(s, "v_special .*arg_ptr"), 0u) << s;
  EXPECT_EQ(count_lines(s, "s_load_b64"), 3u) << s;
  EXPECT_EQ(count_lines(s, "s_load_b32"), 1u) << s;
  EXPECT_EQ(count_lines(s, "global_load"), 2u) << s;
  // s0..s8: arg_ptr and the arguments; s[10:11]: n zero-extended (a uniform value, uniform.cc).
  EXPECT_EQ(k->scalar_registers, 12u);
  // Same kernel without scalar registers: today's per-lane argument loads come back.
  ClRunner off;
  ASSERT_TRUE(off.build(kVectorAdd, "", scalar_budget(0)));
  EXPECT_EQ(count_lines(off.assembly("vadd"), "global_load"), 6u) << off.assembly("vadd");
  EXPECT_EQ(count_lines(off.assembly("vadd"), "s_load|s_special"), 0u) << off.assembly("vadd");
  EXPECT_EQ(off.program.find("vadd")->scalar_registers, 0u);

  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 3.0f - i;
  for (ClRunner* r : {&cl, &off}) expect_vadd_adds(*r, a, b);
}

// Arguments read only under divergence (both sides of a branch, a loop whose trip count differs
// per lane, after a nested reconvergence), including 64-bit scalars and floats.
constexpr const char* kDivergent = R"(
  __kernel void divergent(__global const int* p, __global int* out, int a, long b, float f,
                          __global const int* q, uint m, ulong mask) {
    size_t i = get_global_id(0);
    long acc = 0;
    if (i % 3 == 0) {
      acc = a * (int)i + p[i];
    } else if (i % 3 == 1) {
      for (uint j = 0; j < (uint)(i % 7); ++j) {
        if (j & 1) acc += b + q[j];
        else acc -= (long)(f * (float)j);
      }
    } else {
      uint k = 0;
      while (k < m && ((i >> k) & 1)) ++k;
      acc = (long)((ulong)(i * 0x9e3779b9UL) & mask) + k;
    }
    out[2 * i] = (int)acc;
    out[2 * i + 1] = (int)(acc >> 32) + a;
  })";

std::vector<int32_t> divergent_reference(const std::vector<int32_t>& p, const std::vector<int32_t>& q, size_t n,
                                         int32_t a, int64_t b, float f, uint32_t m, uint64_t mask) {
  std::vector<int32_t> out(2 * n);
  for (size_t i = 0; i < n; ++i) {
    int64_t acc = 0;
    if (i % 3 == 0) {
      acc = static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(i)) + p[i];
    } else if (i % 3 == 1) {
      for (uint32_t j = 0; j < static_cast<uint32_t>(i % 7); ++j) {
        if (j & 1) acc += b + q[j];
        else acc -= static_cast<int64_t>(f * static_cast<float>(j));
      }
    } else {
      uint32_t k = 0;
      while (k < m && ((i >> k) & 1)) ++k;
      acc = static_cast<int64_t>((static_cast<uint64_t>(i) * 0x9e3779b9ULL) & mask) + k;
    }
    out[2 * i] = static_cast<int32_t>(acc);
    out[2 * i + 1] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc) >> 32) + static_cast<uint32_t>(a));
  }
  return out;
}

class ScalarArgsWidth : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ScalarArgsWidth, ArgumentsInDivergentCodeAndLoops) {
  GSGPU_REQUIRE_FRONT_END();
  const size_t n = 777;
  std::vector<int32_t> p(n), q(16);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(i * 37 % 1001) - 500;
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<int32_t>(i * i) - 20;
  const int32_t a = -12345;
  const int64_t b = 0x123456789ll;
  const float f = 2.75f;
  const uint32_t m = 5;
  const uint64_t mask = 0x0000000fffff0ff0ull;
  const auto want = divergent_reference(p, q, n, a, b, f, m, mask);
  // Full budget; budgets that end in the middle (8: arg_ptr s[0:1], p s[2:3], out s[4:5], a s6;
  // b needs the pair s[8:9] and goes per lane, f still takes s7, q and m per lane; 7: up to a);
  // none at all (today's per-lane loads).
  for (uint32_t budget : {128u, 8u, 7u, 0u}) {
    ClRunner cl(GetParam());
    ASSERT_TRUE(cl.build(kDivergent, "", scalar_budget(budget)));
    const uint64_t vp = cl.memory.upload(p), vq = cl.memory.upload(q);
    const uint64_t vout = cl.memory.upload(std::vector<int32_t>(2 * n + 8, 0x7777));
    cl.run_ok("divergent",
              {Arg::buffer(vp), Arg::buffer(vout), Arg::value(a), Arg::value(b), Arg::value(f), Arg::buffer(vq),
               Arg::value(m), Arg::value(mask)},
              NDRange::linear(static_cast<uint32_t>(n), 21));  // 777 = 21 * 37
    const auto out = cl.memory.download<int32_t>(vout, 2 * n + 8);
    for (size_t i = 0; i < 2 * n; ++i) ASSERT_EQ(out[i], want[i]) << "budget " << budget << " at " << i << "\n" << cl.assembly("divergent");
    for (size_t i = 2 * n; i < 2 * n + 8; ++i) ASSERT_EQ(out[i], 0x7777) << i;
    const uint32_t sregs = cl.program.find("divergent")->scalar_registers;
    EXPECT_LE(sregs, budget);
    if (budget == 0) {
      EXPECT_EQ(count_lines(cl.assembly("divergent"), "s_load"), 0u);
    }
    if (budget == 128) {
      EXPECT_EQ(count_lines(cl.assembly("divergent"), "global_load_b64"), 0u) << cl.assembly("divergent");
    }
  }
}

TEST_P(ScalarArgsWidth, DivergentGroupsWithWideGroups) {
  GSGPU_REQUIRE_FRONT_END();
  // The same kernel with groups that span several warps and a partial last warp per group.
  const size_t n = 37 * 21;
  std::vector<int32_t> p(n), q(16);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(i ^ 0x55);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<int32_t>(3 * i) - 7;
  const auto want = divergent_reference(p, q, n, 7, -99, -1.5f, 9, ~0ull);
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(kDivergent));
  const uint64_t vp = cl.memory.upload(p), vq = cl.memory.upload(q);
  const uint64_t vout = cl.memory.upload(std::vector<int32_t>(2 * n, 0));
  cl.run_ok("divergent",
            {Arg::buffer(vp), Arg::buffer(vout), Arg::value(int32_t{7}), Arg::value(int64_t{-99}), Arg::value(-1.5f),
             Arg::buffer(vq), Arg::value(uint32_t{9}), Arg::value(~0ull)},
            NDRange::linear(static_cast<uint32_t>(n), 37));
  const auto out = cl.memory.download<int32_t>(vout, 2 * n);
  for (size_t i = 0; i < 2 * n; ++i) ASSERT_EQ(out[i], want[i]) << i;
}

// Loops over arguments: naive SGEMM (n the loop bound, pointers in the address math), run for
// several n on one build.
TEST_P(ScalarArgsWidth, SgemmNaiveLoopOverArguments) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(R"(
    __kernel void sgemm_naive(__global const float* a, __global const float* b, __global float* c, uint n) {
      size_t col = get_global_id(0), row = get_global_id(1);
      float acc = 0.0f;
      for (uint k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
      c[row * n + col] = acc;
    })"));
  EXPECT_EQ(count_lines(cl.assembly("sgemm_naive"), "global_load"), 2u) << cl.assembly("sgemm_naive");
  for (uint32_t n : {8u, 24u}) {
    std::vector<float> a(n * n), b(n * n), want(n * n);
    for (uint32_t i = 0; i < n * n; ++i) a[i] = static_cast<float>(i % 13) - 6, b[i] = static_cast<float>(i % 7) * 0.5f;
    for (uint32_t r = 0; r < n; ++r)
      for (uint32_t col = 0; col < n; ++col) {
        float acc = 0;
        for (uint32_t k = 0; k < n; ++k) acc += a[r * n + k] * b[k * n + col];
        want[r * n + col] = acc;
      }
    const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b), vc = cl.memory.upload(std::vector<float>(n * n));
    cl.run_ok("sgemm_naive", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc), Arg::value(n)}, NDRange::grid2(n, n, 8, 8));
    const auto c = cl.memory.download<float>(vc, n * n);
    for (uint32_t i = 0; i < n * n; ++i) ASSERT_EQ(c[i], want[i]) << "n " << n << " at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, ScalarArgsWidth, ::testing::Values(1u, 8u, 32u, 64u));

// 64-bit pointer arguments in address math: offsets, strides, pointer differences and compares,
// a __local pointer argument, vector and narrow by-value arguments (char4 stays per lane), a
// struct by value (per lane, private copy) and work_dim.
TEST(ScalarArguments, PointerArgumentsInAddressMath) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    typedef struct { int x; long y; } pair_t;
    __kernel void addr(__global const int* base, long off, ulong stride, __global const int* end,
                       __global long* out, __local int* scratch, int4 v, char4 c, pair_t s, ushort h) {
      size_t i = get_global_id(0);
      size_t l = get_local_id(0);
      __global const int* p = base + off + i * stride;
      scratch[l] = (p < end) ? *p : -1;
      barrier(CLK_LOCAL_MEM_FENCE);
      long d = end - p;
      out[4 * i + 0] = scratch[(l + 1) % get_local_size(0)] + v.s0 * v.s3 + c.s1 - c.s2;
      out[4 * i + 1] = d;
      out[4 * i + 2] = (long)((__global const char*)end - (__global const char*)base) + s.x + s.y;
      out[4 * i + 3] = (long)get_work_dim() * 1000 + h + base[7];  // a constant offset folded into the load
    })"));
  const std::string& s = cl.assembly("addr");
  EXPECT_GT(count_lines(s, "s_load_b64"), 0u) << s;
  // Narrow leaves stay per lane: the two char4 components used (u8) and the ushort (u16).
  EXPECT_EQ(count_lines(s, "global_load_u8"), 2u) << s;
  EXPECT_EQ(count_lines(s, "global_load_u16"), 1u) << s;
  EXPECT_EQ(count_lines(s, "global_load_b32 v[0-9]+, s\\[2:3\\], 28"), 1u) << s;  // base[7]
  const uint32_t n = 256, group = 64;
  std::vector<int32_t> data(4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int32_t>(i * 3) - 1000;
  const uint64_t vbase = cl.memory.upload(data);
  const int64_t off = 5;
  const uint64_t stride = 3;
  const uint64_t vend = vbase + 4 * (off + 200 * stride);  // lanes past 200 read nothing
  const uint64_t vout = cl.memory.upload(std::vector<int64_t>(4 * n));
  struct Pair {
    int32_t x;
    int32_t pad;
    int64_t y;
  } pair{-3, 0, 1ll << 40};
  Arg struct_arg;
  struct_arg.bytes.resize(sizeof pair);
  std::memcpy(struct_arg.bytes.data(), &pair, sizeof pair);
  const int32_t v[4] = {2, 9, 9, 11};
  Arg v_arg;
  v_arg.bytes.resize(16);
  std::memcpy(v_arg.bytes.data(), v, 16);
  const int8_t c[4] = {1, -4, 20, 0};
  Arg c_arg;
  c_arg.bytes.resize(4);
  std::memcpy(c_arg.bytes.data(), c, 4);
  cl.run_ok("addr",
            {Arg::buffer(vbase), Arg::value(off), Arg::value(stride), Arg::buffer(vend), Arg::buffer(vout), Arg::local(group * 4),
             v_arg, c_arg, struct_arg, Arg::value(uint16_t{65000})},
            NDRange::linear(n, group));
  const auto out = cl.memory.download<int64_t>(vout, 4 * n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t l = i % group, next = (l + 1) % group;
    const uint32_t gi = i - l + next;
    const int64_t pi = off + int64_t{i} * int64_t(stride);
    const int64_t gpi = off + int64_t{gi} * int64_t(stride);
    const int32_t at_next = gpi < off + 200 * int64_t(stride) ? data[gpi] : -1;
    ASSERT_EQ(out[4 * i + 0], at_next + 2 * 11 + (-4) - 20) << i;
    ASSERT_EQ(out[4 * i + 1], off + 200 * int64_t(stride) - pi) << i;
    ASSERT_EQ(out[4 * i + 2], 4 * (off + 200 * int64_t(stride)) - 3 + (1ll << 40)) << i;
    ASSERT_EQ(out[4 * i + 3], 1000 + 65000 + data[7]) << i;
  }
}

// More arguments than scalar registers: 70 pointers need 140 registers plus arg_ptr's pair; the
// first ones are scalar, the rest per lane. Every pointer is used, under divergence.
TEST(ScalarArguments, MoreArgumentsThanScalarRegisters) {
  GSGPU_REQUIRE_FRONT_END();
  constexpr int kArgs = 70;
  std::string params, body;
  for (int j = 0; j < kArgs; ++j) {
    params += "__global int* p" + std::to_string(j) + ", ";
    body += "  if ((i + " + std::to_string(j) + ") % 5 != 0) p" + std::to_string(j) + "[i] += " + std::to_string(j) +
            " + k;\n";
  }
  const std::string source = "__kernel void many(" + params + "int k) {\n  size_t i = get_global_id(0);\n" + body + "}\n";
  for (uint32_t budget : {128u, 20u}) {
    ClRunner cl(32);
    ASSERT_TRUE(cl.build(source, "", scalar_budget(budget)));
    const CompiledKernel* kernel = cl.program.find("many");
    ASSERT_NE(kernel, nullptr);
    const std::string& s = kernel->assembly;
    EXPECT_EQ(kernel->scalar_registers, budget);
    // Scalar pairs up to the budget (arg_ptr + (budget - 2) / 2 pointers), the rest vector loads
    // of 8 bytes from the argument buffer; k (after them) is per lane as well.
    EXPECT_EQ(count_lines(s, "s_load_b64"), (budget - 2) / 2) << s;
    EXPECT_EQ(count_lines(s, "s_load_b32"), 0u) << s;
    EXPECT_EQ(count_lines(s, "global_load_b64"), kArgs - (budget - 2) / 2) << s;
    const uint32_t n = 100;
    std::vector<Arg> args;
    std::vector<uint64_t> vas;
    for (int j = 0; j < kArgs; ++j) {
      std::vector<int32_t> init(n);
      for (uint32_t i = 0; i < n; ++i) init[i] = static_cast<int32_t>(i * 1000 + j);
      vas.push_back(cl.memory.upload(init));
      args.push_back(Arg::buffer(vas.back()));
    }
    args.push_back(Arg::value(int32_t{-7}));
    cl.run_ok("many", args, NDRange::linear(n, 20));
    for (int j = 0; j < kArgs; ++j) {
      const auto got = cl.memory.download<int32_t>(vas[j], n);
      for (uint32_t i = 0; i < n; ++i) {
        const int32_t want = static_cast<int32_t>(i * 1000 + j) + ((i + j) % 5 != 0 ? j - 7 : 0);
        ASSERT_EQ(got[i], want) << "budget " << budget << " p" << j << "[" << i << "]";
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
