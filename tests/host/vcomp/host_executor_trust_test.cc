// The host executor and CPU OpenCL devices: a CPU device (PoCL) runs guest kernels as native code
// in the server process, so it is offered only when GSVIRT_TRUSTED_GUEST=1 says the guests are
// trusted. Each case runs in a fresh process: the executor is chosen once per process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "host/vcomp/executor.h"

namespace gsvirt::vcomp {
namespace {

enum Outcome { kNoPlatform = 10, kRefusedCpu, kOfferedCpu, kOfferedOther };

// host_executor() in a child process with GSVIRT_TRUSTED_GUEST set to `trusted` (or unset).
Outcome choose_executor(const char* trusted) {
  pid_t pid = fork();
  if (pid == 0) {
    if (trusted) setenv("GSVIRT_TRUSTED_GUEST", trusted, 1);
    else unsetenv("GSVIRT_TRUSTED_GUEST");
    std::string error;
    Executor* executor = host_executor(&error);
    if (!executor)
      _exit(error.find("offers CPU devices") != std::string::npos ? kRefusedCpu : kNoPlatform);
    cl_uint cpus = 0;
    executor->api().clGetDeviceIDs(executor->platform(), CL_DEVICE_TYPE_CPU, 0, nullptr, &cpus);
    _exit(cpus > 0 ? kOfferedCpu : kOfferedOther);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? Outcome(WEXITSTATUS(status)) : kNoPlatform;
}

TEST(HostExecutorTrust, Issue12CpuDevicesAreNotOfferedToUntrustedGuests) {
  Outcome untrusted = choose_executor(nullptr);
  EXPECT_NE(untrusted, kOfferedCpu) << "a CPU device was offered without GSVIRT_TRUSTED_GUEST";
  EXPECT_NE(choose_executor("0"), kOfferedCpu) << "only \"1\" opts in";
  EXPECT_NE(choose_executor("yes"), kOfferedCpu) << "only \"1\" opts in";
  if (untrusted != kRefusedCpu) GTEST_SKIP() << "no CPU OpenCL platform on this host";
  EXPECT_EQ(choose_executor("1"), kOfferedCpu) << "the explicit opt-in offers it";
}

}  // namespace
}  // namespace gsvirt::vcomp
