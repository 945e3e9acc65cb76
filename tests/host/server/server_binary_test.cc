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

// Runs the binary with `env` added until it is ready, stops it, and returns what it wrote to stderr.
std::string stderr_of_a_server_run(const std::string& dir, std::initializer_list<const char*> env) {
  std::string socket = dir + "/server.sock";
  int ready[2], err[2];
  if (pipe(ready) != 0 || pipe(err) != 0) return "";
  pid_t pid = fork();
  if (pid == 0) {
    for (const char* assignment : env) putenv(const_cast<char*>(assignment));
    dup2(ready[1], 3);
    dup2(err[1], 2);
    execl(getenv("GSVIRT_SERVER_BINARY"), "gsvirt-server", "--socket", socket.c_str(), "--ready-fd", "3", nullptr);
    _exit(127);
  }
  close(ready[1]);
  close(err[1]);
  char byte;
  bool started = read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  kill(pid, SIGTERM);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(err[0], buffer, sizeof buffer)) > 0;) text.append(buffer, size_t(n));
  close(err[0]);
  waitpid(pid, nullptr, 0);
  return started ? text : "(the server did not start)";
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The host executor preprocesses every program with clang-14: a server started for it on a host
// without clang says so once, at start, with how to install it.
TEST_F(ServerBinaryTest, HostExecutorWithoutClangIsReportedOnceAtStart) {
  std::string text =
      stderr_of_a_server_run(dir_, {"GSVIRT_EXECUTOR=host", "GSVIRT_CLANG=/nonexistent/clang-14"});
  EXPECT_EQ(count_of(text, "clang-14 is not installed on the host"), 1u) << text;
  EXPECT_NE(text.find("GSVIRT_CLANG=/nonexistent/clang-14 is not an executable"), std::string::npos) << text;
  EXPECT_NE(text.find("apt-get install clang-14"), std::string::npos) << text;
  EXPECT_NE(text.find("every clBuildProgram from source will fail"), std::string::npos) << text;
  std::string gsgpu = stderr_of_a_server_run(dir_, {"GSVIRT_EXECUTOR=gsgpu", "GSVIRT_CLANG=/nonexistent/clang-14"});
  EXPECT_EQ(gsgpu.find("clang-14 is not installed"), std::string::npos) << "only for the host executor";
}

}  // namespace
}  // namespace gsvirt::test
