// Hostile kernels and dispatches end in reported faults, never in a crash or a hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "gsgpu/isa/isa.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::testing {
namespace {

struct Fixture {
  FlatMemory memory{0x10000, 1 << 20};
  ShaderCores cores{ShaderConfig{2, 32, 2}};
};

// Loads the kernel into the dispatch (so callers can see code_va) and runs it.
DispatchResult run_source(Fixture& f, const std::string& source, DispatchParams& p) {
  load_kernel(f.memory, source, &p);
  return f.cores.run(p, f.memory);
}
DispatchResult run_source(Fixture& f, const std::string& source) {
  DispatchParams p = linear_dispatch(4, 64);
  return run_source(f, source, p);
}

TEST(Faults, InfiniteLoopHitsTheWatchdog) {
  Fixture f;
  DispatchParams p = linear_dispatch(4, 64);
  p.instruction_budget = 10000;
  DispatchResult r = run_source(f, "  s_nop\nspin:\n  v_add_u32 v0, v0, 1\n  s_jump spin\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kWatchdog);
  EXPECT_GE(r.fault->pc, p.code_va);
  EXPECT_LT(r.fault->pc, p.code_va + p.code_size);
  EXPECT_GE(r.counters.instructions_issued, 10000u);
  EXPECT_NE(r.fault->message.find("10000"), std::string::npos) << r.fault->message;
}

TEST(Faults, DefaultBudgetAlsoStopsAnInfiniteLoop) {
  Fixture f;
  DispatchParams p = linear_dispatch(1, 1);
  DispatchResult r = run_source(f, "spin:\n  s_jump spin\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kWatchdog);
  EXPECT_EQ(r.counters.instructions_issued, kDefaultInstructionBudget);
}

TEST(Faults, DispatchBudgetStopsAHugeGrid) {
  Fixture f;
  DispatchParams p = linear_dispatch(4000000000u, 1);
  p.grid_size[1] = 1000;
  p.dispatch_instruction_budget = 100000;
  DispatchResult r = run_source(f, "  s_nop\n  s_end\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kWatchdog);
  EXPECT_GE(r.counters.instructions_issued, 100000u);
  EXPECT_LT(r.counters.instructions_issued, 100000u + 1000u);
}

TEST(Faults, JumpOutsideTheCode) {
  Fixture f;
  DispatchParams p = linear_dispatch(1, 32);
  DispatchResult r = run_source(f, "  s_nop\n  s_jump pc+4096\n  s_end\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kPcOutOfRange);
  EXPECT_EQ(r.fault->pc, p.code_va + 8);  // the jump itself

  Fixture g;
  r = run_source(g, "  s_jump pc-8\n  s_end\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kPcOutOfRange);
}

TEST(Faults, DivergentBranchWithReconvergenceOutsideTheCode) {
  Fixture f;
  DispatchResult r = run_source(f,
                                "  v_special v0, lane_id\n"
                                "  v_and_b32 v1, v0, 1\n"
                                "  v_branch_nz v1, there, pc+80000\n"
                                "there:\n"
                                "  s_end\n");
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kPcOutOfRange);
}

TEST(Faults, RunningOffTheEndOfTheCode) {
  Fixture f;
  DispatchParams p = linear_dispatch(1, 8);
  DispatchResult r = run_source(f, "  v_mov_b32 v0, 1\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kPcOutOfRange);
  EXPECT_EQ(r.fault->pc, p.code_va + p.code_size);
}

TEST(Faults, JumpIntoTheMiddleOfAnInstruction) {
  Fixture f;
  DispatchResult r = run_source(f, "  s_jump pc+12\n  v_mov_b32 v0, 0x12345\n  s_end\n");
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction);
}

TEST(Faults, UnknownOpcodeAndBadRegisterAreIllegal) {
  {
    Fixture f;
    DispatchResult r = run_source(f, "  .word 0x1ff, 0\n  s_end\n");  // opcode 511 does not exist
    ASSERT_TRUE(r.fault.has_value());
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction);
    EXPECT_NE(r.fault->message.find("unknown opcode"), std::string::npos) << r.fault->message;
  }
  {
    // v_add_u32 with source operand 400 (neither a register nor the literal marker).
    const uint64_t bits = static_cast<uint64_t>(isa::Opcode::v_add_u32) | (uint64_t{1} << 9) |
                          (uint64_t{400} << 18) | (uint64_t{2} << 27);
    Fixture f;
    DispatchResult r = run_source(f, "  .word " + std::to_string(uint32_t(bits)) + ", " +
                                         std::to_string(uint32_t(bits >> 32)) + "\n  s_end\n");
    ASSERT_TRUE(r.fault.has_value());
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction);
  }
}

TEST(Faults, IllegalWordsThatAreNeverExecutedAreHarmless) {
  Fixture f;
  DispatchResult r = run_source(f, "  s_jump over\n  .word 0xffffffff, 0xffffffff, 7\nover:\n  s_end\n");
  EXPECT_FALSE(r.fault.has_value());
}

TEST(Faults, RandomWordStreamsFaultButNeverCrash) {
  // Deterministic by default; --gtest_random_seed=N (or --gtest_shuffle with --gtest_repeat)
  // explores other streams.
  std::mt19937 rng(2024 + ::testing::UnitTest::GetInstance()->random_seed());
  int faulted = 0, finished = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<uint32_t> words(2 + rng() % 64);
    for (auto& w : words) {
      w = static_cast<uint32_t>(rng());
      // Bias towards real opcodes and register fields so that execution gets somewhere.
      if (rng() % 3 != 0) w = (w & ~0x1ffu) | (w % static_cast<uint32_t>(isa::kOpcodeCount));
    }
    FlatMemory memory(0x10000, 1 << 16);
    ShaderCores cores(ShaderConfig{2, 8, 1});
    DispatchParams p = linear_dispatch(2, 16);
    p.code_va = memory.upload(words);
    p.code_size = static_cast<uint32_t>(words.size() * 4);
    p.local_mem_size = 64;
    p.private_mem_size = 16;
    p.instruction_budget = 5000;
    set_args(memory, {memory.base(), memory.base() + 64}, &p);
    DispatchResult r = cores.run(p, memory);
    if (r.fault) {
      ++faulted;
      EXPECT_NE(r.fault->kind, ShaderFaultKind::kNone);
      EXPECT_NE(r.fault->kind, ShaderFaultKind::kBadDispatch);
    } else {
      ++finished;
    }
  }
  EXPECT_GT(faulted, 0);
}

TEST(Faults, BadDispatchesAreRejected) {
  Fixture f;
  DispatchParams good = linear_dispatch(1, 1);
  load_kernel(f.memory, "  s_end\n", &good);
  EXPECT_FALSE(f.cores.run(good, f.memory).fault.has_value());

  auto expect_bad = [&](DispatchParams p, ShaderFaultKind kind, const char* why) {
    DispatchResult r = f.cores.run(p, f.memory);
    ASSERT_TRUE(r.fault.has_value()) << why;
    EXPECT_EQ(r.fault->kind, kind) << why << ": " << r.fault->message;
  };
  DispatchParams p = good;
  p.grid_size[1] = 0;
  expect_bad(p, ShaderFaultKind::kBadDispatch, "zero grid");
  p = good;
  p.group_size[0] = 2048;
  expect_bad(p, ShaderFaultKind::kBadDispatch, "too many work-items per group");
  p = good;
  p.code_size = 0;
  expect_bad(p, ShaderFaultKind::kBadDispatch, "no code");
  p = good;
  p.local_mem_size = kMaxLocalMemSize + 1;
  expect_bad(p, ShaderFaultKind::kBadDispatch, "local memory too large");
  p = good;
  p.entry_offset = 64;
  expect_bad(p, ShaderFaultKind::kPcOutOfRange, "entry outside the code");
  p = good;
  p.code_va = 0x1000;  // below the mapping
  expect_bad(p, ShaderFaultKind::kMemory, "unmapped code");

  ShaderCores wide(ShaderConfig{1, 65, 1});
  DispatchResult r = wide.run(good, f.memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kBadDispatch);
}

TEST(Faults, FirstFaultStopsTheDispatch) {
  Fixture f;
  DispatchParams p = linear_dispatch(10000, 64);
  DispatchResult r = run_source(f, "  v_mov_b64 v[0:1], 8\n  global_load_b32 v2, v[0:1], 0\n  s_end\n", p);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kMemory);
  EXPECT_EQ(r.fault->memory.address, 8u);
  EXPECT_LT(r.counters.work_groups, 10000u);
  EXPECT_GE(r.counters.faults, 1u);
}

// ShaderConfig::cancel: the embedding program ends a running dispatch (gsgpu/drv's time budget).
TEST(Faults, CancelEndsARunningDispatch) {
  std::atomic<bool> cancel{false};
  FlatMemory memory{0x10000, 1 << 20};
  ShaderCores cores{ShaderConfig{2, 32, 2, HostSimd::kAuto, &cancel}};
  DispatchParams p = linear_dispatch(4, 64);
  p.instruction_budget = uint64_t{1} << 40;  // only the cancel can end it
  load_kernel(memory, "spin:\n  s_nop\n  s_jump spin\n", &p);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel.store(true);
  });
  DispatchResult r = cores.run(p, memory);
  canceller.join();
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kCancelled);
  EXPECT_EQ(r.counters.work_groups, 0u);
  EXPECT_GT(r.counters.instructions_issued, 0u);
  // While it stays set, the next dispatch is cancelled before any group runs.
  r = cores.run(p, memory);
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_EQ(r.fault->kind, ShaderFaultKind::kCancelled);
  EXPECT_EQ(r.counters.instructions_issued, 0u);
  // Cleared: dispatches run again.
  cancel.store(false);
  DispatchParams q = linear_dispatch(3, 64);
  load_kernel(memory, "  s_end\n", &q);
  r = cores.run(q, memory);
  EXPECT_FALSE(r.fault.has_value());
  EXPECT_EQ(r.counters.work_groups, 3u);
}

TEST(Counters, InstructionsLanesCyclesAndGroups) {
  Fixture f;  // 2 cores, warp width 32
  DispatchParams p = linear_dispatch(5, 48);  // 2 warps per group: 32 + 16 lanes
  DispatchResult r = run_source(f, "  v_mov_b32 v0, 1\n  v_add_u32 v0, v0, 1\n  s_end\n", p);
  ASSERT_FALSE(r.fault.has_value());
  EXPECT_EQ(r.counters.work_groups, 5u);
  EXPECT_EQ(r.counters.instructions_issued, 5u * 2 * 3);
  EXPECT_EQ(r.counters.active_lane_instructions, 5u * 48 * 3);
  EXPECT_EQ(r.counters.cycles, 3u * 2 * 3);  // core 0 runs groups 0, 2, 4
  EXPECT_EQ(r.counters.faults, 0u);
}

TEST(ShaderFaultNames, AreDistinct) {
  EXPECT_STREQ(shader_fault_name(ShaderFaultKind::kWatchdog), "watchdog");
  EXPECT_STREQ(shader_fault_name(ShaderFaultKind::kPcOutOfRange), "pc-out-of-range");
}

}  // namespace
}  // namespace gsgpu::testing
