// The exported factory of one SIMD variant library (see backend.h). Built only into the variant
// libraries, with GSGPU_SHADER_VARIANT naming the variant.
#include "gsgpu/emu/shader/backend.h"

#define GSGPU_CONCAT2(a, b) a##b
#define GSGPU_CONCAT(a, b) GSGPU_CONCAT2(a, b)

extern "C" __attribute__((visibility("default"))) gsgpu::shader::Backend*
GSGPU_CONCAT(gsgpu_shader_make_backend_, GSGPU_SHADER_VARIANT)(const gsgpu::ShaderConfig* config) {
  return gsgpu::shader::make_backend(*config).release();
}
