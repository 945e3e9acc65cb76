// One build of the shader-core interpreter. The interpreter's sources are compiled several times:
// once for any x86-64 host (linked statically) and once per wider host SIMD level, each into a
// shared library of its own (libgsgpu_shader_avx2.so, libgsgpu_shader_avx512.so) that exports
// only its factory. The per-lane loops are where the emulator spends its time, and 64-bit lanes
// (addresses, the coalescing check, 64-bit integer ALU operations) need AVX2/AVX-512 to vectorize.
//
// Why shared libraries rather than more static objects: the same source compiled with different
// -m flags emits the same inline and template functions (std::vector, isa helpers) as weak
// definitions, and a static link keeps one of them, possibly the AVX-512 one, which baseline code
// would then run on a host without AVX-512. Each variant library is linked on its own with a
// version script that makes every symbol but the factory local, so no definition crosses over.
//
// Results do not depend on the build: every variant is compiled with -ffp-contract=off (no fused
// multiply-add unless an instruction asks for it) and the same math library calls.
#pragma once

#include <memory>

#include "gsgpu/emu/shader/shader_core.h"

namespace gsgpu::shader {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DispatchResult run(const DispatchParams& params, GpuMemory& memory) = 0;
};

// This build's interpreter.
std::unique_ptr<Backend> make_backend(const ShaderConfig& config);

}  // namespace gsgpu::shader

// The factories the variant libraries export (defined in variant_entry.cc).
extern "C" {
gsgpu::shader::Backend* gsgpu_shader_make_backend_avx2(const gsgpu::ShaderConfig* config);
gsgpu::shader::Backend* gsgpu_shader_make_backend_avx512(const gsgpu::ShaderConfig* config);
}
