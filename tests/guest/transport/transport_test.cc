// The guest Transport interface, end to end against the echo test capset: in-process, and over
// vtest to a real server loop on a temporary socket. Plus the errors users see when a transport
// cannot start.
#include "guest/transport/transport.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "tests/host/renderer/echo_context.h"
#include "tests/host/server/test_server.h"

namespace gsvirt::guest {
namespace {

using namespace gsvirt::test;

uint32_t reply_value(const Blob& blob, uint32_t offset) {
  uint32_t slot[2];
  std::memcpy(slot, static_cast<uint8_t*>(blob.map) + offset, sizeof slot);
  return slot[1];
}

bool submit(Transport& t, const std::vector<uint32_t>& cmds, bool wait) {
  return t.submit(cmds.data(), cmds.size() * 4, wait);
}

class TransportTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    register_echo_capset();
    std::string error;
    if (std::strcmp(GetParam(), "vtest") == 0) {
      server_ = std::make_unique<TestServer>(true);
      transport_ = create_vtest_transport(server_->socket_path(), &error);
    } else {
      transport_ = create_inproc_transport(&error);
    }
    ASSERT_TRUE(transport_) << error;
    EXPECT_STREQ(transport_->name(), GetParam());
  }

  std::unique_ptr<TestServer> server_;
  std::unique_ptr<Transport> transport_;
};

TEST_P(TransportTest, CapsetContextBlobAndWaitedSubmit) {
  Transport& t = *transport_;
  std::vector<uint8_t> caps;
  ASSERT_TRUE(t.get_capset(kEchoCapsetId, caps)) << t.error();
  ASSERT_GE(caps.size(), 8u);
  uint32_t magic;
  std::memcpy(&magic, caps.data(), 4);
  EXPECT_EQ(magic, kEchoCapsMagic);
  EXPECT_FALSE(t.get_capset(29, caps));

  ASSERT_TRUE(t.init_context(kEchoCapsetId)) << t.error();
  EXPECT_FALSE(t.init_context(kEchoCapsetId)) << "one context per connection";
  Blob blob;
  ASSERT_TRUE(t.create_blob(1 << 20, &blob)) << t.error();
  ASSERT_NE(blob.map, nullptr);
  EXPECT_EQ(blob.size, 1u << 20);

  std::vector<uint32_t> cmds;
  echo_set_reply(cmds, blob.resource_id, 128);
  echo_echo(cmds, 0xfeed);
  ASSERT_TRUE(submit(t, cmds, true)) << t.error();
  EXPECT_EQ(reply_value(blob, 128), 0xfeedu);

  // No-reply submits are queued; the next waited submit sees all of them done.
  for (uint32_t i = 0; i < 100; i++) {
    std::vector<uint32_t> one;
    echo_echo(one, i);
    ASSERT_TRUE(submit(t, one, false));
  }
  std::vector<uint32_t> sum;
  // Away from the reply slot, which the queued echoes may still be writing.
  std::memset(static_cast<uint8_t*>(blob.map) + 4096, 1, 1000);
  echo_sum(sum, blob.resource_id, 4096, 1000);
  ASSERT_TRUE(submit(t, sum, true));
  EXPECT_EQ(reply_value(blob, 128), 1000u) << "the host sees guest writes to the blob in place";
  t.destroy_blob(blob);

  EXPECT_FALSE(t.submit(cmds.data(), 6, true)) << "not a dword count";
  EXPECT_NE(t.error().find("submit size"), std::string::npos) << t.error();
}

// A context that finishes later than the submit: the wait must still return, and only after it.
TEST_P(TransportTest, WaitCoversAsynchronousCompletion) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId));
  Blob blob;
  ASSERT_TRUE(t.create_blob(4096, &blob));
  std::vector<uint32_t> cmds;
  echo_set_reply(cmds, blob.resource_id, 0);
  echo_busy_for(cmds, 0, 5);
  echo_echo(cmds, 77);
  ASSERT_TRUE(submit(t, cmds, true)) << t.error();
  EXPECT_EQ(reply_value(blob, 0), 77u);
  std::vector<uint32_t> again;
  echo_busy_for(again, 0, 3);
  echo_echo(again, 78);
  ASSERT_TRUE(submit(t, again, true)) << t.error();
  EXPECT_EQ(reply_value(blob, 0), 78u);
  t.destroy_blob(blob);
}

TEST_P(TransportTest, RejectedStreamIsReported) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId));
  std::vector<uint32_t> poison;
  echo_poison(poison);
  EXPECT_FALSE(submit(t, poison, true));
  EXPECT_FALSE(t.error().empty());
}

TEST_P(TransportTest, SubmitBeforeInitContextFails) {
  std::vector<uint32_t> nop;
  echo_nop(nop);
  EXPECT_FALSE(submit(*transport_, nop, true));
  EXPECT_NE(transport_->error().find("before init_context"), std::string::npos);
}

// --- timelines: per-ring points, asynchronous retirement, waits with timeouts ---

constexpr uint64_t kMs = 1000000;

bool submit_on(Transport& t, uint32_t ring, const std::vector<uint32_t>& cmds, uint64_t point) {
  return t.submit_on_ring(ring, cmds.data(), cmds.size() * 4, point);
}

// Ring 2 is held by the context (its work has not finished): its point stays ahead while ring 0
// keeps retiring, a wait times out, and completing the work retires it.
TEST_P(TransportTest, RingsRetireIndependentlyAndAsynchronously) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId, 4)) << t.error();
  EXPECT_EQ(t.num_rings(), 4u);
  std::vector<uint32_t> hold, nop, complete;
  echo_hold(hold, 2);
  echo_nop(nop);
  echo_complete(complete, 2, 1);
  ASSERT_TRUE(submit_on(t, 2, hold, 1)) << t.error();
  ASSERT_TRUE(submit_on(t, 0, nop, 1));
  ASSERT_TRUE(submit_on(t, 0, nop, 5)) << "points may skip values";
  EXPECT_EQ(t.wait_point(0, 5, kWaitForever), WaitResult::kReached) << t.error();
  EXPECT_EQ(t.poll_point(0), 5u);
  EXPECT_EQ(t.poll_point(2), 0u);
  EXPECT_EQ(t.wait_point(2, 1, 0), WaitResult::kTimeout);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(t.wait_point(2, 1, 30 * kMs), WaitResult::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(25));
  ASSERT_TRUE(submit_on(t, 0, complete, 6));
  EXPECT_EQ(t.wait_point(2, 1, 5000 * kMs), WaitResult::kReached) << t.error();
  EXPECT_EQ(t.poll_point(2), 1u);
  EXPECT_EQ(t.last_submitted_point(2), 1u);
  EXPECT_EQ(t.wait_point(2, 0, 0), WaitResult::kReached) << "point 0 is always reached";
}

// A context that finishes by itself after a while (it answers "busy" a few more times).
TEST_P(TransportTest, PointsOfAContextFinishingLaterAreReached) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId, 2));
  for (uint64_t point = 1; point <= 20; point++) {
    std::vector<uint32_t> busy;
    echo_busy_for(busy, 1, 3);
    ASSERT_TRUE(submit_on(t, 1, busy, point));
  }
  EXPECT_EQ(t.wait_point(1, 20, kWaitForever), WaitResult::kReached) << t.error();
  EXPECT_EQ(t.poll_point(1), 20u);
}

// A thread blocked in a wait holds up nobody: another thread submits the work that ends it.
TEST_P(TransportTest, ABlockedWaitDoesNotBlockOtherThreads) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId, 2));
  std::vector<uint32_t> hold, complete;
  echo_hold(hold, 1);
  echo_complete(complete, 1, 1);
  ASSERT_TRUE(submit_on(t, 1, hold, 1));
  WaitResult result = WaitResult::kError;
  std::thread waiter([&] { result = t.wait_point(1, 1, kWaitForever); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(submit_on(t, 0, complete, 1)) << t.error();
  waiter.join();
  EXPECT_EQ(result, WaitResult::kReached);
}

// Many waits that time out (a driver polling with short timeouts) cost nothing lasting: over
// vtest the server forgets each abandoned wait instead of counting it against its limit.
TEST_P(TransportTest, TimedOutWaitsDoNotAccumulate) {
  Transport& t = *transport_;
  ASSERT_TRUE(t.init_context(kEchoCapsetId, 2));
  std::vector<uint32_t> hold, complete;
  echo_hold(hold, 1);
  echo_complete(complete, 1, 1);
  ASSERT_TRUE(submit_on(t, 1, hold, 1));
  for (int i = 0; i < 200; i++)
    ASSERT_EQ(t.wait_point(1, 1, 100000), WaitResult::kTimeout) << "wait " << i << ": " << t.error();
  ASSERT_TRUE(submit_on(t, 0, complete, 1)) << t.error();
  EXPECT_EQ(t.wait_point(1, 1, kWaitForever), WaitResult::kReached) << t.error();
}

TEST_P(TransportTest, BadRingsAndPointsAreRefused) {
  Transport& t = *transport_;
  EXPECT_FALSE(t.init_context(kEchoCapsetId, 0));
  EXPECT_NE(t.error().find("0 rings is not 1..64"), std::string::npos) << t.error();
  EXPECT_FALSE(t.init_context(kEchoCapsetId, 65));
  EXPECT_EQ(t.wait_point(0, 1, 0), WaitResult::kError) << "before init_context";
  ASSERT_TRUE(t.init_context(kEchoCapsetId, 3)) << t.error();
  std::vector<uint32_t> nop;
  echo_nop(nop);
  EXPECT_FALSE(submit_on(t, 3, nop, 1));
  EXPECT_NE(t.error().find("ring 3 is not below the context's 3 rings"), std::string::npos) << t.error();
  ASSERT_TRUE(submit_on(t, 1, nop, 7));
  EXPECT_FALSE(submit_on(t, 1, nop, 7));
  EXPECT_NE(t.error().find("point 7 of ring 1 does not exceed the last one, 7"), std::string::npos)
      << t.error();
  EXPECT_EQ(t.wait_point(1, 8, 0), WaitResult::kError);
  EXPECT_NE(t.error().find("point 8 of ring 1 was never submitted"), std::string::npos) << t.error();
  EXPECT_EQ(t.wait_point(5, 1, 0), WaitResult::kError);
  EXPECT_EQ(t.poll_point(5), 0u);
  EXPECT_EQ(t.wait_point(1, 7, kWaitForever), WaitResult::kReached) << "the connection still works";
}

INSTANTIATE_TEST_SUITE_P(Transports, TransportTest, ::testing::Values("inproc", "vtest"),
                         [](const auto& info) { return std::string(info.param); });

TEST(VtestTransport, UnknownCapsetFailsWithAMessage) {
  TestServer server(false);
  std::string error;
  auto t = create_vtest_transport(server.socket_path(), &error);
  ASSERT_TRUE(t) << error;
  EXPECT_FALSE(t->init_context(29));
  EXPECT_NE(t->error().find("CONTEXT_INIT for capset 29"), std::string::npos) << t->error();
  EXPECT_TRUE(server.alive());
}

TEST(VtestTransport, DestroyedBlobsAreFreedInTheServer) {
  register_echo_capset();
  TestServer server(false);
  std::string error;
  auto t = create_vtest_transport(server.socket_path(), &error);
  ASSERT_TRUE(t && t->init_context(kEchoCapsetId));
  Blob blobs[4];
  for (auto& b : blobs) ASSERT_TRUE(t->create_blob(65536, &b));
  EXPECT_EQ(server.blob_mapping_count(), 4);
  for (auto& b : blobs) t->destroy_blob(b);
  std::vector<uint32_t> nop;
  echo_nop(nop);
  ASSERT_TRUE(submit(*t, nop, true));  // a round trip: the unrefs before it are done
  EXPECT_EQ(server.blob_mapping_count(), 0);
}

TEST(VtestTransport, MissingServerGivesAClearError) {
  std::string error;
  EXPECT_FALSE(create_vtest_transport("/nonexistent/gsvirt.sock", &error));
  EXPECT_NE(error.find("cannot connect to /nonexistent/gsvirt.sock"), std::string::npos) << error;
}

TEST(DrmTransport, NoDeviceGivesAClearError) {
  std::string error;
  // Outside a VM there is no virtio-gpu render node: the message says so and what to use instead.
  if (create_drm_transport("", &error)) GTEST_SKIP() << "this machine has a virtio-gpu device";
  EXPECT_EQ(error.find("drm: "), 0u) << error;
  EXPECT_NE(error.find("virtio-gpu"), std::string::npos) << error;
  EXPECT_FALSE(create_drm_transport("/dev/null", &error));
  EXPECT_NE(error.find("/dev/null is not a virtio-gpu device"), std::string::npos) << error;
  EXPECT_FALSE(create_drm_transport("/nonexistent/renderD128", &error));
  EXPECT_NE(error.find("cannot open /nonexistent/renderD128"), std::string::npos) << error;
}

// Environment selection; each case restores the variables it sets.
class EnvTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("GSVIRT_TRANSPORT");
    unsetenv("GSVIRT_VTEST_SOCKET");
  }
};

TEST_F(EnvTest, DefaultIsInprocWithoutASocket) {
  std::string error;
  auto t = create_transport_from_env(&error);
  ASSERT_TRUE(t) << error;
  EXPECT_STREQ(t->name(), "inproc");
}

TEST_F(EnvTest, DefaultIsVtestWhenASocketIsNamed) {
  setenv("GSVIRT_VTEST_SOCKET", "/nonexistent/x.sock", 1);
  std::string error;
  EXPECT_FALSE(create_transport_from_env(&error));
  EXPECT_NE(error.find("vtest: cannot connect to /nonexistent/x.sock"), std::string::npos) << error;
}

TEST_F(EnvTest, ExplicitChoicesAndTypos) {
  std::string error;
  setenv("GSVIRT_TRANSPORT", "drm", 1);
  auto drm = create_transport_from_env(&error);
  EXPECT_TRUE(drm ? std::string(drm->name()) == "drm" : error.find("drm:") == 0) << error;
  setenv("GSVIRT_TRANSPORT", "vtset", 1);
  EXPECT_FALSE(create_transport_from_env(&error));
  EXPECT_NE(error.find("\"vtset\" is not inproc, vtest or drm"), std::string::npos) << error;
  setenv("GSVIRT_TRANSPORT", "inproc", 1);
  EXPECT_TRUE(create_transport_from_env(&error));
}

}  // namespace
}  // namespace gsvirt::guest
