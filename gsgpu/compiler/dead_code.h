// Removes instructions whose results nobody reads (the lowering materialises every component of
// a built-in vector, every leaf of a loaded struct, ...), before register allocation.
#pragma once

#include "gsgpu/compiler/machine_ir.h"

namespace gsgpu::compiler {

// Returns how many instructions were removed.
size_t remove_dead_instructions(MFunction* f);

}  // namespace gsgpu::compiler
