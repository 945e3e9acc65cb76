// Uniform values of the entry region in scalar registers (docs/compiler.md, "Uniform values in
// scalar registers"), after dead-code removal and before register allocation.
#pragma once

#include <cstdint>

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

// Moves to scalar registers every value that the entry region (the entry block and the blocks it
// jumps to unconditionally, each with no other predecessor, up to and including the first block
// that branches) computes with a pure ALU operation (or a uniform special register) from uniform
// operands only: literals, scalar registers the function writes exactly once earlier in the region
// (the kernel arguments), and values moved before it. Each gets a fresh register (pair) from
// `first_free` up to `budget` that nothing writes again; when the budget runs out the rest stay in
// vector registers. Returns the scalar registers used in all (at least `first_free`).
uint32_t promote_uniform_values(MFunction* f, uint32_t first_free, uint32_t budget);

}  // namespace gsgpu::compiler
