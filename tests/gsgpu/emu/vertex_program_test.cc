// Vertex programs on the shader cores (docs/graphics.md "Vertex programs", docs/isa.md §8d):
// hand-assembled programs that reproduce PassThroughVertexStage give the same bytes on the same
// scenes (with the fixed fragment stand-in and with a fragment program), a transform gives the
// bytes of pre-transformed vertices, the vertex and instance indices arrive after the attributes,
// batches larger than the geometry engine's keep primitive restarts in place, and hostile programs
// end the draw with a fault.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "gsgpu/emu/program_runner.h"
#include "gsgpu/isa/assembler.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

struct VertexScene {
  FlatMemory memory{0x100000, 8 << 20};
  DrawState state;
  uint64_t color_va = 0;
  size_t color_bytes = 0;
  std::unique_ptr<DispatchBackend> backend;
  std::unique_ptr<BackendProgramRunner> runner;

  explicit VertexScene(uint32_t warp_width = 8) {
    backend = make_shader_backend(ShaderCoreSettings{2, warp_width, 1});
    runner = std::make_unique<BackendProgramRunner>(*backend, memory);
    state.width = state.height = 48;
    state.viewport = Viewport{0, 0, 48, 48, 0, 1};
    color_bytes = 48 * 48 * 16;
    color_va = memory.alloc(color_bytes);
    state.color = ColorTargetState{true, color_va, 48 * 16, ColorFormat::kR32G32B32A32Sfloat};
  }
  // 12 floats per vertex: position, varyings 0..3, varyings 4..7.
  void vertices(const std::vector<float>& data, Topology topology) {
    state.input.bindings[0] = VertexBinding{memory.upload(data), data.size() * 4, 48, InputRate::kVertex, 1};
    for (uint32_t a = 0; a < 3; ++a) state.input.attributes[a] = VertexAttribute{0, 109, 16 * a};
    state.input.attribute_count = 3;
    state.draw.count = uint32_t(data.size() / 12);
    state.draw.topology = topology;
  }
  ShaderProgram upload(const std::string& source, uint32_t varyings, uint32_t vregs) {
    std::vector<uint32_t> code;
    std::string error;
    EXPECT_TRUE(isa::assemble(source, &code, &error)) << error << "\n" << source;
    return ShaderProgram{memory.upload(code), uint32_t(code.size() * 4), 0, vregs, 0, varyings};
  }
  void vertex_program(const std::string& source, uint32_t outputs = 8, uint32_t vregs = 16) {
    state.vertex = VertexMode::kProgram;
    state.vertex_program = upload(source, outputs, vregs);
  }
  DrawResult draw() {
    GraphicsPipeline gp(memory);
    gp.set_program_runner(runner.get());
    return gp.draw(state);
  }
  std::vector<uint8_t> target() { return memory.download<uint8_t>(color_va, color_bytes); }
  void clear_target() { std::memset(memory.host(color_va), 0, color_bytes); }
  Color pixel(uint32_t x, uint32_t y) { return ColorTarget{memory.host(color_va), 48, 48, 48 * 16, state.color.format}.load(x, y); }
};

// Attribute a (v[4a .. 4a+3]) to slots 4a .. 4a+3: position, then varyings 0..7 (PassThroughVertexStage).
std::string pass_through_program(uint32_t attributes) {
  std::string s;
  for (uint32_t r = 0; r < 4 * attributes; ++r)
    s += "v_export_vertex_f32 v" + std::to_string(r) + ", " + std::to_string(r) + "\n";
  return s + "s_end\n";
}

std::vector<float> perspective_triangles() {
  return {
      -0.9f, -0.9f, 0.1f, 1.0f, 1, 0, 0, 1, 0.2f, 0.4f, 0.6f, 0.8f,  //
      3.2f, -1.6f, 0.8f, 4.0f, 0, 1, 0, 0.5f, 0.9f, 0.1f, 0.3f, 0.7f,  //
      -0.2f, 0.45f, 0.3f, 0.5f, 0, 0, 1, 0.25f, 0.5f, 0.5f, 0.0f, 1.0f,  //
      0.8f, 0.9f, 0.5f, 1.0f, 0.3f, 0.6f, 0.9f, 1, 0.1f, 0.2f, 0.3f, 0.4f,  //
      -0.7f, 0.2f, 0.2f, 2.0f, 0.9f, 0.6f, 0.3f, 1, 0.5f, 0.6f, 0.7f, 0.8f,  //
      1.6f, -1.2f, 0.9f, 2.0f, 0.25f, 0.75f, 0.5f, 0.5f, 0.0f, 1.0f, 0.0f, 1.0f,
  };
}

TEST(VertexProgram, PassThroughProgramGivesThePassThroughBytes) {
  for (bool fragment_program : {false, true}) {
    SCOPED_TRACE(fragment_program ? "with a fragment program" : "with the varying stand-in");
    VertexScene s;
    s.vertices(perspective_triangles(), Topology::kTriangleList);
    if (fragment_program) {
      std::string fs;
      for (int k = 0; k < 8; ++k)
        fs += "v_interp_persp_f32 v0, " + std::to_string(k) + "\nv_export_f32 v0, " + std::to_string(k) + "\n";
      s.state.fragment = FragmentMode::kProgram;
      s.state.fragment_program = s.upload(fs + "s_end\n", 8, 1);
    } else {
      s.state.fragment = FragmentMode::kVaryingColor;
    }
    DrawResult fixed = s.draw();
    ASSERT_FALSE(fixed.fault) << *fixed.fault;
    const std::vector<uint8_t> expected = s.target();
    s.clear_target();
    s.vertex_program(pass_through_program(3));
    DrawResult program = s.draw();
    ASSERT_FALSE(program.fault) << *program.fault;
    EXPECT_GT(program.counters.merge.fragments_written, 500u);
    EXPECT_EQ(program.counters.geometry.vertices, 6u);
    EXPECT_EQ(s.target(), expected);
  }
}

TEST(VertexProgram, ATransformGivesTheBytesOfTransformedVertices) {
  // The program halves x and y (exact in binary32); the reference draws halved vertices.
  VertexScene s;
  std::vector<float> v = perspective_triangles();
  s.state.fragment = FragmentMode::kVaryingColor;
  std::vector<float> halved = v;
  for (size_t i = 0; i < halved.size(); i += 12) halved[i] *= 0.5f, halved[i + 1] *= 0.5f;
  s.vertices(halved, Topology::kTriangleList);
  ASSERT_FALSE(s.draw().fault);
  const std::vector<uint8_t> expected = s.target();
  s.clear_target();
  s.vertices(v, Topology::kTriangleList);
  std::string source = "v_mul_f32 v0, v0, 0.5\nv_mul_f32 v1, v1, 0.5\n" + pass_through_program(3);
  s.vertex_program(source);
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(s.target(), expected);
}

TEST(VertexProgram, VertexAndInstanceIndicesFollowTheAttributes) {
  // A full-screen strip drawn as instance 7: flat varying 0 = the provoking vertex's index (0 for
  // the upper-left triangle, 1 for the lower-right), varying 1 = the instance index.
  VertexScene s;
  s.vertices({-1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,  //
              -1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
             Topology::kTriangleStrip);
  s.state.draw.first_instance = 7;
  s.state.fragment = FragmentMode::kVaryingColor;
  s.state.varying_interpolation = Interpolation::kFlat;
  // Three attributes: v0..v11, then the vertex index in v12 and the instance index in v13.
  s.vertex_program(
      "v_cvt_f32_u32 v14, v12\nv_cvt_f32_u32 v15, v13\n"
      "v_export_vertex_f32 v0, 0\nv_export_vertex_f32 v1, 1\nv_export_vertex_f32 v2, 2\nv_export_vertex_f32 v3, 3\n"
      "v_export_vertex_f32 v14, 4\nv_export_vertex_f32 v15, 5\nv_export_vertex_f32 1.0, 7\ns_end\n");
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(s.pixel(2, 2), (Color{0, 7, 0, 1}));
  EXPECT_EQ(s.pixel(45, 45), (Color{1, 7, 0, 1}));
}

// PointSize: a vertex program that exports slot 68 sizes its points (clamped to [1, 64] like the
// state's, which PointRasterization.SizesAreClampedToTheRangeAndNaNIsOne checks at the top); lanes that do not export it (here: vertex 1, by a branch on the vertex index) take
// PIPE_STATE POINT_SIZE.
TEST(VertexProgram, ExportedPointSizeReplacesTheStatesForTheVerticesThatWriteIt) {
  VertexScene s;
  // Three points at pixel centres (8.5, 8.5), (24.5, 24.5), (40.5, 8.5) of the 48 x 48 target.
  auto clip = [](float p) { return 2 * p / 48 - 1; };
  s.vertices({clip(8.5f), clip(8.5f), 0, 1, 1, 1, 1, 1, 0, 0, 0, 0,
              clip(24.5f), clip(24.5f), 0, 1, 1, 1, 1, 1, 0, 0, 0, 0,
              clip(40.5f), clip(8.5f), 0, 1, 1, 1, 1, 1, 0, 0, 0, 0},
             Topology::kPointList);
  s.state.draw.point_size = 3;
  s.state.fragment = FragmentMode::kConstantColor;
  // v12 is the vertex index: vertex 0 exports 5, vertex 2 exports 0.25 (clamped to 1), vertex 1 none.
  s.vertex_program(
      "v_export_vertex_f32 v0, 0\nv_export_vertex_f32 v1, 1\nv_export_vertex_f32 v2, 2\nv_export_vertex_f32 v3, 3\n"
      "v_cmp_eq_u32 v14, v12, 1\n"
      "v_branch_nz v14, done, done\n"
      "v_cmp_eq_u32 v15, v12, 0\n"
      "v_mov_b32 v17, 0.25\n"
      "v_cndmask_b32 v16, v15, 5.0, v17\n"
      "v_export_vertex_f32 v16, 68\n"
      "done:\n"
      "s_end\n",
      8, 20);
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  auto covered = [&](uint32_t x, uint32_t y) { return s.pixel(x, y)[3] != 0; };
  // Vertex 0: 5 x 5 around (8.5, 8.5) -> pixels 6 .. 10.
  EXPECT_TRUE(covered(6, 6) && covered(10, 10));
  EXPECT_FALSE(covered(5, 8) || covered(11, 8));
  // Vertex 1: the state's 3 x 3 -> pixels 23 .. 25.
  EXPECT_TRUE(covered(23, 23) && covered(25, 25));
  EXPECT_FALSE(covered(22, 24) || covered(26, 24));
  // Vertex 2: one pixel.
  EXPECT_TRUE(covered(40, 8));
  EXPECT_FALSE(covered(39, 8) || covered(41, 8) || covered(40, 7) || covered(40, 9));
  EXPECT_EQ(r.counters.merge.fragments_written, 25u + 9u + 1u);
  EXPECT_EQ(r.counters.geometry.clip.points_out, 3u);
}

TEST(VertexProgram, BatchesBeyondTheGeometryEnginesKeepRestartsInPlace) {
  // An indexed strip of 700 vertices with restarts every 7 indices: several vertex batches of 256,
  // each run as warps; the program's bytes equal the pass-through's.
  VertexScene s;
  std::vector<float> v;
  for (int i = 0; i < 700; ++i) {
    const float x = -1 + 2.0f * float(i % 50) / 49, y = -1 + 2.0f * float(i / 50 + (i % 3 == 1)) / 14;
    v.insert(v.end(), {x, y, 0, 1, float(i % 5) / 4, float(i % 7) / 6, float(i % 3) / 2, 1, 0, 0, 0, 0});
  }
  s.vertices(v, Topology::kTriangleStrip);
  std::vector<uint32_t> indices;
  for (uint32_t i = 0; i < 700; ++i) {
    indices.push_back(i);
    if (i % 7 == 6) indices.push_back(0xFFFFFFFFu);
  }
  s.state.draw.indexed = true;
  s.state.draw.primitive_restart = true;
  s.state.draw.index_type = IndexType::kUint32;
  s.state.draw.index_va = s.memory.upload(indices);
  s.state.draw.index_size = indices.size() * 4;
  s.state.draw.count = uint32_t(indices.size());
  s.state.fragment = FragmentMode::kVaryingColor;
  DrawResult fixed = s.draw();
  ASSERT_FALSE(fixed.fault) << *fixed.fault;
  const std::vector<uint8_t> expected = s.target();
  s.clear_target();
  s.vertex_program(pass_through_program(3));
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.geometry.vertices, 700u);
  EXPECT_EQ(r.counters.geometry.primitives, fixed.counters.geometry.primitives);
  EXPECT_EQ(s.target(), expected);
}

TEST(VertexProgram, HostileProgramsEndTheDrawWithAFault) {
  const struct {
    const char* name;
    std::string source;
    uint32_t outputs, vregs;
    const char* message;
  } cases[] = {
      {"endless", "loop:\ns_jump loop\n", 8, 16, "vertex program fault watchdog"},
      {"registers past the declared", pass_through_program(3), 8, 4, "more than the declared"},
      {"a fragment instruction", "v_interp_flat_f32 v0, 0\ns_end\n", 8, 16, "fragment-program instruction"},
      {"fewer outputs than the fragment program reads", pass_through_program(3), 2, 16, "vertex stage writes 2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    VertexScene s;
    s.vertices(perspective_triangles(), Topology::kTriangleList);
    s.state.fragment = FragmentMode::kProgram;
    s.state.fragment_program = s.upload("v_interp_flat_f32 v0, 3\nv_export_f32 v0, 0\ns_end\n", 4, 1);
    s.vertex_program(c.source, c.outputs, c.vregs);
    DrawResult r = s.draw();
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->find(c.message), std::string::npos) << *r.fault;
    EXPECT_EQ(r.counters.merge.fragments_written, 0u);
  }
  // A fragment-program export in a vertex program, the vertex export in a fragment program.
  VertexScene s;
  s.vertices(perspective_triangles(), Topology::kTriangleList);
  s.vertex_program("v_export_f32 1.0, 0\ns_end\n");
  DrawResult r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("fragment-program instruction"), std::string::npos) << *r.fault;
  s.state.vertex = VertexMode::kPassThrough;
  s.state.fragment = FragmentMode::kProgram;
  s.state.fragment_program = s.upload("v_export_vertex_f32 1.0, 0\ns_end\n", 0, 1);
  r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("vertex-program instruction"), std::string::npos) << *r.fault;
  // Code outside the mapping.
  s.state.fragment = FragmentMode::kConstantColor;
  s.vertex_program(pass_through_program(3));
  s.state.vertex_program.code_va = 0x40;
  r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("vertex program code"), std::string::npos) << *r.fault;
}

}  // namespace
}  // namespace gsgpu::graphics
