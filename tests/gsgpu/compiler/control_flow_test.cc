// Control flow the code generator must get right on a SIMT machine: divergent if/else nested in
// loops with break and continue, switch, early return, function calls, a kernel that never ends
// (watchdog), and spilling under register pressure. Each runs on several warp widths so partial and
// multiple warps are covered.
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

class WarpWidth : public ::testing::TestWithParam<uint32_t> {};

int32_t nested_reference(int32_t x, int32_t n) {
  int32_t acc = 0;
  for (int32_t i = 0; i < n; ++i) {
    if ((x + i) % 3 == 0) continue;
    if (x % 2 == 0) {
      acc += i;
      if (acc > 40 + x) break;
    } else {
      for (int32_t j = 0; j < i; ++j) {
        if (j == x % 5) break;
        acc -= j;
      }
    }
  }
  return acc;
}

TEST_P(WarpWidth, DivergentIfElseNestedInLoopsWithBreakAndContinue) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(R"(
    __kernel void nested(__global int* out, int n) {
      int x = get_global_id(0);
      int acc = 0;
      for (int i = 0; i < n; ++i) {
        if ((x + i) % 3 == 0) continue;
        if (x % 2 == 0) {
          acc += i;
          if (acc > 40 + x) break;
        } else {
          for (int j = 0; j < i; ++j) {
            if (j == x % 5) break;
            acc -= j;
          }
        }
      }
      out[x] = acc;
    })"));
  const int items = 200, n = 17;
  const uint64_t vo = cl.memory.upload(std::vector<int32_t>(items, 12345));
  cl.run_ok("nested", {Arg::buffer(vo), Arg::value(n)}, NDRange::linear(items, 50));
  const auto out = cl.memory.download<int32_t>(vo, items);
  for (int x = 0; x < items; ++x) EXPECT_EQ(out[x], nested_reference(x, n)) << "work-item " << x;
}

// An if / else-if chain that the optimiser turns into an OpSwitch whose first case jumps straight
// to the merge block, where a phi takes the value from the switch's own block (OpenCL-CTS
// test_basic "if"). The phi copy for that edge was lost: case 0 read 0.
TEST_P(WarpWidth, SwitchCaseStraightToAPhiTakesItsValue) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(R"(
    __kernel void chain(__global const int* src, __global int* dst) {
      int tid = get_global_id(0);
      if (src[tid] == 0) dst[tid] = 0x12345678;
      else if (src[tid] == 1) dst[tid] = 0x23456781;
      else if (src[tid] == 2) dst[tid] = 0x34567812;
      else if (src[tid] == 3) dst[tid] = 0x45678123;
      else dst[tid] = 0x7fffffff;
    })"));
  const int items = 60;
  std::vector<int32_t> in(items);
  for (int i = 0; i < items; ++i) in[i] = (i * 7) % 6;
  const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<int32_t>(items, 0));
  cl.run_ok("chain", {Arg::buffer(vi), Arg::buffer(vo)}, NDRange::linear(items, 20));
  const int32_t expected[] = {0x12345678, 0x23456781, 0x34567812, 0x45678123};
  const auto out = cl.memory.download<int32_t>(vo, items);
  for (int i = 0; i < items; ++i) EXPECT_EQ(out[i], in[i] < 4 ? expected[in[i]] : 0x7fffffff) << "work-item " << i;
}

int32_t switch_reference(int32_t x) {
  int32_t r = 0;
  switch (x % 7) {
    case 0: r = 10; break;
    case 1: r = 20;  // falls through
    case 2: r += 5; break;
    case 4: r = -x; break;
    case 6: return x * 3;
    default: r = 99;
  }
  return r + 1;
}

TEST_P(WarpWidth, SwitchWithFallThroughAndEarlyReturn) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(R"(
    int classify(int x) {
      int r = 0;
      switch (x % 7) {
        case 0: r = 10; break;
        case 1: r = 20;
        case 2: r += 5; break;
        case 4: r = -x; break;
        case 6: return x * 3;
        default: r = 99;
      }
      return r + 1;
    }
    __kernel void sw(__global int* out) {
      int x = get_global_id(0);
      out[x] = classify(x);
    })", "-cl-opt-disable"));  // -O0 keeps the switch (and the call) as written
  const int items = 96;
  const uint64_t vo = cl.memory.upload(std::vector<int32_t>(items));
  cl.run_ok("sw", {Arg::buffer(vo)}, NDRange::linear(items, 32));
  const auto out = cl.memory.download<int32_t>(vo, items);
  for (int x = 0; x < items; ++x) EXPECT_EQ(out[x], switch_reference(x)) << x;
}

TEST_P(WarpWidth, FunctionCallsAreInlined) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(GetParam());
  ASSERT_TRUE(cl.build(R"(
    float poly(float x, float a, float b) { return a * x * x + b; }
    int collatz_steps(uint v) {
      int steps = 0;
      while (v != 1) { v = (v & 1) ? 3 * v + 1 : v / 2; ++steps; }
      return steps;
    }
    __kernel void calls(__global float* f, __global int* steps) {
      int i = get_global_id(0);
      f[i] = poly((float)i, 0.5f, poly(1.0f, 2.0f, 1.0f));
      steps[i] = collatz_steps(i + 1);
    })", "-cl-opt-disable"));
  const int items = 64;
  const uint64_t vf = cl.memory.upload(std::vector<float>(items)), vs = cl.memory.upload(std::vector<int32_t>(items));
  cl.run_ok("calls", {Arg::buffer(vf), Arg::buffer(vs)}, NDRange::linear(items, 64));
  const auto f = cl.memory.download<float>(vf, items);
  const auto steps = cl.memory.download<int32_t>(vs, items);
  for (int i = 0; i < items; ++i) {
    EXPECT_FLOAT_EQ(f[i], 0.5f * i * i + 3.0f) << i;
    int expect = 0;
    for (uint32_t v = i + 1; v != 1; v = (v & 1) ? 3 * v + 1 : v / 2) ++expect;
    EXPECT_EQ(steps[i], expect) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, WarpWidth, ::testing::Values(1u, 8u, 32u, 64u));

TEST(ControlFlow, InfiniteLoopEndsInTheWatchdog) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void spin(__global volatile int* p) {
      int i = get_global_id(0);
      while (p[i] == 0) { }
    })"));
  const uint64_t vp = cl.memory.upload(std::vector<int32_t>(64, 0));
  const DispatchResult r = cl.run("spin", {Arg::buffer(vp)}, NDRange::linear(64, 32), 100000);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kWatchdog) << r.fault->message;
}

TEST(ControlFlow, SpillingUnderRegisterPressureKeepsResults) {
  GSGPU_REQUIRE_FRONT_END();
  // 24 values live across a loop; with 16 registers most must live in private memory.
  const std::string source = R"(
    __kernel void pressure(__global const float* in, __global float* out, int n) {
      int i = get_global_id(0);
      float v0 = in[i], v1 = v0 + 1, v2 = v1 * 2, v3 = v2 - 3, v4 = v3 * v0, v5 = v4 + v1, v6 = v5 * 0.5f,
            v7 = v6 + v2, v8 = v7 - v3, v9 = v8 * v4, v10 = v9 + v5, v11 = v10 - v6, v12 = v11 * 0.25f,
            v13 = v12 + v7, v14 = v13 + v8, v15 = v14 - v9, v16 = v15 + v10, v17 = v16 * v11,
            v18 = v17 + v12, v19 = v18 - v13, v20 = v19 + v14, v21 = v20 * v15, v22 = v21 + v16, v23 = v22 - v17;
      float acc = 0;
      for (int k = 0; k < n; ++k)
        acc += v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 +
               v17 + v18 + v19 + v20 + v21 + v22 + v23 + k;
      out[i] = acc;
    })";
  std::vector<float> results[2];
  uint32_t spilled[2] = {};
  for (int variant = 0; variant < 2; ++variant) {
    ClRunner cl;
    CompileOptions options;
    options.max_vector_registers = variant == 0 ? 240 : 16;
    ASSERT_TRUE(cl.build(source, "", options));
    spilled[variant] = cl.program.find("pressure")->spilled_values;
    std::vector<float> in(128);
    for (int i = 0; i < 128; ++i) in[i] = 0.01f * i;
    const uint64_t vi = cl.memory.upload(in), vo = cl.memory.upload(std::vector<float>(128));
    cl.run_ok("pressure", {Arg::buffer(vi), Arg::buffer(vo), Arg::value(5)}, NDRange::linear(128, 64));
    results[variant] = cl.memory.download<float>(vo, 128);
  }
  EXPECT_EQ(spilled[0], 0u);
  EXPECT_GT(spilled[1], 0u);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_NE(results[0][5], 0.0f);
}

// A kernel LLVM optimises into an i2 switch, which llvm-spirv-14 cannot translate: the front end
// rebuilds it without optimisation and says so; the result must still be right.
TEST(ControlFlow, ProgramRebuiltWithoutOptimisationStillRuns) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    typedef struct { int count; float scale; char tag[3]; } Params;
    __constant int table[4] = {1, 2, 3, 4};
    int pick(int x) { switch (x & 3) { case 0: return 1; case 1: return x * 2; default: return table[x & 3]; } }
    __kernel void mixed(__global long* out, Params p) {
      int i = get_global_id(0);
      long acc = 0;
      for (int k = 0; k < p.count; ++k) {
        if ((k ^ i) & 1) continue;
        acc += pick(k) * (long)(i - 20) * p.tag[1];
        if (acc > 1000) break;
      }
      out[i] = acc + (long)(p.scale * i);
    })"));
  EXPECT_NE(cl.program.log.find("built without optimisation"), std::string::npos) << cl.program.log;
  struct Params {
    int32_t count;
    float scale;
    int8_t tag[3];
  } params{25, 1.5f, {0, 7, 0}};
  const int n = 64;
  const uint64_t vo = cl.memory.upload(std::vector<int64_t>(n));
  cl.run_ok("mixed", {Arg::buffer(vo), Arg::value(params)}, NDRange::linear(n, 32));
  const auto out = cl.memory.download<int64_t>(vo, n);
  const int table[4] = {1, 2, 3, 4};
  auto pick = [&](int x) { return (x & 3) == 0 ? 1 : (x & 3) == 1 ? x * 2 : table[x & 3]; };
  for (int i = 0; i < n; ++i) {
    int64_t acc = 0;
    for (int k = 0; k < params.count; ++k) {
      if ((k ^ i) & 1) continue;
      acc += pick(k) * int64_t{i - 20} * params.tag[1];
      if (acc > 1000) break;
    }
    EXPECT_EQ(out[i], acc + static_cast<int64_t>(params.scale * i)) << i;
  }
}

int32_t irreducible_reference(int32_t x) {
  int32_t acc = 0, i = 0;
  if (x & 1) goto inside;
loop:
  acc += i;
inside:
  acc ^= x * 3;
  ++i;
  if (i < (x % 7) + 3) goto loop;
  return acc;
}

// A loop with two entries (goto into its middle): no block order or structure is assumed.
TEST_P(WarpWidth, IrreducibleLoopFromGoto) {
  GSGPU_REQUIRE_FRONT_END();
  for (const char* options : {"", "-cl-opt-disable"}) {
    ClRunner cl(GetParam());
    ASSERT_TRUE(cl.build(R"(
      __kernel void irr(__global int* out) {
        int x = get_global_id(0);
        int acc = 0, i = 0;
        if (x & 1) goto inside;
      loop:
        acc += i;
      inside:
        acc ^= x * 3;
        ++i;
        if (i < (x % 7) + 3) goto loop;
        out[x] = acc;
      })", options));
    const int items = 100;
    const uint64_t vo = cl.memory.upload(std::vector<int32_t>(items));
    cl.run_ok("irr", {Arg::buffer(vo)}, NDRange::linear(items, 50));
    const auto out = cl.memory.download<int32_t>(vo, items);
    for (int x = 0; x < items; ++x) EXPECT_EQ(out[x], irreducible_reference(x)) << options << " work-item " << x;
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
