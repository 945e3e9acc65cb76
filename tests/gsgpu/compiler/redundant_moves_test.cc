// remove_redundant_moves (gsgpu/compiler/redundant_moves.h) on hand-built blocks of physical
// registers: what it removes, and the reads, kills and blocks that keep a move.
#include "gsgpu/compiler/redundant_moves.h"

#include <gtest/gtest.h>

#include <vector>

namespace gsgpu::compiler {
namespace {

using isa::Opcode;

MOperand v(unsigned index) { return MOperand::raw(isa::vreg(index)); }

MInst inst(Opcode op, MOperand dst, MOperand src0 = {}, int32_t imm = 0) {
  MInst i;
  i.opcode = op;
  i.dst = dst;
  i.src[0] = src0;
  i.imm = imm;
  return i;
}

MInst mov(unsigned dst, MOperand src) { return inst(Opcode::v_mov_b32, v(dst), src); }
MInst export_slot(unsigned src, int32_t slot) { return inst(Opcode::v_export_f32, {}, v(src), slot); }

// One function: an entry block that branches on v20 to `other` or the exit block, `other` jumping
// to the exit block (which has two predecessors: `other` stays a block of its own).
MFunction function(std::vector<MInst> exit, std::vector<MInst> other = {}) {
  MFunction f;
  const uint32_t entry = f.new_block("entry"), middle = f.new_block("other"), last = f.new_block("exit");
  f.blocks[entry].term.kind = MTerminator::Kind::kBranch;
  f.blocks[entry].term.condition = v(20);
  f.blocks[entry].term.successors[0] = middle;
  f.blocks[entry].term.successors[1] = last;
  f.blocks[middle].insts = std::move(other);
  f.blocks[middle].term.kind = MTerminator::Kind::kJump;
  f.blocks[middle].term.successors[0] = last;
  f.blocks[last].insts = std::move(exit);
  f.blocks[last].term.kind = MTerminator::Kind::kEnd;
  f.entry = entry;
  f.exit = last;
  return f;
}

bool same(const std::vector<MInst>& a, const std::vector<MInst>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].opcode != b[i].opcode || !(a[i].dst == b[i].dst) || !(a[i].src[0] == b[i].src[0]) || a[i].imm != b[i].imm)
      return false;
  }
  return true;
}

// The flat colour's epilogue: outputs zeroed, loaded, copied, exported; only the loads and the
// exports (of the loaded registers) remain.
TEST(RedundantMoves, ExportsReadTheCopiedRegisterAndTheCopiesGo) {
  const MOperand zero = MOperand::literal(0);
  MFunction f = function({mov(0, zero), mov(1, zero), inst(Opcode::const_load_b32, v(4)), inst(Opcode::const_load_b32, v(5)),
                          mov(0, v(4)), mov(1, v(5)), export_slot(0, 0), export_slot(1, 1)});
  EXPECT_EQ(remove_redundant_moves(&f), 4u);
  EXPECT_TRUE(same(f.blocks[f.exit].insts, {inst(Opcode::const_load_b32, v(4)), inst(Opcode::const_load_b32, v(5)),
                                            export_slot(4, 0), export_slot(5, 1)}));
}

// A move whose register something may read before it is overwritten stays: a derivative, a
// 64-bit read of the pair that holds it, a quad operand; so does one before a v_kill (a killed
// lane's registers stay visible to its quad) and one at the end of a block that is not the exit.
TEST(RedundantMoves, ReadsKillsAndLaterBlocksKeepAMove) {
  const MOperand zero = MOperand::literal(0);
  const std::vector<MInst> kept = {
      mov(3, v(0)), inst(Opcode::v_ddx_fine_f32, v(6), v(3)), mov(3, zero),  // read before the overwrite
      mov(7, v(0)), inst(Opcode::v_kill, {}), mov(7, zero),                  // a kill in between
      mov(9, v(0)), inst(Opcode::v_mov_b64, v(10), v(8)), mov(9, zero),       // read as the pair v[8:9]
      export_slot(3, 0), export_slot(7, 1), export_slot(9, 2)};
  MFunction f = function(kept, {mov(12, v(1)), mov(13, v(13))});
  EXPECT_EQ(remove_redundant_moves(&f), 1u);  // only the other block's self-move
  EXPECT_TRUE(same(f.blocks[f.exit].insts, kept));
  EXPECT_TRUE(same(f.blocks[1].insts, {mov(12, v(1))}));
}

// The lowering's prologue, body and epilogue are a straight line of blocks: swept as one, the
// outputs' zeroing in the first and the copies in the second go as in one block.
TEST(RedundantMoves, AStraightLineOfBlocksIsSweptAsOne) {
  MFunction f;
  const uint32_t prologue = f.new_block("prologue"), body = f.new_block("body"), epilogue = f.new_block("epilogue");
  f.blocks[prologue].insts = {mov(0, MOperand::literal(0))};
  f.blocks[prologue].term.kind = MTerminator::Kind::kJump;
  f.blocks[prologue].term.successors[0] = body;
  f.blocks[body].insts = {inst(Opcode::const_load_b32, v(4)), mov(0, v(4))};
  f.blocks[body].term.kind = MTerminator::Kind::kJump;
  f.blocks[body].term.successors[0] = epilogue;
  f.blocks[epilogue].insts = {export_slot(0, 0)};
  f.blocks[epilogue].term.kind = MTerminator::Kind::kEnd;
  f.entry = prologue;
  f.exit = epilogue;
  EXPECT_EQ(remove_redundant_moves(&f), 2u);
  EXPECT_TRUE(f.blocks[prologue].insts.empty());
  EXPECT_TRUE(f.blocks[body].insts.empty());
  EXPECT_TRUE(same(f.blocks[epilogue].insts, {inst(Opcode::const_load_b32, v(4)), export_slot(4, 0)}));
}

// An export is not redirected past a write to the copied register or its source.
TEST(RedundantMoves, AnExportKeepsItsRegisterWhenTheSourceChanges) {
  const std::vector<MInst> kept = {mov(0, v(4)), inst(Opcode::v_add_f32, v(4), v(4)), export_slot(0, 0)};
  MFunction f = function(kept);
  EXPECT_EQ(remove_redundant_moves(&f), 0u);
  EXPECT_TRUE(same(f.blocks[f.exit].insts, kept));
}

}  // namespace
}  // namespace gsgpu::compiler
