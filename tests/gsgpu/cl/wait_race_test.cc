// A blocking wait whose direct fence wait times out just as the submission retires (runtime.h
// wait_until, submission.cc direct_wait). The waiting thread lets go of the runtime's lock while
// it watches the fence; if the completion thread retires the submission and wakes the waiters in
// that window, nobody is waiting yet, so the waiting thread must look at its condition again
// before it sleeps. It did not: clFinish slept for ever (fuzz_vcomp_gsgpu's clFinish time-outs,
// reproduced only under load, where the window opens by chance). Here a device makes the window
// certain: the completion thread's fence wait is held until the waiting thread's direct wait has
// begun, and the direct wait returns kTimeout only after the fence retired and the completion
// thread has had the time to retire the launch and notify.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"
#include "tests/gsgpu/cl/forwarding_device.h"

namespace gsgpu::cl::testing {
namespace {

class LateTimeoutDevice final : public ForwardingDevice {
 public:
  using ForwardingDevice::ForwardingDevice;
  drv::Status fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) override {
    if (timeout_ns == 0) return ForwardingDevice::fence_wait(ring, seqno, timeout_ns);
    if (timeout_ns >= (uint64_t{1} << 62)) {
      // The completion thread: it may watch the fence once a direct wait for it has begun (or
      // after 5 s, so that nothing hangs when no application thread waits).
      std::unique_lock lock(mutex_);
      gate_.wait_for(lock, std::chrono::seconds(5), [&] { return direct_wait_began_ >= seqno; });
      lock.unlock();
      return ForwardingDevice::fence_wait(ring, seqno, timeout_ns);
    }
    // The runtime's direct wait: let the completion thread go, let the fence retire, give the
    // completion thread the time to retire the launch and notify, then say the time ran out.
    {
      std::lock_guard lock(mutex_);
      direct_wait_began_ = seqno;
    }
    gate_.notify_all();
    ForwardingDevice::fence_wait(ring, seqno, UINT64_MAX);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ++late_timeouts;
    return drv::Status::kTimeout;
  }
  std::atomic<uint32_t> late_timeouts{0};

 private:
  std::mutex mutex_;
  std::condition_variable gate_;
  uint64_t direct_wait_began_ = 0;
};

TEST(WaitRace, ClFinishWakesWhenTheLaunchRetiredWhileItsDirectWaitTimedOut) {
  const auto& t = gsgpu::compiler::toolchain();
  if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  RuntimeConfig config;
  config.vram_mb = 32;
  config.shader_cores = 1;
  std::string error;
  auto local = drv::open_local(local_config(config), &error);
  ASSERT_NE(local, nullptr) << error;
  auto late = std::make_unique<LateTimeoutDevice>(std::move(local));
  LateTimeoutDevice* device_calls = late.get();
  auto in = create_instance(std::move(late), config, &error);
  ASSERT_NE(in, nullptr) << error;
  const cl_icd_dispatch& api = in->api();
  cl_device_id device = nullptr;
  ASSERT_EQ(api.clGetDeviceIDs(in->platform(), CL_DEVICE_TYPE_GPU, 1, &device, nullptr), CL_SUCCESS);
  cl_context context = api.clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue queue = api.clCreateCommandQueue(context, device, 0, nullptr);
  const char* text = "__kernel void one(__global uint* out) { out[get_global_id(0)] = 1u; }";
  cl_program program = api.clCreateProgramWithSource(context, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api.clBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = api.clCreateKernel(program, "one", nullptr);
  cl_mem out = api.clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, nullptr, nullptr);
  ASSERT_EQ(api.clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);

  for (int round = 0; round < 3; ++round) {
    const size_t items = 64;
    ASSERT_EQ(api.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &items, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
    std::mutex m;
    std::condition_variable cv;
    bool finished = false;
    cl_int status = CL_SUCCESS;
    std::thread waiter([&] {
      const cl_int s = api.clFinish(queue);
      std::lock_guard lock(m);
      status = s;
      finished = true;
      cv.notify_all();
    });
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, std::chrono::seconds(30), [&] { return finished; })) {
      // The waiter sleeps for ever and cannot be joined: end the test process with the finding.
      std::fprintf(stderr, "clFinish did not return 30 s after its launch retired (a lost wake-up)\n");
      std::abort();
    }
    lock.unlock();
    waiter.join();
    EXPECT_EQ(status, CL_SUCCESS);
  }
  // The window was really opened: each round's direct wait timed out after its fence retired.
  EXPECT_EQ(device_calls->late_timeouts.load(), 3u);

  api.clReleaseMemObject(out);
  api.clReleaseKernel(kernel);
  api.clReleaseProgram(program);
  api.clReleaseCommandQueue(queue);
  api.clReleaseContext(context);
}

}  // namespace
}  // namespace gsgpu::cl::testing
