// The SPIR-V reader and the code generator on malformed modules: every defect is a clear error
// naming the word offset, and nothing crashes (mutations of a real module included).
#include <random>

#include "gsgpu/compiler/spirv_module.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

std::vector<uint32_t> real_module() {
  std::vector<uint32_t> spirv;
  std::string log;
  const BuildStatus status = compile_opencl_c(R"(
    __kernel void k(__global float* a, __global const int* b, int n) {
      int i = get_global_id(0);
      float acc = 0;
      for (int j = 0; j < n; ++j) acc += b[(i + j) % 64] > 0 ? sqrt((float)j) : -1.0f;
      if (i < n) a[i] = acc;
    })", "", &spirv, &log);
  EXPECT_EQ(status, BuildStatus::kSuccess) << log;
  return spirv;
}

std::string compile_error(const std::vector<uint32_t>& words) {
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_spirv(words, &program, &error));
  return error;
}

TEST(SpirvReader, TruncatedHeader) {
  const std::string error = compile_error({0x07230203, 0x00010000, 0});
  EXPECT_NE(error.find("shorter than the 5-word SPIR-V header"), std::string::npos) << error;
}

TEST(SpirvReader, BadMagic) {
  const std::string error = compile_error({0x03022307, 0x00010000, 0, 10, 0});
  EXPECT_NE(error.find("bad magic"), std::string::npos) << error;
}

TEST(SpirvReader, IdsPastTheBound) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<uint32_t> words = real_module();
  ASSERT_GT(words.size(), 5u);
  words[3] = 4;  // bound: ids must be < 4
  const std::string error = compile_error(words);
  EXPECT_NE(error.find("outside the id bound"), std::string::npos) << error;
  EXPECT_NE(error.find("word "), std::string::npos) << error;
}

TEST(SpirvReader, TruncatedInstruction) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<uint32_t> words = real_module();
  words.resize(words.size() - 1);  // cuts OpFunctionEnd or the instruction before it
  const std::string error = compile_error(words);
  EXPECT_FALSE(error.empty());
  // A word count that runs past the end.
  std::vector<uint32_t> overlong = real_module();
  overlong.back() = (1000u << 16) | 56u;  // OpFunctionEnd claiming 1000 words
  const std::string overlong_error = compile_error(overlong);
  EXPECT_NE(overlong_error.find("runs past the end of the module"), std::string::npos) << overlong_error;
  EXPECT_NE(overlong_error.find("OpFunctionEnd"), std::string::npos) << overlong_error;
}

TEST(SpirvReader, ZeroWordCount) {
  const std::string error = compile_error({0x07230203, 0x00010000, 0, 10, 0, 0x00000011});
  EXPECT_NE(error.find("word 5"), std::string::npos) << error;
  EXPECT_NE(error.find("word count is 0"), std::string::npos) << error;
}

TEST(SpirvReader, ParsesEntryPointsAndBuiltins) {
  GSGPU_REQUIRE_FRONT_END();
  SpirvModule module;
  std::string error;
  const std::vector<uint32_t> words = real_module();
  ASSERT_TRUE(parse_spirv(words, &module, &error)) << error;
  ASSERT_EQ(module.entry_points.size(), 1u);
  EXPECT_EQ(module.entry_points[0].name, "k");
  EXPECT_EQ(module.ext_inst_sets.begin()->second, "OpenCL.std");
  bool has_global_id = false;
  for (const auto& [id, d] : module.decorations) has_global_id |= d.builtin == spv::BuiltIn::GlobalInvocationId;
  EXPECT_TRUE(has_global_id);
}

// The fuzzer's property, run briefly on every test run: random mutations of a real module either
// compile or fail with a message; none crash or hang.
TEST(SpirvReader, MutatedModulesNeverCrash) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<uint32_t> base = real_module();
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint32_t> words = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 5 + rng() % (words.size() - 5);
      switch (rng() % 4) {
        case 0: words[at] ^= 1u << (rng() % 32); break;
        case 1: words[at] = rng() % 64; break;
        case 2: words.resize(at); break;
        default: words[at] = (words[at] & 0xffff0000u) | (rng() % 400); break;
      }
      if (words.size() <= 5) break;
    }
    CompiledProgram program;
    std::string error;
    if (!compile_spirv(words, &program, &error)) {
      ++rejected;
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace gsgpu::compiler::testing
