// Golden scenes of compiled shaders: GLSL (shaders/transform.vert, checker.frag, pattern.frag)
// compiled by glslangValidator at build time; the same SPIR-V runs on lavapipe and, compiled by
// gsgpu/compiler (compile_shader_spirv), as vertex and fragment programs on gsgpu.
#include <bit>
#include <span>

#include "tests/gsgpu/graphics_golden/golden_fixture.h"
#include "tests/gsgpu/graphics_golden/shader_checker_frag.h"
#include "tests/gsgpu/graphics_golden/shader_flat_frag.h"
#include "tests/gsgpu/graphics_golden/shader_pattern_frag.h"
#include "tests/gsgpu/graphics_golden/shader_points_vert.h"
#include "tests/gsgpu/graphics_golden/shader_pushed_frag.h"
#include "tests/gsgpu/graphics_golden/shader_pushed_vert.h"
#include "tests/gsgpu/graphics_golden/shader_transform_exact_vert.h"
#include "tests/gsgpu/graphics_golden/shader_transform_rotate_vert.h"
#include "tests/gsgpu/graphics_golden/shader_uniform_frag.h"
#include "tests/gsgpu/graphics_golden/shader_uniform_vert.h"

namespace gsgpu::golden {
namespace {

// The inverse of transform.vert's exact transform (x 0.75 then + (0.125, -0.0625)): the vertex that
// lands on pixel (x, y).
Vertex exact_at(const Scene& s, float x, float y, float z, Vec4 color) {
  Vertex v = at(s, x, y, z, color);
  v.position[0] = (v.position[0] - 0.125f) / 0.75f;
  v.position[1] = (v.position[1] + 0.0625f) / 0.75f;
  return v;
}

// A checkerboard with stripes counted by a loop, a palette indexed at run time, a discarded hole and
// an exported depth, on two overlapping triangles (depth LESS: the exported depth decides) and a second
// instance (the same triangles: its equal depths fail LESS, so the first instance's index shows).
TEST_F(GoldenTest, CompiledShadersCheckerboard) {
  Scene s;
  s.name = "spirv_checkerboard";
  s.depth_format = kD32Sfloat;
  s.clear_color = u8(5, 5, 5);
  Draw d;
  d.vertex_spirv = shader_transform_exact_vert;
  d.fragment_spirv = shader_checker_frag;
  d.depth_test = d.depth_write = true;
  d.vertices = {exact_at(s, 1, 1, 0.5f, u8(200, 100, 50)), exact_at(s, 1, 63, 0.5f, u8(10, 20, 30)),
                exact_at(s, 63, 1, 0.5f, u8(0, 0, 0)),     exact_at(s, 63, 63, 0.2f, u8(90, 180, 240)),
                exact_at(s, 63, 8, 0.2f, u8(1, 2, 3)),     exact_at(s, 8, 63, 0.2f, u8(4, 5, 6))};
  d.instance_count = 2;
  s.draws.push_back(d);
  check(s, {0, 0, true, 0});
}

// Rings, reflection, a loop with a break, derivatives and a discard on smooth colours under a rotation
// and a perspective divide: compared by the metric.
TEST_F(GoldenTest, CompiledShadersPattern) {
  Scene s;
  s.name = "spirv_pattern";
  s.depth_format = kD32Sfloat;
  s.clear_color = u8(0, 0, 40);
  Draw d;
  d.vertex_spirv = shader_transform_rotate_vert;
  d.fragment_spirv = shader_pattern_frag;
  d.depth_test = d.depth_write = true;
  d.vertices = {{{-0.9f, -0.9f, 0.2f, 1}, {1, 0, 0, 1}}, {{-0.9f, 0.9f, 0.3f, 1}, {0, 1, 0, 1}},
                {{0.9f, -0.9f, 0.4f, 1}, {0, 0, 1, 1}},  {{0.9f, 0.9f, 0.5f, 1}, {1, 1, 1, 1}},
                {{0.9f, -0.9f, 0.4f, 1}, {0, 0, 1, 1}},  {{-0.9f, 0.9f, 0.3f, 1}, {0, 1, 0, 1}}};
  s.draws.push_back(d);
  check(s, {0.01, 255, false, 5e-5});
}

// Push constants read by both stages (a transform, a tint, a stripe width), different in each of two
// draws: vkCmdPushConstants on lavapipe, SHADER_STATE's constant buffer on gsgpu.
TEST_F(GoldenTest, CompiledShadersPushConstants) {
  Scene s;
  s.name = "spirv_push_constants";
  s.clear_color = u8(0, 0, 0);
  for (int i = 0; i < 2; ++i) {
    Draw d;
    d.vertex_spirv = shader_pushed_vert;
    d.fragment_spirv = shader_pushed_frag;
    // Column-major transform: scale by 0.5 (i = 1: 0.25), move by (-0.5, -0.5) (i = 1: (0.5, 0.25)).
    const float k = i == 0 ? 0.5f : 0.25f, tx = i == 0 ? -0.5f : 0.5f, ty = i == 0 ? -0.5f : 0.25f;
    const float transform[16] = {k, 0, 0, 0, 0, k, 0, 0, 0, 0, 1, 0, tx, ty, 0, 1};
    const Vec4 tint = i == 0 ? u8(250, 128, 3) : u8(7, 99, 201, 100);
    for (float v : transform) d.push_constants.push_back(std::bit_cast<uint32_t>(v));
    for (float v : tint) d.push_constants.push_back(std::bit_cast<uint32_t>(v));
    d.push_constants.push_back(i == 0 ? 3 : 5);  // stripe_width (an int at offset 80)
    d.vertices = {{{-0.9f, -0.9f, 0, 1}, u8(10, 200, 30)}, {{-0.9f, 0.9f, 0, 1}, u8(0, 0, 0)},
                  {{0.9f, -0.9f, 0, 1}, u8(1, 1, 1)},      {{0.9f, 0.9f, 0, 1}, u8(40, 50, 250)},
                  {{0.9f, -0.9f, 0, 1}, u8(2, 2, 2)},      {{-0.9f, 0.9f, 0, 1}, u8(3, 3, 3)}};
    s.draws.push_back(d);
  }
  check(s, {0, 0});
}

// A uniform buffer read by both stages (a transform, a colour table indexed at run time in both, band
// parameters), different in each of two draws: a descriptor set on lavapipe; on gsgpu a buffer whose VA
// is the constant buffer's descriptor table entry for set 0, binding 0.
TEST_F(GoldenTest, CompiledShadersUniformBuffer) {
  Scene s;
  s.name = "spirv_uniform_buffer";
  s.clear_color = u8(9, 9, 9);
  for (int i = 0; i < 2; ++i) {
    Draw d;
    d.vertex_spirv = shader_uniform_vert;
    d.fragment_spirv = shader_uniform_frag;
    const float k = i == 0 ? 0.75f : 0.375f, tx = i == 0 ? -0.125f : 0.5f;
    const float transform[16] = {k, 0, 0, 0, 0, k, 0, 0, 0, 0, 1, 0, tx, 0, 0, 1};
    for (float v : transform) d.uniform_buffer.push_back(std::bit_cast<uint32_t>(v));
    for (const Vec4& c : {u8(255, 0, 0), u8(0, 255, 0), u8(0, 0, 255, 128)})
      for (float v : c) d.uniform_buffer.push_back(std::bit_cast<uint32_t>(v));
    for (uint32_t v : {i == 0 ? 4u : 7u, i == 0 ? 2u : 0u, 0u, 0u}) d.uniform_buffer.push_back(v);  // pick
    d.vertices = {{{-1, -1, 0, 1}}, {{-1, 1, 0, 1}}, {{1, -1, 0, 1}}, {{1, 1, 0, 1}}, {{1, -1, 0, 1}}, {{-1, 1, 0, 1}}};
    s.draws.push_back(d);
  }
  check(s, {0, 0});
}

// A point list whose vertex shader writes gl_PointSize (1, 3, 5, 7 pixels by vertex index): the
// exported size replaces PIPE_STATE's on gsgpu.
TEST_F(GoldenTest, CompiledShadersPointSize) {
  Scene s;
  s.name = "spirv_point_size";
  s.clear_color = u8(0, 0, 0);
  Draw d;
  d.vertex_spirv = shader_points_vert;
  d.fragment_spirv = shader_flat_frag;
  d.topology = kPointList;
  for (int i = 0; i < 24; ++i) {
    const float x = 5.5f + float(i % 6) * 10.25f, y = 6 + float(i / 6) * 15.5f;
    d.vertices.push_back(at(s, x, y, 0, u8(40 * (i % 6) + 20, 60 * (i / 6) + 10, 200)));
  }
  s.draws.push_back(d);
  check(s, {0, 0});
}

}  // namespace
}  // namespace gsgpu::golden
