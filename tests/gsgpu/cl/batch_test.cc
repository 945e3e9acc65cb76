// Launches started while the device is busy go to it together, as one submission (submission.cc):
// far fewer submissions than launches, every launch in order, and a fault inside a batch fails
// only its own launch (those after it, which the device never reached, run afterwards, in order).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"
#include "tests/gsgpu/cl/forwarding_device.h"

namespace gsgpu::cl::testing {
namespace {

// `append` is not commutative: the final value spells the order the launches ran in.
constexpr char kSource[] = R"(
__kernel void append(__global uint* out, uint digit) { out[0] = out[0] * 10u + digit; }
__kernel void spin(__global uint* out, uint n) {
  uint acc = get_global_id(0);
  for (uint i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
  out[1 + get_global_id(0)] = acc;
}
__kernel void wild(__global uint* p) { p[get_global_id(0) + 268435456u] = 1u; }
)";

class CountingDevice final : public ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  drv::Status submit(const drv::SubmitDesc& desc, uint64_t* seqno) override {
    ++submits;
    return ForwardingDevice::submit(desc, seqno);
  }
  std::atomic<uint32_t> submits{0};
};

class BatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
    RuntimeConfig config;
    config.vram_mb = 32;
    config.shader_cores = 2;
    std::string error;
    auto local = drv::open_local(local_config(config), &error);
    ASSERT_NE(local, nullptr) << error;
    auto counting = std::make_unique<CountingDevice>(std::move(local));
    device_calls_ = counting.get();
    in_ = create_instance(std::move(counting), config, &error);
    ASSERT_NE(in_, nullptr) << error;
    ASSERT_EQ(api().clGetDeviceIDs(in_->platform(), CL_DEVICE_TYPE_GPU, 1, &device_, nullptr), CL_SUCCESS);
    context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
    queue_ = api().clCreateCommandQueue(context_, device_, 0, nullptr);
    const char* text = kSource;
    program_ = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
    ASSERT_EQ(api().clBuildProgram(program_, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    append_ = api().clCreateKernel(program_, "append", nullptr);
    spin_ = api().clCreateKernel(program_, "spin", nullptr);
    wild_ = api().clCreateKernel(program_, "wild", nullptr);
    out_ = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, 4096, nullptr, nullptr);
    for (cl_kernel k : {append_, spin_, wild_}) ASSERT_EQ(api().clSetKernelArg(k, 0, sizeof out_, &out_), CL_SUCCESS);
    const cl_uint iterations = 1u << 16;  // keeps the device busy while the launches after it start
    ASSERT_EQ(api().clSetKernelArg(spin_, 1, sizeof iterations, &iterations), CL_SUCCESS);
  }
  void TearDown() override {
    if (!in_) return;
    api().clReleaseMemObject(out_);
    for (cl_kernel k : {append_, spin_, wild_}) api().clReleaseKernel(k);
    api().clReleaseProgram(program_);
    api().clReleaseCommandQueue(queue_);
    api().clReleaseContext(context_);
  }
  const cl_icd_dispatch& api() const { return in_->api(); }
  cl_int run(cl_kernel k, size_t items, cl_event* e = nullptr) {
    return api().clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &items, nullptr, 0, nullptr, e);
  }
  cl_int append(cl_uint digit, cl_event* e = nullptr) {
    EXPECT_EQ(api().clSetKernelArg(append_, 1, sizeof digit, &digit), CL_SUCCESS);
    return run(append_, 1, e);
  }
  cl_uint value() {
    cl_uint v = 0;
    EXPECT_EQ(api().clEnqueueReadBuffer(queue_, out_, CL_TRUE, 0, sizeof v, &v, 0, nullptr, nullptr), CL_SUCCESS);
    return v;
  }
  cl_int status(cl_event e) {
    cl_int s = 1;
    EXPECT_EQ(api().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr), CL_SUCCESS);
    return s;
  }

  std::unique_ptr<Instance> in_;
  CountingDevice* device_calls_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel append_ = nullptr, spin_ = nullptr, wild_ = nullptr;
  cl_mem out_ = nullptr;
};

TEST_F(BatchTest, LaunchesStartedWhileTheDeviceIsBusyShareSubmissionsAndRunInOrder) {
  ASSERT_EQ(run(spin_, 256), CL_SUCCESS);
  const uint32_t before = device_calls_->submits;
  for (cl_uint digit = 1; digit <= 9; ++digit) ASSERT_EQ(append(digit), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(value(), 123456789u);
  // The spin holds the device: at most one of the appends goes alone, the rest as one batch.
  EXPECT_LE(device_calls_->submits - before, 3u);
}

TEST_F(BatchTest, AFaultInsideABatchFailsOnlyItsLaunchAndTheRestRunInOrder) {
  ASSERT_EQ(run(spin_, 256), CL_SUCCESS);
  const uint32_t before = device_calls_->submits;
  std::vector<cl_event> events;
  for (cl_uint digit = 1; digit <= 8; ++digit) {
    cl_event e = nullptr;
    if (digit == 5) {
      ASSERT_EQ(run(wild_, 1, &e), CL_SUCCESS);  // faults: the device stops this batch here
      events.push_back(e);
    }
    ASSERT_EQ(append(digit, &e), CL_SUCCESS);
    events.push_back(e);
  }
  EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);  // the fault, reported once
  // The fault was inside a batch: one append alone, the batch, the launches it never reached.
  EXPECT_LE(device_calls_->submits - before, 4u);
  EXPECT_EQ(value(), 12345678u);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(status(events[i]), i == 4 ? CL_OUT_OF_RESOURCES : CL_COMPLETE) << "event " << i;
    api().clReleaseEvent(events[i]);
  }
  // The queue goes on as before.
  ASSERT_EQ(append(9), CL_SUCCESS);
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(value(), 123456789u);
}

// clFlush (and any wait) sends the held launches at once instead of when the device has room.
TEST_F(BatchTest, FlushSendsHeldLaunchesWhileTheDeviceIsBusy) {
  const cl_uint long_spin = 1u << 20;  // tenths of a second
  ASSERT_EQ(api().clSetKernelArg(spin_, 1, sizeof long_spin, &long_spin), CL_SUCCESS);
  const uint32_t before = device_calls_->submits;
  cl_event spin = nullptr;
  ASSERT_EQ(run(spin_, 256, &spin), CL_SUCCESS);
  for (cl_uint digit = 1; digit <= 5; ++digit) ASSERT_EQ(append(digit), CL_SUCCESS);
  EXPECT_EQ(device_calls_->submits - before, 2u);  // the spin and the first append; the rest held
  ASSERT_EQ(api().clFlush(queue_), CL_SUCCESS);
  const uint32_t after_flush = device_calls_->submits - before;
  const bool spin_still_running = status(spin) != CL_COMPLETE;
  EXPECT_EQ(after_flush, 3u);  // the held appends, as one submission
  EXPECT_TRUE(spin_still_running) << "the spin ended before clFlush: lengthen it";
  EXPECT_EQ(api().clFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(value(), 12345u);
  api().clReleaseEvent(spin);
}

// A fault in the last launch of a batch, and batches faulting one after another.
TEST_F(BatchTest, FaultsAtTheEndOfBatchesAndInARow) {
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(run(spin_, 256), CL_SUCCESS);
    ASSERT_EQ(append(1), CL_SUCCESS);
    ASSERT_EQ(append(2), CL_SUCCESS);
    ASSERT_EQ(run(wild_, 1), CL_SUCCESS);
    ASSERT_EQ(run(wild_, 1), CL_SUCCESS);
    EXPECT_EQ(api().clFinish(queue_), CL_OUT_OF_RESOURCES);
  }
  EXPECT_EQ(value(), 121212u);
}

}  // namespace
}  // namespace gsgpu::cl::testing
