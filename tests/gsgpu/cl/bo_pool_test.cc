// Argument buffers come from a pool of bound buffer objects (gsgpu/cl/bo_pool.h): the pool's own
// rules (pieces, recycling, how many empty slabs it keeps), and that a launch loop through the
// runtime creates no buffer object per launch while every launch still sees its own arguments.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gsgpu/cl/bo_pool.h"
#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"
#include "tests/gsgpu/cl/forwarding_device.h"

namespace gsgpu::cl::testing {
namespace {

// Whole objects from a fake allocator: each a distinct VA range and CPU block.
struct FakeObjects {
  std::map<drv::BoHandle, std::vector<uint8_t>> live;
  uint32_t created = 0, freed = 0;
  bool refuse = false;

  BoPool make_pool() {
    return BoPool(
        drv::kVaRead,
        [this](uint64_t size, uint32_t perms, std::string* why) -> std::optional<GpuAlloc> {
          EXPECT_EQ(perms, drv::kVaRead);
          if (refuse) {
            *why = "refused";
            return std::nullopt;
          }
          GpuAlloc a;
          a.bo = ++created;
          a.size = size;
          a.va = uint64_t{a.bo} << 24;
          std::vector<uint8_t>& bytes = live[a.bo];
          bytes.assign(size, 0);
          a.cpu = bytes.data();
          return a;
        },
        [this](GpuAlloc& whole) {
          EXPECT_EQ(live.erase(whole.bo), 1u);
          ++freed;
        });
  }
};

TEST(BoPool, PiecesAreAlignedDisjointAndShareASlab) {
  FakeObjects objects;
  BoPool pool = objects.make_pool();
  std::string why;
  std::vector<GpuAlloc> pieces;
  for (uint64_t size : {1u, 255u, 256u, 257u, 4096u}) {
    auto p = pool.allocate(size, &why);
    ASSERT_TRUE(p) << why;
    EXPECT_EQ(p->va % BoPool::kAlign, 0u);
    EXPECT_GE(p->size, size);
    EXPECT_EQ(p->size % BoPool::kAlign, 0u);
    EXPECT_NE(p->slab, 0u);
    EXPECT_EQ(p->cpu - objects.live.at(p->bo).data(), int64_t(p->va - (uint64_t{p->bo} << 24)));
    for (const GpuAlloc& q : pieces) EXPECT_TRUE(p->va >= q.va + q.size || q.va >= p->va + p->size);
    pieces.push_back(*p);
  }
  EXPECT_EQ(objects.created, 1u);
  for (const GpuAlloc& p : pieces) pool.free(p);
  pool.release_all();
  EXPECT_EQ(objects.freed, 1u);
}

TEST(BoPool, RefusesEmptyAndLargePieces) {
  FakeObjects objects;
  BoPool pool = objects.make_pool();
  std::string why;
  EXPECT_FALSE(pool.allocate(0, &why));
  EXPECT_FALSE(pool.allocate(BoPool::kMaxPiece + 1, &why));
  EXPECT_NE(why.find("outside"), std::string::npos) << why;
  EXPECT_EQ(objects.created, 0u);
  objects.refuse = true;
  EXPECT_FALSE(pool.allocate(16, &why));
  EXPECT_EQ(why, "refused");
}

// Pieces freed in the order launches retire: a steady loop cycles over the same few slabs.
TEST(BoPool, SteadyLoopReusesItsSlabs) {
  FakeObjects objects;
  BoPool pool = objects.make_pool();
  std::string why;
  std::deque<GpuAlloc> in_flight;
  for (int launch = 0; launch < 10000; ++launch) {
    auto p = pool.allocate(200, &why);
    ASSERT_TRUE(p) << why;
    in_flight.push_back(*p);
    if (in_flight.size() > 300) {  // about one slab and a bit in flight
      pool.free(in_flight.front());
      in_flight.pop_front();
    }
  }
  EXPECT_LE(objects.created, 3u);
  for (const GpuAlloc& p : in_flight) pool.free(p);
  pool.release_all();
  EXPECT_EQ(objects.freed, objects.created);
}

// A burst leaves many empty slabs: the pool keeps kKeepIdle of them and frees the rest.
TEST(BoPool, KeepsOnlyAFewEmptySlabs) {
  FakeObjects objects;
  BoPool pool = objects.make_pool();
  std::string why;
  std::vector<GpuAlloc> burst;
  const uint64_t per_slab = BoPool::kSlabBytes / BoPool::kMaxPiece;
  for (uint64_t i = 0; i < per_slab * 12; ++i) burst.push_back(*pool.allocate(BoPool::kMaxPiece, &why));
  EXPECT_EQ(objects.created, 12u);
  for (const GpuAlloc& p : burst) pool.free(p);
  // The current slab stays, plus kKeepIdle empty ones.
  EXPECT_EQ(pool.slab_count(), 1 + BoPool::kKeepIdle);
  EXPECT_EQ(objects.freed, 12 - 1 - BoPool::kKeepIdle);
  // The next burst takes the kept slabs before it creates any.
  burst.clear();
  for (uint64_t i = 0; i < per_slab * (1 + BoPool::kKeepIdle); ++i)
    burst.push_back(*pool.allocate(BoPool::kMaxPiece, &why));
  EXPECT_EQ(objects.created, 12u);
  for (const GpuAlloc& p : burst) pool.free(p);
  pool.release_all();
  EXPECT_EQ(objects.freed, objects.created);
  EXPECT_TRUE(objects.live.empty());
}

// --- through the runtime ---

class CountingDevice final : public ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  drv::Status bo_create(uint64_t size, uint32_t flags, drv::BoHandle* out) override {
    ++bo_creates;
    return ForwardingDevice::bo_create(size, flags, out);
  }
  drv::Status va_bind(drv::BoHandle bo, uint64_t off, uint64_t va, uint64_t size, uint32_t perms) override {
    ++va_binds;
    return ForwardingDevice::va_bind(bo, off, va, size, perms);
  }
  std::atomic<uint32_t> bo_creates{0}, va_binds{0};
};

constexpr char kAddScalar[] = R"(
__kernel void add_scalar(__global int* out, int value) { out[get_global_id(0)] += value; }
)";

// Hundreds of launches in flight at once, each with its own scalar: were a piece reused before its
// launch retired, a later launch's value would replace an earlier one's and the sum would differ.
TEST(BoPoolRuntime, LaunchLoopCreatesNoObjectPerLaunchAndKeepsEachLaunchsArguments) {
  const auto& t = gsgpu::compiler::toolchain();
  if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  RuntimeConfig config;
  config.vram_mb = 32;
  std::string error;
  auto local = drv::open_local(local_config(config), &error);
  ASSERT_NE(local, nullptr) << error;
  auto counting = std::make_unique<CountingDevice>(std::move(local));
  CountingDevice* device_calls = counting.get();
  auto in = create_instance(std::move(counting), config, &error);
  ASSERT_NE(in, nullptr) << error;
  const cl_icd_dispatch& api = in->api();
  cl_device_id device = nullptr;
  ASSERT_EQ(api.clGetDeviceIDs(in->platform(), CL_DEVICE_TYPE_GPU, 1, &device, nullptr), CL_SUCCESS);
  cl_context context = api.clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue queue = api.clCreateCommandQueue(context, device, 0, nullptr);
  const char* text = kAddScalar;
  cl_program program = api.clCreateProgramWithSource(context, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api.clBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = api.clCreateKernel(program, "add_scalar", nullptr);
  constexpr size_t kItems = 64;
  cl_mem out = api.clCreateBuffer(context, CL_MEM_READ_WRITE, kItems * 4, nullptr, nullptr);
  ASSERT_EQ(api.clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
  auto launch = [&](cl_int value) {
    ASSERT_EQ(api.clSetKernelArg(k, 1, sizeof value, &value), CL_SUCCESS);
    ASSERT_EQ(api.clEnqueueNDRangeKernel(queue, k, 1, nullptr, &kItems, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  };
  launch(0);  // uploads the code and starts the pool's first slab
  ASSERT_EQ(api.clFinish(queue), CL_SUCCESS);
  const uint32_t creates_before = device_calls->bo_creates, binds_before = device_calls->va_binds;
  constexpr int kLaunches = 600;  // more pieces than one slab holds
  int64_t expected = 0;
  for (int i = 1; i <= kLaunches; ++i) {
    launch(i);
    expected += i;
  }
  ASSERT_EQ(api.clFinish(queue), CL_SUCCESS);
  // A few slabs at most, for the launches that were in flight together; none per launch.
  EXPECT_LE(device_calls->bo_creates - creates_before, uint32_t(kLaunches * 1024 / BoPool::kSlabBytes + 2));
  EXPECT_EQ(device_calls->bo_creates - creates_before, device_calls->va_binds - binds_before);
  std::vector<cl_int> got(kItems);
  ASSERT_EQ(api.clEnqueueReadBuffer(queue, out, CL_TRUE, 0, kItems * 4, got.data(), 0, nullptr, nullptr), CL_SUCCESS);
  for (size_t i = 0; i < kItems; ++i) EXPECT_EQ(got[i], expected) << "item " << i;
  // A second loop after everything retired reuses the slabs: nothing new at all.
  const uint32_t creates_after_first = device_calls->bo_creates;
  for (int i = 1; i <= 100; ++i) launch(i);
  ASSERT_EQ(api.clFinish(queue), CL_SUCCESS);
  EXPECT_EQ(device_calls->bo_creates, creates_after_first);
  api.clReleaseMemObject(out);
  api.clReleaseKernel(k);
  api.clReleaseProgram(program);
  api.clReleaseCommandQueue(queue);
  api.clReleaseContext(context);
}

}  // namespace
}  // namespace gsgpu::cl::testing
