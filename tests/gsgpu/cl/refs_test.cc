// Reference counting: CL_*_REFERENCE_COUNT reports the application's references only; the
// runtime's own holds (a kernel on its program, a queue on its context, a command on its event and
// arguments, ...) keep objects alive without counting there, and a release past the application's
// count is refused instead of taking a hold the runtime needs. Run under ASan, a wrong count here is
// a use-after-free or a leak.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/compiler/frontend.h"

namespace gsgpu::cl::testing {
namespace {

// `spin` runs long enough (about 0.1 s; minutes under TSan) that its command is still on the device when the
// enqueue returns; `twice` is a quick kernel whose result is easy to check.
constexpr char kSource[] = R"(
__kernel void spin(__global uint* out, uint n) {
  uint acc = get_global_id(0);
  for (uint i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
  out[get_global_id(0)] = acc;
}
__kernel void twice(__global uint* out) { out[get_global_id(0)] = 2 * get_global_id(0); }
)";
constexpr cl_uint kSpinIterations = 1u << 19;
constexpr size_t kItems = 64;

class RefsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
    RuntimeConfig config;
    config.shader_cores = 2;
    config.vram_mb = 16;
    config.watchdog_budget = uint64_t{1} << 30;
    std::string error;
    in_ = create_instance(config, &error);
    ASSERT_NE(in_, nullptr) << error;
    ASSERT_EQ(api().clGetDeviceIDs(in_->platform(), CL_DEVICE_TYPE_GPU, 1, &device_, nullptr), CL_SUCCESS);
    context_ = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
    ASSERT_NE(context_, nullptr);
  }
  void TearDown() override {
    if (context_) {
      EXPECT_EQ(api().clReleaseContext(context_), CL_SUCCESS);
    }
  }
  const cl_icd_dispatch& api() const { return in_->api(); }

  cl_program build() {
    const char* text = kSource;
    cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, nullptr);
    EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    return p;
  }
  cl_mem buffer(cl_context context = nullptr) {
    return api().clCreateBuffer(context ? context : context_, CL_MEM_READ_WRITE, kItems * 4, nullptr, nullptr);
  }
  cl_kernel spin_kernel(cl_program p, cl_mem out) {
    cl_kernel k = api().clCreateKernel(p, "spin", nullptr);
    EXPECT_EQ(api().clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
    EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof kSpinIterations, &kSpinIterations), CL_SUCCESS);
    return k;
  }
  cl_int status(cl_event e) {
    cl_int s = 1;
    EXPECT_EQ(api().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr), CL_SUCCESS);
    return s;
  }
  cl_uint count(cl_context c) { return info<cl_uint>(api().clGetContextInfo, c, CL_CONTEXT_REFERENCE_COUNT); }
  cl_uint count(cl_command_queue q) {
    return info<cl_uint>(api().clGetCommandQueueInfo, q, CL_QUEUE_REFERENCE_COUNT);
  }
  cl_uint count(cl_mem m) { return info<cl_uint>(api().clGetMemObjectInfo, m, CL_MEM_REFERENCE_COUNT); }
  cl_uint count(cl_program p) { return info<cl_uint>(api().clGetProgramInfo, p, CL_PROGRAM_REFERENCE_COUNT); }
  cl_uint count(cl_kernel k) { return info<cl_uint>(api().clGetKernelInfo, k, CL_KERNEL_REFERENCE_COUNT); }
  cl_uint count(cl_event e) { return info<cl_uint>(api().clGetEventInfo, e, CL_EVENT_REFERENCE_COUNT); }
  template <typename T, typename Get, typename Handle, typename Param>
  T info(Get get, Handle h, Param param) {
    T v{};
    EXPECT_EQ(get(h, param, sizeof v, &v, nullptr), CL_SUCCESS) << param;
    return v;
  }
  std::vector<uint32_t> read(cl_command_queue q, cl_mem m) {
    std::vector<uint32_t> out(kItems);
    EXPECT_EQ(api().clEnqueueReadBuffer(q, m, CL_TRUE, 0, kItems * 4, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
    return out;
  }

  std::unique_ptr<Instance> in_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
};

std::vector<uint32_t> twice_reference() {
  std::vector<uint32_t> v(kItems);
  for (uint32_t i = 0; i < kItems; ++i) v[i] = 2 * i;
  return v;
}

TEST_F(RefsTest, ReportedCountsAreTheApplicationsOnly) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  const cl_buffer_region region = {0, 128};
  cl_mem sub = api().clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, nullptr);
  cl_program p = build();
  cl_kernel k = api().clCreateKernel(p, "twice", nullptr);
  ASSERT_EQ(api().clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
  cl_event gate = api().clCreateUserEvent(context_, nullptr);
  cl_event run = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 1, &gate, &run), CL_SUCCESS);
  // Everything is held by something of the runtime's now: the context by the queue, buffer,
  // program and events; the buffer by its sub-buffer and the command; the program by its kernel;
  // the kernel and the gate by the command; the queue by the command's event.
  EXPECT_EQ(count(context_), 1u);
  EXPECT_EQ(count(q), 1u);
  EXPECT_EQ(count(m), 1u);
  EXPECT_EQ(count(sub), 1u);
  EXPECT_EQ(count(p), 1u);
  EXPECT_EQ(count(k), 1u);
  EXPECT_EQ(count(gate), 1u);
  EXPECT_EQ(count(run), 1u);
  ASSERT_EQ(api().clRetainKernel(k), CL_SUCCESS);
  ASSERT_EQ(api().clRetainEvent(run), CL_SUCCESS);
  ASSERT_EQ(api().clRetainContext(context_), CL_SUCCESS);
  EXPECT_EQ(count(k), 2u);
  EXPECT_EQ(count(run), 2u);
  EXPECT_EQ(count(context_), 2u);
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseEvent(run), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseContext(context_), CL_SUCCESS);
  EXPECT_EQ(count(k), 1u);
  EXPECT_EQ(count(run), 1u);
  EXPECT_EQ(count(context_), 1u);
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(1, &run), CL_SUCCESS);
  EXPECT_EQ(read(q, m), twice_reference());
  EXPECT_EQ(count(run), 1u);
  for (cl_event e : {run, gate}) EXPECT_EQ(api().clReleaseEvent(e), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseProgram(p), CL_SUCCESS);
  for (cl_mem o : {sub, m}) EXPECT_EQ(api().clReleaseMemObject(o), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseCommandQueue(q), CL_SUCCESS);
}

TEST_F(RefsTest, OverReleasingAProgramItsKernelHoldsIsRefused) {
  cl_program p = build();
  cl_kernel k = api().clCreateKernel(p, "twice", nullptr);
  ASSERT_EQ(api().clReleaseProgram(p), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseProgram(p), CL_INVALID_PROGRAM);
  // The kernel still has its program, and runs.
  EXPECT_EQ(info<cl_program>(api().clGetKernelInfo, k, CL_KERNEL_PROGRAM), p);
  EXPECT_EQ(info<cl_context>(api().clGetKernelInfo, k, CL_KERNEL_CONTEXT), context_);
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  ASSERT_EQ(api().clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(read(q, m), twice_reference());
  // The kernel's release drops the last hold: the program is gone.
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  cl_uint n = 0;
  EXPECT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof n, &n, nullptr), CL_INVALID_PROGRAM);
  EXPECT_EQ(api().clRetainProgram(p), CL_INVALID_PROGRAM);
  api().clReleaseMemObject(m);
  api().clReleaseCommandQueue(q);
}

TEST_F(RefsTest, OverReleasingAContextItsObjectsHoldIsRefused) {
  cl_context c = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
  cl_command_queue q = api().clCreateCommandQueue(c, device_, 0, nullptr);
  cl_mem m = buffer(c);
  ASSERT_EQ(api().clReleaseContext(c), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseContext(c), CL_INVALID_CONTEXT);
  EXPECT_EQ(info<cl_context>(api().clGetCommandQueueInfo, q, CL_QUEUE_CONTEXT), c);
  const std::vector<uint32_t> data = twice_reference();
  ASSERT_EQ(api().clEnqueueWriteBuffer(q, m, CL_TRUE, 0, kItems * 4, data.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(read(q, m), data);
  ASSERT_EQ(api().clReleaseMemObject(m), CL_SUCCESS);
  EXPECT_EQ(info<cl_uint>(api().clGetContextInfo, c, CL_CONTEXT_NUM_DEVICES), 1u);  // the queue holds it
  ASSERT_EQ(api().clReleaseCommandQueue(q), CL_SUCCESS);
  cl_uint n = 0;
  EXPECT_EQ(api().clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, nullptr), CL_INVALID_CONTEXT);
}

TEST_F(RefsTest, OverReleasingABufferItsSubBufferHoldsIsRefused) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  const cl_buffer_region region = {128, 128};
  cl_mem sub = api().clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, nullptr);
  ASSERT_NE(sub, nullptr);
  ASSERT_EQ(api().clReleaseMemObject(m), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
  // The sub-buffer's bytes are still the parent's buffer object.
  const uint32_t seven = 7;
  ASSERT_EQ(api().clEnqueueFillBuffer(q, sub, &seven, 4, 0, 128, 0, nullptr, nullptr), CL_SUCCESS);
  std::vector<uint32_t> got(32);
  ASSERT_EQ(api().clEnqueueReadBuffer(q, sub, CL_TRUE, 0, 128, got.data(), 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(got, std::vector<uint32_t>(32, 7));
  EXPECT_EQ(info<cl_mem>(api().clGetMemObjectInfo, sub, CL_MEM_ASSOCIATED_MEMOBJECT), m);
  ASSERT_EQ(api().clReleaseMemObject(sub), CL_SUCCESS);
  size_t size = 0;
  EXPECT_EQ(api().clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr), CL_INVALID_MEM_OBJECT);
  api().clReleaseCommandQueue(q);
}

TEST_F(RefsTest, OverReleasingAQueueItsEventHoldsIsRefused) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_event marker = nullptr;
  ASSERT_EQ(api().clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(q), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseCommandQueue(q), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(info<cl_command_queue>(api().clGetEventInfo, marker, CL_EVENT_COMMAND_QUEUE), q);
  EXPECT_EQ(status(marker), CL_COMPLETE);
  ASSERT_EQ(api().clReleaseEvent(marker), CL_SUCCESS);
  cl_uint n = 0;
  EXPECT_EQ(api().clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, nullptr),
            CL_INVALID_COMMAND_QUEUE);
}

TEST_F(RefsTest, OverReleasingAnEventACommandWaitsForIsRefused) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  cl_event gate = api().clCreateUserEvent(context_, nullptr);
  cl_event fill = nullptr, after = nullptr;
  const uint32_t seven = 7;
  ASSERT_EQ(api().clEnqueueFillBuffer(q, m, &seven, 4, 0, kItems * 4, 1, &gate, &fill), CL_SUCCESS);
  ASSERT_EQ(api().clEnqueueMarkerWithWaitList(q, 1, &fill, &after), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseEvent(fill), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseEvent(fill), CL_INVALID_EVENT);
  EXPECT_EQ(status(after), CL_QUEUED);
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(api().clWaitForEvents(1, &after), CL_SUCCESS);
  EXPECT_EQ(read(q, m), std::vector<uint32_t>(kItems, 7));
  // Both commands have completed: nothing holds the fill's event any more.
  cl_int s = 0;
  EXPECT_EQ(api().clGetEventInfo(fill, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr), CL_INVALID_EVENT);
  for (cl_event e : {after, gate}) api().clReleaseEvent(e);
  api().clReleaseMemObject(m);
  api().clReleaseCommandQueue(q);
}

TEST_F(RefsTest, OverReleasingAKernelItsCommandUsesIsRefused) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  cl_program p = build();
  cl_kernel k = api().clCreateKernel(p, "twice", nullptr);
  ASSERT_EQ(api().clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
  cl_event gate = api().clCreateUserEvent(context_, nullptr);
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 1, &gate, nullptr), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseKernel(k), CL_INVALID_KERNEL);
  ASSERT_EQ(api().clReleaseMemObject(m), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
  ASSERT_EQ(api().clReleaseProgram(p), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseProgram(p), CL_INVALID_PROGRAM);
  // The queued launch still has its kernel, program and buffer.
  cl_event done = nullptr;
  std::vector<uint32_t> got(kItems);
  ASSERT_EQ(api().clEnqueueReadBuffer(q, m, CL_FALSE, 0, kItems * 4, got.data(), 0, nullptr, &done), CL_SUCCESS);
  ASSERT_EQ(api().clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(q), CL_SUCCESS);
  EXPECT_EQ(got, twice_reference());
  EXPECT_EQ(status(done), CL_COMPLETE);
  // The read was the last command that used them: the kernel and the buffer are gone.
  EXPECT_EQ(api().clRetainKernel(k), CL_INVALID_KERNEL);
  EXPECT_EQ(api().clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
  for (cl_event e : {done, gate}) api().clReleaseEvent(e);
  api().clReleaseCommandQueue(q);
}

// What event callbacks saw, for a test thread waiting on the completion thread.
struct Seen {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<cl_int> statuses;  // per callback: the status it was given
  std::vector<cl_int> queried;   // per callback: CL_EVENT_COMMAND_EXECUTION_STATUS from inside it
  int destroyed = 0;             // memory object destructor callbacks
  const cl_icd_dispatch* api = nullptr;

  template <typename Pred>
  bool wait_for(Pred done) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(120), done);
  }
};

void CL_CALLBACK on_event(cl_event e, cl_int status, void* data) {
  auto* seen = static_cast<Seen*>(data);
  cl_int now = 1;
  const cl_int err = seen->api->clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof now, &now, nullptr);
  std::lock_guard lock(seen->mutex);
  seen->statuses.push_back(status);
  seen->queried.push_back(err == CL_SUCCESS ? now : err);
  seen->changed.notify_all();
}

void CL_CALLBACK on_event_release(cl_event e, cl_int status, void* data) {
  on_event(e, status, data);
  auto* seen = static_cast<Seen*>(data);
  const cl_int err = seen->api->clReleaseEvent(e);  // the application's last reference
  std::lock_guard lock(seen->mutex);
  seen->queried.push_back(err);
}

void CL_CALLBACK on_mem_destroyed(cl_mem, void* data) {
  auto* seen = static_cast<Seen*>(data);
  std::lock_guard lock(seen->mutex);
  ++seen->destroyed;
  seen->changed.notify_all();
}

TEST_F(RefsTest, AnEventReleasedInFlightCompletesAndCallsBack) {
  cl_command_queue q = api().clCreateCommandQueue(context_, device_, 0, nullptr);
  cl_mem m = buffer();
  cl_program p = build();
  cl_kernel k = spin_kernel(p, m);
  cl_event e = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 0, nullptr, &e), CL_SUCCESS);
  Seen seen;
  seen.api = &api();
  ASSERT_EQ(api().clSetEventCallback(e, CL_COMPLETE, on_event, &seen), CL_SUCCESS);
  EXPECT_GT(status(e), CL_COMPLETE);  // still on the device
  ASSERT_EQ(api().clReleaseEvent(e), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(q), CL_SUCCESS);
  {
    std::lock_guard lock(seen.mutex);
    EXPECT_EQ(seen.statuses, std::vector<cl_int>{CL_COMPLETE});
    EXPECT_EQ(seen.queried, std::vector<cl_int>{CL_COMPLETE});  // the handle was live in its callback
  }
  // Once its callbacks ran, nothing holds it.
  cl_int s = 0;
  EXPECT_EQ(api().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr), CL_INVALID_EVENT);

  // A callback may drop the application's last reference itself.
  Seen again;
  again.api = &api();
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 0, nullptr, &e), CL_SUCCESS);
  ASSERT_EQ(api().clSetEventCallback(e, CL_COMPLETE, on_event_release, &again), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(q), CL_SUCCESS);
  {
    std::lock_guard lock(again.mutex);
    EXPECT_EQ(again.statuses, std::vector<cl_int>{CL_COMPLETE});
    EXPECT_EQ(again.queried, (std::vector<cl_int>{CL_COMPLETE, CL_SUCCESS}));
  }
  EXPECT_EQ(api().clRetainEvent(e), CL_INVALID_EVENT);
  api().clReleaseKernel(k);
  api().clReleaseProgram(p);
  api().clReleaseMemObject(m);
  api().clReleaseCommandQueue(q);
}

TEST_F(RefsTest, AContextReleasedWithWorkQueuedIsFreedWhenTheWorkRetires) {
  cl_context c = api().clCreateContext(nullptr, 1, &device_, nullptr, nullptr, nullptr);
  cl_command_queue q = api().clCreateCommandQueue(c, device_, 0, nullptr);
  cl_mem m = buffer(c);
  const char* text = kSource;
  cl_program p = api().clCreateProgramWithSource(c, 1, &text, nullptr, nullptr);
  ASSERT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = spin_kernel(p, m);
  Seen seen;
  seen.api = &api();
  ASSERT_EQ(api().clSetMemObjectDestructorCallback(m, on_mem_destroyed, &seen), CL_SUCCESS);
  cl_event run = nullptr, copied = nullptr;
  ASSERT_EQ(api().clEnqueueNDRangeKernel(q, k, 1, nullptr, &kItems, nullptr, 0, nullptr, &run), CL_SUCCESS);
  std::vector<uint32_t> got(kItems);
  ASSERT_EQ(api().clEnqueueReadBuffer(q, m, CL_FALSE, 0, kItems * 4, got.data(), 0, nullptr, &copied),
            CL_SUCCESS);
  ASSERT_EQ(api().clSetEventCallback(copied, CL_COMPLETE, on_event, &seen), CL_SUCCESS);
  EXPECT_GT(status(copied), CL_COMPLETE);  // behind the kernel
  // Everything goes while the kernel is on the device and the read waits behind it.
  for (cl_event e : {run, copied}) ASSERT_EQ(api().clReleaseEvent(e), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseKernel(k), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseProgram(p), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseMemObject(m), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseCommandQueue(q), CL_SUCCESS);
  ASSERT_EQ(api().clReleaseContext(c), CL_SUCCESS);
  EXPECT_EQ(api().clReleaseContext(c), CL_INVALID_CONTEXT);
  {
    std::lock_guard lock(seen.mutex);
    EXPECT_EQ(seen.destroyed, 0);  // the queued read still uses the buffer
  }
  ASSERT_TRUE(seen.wait_for([&seen] { return seen.destroyed == 1 && seen.statuses.size() == 1; }));
  EXPECT_EQ(seen.statuses, std::vector<cl_int>{CL_COMPLETE});
  // The read ran after the kernel: the data arrived.
  for (uint32_t i = 0; i < kItems; i += 7) {
    uint32_t acc = i;
    for (cl_uint n = 0; n < kSpinIterations; ++n) acc = acc * 1664525u + 1013904223u;
    ASSERT_EQ(got[i], acc) << i;
  }
  // The context goes in the same pass as the buffer, on the completion thread: wait for it.
  cl_uint n = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (api().clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, nullptr) == CL_SUCCESS &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(api().clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clRetainCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(api().clRetainKernel(k), CL_INVALID_KERNEL);
  EXPECT_EQ(api().clRetainProgram(p), CL_INVALID_PROGRAM);
  EXPECT_EQ(api().clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clRetainEvent(run), CL_INVALID_EVENT);
  EXPECT_EQ(api().clRetainEvent(copied), CL_INVALID_EVENT);
}

}  // namespace
}  // namespace gsgpu::cl::testing
