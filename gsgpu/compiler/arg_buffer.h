// Building a kernel's argument buffer as the ABI in compiler.h lays it out, so that the executor
// and the tests marshal arguments the same way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"

namespace gsgpu::compiler {

// One argument as clSetKernelArg gives it: bytes (a 64-bit GPU VA for buffers, the value for
// scalars, vectors and structs) or, for a __local pointer, the size to reserve.
struct KernelArgValue {
  std::vector<uint8_t> bytes;
  uint32_t local_bytes = 0;  // > 0: a __local argument of this size
};

struct ArgumentBuffer {
  std::vector<uint8_t> bytes;       // to be placed at DispatchParams::arg_va
  uint32_t local_mem_size = 0;      // DispatchParams::local_mem_size: static __local + __local arguments
};

// Lays out `args` (one per ArgInfo), work_dim and the constant data. False, with *error naming the
// argument and what is wrong (missing, size mismatch, __local size on a non-local argument), when
// the values do not fit the kernel.
bool build_argument_buffer(const CompiledKernel& kernel, std::span<const KernelArgValue> args, uint32_t work_dim,
                           ArgumentBuffer* out, std::string* error);

}  // namespace gsgpu::compiler
