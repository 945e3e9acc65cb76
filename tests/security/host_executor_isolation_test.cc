// Issue 12 point 1: the host executor runs a guest's kernels through a vendor driver; on a CPU
// device (PoCL) a kernel is native code and a `__global` pointer a raw address. Wherever the
// renderer runs in a VMM's (or a test's) process, such a context runs in a context worker process
// (host/renderer/worker_context.h), so a kernel that writes to an address it was given as a
// `ulong` reaches the worker's memory at most, never the process that loaded the C API.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "host/vcomp/executor.h"
#include "tests/common/log_capture.h"
#include "tests/security/capi_vcomp_guest.h"

namespace gsvirt::security {
namespace {

constexpr uint64_t kSentinel = 0x5345'4e54'494e'454cull;  // "SENTINEL"
constexpr uint64_t kForged = 0x4841'434b'4544'2121ull;

// Never optimised into a register: the kernel's target.
volatile uint64_t g_sentinel = kSentinel;

const char* const kPokeSource =
    "__kernel void poke(ulong address, ulong value) {\n"
    "  *(__global ulong*)address = value;\n"
    "}\n";

class HostExecutorIsolation : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("GSVIRT_EXECUTOR", "host", 1);
    setenv("GSVIRT_TRUSTED_GUEST", "1", 1);  // PoCL is a CPU device: offered to trusted guests only
    std::string error;
    if (!vcomp::host_executor(&error)) GTEST_SKIP() << "no host OpenCL platform (PoCL): " << error;
    gsvirt_renderer_callbacks cb{GSVIRT_RENDERER_CALLBACKS_VERSION, nullptr};
    ASSERT_EQ(gsvirt_renderer_init(nullptr, 0, &cb), 0);
    initialised_ = true;
  }
  void TearDown() override {
    if (initialised_) gsvirt_renderer_cleanup(nullptr);
    unsetenv("GSVIRT_EXECUTOR");
    unsetenv("GSVIRT_TRUSTED_GUEST");
  }
  bool initialised_ = false;
};

// Builds `poke`, points it at this process's sentinel and runs it. What becomes of the worker
// (a crash on an unmapped address, or a write into its own memory) does not matter here.
void poke_sentinel(VcompGuest& g) {
  const uint64_t program = g.id(), kernel = g.id();
  g.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, g.context, kPokeSource); });
  ASSERT_EQ(g.result(), CL_SUCCESS);
  g.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &g.device, 1, ""); });
  ASSERT_EQ(g.result(), CL_SUCCESS);
  g.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, kernel, program, "poke"); });
  ASSERT_EQ(g.result(), CL_SUCCESS);
  const uint64_t args[2] = {reinterpret_cast<uintptr_t>(&g_sentinel), kForged};
  for (uint32_t i = 0; i < 2; ++i) {
    g.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, kernel, i, 0, 8, 0, &args[i], 8); });
    ASSERT_EQ(g.result(), CL_SUCCESS) << "argument " << i;
  }
  const uint64_t one = 1;
  g.send([&](WireWriter& w) {
    proto::encode_clEnqueueNDRangeKernel(w, false, g.queue, kernel, 1, nullptr, 0, &one, 1, nullptr, 0, nullptr, 0, 0);
    proto::encode_clFinish(w, true, g.queue);
  });
}

TEST_F(HostExecutorIsolation, Issue12GuestKernelCannotWriteTheRenderersMemory) {
  testing::LogCapture log;
  {
    VcompGuest g;
    g.open_queue();
    poke_sentinel(g);
    // Whatever the kernel did happened elsewhere: this process's memory is as it was.
    EXPECT_EQ(g_sentinel, kSentinel) << "a guest kernel wrote into the process that runs the renderer";
  }
  // The renderer goes on serving: a new context on the host executor works.
  VcompGuest again;
  again.open_queue();
  EXPECT_EQ(g_sentinel, kSentinel);
}

}  // namespace
}  // namespace gsvirt::security
