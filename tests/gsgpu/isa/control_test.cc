// SIMT control flow: divergence and reconvergence, loops with early exits, uniform branches, lanes
// that end early, barriers across the warps of a group, special registers.
#include <gtest/gtest.h>

#include "gsgpu/isa/encoder.h"
#include "tests/gsgpu/isa/kernel_harness.h"

namespace gsgpu::testing {
namespace {

// Stores v<value_reg> as a 32-bit word at out[global_id_x], out being argument 0.
std::string store_result(int value_reg) {
  return "  s_special s[0:1], arg_ptr\n"
         "  s_load_b64 s[2:3], s[0:1], 0\n"
         "  v_special v[60:61], global_id_x\n"
         "  v_shl_b64 v[60:61], v[60:61], 2\n"
         "  v_add_u64 v[60:61], v[60:61], s[2:3]\n"
         "  global_store_b32 v[60:61], v" + std::to_string(value_reg) + ", 0\n";
}

std::vector<uint32_t> run_per_item(const std::string& kernel, uint32_t groups, uint32_t group_size,
                                   uint32_t warp_width, DispatchResult* result_out = nullptr,
                                   uint32_t fill = 0xdeadbeef) {
  FlatMemory memory(0x40000, 4 << 20);
  ShaderConfig config;
  config.warp_width = warp_width;
  config.num_cores = 3;
  config.host_threads = 2;
  ShaderCores cores(config);
  DispatchParams p = linear_dispatch(groups, group_size);
  load_kernel(memory, kernel, &p);
  const uint32_t items = groups * group_size;
  const uint64_t out = memory.upload(std::vector<uint32_t>(items, fill));
  set_args(memory, {out}, &p);
  DispatchResult r = run_ok(cores, memory, p);
  if (result_out) *result_out = r;
  return memory.download<uint32_t>(out, items);
}

const char* kNestedIfElse =
    "  v_special v0, local_id_x\n"
    "  v_and_b32 v1, v0, 1\n"
    "  v_branch_z v1, else_outer, end_outer\n"
    "  v_and_b32 v2, v0, 2\n"
    "  v_branch_z v2, else_a, end_a\n"
    "  v_mov_b32 v3, 1\n"
    "  s_jump end_a\n"
    "else_a:\n"
    "  v_mov_b32 v3, 2\n"
    "end_a:\n"
    "  v_add_u32 v3, v3, 100\n"  // runs for every odd lane after the inner if/else rejoins
    "  s_jump end_outer\n"
    "else_outer:\n"
    "  v_and_b32 v2, v0, 4\n"
    "  v_branch_z v2, else_b, end_outer\n"  // reconverges where the outer if does
    "  v_mov_b32 v3, 3\n"
    "  s_jump end_outer\n"
    "else_b:\n"
    "  v_mov_b32 v3, 4\n"
    "end_outer:\n"
    "  v_add_u32 v3, v3, 10\n";

uint32_t nested_reference(uint32_t x) {
  uint32_t r;
  if (x & 1) {
    r = (x & 2) ? 1 : 2;
    r += 100;
  } else {
    r = (x & 4) ? 3 : 4;
  }
  return r + 10;
}

class WarpWidths : public ::testing::TestWithParam<uint32_t> {};

TEST_P(WarpWidths, NestedDivergenceReconverges) {
  const uint32_t group_size = 100;  // not a multiple of most widths: a partial last warp
  DispatchResult result;
  auto got = run_per_item(std::string(kNestedIfElse) + store_result(3) + "  s_end\n", 5, group_size, GetParam(),
                          &result);
  for (uint32_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], nested_reference(i % group_size)) << i;
  EXPECT_EQ(result.counters.work_groups, 5u);
}

INSTANTIATE_TEST_SUITE_P(Shader, WarpWidths, ::testing::Values(1u, 7u, 32u, 64u));

TEST(Divergence, ReconvergedCodeRunsOnceWithAllLanes) {
  // One warp of 32: after the if/else the add must execute once, with 32 lanes active.
  DispatchResult result;
  const std::string kernel =
      "  v_special v0, local_id_x\n"
      "  v_and_b32 v1, v0, 1\n"
      "  v_branch_nz v1, odd, join\n"
      "  v_mov_b32 v2, 5\n"
      "  s_jump join\n"
      "odd:\n"
      "  v_mov_b32 v2, 7\n"
      "join:\n"
      "  s_end\n";
  run_per_item(kernel, 1, 32, 32, &result);
  // special, and, branch, (mov, jump: 16 lanes), (mov: 16 lanes), end = 7 instructions
  EXPECT_EQ(result.counters.instructions_issued, 7u);
  EXPECT_EQ(result.counters.active_lane_instructions, 32u * 3 + 16u * 3 + 32u);
}

TEST(Divergence, LoopWithBreaksFromNestedDivergentIfs) {
  // for (i = 0; i < n; ++i) { if (i == k) { if (odd) break; sum += 100; } sum += i; }
  const std::string kernel =
      "  v_special v0, local_id_x\n"
      "  v_mov_b32 v1, 0\n"         // i
      "  v_mov_b32 v2, 0\n"         // sum
      "  v_rem_u32 v3, v0, 7\n"
      "  v_add_u32 v3, v3, 1\n"     // n = x % 7 + 1
      "  v_rem_u32 v4, v0, 5\n"     // k = x % 5
      "  v_and_b32 v5, v0, 1\n"     // odd
      "loop:\n"
      "  v_cmp_ge_u32 v6, v1, v3\n"
      "  v_branch_nz v6, exit, exit\n"
      "  v_cmp_eq_u32 v6, v1, v4\n"
      "  v_branch_z v6, cont, exit\n"  // the body may break: its post-dominator is the exit
      "  v_branch_nz v5, exit, exit\n"
      "  v_add_u32 v2, v2, 100\n"
      "cont:\n"
      "  v_add_u32 v2, v2, v1\n"
      "  v_add_u32 v1, v1, 1\n"
      "  s_jump loop\n"
      "exit:\n"
      "  v_mul_lo_u32 v7, v1, 1000\n"
      "  v_add_u32 v7, v7, v2\n" +
      store_result(7) + "  s_end\n";
  for (uint32_t width : {32u, 8u}) {
    auto got = run_per_item(kernel, 3, 64, width);
    for (uint32_t item = 0; item < got.size(); ++item) {
      const uint32_t x = item % 64, n = x % 7 + 1, k = x % 5;
      uint32_t i = 0, sum = 0;
      for (; i < n; ++i) {
        if (i == k) {
          if (x & 1) break;
          sum += 100;
        }
        sum += i;
      }
      EXPECT_EQ(got[item], i * 1000 + sum) << "item " << item << " width " << width;
    }
  }
}

TEST(Divergence, UniformScalarLoop) {
  const std::string kernel =
      "  v_mov_b32 v1, 0\n"
      "  s_mov_b32 s10, 0\n"
      "top:\n"
      "  v_add_u32 v1, v1, 2\n"
      "  s_add_u32 s10, s10, 1\n"
      "  s_cmp_lt_u32 s11, s10, 5\n"
      "  s_cbranch_nz s11, top\n"
      "  s_cmp_eq_u32 s11, s10, 5\n"
      "  s_cbranch_z s11, skip\n"
      "  v_add_u32 v1, v1, 1\n"
      "skip:\n" +
      store_result(1) + "  s_end\n";
  for (uint32_t v : run_per_item(kernel, 2, 40, 32)) EXPECT_EQ(v, 11u);
}

TEST(Divergence, LanesThatEndEarlyLeaveTheOthersRunning) {
  const std::string kernel =
      "  v_special v0, local_id_x\n"
      "  v_and_b32 v1, v0, 3\n"
      "  v_branch_nz v1, keep, keep\n"
      "  s_end\n"                      // lanes with x % 4 == 0 end here
      "keep:\n"
      "  v_mul_lo_u32 v2, v0, 3\n" +
      store_result(2) + "  s_end\n";
  auto got = run_per_item(kernel, 2, 64, 32);
  for (uint32_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], (i % 64) % 4 == 0 ? 0xdeadbeefu : (i % 64) * 3) << i;
}

TEST(Barrier, LocalMemoryReductionAcrossWarps) {
  const uint32_t group_size = 256, groups = 12;
  const std::string kernel =
      "  v_special v0, local_id_x\n"
      "  v_shl_b32 v1, v0, 2\n"
      "  v_add_u32 v2, v0, 1\n"
      "  local_store_b32 v1, v2, 0\n"
      "  s_barrier\n"
      "  s_mov_b32 s10, 128\n"
      "reduce:\n"
      "  v_cmp_lt_u32 v3, v0, s10\n"
      "  v_branch_z v3, skip, skip\n"
      "  v_shl_b32 v4, s10, 2\n"
      "  v_add_u32 v4, v1, v4\n"
      "  local_load_b32 v5, v4, 0\n"
      "  local_load_b32 v6, v1, 0\n"
      "  v_add_u32 v5, v5, v6\n"
      "  local_store_b32 v1, v5, 0\n"
      "skip:\n"
      "  s_barrier\n"
      "  s_shr_u32 s10, s10, 1\n"
      "  s_cbranch_nz s10, reduce\n"
      "  v_cmp_eq_u32 v3, v0, 0\n"
      "  v_branch_z v3, done, done\n"
      "  local_load_b32 v5, 0, 0\n"
      "  s_special s[0:1], arg_ptr\n"
      "  s_load_b64 s[2:3], s[0:1], 0\n"
      "  s_special s12, group_id_x\n"
      "  s_shl_b32 s12, s12, 2\n"
      "  s_zext_u64_u32 s[14:15], s12\n"
      "  s_add_u64 s[14:15], s[14:15], s[2:3]\n"
      "  global_store_b32 s[14:15], v5, 0\n"
      "done:\n"
      "  s_end\n";
  FlatMemory memory(0x40000, 1 << 20);
  ShaderCores cores(ShaderConfig{4, 32, 2});
  DispatchParams p = linear_dispatch(groups, group_size);
  p.local_mem_size = group_size * 4;
  load_kernel(memory, kernel, &p);
  const uint64_t out = memory.alloc(groups * 4);
  set_args(memory, {out}, &p);
  run_ok(cores, memory, p);
  for (uint32_t v : memory.download<uint32_t>(out, groups)) EXPECT_EQ(v, group_size * (group_size + 1) / 2);
}

TEST(Barrier, WarpsSeeEachOthersLocalWrites) {
  // Each item writes local[x], then reads its neighbour 37 places on (another warp's value).
  const std::string kernel =
      "  v_special v0, local_id_x\n"
      "  v_mul_lo_u32 v2, v0, 7\n"
      "  v_shl_b32 v1, v0, 2\n"
      "  local_store_b32 v1, v2, 0\n"
      "  s_barrier\n"
      "  v_add_u32 v3, v0, 37\n"
      "  v_rem_u32 v3, v3, 192\n"
      "  v_shl_b32 v3, v3, 2\n"
      "  local_load_b32 v4, v3, 0\n" +
      store_result(4) + "  s_end\n";
  FlatMemory memory(0x40000, 1 << 20);
  ShaderCores cores(ShaderConfig{2, 16, 2});
  DispatchParams p = linear_dispatch(4, 192);
  p.local_mem_size = 192 * 4;
  load_kernel(memory, kernel, &p);
  const uint64_t out = memory.alloc(4 * 192 * 4);
  set_args(memory, {out}, &p);
  run_ok(cores, memory, p);
  auto got = memory.download<uint32_t>(out, 4 * 192);
  for (uint32_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], ((i % 192 + 37) % 192) * 7) << i;
}

TEST(SpecialRegisters, IdsAndSizesIn3D) {
  // Each item stores 8 words: global id x/y/z (low halves), local id x/y/z, group id x, lane id.
  const std::string kernel =
      "  v_special v[0:1], global_id_x\n"
      "  v_special v[2:3], global_id_y\n"
      "  v_special v[4:5], global_id_z\n"
      "  v_special v6, local_id_x\n"
      "  v_special v7, local_id_y\n"
      "  v_special v8, local_id_z\n"
      "  v_special v9, group_id_x\n"
      "  v_special v10, lane_id\n"
      "  s_special s[20:21], global_size_x\n"
      "  s_special s[22:23], global_size_y\n"
      "  s_special s24, num_groups_z\n"
      "  s_special s25, local_size_y\n"
      // linear = ((gz - oz) * gsy + (gy - oy)) * gsx + (gx - ox)
      "  s_special s[26:27], global_offset_x\n"
      "  s_special s[28:29], global_offset_y\n"
      "  s_special s[30:31], global_offset_z\n"
      "  v_sub_u64 v[12:13], v[4:5], s[30:31]\n"
      "  v_mul_lo_u64 v[12:13], v[12:13], s[22:23]\n"
      "  v_sub_u64 v[14:15], v[2:3], s[28:29]\n"
      "  v_add_u64 v[12:13], v[12:13], v[14:15]\n"
      "  v_mul_lo_u64 v[12:13], v[12:13], s[20:21]\n"
      "  v_sub_u64 v[14:15], v[0:1], s[26:27]\n"
      "  v_add_u64 v[12:13], v[12:13], v[14:15]\n"
      "  v_shl_b64 v[12:13], v[12:13], 5\n"
      "  s_special s[0:1], arg_ptr\n"
      "  s_load_b64 s[2:3], s[0:1], 0\n"
      "  v_add_u64 v[12:13], v[12:13], s[2:3]\n"
      "  global_store_b32 v[12:13], v0, 0\n"
      "  global_store_b32 v[12:13], v2, 4\n"
      "  global_store_b32 v[12:13], v4, 8\n"
      "  global_store_b32 v[12:13], v6, 12\n"
      "  global_store_b32 v[12:13], v7, 16\n"
      "  global_store_b32 v[12:13], v8, 20\n"
      "  global_store_b32 v[12:13], v9, 24\n"
      "  v_add_u32 v11, s24, s25\n"
      "  global_store_b32 v[12:13], v11, 28\n"
      "  s_end\n";
  FlatMemory memory(0x40000, 1 << 20);
  ShaderCores cores(ShaderConfig{3, 8, 2});
  DispatchParams p;
  const uint32_t grid[3] = {3, 2, 2}, group[3] = {4, 3, 2};
  for (int d = 0; d < 3; ++d) {
    p.grid_size[d] = grid[d];
    p.group_size[d] = group[d];
    p.global_offset[d] = 1000 * (d + 1);
  }
  load_kernel(memory, kernel, &p);
  const uint32_t gsx = 12, gsy = 6, gsz = 4;
  const uint64_t out = memory.alloc(gsx * gsy * gsz * 32);
  set_args(memory, {out}, &p);
  run_ok(cores, memory, p);
  auto got = memory.download<uint32_t>(out, gsx * gsy * gsz * 8);
  for (uint32_t z = 0; z < gsz; ++z)
    for (uint32_t y = 0; y < gsy; ++y)
      for (uint32_t x = 0; x < gsx; ++x) {
        const uint32_t* rec = &got[((z * gsy + y) * gsx + x) * 8];
        EXPECT_EQ(rec[0], x + 1000);
        EXPECT_EQ(rec[1], y + 2000);
        EXPECT_EQ(rec[2], z + 3000);
        EXPECT_EQ(rec[3], x % 4);
        EXPECT_EQ(rec[4], y % 3);
        EXPECT_EQ(rec[5], z % 2);
        EXPECT_EQ(rec[6], x / 4);
        EXPECT_EQ(rec[7], 2u + 3u);
      }
}

TEST(Encoder, ProgrammaticKernelRuns) {
  // What a compiler emits without text: out[gid] = sum of 0..lane_id, a divergent loop.
  using isa::Opcode;
  using isa::sreg;
  using isa::vreg;
  isa::Encoder enc;
  auto loop = enc.new_label(), exit = enc.new_label();
  auto special = [&](Opcode op, uint16_t dst, isa::SpecialReg reg) {
    isa::Instruction inst;
    inst.opcode = op;
    inst.dst = dst;
    inst.imm = static_cast<int32_t>(reg);
    enc.emit(inst);
  };
  special(Opcode::v_special, vreg(0), isa::SpecialReg::kLaneId);
  enc.alu(Opcode::v_mov_b32, vreg(1), isa::kLiteralOperand, 0, 0, 0);  // i
  enc.alu(Opcode::v_mov_b32, vreg(2), isa::kLiteralOperand, 0, 0, 0);  // sum
  enc.bind(loop);
  enc.alu(Opcode::v_cmp_gt_u32, vreg(3), vreg(1), vreg(0));
  enc.branch(Opcode::v_branch_nz, vreg(3), exit, exit);
  enc.alu(Opcode::v_add_u32, vreg(2), vreg(2), vreg(1));
  enc.alu(Opcode::v_add_u32, vreg(1), vreg(1), isa::kLiteralOperand, 0, 1);
  enc.branch(Opcode::s_jump, 0, loop);
  enc.bind(exit);
  special(Opcode::s_special, sreg(0), isa::SpecialReg::kArgPtr);
  isa::Instruction load;
  load.opcode = Opcode::s_load_b64;
  load.dst = sreg(2);
  load.src[0] = sreg(0);
  enc.emit(load);
  special(Opcode::v_special, vreg(4), isa::SpecialReg::kGlobalIdX);
  enc.alu(Opcode::v_shl_b64, vreg(4), vreg(4), isa::kLiteralOperand, 0, 2);
  enc.alu(Opcode::v_add_u64, vreg(4), vreg(4), sreg(2));
  isa::Instruction store;
  store.opcode = Opcode::global_store_b32;
  store.src[0] = vreg(4);
  store.src[1] = vreg(2);
  enc.emit(store);
  isa::Instruction end;
  end.opcode = Opcode::s_end;
  enc.emit(end);
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(enc.finish(&words, &error)) << error;

  FlatMemory memory(0x40000, 1 << 20);
  ShaderCores cores(ShaderConfig{2, 32, 2});
  DispatchParams p = linear_dispatch(2, 64);
  p.code_va = memory.upload(words);
  p.code_size = static_cast<uint32_t>(words.size() * 4);
  const uint64_t out = memory.alloc(128 * 4);
  set_args(memory, {out}, &p);
  run_ok(cores, memory, p);
  auto got = memory.download<uint32_t>(out, 128);
  for (uint32_t i = 0; i < 128; ++i) {
    const uint32_t lane = i % 32;
    EXPECT_EQ(got[i], lane * (lane + 1) / 2) << i;
  }
}

}  // namespace
}  // namespace gsgpu::testing
