// Hostile guests against vcomp on the gsgpu executor (issue 12): contexts of one process are
// isolated from each other (point 9), and a guest's GPU time is bounded per dispatch, per context,
// and ends with its context (point 6). docs/security.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "gsgpu/cl/printf.h"
#include "gsgpu/compiler/frontend.h"
#include "host/vcomp/gsgpu_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

constexpr char kSource[] = R"(
// Writes a marker `delta` words away from its own buffer: a guest guessing where another context's
// buffer lies.
__kernel void poke(__global uint* own, long delta) {
  own[delta] = 0x41414141u;
}
// Each work-item spins `n` times: every warp stays far below the watchdog, the dispatch as a whole
// runs for hours.
__kernel void spin(__global uint* out, uint n) {
  uint acc = get_global_id(0);
  for (uint i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
  if (acc == 7u) out[0] = acc;
}
__kernel void one(__global uint* out) { out[get_global_id(0)] = 1u; }
__kernel void chatty(void) { printf("0123456789abcdef\n"); }
)";

// One guest context's OpenCL job on a harness: context, queue, program.
struct Job {
  Harness& h;
  uint64_t device = 0, context = 0, queue = 0, program = 0;

  explicit Job(Harness& harness) : h(harness) {}

  void set_up() {
    context = h.make_context(&device);
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    queue = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  void build() {
    program = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context, kSource); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
    h.send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device, 1, ""); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  // A program from `source`; its create result.
  int32_t program_from(const std::string& source, uint64_t* id) {
    *id = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, *id, context, source); });
    return h.last_result();
  }
  void destroy(uint64_t id) {
    h.send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, false, id); });
  }
  uint64_t buffer(size_t size) {
    uint64_t id = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, id, context, CL_MEM_READ_WRITE, size, {}); });
    EXPECT_EQ(h.last_result(), CL_SUCCESS);
    return id;
  }
  uint64_t kernel(const char* name) {
    uint64_t id = h.next_id();
    h.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, id, program, name); });
    EXPECT_EQ(h.last_result(), CL_SUCCESS);
    return id;
  }
  void set_mem(uint64_t k, uint32_t index, uint64_t mem) {
    h.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, k, index, 1, 8, mem, nullptr, 0); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  template <typename T>
  void set_value(uint64_t k, uint32_t index, T value) {
    h.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, k, index, 0, sizeof value, 0, &value, sizeof value); });
    ASSERT_EQ(h.last_result(), CL_SUCCESS);
  }
  // Enqueues `k` over `global` work-items; the enqueue's result.
  int32_t launch(uint64_t k, uint64_t global, uint64_t event = 0) {
    h.send([&](WireWriter& w) {
      proto::encode_clEnqueueNDRangeKernel(w, true, queue, k, 1, nullptr, 0, &global, 1, nullptr, 0, nullptr, 0, event);
    });
    return h.last_result();
  }
  int32_t finish() {
    h.send([&](WireWriter& w) { proto::encode_clFinish(w, true, queue); });
    return h.last_result();
  }
  // Reads `size` bytes of `mem` into the staging resource; the read's result.
  int32_t read(uint64_t mem, size_t size) {
    proto::DataOut dst{proto::kDataResource, size, Harness::kStagingResource, 0};
    h.send([&](WireWriter& w) { proto::encode_clEnqueueReadBuffer(w, true, queue, mem, 0, size, nullptr, 0, 0, dst); });
    return h.last_result();
  }
  // CL_EVENT_COMMAND_EXECUTION_STATUS of a guest event.
  cl_int event_status(uint64_t event) {
    proto::DataOut out{proto::kDataInline, sizeof(cl_int)};
    h.send([&](WireWriter& w) {
      proto::encode_clGetEventInfo(w, true, event, CL_EVENT_COMMAND_EXECUTION_STATUS, out);
    });
    proto::Reply_clGetEventInfo reply;
    WireReader r = h.payload();
    EXPECT_TRUE(proto::decode_reply_clGetEventInfo(r, &reply));
    EXPECT_EQ(reply.result, CL_SUCCESS);
    cl_int status = 1;
    if (reply.value_size == sizeof status) std::memcpy(&status, reply.value, sizeof status);
    return status;
  }
};

class GsgpuHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
  }
  // The process's shared executor as vcomp creates it, configured from the environment `vars`
  // (so that a tree without the variables runs the same test unbounded).
  static std::unique_ptr<Executor> executor_from_env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto [name, value] : vars) setenv(name, value, 1);
    GsgpuExecutorConfig config = gsgpu_config_from_env();
    for (auto [name, value] : vars) unsetenv(name);
    config.shader_cores = 2;
    config.vram_mb = 32;
    std::string error;
    auto executor = make_gsgpu_executor(config, &error);
    EXPECT_NE(executor, nullptr) << error;
    return executor;
  }
};

// Point 9: a kernel of context A writes at addresses near its own buffer, where context B's buffer
// lay when every context of a process shared one GPU address space (B's buffer was created right
// after A's). B's data stays untouched: each context has its own address space.
TEST_F(GsgpuHostileTest, Issue12KernelOfOneContextCannotReachAnotherContextsBuffer) {
  auto executor = executor_from_env({});
  ASSERT_NE(executor, nullptr);
  Harness ha(executor.get(), 1, 1 << 16), hb(executor.get(), 2, 1 << 16);
  Job a(ha), b(hb);
  ASSERT_NO_FATAL_FAILURE(a.set_up());
  ASSERT_NO_FATAL_FAILURE(b.set_up());
  constexpr size_t kPage = 4096, kVictimBytes = 16 * kPage;
  const uint64_t own = a.buffer(kPage);
  const uint64_t victim = b.buffer(kVictimBytes);
  ASSERT_NO_FATAL_FAILURE(a.build());
  const uint64_t poke = a.kernel("poke");
  ASSERT_NO_FATAL_FAILURE(a.set_mem(poke, 0, own));
  // Every page up to 32 pages past A's buffer, and the ones before it: a fault is fine (the
  // dispatch fails), reaching B is not.
  for (int64_t page = -8; page <= 32; ++page) {
    if (page == 0) continue;
    ASSERT_NO_FATAL_FAILURE(a.set_value<int64_t>(poke, 1, page * int64_t(kPage / 4)));
    ASSERT_EQ(a.launch(poke, 1), CL_SUCCESS);
    a.finish();
  }
  ASSERT_EQ(b.read(victim, kVictimBytes), CL_SUCCESS);
  const std::vector<uint8_t> zeros(kVictimBytes, 0);
  EXPECT_EQ(std::memcmp(hb.staging().data(), zeros.data(), kVictimBytes), 0) << "context A wrote into B's buffer";
}

// Point 6: one dispatch of many warps, each far below the watchdog, runs for hours without a
// budget. With GSGPU_DISPATCH_TIME_MS it is stopped, its event fails with CL_OUT_OF_RESOURCES and
// the context stays usable.
TEST_F(GsgpuHostileTest, Issue12DispatchOfManyShortWarpsIsStoppedByItsTimeBudget) {
  auto executor = executor_from_env({{"GSGPU_DISPATCH_TIME_MS", "200"}});
  ASSERT_NE(executor, nullptr);
  Harness h(executor.get(), 1, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  ASSERT_NO_FATAL_FAILURE(job.build());
  const uint64_t out = job.buffer(4096);
  const uint64_t spin = job.kernel("spin");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(spin, 0, out));
  ASSERT_NO_FATAL_FAILURE(job.set_value<uint32_t>(spin, 1, 20000));
  const uint64_t event = h.next_id();
  ASSERT_EQ(job.launch(spin, uint64_t{1} << 24, event), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_OUT_OF_RESOURCES);
  EXPECT_EQ(job.event_status(event), CL_OUT_OF_RESOURCES);
  // Still usable.
  const uint64_t one = job.kernel("one");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(one, 0, out));
  ASSERT_EQ(job.launch(one, 64), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_SUCCESS);
}

// Point 6: launches that each stay within the dispatch budget add up against the context's
// budget (GSGPU_CLIENT_TIME_S): once it is spent the running one is stopped and later launches
// fail without running; host-side commands still work and the context can be released.
TEST_F(GsgpuHostileTest, Issue12ContextTimeBudgetBoundsManyLaunches) {
  auto executor = executor_from_env({{"GSGPU_DISPATCH_TIME_MS", "60000"}, {"GSGPU_CLIENT_TIME_S", "1"}});
  ASSERT_NE(executor, nullptr);
  Harness h(executor.get(), 1, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  ASSERT_NO_FATAL_FAILURE(job.build());
  const uint64_t out = job.buffer(4096);
  const uint64_t spin = job.kernel("spin");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(spin, 0, out));
  ASSERT_NO_FATAL_FAILURE(job.set_value<uint32_t>(spin, 1, 20000));
  // Launches of about a quarter of a second each (less on a fast machine) until the context's
  // second is spent: a bounded number, whatever the machine's speed.
  int32_t finished = CL_SUCCESS;
  int launches = 0;
  for (; launches < 400 && finished == CL_SUCCESS; ++launches) {
    ASSERT_EQ(job.launch(spin, 1024), CL_SUCCESS);
    finished = job.finish();
  }
  EXPECT_EQ(finished, CL_OUT_OF_RESOURCES) << "still running after " << launches << " launches";
  // Spent: even the smallest launch fails now; reading a buffer still works.
  const uint64_t one = job.kernel("one");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(one, 0, out));
  ASSERT_EQ(job.launch(one, 1), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_OUT_OF_RESOURCES);
  EXPECT_EQ(job.read(out, 4096), CL_SUCCESS);
}

// Point 6: a guest that leaves (its vcomp context is destroyed) while an hours-long dispatch runs:
// the dispatch is cancelled (destroying the context returns), and a later guest's work runs.
TEST_F(GsgpuHostileTest, Issue12DispatchEndsWhenItsContextIsDestroyed) {
  auto executor = executor_from_env({});
  ASSERT_NE(executor, nullptr);
  {
    Harness h(executor.get(), 1, 1 << 16);
    Job job(h);
    ASSERT_NO_FATAL_FAILURE(job.set_up());
    ASSERT_NO_FATAL_FAILURE(job.build());
    const uint64_t out = job.buffer(4096);
    const uint64_t spin = job.kernel("spin");
    ASSERT_NO_FATAL_FAILURE(job.set_mem(spin, 0, out));
    ASSERT_NO_FATAL_FAILURE(job.set_value<uint32_t>(spin, 1, 20000));
    ASSERT_EQ(job.launch(spin, uint64_t{1} << 24), CL_SUCCESS);
    ASSERT_EQ(job.launch(spin, uint64_t{1} << 24), CL_SUCCESS);
  }  // the guest leaves without waiting
  Harness h(executor.get(), 2, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  ASSERT_NO_FATAL_FAILURE(job.build());
  const uint64_t out = job.buffer(256);
  const uint64_t one = job.kernel("one");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(one, 0, out));
  ASSERT_EQ(job.launch(one, 64), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_SUCCESS);
  ASSERT_EQ(job.read(out, 256), CL_SUCCESS);
  uint32_t first = 0;
  std::memcpy(&first, h.staging().data(), 4);
  EXPECT_EQ(first, 1u);
}

// Point 7: one header program named 256 times is 256 copies (in memory and in the compiler's header
// folder); they count against the context's program quota before any is written.
TEST_F(GsgpuHostileTest, Issue12EmbeddedHeaderNamedManyTimesIsRefusedByTheProgramQuota) {
  auto executor = executor_from_env({{"GSGPU_PROGRAM_QUOTA_KB", "2048"}});
  ASSERT_NE(executor, nullptr);
  Harness h(executor.get(), 1, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  uint64_t header = 0, main = 0;
  ASSERT_EQ(job.program_from("// " + std::string(64 << 10, 'x') + "\n#define ANSWER 42\n", &header), CL_SUCCESS);
  ASSERT_EQ(job.program_from("#include \"h0.h\"\n__kernel void k(__global int* p) { *p = ANSWER; }\n", &main),
            CL_SUCCESS);
  std::vector<uint64_t> headers(256, header);
  std::vector<std::string> names;
  for (int i = 0; i < 256; ++i) names.push_back("h" + std::to_string(i) + ".h");
  std::vector<std::string_view> name_views(names.begin(), names.end());
  h.send([&](WireWriter& w) {
    proto::encode_clCompileProgram(w, true, main, &job.device, 1, "", headers.data(), headers.size(), name_views.data(),
                                   name_views.size());
  });
  EXPECT_EQ(h.last_result(), CL_OUT_OF_HOST_MEMORY);
  // Named once it fits.
  h.send([&](WireWriter& w) {
    proto::encode_clCompileProgram(w, true, main, &job.device, 1, "", headers.data(), 1, name_views.data(), 1);
  });
  EXPECT_EQ(h.last_result(), CL_SUCCESS);
}

// Point 7: program sources count against the context's program quota while their programs live.
TEST_F(GsgpuHostileTest, Issue12ProgramSourcesAreBoundedByTheProgramQuota) {
  auto executor = executor_from_env({{"GSGPU_PROGRAM_QUOTA_KB", "1024"}});
  ASSERT_NE(executor, nullptr);
  Harness h(executor.get(), 1, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  const std::string big = "// " + std::string(600 << 10, 'y') + "\n";
  uint64_t first = 0, second = 0, third = 0;
  ASSERT_EQ(job.program_from(big, &first), CL_SUCCESS);
  EXPECT_EQ(job.program_from(big, &second), CL_OUT_OF_HOST_MEMORY);
  job.destroy(first);  // its bytes are given back
  EXPECT_EQ(job.program_from(big, &third), CL_SUCCESS);
}

// Point 7: launches queued behind a user event hold their arguments; a context cannot pile up
// more than its launch argument quota.
TEST_F(GsgpuHostileTest, Issue12QueuedLaunchArgumentsAreBoundedPerContext) {
  auto executor = executor_from_env({{"GSGPU_ARG_QUOTA_KB", "64"}});
  ASSERT_NE(executor, nullptr);
  Harness h(executor.get(), 1, 1 << 16);
  Job job(h);
  ASSERT_NO_FATAL_FAILURE(job.set_up());
  ASSERT_NO_FATAL_FAILURE(job.build());
  const uint64_t out = job.buffer(4096);
  const uint64_t one = job.kernel("one");
  ASSERT_NO_FATAL_FAILURE(job.set_mem(one, 0, out));
  const uint64_t gate = h.next_id();
  h.send([&](WireWriter& w) { proto::encode_clCreateUserEvent(w, true, gate, job.context); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  int32_t result = CL_SUCCESS;
  int queued = 0;
  for (; queued < 2000 && result == CL_SUCCESS; ++queued) {
    uint64_t global = 1;
    h.send([&](WireWriter& w) {
      proto::encode_clEnqueueNDRangeKernel(w, true, job.queue, one, 1, nullptr, 0, &global, 1, nullptr, 0, &gate, 1, 0);
    });
    result = h.last_result();
  }
  EXPECT_EQ(result, CL_OUT_OF_HOST_MEMORY) << queued << " launches queued";
  h.send([&](WireWriter& w) { proto::encode_clSetUserEventStatus(w, true, gate, CL_COMPLETE); });
  ASSERT_EQ(h.last_result(), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_SUCCESS);
  // Retired launches gave their bytes back.
  EXPECT_EQ(job.launch(one, 64), CL_SUCCESS);
  EXPECT_EQ(job.finish(), CL_SUCCESS);
}

// Point 7: kernel printf output is bounded per context: past GSGPU_PRINTF_QUOTA_KB it is dropped.
TEST_F(GsgpuHostileTest, Issue12PrintfOutputIsBoundedPerContext) {
  auto executor = executor_from_env({{"GSGPU_PRINTF_QUOTA_KB", "1"}});
  ASSERT_NE(executor, nullptr);
  FILE* sink = std::tmpfile();
  ASSERT_NE(sink, nullptr);
  gsgpu::cl::set_printf_output(sink);
  {
    Harness h(executor.get(), 1, 1 << 16);
    Job job(h);
    ASSERT_NO_FATAL_FAILURE(job.set_up());
    ASSERT_NO_FATAL_FAILURE(job.build());
    const uint64_t chatty = job.kernel("chatty");
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(job.launch(chatty, 1000), CL_SUCCESS);
      EXPECT_EQ(job.finish(), CL_SUCCESS);
    }
  }
  gsgpu::cl::set_printf_output(nullptr);
  std::fseek(sink, 0, SEEK_END);
  const long printed = std::ftell(sink);
  std::fclose(sink);
  EXPECT_LE(printed, 1024) << "4 x 17000 bytes asked";
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
