// Issue 12 point 5: a multi-threaded application waits on one thread (clWaitForEvents, clFinish,
// a blocking read) behind a user event that another thread sets later. The ICD waits for the user
// event on its own side, without its lock, so the setter gets through and the host never sees a
// wait on an unset user event. Before, the host refused the wait (CL_INVALID_OPERATION).
//
// Every wait runs on a thread of its own under a 30 s hang detector: a deadlock ends the test
// binary with a message instead of hanging the suite.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

constexpr auto kHangDetector = std::chrono::seconds(30);
constexpr auto kSetterDelay = std::chrono::milliseconds(100);

// Runs `wait` on a new thread and `meanwhile` on this one after a short sleep (so the waiter is
// most likely waiting by then); returns what `wait` returned, or ends the test binary when the
// waiter has not returned within the hang detector's time.
cl_int wait_on_another_thread(const std::function<cl_int()>& wait, const std::function<void()>& meanwhile = [] {}) {
  std::packaged_task<cl_int()> task(wait);
  std::future<cl_int> result = task.get_future();
  std::thread waiter(std::move(task));
  std::this_thread::sleep_for(kSetterDelay);
  meanwhile();
  if (result.wait_for(kHangDetector) != std::future_status::ready) {
    std::fprintf(stderr, "the waiting thread did not return within %lld s: deadlock\n",
                 (long long)kHangDetector.count());
    std::_Exit(1);
  }
  waiter.join();
  return result.get();
}

// Waits on a new thread while this one sets `gate` to `status`.
cl_int wait_while_another_thread_sets(const std::function<cl_int()>& wait, cl_event gate, cl_int status) {
  return wait_on_another_thread(wait, [&] { EXPECT_EQ(clSetUserEventStatus(gate, status), CL_SUCCESS); });
}

struct Fixture {
  cl_command_queue queue = nullptr;
  cl_mem buffer = nullptr;
  cl_event gate = nullptr;
  cl_event write = nullptr;  // writes kValue behind the gate

  static constexpr int kValue = 0x5eed;

  Fixture() {
    cl_int err = CL_SUCCESS;
    queue = clCreateCommandQueue(cl_env().context, cl_env().device, 0, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    buffer = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, sizeof(int), nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    gate = clCreateUserEvent(cl_env().context, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, sizeof kValue, &kValue, 1, &gate, &write), CL_SUCCESS);
    EXPECT_EQ(clFlush(queue), CL_SUCCESS);
  }
  ~Fixture() {
    clReleaseEvent(write);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
  }
  int read_back() const {
    int got = 0;
    EXPECT_EQ(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr), CL_SUCCESS);
    return got;
  }
};

TEST(IcdUserEventWaits, Issue12WaitForEventsReturnsOnceAnotherThreadSetsTheUserEvent) {
  Fixture f;
  cl_int err = wait_while_another_thread_sets([&] { return clWaitForEvents(1, &f.write); }, f.gate, CL_COMPLETE);
  EXPECT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(f.read_back(), Fixture::kValue);
}

TEST(IcdUserEventWaits, Issue12FinishReturnsOnceAnotherThreadSetsTheUserEvent) {
  Fixture f;
  cl_int err = wait_while_another_thread_sets([&] { return clFinish(f.queue); }, f.gate, CL_COMPLETE);
  EXPECT_EQ(err, CL_SUCCESS);
  cl_int status = CL_QUEUED;
  ASSERT_EQ(clGetEventInfo(f.write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  EXPECT_EQ(f.read_back(), Fixture::kValue);
}

TEST(IcdUserEventWaits, Issue12BlockingReadReturnsTheDataOnceAnotherThreadSetsTheUserEvent) {
  Fixture f;
  int got = 0;
  // Behind the gated write through the in-order queue, and through its own wait list.
  cl_int err = wait_while_another_thread_sets(
      [&] { return clEnqueueReadBuffer(f.queue, f.buffer, CL_TRUE, 0, sizeof got, &got, 1, &f.write, nullptr); },
      f.gate, CL_COMPLETE);
  EXPECT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(got, Fixture::kValue);
}

TEST(IcdUserEventWaits, Issue12BlockingMapReturnsTheDataOnceAnotherThreadSetsTheUserEvent) {
  Fixture f;
  void* mapped = nullptr;
  cl_int err = wait_while_another_thread_sets(
      [&] {
        cl_int map_err = CL_SUCCESS;
        mapped = clEnqueueMapBuffer(f.queue, f.buffer, CL_TRUE, CL_MAP_READ, 0, sizeof(int), 0, nullptr, nullptr,
                                    &map_err);
        return map_err;
      },
      f.gate, CL_COMPLETE);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(*static_cast<int*>(mapped), Fixture::kValue);
  EXPECT_EQ(clEnqueueUnmapMemObject(f.queue, f.buffer, mapped, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clFinish(f.queue), CL_SUCCESS);
}

void CL_CALLBACK record_status(cl_event, cl_int status, void* user_data) { *static_cast<cl_int*>(user_data) = status; }

TEST(IcdUserEventWaits, Issue12AUserEventSetToAnErrorFailsTheWaitAndTheCommandsCallback) {
  Fixture f;
  cl_int called_with = 1;
  ASSERT_EQ(clSetEventCallback(f.write, CL_COMPLETE, record_status, &called_with), CL_SUCCESS);
  cl_int err = wait_while_another_thread_sets([&] { return clWaitForEvents(1, &f.write); }, f.gate, -1234);
  EXPECT_EQ(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_LT(called_with, 0) << "the write's CL_COMPLETE callback runs with its error status";
  cl_int status = CL_COMPLETE;
  ASSERT_EQ(clGetEventInfo(f.write, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_LT(status, 0);
}

TEST(IcdUserEventWaits, Issue12FinishAndBlockingReadBehindAFailedUserEventReturn) {
  Fixture f;
  cl_int err = wait_while_another_thread_sets([&] { return clFinish(f.queue); }, f.gate, -1234);
  // clFinish reports no command's failure in OpenCL; what matters is that it returned.
  (void)err;
  // The host executes reads blocking; PoCL's blocking read behind a failed event never returned.
  int got = 0;
  err = wait_on_another_thread(
      [&] { return clEnqueueReadBuffer(f.queue, f.buffer, CL_TRUE, 0, sizeof got, &got, 1, &f.write, nullptr); });
  EXPECT_EQ(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

TEST(IcdUserEventWaits, Issue12ABlockingReadBehindAFailedUserEventReportsIt) {
  Fixture f;
  int got = 0;
  cl_int err = wait_while_another_thread_sets(
      [&] { return clEnqueueReadBuffer(f.queue, f.buffer, CL_TRUE, 0, sizeof got, &got, 1, &f.gate, nullptr); },
      f.gate, -1234);
  EXPECT_EQ(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
}

// A callback runs under the ICD's lock; a wait from there for a user event that is not set could
// never end (nothing else gets the lock), so it is refused. OpenCL forbids blocking calls there.
struct NestedWait {
  cl_event other_gate = nullptr;
  cl_int result = CL_SUCCESS;
};
void CL_CALLBACK wait_from_callback(cl_event, cl_int, void* user_data) {
  auto* nested = static_cast<NestedWait*>(user_data);
  nested->result = clWaitForEvents(1, &nested->other_gate);
}

TEST(IcdUserEventWaits, Issue12AWaitFromACallbackForAnUnsetUserEventIsRefused) {
  cl_int err = CL_SUCCESS;
  cl_event first = clCreateUserEvent(cl_env().context, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  NestedWait nested;
  nested.other_gate = clCreateUserEvent(cl_env().context, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clSetEventCallback(first, CL_COMPLETE, wait_from_callback, &nested), CL_SUCCESS);
  ASSERT_EQ(clSetUserEventStatus(first, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(nested.result, CL_INVALID_OPERATION);
  clSetUserEventStatus(nested.other_gate, CL_COMPLETE);
  clReleaseEvent(nested.other_gate);
  clReleaseEvent(first);
}

// The app releases the user event without setting it while another thread waits for a command
// behind it: nobody can set it any more, so the wait ends (with the failure the host reports).
TEST(IcdUserEventWaits, Issue12ReleasingAnUnsetUserEventEndsTheWaitsBehindIt) {
  Fixture f;
  cl_int err = wait_on_another_thread([&] { return clWaitForEvents(1, &f.write); },
                                      [&] {
                                        clReleaseEvent(f.gate);
                                        f.gate = nullptr;
                                      });
  EXPECT_NE(err, CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::icd::test
