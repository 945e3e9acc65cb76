// Register allocation of quads (128-bit virtual registers: the coordinates and texels of image
// instructions, docs/isa.md section 8b): a quad gets v[4n:4n+3], its channels are written one at a
// time (MOperand::channel_of) and stay live together, and under register pressure a spilled quad
// keeps the channels written before a later channel write. Machine IR built by hand, allocated,
// encoded and run on the shader cores.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gsgpu/compiler/cfg.h"
#include "gsgpu/compiler/emit.h"
#include "gsgpu/compiler/machine_ir.h"
#include "gsgpu/compiler/regalloc.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::compiler {
namespace {

using isa::Opcode;

MInst inst(Opcode op, MOperand dst, MOperand a = {}, MOperand b = {}, MOperand c = {}, int32_t imm = 0) {
  MInst m;
  m.opcode = op;
  m.dst = dst;
  m.src[0] = a;
  m.src[1] = b;
  m.src[2] = c;
  m.imm = imm;
  return m;
}

constexpr uint32_t kQuads = 6;

// out[lane] = sum over quads k and channels c of (lane + 16k + c), every channel written in
// channel-major order (all quads' channel 0, then channel 1, ...) so all quads are live and half
// written at once, then read back in reverse.
MFunction quad_kernel() {
  MFunction f;
  f.entry = f.exit = f.new_block("entry");
  std::vector<MInst>& code = f.blocks[0].insts;
  const uint32_t lane = f.new_vreg(32);
  code.push_back(inst(Opcode::v_special, MOperand::vreg(lane), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kLocalIdX)));
  std::vector<uint32_t> quads;
  for (uint32_t k = 0; k < kQuads; ++k) quads.push_back(f.new_vreg(128));
  for (uint32_t c = 0; c < 4; ++c)
    for (uint32_t k = 0; k < kQuads; ++k)
      code.push_back(inst(Opcode::v_add_u32, MOperand::channel_of(quads[k], c), MOperand::vreg(lane),
                          MOperand::literal(16 * k + c)));
  uint32_t sum = f.new_vreg(32);
  code.push_back(inst(Opcode::v_mov_b32, MOperand::vreg(sum), MOperand::literal(0)));
  for (uint32_t k = kQuads; k-- > 0;)
    for (uint32_t c = 0; c < 4; ++c) {
      const uint32_t next = f.new_vreg(32);
      code.push_back(inst(Opcode::v_add_u32, MOperand::vreg(next), MOperand::vreg(sum), MOperand::channel_of(quads[k], c)));
      sum = next;
    }
  // out = *(arg_ptr + 0) + lane * 4
  code.push_back(inst(Opcode::s_special, MOperand::raw(isa::sreg(0)), {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr)));
  code.push_back(inst(Opcode::s_load_b64, MOperand::raw(isa::sreg(2)), MOperand::raw(isa::sreg(0))));
  const uint32_t offset = f.new_vreg(32), offset64 = f.new_vreg(64), address = f.new_vreg(64);
  code.push_back(inst(Opcode::v_shl_b32, MOperand::vreg(offset), MOperand::vreg(lane), MOperand::literal(2)));
  code.push_back(inst(Opcode::v_zext_u64_u32, MOperand::vreg(offset64), MOperand::vreg(offset)));
  code.push_back(inst(Opcode::v_add_u64, MOperand::vreg(address), MOperand::vreg(offset64), MOperand::raw(isa::sreg(2))));
  code.push_back(inst(Opcode::global_store_b32, {}, MOperand::vreg(address), MOperand::vreg(sum)));
  f.blocks[0].term.kind = MTerminator::Kind::kEnd;
  return f;
}

struct Compiled {
  std::vector<uint32_t> words;
  RegisterAllocation allocation;
};

Compiled allocate_and_emit(MFunction f, uint32_t max_registers) {
  Compiled out;
  const std::vector<uint32_t> layout = layout_blocks(f);
  const std::vector<uint32_t> reconvergence = immediate_post_dominators(f, layout);
  std::string error;
  EXPECT_TRUE(allocate_registers(&f, layout, max_registers, 0, &out.allocation, &error)) << error;
  EXPECT_TRUE(emit_code(f, layout, reconvergence, &out.words, &error)) << error;
  return out;
}

std::vector<uint32_t> run(const Compiled& kernel, uint32_t lanes) {
  testing::FlatMemory memory(0x100000, 1 << 20);
  DispatchParams params;
  params.code_va = memory.upload(kernel.words);
  params.code_size = static_cast<uint32_t>(kernel.words.size() * 4);
  const uint64_t out = memory.alloc(lanes * 4);
  params.arg_va = memory.upload(std::vector<uint64_t>{out});
  params.arg_size = 8;
  params.group_size[0] = lanes;
  params.private_mem_size = (kernel.allocation.private_end + 15) / 16 * 16;
  ShaderCores cores(ShaderConfig{1, 32, 1});
  DispatchResult r = cores.run(params, memory);
  EXPECT_FALSE(r.fault.has_value()) << (r.fault ? r.fault->message : "");
  return memory.download<uint32_t>(out, lanes);
}

uint32_t expected_sum(uint32_t lane) {
  uint32_t sum = 0;
  for (uint32_t k = 0; k < kQuads; ++k)
    for (uint32_t c = 0; c < 4; ++c) sum += lane + 16 * k + c;
  return sum;
}

TEST(RegallocQuads, QuadsLiveTogetherWithoutSpilling) {
  const Compiled kernel = allocate_and_emit(quad_kernel(), 240);
  EXPECT_EQ(kernel.allocation.spilled, 0u);
  EXPECT_GE(kernel.allocation.registers_used, 4 * kQuads);
  const std::vector<uint32_t> out = run(kernel, 40);
  for (uint32_t lane = 0; lane < out.size(); ++lane) EXPECT_EQ(out[lane], expected_sum(lane)) << lane;
}

// Eight registers hold at most two quads: the others live in 16-byte spill slots, and a channel
// written to a spilled quad is a load, write, store of the whole quad.
TEST(RegallocQuads, SpilledQuadsKeepEveryChannel) {
  const Compiled kernel = allocate_and_emit(quad_kernel(), 8);
  EXPECT_GT(kernel.allocation.spilled, 0u);
  EXPECT_GE(kernel.allocation.private_end, 16u * (kQuads - 2));
  const std::vector<uint32_t> out = run(kernel, 40);
  for (uint32_t lane = 0; lane < out.size(); ++lane) EXPECT_EQ(out[lane], expected_sum(lane)) << lane;
}

// A quad operand of an image instruction gets v[4n:4n+3] even where a 32-bit value took v0 first
// (emit_code validates every instruction: a misaligned quad would be refused there).
TEST(RegallocQuads, QuadOperandsAreAligned) {
  for (uint32_t max_registers : {240u, 8u}) {
    MFunction f;
    f.entry = f.exit = f.new_block("entry");
    std::vector<MInst>& code = f.blocks[0].insts;
    const uint32_t odd = f.new_vreg(32), coord = f.new_vreg(128), data = f.new_vreg(128);
    code.push_back(inst(Opcode::v_mov_b32, MOperand::vreg(odd), MOperand::literal(7)));
    for (uint32_t c = 0; c < 4; ++c) {
      code.push_back(inst(Opcode::v_add_u32, MOperand::channel_of(coord, c), MOperand::vreg(odd), MOperand::literal(c)));
      code.push_back(inst(Opcode::v_mov_b32, MOperand::channel_of(data, c), MOperand::literal(c)));
    }
    code.push_back(inst(Opcode::v_image_store, {}, MOperand::raw(isa::sreg(0)), MOperand::vreg(coord), MOperand::vreg(data)));
    code.push_back(inst(Opcode::v_mov_b32, MOperand::raw(isa::vreg(0)), MOperand::vreg(odd)));
    f.blocks[0].term.kind = MTerminator::Kind::kEnd;
    const Compiled kernel = allocate_and_emit(std::move(f), max_registers);
    ASSERT_FALSE(kernel.words.empty());
    // Find the image store and check its quads.
    bool found = false;
    for (size_t pos = 0; pos < kernel.words.size();) {
      isa::Instruction decoded;
      size_t used = 0;
      std::string error;
      ASSERT_TRUE(isa::decode(kernel.words.data() + pos, kernel.words.size() - pos, &decoded, &used, &error)) << error;
      if (decoded.opcode == Opcode::v_image_store) {
        found = true;
        EXPECT_EQ(decoded.src[1] % 4, 0u);
        EXPECT_EQ(decoded.src[2] % 4, 0u);
        EXPECT_NE(decoded.src[1], decoded.src[2]);
      }
      pos += used;
    }
    EXPECT_TRUE(found) << max_registers;
  }
}

}  // namespace
}  // namespace gsgpu::compiler
