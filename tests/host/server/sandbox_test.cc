// The process sandbox (host/sandbox/sandbox.h), entered in a forked process that then
// tries what a compromised client process would: read host files, debug or signal other
// processes, mount, make namespaces, read secrets from its environment. And what a driver or the
// compiler needs must still work: threads, starting a tool, temporary files, system libraries.
#include "host/sandbox/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "host/sandbox/sandbox_steps.h"

extern char** environ;

namespace gsvirt::sandbox {
namespace {

// Runs `body` in a forked process after enter_sandbox(); returns what it wrote (one line
// per failed expectation, "" when all held).
std::string in_sandbox(const SandboxOptions& options, std::string (*body)()) {
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(out[0]);
    SandboxReport report;
    std::string result = enter_sandbox(options, &report) ? body()
                                                                : "sandbox failed: " + report.error;
    (void)!write(out[1], result.data(), result.size());
    _exit(0);
  }
  close(out[1]);
  std::string result;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) result.append(buf, size_t(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) result += "the sandboxed process died (status " + std::to_string(status) + ")\n";
  return result;
}

std::string expect_errno(const char* what, long r, int expected) {
  if (r == -1 && errno == expected) return "";
  return std::string(what) + ": returned " + std::to_string(r) + ", errno " + std::to_string(errno) +
         " (expected " + std::to_string(expected) + ")\n";
}

std::string attacks() {
  std::string failed;
  // Debugging another process: a throwaway one of its own, so that an unsandboxed run fails
  // cleanly instead of stopping the test.
  pid_t target = fork();
  if (target == 0) {
    pause();
    _exit(0);
  }
  long attached = ptrace(PTRACE_ATTACH, target, nullptr, nullptr);
  failed += expect_errno("ptrace(ATTACH)", attached, EPERM);
  if (attached == 0) ptrace(PTRACE_DETACH, target, nullptr, nullptr);
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
  failed += expect_errno("mount", mount("none", "/tmp", "tmpfs", 0, nullptr), EPERM);
  failed += expect_errno("unshare(NEWUSER)", unshare(CLONE_NEWUSER), EPERM);
  if (std::getenv("GSVIRT_TEST_SECRET_TOKEN_FOR_SANDBOX") == nullptr &&
      std::getenv("AWS_SECRET_ACCESS_KEY"))
    failed += "AWS_SECRET_ACCESS_KEY survived the scrub\n";
  if (!std::getenv("GSVIRT_EXECUTOR")) failed += "GSVIRT_EXECUTOR (a driver setting) was scrubbed\n";
  if (landlock_abi() > 0) {
    failed += expect_errno("open /etc/passwd", open("/etc/passwd", O_RDONLY | O_CLOEXEC), EACCES);
    const char* home = std::getenv("HOME");
    if (home && *home == '/' && std::string(home) != "/")
      failed += expect_errno("open $HOME", open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC), EACCES);
  }
  return failed;
}

std::string needs() {
  std::string failed;
  int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
  if (fd < 0 && access("/etc/ld.so.cache", F_OK) == 0) failed += "cannot read /etc/ld.so.cache\n";
  if (fd >= 0) close(fd);
  bool ran = false;
  std::thread([&] { ran = true; }).join();
  if (!ran) failed += "a thread did not run\n";
  // Starting a tool, as the compiler starts clang.
  pid_t pid = -1;
  const char* argv[] = {"/bin/true", nullptr};
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    failed += "posix_spawn /bin/true failed\n";
  } else {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed += "/bin/true did not succeed\n";
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/sandbox-test-file";
  fd = open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) failed += "cannot create a file in TMPDIR\n";
  if (fd >= 0 && write(fd, "x", 1) != 1) failed += "cannot write a file in TMPDIR\n";
  if (fd >= 0) close(fd);
  unlink(path.c_str());
  return failed;
}

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/gsvirt-sandbox-test-XXXXXX";
    tmpdir_ = mkdtemp(templ);
    setenv("TMPDIR", tmpdir_.c_str(), 1);
    setenv("AWS_SECRET_ACCESS_KEY", "hunter2", 1);
    setenv("GSVIRT_EXECUTOR", "gsgpu", 1);
  }
  void TearDown() override {
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("GSVIRT_EXECUTOR");
    unsetenv("TMPDIR");
    rmdir(tmpdir_.c_str());
  }
  std::string tmpdir_;
};

TEST_F(SandboxTest, Issue12ACompromisedClientProcessCannotReachOutside) {
  if (landlock_abi() == 0) std::fprintf(stderr, "note: no Landlock in this kernel; files unchecked\n");
  EXPECT_EQ(in_sandbox({}, attacks), "");
}

TEST_F(SandboxTest, WhatDriversAndTheCompilerNeedStillWorks) {
  EXPECT_EQ(in_sandbox({}, needs), "");
}

TEST(SandboxEnvironment, SecretsGoDriverSettingsStay) {
  for (const char* kept : {"GSVIRT_EXECUTOR", "POCL_DEVICES", "OCL_ICD_VENDORS", "PATH", "HOME",
                           "TMPDIR", "LD_LIBRARY_PATH", "ASAN_OPTIONS", "CUDA_VISIBLE_DEVICES"})
    EXPECT_TRUE(environment_variable_kept(kept)) << kept;
  for (const char* dropped : {"AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK", "GITHUB_TOKEN", "DISPLAY",
                              "LD_PRELOAD", "DBUS_SESSION_BUS_ADDRESS"})
    EXPECT_FALSE(environment_variable_kept(dropped)) << dropped;
}

}  // namespace
}  // namespace gsvirt::sandbox
