// Pre-decoding: the kernel's words are decoded once per dispatch into DecodedInst records that hold
// the handler and resolved branch targets, so the warp loop never decodes.
#include <algorithm>
#include <cstdint>
#include <string>

#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {
namespace {

struct HandlerTable {
  Handler handlers[isa::kOpcodeCount] = {};
  explicit HandlerTable(uint32_t width) {
    fill_alu_handlers(handlers, width);
    fill_memory_handlers(handlers, width);
    fill_control_handlers(handlers, width);
    fill_fragment_handlers(handlers, width);
    fill_image_handlers(handlers, width);
    for (Handler& h : handlers)
      if (!h) h = illegal_instruction_handler();  // every opcode is covered; this is a backstop
  }
};

// Highest register index (+1) an instruction names, per file, so warps allocate only those.
void note_registers(const isa::Instruction& inst, Program* program) {
  const isa::OpInfo& info = isa::op_info(inst.opcode);
  auto note = [&](isa::OperandKind kind, uint16_t code) {
    const unsigned width = isa::operand_width(inst, kind);
    if (width == 0 || code == isa::kLiteralOperand) return;
    const unsigned count = width / 32;  // 1, a pair 2, a quad 4
    if (isa::is_vreg(code)) program->vector_regs = std::max<uint32_t>(program->vector_regs, code + count);
    else program->scalar_regs = std::max<uint32_t>(program->scalar_regs, code - isa::kScalarOperandBase + count);
  };
  if (info.format == isa::Format::kBranch) {
    note(info.src0, inst.src[0]);
    return;
  }
  note(info.dst, inst.dst);
  note(info.src0, inst.src[0]);
  note(info.src1, inst.src[1]);
  note(info.src2, inst.src[2]);
}

}  // namespace

Handler handler_for(isa::Opcode op, uint32_t width) {
  static const HandlerTable specialized(kSpecializedWidth), generic(0);
  return (width == kSpecializedWidth ? specialized : generic).handlers[static_cast<size_t>(op)];
}

Program predecode(const uint32_t* words, size_t count, uint64_t code_va, uint32_t width) {
  Program program;
  // At most one entry per word and the sentinel, reserved once: the vector never moves its entries
  // (and their error strings) as it grows. With kernels of zero padding, growing took 45 % of this
  // function's time in the command-processor fuzzer.
  program.code.reserve(count + 1);
  std::vector<uint32_t> index_of_word(count + 1, kTargetMidInstruction);
  size_t pos = 0;
  // What the last position decoded to. Where the next kMaxInstructionWords words are that
  // position's, so is the outcome (decode() reads no more): a run of one instruction or of one
  // illegal word (code padded with zeros) is decoded once.
  size_t last_pos = SIZE_MAX, last_used = 0;
  std::string last_error;
  while (pos < count) {
    DecodedInst di;
    di.pc = code_va + pos * 4;
    size_t used = 1;
    if (last_pos != SIZE_MAX && count - pos >= isa::kMaxInstructionWords &&
        std::equal(words + pos, words + pos + isa::kMaxInstructionWords, words + last_pos)) {
      const DecodedInst& last = program.code.back();
      di.inst = last.inst;
      di.handler = last.handler;
      di.scalar_base = last.scalar_base;
      used = last_used;  // its registers are noted already
      if (!last_error.empty()) di.decode_error = last_error + " (word " + std::to_string(pos) + ")";
    } else if (std::string error; isa::decode(words + pos, count - pos, &di.inst, &used, &error)) {
      di.handler = handler_for(di.inst.opcode, width);
      di.scalar_base = isa::scalar_base(di.inst);  // resolved once, not on every execution
      note_registers(di.inst, &program);
      last_error.clear();
    } else {
      di.handler = illegal_instruction_handler();
      di.decode_error = error + " (word " + std::to_string(pos) + ")";
      last_error = std::move(error);
      used = 1;
    }
    last_pos = pos;
    last_used = used;
    index_of_word[pos] = static_cast<uint32_t>(program.code.size());
    program.code.push_back(std::move(di));
    pos += used;
  }
  // The sentinel: reached by falling off the end of the code.
  DecodedInst end;
  end.pc = code_va + count * 4;
  end.handler = end_of_code_handler();
  index_of_word[count] = static_cast<uint32_t>(program.code.size());
  program.code.push_back(end);

  auto resolve = [&](uint64_t instruction_word, int32_t offset_bytes) -> uint32_t {
    const int64_t word = static_cast<int64_t>(instruction_word) + offset_bytes / 4;
    // The end of the code is not a place to jump to: only real instructions are targets.
    if (word < 0 || word >= static_cast<int64_t>(count)) return kTargetOutOfRange;
    return index_of_word[static_cast<size_t>(word)];
  };
  for (size_t i = 0; i + 1 < program.code.size(); ++i) {
    DecodedInst& di = program.code[i];
    di.next = static_cast<uint32_t>(i + 1);
    if (di.handler == illegal_instruction_handler()) continue;
    if (isa::op_info(di.inst.opcode).format != isa::Format::kBranch) continue;
    const uint64_t word = (di.pc - code_va) / 4;
    di.target = resolve(word, di.inst.target);
    di.reconverge = isa::op_info(di.inst.opcode).imm == isa::ImmKind::kTargetReconverge
                        ? resolve(word, di.inst.reconverge)
                        : kTargetOutOfRange;
  }
  program.code.back().next = static_cast<uint32_t>(program.code.size() - 1);
  return program;
}

}  // namespace gsgpu::shader
