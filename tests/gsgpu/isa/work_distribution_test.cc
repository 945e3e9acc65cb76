// How work-groups are dealt to shader cores (docs/isa.md): chunks of consecutive groups, chunk k
// counting for core k % cores, whichever host thread runs it. The counters must follow that rule
// and must not depend on how many host threads run the cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "gsgpu/emu/shader/shader_core.h"
#include "tests/gsgpu/flat_memory.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu {
namespace {

using testing::FlatMemory;

// Group g's single warp runs 3 * g + 3 instructions (a scalar loop of g iterations), so the
// groups are of uneven length and each core's count says which groups it was given.
constexpr const char* kUnevenGroups =
    "  s_special s0, group_id_x\n"
    "loop:\n"
    "  s_cbranch_z s0, done\n"
    "  s_sub_u32 s0, s0, 1\n"
    "  s_jump loop\n"
    "done:\n"
    "  s_end\n";

uint64_t group_instructions(uint64_t g) { return 3 * g + 3; }

DispatchCounters run_uneven(uint32_t groups, uint32_t cores, uint32_t host_threads) {
  FlatMemory memory(0x100000, 1 << 16);
  DispatchParams p = testing::linear_dispatch(groups, 32);
  testing::load_kernel(memory, kUnevenGroups, &p);
  ShaderCores shader_cores(ShaderConfig{cores, 32, host_threads});
  return testing::run_ok(shader_cores, memory, p).counters;
}

// The documented rule, computed independently of the implementation.
uint64_t expected_cycles(uint64_t groups, uint32_t cores) {
  const uint64_t chunk = std::clamp<uint64_t>(groups / (uint64_t{cores} * 8), 1, 16);
  std::vector<uint64_t> per_core(cores, 0);
  for (uint64_t g = 0; g < groups; ++g) per_core[(g / chunk) % cores] += group_instructions(g);
  return *std::max_element(per_core.begin(), per_core.end());
}

TEST(WorkDistribution, CountersFollowTheChunkRuleWhateverTheHostThreads) {
  for (uint32_t groups : {1u, 5u, 50u, 333u, 1000u}) {
    for (uint32_t cores : {1u, 3u, 4u}) {
      uint64_t total = 0;
      for (uint64_t g = 0; g < groups; ++g) total += group_instructions(g);
      for (uint32_t threads : {1u, 2u, 3u}) {
        const DispatchCounters c = run_uneven(groups, cores, threads);
        SCOPED_TRACE(::testing::Message() << groups << " groups, " << cores << " cores, " << threads << " threads");
        EXPECT_EQ(c.work_groups, groups);
        EXPECT_EQ(c.instructions_issued, total);
        EXPECT_EQ(c.cycles, expected_cycles(groups, cores));
      }
    }
  }
}

// Fast mode's geometry thread dispatches small vertex batches (run on the calling thread) while its
// merge worker dispatches fragment batches (on the host thread pool): dispatches from two threads
// at once keep their own faults, watchdogs and counters. One thread's small dispatches each end in
// the watchdog while the other's large ones, running at the same time on the same cores, finish
// with the documented counters and no fault.
TEST(WorkDistribution, ConcurrentDispatchesKeepTheirOwnFaultsAndCounters) {
  FlatMemory memory(0x100000, 1 << 16);
  DispatchParams endless = testing::linear_dispatch(1, 32);
  testing::load_kernel(memory, "loop:\n  s_jump loop\n", &endless);
  endless.instruction_budget = 5000;
  DispatchParams uneven = testing::linear_dispatch(333, 32);
  testing::load_kernel(memory, kUnevenGroups, &uneven);
  uint64_t total = 0;
  for (uint64_t g = 0; g < 333; ++g) total += group_instructions(g);
  ShaderCores shader_cores(ShaderConfig{4, 32, 2});
  std::vector<DispatchResult> small(40), large(20);
  std::thread small_thread([&] {
    for (DispatchResult& r : small) r = shader_cores.run(endless, memory);
  });
  for (DispatchResult& r : large) r = shader_cores.run(uneven, memory);
  small_thread.join();
  for (const DispatchResult& r : small) {
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kWatchdog);
    EXPECT_EQ(r.counters.faults, 1u);
  }
  for (const DispatchResult& r : large) {
    EXPECT_FALSE(r.fault) << r.fault->message;
    EXPECT_EQ(r.counters.faults, 0u);
    EXPECT_EQ(r.counters.work_groups, 333u);
    EXPECT_EQ(r.counters.instructions_issued, total);
    EXPECT_EQ(r.counters.cycles, expected_cycles(333, 4));
  }
}

}  // namespace
}  // namespace gsgpu
