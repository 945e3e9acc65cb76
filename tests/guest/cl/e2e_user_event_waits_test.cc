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
#include <memory>
#include <future>
#include <thread>
#include <vector>

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

// Non-blocking reads and maps behind a user event that is not set (deferred_reads.h). Before, the
// ICD refused them with CL_INVALID_OPERATION (the host answers a read at once), which failed the
// CTS's test_events callbacks, callbacks_simultaneous and userevents_multithreaded.

TEST(IcdDeferredReads, ANonBlockingReadBehindAnUnsetUserEventGetsTheBytesWhenItsEventCompletes) {
  Fixture f;
  int got = -1;
  cl_event read = nullptr;
  // Behind the gated write through the in-order queue only.
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof got, &got, 0, nullptr, &read), CL_SUCCESS);
  EXPECT_EQ(got, -1) << "nothing may arrive before the gate is set";
  cl_int err = wait_while_another_thread_sets([&] { return clWaitForEvents(1, &read); }, f.gate, CL_COMPLETE);
  EXPECT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(got, Fixture::kValue);
  cl_command_type type = 0;
  ASSERT_EQ(clGetEventInfo(read, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_READ_BUFFER));
  clReleaseEvent(read);
}

struct SeenByCallback {
  const int* memory = nullptr;
  int value = 0;
  cl_int status = 1;
};
void CL_CALLBACK record_memory(cl_event, cl_int status, void* user_data) {
  auto* seen = static_cast<SeenByCallback*>(user_data);
  seen->value = *seen->memory;
  seen->status = status;
}

TEST(IcdDeferredReads, TheBytesArriveBeforeTheReadsCompletionCallbackRuns) {
  Fixture f;
  int got = -1;
  cl_event read = nullptr;
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof got, &got, 1, &f.gate, &read), CL_SUCCESS);
  SeenByCallback seen;
  seen.memory = &got;
  ASSERT_EQ(clSetEventCallback(read, CL_COMPLETE, record_memory, &seen), CL_SUCCESS);
  ASSERT_EQ(clSetUserEventStatus(f.gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(clWaitForEvents(1, &read), CL_SUCCESS);
  EXPECT_EQ(seen.status, CL_COMPLETE);
  EXPECT_EQ(seen.value, Fixture::kValue);
  clReleaseEvent(read);
}

TEST(IcdDeferredReads, FinishDeliversAReadThatHasNoEventAndAStatusQueryOneThatHas) {
  Fixture f;
  int first = -1, second = -1;
  cl_event second_read = nullptr;
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof first, &first, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof second, &second, 0, nullptr, &second_read),
            CL_SUCCESS);
  ASSERT_EQ(clSetUserEventStatus(f.gate, CL_COMPLETE), CL_SUCCESS);
  cl_int status = CL_QUEUED;
  for (int i = 0; i < 1000 && status != CL_COMPLETE; ++i)
    ASSERT_EQ(clGetEventInfo(second_read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
              CL_SUCCESS);
  ASSERT_EQ(status, CL_COMPLETE);
  // In order: the first read completed before the second, so its bytes are there too.
  EXPECT_EQ(first, Fixture::kValue);
  EXPECT_EQ(second, Fixture::kValue);
  int third = -1;
  cl_event gate2 = clCreateUserEvent(cl_env().context, nullptr);
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof third, &third, 1, &gate2, nullptr), CL_SUCCESS);
  EXPECT_EQ(wait_while_another_thread_sets([&] { return clFinish(f.queue); }, gate2, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(third, Fixture::kValue);
  clReleaseEvent(gate2);
  clReleaseEvent(second_read);
}

TEST(IcdDeferredReads, ARectangleReadBehindAnUnsetUserEventLandsAtTheHostPitches) {
  Fixture f;
  const size_t kWidth = 8, kHeight = 4;
  cl_int err = CL_SUCCESS;
  cl_mem rect = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, kWidth * kHeight, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<uint8_t> pattern(kWidth * kHeight);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(i * 7 + 1);
  ASSERT_EQ(clEnqueueWriteBuffer(f.queue, rect, CL_FALSE, 0, pattern.size(), pattern.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  // Columns 2..5 of rows 1..3 into a host block of pitch 10 at (1, 1).
  const size_t buffer_origin[3] = {2, 1, 0}, host_origin[3] = {1, 1, 0}, region[3] = {4, 3, 1};
  std::vector<uint8_t> host(10 * 5, 0xee);
  cl_event read = nullptr;
  ASSERT_EQ(clEnqueueReadBufferRect(f.queue, rect, CL_FALSE, buffer_origin, host_origin, region, kWidth, 0, 10, 0,
                                    host.data(), 0, nullptr, &read),
            CL_SUCCESS);
  EXPECT_EQ(wait_while_another_thread_sets([&] { return clWaitForEvents(1, &read); }, f.gate, CL_COMPLETE),
            CL_SUCCESS);
  for (size_t y = 0; y < 5; ++y)
    for (size_t x = 0; x < 10; ++x) {
      bool inside = y >= 1 && y < 4 && x >= 1 && x < 5;
      uint8_t want = inside ? pattern[(y - 1 + 1) * kWidth + (x - 1 + 2)] : 0xee;
      EXPECT_EQ(host[y * 10 + x], want) << "at " << x << "," << y;
    }
  clReleaseEvent(read);
  clReleaseMemObject(rect);
}

TEST(IcdDeferredReads, ANonBlockingMapBehindAnUnsetUserEventIsFilledWhenItCompletes) {
  Fixture f;
  cl_int err = CL_SUCCESS;
  cl_event map = nullptr;
  auto* mapped = static_cast<int*>(
      clEnqueueMapBuffer(f.queue, f.buffer, CL_FALSE, CL_MAP_READ, 0, sizeof(int), 0, nullptr, &map, &err));
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(wait_while_another_thread_sets([&] { return clWaitForEvents(1, &map); }, f.gate, CL_COMPLETE),
            CL_SUCCESS);
  EXPECT_EQ(*mapped, Fixture::kValue);
  EXPECT_EQ(clEnqueueUnmapMemObject(f.queue, f.buffer, mapped, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clFinish(f.queue), CL_SUCCESS);
  clReleaseEvent(map);
}

// The app unmaps a writable mapping before its map could complete: it cannot have written to it,
// so the buffer keeps what it held (before, the mapping's uninitialised bytes would have gone back).
TEST(IcdDeferredReads, UnmappingBeforeTheMapDeliveredWritesBackWhatTheMapRead) {
  Fixture f;
  cl_int err = CL_SUCCESS;
  void* mapped = clEnqueueMapBuffer(f.queue, f.buffer, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, sizeof(int), 0,
                                    nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clEnqueueUnmapMemObject(f.queue, f.buffer, mapped, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(wait_while_another_thread_sets([&] { return clFinish(f.queue); }, f.gate, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(f.read_back(), Fixture::kValue);
}

TEST(IcdDeferredReads, AReadBehindAUserEventSetToAnErrorDeliversNothing) {
  Fixture f;
  int got = -1;
  cl_event read = nullptr;
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof got, &got, 1, &f.gate, &read), CL_SUCCESS);
  cl_int err = wait_while_another_thread_sets([&] { return clWaitForEvents(1, &read); }, f.gate, -1234);
  EXPECT_EQ(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  EXPECT_EQ(got, -1);
  clReleaseEvent(read);
}

// Hostile to itself: the app releases the queue, the buffer and the memory its read was to fill
// while the read still waits for its gate, then sets the gate. Nothing can observe that read any
// more, so nothing is delivered into the freed memory (ASan runs this suite too), and nothing hangs.
TEST(IcdDeferredReads, ReleasingTheQueueDropsItsUndeliveredReads) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(cl_env().context, cl_env().device, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem buffer = clCreateBuffer(cl_env().context, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event gate = clCreateUserEvent(cl_env().context, &err);
  auto got = std::make_unique<uint8_t[]>(64);
  ASSERT_EQ(clEnqueueReadBuffer(queue, buffer, CL_FALSE, 0, 64, got.get(), 1, &gate, nullptr), CL_SUCCESS);
  EXPECT_EQ(clReleaseCommandQueue(queue), CL_SUCCESS);
  EXPECT_EQ(clReleaseMemObject(buffer), CL_SUCCESS);
  got.reset();
  EXPECT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(clReleaseEvent(gate), CL_SUCCESS);
  EXPECT_EQ(clFinish(cl_env().queue), CL_SUCCESS);
}

// clFinish returns after a command that failed too; the failed read's memory stays as it was.
TEST(IcdDeferredReads, FinishDeliversNothingForAReadBehindAFailedUserEvent) {
  Fixture f;
  int got = -1;
  ASSERT_EQ(clEnqueueReadBuffer(f.queue, f.buffer, CL_FALSE, 0, sizeof got, &got, 1, &f.gate, nullptr), CL_SUCCESS);
  wait_while_another_thread_sets([&] { return clFinish(f.queue); }, f.gate, -1234);
  EXPECT_EQ(got, -1);
}

}  // namespace
}  // namespace gsvirt::icd::test
