// The driver's constant-buffer layout (gsgpu/vk/binding_model.h) against what the compiler's code
// reads (docs/compiler.md "Constant buffer"): a vertex shader with uniform buffers at (0, 0),
// (2, 7) and (3, 15) and push constants at bytes 112-127, compiled by compile_shader_spirv, loads
// each buffer's VA from table_entry_offset(set, binding) and needs the whole 640-byte buffer that
// BindingState::constant_buffer gives a draw.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/vk/binding_model.h"
#include "tests/gsgpu/vk/shader_bindings_vert.h"

namespace gsgpu::vk {
namespace {

size_t count_lines(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::istringstream lines(text);
  size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += std::regex_search(line, re) ? 1 : 0;
  return n;
}

TEST(BindingAbi, CompiledShaderReadsTheTableEntriesTheDriverWrites) {
  compiler::CompiledProgram program;
  std::string error;
  ASSERT_TRUE(compiler::compile_shader_spirv(shader_bindings_vert, &program, &error)) << error;
  ASSERT_EQ(program.kernels.size(), 1u);
  const compiler::CompiledKernel& k = program.kernels[0];
  const std::string& s = k.assembly;
  EXPECT_EQ(count_lines(s, R"(s_special s\[0:1\], arg_ptr)"), 1u) << s;
  const uint32_t slots[][2] = {{0, 0}, {2, 7}, {3, 15}};
  for (const auto& [set, binding] : slots) {
    const std::string offset = std::to_string(table_entry_offset(set, binding));
    EXPECT_EQ(count_lines(s, R"(s_load_b64 s\[\d+:\d+\], s\[0:1\], )" + offset + " +;"), 1u)
        << "(" << set << ", " << binding << ") at " << offset << "\n" << s;
  }
  EXPECT_EQ(k.constant_buffer_bytes, kViewIndexOffset);  // the last entry ends the table
}

}  // namespace
}  // namespace gsgpu::vk
