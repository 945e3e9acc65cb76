// Declarations of OpenCL C's half load / store built-ins (vload_half, vloada_half, vstore_half,
// vstorea_half with every vector size, address space and rounding mode, float and double data),
// which the front end force-includes. clang-14 declares its built-ins from a table in which
// every function with a `half` in its signature belongs to cl_khr_fp16; the device does not have
// that extension (half arithmetic), so with it turned off clang would know none of these, although
// OpenCL C requires them without it. Declared here with the same overloadable signatures, they mangle
// exactly as clang's own and llvm-spirv turns them into OpenCL.std vload/vstore_half instructions.
#pragma once

#include <string>

namespace gsgpu::compiler {

// The header text (built once): guarded by #ifndef cl_khr_fp16, the double forms by cl_khr_fp64.
const std::string& half_builtin_declarations();

}  // namespace gsgpu::compiler
