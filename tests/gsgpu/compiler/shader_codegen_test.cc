// Graphics shaders in the code generator (lower_shader.cc, lower_shader_ops.cc): GLSL in shaders/,
// compiled by glslangValidator at build time, becomes vertex and fragment programs with the
// interface docs/isa.md §8c / §8d gives them; what is not supported fails with a message naming it;
// mutated modules compile or fail, never crash. The programs run against lavapipe in
// tests/gsgpu/graphics_golden/shader_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/compiler/spirv_module.h"
#include "tests/gsgpu/compiler/cl_harness.h"
#include "tests/gsgpu/compiler/shader_clip_distance_vert.h"
#include "tests/gsgpu/compiler/shader_geometry_geom.h"
#include "tests/gsgpu/compiler/shader_flat_colour_frag.h"
#include "tests/gsgpu/compiler/shader_matrix_vert.h"
#include "tests/gsgpu/compiler/shader_pattern_frag.h"
#include "tests/gsgpu/compiler/shader_point_coord_frag.h"
#include "tests/gsgpu/compiler/shader_sample_id_frag.h"
#include "tests/gsgpu/compiler/shader_sample_input_frag.h"
#include "tests/gsgpu/compiler/shader_storage_buffer_frag.h"
#include "tests/gsgpu/compiler/shader_texture_frag.h"
#include "tests/gsgpu/compiler/shader_texture_array_frag.h"
#include "tests/gsgpu/compiler/shader_texture_call_frag.h"
#include "tests/gsgpu/compiler/shader_texture_cube_frag.h"
#include "tests/gsgpu/compiler/shader_texture_forms_frag.h"
#include "tests/gsgpu/compiler/shader_texture_grad_frag.h"
#include "tests/gsgpu/compiler/shader_texture_ms_frag.h"
#include "tests/gsgpu/compiler/shader_texture_offset_frag.h"
#include "tests/gsgpu/compiler/shader_texture_unused_frag.h"
#include "tests/gsgpu/compiler/shader_texture_vertex_vert.h"
#include "tests/gsgpu/compiler/shader_transform_vert.h"
#include "tests/gsgpu/compiler/shader_two_targets_frag.h"
#include "tests/gsgpu/compiler/shader_uniform_scalar_array_vert.h"
#include "tests/gsgpu/compiler/shader_uniforms_vert.h"
#include "tests/gsgpu/compiler/shader_vkcube_frag.h"
#include "tests/gsgpu/compiler/shader_vkcube_vert.h"
#include "tests/gsgpu/compiler/shader_texel_buffer_frag.h"
#include "tests/gsgpu/compiler/shader_texture_proj_frag.h"
#include "tests/gsgpu/compiler/shader_texture_1d_frag.h"
#include "tests/gsgpu/compiler/shader_view_index_vert.h"
#include "tests/gsgpu/compiler/shader_zink_forms_frag.h"
#include "tests/gsgpu/compiler/shader_xfb_clip_distance_vert.h"
#include "tests/gsgpu/compiler/shader_xfb_forms_vert.h"

namespace gsgpu::compiler::testing {
namespace {

const CompiledKernel* compiled(std::span<const uint32_t> spirv, CompiledProgram* program) {
  std::string error;
  EXPECT_TRUE(compile_shader_spirv(spirv, program, &error)) << error;
  if (program->kernels.size() != 1) return nullptr;
  return &program->kernels[0];
}

std::string refusal(std::span<const uint32_t> spirv) {
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_shader_spirv(spirv, &program, &error));
  return error;
}

// transform.vert: attributes 0 and 1 in v0..v7, the vertex and instance index after them (v8, v9),
// the position exported to slots 0..3, varyings at 4 + 4 Location + component.
TEST(ShaderCodegen, VertexShaderReadsAttributesAndExportsPositionAndVaryings) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_transform_vert, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(k->stage, ShaderStage::kVertex);
  EXPECT_EQ(k->vertex_attributes, 2u);
  EXPECT_EQ(k->varying_components, 9u);  // colour 0..3, uv 4..5, index 8
  EXPECT_GE(k->vector_registers, 10u);   // the preloaded registers count as used
  for (int slot : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12})
    EXPECT_EQ(count_lines(s, "v_export_vertex_f32 v\\d+, " + std::to_string(slot) + " +;"), 1u) << slot << "\n" << s;
  EXPECT_EQ(count_lines(s, R"(v_export_vertex_f32 \S+, (10|11|13|14|15) +;)"), 0u) << s;
  EXPECT_EQ(count_lines(s, R"(v_mov_b32 v\d+, v8 +;)"), 1u) << s;  // gl_VertexIndex
  EXPECT_EQ(count_lines(s, R"(v_mov_b32 v\d+, v9 +;)"), 1u) << s;  // gl_InstanceIndex
  EXPECT_EQ(count_lines(s, "v_(interp|export_f32|kill)"), 0u) << s;
  EXPECT_EQ(k->private_bytes, 0u);
}

// pattern.frag: gl_FragCoord from v0/v1, gl_FrontFacing from v4, each varying with its
// decoration's interpolation, discard, a derivative, colour and depth exports.
TEST(ShaderCodegen, FragmentShaderInterpolatesKillsAndExports) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_pattern_frag, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(k->stage, ShaderStage::kFragment);
  EXPECT_EQ(k->varying_components, 9u);
  EXPECT_EQ(count_lines(s, R"(v_interp_persp_f32 v\d+, [0-2] +;)"), 3u) << s;  // color.rgb (a unused)
  EXPECT_EQ(count_lines(s, R"(v_interp_linear_f32 v\d+, [45] +;)"), 2u) << s;  // uv
  EXPECT_EQ(k->linear_varyings, 0x30u);  // uv's components 4, 5: SHADER_STATE LINEAR_VARYINGS for clipping
  EXPECT_EQ(count_lines(s, R"(v_interp_flat_f32 v\d+, 8 +;)"), 1u) << s;       // index
  EXPECT_EQ(count_lines(s, R"(v_mov_b32 v\d+, v[014] +;)"), 3u) << s;          // FragCoord.xy, FrontFacing
  EXPECT_EQ(count_lines(s, R"(v_kill)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_ddx_fine_f32)"), 1u) << s;
  for (int slot : {0, 1, 2, 3, 8})
    EXPECT_EQ(count_lines(s, "v_export_f32 v\\d+, " + std::to_string(slot) + " +;"), 1u) << slot << "\n" << s;
  EXPECT_EQ(count_lines(s, "v_export_vertex_f32"), 0u) << s;
}

// flat_colour.frag (bench/graphics' flat fill): the outputs' zeroing and the copies into them are gone,
// the exports read the loaded push constants, and neither FragCoord nor FrontFacing is read
// (SHADER_STATE FRAGMENT.NO_FRAGCOORD / NO_FACING); pattern.frag reads both.
TEST(ShaderCodegen, AFlatColourIsLoadedAndExportedWithoutCopies) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_flat_colour_frag, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, "v_mov_b32"), 0u) << s;
  EXPECT_EQ(count_lines(s, R"(const_load_b32 v\d+, s\[0:1\], (0|4|8|12) +;)"), 4u) << s;
  for (int slot : {0, 1, 2, 3})
    EXPECT_EQ(count_lines(s, "v_export_f32 v\\d+, " + std::to_string(slot) + " +;"), 1u) << slot << "\n" << s;
  EXPECT_FALSE(k->reads_frag_coord);
  EXPECT_FALSE(k->reads_front_facing);
  CompiledProgram pattern_program;
  const CompiledKernel* pattern = compiled(shader_pattern_frag, &pattern_program);
  ASSERT_NE(pattern, nullptr);
  EXPECT_TRUE(pattern->reads_frag_coord);
  EXPECT_TRUE(pattern->reads_front_facing);
}

TEST(ShaderCodegen, EveryMatrixInstructionCompiles) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_matrix_vert, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->varying_components, 3u);
  // n[gl_VertexIndex % 3]: a run-time index into a matrix held in registers is a select chain.
  EXPECT_GE(count_lines(k->assembly, R"(v_cndmask_b32)"), 6u) << k->assembly;
}

// The constant buffer (docs/compiler.md "Constant buffer"): s[0:1] = arg_ptr; push constants at their
// Offsets; each uniform buffer's VA loaded once from the table at 128 + 8 (16 set + binding).
TEST(ShaderCodegen, PushConstantsAndUniformBuffersReadTheConstantBuffer) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_uniforms_vert, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, R"(s_special s\[0:1\], arg_ptr)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(s_load_b64 s\[2:3\], s\[0:1\], 128 +;)"), 1u) << s;             // set 0, binding 0
  EXPECT_EQ(count_lines(s, R"(s_load_b64 s\[4:5\], s\[0:1\], 280 +;)"), 1u) << s;             // set 1, binding 3
  EXPECT_EQ(count_lines(s, R"(const_load_b32 v\d+, s\[0:1\], (0x)?[0-9a-f]+ +;)"), 4u) << s;  // scale
  EXPECT_EQ(count_lines(s, R"(const_load_b32 v\d+, s\[2:3\])"), 16u) << s;                    // transform
  EXPECT_EQ(count_lines(s, R"(const_load_b32 v\d+, s\[4:5\])"), 4u) << s;                     // offset
  EXPECT_EQ(k->constant_buffer_bytes, 0x118u + 8);
}

// Blocks follow their ArrayStride (std140's 16-byte floats here; the scalar layout's 12-byte vec3s
// in tests/gsgpu/vk/scalar_block_test.cc against lavapipe): a run-time index is scaled by 16.
TEST(ShaderCodegen, BlockArraysFollowTheirArrayStride) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_uniform_scalar_array_vert, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, R"(v_mul_wide_i32 v\[\d+:\d+\], v\d+, 0x10\b)"), 1u) << k->assembly;
}

// gl_ClipDistance: every element exported in slots 69.. (docs/isa.md §8d) and counted for
// SHADER_STATE VERTEX.CLIP_DISTANCES.
TEST(ShaderCodegen, ClipDistancesAreExportedAfterThePointSize) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_clip_distance_vert, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->clip_distances, 1u);
  EXPECT_EQ(k->cull_distances, 0u);
  EXPECT_EQ(count_lines(k->assembly, R"(v_export_vertex_f32 v\d+, 69\b)"), 1u) << k->assembly;
}

// Transform feedback (ExecutionMode Xfb): each captured output's export slots, buffer and byte
// offset, consecutive components merged into runs, and each buffer's XfbStride; outputs without an
// Offset are not captured; a captured gl_ClipDistance element c is slot 69 + c.
TEST(ShaderCodegen, TransformFeedbackOutputsBecomeRunsOfExportSlots) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_xfb_forms_vert, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->xfb);
  std::vector<XfbOutputRun> runs = k->xfb_outputs;
  std::sort(runs.begin(), runs.end(), [](const XfbOutputRun& a, const XfbOutputRun& b) { return a.slot < b.slot; });
  const std::vector<XfbOutputRun> want = {
      {0, 4, 0, 0},    // gl_Position, slots 0..3
      {10, 1, 2, 8},   // fog: Location 1 Component 2, varying 6, slot 10
      {12, 3, 0, 16},  // normal: Location 2, varyings 8..10
  };
  EXPECT_EQ(runs, want);
  EXPECT_EQ(k->xfb_strides, (std::array<uint32_t, 4>{28, 0, 12, 0}));
  CompiledProgram plain;
  const CompiledKernel* t = compiled(shader_transform_vert, &plain);
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->xfb);
  EXPECT_TRUE(t->xfb_outputs.empty());
  CompiledProgram clip;
  const CompiledKernel* d = compiled(shader_xfb_clip_distance_vert, &clip);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->xfb_outputs, (std::vector<XfbOutputRun>{{0, 4, 0, 0}, {69, 1, 0, 16}}));
}

// zink declares ExecutionMode Xfb in the fragment shader of a program whose vertex shader captures
// (piglit's ext_transform_feedback tests): it captures nothing there, so pattern.frag with it
// compiles to the same program.
TEST(ShaderCodegen, XfbDeclaredInAFragmentShaderCompilesAsWithout) {
  std::vector<uint32_t> declared(std::begin(shader_pattern_frag), std::end(shader_pattern_frag));
  // After the OpEntryPoint (opcode 15): OpExecutionMode (16) %entry Xfb (11).
  size_t at = 5;
  while (at < declared.size() && (declared[at] & 0xFFFF) != 15) at += declared[at] >> 16;
  ASSERT_LT(at, declared.size());
  const uint32_t entry = declared[at + 2];
  const uint32_t execution_mode_xfb[] = {0x00030010, entry, 11};
  declared.insert(declared.begin() + at + (declared[at] >> 16), std::begin(execution_mode_xfb),
                  std::end(execution_mode_xfb));
  CompiledProgram plain, with_xfb;
  const CompiledKernel* a = compiled(shader_pattern_frag, &plain);
  const CompiledKernel* b = compiled(declared, &with_xfb);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->assembly, b->assembly);
  EXPECT_TRUE(b->xfb_outputs.empty());
}

TEST(ShaderCodegen, UnsupportedFeaturesFailNamingThem) {
  EXPECT_NE(refusal(shader_storage_buffer_frag).find("BufferBlock"), std::string::npos);
  EXPECT_NE(refusal(shader_texel_buffer_frag).find("SampledBuffer"), std::string::npos);  // texel buffers
  EXPECT_NE(refusal(shader_point_coord_frag).find("PointCoord"), std::string::npos);
  EXPECT_NE(refusal(shader_sample_id_frag).find("SampleId"), std::string::npos);
  EXPECT_NE(refusal(shader_sample_input_frag).find("decorated Sample"), std::string::npos);
  EXPECT_NE(refusal(shader_geometry_geom).find("Geometry"), std::string::npos);
  // Messages name the stage and entry point.
  EXPECT_NE(refusal(shader_point_coord_frag).find("fragment shader main"), std::string::npos);
}

// zink declares SampleRateShading in fragment shaders that shade nothing per sample (glmark2's
// terrain): the capability alone changes nothing, so pattern.frag with it compiles to the same program.
TEST(ShaderCodegen, SampleRateShadingDeclaredAloneCompilesAsWithout) {
  std::vector<uint32_t> declared(std::begin(shader_pattern_frag), std::end(shader_pattern_frag));
  constexpr uint32_t kOpCapabilitySampleRateShading[] = {0x00020011, 35};
  declared.insert(declared.begin() + 5, std::begin(kOpCapabilitySampleRateShading),
                  std::end(kOpCapabilitySampleRateShading));  // after the 5-word header
  CompiledProgram plain, with_capability;
  const CompiledKernel* a = compiled(shader_pattern_frag, &plain);
  const CompiledKernel* b = compiled(declared, &with_capability);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->assembly, b->assembly);
}

// What zink emits for GL 2.1 (zink_forms.frag): a uniform buffer declared as an array of one block
// reads the table entry of its binding (128) and the member at its offset (16); the outputs at
// Locations 0, 1 and 7 go to colour targets 0, 1 and 7: export slots 0..3, 9..12 and 33..36
// (isa::export_slot_of_target). two_targets.frag exports Locations 0 and 1 the same way.
TEST(ShaderCodegen, ZinkFormsOneBlockArraysAndOutputsPerColourTarget) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_zink_forms_frag, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, R"(s_load_b64 s\[\d+:\d+\], s\[0:1\], 128 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, "v_export_f32"), 12u) << s;  // three Locations' four components
  for (int slot : {0, 1, 2, 3, 9, 10, 11, 12, 33, 34, 35, 36})
    EXPECT_EQ(count_lines(s, "v_export_f32 v\\d+, " + std::to_string(slot) + " +;"), 1u) << slot << "\n" << s;
  CompiledProgram two;
  const CompiledKernel* t = compiled(shader_two_targets_frag, &two);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(count_lines(t->assembly, "v_export_f32"), 8u) << t->assembly;
  EXPECT_EQ(count_lines(t->assembly, "v_export_f32 [^,]+, 9 +;"), 1u) << t->assembly;
}

// textureProj: the coordinates divided by q (two v_div_f32 for a 2D image), then one implicit-LOD
// sample.
TEST(ShaderCodegen, ProjectiveSampleDividesByQ) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_proj_frag, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, "v_div_f32"), 2u) << k->assembly;
  EXPECT_EQ(count_lines(k->assembly, "v_image_sample_implicit"), 1u) << k->assembly;
  CompiledProgram one_d;  // a 1D texture (capability Sampled1D): the same sample, one coordinate
  const CompiledKernel* t = compiled(shader_texture_1d_frag, &one_d);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(count_lines(t->assembly, "v_image_sample_implicit"), 1u) << t->assembly;
}

// gl_ViewIndex (multiview): one s_load_b32 of constant-buffer byte 640, moved into the register the
// shader reads; the program reads the constant buffer up to 644.
TEST(ShaderCodegen, ViewIndexIsTheConstantBufferWordAfterTheTable) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_view_index_vert, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, R"(s_load_b32 s\d+, s\[0:1\], 640 +;)"), 1u) << k->assembly;
  EXPECT_EQ(k->constant_buffer_bytes, 644u);
}

// texture.frag (a combined image sampler at set 0, binding 0): the table entry 128 is the VA of the
// texture record, loaded once into a scalar pair; the SAMPLER_STATE word and the bias come from the
// record's SAMPLER_DESC (bytes 64 and 76); texture() is the implicit-LOD sample with the bias as
// its LOD channel.
TEST(ShaderCodegen, CombinedImageSamplerReadsItsTextureRecord) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_frag, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, R"(s_special s\[0:1\], arg_ptr)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(s_load_b64 s\[2:3\], s\[0:1\], 128 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(s_load_b32 s4, s\[2:3\], 64 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(s_load_b32 s5, s\[2:3\], 76 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_mov_b32 v\d+, s5 +;)"), 1u) << s;  // the bias into the LOD channel
  EXPECT_EQ(count_lines(s, R"(v_image_sample_implicit v\[\d+:\d+\], s\[2:3\], v\[\d+:\d+\], s4 +;)"), 1u) << s;
  EXPECT_EQ(k->constant_buffer_bytes, 136u);
  EXPECT_EQ(k->varying_components, 2u);
}

// texture_forms.frag: separate images and samplers (OpSampledImage), textureLod (explicit LOD plus
// the sampler's bias), texture() with a Bias, a 2D array, textureSize and texelFetch.
TEST(ShaderCodegen, TextureFormsCompileToTheImageInstructions) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_forms_frag, &program);
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  // (1, 2) -> 128 + 8 * 18, (1, 3) -> 280, (0, 1) -> 136: each entry loaded once.
  for (int offset : {136, 272, 280})
    EXPECT_EQ(count_lines(s, "s_load_b64 s\\[\\d+:\\d+\\], s\\[0:1\\], " + std::to_string(offset) + " +;"), 1u) << offset << s;
  EXPECT_EQ(count_lines(s, R"(s_load_b32 s\d+, s\[\d+:\d+\], (64|76) +;)"), 4u) << s;  // two samplers
  EXPECT_EQ(count_lines(s, R"(v_image_sample v)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_sample_implicit v)"), 2u) << s;
  // Lod + the sampler's bias, Bias + the sampler's bias (uniform: scalar adds).
  EXPECT_EQ(count_lines(s, R"([sv]_add_f32 [sv]\d+, 0x3fc00000, s7 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"([sv]_add_f32 [sv]\d+, 0x3e800000, s7 +;)"), 1u) << s;
  // The Bias sum clamped to maxSamplerLodBias (+-15): one max and one min.
  EXPECT_EQ(count_lines(s, R"([sv]_max_f32 [sv]\d+, [sv]\d+, 0xc1700000 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"([sv]_min_f32 [sv]\d+, [sv]\d+, 0x41700000 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_query v\d+, s\[\d+:\d+\], 0x0, (width|height) +;)"), 2u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_load v)"), 1u) << s;
  EXPECT_EQ(k->constant_buffer_bytes, 288u);
}

// texelFetch on a sampler2DMS: OpImageFetch with the Sample operand becomes v_image_load with the
// sample index in channel 3 (the texture unit reads a multisampled IMAGE_DESC's sample there).
TEST(ShaderCodegen, MultisampledFetchPassesTheSampleIndexInTheLevelChannel) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_ms_frag, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, R"(v_image_load v)"), 2u) << k->assembly;
  EXPECT_EQ(count_lines(k->assembly, R"(v_image_sample)"), 0u) << k->assembly;
  EXPECT_EQ(count_lines(k->assembly, R"(v_and_b32 v\d+, v\d+, 0x3 +;|v_and_b32 v\d+, 0x3, v\d+ +;)"), 1u) << k->assembly;
}

// A sampler2D passed to a function (glslang passes the UniformConstant pointer), at set 2,
// binding 15 (the table's last entry of set 2); textureLod in a vertex shader.
TEST(ShaderCodegen, TexturesPassThroughCallsAndSampleInVertexShaders) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_call_frag, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, R"(s_load_b64 s\[2:3\], s\[0:1\], 504 +;)"), 1u) << k->assembly;
  EXPECT_EQ(count_lines(k->assembly, R"(v_image_sample_implicit)"), 1u) << k->assembly;
  CompiledProgram vertex_program;
  const CompiledKernel* v = compiled(shader_texture_vertex_vert, &vertex_program);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(count_lines(v->assembly, R"(v_image_sample v)"), 1u) << v->assembly;
  EXPECT_EQ(count_lines(v->assembly, R"(v_image_sample_implicit)"), 0u) << v->assembly;
}

// A texture the shader never uses reads nothing: its binding may be absent from the layout, and a
// load of its sampler word through a zero table entry would fault.
TEST(ShaderCodegen, UnusedTexturesReadNothing) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_unused_frag, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(count_lines(k->assembly, R"(s_load)"), 0u) << k->assembly;
  EXPECT_EQ(k->constant_buffer_bytes, 0u);
}

// The words of the first instruction with `opcode` in a module (after the 5-word header).
size_t find_instruction(const std::vector<uint32_t>& words, uint32_t opcode) {
  for (size_t at = 5; at < words.size(); at += words[at] >> 16) {
    if ((words[at] & 0xffff) == opcode) return at;
    if (words[at] >> 16 == 0) break;
  }
  return words.size();
}

// An array of textures (texture_array.frag: sampler2D images[2], images[1] read): the program
// names its table slot and length for the driver, and element 1's record is 128 bytes past element
// 0's, its sampler word and bias loaded from there. A constant index past the array is refused.
TEST(ShaderCodegen, ArraysOfTexturesIndexTheirRecords) {
  CompiledProgram program;
  const CompiledKernel* k = compiled(shader_texture_array_frag, &program);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->texture_arrays, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}}));
  EXPECT_EQ(count_lines(k->assembly, R"(v_image_sample_implicit)"), 1u) << k->assembly;
  EXPECT_EQ(count_lines(k->assembly, R"(, 128 +;)"), 1u) << k->assembly;  // element 1's record
  // The access chain's index: a constant 1; made 7, past the array of 2.
  std::vector<uint32_t> past(std::begin(shader_texture_array_frag), std::end(shader_texture_array_frag));
  const size_t chain = find_instruction(past, static_cast<uint32_t>(spv::Op::OpAccessChain));
  ASSERT_LT(chain + 4, past.size());
  for (size_t at = 5; at < past.size() && (past[at] >> 16) != 0; at += past[at] >> 16)
    if ((past[at] & 0xffff) == static_cast<uint32_t>(spv::Op::OpConstant) && past[at + 2] == past[chain + 4]) past[at + 3] = 7;
  EXPECT_NE(refusal(past).find("texture 7 of an array of 2"), std::string::npos);
}

// ConstOffset becomes the image instruction's texel offset immediate (isa::pack_texel_offset: x in
// bits 3:0, y in 7:4) on implicit, explicit-LOD, fetch and depth-compare forms. A run-time Offset
// (ImageGatherExtended, not offered) and ConstOffsets fail naming them.
TEST(ShaderCodegen, ConstOffsetsBecomeTheTexelOffsetImmediate) {
  CompiledProgram program;
  const CompiledKernel* f = compiled(shader_texture_offset_frag, &program);
  ASSERT_NE(f, nullptr);
  const std::string& s = f->assembly;
  EXPECT_EQ(count_lines(s, R"(v_image_sample_implicit v\[\d+:\d+\], s\[\d+:\d+\], v\[\d+:\d+\], s\d+, 1 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_sample v\[\d+:\d+\], s\[\d+:\d+\], v\[\d+:\d+\], s\d+, 120 +;)"), 1u) << s;  // (-8, 7)
  EXPECT_EQ(count_lines(s, R"(v_image_load v\[\d+:\d+\], s\[\d+:\d+\], v\[\d+:\d+\], 240 +;)"), 1u) << s;  // (0, -1)
  EXPECT_EQ(count_lines(s, R"(v_image_sample_implicit v\[\d+:\d+\], s\[\d+:\d+\], v\[\d+:\d+\], s\d+, 50 +;)"), 1u) << s;  // (2, 3)
  // textureOffset's OpImageSampleImplicitLod: result type, id, sampled image, coordinate, mask, offset.
  const std::vector<uint32_t> base(std::begin(shader_texture_offset_frag), std::end(shader_texture_offset_frag));
  const size_t at = find_instruction(base, static_cast<uint32_t>(spv::Op::OpImageSampleImplicitLod));
  ASSERT_LT(at + 6, base.size());
  ASSERT_EQ(base[at + 5], static_cast<uint32_t>(spv::ImageOperandsMask::ConstOffset));
  std::vector<uint32_t> run_time = base;
  run_time[at + 5] = static_cast<uint32_t>(spv::ImageOperandsMask::Offset);
  run_time[at + 6] = base[at + 4];  // the coordinate: not a constant
  EXPECT_NE(refusal(run_time).find("run-time texel Offset"), std::string::npos);
  std::vector<uint32_t> offsets = base;
  offsets[at + 5] = static_cast<uint32_t>(spv::ImageOperandsMask::ConstOffsets);
  EXPECT_NE(refusal(offsets).find("ConstOffsets"), std::string::npos);
}

// textureGrad: the program computes Vulkan's LOD from the gradients and the image's size
// (v_image_query, v_log2_f32) and samples at it (v_image_sample).
TEST(ShaderCodegen, ExplicitGradientsBecomeAnExplicitLod) {
  CompiledProgram program;
  const CompiledKernel* f = compiled(shader_texture_grad_frag, &program);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(count_lines(f->assembly, R"(v_image_sample v)"), 1u) << f->assembly;
  EXPECT_EQ(count_lines(f->assembly, R"(v_log2_f32)"), 1u) << f->assembly;
  EXPECT_GE(count_lines(f->assembly, R"(v_image_query)"), 1u) << f->assembly;
}

// samplerCube: the direction is the coordinate quad's x, y, z; the texture unit picks the face.
TEST(ShaderCodegen, CubeSamplesPassTheDirection) {
  CompiledProgram program;
  const CompiledKernel* f = compiled(shader_texture_cube_frag, &program);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(count_lines(f->assembly, R"(v_image_sample_implicit)"), 1u) << f->assembly;
}

// vkcube's shaders (GLSL as in vulkan-tools): the vertex shader reads the MVP matrix and its
// position and texture coordinate from the uniform buffer at binding 0 by gl_VertexIndex; the
// fragment shader samples the combined image sampler at binding 1 (table entry 136).
TEST(ShaderCodegen, VkcubeShadersCompile) {
  CompiledProgram vertex_program, fragment_program;
  const CompiledKernel* v = compiled(shader_vkcube_vert, &vertex_program);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->vertex_attributes, 0u);
  EXPECT_EQ(v->varying_components, 7u);  // texcoord 0..3, frag_pos 4..6
  EXPECT_EQ(v->constant_buffer_bytes, 136u);
  const CompiledKernel* f = compiled(shader_vkcube_frag, &fragment_program);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(count_lines(f->assembly, R"(s_load_b64 s\[2:3\], s\[0:1\], 136 +;)"), 1u) << f->assembly;
  EXPECT_EQ(count_lines(f->assembly, R"(v_image_sample_implicit)"), 1u) << f->assembly;
  EXPECT_EQ(f->constant_buffer_bytes, 144u);
}

// The SPIR-V embedded in the installed vkcube (vulkan-tools; skipped without it): the two modules
// found by their magic number, each walked instruction by instruction to its end.
TEST(ShaderCodegen, InstalledVkcubeShadersCompile) {
  std::ifstream file("/usr/bin/vkcube", std::ios::binary);
  if (!file) GTEST_SKIP() << "/usr/bin/vkcube (vulkan-tools) is not installed";
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::vector<uint32_t>> modules;
  for (size_t at = 0; at + 20 <= bytes.size(); at += 4) {
    uint32_t magic = 0;
    std::memcpy(&magic, &bytes[at], 4);
    if (magic != 0x07230203u) continue;
    std::vector<uint32_t> words(5);
    std::memcpy(words.data(), &bytes[at], 20);
    for (size_t i = at + 20; i + 4 <= bytes.size();) {
      uint32_t head = 0;
      std::memcpy(&head, &bytes[i], 4);
      const size_t count = head >> 16, opcode = head & 0xffff;
      if (count == 0 || opcode == 0 || opcode > 5000 || i + 4 * count > bytes.size()) break;
      const size_t first = words.size();
      words.resize(first + count);
      std::memcpy(&words[first], &bytes[i], 4 * count);
      i += 4 * count;
    }
    modules.push_back(std::move(words));
  }
  ASSERT_EQ(modules.size(), 2u) << "vkcube embeds a vertex and a fragment module";
  std::vector<ShaderStage> stages;
  for (const std::vector<uint32_t>& m : modules) {
    CompiledProgram program;
    const CompiledKernel* k = compiled(m, &program);
    ASSERT_NE(k, nullptr);
    stages.push_back(k->stage);
    if (k->stage == ShaderStage::kFragment)
      EXPECT_EQ(count_lines(k->assembly, R"(v_image_sample_implicit)"), 1u) << k->assembly;
  }
  EXPECT_NE(std::find(stages.begin(), stages.end(), ShaderStage::kVertex), stages.end());
  EXPECT_NE(std::find(stages.begin(), stages.end(), ShaderStage::kFragment), stages.end());
}

// A program that would spill fails: vertex and fragment dispatches have no private memory.
TEST(ShaderCodegen, SpillingIsRefusedForWantOfPrivateMemory) {
  CompileOptions options;
  options.max_vector_registers = 12;  // v0..v4 preloaded: too few left for pattern.frag
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_shader_spirv(std::span<const uint32_t>(shader_pattern_frag), &program, &error, options));
  EXPECT_NE(error.find("spilled values in private memory"), std::string::npos) << error;
  EXPECT_NE(error.find("fragment shader main"), std::string::npos) << error;
}

// OriginLowerLeft (patched in: glslang always writes OriginUpperLeft for Vulkan).
TEST(ShaderCodegen, LowerLeftOriginIsRefused) {
  std::vector<uint32_t> words(std::begin(shader_pattern_frag), std::end(shader_pattern_frag));
  bool patched = false;
  for (size_t at = 5; at < words.size(); at += words[at] >> 16) {
    if ((words[at] & 0xffff) == uint32_t(spv::Op::OpExecutionMode) &&
        words[at + 2] == uint32_t(spv::ExecutionMode::OriginUpperLeft)) {
      words[at + 2] = uint32_t(spv::ExecutionMode::OriginLowerLeft);
      patched = true;
    }
    if ((words[at] >> 16) == 0) break;
  }
  ASSERT_TRUE(patched);
  EXPECT_NE(refusal(words).find("OriginLowerLeft"), std::string::npos);
}

TEST(ShaderCodegen, KernelsAndShadersStayApart) {
  // The OpenCL entry (compile_spirv) compiles no graphics entry point, and the graphics one no kernel.
  CompiledProgram program;
  std::string error;
  ASSERT_TRUE(compile_spirv(std::span<const uint32_t>(shader_pattern_frag), &program, &error)) << error;
  EXPECT_TRUE(program.kernels.empty());
}

// Random edits of valid vertex and fragment modules (as ImageCodegen.MutatedImageModulesNeverCrash):
// each compiles or fails with a message.
TEST(ShaderCodegen, MutatedShaderModulesNeverCrash) {
  for (std::span<const uint32_t> base :
       {std::span<const uint32_t>(shader_transform_vert), std::span<const uint32_t>(shader_pattern_frag),
        std::span<const uint32_t>(shader_matrix_vert), std::span<const uint32_t>(shader_texture_forms_frag),
        std::span<const uint32_t>(shader_vkcube_frag), std::span<const uint32_t>(shader_texture_offset_frag)}) {
    std::mt19937 rng(97);
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
    EXPECT_LT(rejected, rounds);  // some edits keep a valid module, which compiles
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
