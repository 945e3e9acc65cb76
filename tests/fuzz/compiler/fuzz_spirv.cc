// libFuzzer target: arbitrary bytes as a SPIR-V module through the reader and the whole code
// generator (lowering, reconvergence analysis, register allocation, encoding), as an OpenCL module
// (compile_spirv) and as a graphics one (compile_shader_spirv). Every input must end
// in a compiled program or an error message; generated code must encode (the encoder validates
// every instruction). Inputs shorter than the header get a valid header prepended so the fuzzer
// spends its time past the magic number.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> words;
  if (size >= 1 && data[0] == 0xff) {
    // Body only: a fixed header with a generous id bound.
    words = {0x07230203, 0x00010000, 0, 4096, 0};
    ++data;
    --size;
  }
  const size_t count = size / 4;
  const size_t base = words.size();
  words.resize(base + count);
  if (count > 0) std::memcpy(words.data() + base, data, count * 4);
  gsgpu::compiler::CompiledProgram program;
  std::string error;
  gsgpu::compiler::CompileOptions options;
  options.max_vector_registers = 24;  // small: exercises spilling too
  if (gsgpu::compiler::compile_spirv(words, &program, &error, options)) {
    for (const auto& kernel : program.kernels)
      if (kernel.code.empty()) __builtin_trap();  // a kernel always ends in s_end
  } else if (error.empty()) {
    __builtin_trap();  // failures must say why
  }
  // The same words as a graphics module (vertex / fragment entry points, compile_shader_spirv).
  gsgpu::compiler::CompiledProgram shaders;
  error.clear();
  if (gsgpu::compiler::compile_shader_spirv(words, &shaders, &error, options)) {
    for (const auto& shader : shaders.kernels)
      if (shader.code.empty()) __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap();
  }
  return 0;
}
