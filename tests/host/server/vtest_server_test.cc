// gsvirt-server's socket loop against hostile and disappearing clients: every bad client is
// dropped, the server stays up, and nothing is left behind.
#include "host/server/vtest_server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "protocol/vtest/vtest_protocol.h"
#include "tests/host/renderer/echo_context.h"
#include "tests/host/server/test_server.h"

namespace gsvirt::test {
namespace {

using namespace gsvirt::vtest;

// Polls `condition` for up to 5 s.
bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 500; i++) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

void start_context(RawClient& c) {
  ASSERT_TRUE(c.handshake());
  ASSERT_TRUE(c.send_words({1, kContextInit, kEchoCapsetId}));
}

uint32_t create_blob(RawClient& c, uint32_t size) {
  uint32_t reply[3] = {};
  int fd = -1;
  EXPECT_TRUE(c.send_words({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, size, 0,
                            0, 0}));
  EXPECT_TRUE(c.read(reply, sizeof reply, &fd));
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);
  return reply[2];
}

struct HostileCase {
  const char* name;
  std::function<void(RawClient&)> act;
};

class ServerTest : public ::testing::TestWithParam<bool> {};

TEST_P(ServerTest, HostileClientsAreDroppedAndTheServerStaysUp) {
  TestServer server(GetParam());
  ASSERT_TRUE(server.alive());
  std::vector<HostileCase> cases = {
      {"unknown command", [](RawClient& c) { c.send_words({0, 99}); }},
      {"huge length", [](RawClient& c) { c.send_words({0xffffffff, kSubmitCmd2}); }},
      {"command before CREATE_RENDERER", [](RawClient& c) { c.send_words({0, kPingProtocolVersion}); }},
      {"fd with a ping", [](RawClient& c) {
         ASSERT_TRUE(c.handshake());
         c.send_words({0, kPingProtocolVersion}, 0);
       }},
      {"truncated message, then silence", [](RawClient& c) {
         ASSERT_TRUE(c.handshake());
         c.send_words({10, kSubmitCmd2, 1});  // 9 dwords promised, 1 sent: the stall timeout drops it
       }},
      {"batch past the end", [](RawClient& c) {
         start_context(c);
         c.send_words({9, kSubmitCmd2, 1, 0, 9, 1000, 0, 0, 0, 0, 0});
       }},
      {"unref of a resource not owned", [](RawClient& c) {
         start_context(c);
         c.send_words({1, kResourceUnref, 4242});
       }},
      {"transfer past the resource", [](RawClient& c) {
         start_context(c);
         uint32_t res = create_blob(c, 4096);
         c.send_words({10, kTransferPut2, res, 0, 0, 0, 0, 0, 0, 0, 4096, 1});
       }},
      {"context for an unknown capset", [](RawClient& c) {
         ASSERT_TRUE(c.handshake());
         c.send_words({1, kContextInit, 29});
       }},
  };
  for (auto& hostile : cases) {
    SCOPED_TRACE(hostile.name);
    RawClient client(server.socket_path());
    ASSERT_TRUE(client.connected());
    hostile.act(client);
    EXPECT_TRUE(client.closed_by_server());
    ASSERT_TRUE(server.alive());
    RawClient next(server.socket_path());
    EXPECT_TRUE(next.handshake()) << "a well-behaved client is still served";
  }
  EXPECT_EQ(server.stop(), 0);
}

TEST_P(ServerTest, HundredClientsDisconnectingMidStreamLeaveNothingBehind) {
  TestServer server(GetParam());
  ASSERT_TRUE(server.alive());
  int fds_before = server.open_fd_count();
  for (int i = 0; i < 100; i++) {
    RawClient client(server.socket_path());
    start_context(client);
    create_blob(client, 65536);
    create_blob(client, 4096);
    // Half a SUBMIT_CMD2, then gone.
    client.send_words({20, kSubmitCmd2, 1, 0, 9});
    client.close_now();
  }
  EXPECT_TRUE(eventually([&] { return server.child_count() == 0; })) << server.child_count();
  EXPECT_TRUE(eventually([&] { return server.open_fd_count() == fds_before; }))
      << server.open_fd_count() << " fds, " << fds_before << " before";
  EXPECT_TRUE(eventually([&] { return server.blob_mapping_count() == 0; }));
  EXPECT_TRUE(server.alive());
  EXPECT_EQ(server.stop(), 0);
}

INSTANTIATE_TEST_SUITE_P(ForkAndNoFork, ServerTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "fork" : "nofork"; });

TEST(ServerShutdown, SigtermRemovesTheSocketAndEndsClientProcesses) {
  TestServer server(true);
  std::string path = server.socket_path();
  RawClient client(path);
  start_context(client);
  create_blob(client, 4096);
  EXPECT_TRUE(eventually([&] { return server.child_count() == 1; }));
  EXPECT_EQ(server.stop(), 0);
  struct stat st;
  EXPECT_NE(stat(path.c_str(), &st), 0) << "socket removed";
  EXPECT_TRUE(client.closed_by_server()) << "client process ended";
}

TEST(ServerLimits, ConnectionsBeyondTheClientLimitAreClosed) {
  TestServer server(true, {}, 2);
  RawClient first(server.socket_path()), second(server.socket_path());
  ASSERT_TRUE(first.handshake());
  ASSERT_TRUE(second.handshake());
  RawClient third(server.socket_path());
  EXPECT_TRUE(third.closed_by_server());
  first.close_now();
  EXPECT_TRUE(eventually([&] { return server.child_count() == 1; }));
  RawClient fourth(server.socket_path());
  EXPECT_TRUE(fourth.handshake()) << "a slot is free again";
}

TEST(ServerShutdown, RefusesToReplaceAFileThatIsNotASocket) {
  char templ[] = "/tmp/gsvirt-test-XXXXXX";
  std::string dir = mkdtemp(templ);
  std::string path = dir + "/not-a-socket";
  FILE* f = fopen(path.c_str(), "w");
  fclose(f);
  server::ServerOptions options;
  options.socket_path = path;
  EXPECT_EQ(server::run_server(options), 1);
  struct stat st;
  EXPECT_EQ(stat(path.c_str(), &st), 0) << "the file is left alone";
  unlink(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace gsvirt::test
