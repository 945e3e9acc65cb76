// Control-flow analysis of the machine IR: block layout and the reconvergence point of every
// divergent branch (its immediate post-dominator).
#pragma once

#include <cstdint>
#include <vector>

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

// Blocks reachable from the entry in reverse postorder (so most jumps fall through), with the exit
// block moved last. Unreachable blocks are left out.
std::vector<uint32_t> layout_blocks(const MFunction& f);

// For every block, its immediate post-dominator (UINT32_MAX for the exit block and unreachable
// blocks). Blocks from which the exit cannot be reached (infinite loops) are treated as if they had
// an edge to the exit, so every branch gets a reconvergence point; lanes that never leave such a
// loop end in the watchdog.
std::vector<uint32_t> immediate_post_dominators(const MFunction& f, const std::vector<uint32_t>& reachable);

}  // namespace gsgpu::compiler
