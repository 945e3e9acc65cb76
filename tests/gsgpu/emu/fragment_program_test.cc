// Fragment programs on the shader cores (docs/graphics.md "Fragment programs", docs/isa.md §8c):
// hand-assembled programs that reproduce the fixed stand-ins must give the same bytes on the same
// scenes; derivatives and quad permutes against hand-computed values on linear ramps; discard;
// depth and dual-source exports; and the faults of hostile programs. The draws run through
// GraphicsPipeline over flat GPU memory with the device's shader-core backend
// (BackendProgramRunner), as the command processor runs them.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/program_runner.h"
#include "gsgpu/emu/graphics/draw_counters_json.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/emu/texture/texture_unit.h"
#include "gsgpu/isa/assembler.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

std::vector<uint32_t> assemble(const std::string& source) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(isa::assemble(source, &words, &error)) << error << "\n" << source;
  return words;
}

// A target, vertices of (x, y, z, w) + two RGBA varyings, and a shader-core backend.
struct ProgramScene {
  FlatMemory memory{0x100000, 8 << 20};
  DrawState state;
  uint64_t color_va = 0, depth_va = 0;
  size_t color_bytes = 0;
  std::unique_ptr<DispatchBackend> backend;
  std::unique_ptr<BackendProgramRunner> runner;

  explicit ProgramScene(ColorFormat cf, uint32_t warp_width = 32, uint32_t size = 32) {
    backend = make_shader_backend(ShaderCoreSettings{2, warp_width, 1});
    runner = std::make_unique<BackendProgramRunner>(*backend, memory);
    state.width = state.height = size;
    state.viewport = Viewport{0, 0, float(size), float(size), 0, 1};
    color_bytes = size_t(size) * size * bytes_per_pixel(cf);
    color_va = memory.alloc(color_bytes);
    state.color = ColorTargetState{true, color_va, size * bytes_per_pixel(cf), cf};
  }
  // 12 floats per vertex: position, varyings 0..3, varyings 4..7.
  void vertices(const std::vector<float>& data, Topology topology) {
    state.input.bindings[0] = VertexBinding{memory.upload(data), data.size() * 4, 48, InputRate::kVertex, 1};
    for (uint32_t a = 0; a < 3; ++a) state.input.attributes[a] = VertexAttribute{0, 109, 16 * a};
    state.input.attribute_count = 3;
    state.draw.count = uint32_t(data.size() / 12);
    state.draw.topology = topology;
  }
  void add_depth(float clear) {
    depth_va = memory.alloc(size_t(state.width) * state.height * 4);
    state.depth = DepthTargetState{true, depth_va, state.width * 4, DepthFormat::kD32Sfloat};
    for (uint32_t i = 0; i < state.width * state.height; ++i) std::memcpy(memory.host(depth_va + 4 * i), &clear, 4);
  }
  void program(const std::string& source, uint32_t varyings = 8, uint32_t vregs = 16, uint32_t sregs = 0) {
    const std::vector<uint32_t> code = assemble(source);
    ShaderProgram& p = state.fragment_program;
    p.code_va = memory.upload(code);
    p.code_size = uint32_t(code.size() * 4);
    p.entry_offset = 0;
    p.vector_regs = vregs;
    p.scalar_regs = sregs;
    p.varying_components = varyings;
    state.fragment = FragmentMode::kProgram;
  }
  DrawResult draw(DrawMode mode = DrawMode::kReference, DrawScratch* scratch = nullptr) {
    GraphicsPipeline gp(memory);
    gp.set_program_runner(runner.get());
    gp.set_mode(mode);
    gp.set_scratch(scratch);
    return gp.draw(state);
  }
  std::vector<uint8_t> target() { return memory.download<uint8_t>(color_va, color_bytes); }
  void clear_target() { std::memset(memory.host(color_va), 0, color_bytes); }
  Color pixel(uint32_t x, uint32_t y) {
    return ColorTarget{memory.host(color_va), state.width, state.height, state.color.row_pitch, state.color.format}
        .load(x, y);
  }
};

// Perspective triangles (w from 0.5 to 4) with distinct varyings, overlapping, some pixels of each
// quad outside: every lane kind (covered, helper, absent) occurs in the warps.
std::vector<float> perspective_scene() {
  return {
      -0.9f, -0.9f, 0.1f, 1.0f, 1, 0, 0, 1, 0.2f, 0.4f, 0.6f, 0.8f,  //
      3.2f, -1.6f, 0.8f, 4.0f, 0, 1, 0, 0.5f, 0.9f, 0.1f, 0.3f, 0.7f,  //
      -0.2f, 0.45f, 0.3f, 0.5f, 0, 0, 1, 0.25f, 0.5f, 0.5f, 0.0f, 1.0f,  //
      0.8f, 0.9f, 0.5f, 1.0f, 0.3f, 0.6f, 0.9f, 1, 0.1f, 0.2f, 0.3f, 0.4f,  //
      -0.7f, 0.2f, 0.2f, 2.0f, 0.9f, 0.6f, 0.3f, 1, 0.5f, 0.6f, 0.7f, 0.8f,  //
      1.6f, -1.2f, 0.9f, 2.0f, 0.25f, 0.75f, 0.5f, 0.5f, 0.0f, 1.0f, 0.0f, 1.0f,
  };
}

// v_interp_<mode> of components 0..7 exported to colour 0 and colour 1.
std::string varying_program(const char* mode) {
  std::string s;
  for (int k = 0; k < 8; ++k) {
    s += "v_interp_" + std::string(mode) + "_f32 v" + std::to_string(k) + ", " + std::to_string(k) + "\n";
    s += "v_export_f32 v" + std::to_string(k) + ", " + std::to_string(k) + "\n";
  }
  return s + "s_end\n";
}

// Dual-source blending: the second colour decides, so a wrong colour 1 changes the bytes.
void dual_source_blend(DrawState& s) {
  s.blend.enable = true;
  s.blend.src_color = BlendFactor::kSrc1Color;
  s.blend.dst_color = BlendFactor::kOneMinusSrc1Alpha;
  s.blend.src_alpha = BlendFactor::kOne;
  s.blend.dst_alpha = BlendFactor::kSrc1Alpha;
}

TEST(FragmentProgram, VaryingProgramsGiveTheStandInsBytes) {
  const struct {
    const char* mode;
    Interpolation interpolation;
  } modes[] = {{"persp", Interpolation::kPerspective},
               {"linear", Interpolation::kNoPerspective},
               {"flat", Interpolation::kFlat}};
  for (ColorFormat format : {ColorFormat::kR32G32B32A32Sfloat, ColorFormat::kR8G8B8A8Unorm}) {
    for (const auto& m : modes) {
      for (bool blend : {false, true}) {
        SCOPED_TRACE(std::string(m.mode) + (blend ? " dual-source" : "") + " format " + std::to_string(int(format)));
        ProgramScene s(format);
        s.vertices(perspective_scene(), Topology::kTriangleList);
        if (blend) dual_source_blend(s.state);
        s.state.fragment = FragmentMode::kVaryingColor;
        s.state.varying_interpolation = m.interpolation;
        DrawResult fixed = s.draw();
        ASSERT_FALSE(fixed.fault) << *fixed.fault;
        const std::vector<uint8_t> expected = s.target();
        s.clear_target();
        s.program(varying_program(m.mode));
        DrawResult program = s.draw();
        ASSERT_FALSE(program.fault) << *program.fault;
        EXPECT_GT(program.counters.merge.fragments_written, 300u);
        EXPECT_EQ(program.counters.merge.fragments_written, fixed.counters.merge.fragments_written);
        EXPECT_EQ(s.target(), expected);
      }
    }
  }
}

TEST(FragmentProgram, ConstantProgramGivesTheStandInsBytesWithDualSourceBlending) {
  for (uint32_t warp_width : {4u, 8u, 32u, 64u}) {
    SCOPED_TRACE(warp_width);
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat, warp_width);
    s.vertices(perspective_scene(), Topology::kTriangleList);
    dual_source_blend(s.state);
    s.state.constant_color = {0.25f, 0.5f, 0.75f, 1.0f};
    s.state.constant_color1 = {0.5f, 0.125f, 1.0f, 0.375f};
    ASSERT_FALSE(s.draw().fault);
    const std::vector<uint8_t> expected = s.target();
    s.clear_target();
    s.program(
        "v_export_f32 0.25, 0\nv_export_f32 0.5, 1\nv_export_f32 0.75, 2\nv_export_f32 1.0, 3\n"
        "v_export_f32 0.5, 4\nv_export_f32 0.125, 5\nv_export_f32 1.0, 6\nv_export_f32 0.375, 7\ns_end\n",
        0, 1);
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(s.target(), expected);
  }
}

// A full-screen strip on 32 x 32 whose no-perspective varyings are X = x + 0.5 - 16 (component 0)
// and Y = (y + 0.5 - 16) / 2 (component 1) at pixel (x, y); P = X * Y is exact in binary32.
std::vector<float> ramp_strip(bool whole_square) {
  std::vector<float> v = {-1, -1, 0, 1, -16, -8, 0, 0, 0, 0, 0, 0,  //
                          1, -1, 0, 1, 16, -8, 0, 0, 0, 0, 0, 0,    //
                          -1, 1, 0, 1, -16, 8, 0, 0, 0, 0, 0, 0,    //
                          1, 1, 0, 1, 16, 8, 0, 0, 0, 0, 0, 0};
  if (!whole_square) v.resize(36);  // one triangle: its diagonal quads run helper lanes
  return v;
}

float ramp_x(int x) { return float(x) + 0.5f - 16; }
float ramp_y(int y) { return (float(y) + 0.5f - 16) / 2; }

// 144 small perspective triangles with their own varyings, some overlapping their neighbours.
std::vector<float> small_triangle_grid() {
  std::vector<float> grid;
  for (int cy = 0; cy < 12; ++cy) {
    for (int cx = 0; cx < 12; ++cx) {
      const float x0 = -1 + cx / 6.0f, y0 = -1 + cy / 6.0f, d = cx % 3 == 0 ? 0.4f : 0.17f;  // some span cells
      const float corner[3][2] = {{x0, y0}, {x0 + d, y0 + 0.02f}, {x0 + 0.03f, y0 + d}};
      for (int v = 0; v < 3; ++v) {
        const float w = 1.0f + 0.5f * float((cx + v) % 3);
        grid.insert(grid.end(), {corner[v][0] * w, corner[v][1] * w, 0.5f * w, w});
        for (int k = 0; k < 8; ++k) grid.push_back(float((cx * 7 + cy * 3 + v * 5 + k) % 11) / 10.0f);
      }
    }
  }
  return grid;
}

// Many small triangles with their own varyings in warps of 4 lanes: a batch of 64 quads holds many
// triangles and a triangle's quads straddle batches, so the stage's reused primitive entries (only
// the program's components copied) and the one carried into the next batch are all read.
TEST(FragmentProgram, ManySmallTrianglesAcrossBatchesGiveTheStandInsBytes) {
  const std::vector<float> grid = small_triangle_grid();
  for (uint32_t width : {4u, 32u}) {
    SCOPED_TRACE(width);
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat, width, 48);
    s.vertices(grid, Topology::kTriangleList);
    s.state.fragment = FragmentMode::kVaryingColor;
    s.state.varying_interpolation = Interpolation::kPerspective;
    DrawResult fixed = s.draw();
    ASSERT_FALSE(fixed.fault) << *fixed.fault;
    const std::vector<uint8_t> expected = s.target();
    s.clear_target();
    s.program(varying_program("persp"));
    DrawResult program = s.draw();
    ASSERT_FALSE(program.fault) << *program.fault;
    EXPECT_GT(program.counters.merge.fragments_written, 500u);
    EXPECT_EQ(program.counters.merge.fragments_written, fixed.counters.merge.fragments_written);
    EXPECT_EQ(s.target(), expected);
  }
}

// Fast mode shades and merges each full batch on its worker while the draw's thread sets up the
// next (docs/graphics.md "Reference and fast modes"): with depth testing and blending, where the
// order of fragments decides the bytes, over several batches (warps of 4 lanes: 256 quads a batch;
// of 32: 2,048) whose triangles straddle the hand-overs, its colour, depth and every counter but
// the overdraw map's are the reference's.
TEST(FragmentProgram, FastModeBatchesOnTheWorkerGiveTheReferencesBytesAndCounters) {
  const std::vector<float> grid = small_triangle_grid();
  for (uint32_t width : {4u, 32u}) {
    SCOPED_TRACE(width);
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat, width, 128);
    s.vertices(grid, Topology::kTriangleList);
    s.program(varying_program("persp"));
    s.add_depth(1.0f);
    s.state.depth_stencil.depth_test = s.state.depth_stencil.depth_write = true;
    s.state.depth_stencil.depth_compare = CompareOp::kLess;  // every z is 0.5: the first fragment wins
    s.state.blend.enable = true;
    s.state.blend.src_color = BlendFactor::kSrcAlpha;
    s.state.blend.dst_color = BlendFactor::kOneMinusSrcAlpha;
    const size_t depth_bytes = size_t(s.state.width) * s.state.height * 4;
    std::vector<uint8_t> color[2], depth[2];
    DrawCounters counters[2];
    for (DrawMode mode : {DrawMode::kReference, DrawMode::kFast}) {
      const int m = mode == DrawMode::kFast;
      s.clear_target();
      s.add_depth(1.0f);
      DrawResult r = s.draw(mode);
      ASSERT_FALSE(r.fault) << *r.fault;
      color[m] = s.target();
      depth[m] = s.memory.download<uint8_t>(s.depth_va, depth_bytes);
      counters[m] = r.counters;
      counters[m].merge.overdraw = 0;  // fast mode keeps no overdraw map
    }
    EXPECT_GT(counters[0].primitive.raster.quads, 2u * 2048u) << "several batches even with warps of 32";
    EXPECT_GT(counters[0].merge.depth_failed, 0u);
    EXPECT_EQ(color[1], color[0]);
    EXPECT_EQ(depth[1], depth[0]);
    EXPECT_EQ(format_draw_counters_json(counters[1]), format_draw_counters_json(counters[0]));
  }
}

// A fault in a batch that fast mode's worker runs (a memory fault, an endless program) ends the
// draw with that fault, reported by the draw's thread when it next hands a batch over or flushes:
// no hang, nothing of the faulted batch merged, and the next draw runs.
TEST(FragmentProgram, AFaultOnFastModesWorkerEndsTheDraw) {
  const struct {
    const char* name;
    const char* source;
    const char* message;
  } cases[] = {
      {"unmapped load", "global_load_b32 v5, s[0:1], 16\nv_export_f32 v5, 0\ns_end\n", "memory"},
      {"endless", "loop:\ns_jump loop\n", "watchdog"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ProgramScene s(ColorFormat::kR8G8B8A8Unorm, 32, 128);
    s.vertices(small_triangle_grid(), Topology::kTriangleList);
    s.program(c.source, 0, 8, 2);
    DrawResult r = s.draw(DrawMode::kFast);
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->find(c.message), std::string::npos) << *r.fault;
    EXPECT_EQ(r.counters.merge.fragments_written, 0u);
    s.program("v_export_f32 1.0, 0\ns_end\n", 0, 1);
    r = s.draw(DrawMode::kFast);
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_GT(r.counters.merge.fragments_written, 8192u);  // more than one batch of 2,048 quads
  }
}

// The command processor's draws share one DrawScratch (draw_scratch.h): what a draw leaves in its
// batch vectors and merge worker must not reach the next. Fast mode with 4-lane warps (a batch of
// 256 quads) hands several batches of this grid over to the merge worker in each draw.
TEST(FragmentProgram, DrawsSharingScratchStorageGiveTheBytesOfFreshOnes) {
  std::vector<float> grid;
  for (int cy = 0; cy < 12; ++cy) {
    for (int cx = 0; cx < 12; ++cx) {
      const float x0 = -1 + cx / 6.0f, y0 = -1 + cy / 6.0f, d = cx % 2 == 0 ? 0.3f : 0.15f;
      const float corner[3][2] = {{x0, y0}, {x0 + d, y0 + 0.02f}, {x0 + 0.03f, y0 + d}};
      for (int v = 0; v < 3; ++v) {
        const float w = 1.0f + 0.25f * float((cy + v) % 4);
        grid.insert(grid.end(), {corner[v][0] * w, corner[v][1] * w, 0.5f * w, w});
        for (int k = 0; k < 8; ++k) grid.push_back(float((cx * 5 + cy * 7 + v * 3 + k) % 13) / 12.0f);
      }
    }
  }
  ProgramScene s(ColorFormat::kR32G32B32A32Sfloat, 4, 48);
  s.vertices(grid, Topology::kTriangleList);
  std::vector<std::vector<uint8_t>> fresh;
  for (const char* mode : {"persp", "linear"}) {
    s.clear_target();
    s.program(varying_program(mode));
    DrawResult r = s.draw(DrawMode::kFast);
    ASSERT_FALSE(r.fault) << *r.fault;
    ASSERT_GT(r.counters.merge.fragments_written, 1000u);  // several 256-quad batches
    fresh.push_back(s.target());
  }
  EXPECT_NE(fresh[0], fresh[1]);
  DrawScratch scratch;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < 2; ++i) {
      s.clear_target();
      s.program(varying_program(i == 0 ? "persp" : "linear"));
      DrawResult r = s.draw(round == 0 ? DrawMode::kFast : DrawMode::kReference, &scratch);
      ASSERT_FALSE(r.fault) << *r.fault;
      EXPECT_EQ(s.target(), fresh[i]) << "round " << round << ", draw " << i;
    }
  }
}

TEST(FragmentProgram, DerivativesOverTheQuadMatchHandComputedValues) {
  for (bool whole_square : {true, false}) {
    SCOPED_TRACE(whole_square ? "two triangles" : "one triangle with helper lanes");
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
    s.vertices(ramp_strip(whole_square), Topology::kTriangleStrip);
    s.program(
        "v_interp_linear_f32 v0, 0\nv_interp_linear_f32 v1, 1\nv_mul_f32 v2, v0, v1\n"
        "v_ddx_fine_f32 v3, v2\nv_ddx_coarse_f32 v4, v2\nv_ddy_fine_f32 v5, v2\nv_ddy_coarse_f32 v6, v2\n"
        "v_export_f32 v3, 0\nv_export_f32 v4, 1\nv_export_f32 v5, 2\nv_export_f32 v6, 3\ns_end\n",
        2);
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    if (!whole_square) {
      EXPECT_GT(r.counters.primitive.raster.helper_lanes, 0u);
    }
    uint32_t checked = 0;
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        if (!whole_square && x + y >= 31) continue;  // outside the upper-left triangle (or on its edge)
        // d(XY)/dx = Y (X steps by 1 across a quad), d(XY)/dy = X / 2: fine per row / column,
        // coarse from the quad's top row / left column.
        const Color expected{ramp_y(y), ramp_y(y & ~1), ramp_x(x) / 2, ramp_x(x & ~1) / 2};
        ASSERT_EQ(s.pixel(x, y), expected) << x << "," << y;
        ++checked;
      }
    }
    EXPECT_GT(checked, 400u);
  }
}

TEST(FragmentProgram, QuadPermuteReadsTheNamedLaneOfEachQuad) {
  ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
  s.vertices(ramp_strip(true), Topology::kTriangleStrip);
  // 0x1B = lanes (3, 2, 1, 0): each lane reads the opposite corner; 0xFF: every lane reads lane 3.
  s.program(
      "v_interp_linear_f32 v0, 0\nv_interp_linear_f32 v1, 1\n"
      "v_quad_perm_b32 v2, v0, 0x1b\nv_quad_perm_b32 v3, v1, 0x1b\nv_quad_perm_b32 v4, v0, 0xff\n"
      "v_export_f32 v2, 0\nv_export_f32 v3, 1\nv_export_f32 v4, 2\nv_export_f32 v1, 3\ns_end\n",
      2);
  ASSERT_FALSE(s.draw().fault);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      ASSERT_EQ(s.pixel(x, y), (Color{ramp_x(x ^ 1), ramp_y(y ^ 1), ramp_x(x | 1), ramp_y(y)})) << x << "," << y;
}

TEST(FragmentProgram, FragCoordAndFacingArePreloaded) {
  // v0..v3 = (x + 0.5, y + 0.5, z, 1 / w), v4 = 1 for a front face. The strip is clockwise in
  // framebuffer coordinates: back-facing with the default counter-clockwise front face.
  for (FrontFace front : {FrontFace::kCounterClockwise, FrontFace::kClockwise}) {
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
    std::vector<float> strip = ramp_strip(true);
    for (size_t i = 0; i < strip.size(); i += 12) strip[i + 2] = 0.25f;  // z
    s.vertices(strip, Topology::kTriangleStrip);
    s.state.setup.front_face = front;
    s.program("v_cvt_f32_u32 v5, v4\nv_add_f32 v3, v3, v5\n"
              "v_export_f32 v0, 0\nv_export_f32 v1, 1\nv_export_f32 v2, 2\nv_export_f32 v3, 3\ns_end\n",
              0, 6);
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    const float facing = front == FrontFace::kClockwise ? 1.0f : 0.0f;
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        ASSERT_EQ(s.pixel(x, y), (Color{x + 0.5f, y + 0.5f, 0.25f, 1.0f + facing})) << x << "," << y;
  }
}

// SHADER_STATE FRAGMENT.NO_FRAGCOORD / NO_FACING: a preloaded input the program declares unread is
// not computed and its register starts at 0 (in both modes), while the depth test still gets the
// interpolated depth.
TEST(FragmentProgram, UnreadFragCoordAndFacingStartAtZero) {
  for (DrawMode mode : {DrawMode::kReference, DrawMode::kFast}) {
    for (const bool frag_coord : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "fast " << (mode == DrawMode::kFast) << " frag_coord " << frag_coord);
      ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
      std::vector<float> strip = ramp_strip(true);
      for (size_t i = 0; i < strip.size(); i += 12) strip[i + 2] = 0.25f;  // z
      s.vertices(strip, Topology::kTriangleStrip);
      s.state.setup.front_face = FrontFace::kClockwise;  // the strip is front-facing: v4 would be 1
      s.program("v_cvt_f32_u32 v5, v4\nv_add_f32 v3, v3, v5\n"
                "v_export_f32 v0, 0\nv_export_f32 v1, 1\nv_export_f32 v2, 2\nv_export_f32 v3, 3\ns_end\n",
                0, 6);
      s.state.fragment_program.reads_frag_coord = frag_coord;
      s.state.fragment_program.reads_facing = false;
      s.add_depth(0.5f);
      s.state.depth_stencil.depth_test = s.state.depth_stencil.depth_write = true;
      s.state.depth_stencil.depth_compare = CompareOp::kLess;
      DrawResult r = s.draw(mode);
      ASSERT_FALSE(r.fault) << *r.fault;
      EXPECT_EQ(r.counters.merge.fragments_written, 32u * 32u);  // 0.25 < 0.5 everywhere
      float depth = 0;
      std::memcpy(&depth, s.memory.host(s.depth_va + 4 * (32 * 7 + 5)), 4);
      EXPECT_EQ(depth, 0.25f);
      for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) {
          const Color expected = frag_coord ? Color{x + 0.5f, y + 0.5f, 0.25f, 1.0f} : Color{0, 0, 0, 0};
          ASSERT_EQ(s.pixel(x, y), expected) << x << "," << y;
        }
    }
  }
}

// Fast mode's merge into one plain RGBA8 target (no depth, blend or overdraw map: a warp at a time,
// one colour's quads as two 8-byte stores) gives the reference's bytes and counters: one flat colour,
// colours varying per lane, killed lanes, unexported components (read 0) and helper lanes.
TEST(FragmentProgram, FastModesPlainMergeGivesTheReferencesBytesAndCounters) {
  const std::string flat = "v_export_f32 0.25, 0\nv_export_f32 1.0, 1\nv_export_f32 0.5, 2\nv_export_f32 1.0, 3\ns_end\n";
  // Red from varying 0 (ramp_x / 16), green from v0 (FragCoord x), blue and alpha not exported;
  // lanes left of x = -8 killed.
  const std::string varying =
      "v_interp_linear_f32 v8, 0\nv_cmp_olt_f32 v9, v8, -8.0\nv_branch_z v9, keep, keep\nv_kill\nkeep:\n"
      "v_mul_f32 v10, v8, 0.0625\nv_mul_f32 v11, v0, 0.03125\nv_export_f32 v10, 0\nv_export_f32 v11, 1\ns_end\n";
  for (const std::string& program : {flat, varying}) {
    for (const bool whole_square : {true, false}) {  // one triangle: its diagonal quads run helper lanes
      SCOPED_TRACE(::testing::Message() << (program == flat ? "flat" : "varying") << " whole " << whole_square);
      ProgramScene s(ColorFormat::kR8G8B8A8Unorm);
      s.vertices(ramp_strip(whole_square), Topology::kTriangleStrip);
      s.program(program, 1, 12);
      std::vector<uint8_t> bytes[2];
      DrawCounters counters[2];
      for (DrawMode mode : {DrawMode::kReference, DrawMode::kFast}) {
        const int m = mode == DrawMode::kFast;
        std::memset(s.memory.host(s.color_va), 0x5A, s.color_bytes);
        DrawResult r = s.draw(mode);
        ASSERT_FALSE(r.fault) << *r.fault;
        bytes[m] = s.target();
        counters[m] = r.counters;
        counters[m].merge.overdraw = 0;  // fast mode keeps no overdraw map
      }
      EXPECT_EQ(bytes[1], bytes[0]);
      EXPECT_EQ(format_draw_counters_json(counters[1]), format_draw_counters_json(counters[0]));
      if (program == flat && whole_square) {
        EXPECT_EQ(s.pixel(31, 31), (Color{64 / 255.0f, 1, 128 / 255.0f, 1}));
      } else if (whole_square) {
        EXPECT_EQ(counters[1].merge.fragments_written, 24u * 32u);  // x >= 8 (ramp_x >= -8)
        EXPECT_EQ(s.pixel(31, 3).at(2), 0.0f);  // blue not exported: 0
        EXPECT_EQ(s.pixel(3, 3).at(3), 0x5A / 255.0f);  // killed: untouched
      }
    }
  }
}

TEST(FragmentProgram, KilledLanesWriteNothingAndTheOthersGoOn) {
  ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
  s.vertices(ramp_strip(true), Topology::kTriangleStrip);
  // Kill where X < 0 (the left half) inside a divergent branch; the others export after it.
  s.program(
      "v_interp_linear_f32 v0, 0\n"
      "v_cmp_olt_f32 v1, v0, 0.0\n"
      "v_branch_z v1, keep, keep\n"
      "v_kill\n"
      "keep:\n"
      "v_export_f32 v0, 0\nv_export_f32 1.0, 3\ns_end\n",
      1);
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.merge.fragments_written, 16u * 32u);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const Color expected = x < 16 ? Color{0, 0, 0, 0} : Color{ramp_x(x), 0, 0, 1};
      ASSERT_EQ(s.pixel(x, y), expected) << x << "," << y;
    }
}

TEST(FragmentProgram, ExportedDepthReplacesTheInterpolatedDepth) {
  ProgramScene s(ColorFormat::kR8G8B8A8Unorm);
  s.vertices(ramp_strip(true), Topology::kTriangleStrip);  // z = 0 at every vertex
  s.add_depth(0.5f);
  s.state.depth_stencil.depth_test = s.state.depth_stencil.depth_write = true;
  s.state.depth_stencil.depth_compare = CompareOp::kGreater;  // only the exported depth passes
  s.program("v_export_f32 1.0, 0\nv_export_f32 1.0, 3\nv_export_f32 0.75, 8\ns_end\n", 0, 1);
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.merge.fragments_written, 1024u);
  float stored;
  std::memcpy(&stored, s.memory.host(s.depth_va + 4 * (5 * 32 + 7)), 4);
  EXPECT_EQ(stored, 0.75f);
  EXPECT_EQ(s.pixel(7, 5), (Color{1, 0, 0, 1}));
  // Without the export the fragments keep z = 0, which fails GREATER against 0.75.
  s.program("v_export_f32 0.5, 1\ns_end\n", 0, 1);
  r = s.draw();
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.counters.merge.depth_failed, 1024u);
}

TEST(FragmentProgram, HostileProgramsEndTheDrawWithAFault) {
  const struct {
    const char* name;
    std::string source;
    uint32_t varyings, vregs;
    const char* message;
  } cases[] = {
      {"endless", "loop:\ns_jump loop\n", 0, 1, "watchdog"},
      {"varying past the count", "v_interp_persp_f32 v0, 4\ns_end\n", 4, 1, "past the 4"},
      {"more registers than declared", "v_mov_b32 v7, 1.0\ns_end\n", 0, 4, "more than the declared"},
      {"illegal word", "s_nop\n", 0, 1, "illegal instruction"},
      {"falls off the end", "v_export_f32 1.0, 0\n", 0, 1, "past the end"},
      {"more varyings than the vertex stage writes", "s_end\n", 9, 1, "vertex stage writes 8"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ProgramScene s(ColorFormat::kR8G8B8A8Unorm);
    s.vertices(ramp_strip(true), Topology::kTriangleStrip);
    s.program(c.source, c.varyings, c.vregs);
    if (std::string(c.name) == "illegal word") {
      const uint32_t bad[2] = {0x1ffu, 0};  // opcode 511 does not exist
      std::memcpy(s.memory.host(s.state.fragment_program.code_va), bad, sizeof bad);
    }
    DrawResult r = s.draw();
    ASSERT_TRUE(r.fault);
    EXPECT_NE(r.fault->find(c.message), std::string::npos) << *r.fault;
    EXPECT_EQ(r.counters.merge.fragments_written, 0u);
  }
  // Code outside the mapping, and no shader cores at all.
  ProgramScene s(ColorFormat::kR8G8B8A8Unorm);
  s.vertices(ramp_strip(true), Topology::kTriangleStrip);
  s.program("s_end\n", 0, 1);
  s.state.fragment_program.code_va = 0x40;
  DrawResult r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("not mapped executable"), std::string::npos) << *r.fault;
  s.program("s_end\n", 0, 1);
  GraphicsPipeline no_cores(s.memory);
  r = no_cores.draw(s.state);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("need the shader cores"), std::string::npos) << *r.fault;
}

// All of a draw's program batches share one instruction budget (BackendProgramRunner): warps that
// each stay far below their own watchdog still end the draw once the sum passes it.
TEST(FragmentProgram, ADrawsProgramsShareOneInstructionBudget) {
  const std::string loop =
      "s_mov_b32 s0, 100\nloop:\ns_sub_u32 s0, s0, 1\ns_cbranch_nz s0, loop\nv_export_f32 1.0, 0\ns_end\n";
  for (uint64_t draw_budget : {uint64_t{1000}, uint64_t{1} << 20}) {
    SCOPED_TRACE(draw_budget);
    ProgramScene s(ColorFormat::kR8G8B8A8Unorm);
    s.runner = std::make_unique<BackendProgramRunner>(*s.backend, s.memory,
                                                      BackendProgramRunner::kDefaultWarpInstructionBudget, draw_budget);
    s.vertices(ramp_strip(true), Topology::kTriangleStrip);
    s.program(loop, 0, 1, 1);  // about 200 instructions per warp, 32 warps
    DrawResult r = s.draw();
    if (draw_budget == 1000) {
      ASSERT_TRUE(r.fault);
      EXPECT_NE(r.fault->find("exceeded its budget of 1000"), std::string::npos) << *r.fault;
      EXPECT_EQ(r.counters.merge.fragments_written, 0u);
    } else {
      ASSERT_FALSE(r.fault) << *r.fault;
      EXPECT_EQ(r.counters.merge.fragments_written, 1024u);
    }
  }
}

// Throughput of the fragment stage, stand-in against program (docs/graphics.md "Fragment programs"):
// a 1024 x 1024 perspective-correct full-screen strip with 8 varying components, 3 draws each.
// Not a check; run with --gtest_also_run_disabled_tests --gtest_filter='*FragmentThroughput*'.
TEST(FragmentProgram, DISABLED_FragmentThroughput) {
  for (uint32_t warp_width : {8u, 32u}) {
    ProgramScene s(ColorFormat::kR8G8B8A8Unorm, warp_width, 1024);
    s.vertices({-1, -1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 2, -2, 0, 2, 0, 1, 0, 1, 0, 0, 0, 0,  //
                -1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 4, 4, 0, 4, 1, 1, 1, 1, 0, 0, 0, 0},
               Topology::kTriangleStrip);
    for (bool program : {false, true}) {
      if (program) {
        s.program(varying_program("persp"));
      } else {
        s.state.fragment = FragmentMode::kVaryingColor;
      }
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 3; ++i) ASSERT_FALSE(s.draw().fault);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("[throughput] warp width %u, %s: %.1f Mfragments/s\n", warp_width,
                  program ? "fragment program" : "stand-in", 3.0 * 1024 * 1024 / seconds / 1e6);
    }
  }
}

// Fragment instructions in a compute dispatch have no quads or varyings: an illegal instruction.
TEST(FragmentProgram, FragmentInstructionsFaultInAComputeDispatch) {
  for (const char* source : {"v_interp_flat_f32 v0, 0\ns_end\n", "v_ddx_fine_f32 v0, v1\ns_end\n",
                             "v_export_f32 v0, 0\ns_end\n", "v_kill\ns_end\n"}) {
    FlatMemory memory(0x100000, 1 << 20);
    const std::vector<uint32_t> code = assemble(source);
    ShaderCores cores(ShaderConfig{1, 8, 1});
    DispatchParams p;
    p.code_va = memory.upload(code);
    p.code_size = uint32_t(code.size() * 4);
    p.group_size[0] = 8;
    DispatchResult r = cores.run(p, memory);
    ASSERT_TRUE(r.fault) << source;
    EXPECT_EQ(r.fault->kind, ShaderFaultKind::kIllegalInstruction) << source;
    EXPECT_NE(r.fault->message.find("fragment-program instruction"), std::string::npos) << r.fault->message;
  }
}


// v_image_sample_implicit (docs/isa.md §8b): a 64x64 texture whose level L holds L + 1, drawn on
// the 32x32 target with u, v from 0 to `scale`: the derivatives are 2 * scale texels per pixel, so
// lambda = log2(2 * scale) (+ the bias in channel 3) picks the level (nearest mipmap mode). With
// one triangle the diagonal quads have helper lanes, whose coordinates the derivatives use.
namespace implicit_lod {

namespace desc = hw::blk::IMAGE_DESC;
namespace smp = hw::blk::SAMPLER_STATE;
using hw::put_field;

std::vector<float> uv_strip(float scale, bool whole_square) {
  std::vector<float> v = {-1, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,  //
                          1, -1, 0, 1, scale, 0, 0, 0, 0, 0, 0, 0,  //
                          -1, 1, 0, 1, 0, scale, 0, 0, 0, 0, 0, 0,  //
                          1, 1, 0, 1, scale, scale, 0, 0, 0, 0, 0, 0};
  if (!whole_square) v.resize(36);
  return v;
}

// A 64x64 R32 float image with 7 PACKED levels; level L filled with L + 1. Returns the descriptor VA.
uint64_t place_mip_chain(FlatMemory& memory) {
  std::vector<uint32_t> w(desc::SIZE_DWORDS, 0);
  w[desc::FORMAT] = put_field(desc::FORMAT_CHANNEL_ORDER_R, desc::FORMAT_CHANNEL_ORDER_MASK,
                              desc::FORMAT_CHANNEL_ORDER_SHIFT) |
                    put_field(desc::FORMAT_DATA_TYPE_FLOAT, desc::FORMAT_DATA_TYPE_MASK, desc::FORMAT_DATA_TYPE_SHIFT) |
                    put_field(desc::FORMAT_TYPE_IMAGE_2D, desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT) |
                    put_field(7, desc::FORMAT_MIP_LEVELS_MASK, desc::FORMAT_MIP_LEVELS_SHIFT) |
                    put_field(desc::FORMAT_MIP_LAYOUT_PACKED, desc::FORMAT_MIP_LAYOUT_MASK,
                              desc::FORMAT_MIP_LAYOUT_SHIFT);
  w[desc::WIDTH] = w[desc::HEIGHT] = 64;
  w[desc::DEPTH] = w[desc::ARRAY_SIZE] = 1;
  w[desc::ROW_PITCH] = 64 * 4;
  texture::Image image;
  std::string why;
  EXPECT_TRUE(texture::decode_image(w, &image, &why)) << why;
  const uint64_t base = memory.alloc(image.extent_bytes, 256);
  for (uint32_t level = 0; level < 7; ++level) {
    const float value = float(level + 1);
    const texture::Extent e = image.level_size(level);
    for (uint32_t y = 0; y < e.height; ++y)
      for (uint32_t x = 0; x < e.width; ++x)
        std::memcpy(memory.host(base + image.level_offset[level] + y * image.row_pitch[level] + 4 * x), &value, 4);
  }
  w[desc::BASE_VA_LO] = uint32_t(base);
  w[desc::BASE_VA_HI] = uint32_t(base >> 32);
  const uint64_t va = memory.alloc(desc::SIZE_DWORDS * 4, 64);
  std::memcpy(memory.host(va), w.data(), desc::SIZE_DWORDS * 4);
  return va;
}

uint32_t nearest_mip_sampler(uint32_t max_lod_code = 0) {
  return put_field(1, smp::STATE_NORMALIZED_MASK, smp::STATE_NORMALIZED_SHIFT) |
         put_field(smp::STATE_ADDRESS_U_REPEAT, smp::STATE_ADDRESS_U_MASK, smp::STATE_ADDRESS_U_SHIFT) |
         put_field(smp::STATE_ADDRESS_U_REPEAT, smp::STATE_ADDRESS_V_MASK, smp::STATE_ADDRESS_V_SHIFT) |
         put_field(1, smp::STATE_MIP_FILTER_MASK, smp::STATE_MIP_FILTER_SHIFT) |
         put_field(max_lod_code, smp::STATE_MAX_LOD_MASK, smp::STATE_MAX_LOD_SHIFT);
}

std::string sample_program(uint64_t desc_va, uint32_t sampler, float bias) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "s_mov_b32 s0, 0x%x\ns_mov_b32 s1, 0x%x\ns_mov_b32 s2, 0x%x\n"
                "v_interp_linear_f32 v8, 0\nv_interp_linear_f32 v9, 1\nv_mov_b32 v10, 0\nv_mov_b32 v11, 0x%x\n"
                "v_image_sample_implicit v[12:15], s[0:1], v[8:11], s2\n"
                "v_export_f32 v12, 0\nv_export_f32 v12, 1\nv_export_f32 v12, 2\nv_export_f32 v12, 3\ns_end\n",
                uint32_t(desc_va), uint32_t(desc_va >> 32), sampler, std::bit_cast<uint32_t>(bias));
  return buf;
}

TEST(FragmentProgram, ImplicitLodSampleChoosesTheLevelFromTheQuadsDerivatives) {
  struct Case {
    float scale, bias;
    uint32_t max_lod_code;
    float level_value;  // level + 1
    bool whole_square;
  };
  const Case cases[] = {
      {0.5f, 0, 0, 1, true},   // 1 texel per pixel: lambda 0, level 0
      {1, 0, 0, 2, true},      // lambda 1
      {1, 0, 0, 2, false},     // the same through helper lanes
      {4, 0, 0, 4, true},      // lambda 3
      {4, -1, 0, 3, true},     // the bias in channel 3
      {4, 0, 5, 2, true},      // MAX_LOD code 5 = 1.0
      {64, 0, 0, 7, false},    // lambda 7, clamped to the last level (6)
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "scale " << c.scale << " bias " << c.bias << " max " << c.max_lod_code);
    ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
    const uint64_t desc_va = place_mip_chain(s.memory);
    s.vertices(uv_strip(c.scale, c.whole_square), Topology::kTriangleStrip);
    s.program(sample_program(desc_va, nearest_mip_sampler(c.max_lod_code), c.bias), 2, 16, 4);
    const DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x) {
        if (!c.whole_square && x + y >= 31) continue;
        ASSERT_EQ(s.pixel(x, y)[0], c.level_value) << x << "," << y;
      }
  }
}

TEST(FragmentProgram, ImplicitLodSampleWithABadSamplerOrDescriptorFaultsNamingTheField) {
  ProgramScene s(ColorFormat::kR32G32B32A32Sfloat);
  const uint64_t desc_va = place_mip_chain(s.memory);
  s.vertices(uv_strip(1, true), Topology::kTriangleStrip);
  // MAX_LOD code 2 (0.25) below MIN_LOD 4 quarters (1.0): a hostile sampler word.
  const uint32_t bad_sampler = nearest_mip_sampler(2) | put_field(4, smp::STATE_MIN_LOD_MASK, smp::STATE_MIN_LOD_SHIFT);
  s.program(sample_program(desc_va, bad_sampler, 0), 2, 16, 4);
  DrawResult r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("MAX_LOD"), std::string::npos) << *r.fault;
  // A descriptor whose WIDTH is 0.
  uint32_t zero = 0;
  std::memcpy(s.memory.host(desc_va + 4 * desc::WIDTH), &zero, 4);
  s.program(sample_program(desc_va, nearest_mip_sampler(), 0), 2, 16, 4);
  r = s.draw();
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("WIDTH"), std::string::npos) << *r.fault;
}

}  // namespace implicit_lod

}  // namespace
}  // namespace gsgpu::graphics
