// gsvirt-server against clients that attack the server itself rather than the protocol: memory
// claimed before the handshake, slow handshakes, many connections from one user, a process left
// blocked after its client is gone, signals that must not drop clients (issue 12, points 5, 8, 14
// and the process part of point 1).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

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

// A field of /proc/PID/status ("VmRSS", "Seccomp"...), as text; "" when absent.
std::string status_field(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + ":", 0) == 0) {
      size_t start = line.find_first_not_of(" \t", name.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

uint64_t rss_kib(pid_t pid) { return std::strtoull(status_field(pid, "VmRSS").c_str(), nullptr, 10); }

// The only client process of `server` (after one client connected), or -1.
pid_t only_child(const TestServer& server) {
  pid_t pid = -1;
  eventually([&] {
    auto pids = server.child_pids();
    if (pids.size() == 1) pid = pids[0];
    return pids.size() == 1;
  });
  return pid;
}

void start_echo_context(RawClient& c) {
  ASSERT_TRUE(c.handshake());
  ASSERT_TRUE(c.send_words({1, kContextInit, kEchoCapsetId}));
}

bool submit(RawClient& c, const std::vector<uint32_t>& cmds) {
  uint32_t n = uint32_t(cmds.size());
  std::vector<uint32_t> m = {1 + 8 + n, kSubmitCmd2, 1, 0, 9, n, 9 + n, 0, 0, 0, 0};
  m.insert(m.end(), cmds.begin(), cmds.end());
  return c.send(m.data(), m.size() * 4);
}

// --- point 8: resources before and around the handshake ---------------------------------------

// A header announcing 64 MiB made the client process allocate and zero 64 MiB before a byte of
// payload came. Now the buffer grows with what arrives, and before the handshake such a header is
// refused outright.
TEST(HostileServer, Issue12HeaderAnnouncingALargePayloadCostsNoMemory) {
  TestServer server(server_options([](server::ServerOptions& o) { o.stall_timeout_ms = 30000; }));
  {
    RawClient early(server.socket_path());
    ASSERT_TRUE(early.send_words({0x1000000, kSubmitCmd2}));
    EXPECT_TRUE(early.closed_by_server()) << "refused before the handshake";
  }
  ASSERT_TRUE(eventually([&] { return server.child_count() == 0; }));
  RawClient client(server.socket_path());
  ASSERT_TRUE(client.handshake());
  pid_t child = only_child(server);
  ASSERT_GT(child, 0);
  uint64_t before = rss_kib(child);
  ASSERT_TRUE(client.send_words({0x1000000, kSubmitCmd2, 1}));  // 64 MiB promised, 4 bytes sent
  uint64_t peak = before;
  for (int i = 0; i < 50; i++) {  // a growth, if any, shows within milliseconds
    peak = std::max(peak, rss_kib(child));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_LT(peak, before + 8 * 1024) << "KiB resident before " << before << ", peak " << peak;
}

TEST(HostileServer, Issue12SlowHandshakesAreDroppedInBothModes) {
  for (bool fork_mode : {true, false}) {
    SCOPED_TRACE(fork_mode ? "fork" : "no fork");
    TestServer server(server_options([&](server::ServerOptions& o) {
      o.fork_per_client = fork_mode;
      o.handshake_timeout_ms = 200;
      o.stall_timeout_ms = 30000;
    }));
    {
      RawClient silent(server.socket_path());
      EXPECT_TRUE(silent.closed_by_server()) << "connected, never spoke";
    }
    {
      RawClient named(server.socket_path());
      ASSERT_TRUE(named.send_words({4, kCreateRenderer, 0x74736574}));
      EXPECT_TRUE(named.closed_by_server()) << "CREATE_RENDERER, then nothing";
    }
    RawClient polite(server.socket_path());
    ASSERT_TRUE(polite.handshake());
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    EXPECT_TRUE(polite.ping()) << "an idle client that finished the handshake stays";
  }
}

TEST(HostileServer, Issue12ClientsPerUserAreLimited) {
  TestServer server(server_options([](server::ServerOptions& o) { o.admission.max_clients_per_uid = 2; }));
  RawClient first(server.socket_path()), second(server.socket_path());
  ASSERT_TRUE(first.handshake());
  ASSERT_TRUE(second.handshake());
  RawClient third(server.socket_path());
  EXPECT_TRUE(third.closed_by_server()) << "a third client of the same uid";
  first.close_now();
  ASSERT_TRUE(eventually([&] { return server.child_count() == 1; }));
  RawClient fourth(server.socket_path());
  EXPECT_TRUE(fourth.handshake()) << "a slot of this user is free again";
}

TEST(HostileServer, Issue12MemoryBudgetRefusesClientsWhileItIsSpent) {
  TestServer server(server_options([](server::ServerOptions& o) {
    o.admission.memory_budget_bytes = 24ull << 20;
    o.stall_timeout_ms = 30000;
  }));
  RawClient hog(server.socket_path());
  ASSERT_TRUE(hog.handshake());
  pid_t child = only_child(server);
  ASSERT_GT(child, 0);
  uint64_t before = rss_kib(child);
  // Half of a 64 MiB message: the client process holds what arrived.
  std::vector<uint32_t> half(8u << 20, 0x5a5a5a5a);
  ASSERT_TRUE(hog.send_words({0x1000000, kSubmitCmd2}));
  ASSERT_TRUE(hog.send(half.data(), half.size() * 4));
  ASSERT_TRUE(eventually([&] { return rss_kib(child) > before + 30 * 1024; }));
  RawClient refused(server.socket_path());
  EXPECT_TRUE(refused.closed_by_server()) << "the budget is spent";
  hog.close_now();
  ASSERT_TRUE(eventually([&] { return server.child_count() == 0; }));
  RawClient next(server.socket_path());
  EXPECT_TRUE(next.handshake()) << "the budget is free again";
}

// --- point 14: signals of the compiler's processes ---------------------------------------------

// In no-fork mode the server's signalfd took any SIGCHLD (the compiler's clang exiting) as a
// reason to stop serving the client.
TEST(HostileServer, Issue12NoForkServerKeepsItsClientWhenAChildProcessExits) {
  TestServer server(false);
  RawClient client(server.socket_path());
  start_echo_context(client);
  ASSERT_TRUE(client.ping());
  // What the server process sees when a process the compiler started ends.
  pid_t helper = fork();
  if (helper == 0) _exit(0);
  waitpid(helper, nullptr, 0);
  ASSERT_EQ(kill(server.pid(), SIGCHLD), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(client.ping()) << "the client is still served";
  EXPECT_TRUE(server.alive());
  EXPECT_EQ(server.stop(), 0);
}

// --- point 5: a client process never outlives its client for long -----------------------------

TEST(HostileServer, Issue12ProcessBlockedInAHostWaitIsKilledAfterItsClientLeaves) {
  set_echo_block_enabled(true);  // inherited by the server forked below
  TestServer server(server_options([](server::ServerOptions& o) { o.admission.client_grace_ms = 200; }));
  RawClient client(server.socket_path());
  start_echo_context(client);
  pid_t child = only_child(server);
  ASSERT_GT(child, 0);
  std::vector<uint32_t> cmds;
  echo_block(cmds);
  ASSERT_TRUE(submit(client, cmds));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(server.child_count(), 1) << "blocked, and its client is still there";
  client.close_now();
  EXPECT_TRUE(eventually([&] { return server.child_count() == 0; }))
      << "the blocked process outlived its client";
  EXPECT_TRUE(server.alive());
}

// --- point 5 and point 1: what a client process is allowed ------------------------------------

std::string limits_line(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name, 0) == 0) return line;
  return "";
}

TEST(HostileServer, Issue12ClientProcessesRunSandboxedWithLimits) {
  TestServer server(server_options([](server::ServerOptions& o) {
    o.sandbox.cpu_seconds = 7;
    o.sandbox.file_bytes = 1 << 20;
  }));
  RawClient client(server.socket_path());
  ASSERT_TRUE(client.handshake());
  pid_t child = only_child(server);
  ASSERT_GT(child, 0);
  EXPECT_EQ(status_field(child, "Seccomp"), "2") << "a seccomp filter";
  EXPECT_EQ(status_field(child, "NoNewPrivs"), "1");
  EXPECT_NE(limits_line(child, "Max cpu time").find(" 7 "), std::string::npos)
      << limits_line(child, "Max cpu time");
  EXPECT_NE(limits_line(child, "Max file size").find(" 1048576 "), std::string::npos)
      << limits_line(child, "Max file size");
  EXPECT_NE(limits_line(child, "Max core file size").find(" 0 "), std::string::npos);
  EXPECT_TRUE(client.ping());
}

// A blob larger than the client process may make a file (its memfd cannot grow: EFBIG) is
// refused with res_id 0; the client keeps its connection and gets the next, smaller blob.
TEST(HostileServer, ABlobPastTheClientsFileSizeLimitIsRefusedAndTheClientKept) {
  TestServer server(server_options([](server::ServerOptions& o) { o.sandbox.file_bytes = 1 << 20; }));
  RawClient client(server.socket_path());
  ASSERT_TRUE(client.handshake());
  ASSERT_TRUE(client.send_words({1, kContextInit, kEchoCapsetId}));
  uint32_t reply[3] = {};
  int fd = -1;
  ASSERT_TRUE(client.send_words({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, 2u << 20, 0, 0, 0}));
  ASSERT_TRUE(client.read(reply, sizeof reply, &fd)) << "the client was dropped";
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(reply[2], 0u) << "no resource";
  ASSERT_TRUE(client.send_words({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, 1u << 20, 0, 0, 0}));
  ASSERT_TRUE(client.read(reply, sizeof reply, &fd));
  EXPECT_GE(fd, 0);
  EXPECT_NE(reply[2], 0u);
  if (fd >= 0) close(fd);
  EXPECT_TRUE(client.ping());
}

}  // namespace
}  // namespace gsvirt::test
