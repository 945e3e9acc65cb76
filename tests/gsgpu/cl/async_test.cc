// Asynchronous completion: an enqueue returns while the device works, events complete from fences
// (callbacks then), a fault ends only its own command, host-side commands run in queue order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"
#include "tests/gsgpu/cl/forwarding_device.h"

namespace gsgpu::cl::testing {
namespace {

// Each work-item iterates `n` times: long enough that the device is still busy when the enqueue
// returns (tenths of a second), bounded by the watchdog below.
constexpr char kSpin[] = R"(
__kernel void spin(__global uint* out, uint n) {
  uint acc = get_global_id(0);
  for (uint i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
  out[get_global_id(0)] = acc;
}
__kernel void wild(__global int* p) { p[get_global_id(0) * 1048576] = 1; }
)";
constexpr uint32_t kSpinIterations = 1u << 20;
constexpr size_t kItems = 256;

uint32_t spin_reference(uint32_t id, uint32_t n) {
  uint32_t acc = id;
  for (uint32_t i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
  return acc;
}

class AsyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
    RuntimeConfig config;
    config.shader_cores = 2;
    config.vram_mb = 32;
    config.watchdog_budget = uint64_t{1} << 30;
    std::string error;
    in_ = create_instance(config, &error);
    ASSERT_NE(in_, nullptr) << error;
    ASSERT_EQ(api().clGetDeviceIDs(in_->platform(), CL_DEVICE_TYPE_GPU, 1, &device_, nullptr), CL_SUCCESS);
    context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
    queue_ = api().clCreateCommandQueue(context_, device_, 0, nullptr);
    const char* text = kSpin;
    program_ = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
    ASSERT_EQ(api().clBuildProgram(program_, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    spin_ = api().clCreateKernel(program_, "spin", nullptr);
    out_ = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, kItems * 4, nullptr, nullptr);
    ASSERT_EQ(api().clSetKernelArg(spin_, 0, sizeof out_, &out_), CL_SUCCESS);
    ASSERT_EQ(api().clSetKernelArg(spin_, 1, sizeof kSpinIterations, &kSpinIterations), CL_SUCCESS);
  }
  void TearDown() override {
    if (!in_) return;
    if (out_) api().clReleaseMemObject(out_);
    if (spin_) api().clReleaseKernel(spin_);
    if (program_) api().clReleaseProgram(program_);
    if (queue_) api().clReleaseCommandQueue(queue_);
    if (context_) api().clReleaseContext(context_);
  }
  const cl_icd_dispatch& api() const { return in_->api(); }
  cl_int status(cl_event e) {
    cl_int s = 1;
    EXPECT_EQ(api().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr), CL_SUCCESS);
    return s;
  }
  cl_int launch_spin(cl_event* e) {
    return api().clEnqueueNDRangeKernel(queue_, spin_, 1, nullptr, &kItems, nullptr, 0, nullptr, e);
  }
  void expect_spin_results() {
    std::vector<uint32_t> got(kItems);
    ASSERT_EQ(api().clEnqueueReadBuffer(queue_, out_, CL_TRUE, 0, kItems * 4, got.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    for (uint32_t i = 0; i < kItems; i += 37) EXPECT_EQ(got[i], spin_reference(i, kSpinIterations)) << i;
  }

  std::unique_ptr<Instance> in_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel spin_ = nullptr;
  cl_mem out_ = nullptr;
};

TEST_F(AsyncTest, EnqueueReturnsBeforeALongKernelFinishes) {
  cl_event e = nullptr;
  const auto before = std::chrono::steady_clock::now();
  ASSERT_EQ(launch_spin(&e), CL_SUCCESS);
  const auto enqueue_time = std::chrono::steady_clock::now() - before;
  EXPECT_GT(status(e), CL_COMPLETE);  // queued or submitted: the device is still at it
  // Releasing what the kernel uses does not wait for it either; the command keeps it alive.
  cl_mem out = out_;
  ASSERT_EQ(api().clRetainMemObject(out), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseMemObject(out), CL_SUCCESS);
  EXPECT_GT(status(e), CL_COMPLETE);
  const auto wait_start = std::chrono::steady_clock::now();
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  const auto wait_time = std::chrono::steady_clock::now() - wait_start;
  EXPECT_EQ(status(e), CL_COMPLETE);
  EXPECT_LT(enqueue_time, wait_time);  // the work happened after the enqueue returned
  api().clReleaseEvent(e);
  expect_spin_results();
}

struct CallbackLog {
  std::mutex mutex;
  std::vector<std::pair<cl_event, cl_int>> calls;

  std::vector<std::pair<cl_event, cl_int>> copy() {
    std::lock_guard lock(mutex);
    return calls;
  }
};

void CL_CALLBACK record(cl_event e, cl_int status, void* data) {
  auto* log = static_cast<CallbackLog*>(data);
  std::lock_guard lock(log->mutex);
  log->calls.emplace_back(e, status);
}

TEST_F(AsyncTest, CallbacksRunWhenTheKernelCompletes) {
  cl_event e = nullptr;
  ASSERT_EQ(launch_spin(&e), CL_SUCCESS);
  CallbackLog log;
  ASSERT_EQ(api().clSetEventCallback(e, CL_COMPLETE, record, &log), CL_SUCCESS);
  {
    std::lock_guard lock(log.mutex);
    EXPECT_TRUE(log.calls.empty());  // not before the kernel is done
  }
  ASSERT_EQ(api().clWaitForEvents(1, &e), CL_SUCCESS);
  // Copied out: callbacks take log.mutex under the runtime's mutex, so the test must not call the
  // runtime while holding it (TSan: lock-order inversion).
  const std::vector<std::pair<cl_event, cl_int>> calls = log.copy();
  api().clReleaseEvent(e);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].first, e);
  EXPECT_EQ(calls[0].second, CL_COMPLETE);
}

TEST_F(AsyncTest, AFaultingKernelFailsItsEventAndTheNextKernelWorks) {
  cl_kernel wild = api().clCreateKernel(program_, "wild", nullptr);
  ASSERT_EQ(api().clSetKernelArg(wild, 0, sizeof out_, &out_), CL_SUCCESS);
  const size_t global = 32;
  cl_event events[2] = {};
  // Both are in the queue before the first has run: the fault ends only its own command.
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, wild, 1, nullptr, &global, nullptr, 0, nullptr, &events[0]),
            CL_SUCCESS);
  ASSERT_EQ(launch_spin(&events[1]), CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(1, &events[1]), CL_SUCCESS);
  EXPECT_EQ(status(events[0]), CL_OUT_OF_RESOURCES);
  EXPECT_EQ(status(events[1]), CL_COMPLETE);
  expect_spin_results();
  EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);  // the fault, once
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  for (cl_event e : events) api().clReleaseEvent(e);
  api().clReleaseKernel(wild);
}

TEST_F(AsyncTest, NonBlockingTransfersCompleteInQueueOrder) {
  cl_event kernel_done = nullptr;
  ASSERT_EQ(launch_spin(&kernel_done), CL_SUCCESS);
  std::vector<uint32_t> first(kItems, 7), second(kItems, 7);
  const std::vector<uint32_t> zeros(kItems, 0);
  cl_event steps[3] = {};
  ASSERT_EQ(api().clEnqueueReadBuffer(queue_, out_, CL_FALSE, 0, kItems * 4, first.data(), 0, nullptr, &steps[0]),
            CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, out_, CL_FALSE, 0, kItems * 4, zeros.data(), 0, nullptr, &steps[1]),
            CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueReadBuffer(queue_, out_, CL_FALSE, 0, kItems * 4, second.data(), 0, nullptr, &steps[2]),
            CL_SUCCESS);
  // Nothing has run yet: the reads wait for the kernel before them.
  EXPECT_GT(status(steps[0]), CL_COMPLETE);
  CallbackLog log;
  for (cl_event e : steps) ASSERT_EQ(api().clSetEventCallback(e, CL_COMPLETE, record, &log), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  for (uint32_t i = 0; i < kItems; i += 37) EXPECT_EQ(first[i], spin_reference(i, kSpinIterations)) << i;
  EXPECT_EQ(second, zeros);
  const std::vector<std::pair<cl_event, cl_int>> calls = log.copy();
  for (cl_event e : steps) api().clReleaseEvent(e);
  api().clReleaseEvent(kernel_done);
  ASSERT_EQ(calls.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(calls[i].first, steps[i]) << i;
}

// An unmap behind a kernel runs on the completion thread, while the application may read the map
// count (under TSan this was a data race on it).
TEST_F(AsyncTest, TheMapCountIsReadSafelyWhileAnUnmapRunsBehindAKernel) {
  cl_mem b = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, 64, nullptr, nullptr);
  cl_int err = CL_SUCCESS;
  void* p = api().clEnqueueMapBuffer(queue_, b, CL_TRUE, CL_MAP_READ, 0, 64, 0, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel quick = api().clCreateKernel(program_, "spin", nullptr);
  const cl_uint n = 1u << 12;
  ASSERT_EQ(api().clSetKernelArg(quick, 0, sizeof out_, &out_), CL_SUCCESS);
  ASSERT_EQ(api().clSetKernelArg(quick, 1, sizeof n, &n), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, quick, 1, nullptr, &kItems, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueUnmapMemObject(queue_, b, p, 0, nullptr, nullptr), CL_SUCCESS);
  cl_uint count = 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count && std::chrono::steady_clock::now() < deadline) {
    ASSERT_EQ(api().clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof count, &count, nullptr), CL_SUCCESS);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_EQ(count, 0u);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  api().clReleaseKernel(quick);
  api().clReleaseMemObject(b);
}

TEST_F(AsyncTest, AKernelBehindAUserEventWaitsForIt) {
  cl_event gate = api().clCreateUserEvent(context_, nullptr);
  cl_event e = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(queue_, spin_, 1, nullptr, &kItems, nullptr, 1, &gate, &e), CL_SUCCESS);
  EXPECT_EQ(status(e), CL_QUEUED);
  // Waiting would block the only thread that can set the gate.
  EXPECT_EQ(api().clFinish(queue_), CL_INVALID_OPERATION);
  EXPECT_EQ(api().clWaitForEvents(1, &e), CL_INVALID_OPERATION);
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(api().clWaitForEvents(1, &e), CL_SUCCESS);
  expect_spin_results();
  api().clReleaseEvent(e);
  api().clReleaseEvent(gate);
}

// A device that can no longer say how its submissions end (virtio: the transport is gone).
class LostDevice final : public ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  drv::Status fence_wait(uint32_t, uint64_t, uint64_t) override { return drv::Status::kDeviceLost; }
};

TEST(AsyncLostDevice, SubmissionsInFlightFailInsteadOfHanging) {
  const auto& t = gsgpu::compiler::toolchain();
  if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  RuntimeConfig config;
  config.vram_mb = 16;
  std::string error;
  auto local = drv::open_local(local_config(config), &error);
  ASSERT_NE(local, nullptr) << error;
  auto in = create_instance(std::make_unique<LostDevice>(std::move(local)), config, &error);
  ASSERT_NE(in, nullptr) << error;
  const cl_icd_dispatch& api = in->api();
  cl_device_id device = nullptr;
  ASSERT_EQ(api.clGetDeviceIDs(in->platform(), CL_DEVICE_TYPE_GPU, 1, &device, nullptr), CL_SUCCESS);
  cl_context context = api.clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue queue = api.clCreateCommandQueue(context, device, 0, nullptr);
  const char* text = kSpin;
  cl_program program = api.clCreateProgramWithSource(context, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api.clBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = api.clCreateKernel(program, "spin", nullptr);
  cl_mem out = api.clCreateBuffer(context, CL_MEM_READ_WRITE, kItems * 4, nullptr, nullptr);
  const cl_uint n = 1;
  ASSERT_EQ(api.clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(api.clSetKernelArg(k, 1, sizeof n, &n), CL_SUCCESS);
  cl_event e = nullptr;
  ASSERT_EQ(api.clEnqueueNDRangeKernel(queue, k, 1, nullptr, &kItems, nullptr, 0, nullptr, &e), CL_SUCCESS);
  EXPECT_EQ(api.clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  cl_int status = 0;
  ASSERT_EQ(api.clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_OUT_OF_RESOURCES);
  api.clReleaseEvent(e);
  api.clReleaseMemObject(out);
  api.clReleaseKernel(k);
  api.clReleaseProgram(program);
  api.clReleaseCommandQueue(queue);
  api.clReleaseContext(context);
}

}  // namespace
}  // namespace gsgpu::cl::testing
