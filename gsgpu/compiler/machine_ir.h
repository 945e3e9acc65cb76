// The code generator's machine IR: gsgpu instructions over virtual registers, grouped in basic
// blocks with explicit terminators. Lowering (lower_*.cc) produces it from SPIR-V; cfg.cc finds the
// reconvergence points, regalloc.cc maps virtual registers to v0..v255 (spilling to private memory),
// emit.cc encodes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/isa/isa.h"

namespace gsgpu::compiler {

// An operand before register allocation.
struct MOperand {
  enum class Kind : uint8_t {
    kNone,
    kVReg,      // a whole virtual register (32 or 64 bits, as declared)
    kVRegLow,   // the low 32 bits of a 64-bit virtual register
    kVRegHigh,  // the high 32 bits of a 64-bit virtual register
    kLiteral,   // the instruction's 32-bit literal (sign-extended for 64-bit operands)
    kRaw,       // an ISA operand code used as is (physical registers after allocation)
    // 32-bit channel `channel` (0..3) of a 128-bit virtual register (a quad v[4n:4n+3]: image
    // coordinates and texels). As a destination it writes that channel only and leaves the
    // others; liveness counts it as a definition of the quad, so a quad's channels are written
    // in one block before the quad is read (docs/compiler.md "Register allocation").
    kVRegChannel,
  };
  Kind kind = Kind::kNone;
  uint32_t value = 0;
  uint8_t channel = 0;  // kVRegChannel only

  static MOperand vreg(uint32_t id) { return {Kind::kVReg, id}; }
  static MOperand low(uint32_t id) { return {Kind::kVRegLow, id}; }
  static MOperand high(uint32_t id) { return {Kind::kVRegHigh, id}; }
  static MOperand literal(uint32_t bits) { return {Kind::kLiteral, bits}; }
  static MOperand raw(uint16_t code) { return {Kind::kRaw, code}; }
  static MOperand channel_of(uint32_t id, unsigned channel) {
    return {Kind::kVRegChannel, id, static_cast<uint8_t>(channel & 3)};
  }
  bool is_vreg() const {
    return kind == Kind::kVReg || kind == Kind::kVRegLow || kind == Kind::kVRegHigh || kind == Kind::kVRegChannel;
  }
  // Registers past the virtual register's first that this operand names (0 for a whole one).
  uint32_t register_offset() const {
    return kind == Kind::kVRegHigh ? 1 : kind == Kind::kVRegChannel ? channel : 0;
  }
  bool is_literal() const { return kind == Kind::kLiteral; }
  bool operator==(const MOperand&) const = default;
};

struct MInst {
  isa::Opcode opcode = isa::Opcode::s_nop;
  MOperand dst;
  MOperand src[3];
  int32_t imm = 0;  // memory offset or special register
};

struct MTerminator {
  enum class Kind : uint8_t { kJump, kBranch, kEnd };
  Kind kind = Kind::kEnd;
  MOperand condition;           // kBranch: a 32-bit virtual register, nonzero = successors[0]
  uint32_t successors[2] = {0, 0};
};

struct MBlock {
  std::vector<MInst> insts;
  MTerminator term;
  std::string comment;  // where it came from, for dumps
};

struct MFunction {
  std::vector<MBlock> blocks;
  std::vector<uint8_t> vreg_bits;  // 32, 64 or 128 (a quad, only for image instructions) per virtual register
  uint32_t entry = 0;
  uint32_t exit = 0;  // the block holding s_end

  uint32_t new_vreg(unsigned bits) {
    vreg_bits.push_back(static_cast<uint8_t>(bits));
    return static_cast<uint32_t>(vreg_bits.size() - 1);
  }
  uint32_t new_block(std::string comment = {}) {
    blocks.emplace_back();
    blocks.back().comment = std::move(comment);
    return static_cast<uint32_t>(blocks.size() - 1);
  }
  std::vector<uint32_t> successors(uint32_t block) const;
};

}  // namespace gsgpu::compiler
