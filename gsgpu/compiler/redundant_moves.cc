// Moves the program cannot observe (redundant_moves.h).
#include "gsgpu/compiler/redundant_moves.h"

#include <iterator>

namespace gsgpu::compiler {
namespace {

using isa::Opcode;

// Registers an operand may name past its first: 64-bit pairs, 128-bit quads (images, wide memory
// accesses); twice that, to stay on the safe side of any wider form.
constexpr uint32_t kWidestOperand = 8;

// The vector register a physical operand names first.
bool vector_register(const MOperand& op, uint32_t* index) {
  if (op.kind != MOperand::Kind::kRaw || !isa::is_vreg(static_cast<uint16_t>(op.value))) return false;
  *index = op.value - isa::kVectorOperandBase;
  return true;
}

bool may_name(const MOperand& op, uint32_t r) {
  uint32_t first = 0;
  return vector_register(op, &first) && first <= r && r - first < kWidestOperand;
}

// Registers an instruction's destination writes from its first: exact for 32- and 64-bit vector
// results, kWidestOperand for the others (quads, special registers of any width).
uint32_t written_registers(const MInst& inst) {
  const isa::OperandKind kind = isa::op_info(inst.opcode).dst;
  return kind == isa::OperandKind::kVDst32 ? 1 : kind == isa::OperandKind::kVDst64 ? 2 : kWidestOperand;
}

bool may_write(const MInst& inst, uint32_t r) {
  uint32_t first = 0;
  return vector_register(inst.dst, &first) && first <= r && r - first < written_registers(inst);
}

bool may_read(const MInst& inst, uint32_t r) {
  for (const MOperand& s : inst.src)
    if (may_name(s, r)) return true;
  return false;
}

// `v_mov_b32 vX, ...`: writes vX alone, under the execution mask, with no other effect.
bool vector_move(const MInst& inst, uint32_t* dst) {
  return inst.opcode == Opcode::v_mov_b32 && vector_register(inst.dst, dst);
}

// Whether the move at `at` (to register r) is never read: overwritten later in the block by another
// move before anything may read it, or, in the exit block, never read again.
bool overwritten_or_unread(const std::vector<MInst>& insts, size_t at, uint32_t r, bool exit_block) {
  for (size_t j = at + 1; j < insts.size(); ++j) {
    const MInst& next = insts[j];
    if (next.opcode == Opcode::v_kill || may_read(next, r)) return false;
    uint32_t written = 0;
    if (vector_move(next, &written) && written == r) return true;
    if (may_write(next, r)) return false;  // a partial or wider write: keep it simple
  }
  return exit_block;
}

// In the exit block: exports of the move's register read its source instead while neither changes.
bool forward_to_exports(std::vector<MInst>& insts, size_t at, uint32_t r) {
  uint32_t source = 0;
  if (!vector_register(insts[at].src[0], &source)) return false;
  bool changed = false;
  for (size_t j = at + 1; j < insts.size(); ++j) {
    MInst& next = insts[j];
    if (next.opcode == Opcode::v_kill || may_write(next, r) || may_write(next, source)) break;
    const bool exports = next.opcode == Opcode::v_export_f32 || next.opcode == Opcode::v_export_vertex_f32;
    if (exports && next.src[0] == insts[at].dst) {
      next.src[0] = insts[at].src[0];
      changed = true;
    }
  }
  return changed;
}

size_t sweep_block(MBlock* block, bool exit_block) {
  std::vector<MInst>& insts = block->insts;
  std::vector<bool> remove(insts.size(), false);
  size_t removed = 0;
  for (size_t i = 0; i < insts.size(); ++i) {
    uint32_t r = 0;
    if (!vector_move(insts[i], &r)) continue;
    if (exit_block) forward_to_exports(insts, i, r);
    if (insts[i].src[0] == insts[i].dst || overwritten_or_unread(insts, i, r, exit_block)) {
      remove[i] = true;
      ++removed;
    }
  }
  if (removed == 0) return 0;
  std::vector<MInst> kept;
  kept.reserve(insts.size() - removed);
  for (size_t i = 0; i < insts.size(); ++i)
    if (!remove[i]) kept.push_back(insts[i]);
  insts = std::move(kept);
  return removed;
}

// Moves the instructions of a block that jumps to a block reached from nowhere else to the front of
// that one, so that a straight line of blocks (the lowering's prologue, body and epilogue) is swept as
// one. The order and the execution mask are unchanged: the successor runs right after, with the
// same lanes (a reconvergence point has two predecessors, and the emptied block keeps its label).
void join_straight_lines(MFunction* f) {
  std::vector<uint32_t> predecessors(f->blocks.size(), 0);
  for (uint32_t b = 0; b < f->blocks.size(); ++b)
    for (uint32_t s : f->successors(b)) ++predecessors[s];
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < f->blocks.size(); ++b) {
      MBlock& block = f->blocks[b];
      const uint32_t next = block.term.successors[0];
      if (block.term.kind != MTerminator::Kind::kJump || next == b || next == f->entry || predecessors[next] != 1 ||
          block.insts.empty())
        continue;
      std::vector<MInst>& into = f->blocks[next].insts;
      into.insert(into.begin(), block.insts.begin(), block.insts.end());
      block.insts.clear();
      changed = true;
    }
  }
}

}  // namespace

size_t remove_redundant_moves(MFunction* f) {
  join_straight_lines(f);
  size_t total = 0;
  for (uint32_t b = 0; b < f->blocks.size(); ++b) {
    // Removing a move may leave an earlier one unread: sweep until nothing changes.
    const bool exit_block = b == f->exit && f->blocks[b].term.kind == MTerminator::Kind::kEnd;
    while (const size_t removed = sweep_block(&f->blocks[b], exit_block)) total += removed;
  }
  return total;
}

}  // namespace gsgpu::compiler
