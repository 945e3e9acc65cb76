// Issue 12 point 4: a build whose client has gone is cancelled, also where no client process gets
// killed (gsvirt-server --no-fork serves every client in its own process). A client builds a
// program that keeps clang busy for far longer than the test (it includes itself twice per level,
// 40 levels deep, printing nothing) and is then killed; the server notices the hang-up and kills
// clang at once, long before the build's deadline (GSVIRT_COMPILER_TIMEOUT=300 here). Before, clang
// ran on until that deadline and the server served nobody else meanwhile.
//
// Not a timing assertion: the test waits up to 30 s for clang to be gone, a tenth of the deadline.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace gsvirt::icd::test {
namespace {

constexpr char kEndlessSilentSource[] =
    "#if __INCLUDE_LEVEL__ < 40\n"
    "#include \"program.cl\"\n"
    "#include \"program.cl\"\n"
    "#endif\n"
    "#if __INCLUDE_LEVEL__ == 0\n"
    "__kernel void k(__global int* p) { p[0] = 1; }\n"
    "#endif\n";
constexpr char kSmallSource[] = "__kernel void k(__global int* p) { p[0] = 1; }\n";
constexpr auto kGenerousBound = std::chrono::seconds(30);

// The parent pid and command name of `pid` from /proc, or false when it does not exist.
bool read_stat(pid_t pid, pid_t* parent, std::string* name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 4 > line.size()) return false;
  *name = line.substr(open + 1, close - open - 1);
  char state = 0;
  int ppid = 0;
  if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2) return false;
  *parent = ppid;
  return state != 'Z';
}

// The build's clang (its command line names the program's file; not the toolchain probes such as
// `clang --version`) when the server has started it, else 0.
pid_t find_compiling_clang(pid_t server) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string dir = entry.path().filename().string();
    if (dir.empty() || dir.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t parent = 0;
    std::string name;
    const pid_t pid = std::atoi(dir.c_str());
    if (!read_stat(pid, &parent, &name) || parent != server || name.rfind("clang", 0) != 0) continue;
    std::ifstream cmdline("/proc/" + dir + "/cmdline");
    const std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (args.find("program.cl") != std::string::npos) return pid;
  }
  return 0;
}

bool process_exists(pid_t pid) {
  pid_t parent = 0;
  std::string name;
  return read_stat(pid, &parent, &name);
}

// In a child process: builds `source` on the server through the ICD; exits 0 when the build
// succeeded (the endless one never returns before the parent kills this process).
[[noreturn]] void build_in_child(const char* source) {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_int err = CL_SUCCESS;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS)
    _exit(2);
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) _exit(3);
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
  if (err != CL_SUCCESS) _exit(4);
  err = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    char log[4096] = {};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
    std::fprintf(stderr, "clBuildProgram: %d; build log:\n%s\n", err, log);
  }
  clReleaseProgram(program);
  clReleaseContext(context);
  _exit(err == CL_SUCCESS ? 0 : 5);
}

pid_t start_client(const char* source) {
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    build_in_child(source);
  }
  return pid;
}

class BuildCancelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* server = std::getenv("GSVIRT_TEST_SERVER");
    if (!server || !*server) GTEST_SKIP() << "GSVIRT_TEST_SERVER is not set";
    if (access("/usr/lib/llvm-14/bin/clang", X_OK) != 0) GTEST_SKIP() << "clang-14 is not installed";
    socket_ = "/tmp/gsvirt-build-cancel-" + std::to_string(getpid()) + ".sock";
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    server_ = fork();
    ASSERT_GE(server_, 0);
    if (server_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      close(ready[0]);
      setenv("GSVIRT_COMPILER_TIMEOUT", "300", 1);
      const std::string fd = std::to_string(ready[1]);
      execl(server, server, "--no-fork", "--socket", socket_.c_str(), "--ready-fd", fd.c_str(), (char*)nullptr);
      _exit(127);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "gsvirt-server did not become ready";
    close(ready[0]);
    setenv("GSVIRT_TRANSPORT", "vtest", 1);
    setenv("GSVIRT_VTEST_SOCKET", socket_.c_str(), 1);
  }
  void TearDown() override {
    if (server_ <= 0) return;
    kill(server_, SIGTERM);
    // A server still busy with a build reads its signals only after it: do not wait for that.
    for (int i = 0; i < 250 && waitpid(server_, nullptr, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (kill(server_, SIGKILL) == 0) waitpid(server_, nullptr, 0);
  }

  std::string socket_;
  pid_t server_ = -1;
};

TEST_F(BuildCancelTest, Issue12NoForkServerCancelsTheBuildOfAClientThatLeft) {
  const pid_t client = start_client(kEndlessSilentSource);
  ASSERT_GT(client, 0);
  pid_t clang = 0;
  for (auto end = std::chrono::steady_clock::now() + kGenerousBound; !clang && std::chrono::steady_clock::now() < end;)
    if (!(clang = find_compiling_clang(server_))) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_NE(clang, 0) << "the server never started clang for the build";

  kill(client, SIGKILL);
  waitpid(client, nullptr, 0);
  for (auto end = std::chrono::steady_clock::now() + kGenerousBound;
       process_exists(clang) && std::chrono::steady_clock::now() < end;)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_FALSE(process_exists(clang)) << "clang (pid " << clang << ") still runs for a client that has gone";

  // The server serves the next client, whose builds are not cancelled.
  const pid_t next = start_client(kSmallSource);
  ASSERT_GT(next, 0);
  int status = 0;
  ASSERT_EQ(waitpid(next, &status, 0), next);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace gsvirt::icd::test
