// Checks shared by the vcomp tests on every executor (host_executor_test on PoCL,
// gsgpu_executor_test on gsgpu): the same protocol behaviour must hold whatever runs the work.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>

#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {

// Runs `fn` on another thread and ends the test binary if it has not returned after 30 s: a
// call that hangs the server would otherwise hang the test run (a hang detector, not a timing).
template <typename Fn>
inline void within_deadline(const char* what, Fn fn) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread worker([&] {
    fn();
    done.set_value();
  });
  if (finished.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fprintf(stderr, "HANG: %s did not return within 30 s\n", what);
    std::_Exit(1);
  }
  worker.join();
}

// Issue 12, point 5: commands behind a user event the guest has not set yet; every blocking wait
// for them is refused at once instead of blocking the server (before: clWaitForEvents blocked for
// good), and all of them work once the guest has set the event.
inline void check_waits_behind_user_event(Harness& h, uint64_t context, uint64_t queue) {
  constexpr uint64_t kSize = 1024;
  uint64_t buffer = h.next_id(), user = h.next_id(), fill = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, 0, kSize, {}); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, user, context); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  const uint8_t pattern = 0x11;
  h.send([&](WireWriter& w) {
    proto::encode_clEnqueueFillBuffer(w, true, queue, buffer, &pattern, 1, 0, kSize, &user, 1, fill);
  });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  proto::DataOut dst{proto::kDataResource, kSize, Harness::kStagingResource, 0};
  int32_t wait_user = 0, wait_fill = 0, finish = 0, read = 0;
  within_deadline("waits behind an unset user event", [&] {
    h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &user, 1); });
    wait_user = h.last_result();
    h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &fill, 1); });
    wait_fill = h.last_result();
    h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue); });
    finish = h.last_result();
    h.send([&](WireWriter& w) {
      proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, kSize, nullptr, 0, 0, dst);
    });
    read = h.last_result();
  });
  EXPECT_EQ(wait_user, CL_INVALID_OPERATION);
  EXPECT_EQ(wait_fill, CL_INVALID_OPERATION);
  EXPECT_EQ(finish, CL_INVALID_OPERATION);
  EXPECT_EQ(read, CL_INVALID_OPERATION);
  h.send([&](WireWriter& w) { proto::encode_clSetUserEventStatus(w, true, user, CL_COMPLETE); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clWaitForEvents(w, true, &fill, 1); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
  h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, 0, kSize, nullptr, 0, 0, dst); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  EXPECT_EQ(std::count(h.staging().begin(), h.staging().begin() + kSize, pattern), long(kSize));
  h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue); });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

}  // namespace gsvirt::vcomp::testing
