// Issue 12 point 5 in the gsgpu runtime. As the application's own runtime (the native ICD sets
// RuntimeConfig::wait_for_user_events) a wait behind a user event waits until another thread sets
// it, as OpenCL says; behind vcomp (the default) it is refused, because a host must never block on
// what only its guest can complete. Before, both refused, so a multi-threaded native-mode
// application that waits on one thread and sets the event on another failed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

#include "gsgpu/cl/gsgpu_cl.h"

namespace gsgpu::cl::testing {
namespace {

constexpr auto kHangDetector = std::chrono::seconds(30);
constexpr int kValue = 0x5eed;

class UserEventWaitsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    RuntimeConfig config;
    config.shader_cores = 1;
    config.vram_mb = 16;
    config.wait_for_user_events = GetParam();
    std::string error;
    in_ = create_instance(config, &error);
    ASSERT_NE(in_, nullptr) << error;
    cl_device_id device = nullptr;
    ASSERT_EQ(api().clGetDeviceIDs(in_->platform(), CL_DEVICE_TYPE_GPU, 1, &device, nullptr), CL_SUCCESS);
    context_ = api().clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
    queue_ = api().clCreateCommandQueue(context_, device, 0, nullptr);
    buffer_ = api().clCreateBuffer(context_, CL_MEM_READ_WRITE, sizeof(int), nullptr, nullptr);
    gate_ = api().clCreateUserEvent(context_, nullptr);
    ASSERT_NE(gate_, nullptr);
    ASSERT_EQ(api().clEnqueueWriteBuffer(queue_, buffer_, CL_FALSE, 0, sizeof kValue, &kValue, 1, &gate_, &write_),
              CL_SUCCESS);
  }
  void TearDown() override {
    if (!in_) return;
    if (gate_) api().clSetUserEventStatus(gate_, CL_COMPLETE);  // a refused wait left it unset
    api().clFinish(queue_);
    api().clReleaseEvent(write_);
    api().clReleaseEvent(gate_);
    api().clReleaseMemObject(buffer_);
    api().clReleaseCommandQueue(queue_);
    api().clReleaseContext(context_);
  }
  const cl_icd_dispatch& api() const { return in_->api(); }

  // Runs `wait` on a new thread, sets the gate to `status` from this one 100 ms later and returns
  // what `wait` returned (the test binary ends if it has not within the hang detector's time).
  // A refusing runtime answers at once: the gate is set only after that answer, since on a loaded
  // machine the waiter may start more than 100 ms late and would then find the gate already set.
  cl_int wait_while_another_thread_sets(const std::function<cl_int()>& wait, cl_int status) {
    std::packaged_task<cl_int()> task(wait);
    std::future<cl_int> result = task.get_future();
    std::thread waiter(std::move(task));
    if (GetParam())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    else
      result.wait_for(kHangDetector);
    EXPECT_EQ(api().clSetUserEventStatus(gate_, status), CL_SUCCESS);
    if (result.wait_for(kHangDetector) != std::future_status::ready) {
      std::fprintf(stderr, "the waiting thread did not return within 30 s: deadlock\n");
      std::_Exit(1);
    }
    waiter.join();
    return result.get();
  }
  // What a refusing runtime answers (at once, before the gate is set), else `expected`.
  cl_int expect(cl_int expected) const { return GetParam() ? expected : CL_INVALID_OPERATION; }

  std::unique_ptr<Instance> in_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buffer_ = nullptr;
  cl_event gate_ = nullptr;
  cl_event write_ = nullptr;
};

TEST_P(UserEventWaitsTest, Issue12WaitForEventsBehindAUserEventAnotherThreadSets) {
  EXPECT_EQ(wait_while_another_thread_sets([&] { return api().clWaitForEvents(1, &write_); }, CL_COMPLETE),
            expect(CL_SUCCESS));
}

TEST_P(UserEventWaitsTest, Issue12FinishBehindAUserEventAnotherThreadSets) {
  EXPECT_EQ(wait_while_another_thread_sets([&] { return api().clFinish(queue_); }, CL_COMPLETE),
            expect(CL_SUCCESS));
}

TEST_P(UserEventWaitsTest, Issue12BlockingReadBehindAUserEventAnotherThreadSets) {
  int got = 0;
  cl_int err = wait_while_another_thread_sets(
      [&] { return api().clEnqueueReadBuffer(queue_, buffer_, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr); },
      CL_COMPLETE);
  EXPECT_EQ(err, expect(CL_SUCCESS));
  if (GetParam()) EXPECT_EQ(got, kValue);
}

TEST_P(UserEventWaitsTest, Issue12AUserEventSetToAnErrorFailsTheWait) {
  EXPECT_EQ(wait_while_another_thread_sets([&] { return api().clWaitForEvents(1, &write_); }, -1234),
            expect(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST));
  int got = 0;
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, buffer_, CL_TRUE, 0, sizeof got, &got, 1, &write_, nullptr),
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

INSTANTIATE_TEST_SUITE_P(NativeAndHost, UserEventWaitsTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "ApplicationsRuntime" : "BehindVcomp";
                         });

}  // namespace
}  // namespace gsgpu::cl::testing
