// Register allocation: liveness over the CFG, linear scan over the block layout, and spilling to
// private memory. Afterwards every operand of the function is a physical register code (kRaw) or
// a literal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

struct RegisterAllocation {
  uint32_t registers_used = 0;  // highest vector register named + 1
  uint32_t spilled = 0;         // virtual registers living in private memory
  uint32_t private_end = 0;     // private bytes needed, spill slots included
};

// Allocates v0..v(max_registers-1), pairs at even registers and quads (128-bit virtual registers)
// at multiples of 4; the 16 registers after them (from the next multiple of 4) are spill scratch.
// Spill slots (8 bytes, a quad 16) are placed from `private_base` on. False with *error when
// max_registers is unusable.
// v0..v(reserved-1) are never assigned (a graphics program's preloaded inputs, which its prologue
// reads as physical registers) and count as used.
bool allocate_registers(MFunction* f, const std::vector<uint32_t>& layout, uint32_t max_registers,
                        uint32_t private_base, RegisterAllocation* out, std::string* error, uint32_t reserved = 0);

}  // namespace gsgpu::compiler
