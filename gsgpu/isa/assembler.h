// Text assembler for gsgpu. Syntax (docs/isa.md): one instruction per line,
// `mnemonic operand, operand, ...`; `label:`; comments after `;`, `#` or `//`;
// directives `.kernel name` and `.word value, ...`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gsgpu::isa {

// Assembles source into words. On failure *error reads "line L, column C: reason".
bool assemble(std::string_view source, std::vector<uint32_t>* words, std::string* error);

}  // namespace gsgpu::isa
