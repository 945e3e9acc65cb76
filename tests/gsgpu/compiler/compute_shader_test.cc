// Compute shaders (GLCompute) through compile_shader_spirv (docs/compiler.md "Compute shaders"):
// what a program declares (stage, work-group size, shared memory, constant-buffer bytes), SPIR-V
// 1.0's and 1.3's storage buffers, the refusals, and mutated modules that compile or fail with a
// message, never crash. Run on the device against lavapipe in tests/gsgpu/vk/compute_*_test.cc.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"
#include "tests/gsgpu/compiler/shader_compute_forms_comp.h"
#include "tests/gsgpu/compiler/shader_compute_image_comp.h"
#include "tests/gsgpu/compiler/shader_compute_storage_class_comp.h"

namespace gsgpu::compiler::testing {
namespace {

const CompiledKernel& only_kernel(const CompiledProgram& p) {
  EXPECT_EQ(p.kernels.size(), 1u);
  return p.kernels.at(0);
}

void expect_compute_forms(std::span<const uint32_t> words) {
  CompiledProgram program;
  std::string error;
  ASSERT_TRUE(compile_shader_spirv(words, &program, &error)) << error;
  const CompiledKernel& k = only_kernel(program);
  EXPECT_EQ(k.stage, ShaderStage::kCompute);
  // local_size_x_id: glslang's WorkgroupSize constant names a specialization constant of its own
  // whose default is 1 (the GLSL constant's 8 is another one), which overrides LocalSize's x.
  EXPECT_EQ(k.reqd_work_group_size[0], 1u);
  EXPECT_EQ(k.reqd_work_group_size[1], 4u);
  EXPECT_EQ(k.reqd_work_group_size[2], 1u);
  EXPECT_EQ(k.static_local_bytes, 32u * 4u);
  // Set 1 binding 3's table entry ends at 128 + 8 (16 + 3) + 8 = 288; the group words at 640..663.
  EXPECT_EQ(k.constant_buffer_bytes, 664u);
  EXPECT_NE(k.assembly.find("s_barrier"), std::string::npos);
  EXPECT_NE(k.assembly.find("global_atomic"), std::string::npos);
  EXPECT_NE(k.assembly.find("local_store"), std::string::npos);
}

TEST(ComputeShader, BufferBlocksSharedMemoryBarriersAndBuiltInsCompile) { expect_compute_forms(shader_compute_forms_comp); }

TEST(ComputeShader, StorageBufferStorageClassCompiles) { expect_compute_forms(shader_compute_storage_class_comp); }

TEST(ComputeShader, ImagesAndMissingWorkGroupSizesAreRefused) {
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_shader_spirv(shader_compute_image_comp, &program, &error));
  EXPECT_NE(error.find("is not supported in compute shaders"), std::string::npos) << error;
  // Without LocalSize (its OpExecutionMode and the WorkgroupSize constant's decoration made OpNops).
  std::vector<uint32_t> words(std::begin(shader_compute_forms_comp), std::end(shader_compute_forms_comp));
  for (size_t i = 5; i < words.size() && (words[i] >> 16) != 0; i += words[i] >> 16) {
    const uint32_t op = words[i] & 0xffff, n = words[i] >> 16;
    const bool local_size = (op == 16 || op == 331) && (words[i + 2] == 17 || words[i + 2] == 38);
    const bool size_builtin = op == 71 && words[i + 2] == 11 && words[i + 3] == 25;
    if (local_size || size_builtin)
      for (uint32_t k = 0; k < n; ++k) words[i + k] = 1u << 16;
  }
  error.clear();
  EXPECT_FALSE(compile_shader_spirv(words, &program, &error));
  EXPECT_NE(error.find("must declare its work-group size"), std::string::npos) << error;
}

TEST(ComputeShader, MutatedComputeModulesNeverCrash) {
  for (std::span<const uint32_t> base :
       {std::span<const uint32_t>(shader_compute_forms_comp), std::span<const uint32_t>(shader_compute_storage_class_comp)}) {
    std::mt19937 rng(1234);
    int rejected = 0;
    const int rounds = 700;
    for (int round = 0; round < rounds; ++round) {
      std::vector<uint32_t> words(base.begin(), base.end());
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = 5 + rng() % (words.size() - 5);
        switch (rng() % 3) {
          case 0: words[at] ^= 1u << (rng() % 32); break;
          case 1: words[at] = rng() % 64; break;
          default: words[at] = (words[at] & 0xffff0000u) | (rng() % 400); break;
        }
      }
      CompiledProgram program;
      std::string error;
      if (!compile_shader_spirv(words, &program, &error)) {
        ++rejected;
        EXPECT_FALSE(error.empty());
      }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_LT(rejected, rounds);
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
