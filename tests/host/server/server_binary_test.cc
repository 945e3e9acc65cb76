// The gsvirt-server executable itself: options, readiness fd, --once, and the capsets it serves.
// GSVIRT_SERVER_BINARY (set by meson) names the binary under test.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "protocol/vtest/vtest_protocol.h"
#include "tests/host/server/test_server.h"

namespace gsvirt::test {
namespace {

using namespace gsvirt::vtest;

struct Spawned {
  pid_t pid = -1;
  std::string socket;
};

// Starts the binary with --ready-fd and waits for its byte.
Spawned spawn_server(const std::string& dir, std::initializer_list<const char*> extra) {
  Spawned s;
  s.socket = dir + "/server.sock";
  int ready[2];
  if (pipe(ready) != 0) return s;
  s.pid = fork();
  if (s.pid == 0) {
    dup2(ready[1], 3);
    std::vector<const char*> argv = {getenv("GSVIRT_SERVER_BINARY"), "--socket", s.socket.c_str(),
                                     "--ready-fd", "3"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(nullptr);
    execv(argv[0], const_cast<char**>(argv.data()));
    _exit(127);
  }
  close(ready[1]);
  char byte;
  if (read(ready[0], &byte, 1) != 1) s.pid = -1;
  close(ready[0]);
  return s;
}

class ServerBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!getenv("GSVIRT_SERVER_BINARY")) GTEST_SKIP() << "GSVIRT_SERVER_BINARY is not set";
    char templ[] = "/tmp/gsvirt-test-XXXXXX";
    dir_ = mkdtemp(templ);
  }
  void TearDown() override { rmdir(dir_.c_str()); }
  std::string dir_;
};

TEST_F(ServerBinaryTest, ServesVcompAndStopsOnSigterm) {
  Spawned s = spawn_server(dir_, {});
  ASSERT_GT(s.pid, 0);
  RawClient client(s.socket);
  ASSERT_TRUE(client.handshake());
  ASSERT_TRUE(client.send_words({2, kGetCapset, 16, 0}));
  uint32_t header[2];
  ASSERT_TRUE(client.read(header, sizeof header));
  ASSERT_GE(header[0], 1u);
  std::vector<uint32_t> payload(header[0]);
  ASSERT_TRUE(client.read(payload.data(), payload.size() * 4));
  EXPECT_EQ(payload[0], 1u) << "capset 16 (vcomp) is served";
  ASSERT_TRUE(client.send_words({2, kGetCapset, 30, 0}));
  uint32_t echo[3];
  ASSERT_TRUE(client.read(echo, sizeof echo));
  EXPECT_EQ(echo[2], 0u) << "the echo test capset is not in the product";
  kill(s.pid, SIGTERM);
  int status = 0;
  waitpid(s.pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  EXPECT_NE(stat(s.socket.c_str(), &st), 0);
}

TEST_F(ServerBinaryTest, OnceExitsAfterTheFirstClient) {
  Spawned s = spawn_server(dir_, {"--once", "--no-fork"});
  ASSERT_GT(s.pid, 0);
  {
    RawClient client(s.socket);
    ASSERT_TRUE(client.handshake());
  }
  int status = 0;
  waitpid(s.pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  EXPECT_NE(stat(s.socket.c_str(), &st), 0);
}

TEST_F(ServerBinaryTest, BadOptionsAreRefused) {
  pid_t pid = fork();
  if (pid == 0) {
    execl(getenv("GSVIRT_SERVER_BINARY"), "gsvirt-server", "--ready-fd", "x", nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}

}  // namespace
}  // namespace gsvirt::test
