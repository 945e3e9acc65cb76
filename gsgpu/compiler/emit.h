// Encoding the allocated machine IR with gsgpu::isa::Encoder: block labels, fall-through, and
// divergent branches that name their reconvergence point.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

// `layout` is the block order, `reconvergence` the immediate post-dominator of each block.
bool emit_code(const MFunction& f, const std::vector<uint32_t>& layout, const std::vector<uint32_t>& reconvergence,
               std::vector<uint32_t>* words, std::string* error);

}  // namespace gsgpu::compiler
