// The kernels gsgpu is benchmarked with (tests/common/benchmark_kernels.h: vector add, naive and
// tiled SGEMM, Mandelbrot), plus saxpy and a work-group reduction, compiled from OpenCL C and
// compared with C++ references; and the argument buffer's layout and refusals.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

#include "tests/common/benchmark_kernels.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

namespace sources = gsvirt::kernel_sources;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(CompiledKernels, VectorAdd) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(sources::kVectorAdd));
  const CompiledKernel* k = cl.program.find("vadd");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 4u);
  const char* names[] = {"a", "b", "c", "n"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(k->args[i].name, names[i]);
    EXPECT_EQ(k->args[i].offset, 8u * i);
    EXPECT_EQ(k->args[i].kind, i < 3 ? ArgKind::kGlobalPointer : ArgKind::kScalar);
  }
  EXPECT_EQ(k->args[3].size, 4u);
  EXPECT_EQ(k->work_dim_offset, 28u);
  EXPECT_EQ(k->arg_buffer_size, 32u);
  expect_vadd_adds(cl, random_floats(1000, 1), random_floats(1000, 2));  // 1000: a partial last group
}

TEST(CompiledKernels, Saxpy) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void saxpy(float alpha, __global const float* x, __global float* y) {
      size_t i = get_global_id(0);
      y[i] = mad(alpha, x[i], y[i]);
    })"));
  const int n = 4096;
  const auto x = random_floats(n, 3), y = random_floats(n, 4);
  const uint64_t vx = cl.memory.upload(x), vy = cl.memory.upload(y);
  cl.run_ok("saxpy", {Arg::value(1.5f), Arg::buffer(vx), Arg::buffer(vy)}, NDRange::linear(n, 128));
  const auto out = cl.memory.download<float>(vy, n);
  for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], 1.5f * x[i] + y[i], 1e-5f) << i;
}

void sgemm_reference(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>* c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
      (*c)[i * n + j] = acc;
    }
}

TEST(CompiledKernels, NaiveSgemm) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(sources::kSgemmNaive));
  const int n = 48;
  const auto a = random_floats(n * n, 5), b = random_floats(n * n, 6);
  std::vector<float> expect(n * n);
  sgemm_reference(a, b, &expect, n);
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b), vc = cl.memory.upload(std::vector<float>(n * n));
  cl.run_ok("sgemm_naive", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc), Arg::value(n)},
            NDRange::grid2(n, n, 16, 4));
  const auto c = cl.memory.download<float>(vc, n * n);
  for (int i = 0; i < n * n; ++i) ASSERT_NEAR(c[i], expect[i], 1e-3f) << i;
}

TEST(CompiledKernels, TiledSgemmWithLocalMemoryAndBarriers) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(sources::kSgemmTiled));
  const CompiledKernel* k = cl.program.find("sgemm_tiled");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->static_local_bytes, 2u * sources::kSgemmTile * sources::kSgemmTile * 4);
  const int n = 64;
  const auto a = random_floats(n * n, 7), b = random_floats(n * n, 8);
  std::vector<float> expect(n * n);
  sgemm_reference(a, b, &expect, n);
  const uint64_t va = cl.memory.upload(a), vb = cl.memory.upload(b), vc = cl.memory.upload(std::vector<float>(n * n));
  const uint32_t tile = sources::kSgemmTile;  // the local size the kernel requires
  cl.run_ok("sgemm_tiled", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc), Arg::value(n)},
            NDRange::grid2(n, n, tile, tile));
  const auto c = cl.memory.download<float>(vc, n * n);
  for (int i = 0; i < n * n; ++i) ASSERT_NEAR(c[i], expect[i], 1e-3f) << i;
}

TEST(CompiledKernels, Mandelbrot) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  // -cl-fp32-correctly-rounded-divide-sqrt and no contraction keep the float results bit-identical
  // to the C++ reference, so the iteration counts match exactly.
  ASSERT_TRUE(cl.build(sources::kMandelbrot, "-cl-fp32-correctly-rounded-divide-sqrt"));
  const int w = 64, h = 48, max_iter = 200;
  const uint64_t vo = cl.memory.upload(std::vector<uint32_t>(w * h));
  cl.run_ok("mandelbrot", {Arg::buffer(vo), Arg::value(w), Arg::value(h), Arg::value(max_iter)}, NDRange::grid2(w, h, 16, 8));
  const auto out = cl.memory.download<uint32_t>(vo, w * h);
  int mismatches = 0;
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      if (out[py * w + px] != sources::mandelbrot_reference(px, py, w, h, max_iter)) ++mismatches;
    }
  // FP contraction in clang may fuse a multiply-add; allow a handful of boundary points to differ.
  EXPECT_LE(mismatches, w * h / 100);
}

TEST(CompiledKernels, WorkGroupReductionWithBarriers) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl(16);  // several warps per group: the barrier really synchronises warps
  ASSERT_TRUE(cl.build(R"(
    __kernel void reduce(__global const int* in, __global int* partial, __local int* scratch) {
      int lid = get_local_id(0);
      scratch[lid] = in[get_global_id(0)];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (lid == 0) partial[get_group_id(0)] = scratch[0];
    })"));
  const int groups = 12, group_size = 128;
  std::vector<int> in(groups * group_size);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 101) - 50;
  const uint64_t vin = cl.memory.upload(in), vp = cl.memory.upload(std::vector<int>(groups));
  cl.run_ok("reduce", {Arg::buffer(vin), Arg::buffer(vp), Arg::local(group_size * 4)}, NDRange::linear(groups * group_size, group_size));
  const auto partial = cl.memory.download<int>(vp, groups);
  for (int g = 0; g < groups; ++g) {
    int sum = 0;
    for (int i = 0; i < group_size; ++i) sum += in[g * group_size + i];
    EXPECT_EQ(partial[g], sum) << g;
  }
}

TEST(ArgumentBuffer, LayoutAndRefusals) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    __kernel void k(char c, __global int* p, __local float* a, float4 v, __local int* b, short s) {
      __local int fixed[3];
      fixed[get_local_id(0) % 3] = c;
      barrier(CLK_LOCAL_MEM_FENCE);
      p[0] = fixed[(get_local_id(0) + 1) % 3] + (int)v.w + s + (int)a[0] + b[0];
    })"));
  const CompiledKernel& k = *cl.program.find("k");
  ASSERT_EQ(k.args.size(), 6u);
  EXPECT_EQ(k.static_local_bytes, 12u);
  const uint32_t offsets[] = {0, 8, 16, 32, 48, 56};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(k.args[i].offset, offsets[i]) << i;
  EXPECT_EQ(k.args[3].size, 16u);
  EXPECT_EQ(k.args[3].alignment, 16u);
  auto bytes = [](auto v) {
    std::vector<uint8_t> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  };
  std::vector<KernelArgValue> args = {{bytes(int8_t{-3}), 0}, {bytes(uint64_t{0x1000}), 0}, {{}, 100},
                                      {bytes(std::array<float, 4>{1, 2, 3, 4}), 0}, {{}, 8}, {bytes(int16_t{7}), 0}};
  ArgumentBuffer buffer;
  std::string error;
  ASSERT_TRUE(build_argument_buffer(k, args, 2, &buffer, &error)) << error;
  uint64_t local_a = 0, local_b = 0;
  std::memcpy(&local_a, &buffer.bytes[16], 8);
  std::memcpy(&local_b, &buffer.bytes[48], 8);
  EXPECT_EQ(local_a, 12u);   // after the 12 static bytes, aligned to the pointee's 4
  EXPECT_EQ(local_b, 112u);
  EXPECT_EQ(buffer.local_mem_size, 120u);
  uint32_t work_dim = 0;
  std::memcpy(&work_dim, &buffer.bytes[k.work_dim_offset], 4);
  EXPECT_EQ(work_dim, 2u);
  auto refused = [&](std::vector<KernelArgValue> bad, const char* why) {
    std::string message;
    EXPECT_FALSE(build_argument_buffer(k, bad, 1, &buffer, &message)) << why;
    return message;
  };
  auto wrong_size = args;
  wrong_size[1].bytes.resize(4);
  EXPECT_NE(refused(wrong_size, "4-byte pointer").find("argument 1 (p) takes 8 bytes"), std::string::npos);
  auto no_local = args;
  no_local[2] = {bytes(uint64_t{0}), 0};
  EXPECT_NE(refused(no_local, "value for __local").find("__local pointer"), std::string::npos);
  auto local_on_scalar = args;
  local_on_scalar[0] = {{}, 4};
  EXPECT_NE(refused(local_on_scalar, "local size for a scalar").find("not a __local pointer"), std::string::npos);
  args.pop_back();
  EXPECT_NE(refused(args, "missing argument").find("takes 6 arguments, 5 given"), std::string::npos);
}

// A layout written by hand (what the compiler would produce), so the rules are tested without the
// front end: 4-byte slots for a char-sized scalar and a char-sized struct, then an 8-byte scalar,
// a 16-byte vector and two __local pointers.
CompiledKernel hand_laid_out_kernel() {
  CompiledKernel k;
  k.name = "hand";
  auto add = [&k](ArgKind kind, uint32_t offset, uint32_t size) {
    ArgInfo info;
    info.name = "a" + std::to_string(k.args.size());
    info.kind = kind;
    info.offset = offset;
    info.size = size;
    info.alignment = std::min(size, 16u);
    info.local_alignment = 4;
    k.args.push_back(info);
  };
  add(ArgKind::kScalar, 0, 4);        // char
  add(ArgKind::kStruct, 4, 4);        // struct { char a, b; }
  add(ArgKind::kScalar, 8, 8);        // long
  add(ArgKind::kScalar, 16, 16);      // float4
  add(ArgKind::kLocalPointer, 32, 8);
  add(ArgKind::kLocalPointer, 40, 8);
  k.work_dim_offset = 48;
  k.arg_buffer_size = 52;
  k.static_local_bytes = 64;
  return k;
}

std::vector<KernelArgValue> hand_laid_out_values() {
  return {{{0xAB}, 0}, {{1, 2}, 0}, {std::vector<uint8_t>(8, 0x11), 0}, {std::vector<uint8_t>(16, 0x22), 0},
          {{}, 100}, {{}, 8}};
}

TEST(ArgumentBuffer, NarrowValuesFillOnlyFourByteSlots) {
  const CompiledKernel k = hand_laid_out_kernel();
  auto args = hand_laid_out_values();
  ArgumentBuffer buffer;
  std::string error;
  ArgBufferError why = ArgBufferError::kLocalMemory;
  ASSERT_TRUE(build_argument_buffer(k, args, 1, &buffer, &error, &why)) << error;
  EXPECT_EQ(why, ArgBufferError::kNone);
  // Zero-extended in their slots, scalar and struct alike.
  EXPECT_EQ(std::vector<uint8_t>(buffer.bytes.begin(), buffer.bytes.begin() + 8),
            (std::vector<uint8_t>{0xAB, 0, 0, 0, 1, 2, 0, 0}));
  for (size_t size = 1; size <= 4; ++size) {
    args[0].bytes.assign(size, 0x7F);
    args[1].bytes.assign(size, 0x7F);
    EXPECT_TRUE(build_argument_buffer(k, args, 1, &buffer, &error)) << size << ": " << error;
  }
  // Wider slots take only their own size, and nothing takes an empty value or more than its slot.
  auto refused = [&](size_t index, size_t size) {
    auto bad = hand_laid_out_values();
    bad[index].bytes.assign(size, 0);
    why = ArgBufferError::kNone;
    const bool built = build_argument_buffer(k, bad, 1, &buffer, &error, &why);
    return !built && why == ArgBufferError::kArgument &&
           error.find("argument " + std::to_string(index) + " (a" + std::to_string(index) + ") takes") !=
               std::string::npos;
  };
  EXPECT_TRUE(refused(2, 4)) << "an int for a long: " << error;
  EXPECT_TRUE(refused(2, 1)) << "a char for a long: " << error;
  EXPECT_TRUE(refused(3, 8)) << "a float2 for a float4: " << error;
  EXPECT_TRUE(refused(0, 0)) << "an empty value: " << error;
  EXPECT_TRUE(refused(1, 0)) << "an empty struct value: " << error;
  EXPECT_TRUE(refused(0, 5)) << "wider than the slot: " << error;
}

TEST(ArgumentBuffer, LocalMemoryBeyondTheDeviceIsAResourceRefusal) {
  const CompiledKernel k = hand_laid_out_kernel();
  auto args = hand_laid_out_values();
  ArgumentBuffer buffer;
  std::string error;
  ArgBufferError why = ArgBufferError::kNone;
  // 64 static bytes + the two arguments: exactly the limit is granted.
  args[4].local_bytes = kMaxLocalBytes - 64 - 8;
  ASSERT_TRUE(build_argument_buffer(k, args, 1, &buffer, &error, &why)) << error;
  EXPECT_EQ(buffer.local_mem_size, kMaxLocalBytes);
  uint64_t second = 0;
  std::memcpy(&second, &buffer.bytes[40], 8);
  EXPECT_EQ(second, kMaxLocalBytes - 8);
  // One byte more is refused as local memory, not as an argument error.
  args[5].local_bytes = 9;
  EXPECT_FALSE(build_argument_buffer(k, args, 1, &buffer, &error, &why));
  EXPECT_EQ(why, ArgBufferError::kLocalMemory);
  EXPECT_NE(error.find("__local memory"), std::string::npos) << error;
  // Sizes that would overflow a 32-bit sum are refused the same way.
  args[4].local_bytes = args[5].local_bytes = UINT32_MAX;
  EXPECT_FALSE(build_argument_buffer(k, args, 1, &buffer, &error, &why));
  EXPECT_EQ(why, ArgBufferError::kLocalMemory);
  // The static variables alone can exceed it too.
  CompiledKernel big_static = k;
  big_static.static_local_bytes = kMaxLocalBytes + 4;
  EXPECT_FALSE(build_argument_buffer(big_static, hand_laid_out_values(), 1, &buffer, &error, &why));
  EXPECT_EQ(why, ArgBufferError::kLocalMemory);
  // A value that does not fit is reported first, even when the local memory is exceeded as well.
  args[2].bytes.resize(4);
  EXPECT_FALSE(build_argument_buffer(k, args, 1, &buffer, &error, &why));
  EXPECT_EQ(why, ArgBufferError::kArgument);
}

TEST(ArgumentBuffer, InconsistentLayoutIsRefusedNotWritten) {
  ArgumentBuffer buffer;
  std::string error;
  ArgBufferError why = ArgBufferError::kNone;
  auto refused = [&](const CompiledKernel& k) {
    why = ArgBufferError::kNone;
    return !build_argument_buffer(k, hand_laid_out_values(), 1, &buffer, &error, &why) &&
           why == ArgBufferError::kArgument && error.find("outside") != std::string::npos;
  };
  CompiledKernel k = hand_laid_out_kernel();
  k.args[3].offset = 40;  // 16 bytes at 40 run past the 52-byte buffer
  EXPECT_TRUE(refused(k)) << error;
  k = hand_laid_out_kernel();
  k.args[2].offset = UINT32_MAX - 2;  // offset + size wraps in 32 bits
  EXPECT_TRUE(refused(k)) << error;
  k = hand_laid_out_kernel();
  k.args[5].offset = 48;  // the __local offset's 8 bytes at 48 of 52
  EXPECT_TRUE(refused(k)) << error;
  k = hand_laid_out_kernel();
  k.work_dim_offset = 50;
  EXPECT_TRUE(refused(k)) << error;
  k = hand_laid_out_kernel();
  k.constant_data = {1, 2, 3, 4};
  k.constant_data_offset = 52;
  EXPECT_TRUE(refused(k)) << error;
}

}  // namespace
}  // namespace gsgpu::compiler::testing
