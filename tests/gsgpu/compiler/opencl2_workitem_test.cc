// OpenCL 2.0 work-item functions and program-scope __constant layout that the OpenCL-CTS's
// test_basic checks (get_linear_ids, global_linear_id, local_linear_id,
// kernel_memory_alignment_constant), on the shader cores against the spec's formulas.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

constexpr char kLinearIds[] = R"(
kernel void linear_ids(global ulong* out) {
  size_t g = get_global_linear_id();
  out[2 * g] = get_local_linear_id();
  out[2 * g + 1] = get_global_id(0) + 1000 * get_global_id(1) + 1000000 * get_global_id(2);
}
)";

NDRange range3(const uint32_t global[3], const uint32_t local[3], const uint64_t offset[3]) {
  NDRange r;
  r.dims = 3;
  for (int d = 0; d < 3; ++d) {
    r.global[d] = global[d];
    r.local[d] = local[d];
    r.offset[d] = offset[d];
  }
  return r;
}

// Every work-item writes at its global linear id; the OpenCL 2.0 definitions say which item that
// is: ((gz - oz) * Gy + (gy - oy)) * Gx + (gx - ox), and (lz * Ly + ly) * Lx + lx for the local one.
void expect_linear_ids(const NDRange& r) {
  ClRunner runner;
  ASSERT_TRUE(runner.build(kLinearIds, "-cl-std=CL2.0"));
  const uint64_t items = uint64_t{r.global[0]} * r.global[1] * r.global[2];
  const uint64_t out = runner.memory.upload(std::vector<uint64_t>(2 * items, ~uint64_t{0}));
  runner.run_ok("linear_ids", {Arg::buffer(out)}, r);
  const auto got = runner.memory.download<uint64_t>(out, 2 * items);
  for (uint32_t z = 0; z < r.global[2]; ++z)
    for (uint32_t y = 0; y < r.global[1]; ++y)
      for (uint32_t x = 0; x < r.global[0]; ++x) {
        const uint64_t linear = (uint64_t{z} * r.global[1] + y) * r.global[0] + x;
        const uint64_t local = (uint64_t{z % r.local[2]} * r.local[1] + y % r.local[1]) * r.local[0] + x % r.local[0];
        const uint64_t gid = (x + r.offset[0]) + 1000 * (y + r.offset[1]) + 1000000 * (z + r.offset[2]);
        ASSERT_EQ(got[2 * linear + 1], gid) << "item at linear id " << linear;
        ASSERT_EQ(got[2 * linear], local) << "item at linear id " << linear;
      }
}

TEST(OpenCL2WorkItem, LinearIdsIn1D) {
  GSGPU_REQUIRE_FRONT_END();
  NDRange r = NDRange::linear(96, 32);
  r.offset[0] = 7;
  expect_linear_ids(r);
}

TEST(OpenCL2WorkItem, LinearIdsIn2DWithOffsets) {
  GSGPU_REQUIRE_FRONT_END();
  NDRange r = NDRange::grid2(12, 10, 4, 5);
  r.offset[0] = 3;
  r.offset[1] = 11;
  expect_linear_ids(r);
}

TEST(OpenCL2WorkItem, LinearIdsIn3DWithOffsets) {
  GSGPU_REQUIRE_FRONT_END();
  const uint32_t global[3] = {8, 6, 4}, local[3] = {4, 3, 2};
  const uint64_t offset[3] = {5, 0, 9};
  expect_linear_ids(range3(global, local, offset));
}

// The 32-bit form (an int result) is the low half of the 64-bit one.
TEST(OpenCL2WorkItem, LinearIdsAsInt) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner runner;
  ASSERT_TRUE(runner.build(R"(
kernel void k(global int* out) { out[get_global_linear_id()] = (int)get_local_linear_id() * 2; }
)", "-cl-std=CL3.0"));
  const uint64_t out = runner.memory.upload(std::vector<int32_t>(64, -1));
  NDRange r = NDRange::grid2(8, 8, 4, 2);
  r.offset[1] = 100;
  runner.run_ok("k", {Arg::buffer(out)}, r);
  const auto got = runner.memory.download<int32_t>(out, 64);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) ASSERT_EQ(got[y * 8 + x], int32_t(((y % 2) * 4 + x % 4) * 2)) << x << "," << y;
}

// Program-scope __constant arrays of wide vectors are aligned to their type's alignment in memory
// (its size: 64 bytes for a float16, 128 for a long16), after a char that would misplace them.
TEST(OpenCL2WorkItem, ConstantWideVectorsKeepTheirAlignment) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner runner;
  ASSERT_TRUE(runner.build(R"(
constant char c[3] = {1, 2, 3};
constant float16 f16[3] = {(float16)(1.5f), (float16)(2.5f), (float16)(3.5f)};
constant long16 l16[3] = {(long16)(7), (long16)(8), (long16)(9)};
constant double8 d8[3] = {(double8)(0.25), (double8)(0.5), (double8)(0.75)};
constant int3 i3[3] = {(int3)(4), (int3)(5), (int3)(6)};
kernel void k(global ulong* out) {
  out[0] = (ulong)&c[1];
  out[1] = (ulong)&f16[1];
  out[2] = (ulong)&l16[1];
  out[3] = (ulong)&d8[1];
  out[4] = (ulong)&i3[1];
  out[5] = (ulong)l16[2].s7 + c[2];
  out[6] = as_ulong(d8[2].s3);
  out[7] = (ulong)(f16[1].sf * 10);
}
)", "-cl-std=CL3.0"));
  const CompiledKernel* kernel = runner.program.find("k");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->constant_data_offset % 128, 0u);
  const uint64_t out = runner.memory.upload(std::vector<uint64_t>(8, 0));
  runner.run_ok("k", {Arg::buffer(out)}, NDRange::linear(1, 1));
  const auto got = runner.memory.download<uint64_t>(out, 8);
  EXPECT_EQ(got[1] % 64, 0u) << "float16";
  EXPECT_EQ(got[2] % 128, 0u) << "long16";
  EXPECT_EQ(got[3] % 64, 0u) << "double8";
  EXPECT_EQ(got[4] % 16, 0u) << "int3";
  EXPECT_EQ(got[5], 12u);
  EXPECT_EQ(got[6], 0x3fe8000000000000u);  // 0.75
  EXPECT_EQ(got[7], 25u);
}

// CompiledKernel::reads_ndrange_shape, which lets the runtime split an NDRange over the device's
// per-dispatch limit: false for kernels that read only ids, local sizes and work_dim; true for any
// that reads the group id, group count, global size, offset or linear id, also in a called function.
TEST(OpenCL2WorkItem, KernelsSayWhetherTheyReadTheNDRangesShape) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner runner;
  ASSERT_TRUE(runner.build(R"(
kernel void ids(global ulong* o) { o[get_global_id(1)] = get_local_id(0) + get_local_size(0) + get_work_dim() + get_enqueued_local_size(0) + get_local_linear_id(); }
kernel void group(global ulong* o) { o[0] = get_group_id(0); }
kernel void groups(global ulong* o) { o[0] = get_num_groups(1); }
ulong size_of_range(void) { return get_global_size(0); }
kernel void size(global ulong* o) { o[0] = size_of_range(); }
kernel void offset(global ulong* o) { o[0] = get_global_offset(2); }
kernel void linear(global ulong* o) { o[0] = get_global_linear_id(); }
)", "-cl-std=CL3.0"));
  for (const char* name : {"ids", "group", "groups", "size", "offset", "linear"}) {
    const CompiledKernel* k = runner.program.find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->reads_ndrange_shape, std::string(name) != "ids") << name;
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
