#include "e2e_fixture.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace gsvirt::icd::test {
namespace {

pid_t g_server = -1;

// Runs at exit, after the ICD has sent its last batched commands (atexit order is LIFO and this
// is registered before the ICD opens its connection).
void stop_server() {
  if (g_server <= 0) return;
  kill(g_server, SIGTERM);
  waitpid(g_server, nullptr, 0);
}

// Starts gsvirt-server on a fresh socket and waits until it accepts clients (--ready-fd).
void start_server_if_asked() {
  const char* server = std::getenv("GSVIRT_TEST_SERVER");
  if (!server || !*server) return;
  std::string socket_path = "/tmp/gsvirt-icd-test-" + std::to_string(getpid()) + ".sock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  g_server = fork();
  ASSERT_GE(g_server, 0);
  if (g_server == 0) {
    // If the test process dies (a sanitizer abort), the server must not outlive it holding the
    // test's output pipe open, which would turn a failure into a time-out.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    close(ready[0]);
    std::string fd = std::to_string(ready[1]);
    std::vector<std::string> args = {server, "--socket", socket_path, "--ready-fd", fd};
    // GSVIRT_TEST_SERVER_ARGS: more options, separated by spaces (a test's server limits).
    std::istringstream extra(std::getenv("GSVIRT_TEST_SERVER_ARGS") ? std::getenv("GSVIRT_TEST_SERVER_ARGS") : "");
    for (std::string word; extra >> word;) args.push_back(word);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(server, argv.data());
    _exit(127);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "gsvirt-server did not become ready";
  close(ready[0]);
  std::atexit(stop_server);
  setenv("GSVIRT_TRANSPORT", "vtest", 1);
  setenv("GSVIRT_VTEST_SOCKET", socket_path.c_str(), 1);
}

ClEnvironment* g_env = nullptr;

class Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    start_server_if_asked();
    auto* env = new ClEnvironment;
    cl_uint n = 0;
    ASSERT_EQ(clGetPlatformIDs(1, &env->platform, &n), CL_SUCCESS);
    ASSERT_EQ(n, 1u) << "OCL_ICD_VENDORS should name only the gsvirt ICD";
    ASSERT_EQ(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, nullptr), CL_SUCCESS);
    cl_int err = CL_SUCCESS;
    env->context = clCreateContext(nullptr, 1, &env->device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    g_env = env;
  }
  void TearDown() override {
    if (g_env) {
      EXPECT_EQ(clReleaseCommandQueue(g_env->queue), CL_SUCCESS);
      EXPECT_EQ(clReleaseContext(g_env->context), CL_SUCCESS);
    }
  }
};

[[maybe_unused]] auto* const g_registered = ::testing::AddGlobalTestEnvironment(new Environment);

}  // namespace

const ClEnvironment& cl_env() { return *g_env; }

std::string build_log(cl_program program) {
  size_t size = 0;
  clGetProgramBuildInfo(program, cl_env().device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, cl_env().device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

cl_program build_program(const char* source, const char* options) {
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(cl_env().context, 1, &source, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  err = clBuildProgram(program, 1, &cl_env().device, options, nullptr, nullptr);
  EXPECT_EQ(err, CL_SUCCESS) << build_log(program);
  return program;
}

bool sync_mode() {
  const char* v = std::getenv("GSVIRT_SYNC");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace gsvirt::icd::test
