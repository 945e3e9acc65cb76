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
