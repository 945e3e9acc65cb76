#include "gsgpu/isa/disassembler.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace gsgpu::isa {
namespace {

std::string hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return buf;
}

std::string format_source(const Instruction& inst, OperandKind kind, uint16_t code) {
  const unsigned width = operand_width(inst, kind);
  if (code == kLiteralOperand) {
    // A 64-bit operand sees the literal sign-extended; print the value it actually reads.
    if (width == 64) return hex(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(inst.literal))));
    return hex(inst.literal);
  }
  return format_register(code, width);
}

std::string format_branch_offset(int32_t bytes) {
  return bytes < 0 ? "pc-" + std::to_string(-static_cast<int64_t>(bytes)) : "pc+" + std::to_string(bytes);
}

}  // namespace

std::string format_register(uint16_t operand, unsigned width_bits) {
  const bool vector = is_vreg(operand);
  const unsigned index = vector ? operand - kVectorOperandBase : operand - kScalarOperandBase;
  const char file = vector ? 'v' : 's';
  if (width_bits == 64 || width_bits == 128) {
    const unsigned last = index + width_bits / 32 - 1;
    return std::string(1, file) + "[" + std::to_string(index) + ":" + std::to_string(last) + "]";
  }
  return std::string(1, file) + std::to_string(index);
}

std::string format_instruction(const Instruction& inst) {
  const OpInfo& info = op_info(inst.opcode);
  std::string text = info.mnemonic;
  bool first = true;
  auto add = [&](const std::string& operand) {
    text += first ? " " : ", ";
    text += operand;
    first = false;
  };
  if (info.format == Format::kBranch) {
    if (info.src0 != OperandKind::kNone) add(format_register(inst.src[0], 32));
    add(format_branch_offset(inst.target));
    if (info.imm == ImmKind::kTargetReconverge) add(format_branch_offset(inst.reconverge));
    return text;
  }
  if (info.dst != OperandKind::kNone) add(format_source(inst, info.dst, inst.dst));
  const OperandKind kinds[3] = {info.src0, info.src1, info.src2};
  for (int i = 0; i < 3; ++i) {
    if (kinds[i] == OperandKind::kNone) continue;
    if (kinds[i] == OperandKind::kSBase64 && inst.src[i] == kNoScalarBase) continue;  // no base
    add(format_source(inst, kinds[i], inst.src[i]));
  }
  // A texel offset of 0 is the plain read, written without it (as the assembler takes it).
  const bool omitted = info.imm == ImmKind::kTexelOffset && inst.imm == 0;
  if (int32_t lo, hi; !omitted && immediate_range(info.imm, &lo, &hi)) add(std::to_string(inst.imm));
  if (info.imm == ImmKind::kSpecial) add(special_info(static_cast<SpecialReg>(inst.imm)).name);
  if (info.imm == ImmKind::kImageQuery) add(image_query_name(static_cast<ImageQueryWhat>(inst.imm)));
  return text;
}

std::string disassemble(const uint32_t* words, size_t count) {
  std::string out;
  size_t pos = 0;
  char note[64];
  // What the last position decoded to. Where the next kMaxInstructionWords words are that
  // position's, so is the outcome: a run of one instruction or of one illegal word (code padded
  // with zeros, a guest's garbage in a dump) is decoded and formatted once.
  size_t last_pos = SIZE_MAX;
  bool decoded = false;
  Instruction inst;
  size_t used = 0;
  std::string text;  // the line up to the position note
  while (pos < count) {
    const bool repeat = last_pos != SIZE_MAX && count - pos >= kMaxInstructionWords &&
                        std::equal(words + pos, words + pos + kMaxInstructionWords, words + last_pos);
    if (!repeat) {
      decoded = decode(words + pos, count - pos, &inst, &used, nullptr);
      if (decoded) {
        text = "  " + format_instruction(inst);
        if (text.size() < 48) text.resize(48, ' ');
      } else {
        used = 1;
        std::snprintf(note, sizeof note, "  .word 0x%08x", words[pos]);
        text = note;
        text.resize(48, ' ');
      }
    }
    last_pos = pos;
    out += text;
    if (decoded) {
      std::snprintf(note, sizeof note, " ; %04zx", pos * 4);
      out += note;
      if (op_info(inst.opcode).format == Format::kBranch) {
        std::snprintf(note, sizeof note, " -> %04" PRIx64, static_cast<uint64_t>(pos * 4 + static_cast<int64_t>(inst.target)));
        out += note;
      }
    } else {
      std::snprintf(note, sizeof note, " ; %04zx (not an instruction)", pos * 4);
      out += note;
    }
    out += "\n";
    pos += used;
  }
  return out;
}

}  // namespace gsgpu::isa
