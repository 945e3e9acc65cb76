#include "gsgpu/compiler/emit.h"

#include "gsgpu/isa/encoder.h"

namespace gsgpu::compiler {
namespace {

using isa::Opcode;

uint16_t operand_code(const MOperand& op, uint32_t* literal) {
  switch (op.kind) {
    case MOperand::Kind::kRaw: return static_cast<uint16_t>(op.value);
    case MOperand::Kind::kLiteral:
      *literal = op.value;
      return isa::kLiteralOperand;
    default: return 0;
  }
}

isa::Instruction to_instruction(const MInst& m) {
  isa::Instruction inst;
  inst.opcode = m.opcode;
  inst.dst = operand_code(m.dst, &inst.literal);
  for (int i = 0; i < 3; ++i) inst.src[i] = operand_code(m.src[i], &inst.literal);
  inst.imm = m.imm;
  return inst;
}

}  // namespace

bool emit_code(const MFunction& f, const std::vector<uint32_t>& layout, const std::vector<uint32_t>& reconvergence,
               std::vector<uint32_t>* words, std::string* error) {
  isa::Encoder encoder;
  std::vector<isa::Encoder::Label> labels(f.blocks.size());
  for (uint32_t b : layout) labels[b] = encoder.new_label();
  for (size_t i = 0; i < layout.size(); ++i) {
    const uint32_t b = layout[i];
    const uint32_t next = i + 1 < layout.size() ? layout[i + 1] : UINT32_MAX;
    const MBlock& block = f.blocks[b];
    encoder.bind(labels[b]);
    for (const MInst& inst : block.insts) encoder.emit(to_instruction(inst));
    const MTerminator& term = block.term;
    switch (term.kind) {
      case MTerminator::Kind::kEnd: {
        isa::Instruction end;
        end.opcode = Opcode::s_end;
        encoder.emit(end);
        break;
      }
      case MTerminator::Kind::kJump:
        if (term.successors[0] != next) encoder.branch(Opcode::s_jump, 0, labels[term.successors[0]]);
        break;
      case MTerminator::Kind::kBranch: {
        const uint32_t reconverge = reconvergence[b];
        if (reconverge == UINT32_MAX) {
          *error = "block " + std::to_string(b) + " (" + block.comment + ") has no reconvergence point";
          return false;
        }
        const uint16_t cond = static_cast<uint16_t>(term.condition.value);
        const uint32_t taken = term.successors[0], not_taken = term.successors[1];
        // Branch to whichever side does not follow in the layout; the other falls through.
        if (taken == next) {
          encoder.branch(Opcode::v_branch_z, cond, labels[not_taken], labels[reconverge]);
        } else {
          encoder.branch(Opcode::v_branch_nz, cond, labels[taken], labels[reconverge]);
          if (not_taken != next) encoder.branch(Opcode::s_jump, 0, labels[not_taken]);
        }
        break;
      }
    }
  }
  return encoder.finish(words, error);
}

}  // namespace gsgpu::compiler
