// NDRanges over the device's per-dispatch work-item limit (GSGPU_MAX_WORK_ITEMS; CTS test_basic
// enqueued_local_size enqueues 16384 x 16390 items against 2^28): the runtime runs them as several
// dispatches of whole group slabs when the kernel does not read the NDRange's shape, and refuses
// them (CL_OUT_OF_RESOURCES) when it does or when they would need too many dispatches. Here the
// limit is 1000 work-items, so small ranges split.
#include <vector>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

class NDRangeSplitTest : public GsgpuExecutorTest {
 protected:
  static void SetUpTestSuite() {
    gsgpu::cl::RuntimeConfig config = test_config();
    config.max_work_items = 1000;
    start_executor(config);
  }
  cl_int run_at(cl_kernel k, cl_uint dim, const size_t* offset, const size_t* global, const size_t* local) {
    return api().clEnqueueNDRangeKernel(queue_, k, dim, offset, global, local, 0, nullptr, nullptr);
  }
};

constexpr char kIds[] = R"(
kernel void ids(global uint* out, uint row) {
  size_t x = get_global_id(0) - 5, y = get_global_id(1) - 7;
  out[y * row + x] = (uint)(get_global_id(1) * 100000 + get_global_id(0) * 10) + get_local_id(0) % 2 +
                     (get_local_size(1) == 4 ? 0 : 7000000) + (get_work_dim() == 2 ? 0 : 9000000);
}
kernel void ids1(global uint* out) {
  out[get_global_id(0)] = (uint)get_global_id(0) * 4 + get_local_id(0) % 4 + (get_enqueued_local_size(0) == 64 ? 0 : 1);
}
kernel void groups(global uint* out) { out[get_global_id(0)] = (uint)get_group_id(0); }
uint size_of_range(void) { return (uint)get_global_size(0); }
kernel void sizes(global uint* out) { out[get_global_id(0)] = size_of_range(); }
)";

TEST_F(NDRangeSplitTest, A1DRangeOverTheLimitRunsAsSeveralDispatches) {
  REQUIRE_COMPILER();
  cl_program p = build(kIds, "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "ids1");
  const size_t global = 4096, local = 64;  // 15 groups (960 items) per dispatch: 5 dispatches
  cl_mem out = buffer_of(std::vector<uint32_t>(global, 0xffffffffu));
  arg(k, 0, out);
  ASSERT_EQ(run(k, 1, &global, &local), CL_SUCCESS);
  const std::vector<uint32_t> got = read<uint32_t>(out, global);
  for (uint32_t i = 0; i < global; ++i) ASSERT_EQ(got[i], i * 4 + i % 4) << "work-item " << i;
}

TEST_F(NDRangeSplitTest, A2DRangeWithOffsetsSplitsAlongItsLastDimension) {
  REQUIRE_COMPILER();
  cl_program p = build(kIds, "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "ids");
  const size_t offset[2] = {5, 7}, global[2] = {64, 40}, local[2] = {8, 4};  // slabs of 3 group rows
  const uint32_t row = 64;
  cl_mem out = buffer_of(std::vector<uint32_t>(64 * 40, 0xffffffffu));
  arg(k, 0, out);
  arg(k, 1, row);
  ASSERT_EQ(run_at(k, 2, offset, global, local), CL_SUCCESS);
  const std::vector<uint32_t> got = read<uint32_t>(out, 64 * 40);
  for (uint32_t y = 0; y < 40; ++y)
    for (uint32_t x = 0; x < 64; ++x)
      ASSERT_EQ(got[y * row + x], (y + 7) * 100000 + (x + 5) * 10 + x % 2) << x << "," << y;
}

TEST_F(NDRangeSplitTest, KernelsThatReadTheRangesShapeAreRefusedOverTheLimit) {
  REQUIRE_COMPILER();
  cl_program p = build(kIds, "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  const size_t global = 4096, local = 64;
  cl_mem out = buffer(global * sizeof(uint32_t));
  for (const char* name : {"groups", "sizes"}) {  // get_group_id; get_global_size in a called function
    cl_kernel k = kernel(p, name);
    arg(k, 0, out);
    EXPECT_EQ(run(k, 1, &global, &local), CL_OUT_OF_RESOURCES) << name;
    const size_t small = 960;  // within the limit: one dispatch, as before
    EXPECT_EQ(run(k, 1, &small, &local), CL_SUCCESS) << name;
  }
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

TEST_F(NDRangeSplitTest, RangesNeedingTooManyDispatchesOrAGroupSlabOverTheLimitAreRefused) {
  REQUIRE_COMPILER();
  cl_program p = build(kIds, "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "ids1");
  cl_mem out = buffer(64);
  arg(k, 0, out);
  const size_t local = 64;
  const size_t too_many = 64 * 1000 + 64;  // over 64 dispatches of 1000 items
  EXPECT_EQ(run(k, 1, &too_many, &local), CL_OUT_OF_RESOURCES);
  cl_kernel k2 = kernel(p, "ids");
  arg(k2, 0, out);
  const uint32_t row = 1;
  arg(k2, 1, row);
  const size_t global[2] = {1024, 4}, local2[2] = {64, 4};  // one group row is 4096 items
  EXPECT_EQ(run(k2, 2, global, local2), CL_OUT_OF_RESOURCES);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
