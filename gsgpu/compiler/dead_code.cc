#include "gsgpu/compiler/dead_code.h"

namespace gsgpu::compiler {
namespace {

// Stores, atomics, barriers and the end have effects beyond their destination register.
bool has_side_effects(const MInst& inst) {
  const isa::OpInfo& info = isa::op_info(inst.opcode);
  if (info.op_class == isa::OpClass::kStore || info.op_class == isa::OpClass::kAtomic) return true;
  return inst.opcode == isa::Opcode::s_barrier || inst.opcode == isa::Opcode::s_end ||
         inst.opcode == isa::Opcode::s_nop;
}

}  // namespace

size_t remove_dead_instructions(MFunction* f) {
  std::vector<uint32_t> uses(f->vreg_bits.size(), 0);
  for (const MBlock& block : f->blocks) {
    for (const MInst& inst : block.insts)
      for (const MOperand& s : inst.src)
        if (s.is_vreg()) ++uses[s.value];
    if (block.term.kind == MTerminator::Kind::kBranch && block.term.condition.is_vreg()) ++uses[block.term.condition.value];
  }
  size_t removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (MBlock& block : f->blocks) {
      std::vector<MInst> kept;
      kept.reserve(block.insts.size());
      // Backwards, so a chain of dead values goes in one sweep.
      for (auto it = block.insts.rbegin(); it != block.insts.rend(); ++it) {
        const MInst& inst = *it;
        if (inst.dst.is_vreg() && uses[inst.dst.value] == 0 && !has_side_effects(inst)) {
          for (const MOperand& s : inst.src)
            if (s.is_vreg()) --uses[s.value];
          ++removed;
          changed = true;
          continue;
        }
        kept.push_back(inst);
      }
      block.insts.assign(kept.rbegin(), kept.rend());
    }
  }
  return removed;
}

}  // namespace gsgpu::compiler
