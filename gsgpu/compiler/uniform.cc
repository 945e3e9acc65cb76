// Why a value of the entry region may live in a scalar register: the region runs once per warp,
// with every lane that will run at all, before any divergent branch; a pure operation of values
// that are the same in every lane (literals, kernel arguments, earlier such values) gives the same
// value in every lane, and a register that nothing writes again keeps it everywhere after. The SIMT
// hazard of scalar registers (a write on one side of a divergent branch clobbering the value the
// lanes waiting on the other side still need) needs a second write, and there is none.
#include "gsgpu/compiler/uniform.h"

#include <string_view>

#include <algorithm>
#include <optional>

namespace gsgpu::compiler {
namespace {

using isa::Opcode;
using K = isa::OperandKind;

// The once-per-warp form of a per-lane instruction whose result depends only on its operands:
// opcodes.def emits every ALU operation as the pair v_<name>, s_<name>; v_special of a special
// register that is the same in every lane (group id, sizes, ...) is s_special of it.
std::optional<Opcode> scalar_form(const MInst& inst) {
  const isa::OpInfo& info = isa::op_info(inst.opcode);
  if (info.op_class == isa::OpClass::kAlu && info.vector) {
    // Only a v_ instruction whose next opcode is its s_ twin: the graphics instructions
    // (v_interp_*, quad permutes, derivatives, exports) read per-lane state and have none.
    if (static_cast<size_t>(inst.opcode) + 1 >= isa::kOpcodeCount) return std::nullopt;
    const auto twin = static_cast<Opcode>(static_cast<size_t>(inst.opcode) + 1);
    const std::string_view name = info.mnemonic, twin_name = isa::op_info(twin).mnemonic;
    if (name.size() < 2 || twin_name.size() != name.size() || twin_name.substr(0, 2) != "s_" ||
        twin_name.substr(2) != name.substr(2))
      return std::nullopt;
    return twin;
  }
  if (inst.opcode == Opcode::v_special && inst.imm >= 0 && inst.imm < static_cast<int32_t>(isa::SpecialReg::kCount) &&
      !isa::special_info(static_cast<isa::SpecialReg>(inst.imm)).per_lane)
    return Opcode::s_special;
  return std::nullopt;
}

// Width in bits of an operand of this instruction (the special register's for special destinations).
unsigned width_of(const MInst& m, K kind) {
  isa::Instruction inst;
  inst.opcode = m.opcode;
  inst.imm = m.imm;
  return isa::operand_width(inst, kind);
}

// The entry block, then each block it jumps to unconditionally that has no other predecessor, up to
// and including the first block that branches or ends. Every lane runs these blocks, together, once.
std::vector<uint32_t> entry_region(const MFunction& f) {
  std::vector<uint32_t> predecessors(f.blocks.size(), 0);
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (uint32_t s : f.successors(b)) ++predecessors[s];
  std::vector<uint32_t> region;
  if (f.entry >= f.blocks.size() || predecessors[f.entry] != 0) return region;
  std::vector<bool> seen(f.blocks.size(), false);
  for (uint32_t b = f.entry;;) {
    region.push_back(b);
    seen[b] = true;
    const MTerminator& term = f.blocks[b].term;
    if (term.kind != MTerminator::Kind::kJump) break;
    const uint32_t next = term.successors[0];
    if (predecessors[next] != 1 || seen[next]) break;
    b = next;
  }
  return region;
}

}  // namespace

uint32_t promote_uniform_values(MFunction* f, uint32_t first_free, uint32_t budget) {
  budget = std::min(budget, isa::kNumScalarRegs);
  const size_t nv = f->vreg_bits.size();
  std::vector<uint32_t> definitions(nv, 0);
  std::vector<bool> needs_vector(nv, false);  // read where only a vector register is allowed
  std::vector<uint32_t> scalar_writes(isa::kNumScalarRegs, 0);
  for (const MBlock& block : f->blocks) {
    for (const MInst& inst : block.insts) {
      const isa::OpInfo& info = isa::op_info(inst.opcode);
      if (inst.dst.is_vreg()) ++definitions[inst.dst.value];
      if (inst.dst.kind == MOperand::Kind::kRaw && isa::is_sreg(static_cast<uint16_t>(inst.dst.value))) {
        const uint32_t s = inst.dst.value - isa::kScalarOperandBase;
        ++scalar_writes[s];
        if (width_of(inst, info.dst) == 64 && s + 1 < isa::kNumScalarRegs) ++scalar_writes[s + 1];
      }
      const K kinds[3] = {info.src0, info.src1, info.src2};
      for (int i = 0; i < 3; ++i)
        if (inst.src[i].is_vreg() && (kinds[i] == K::kVReg32 || kinds[i] == K::kVReg128)) needs_vector[inst.src[i].value] = true;
    }
    // Branch conditions are vector registers (v_branch_*).
    if (block.term.kind == MTerminator::Kind::kBranch && block.term.condition.is_vreg())
      needs_vector[block.term.condition.value] = true;
  }

  std::vector<int32_t> scalar_of(nv, -1);  // virtual register -> first scalar register
  std::vector<bool> written(isa::kNumScalarRegs, false);  // written once, earlier in the region
  auto uniform = [&](const MOperand& op, unsigned bits) {
    switch (op.kind) {
      case MOperand::Kind::kNone: case MOperand::Kind::kLiteral: return true;
      case MOperand::Kind::kRaw: {
        if (!isa::is_sreg(static_cast<uint16_t>(op.value))) return false;
        const uint32_t s = op.value - isa::kScalarOperandBase;
        for (uint32_t r = s; r < s + (bits == 64 ? 2 : 1); ++r)
          if (r >= isa::kNumScalarRegs || !written[r] || scalar_writes[r] != 1) return false;
        return true;
      }
      default: return scalar_of[op.value] >= 0;
    }
  };
  auto rewrite = [&](MOperand* op) {
    if (!op->is_vreg() || scalar_of[op->value] < 0) return;
    const uint32_t s = static_cast<uint32_t>(scalar_of[op->value]) + op->register_offset();
    *op = MOperand::raw(isa::sreg(s));
  };

  uint32_t next = first_free, used = first_free;
  for (uint32_t b : entry_region(*f)) {
    for (MInst& inst : f->blocks[b].insts) {
      const isa::OpInfo& info = isa::op_info(inst.opcode);
      if (inst.dst.kind == MOperand::Kind::kRaw && isa::is_sreg(static_cast<uint16_t>(inst.dst.value))) {
        const uint32_t s = inst.dst.value - isa::kScalarOperandBase;
        written[s] = true;
        if (width_of(inst, info.dst) == 64 && s + 1 < isa::kNumScalarRegs) written[s + 1] = true;
        continue;
      }
      if (inst.dst.kind != MOperand::Kind::kVReg) continue;
      const uint32_t v = inst.dst.value;
      if (definitions[v] != 1 || needs_vector[v]) continue;
      const std::optional<Opcode> op = scalar_form(inst);
      if (!op) continue;
      const K kinds[3] = {info.src0, info.src1, info.src2};
      bool all_uniform = true;
      for (int i = 0; i < 3; ++i) all_uniform = all_uniform && uniform(inst.src[i], width_of(inst, kinds[i]));
      if (!all_uniform) continue;
      const unsigned bits = f->vreg_bits[v];
      const uint32_t reg = bits == 64 ? (next + 1) / 2 * 2 : next;
      const uint32_t end = reg + (bits == 64 ? 2 : 1);
      if (end > budget) continue;  // out of scalar registers: this value stays per lane
      next = end;
      used = std::max(used, end);
      for (MOperand& s : inst.src) rewrite(&s);
      inst.opcode = *op;
      inst.dst = MOperand::raw(isa::sreg(reg));
      scalar_of[v] = static_cast<int32_t>(reg);
      for (uint32_t r = reg; r < end; ++r) written[r] = true, scalar_writes[r] = 1;
    }
  }
  if (used == first_free) return used;
  // Every reader of a moved value reads its scalar register (vector instructions take scalar
  // operands wherever they take vector ones; the kVReg32 readers were left alone above).
  for (MBlock& block : f->blocks)
    for (MInst& inst : block.insts)
      for (MOperand& s : inst.src) rewrite(&s);
  return used;
}

}  // namespace gsgpu::compiler
