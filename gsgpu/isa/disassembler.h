// Disassembler for gsgpu. The text it produces assembles back to exactly the same words: words that
// do not decode are written as `.word` directives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gsgpu/isa/isa.h"

namespace gsgpu::isa {

std::string disassemble(const uint32_t* words, size_t count);

// One instruction, without address or trailing newline (e.g. "v_add_u32 v1, v2, s3").
std::string format_instruction(const Instruction& inst);

// Operand spelling shared with the assembler: "v7", "s3", "v[2:3]", "s[4:5]", quads "v[4:7]".
std::string format_register(uint16_t operand, unsigned width_bits);

}  // namespace gsgpu::isa
