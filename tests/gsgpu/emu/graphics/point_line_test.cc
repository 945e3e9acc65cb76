// Points and lines through the whole pipeline (point_line_setup.h, clipper.h): which pixels each
// covers by Vulkan's rules (squares and rectangles sampled at pixel centres, the top-left rule on
// their edges), interpolation along a line, clipping, the per-draw counters (text and JSON), and
// hostile positions and point sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gsgpu/emu/graphics/draw_counters_json.h"
#include "gsgpu/emu/graphics/draw_dump.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;
using Pixels = std::set<std::pair<uint32_t, uint32_t>>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A W x H target with the viewport over it; vertices given in framebuffer pixels (converted to clip
// space with w = 1 unless given) with an RGBA varying.
struct Scene {
  FlatMemory memory{0x100000, 8 << 20};
  DrawState state;
  uint64_t color_va = 0;

  Scene(uint32_t w, uint32_t h, Topology topology, ColorFormat cf = ColorFormat::kR8G8B8A8Unorm) {
    state.width = w;
    state.height = h;
    state.viewport = Viewport{0, 0, float(w), float(h), 0, 1};
    color_va = memory.alloc(size_t(w) * h * bytes_per_pixel(cf));
    state.color = ColorTargetState{true, color_va, w * bytes_per_pixel(cf), cf};
    state.draw.topology = topology;
    state.constant_color = {1, 1, 1, 1};
  }
  // Each vertex: framebuffer x, y, then z, w, then the varying colour.
  struct V {
    float x, y, z = 0.5f, w = 1;
    std::array<float, 4> color{1, 1, 1, 1};
  };
  void vertices(const std::vector<V>& vs) {
    std::vector<float> data;
    for (const V& v : vs) {
      const float cx = (2 * v.x / float(state.width) - 1) * v.w, cy = (2 * v.y / float(state.height) - 1) * v.w;
      for (float f : {cx, cy, v.z * v.w, v.w}) data.push_back(f);
      for (float f : v.color) data.push_back(f);
    }
    state.input.bindings[0] = VertexBinding{memory.upload(data), data.size() * 4, 32, InputRate::kVertex, 1};
    state.input.attributes[0] = VertexAttribute{0, 109, 0};
    state.input.attributes[1] = VertexAttribute{0, 109, 16};
    state.input.attribute_count = 2;
    state.draw.count = uint32_t(vs.size());
  }
  // Raw clip-space positions (no conversion), for hostile values.
  void clip_vertices(const std::vector<std::array<float, 4>>& ps) {
    std::vector<float> data;
    for (const auto& p : ps) {
      for (float f : p) data.push_back(f);
      for (int c = 0; c < 4; ++c) data.push_back(1);
    }
    state.input.bindings[0] = VertexBinding{memory.upload(data), data.size() * 4, 32, InputRate::kVertex, 1};
    state.input.attributes[0] = VertexAttribute{0, 109, 0};
    state.input.attributes[1] = VertexAttribute{0, 109, 16};
    state.input.attribute_count = 2;
    state.draw.count = uint32_t(ps.size());
  }
  ColorTarget target() {
    return ColorTarget{memory.host(color_va), state.width, state.height, state.color.row_pitch, state.color.format};
  }
  Pixels covered() {
    Pixels p;
    ColorTarget t = target();
    for (uint32_t y = 0; y < state.height; ++y)
      for (uint32_t x = 0; x < state.width; ++x)
        if (t.load_bits(x, y)[3] != 0) p.insert({x, y});
    return p;
  }
  DrawResult draw(DrawMode mode = DrawMode::kReference) {
    GraphicsPipeline gp(memory);
    gp.set_mode(mode);
    return gp.draw(state);
  }
};

Pixels rect(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  Pixels p;
  for (uint32_t y = y0; y < y1; ++y)
    for (uint32_t x = x0; x < x1; ++x) p.insert({x, y});
  return p;
}

// Points: squares of side PointSize centred on the vertex, left / top edges inclusive.
TEST(PointRasterization, SquaresOfThePointSizeCoverTheCentresInside) {
  struct Case {
    float x, y, size;
    Pixels expected;
  } cases[] = {
      {8.5f, 8.5f, 1, rect(8, 8, 9, 9)},      // one pixel
      {8.0f, 8.0f, 1, rect(7, 7, 8, 8)},      // centre on a corner: [7.5, 8.5) holds centre 7.5 only
      {8.0f, 8.0f, 2, rect(7, 7, 9, 9)},      // 2x2 around the corner
      {8.5f, 8.5f, 3, rect(7, 7, 10, 10)},    // 3x3
      {8.5f, 8.5f, 2, rect(7, 7, 9, 9)},      // [7.5, 9.5): centres 7.5 (inclusive edge), 8.5
      {8.5f, 8.5f, 0.25f, rect(8, 8, 9, 9)},  // below the range: drawn as 1
      {8.3f, 8.7f, 1.5f, rect(8, 8, 9, 9)},   // [7.55, 9.05) x [7.95, 9.45) (snapped): centre (8.5, 8.5)
  };
  for (const Case& c : cases) {
    Scene s(32, 32, Topology::kPointList);
    s.vertices({{c.x, c.y}});
    s.state.draw.point_size = c.size;
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(s.covered(), c.expected) << c.x << ", " << c.y << " size " << c.size;
    EXPECT_EQ(r.counters.geometry.clip.points_out, 1u);
    EXPECT_EQ(r.counters.primitive.point_triangles, 2u);
    EXPECT_EQ(r.counters.merge.overdraw, 0u);  // the square's two halves never share a pixel
  }
}

TEST(PointRasterization, SizesAreClampedToTheRangeAndNaNIsOne) {
  for (float size : {64.0f, 1000.0f, kInf, 3e38f}) {
    Scene s(128, 128, Topology::kPointList);
    s.vertices({{64, 64}});
    s.state.draw.point_size = size;
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(s.covered(), rect(32, 32, 96, 96)) << size;
    EXPECT_EQ(r.counters.merge.fragments_written, 64u * 64u);
  }
  for (float size : {kNaN, -5.0f, 0.0f, -kInf}) {
    Scene s(16, 16, Topology::kPointList);
    s.vertices({{4.5f, 4.5f}});
    s.state.draw.point_size = size;
    ASSERT_FALSE(s.draw().fault);
    EXPECT_EQ(s.covered(), rect(4, 4, 5, 5)) << size;
  }
}

TEST(PointRasterization, PointsOutsideTheViewVolumeOrNotFiniteAreCulled) {
  Scene s(16, 16, Topology::kPointList);
  s.state.draw.point_size = 8;
  // Inside; centre just left of the viewport (its square would overlap); behind the near plane;
  // beyond the far plane; w = 0; NaN; infinite; enormous.
  s.clip_vertices({{0, 0, 0.5f, 1},
                   {-1.01f, 0, 0.5f, 1},
                   {0, 0, -0.1f, 1},
                   {0, 0, 1.1f, 1},
                   {0, 0, 0, 0},
                   {kNaN, 0, 0.5f, 1},
                   {0, kInf, 0.5f, 1},
                   {3e38f, -3e38f, 0.5f, 1}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.geometry.clip.points_in, 8u);
  EXPECT_EQ(r.counters.geometry.clip.points_culled, 7u);
  EXPECT_EQ(r.counters.geometry.clip.points_out, 1u);
  EXPECT_EQ(s.covered(), rect(4, 4, 12, 12));
}

TEST(PointRasterization, CullModeDoesNotCullPointsOrLinesAndTheyAreFrontFacing) {
  for (Topology t : {Topology::kPointList, Topology::kLineList}) {
    Scene s(16, 16, t);
    s.state.setup.cull = CullMode::kFrontAndBack;
    s.state.depth_stencil.stencil_test = false;
    s.vertices({{2.5f, 2.5f}, {10.5f, 2.5f}});
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(r.counters.primitive.culled, 0u);
    EXPECT_GT(r.counters.merge.fragments_written, 0u);
  }
}

// Lines: the rectangle of width 1 between the endpoints.
TEST(LineRasterization, AxisAlignedAndDiagonalLinesCoverTheirRectangles) {
  struct Case {
    Scene::V a, b;
    Pixels expected;
  } cases[] = {
      {{2.5f, 4.5f}, {6.5f, 4.5f}, rect(2, 4, 6, 5)},  // x-major: centres 2.5 .. 5.5 (the far end excluded)
      {{6.5f, 4.5f}, {2.5f, 4.5f}, rect(2, 4, 6, 5)},  // reversed: the same rectangle, the same pixels
      {{3.5f, 1.0f}, {3.5f, 9.0f}, rect(3, 1, 4, 9)},  // y-major, ends on pixel edges
      {{3.0f, 1.5f}, {3.0f, 5.5f}, rect(2, 1, 3, 5)},  // on a pixel edge: the rectangle [2.5, 3.5): column 2
  };
  for (const Case& c : cases) {
    Scene s(16, 16, Topology::kLineList);
    s.vertices({c.a, c.b});
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(s.covered(), c.expected) << c.a.x << "," << c.a.y << " -> " << c.b.x << "," << c.b.y;
    EXPECT_EQ(r.counters.primitive.line_triangles, 2u);
    EXPECT_EQ(r.counters.merge.overdraw, 0u);
  }
  // A 45-degree diagonal through pixel centres: each centre on it is covered (distance 0), its
  // neighbours (distance 0.707) are not.
  Scene s(16, 16, Topology::kLineList);
  s.vertices({{1, 1}, {9, 9}});
  ASSERT_FALSE(s.draw().fault);
  Pixels diagonal;
  for (uint32_t i = 1; i < 9; ++i) diagonal.insert({i, i});
  EXPECT_EQ(s.covered(), diagonal);
}

// A check against the rule itself: a pixel is covered exactly when its centre lies inside the
// rectangle (off its edges), for lines in many directions with sub-pixel endpoints.
TEST(LineRasterization, CoverageIsTheRectangleAtEveryAngle) {
  for (int k = 0; k < 48; ++k) {
    const double angle = k * 2 * M_PI / 48 + 0.01;
    const float ax = 16.13f, ay = 15.71f;
    const float bx = float(ax + 11.3 * std::cos(angle)), by = float(ay + 11.3 * std::sin(angle));
    Scene s(32, 32, Topology::kLineList);
    s.vertices({{ax, ay}, {bx, by}});
    ASSERT_FALSE(s.draw().fault);
    const Pixels got = s.covered();
    const double dx = bx - ax, dy = by - ay, len = std::sqrt(dx * dx + dy * dy);
    for (uint32_t y = 0; y < 32; ++y) {
      for (uint32_t x = 0; x < 32; ++x) {
        const double px = x + 0.5 - ax, py = y + 0.5 - ay;
        const double along = (px * dx + py * dy) / len, across = (px * -dy + py * dx) / len;
        // Centres clearly inside / outside (a margin for the 1/256 snapping of the corners).
        const bool inside = along > 0.01 && along < len - 0.01 && std::fabs(across) < 0.49;
        const bool outside = along < -0.01 || along > len + 0.01 || std::fabs(across) > 0.51;
        if (inside) {
          EXPECT_TRUE(got.count({x, y})) << k << ": " << x << "," << y;
        }
        if (outside) {
          EXPECT_FALSE(got.count({x, y})) << k << ": " << x << "," << y;
        }
      }
    }
  }
}

TEST(LineRasterization, StripsShareEndpointsWithoutOverdrawWhenStraight) {
  Scene s(16, 16, Topology::kLineStrip);
  // Joints on pixel centres: the first segment's end edge excludes the centre, the next one's start
  // edge includes it.
  s.vertices({{1.5f, 4.5f}, {5.5f, 4.5f}, {9.5f, 4.5f}, {13.5f, 4.5f}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(s.covered(), rect(1, 4, 13, 5));
  EXPECT_EQ(r.counters.geometry.primitives, 3u);
  EXPECT_EQ(r.counters.merge.fragments_written, 12u);
  EXPECT_EQ(r.counters.merge.overdraw, 0u);
}

// Varyings along a line: t = (p - a).(b - a) / |b - a|^2 at the pixel centre, perspective-correct
// by the endpoints' 1 / w; flat from the first vertex.
TEST(LineRasterization, VaryingsAreInterpolatedAlongTheLine) {
  for (Interpolation mode : {Interpolation::kNoPerspective, Interpolation::kPerspective, Interpolation::kFlat}) {
    Scene s(16, 4, Topology::kLineList, ColorFormat::kR32G32B32A32Sfloat);
    s.state.fragment = FragmentMode::kVaryingColor;
    s.state.varying_interpolation = mode;
    const float wa = 1, wb = 4;
    s.vertices({{0, 1.5f, 0.5f, wa, {0, 0, 0, 1}}, {16, 1.5f, 0.5f, wb, {1, 2, 3, 1}}});
    ASSERT_FALSE(s.draw().fault);
    ColorTarget t = s.target();
    for (uint32_t x = 0; x < 16; ++x) {
      const double lt = (x + 0.5) / 16;
      double f = lt;
      if (mode == Interpolation::kPerspective) f = (lt / wb) / ((1 - lt) / wa + lt / wb);
      if (mode == Interpolation::kFlat) f = 0;
      const float r = std::bit_cast<float>(t.load_bits(x, 1)[0]);
      EXPECT_NEAR(r, f, 1e-6) << int(mode) << " x " << x;
      EXPECT_EQ(t.load_bits(x, 0)[3], 0u);  // one row only
    }
  }
}

// Line stipple (line_stipple.h): the counter's pieces, carried along a strip.
TEST(LineStipple, RunsFollowThePatternAndTheCounterCarries) {
  LineStippler st;
  std::vector<StippleRun> runs;
  const LineStipple s{true, 1, 0x0F0F};
  st.split(0, 0, 16, 3, s, false, &runs);  // x-major Bresenham: 16 pixels
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].u0, 0.0f);
  EXPECT_EQ(runs[0].u1, 4.0f / 16);
  EXPECT_EQ(runs[1].u0, 8.0f / 16);
  EXPECT_EQ(runs[1].u1, 12.0f / 16);
  EXPECT_EQ(st.counter(), 16u);
  st.split(2, 2, 2, 7.5f, s, false, &runs);  // y-major, 5.5 pixels: values 16 .. 21, 16 .. 19 on
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].u0, 0.0f);
  EXPECT_EQ(runs[0].u1, 4.0f / 5.5f);
  EXPECT_EQ(st.counter(), 22u);
  st.split(0, 0, 3, 4, s, true, &runs);  // rectangular, 5 long: values 22 .. 26: 6, 7 off, 8 .. 10 on
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].u0, 2.0f / 5);
  EXPECT_EQ(runs[0].u1, 1.0f);
  st.split(0, 0, 3, 0, s, false, &runs);  // values 27 .. 29: bit 11 on, 12 .. 13 off
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].u0, 0.0f);
  EXPECT_EQ(runs[0].u1, 1.0f / 3);
  st.restart();
  const LineStipple wide{true, 256, 0x0002};  // value 0 .. 255 is bit 0: off
  st.split(0, 0, 200, 0, wide, false, &runs);
  EXPECT_TRUE(runs.empty());
  st.split(0, 0, kNaN, 0, s, false, &runs);  // not finite: nothing, the counter kept
  st.split(0, 0, 0, kNaN, s, false, &runs);
  st.split(0, 0, kInf, 0, s, true, &runs);
  EXPECT_TRUE(runs.empty());
  EXPECT_EQ(st.counter(), 200u);
}

// A Bresenham strip along row 1: segments of 8 pixels, pattern 0x0003 with factor 2 draws values
// 0 .. 3 of every 32. The strip's second segment continues the counter (8 .. 15: nothing), a
// second strip (primitive restart) and each line of a list restart it.
TEST(LineStipple, StripsCarryTheCounterListsAndRestartsResetIt) {
  for (Topology topology : {Topology::kLineStrip, Topology::kLineList}) {
    Scene s(32, 4, topology);
    s.state.draw.line_mode = LineMode::kBresenham;
    s.state.draw.line_stipple = LineStipple{true, 2, 0x0003};
    if (topology == Topology::kLineStrip) {
      s.vertices({{0.5f, 1.5f}, {8.5f, 1.5f}, {16.5f, 1.5f}});
    } else {
      s.vertices({{0.5f, 1.5f}, {8.5f, 1.5f}, {8.5f, 1.5f}, {16.5f, 1.5f}});
    }
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(s.covered(), topology == Topology::kLineStrip ? rect(0, 1, 4, 2) : [] {
      Pixels p = rect(0, 1, 4, 2);
      p.merge(rect(8, 1, 12, 2));
      return p;
    }()) << topology_name(topology);
    EXPECT_EQ(r.counters.geometry.clip.lines_out, topology == Topology::kLineStrip ? 1u : 2u);
  }
  Scene s(32, 4, Topology::kLineStrip);
  s.state.draw.line_mode = LineMode::kBresenham;
  s.state.draw.line_stipple = LineStipple{true, 2, 0x0003};
  s.vertices({{0.5f, 1.5f}, {8.5f, 1.5f}, {16.5f, 1.5f}, {20.5f, 1.5f}, {28.5f, 1.5f}});
  const uint64_t index_va = s.memory.upload(std::vector<uint16_t>{0, 1, 2, 0xFFFF, 3, 4});
  s.state.draw.indexed = true;
  s.state.draw.index_va = index_va, s.state.draw.index_size = 12;
  s.state.draw.index_type = IndexType::kUint16;
  s.state.draw.primitive_restart = true;
  s.state.draw.count = 6;
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  Pixels want = rect(0, 1, 4, 2);
  want.merge(rect(20, 1, 24, 2));
  EXPECT_EQ(s.covered(), want);
}

// A stippled line's pieces keep the whole line's interpolation: every pixel drawn holds the value
// the unstippled line gives it (perspective-correct and noperspective), in both modes, within what
// snapping a piece's new ends to the 1/256 grid moves (values run 0 .. 3 along the line; a wrong
// perspective or parameter would be off by 0.05 and more).
TEST(LineStipple, PiecesInterpolateAsTheWholeLine) {
  for (LineMode mode : {LineMode::kRectangular, LineMode::kBresenham}) {
    for (Interpolation interp : {Interpolation::kNoPerspective, Interpolation::kPerspective}) {
      std::vector<uint32_t> whole, stippled;
      uint32_t drawn = 0;
      for (bool stipple : {false, true}) {
        Scene s(32, 32, Topology::kLineList, ColorFormat::kR32G32B32A32Sfloat);
        s.state.draw.line_mode = mode;
        s.state.draw.line_stipple = LineStipple{stipple, 3, 0x5A5A};
        s.state.fragment = FragmentMode::kVaryingColor;
        s.state.varying_interpolation = interp;
        // As the device decodes the stand-in's noperspective mode: every component cut in screen space.
        if (interp == Interpolation::kNoPerspective) s.state.draw.linear_varyings = ~uint64_t{0};
        s.vertices({{1.3f, 2.2f, 0.2f, 1, {0, 0, 0, 1}}, {30.6f, 27.7f, 0.8f, 3, {1, 2, 3, 1}}});
        ASSERT_FALSE(s.draw().fault);
        ColorTarget t = s.target();
        for (uint32_t y = 0; y < 32; ++y) {
          for (uint32_t x = 0; x < 32; ++x) {
            if (stipple && t.load_bits(x, y)[3] != 0) {
              ++drawn;
              for (int c = 0; c < 3; ++c) {
                EXPECT_NEAR(std::bit_cast<float>(t.load_bits(x, y)[c]), std::bit_cast<float>(whole[(y * 32 + x) * 3 + c]),
                            1e-3)
                    << int(mode) << " " << int(interp) << " at " << x << ", " << y;
              }
            }
            for (int c = 0; c < 3 && !stipple; ++c) whole.push_back(t.load_bits(x, y)[c]);
          }
        }
      }
      EXPECT_GT(drawn, 10u);
      EXPECT_LT(drawn, 32u);
    }
  }
}

TEST(LineRasterization, DepthTestAndBlendingApplyToLines) {
  Scene s(16, 8, Topology::kLineList);
  const uint64_t depth_va = s.memory.alloc(16 * 8 * 4);
  s.state.depth = DepthTargetState{true, depth_va, 16 * 4, DepthFormat::kD32Sfloat};
  DepthStencilTarget d{s.memory.host(depth_va), 16, 8, 16 * 4, DepthFormat::kD32Sfloat};
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 16; ++x) d.store_depth(x, y, x < 8 ? 0.25f : 1.0f);
  s.state.depth_stencil.depth_test = true;
  s.state.depth_stencil.depth_write = true;
  s.state.depth_stencil.depth_compare = CompareOp::kLess;
  s.state.blend.enable = true;
  s.state.blend.src_color = s.state.blend.src_alpha = BlendFactor::kOne;
  s.state.blend.dst_color = s.state.blend.dst_alpha = BlendFactor::kOne;
  s.state.constant_color = {0.25f, 0.5f, 0, 1};
  s.vertices({{0, 3.5f, 0.5f}, {16, 3.5f, 0.5f}, {0, 3.5f, 0.75f}, {16, 3.5f, 0.75f}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.merge.depth_failed, 8u + 16u);  // the left half of both, the second line on the right
  EXPECT_EQ(r.counters.merge.fragments_written, 8u);
  ColorTarget t = s.target();
  EXPECT_EQ(t.load_bits(3, 3), (std::array<uint32_t, 4>{0, 0, 0, 0}));
  EXPECT_EQ(t.load_bits(12, 3), (std::array<uint32_t, 4>{64, 128, 0, 255}));
  EXPECT_FLOAT_EQ(d.load_depth(12, 3), 0.5f);
}

// Bresenham lines: the diamond-exit rule, against an independent reference that computes each
// pixel's L1 distance to the segment (the minimum of a convex piecewise-linear function, at its
// breakpoints) for random lines with endpoints on the 1/256 grid.
TEST(BresenhamLines, DiamondExitRuleMatchesAReference) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> coord(2 * 256, 30 * 256);
  int lines = 0, checked = 0;
  for (int k = 0; k < 200; ++k) {
    const double ax = coord(rng) / 256.0, ay = coord(rng) / 256.0, bx = coord(rng) / 256.0, by = coord(rng) / 256.0;
    if (ax == bx && ay == by) continue;
    Scene s(32, 32, Topology::kLineList);
    s.state.draw.line_mode = LineMode::kBresenham;
    s.vertices({{float(ax), float(ay)}, {float(bx), float(by)}});
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(r.counters.primitive.bresenham_lines, 1u);
    ++lines;
    const Pixels got = s.covered();
    for (uint32_t y = 0; y < 32; ++y) {
      for (uint32_t x = 0; x < 32; ++x) {
        const double cx = x + 0.5, cy = y + 0.5;
        auto l1 = [&](double t) {
          t = std::clamp(t, 0.0, 1.0);
          return std::fabs(ax + t * (bx - ax) - cx) + std::fabs(ay + t * (by - ay) - cy);
        };
        double best = std::min(l1(0), l1(1));
        if (bx != ax) best = std::min(best, l1((cx - ax) / (bx - ax)));
        if (by != ay) best = std::min(best, l1((cy - ay) / (by - ay)));
        const double b_l1 = std::fabs(bx - cx) + std::fabs(by - cy);
        if (std::fabs(best - 0.5) < 1e-9 || std::fabs(b_l1 - 0.5) < 1e-9) continue;  // ties: the rule's own
        const bool expected = best < 0.5 && !(b_l1 < 0.5);
        ++checked;
        EXPECT_EQ(got.count({x, y}) == 1, expected)
            << "line " << ax << "," << ay << " -> " << bx << "," << by << " pixel " << x << "," << y;
      }
    }
  }
  EXPECT_GT(lines, 190);
  EXPECT_GT(checked, 190 * 1000);
}

TEST(BresenhamLines, OnePixelPerMajorColumnAndInterpolationAlongTheLine) {
  Scene s(16, 4, Topology::kLineList, ColorFormat::kR32G32B32A32Sfloat);
  s.state.draw.line_mode = LineMode::kBresenham;
  s.state.fragment = FragmentMode::kVaryingColor;
  s.state.varying_interpolation = Interpolation::kNoPerspective;
  s.vertices({{0.5f, 1.5f, 0.5f, 1, {0, 0, 0, 1}}, {15.5f, 2.5f, 0.5f, 1, {1, 0, 0, 1}}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  // Columns 0 .. 14 (b's own pixel holds b inside its diamond: not produced), one row each.
  EXPECT_EQ(r.counters.merge.fragments_written, 15u);
  EXPECT_EQ(r.counters.primitive.raster.tiles_visited[0], 0u);  // no tile walk
  ColorTarget t = s.target();
  for (uint32_t x = 0; x < 15; ++x) {
    const uint32_t y = x < 8 ? 1 : 2;  // the line crosses row 2's top edge half-way
    EXPECT_NE(t.load_bits(x, y)[3], 0u) << x;
    EXPECT_NEAR(std::bit_cast<float>(t.load_bits(x, y)[0]), x / 15.0, 1e-6) << x;
  }
}

// Wide rectangular lines (PIPE_STATE LINE_WIDTH): the rectangle of the width centred on the
// segment, at 24 angles and widths 2 .. 8.
TEST(WideLines, RectangularCoverageIsTheRectangleOfTheWidth) {
  for (float width : {2.0f, 3.5f, 8.0f}) {
    for (int k = 0; k < 24; ++k) {
      const double angle = k * 2 * M_PI / 24 + 0.01;
      const float ax = 24.13f, ay = 23.71f;
      const float bx = float(ax + 15.3 * std::cos(angle)), by = float(ay + 15.3 * std::sin(angle));
      Scene s(48, 48, Topology::kLineList);
      s.state.draw.line_width = width;
      s.vertices({{ax, ay}, {bx, by}});
      ASSERT_FALSE(s.draw().fault);
      const Pixels got = s.covered();
      const double dx = bx - ax, dy = by - ay, len = std::sqrt(dx * dx + dy * dy);
      for (uint32_t y = 0; y < 48; ++y) {
        for (uint32_t x = 0; x < 48; ++x) {
          const double px = x + 0.5 - ax, py = y + 0.5 - ay;
          const double along = (px * dx + py * dy) / len, across = std::fabs(px * -dy + py * dx) / len;
          const bool inside = along > 0.01 && along < len - 0.01 && across < width / 2 - 0.01;
          const bool outside = along < -0.01 || along > len + 0.01 || across > width / 2 + 0.01;
          if (inside) EXPECT_TRUE(got.count({x, y})) << width << " " << k << ": " << x << "," << y;
          if (outside) EXPECT_FALSE(got.count({x, y})) << width << " " << k << ": " << x << "," << y;
        }
      }
    }
  }
}

// Wide Bresenham lines, Vulkan's rule: the width-1 line moved by -(w - 1) / 2 on the minor axis,
// each of its pixels extended to w pixels along that axis (w rounded to whole pixels). Checked for
// random lines against the emulator's own width-1 rasterization of the moved line (itself checked
// against the L1 reference above); every pixel is written once.
TEST(WideLines, BresenhamColumnsAreTheMovedWidthOneLineExtended) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> coord(8 * 256, 40 * 256);
  for (int k = 0; k < 60; ++k) {
    const float ax = coord(rng) / 256.0f, ay = coord(rng) / 256.0f, bx = coord(rng) / 256.0f, by = coord(rng) / 256.0f;
    if (ax == bx && ay == by) continue;
    const float width = float(2 + k % 7) + (k % 3 == 2 ? 0.4f : 0.0f);  // 2.4 draws 2, 4.4 draws 4 ...
    const int w = int(std::lround(width));
    const bool x_major = std::fabs(bx - ax) >= std::fabs(by - ay);
    const float shift = (w - 1) / 2.0f;
    Scene thin(48, 48, Topology::kLineList);
    thin.state.draw.line_mode = LineMode::kBresenham;
    thin.vertices({{ax - (x_major ? 0 : shift), ay - (x_major ? shift : 0)},
                   {bx - (x_major ? 0 : shift), by - (x_major ? shift : 0)}});
    ASSERT_FALSE(thin.draw().fault);
    Pixels expected;
    for (auto [x, y] : thin.covered()) {
      for (int i = 0; i < w; ++i) {
        const uint32_t px = x_major ? x : x + uint32_t(i), py = x_major ? y + uint32_t(i) : y;
        if (px < 48 && py < 48) expected.insert({px, py});
      }
    }
    Scene wide(48, 48, Topology::kLineList);
    wide.state.draw.line_mode = LineMode::kBresenham;
    wide.state.draw.line_width = width;
    wide.vertices({{ax, ay}, {bx, by}});
    DrawResult r = wide.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    EXPECT_EQ(wide.covered(), expected) << "line " << ax << "," << ay << " -> " << bx << "," << by << " width " << width;
    EXPECT_EQ(r.counters.merge.fragments_written, expected.size()) << k;
  }
}

// Hostile widths: NaN, 0 and negatives draw 1; +inf and 10^30 draw 64 (lineWidthRange), in both
// modes, and never fault.
TEST(WideLines, WidthsAreClampedToTheRangeAndNaNIsOne) {
  for (LineMode mode : {LineMode::kRectangular, LineMode::kBresenham}) {
    auto draw = [&](float width) {
      Scene s(128, 128, Topology::kLineList);
      s.state.draw.line_mode = mode;
      s.state.draw.line_width = width;
      s.vertices({{20.3f, 30.2f}, {100.7f, 90.4f}});
      DrawResult r = s.draw();
      EXPECT_FALSE(r.fault) << width;
      return s.covered();
    };
    const Pixels one = draw(1.0f), widest = draw(64.0f);
    EXPECT_GT(widest.size(), 30 * one.size());
    for (float width : {kNaN, 0.0f, -5.0f, -kInf}) EXPECT_EQ(draw(width), one) << width;
    for (float width : {kInf, 1e30f, 65.0f}) EXPECT_EQ(draw(width), widest) << width;
  }
}

TEST(LineClipping, LinesAreClippedNotDropped) {
  Scene s(16, 16, Topology::kLineList);
  // Far off to the left (x = -10000 w, beyond the guard band) into the target; across the near plane; wholly behind it.
  s.clip_vertices({{-10000, 0.0625f, 0.5f, 1}, {0, 0.0625f, 0.5f, 1},
                   {0.0625f, -1, -1, 1}, {0.0625f, 1, 1, 1},
                   {-1, -1, -2, 1}, {1, 1, -1, 1}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  const ClipCounters& c = r.counters.geometry.clip;
  EXPECT_EQ(c.lines_in, 3u);
  EXPECT_EQ(c.lines_clipped, 2u);
  EXPECT_EQ(c.lines_rejected, 1u);
  EXPECT_EQ(c.lines_out, 2u);
  // Row 8 (y_d = 0.0625 -> 8.5) from x 0 to 8; column 8 (x 8.5) from the near plane's y (8) down.
  Pixels expected = rect(0, 8, 8, 9);
  for (uint32_t y = 8; y < 16; ++y) expected.insert({8, y});
  EXPECT_EQ(s.covered(), expected);
}

TEST(LineClipping, HostileCoordinatesAreDroppedOrBoundedNeverHang) {
  // Both line modes: the Bresenham walk is bounded by the render area too.
  for (LineMode mode : {LineMode::kRectangular, LineMode::kBresenham}) {
    Scene s(16, 16, Topology::kLineStrip);
    s.state.draw.line_mode = mode;
    s.clip_vertices({{kNaN, 0, 0.5f, 1}, {0, 0, 0.5f, 1}, {kInf, 0, 0.5f, 1}, {3e38f, 3e38f, 0.5f, 1},
                     {-3e38f, -3e38f, 0.5f, 1}, {1e-30f, 0, 0.5f, 1e-30f}, {0, 0, 0.5f, 1}, {0, 0, 0.5f, 1},
                     {1e6f, 1e6f, 0.5f, 1}, {-1e6f, -1e6f, 0.5f, 1}});
    DrawResult r = s.draw();
    ASSERT_FALSE(r.fault) << *r.fault;
    const ClipCounters& c = r.counters.geometry.clip;
    EXPECT_EQ(c.lines_in, 9u);
    // NaN and infinity: dropped; +-3e38: clipped to a point at the origin (t0 = t1 in double); the
    // zero-length lines: degenerate; w near 0: clipped at w = 10^-6 and the far plane; +-10^6: clipped
    // to the guard band and drawn.
    EXPECT_GE(c.lines_rejected, 3u);
    EXPECT_GE(c.lines_degenerate, 1u);
    EXPECT_GE(c.lines_out, 1u);
    EXPECT_EQ(c.lines_in, c.lines_rejected + c.lines_degenerate + c.lines_out + c.outside_guard_band);
    EXPECT_LE(r.counters.merge.fragments_written, 16u * 16u);
  }
}

// Fast mode (docs/graphics.md "Reference and fast modes") keeps no overdraw map: that counter is 0,
// every other one and every byte of the target are the reference's.
TEST(DrawCountersJson, FastModeDiffersOnlyInTheOverdrawCounter) {
  Scene reference(32, 32, Topology::kPointList), fast(32, 32, Topology::kPointList);
  for (Scene* s : {&reference, &fast}) {
    s->state.draw.point_size = 4;
    s->vertices({{8, 8}, {10, 10}, {-5, 8}});  // two points overlapping by a 2x2 corner, one culled
  }
  DrawResult r = reference.draw(), f = fast.draw(DrawMode::kFast);
  ASSERT_FALSE(r.fault || f.fault);
  EXPECT_EQ(r.counters.merge.overdraw, 4u);
  EXPECT_EQ(f.counters.merge.overdraw, 0u);
  f.counters.merge.overdraw = r.counters.merge.overdraw;
  EXPECT_EQ(format_draw_counters_json(f.counters), format_draw_counters_json(r.counters));
  EXPECT_EQ(fast.covered(), reference.covered());
  EXPECT_EQ(0, std::memcmp(fast.memory.host(fast.color_va), reference.memory.host(reference.color_va), 32 * 32 * 4));
}

// The DUMP text names the new counters, and the JSON form holds the same numbers.
TEST(DrawCountersJson, MatchesTheCountersOfAKnownScene) {
  Scene s(32, 32, Topology::kPointList);
  s.state.draw.point_size = 4;
  // Two 4x4 points inside, one culled (outside), overlapping by a 2x2 corner.
  s.vertices({{8, 8}, {10, 10}, {-5, 8}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  EXPECT_EQ(r.counters.merge.fragments_written, 32u);
  EXPECT_EQ(r.counters.merge.overdraw, 4u);
  const std::string json = format_draw_counters_json(r.counters);
  for (const char* part : {"\"vertices\": 3,", "\"primitives\": 3,", "\"points_in\": 3,", "\"points_culled\": 1,",
                           "\"points_out\": 2,", "\"point_triangles\": 4,", "\"fragments\": 32,",
                           "\"written\": 32,", "\"overdraw\": 4}", "{\"size\": 128, \"visited\": 4,"}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << "\n" << json;
  }
  const std::string dump = format_draw(s.state, r);
  EXPECT_NE(dump.find("counters json: " + json + "\n"), std::string::npos) << dump;
  EXPECT_NE(dump.find("points in / culled / drawn          3 / 1 / 2"), std::string::npos) << dump;
  EXPECT_NE(dump.find("point size      4 (drawn 4)"), std::string::npos) << dump;
}

// A small JSON reader for what format_draw_counters_json writes (objects, arrays, unsigned
// integers): every number flattened under its path ("clip.lines_in", "raster.tiles.2.visited").
// Returns false on anything else, so the test also checks that the text is well formed.
class FlatJson {
 public:
  bool parse(const std::string& text) {
    text_ = text;
    pos_ = 0;
    return value("") && (skip(), pos_ == text_.size());
  }
  std::map<std::string, uint64_t> values;

 private:
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool value(const std::string& path) {
    skip();
    if (pos_ >= text_.size()) return false;
    if (text_[pos_] == '{') return object(path);
    if (text_[pos_] == '[') return array(path);
    if (!std::isdigit(static_cast<unsigned char>(text_[pos_]))) return false;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) v = v * 10 + uint64_t(text_[pos_++] - '0');
    return values.emplace(path, v).second;  // a repeated key is malformed
  }
  bool object(const std::string& path) {
    eat('{');
    if (eat('}')) return true;
    do {
      if (!eat('"')) return false;
      const size_t end = text_.find('"', pos_);
      if (end == std::string::npos) return false;
      const std::string key = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      if (!eat(':') || !value(path.empty() ? key : path + "." + key)) return false;
    } while (eat(','));
    return eat('}');
  }
  bool array(const std::string& path) {
    eat('[');
    if (eat(']')) return true;
    int i = 0;
    do {
      if (!value(path + "." + std::to_string(i++))) return false;
    } while (eat(','));
    return eat(']');
  }
  std::string text_;
  size_t pos_ = 0;
};

// The JSON read back holds every counter of DrawCounters with its value (a scene with clipped lines,
// depth failures and overdraw, so that most counters are not 0).
TEST(DrawCountersJson, ParsesBackToEveryCounter) {
  Scene s(64, 64, Topology::kLineStrip);
  const uint64_t depth_va = s.memory.alloc(64 * 64 * 4);
  s.state.depth = DepthTargetState{true, depth_va, 64 * 4, DepthFormat::kD32Sfloat};
  DepthStencilTarget d{s.memory.host(depth_va), 64, 64, 64 * 4, DepthFormat::kD32Sfloat};
  for (uint32_t y = 0; y < 64; ++y)
    for (uint32_t x = 0; x < 64; ++x) d.store_depth(x, y, x < 10 ? 0.0f : 1.0f);
  s.state.depth_stencil.depth_test = true;
  s.state.depth_stencil.depth_compare = CompareOp::kLessOrEqual;
  s.vertices({{-40000, 3.5f}, {60.5f, 3.5f}, {3.5f, 60.2f}, {60.5f, 3.5f}, {-9000, -9000, -1}});
  DrawResult r = s.draw();
  ASSERT_FALSE(r.fault) << *r.fault;
  const std::string json = format_draw_counters_json(r.counters);
  FlatJson parsed;
  ASSERT_TRUE(parsed.parse(json)) << json;
  const DrawCounters& c = r.counters;
  const ClipCounters& k = c.geometry.clip;
  const PrimitiveCounters& p = c.primitive;
  const RasterCounters& ra = p.raster;
  std::map<std::string, uint64_t> expected = {
      {"vertices", c.geometry.vertices}, {"primitives", c.geometry.primitives},
      {"clip.triangles_in", k.triangles_in}, {"clip.trivially_accepted", k.trivially_accepted},
      {"clip.clipped", k.clipped}, {"clip.rejected", k.rejected}, {"clip.triangles_out", k.triangles_out},
      {"clip.points_in", k.points_in}, {"clip.points_culled", k.points_culled}, {"clip.points_out", k.points_out},
      {"clip.lines_in", k.lines_in}, {"clip.lines_clipped", k.lines_clipped}, {"clip.lines_rejected", k.lines_rejected},
      {"clip.lines_degenerate", k.lines_degenerate}, {"clip.lines_out", k.lines_out},
      {"clip.outside_guard_band", k.outside_guard_band},
      {"setup.triangles_in", p.triangles_in}, {"setup.culled", p.culled}, {"setup.degenerate", p.degenerate},
      {"setup.outside_guard_band", p.outside_guard_band}, {"setup.point_triangles", p.point_triangles},
      {"setup.line_triangles", p.line_triangles}, {"setup.bresenham_lines", p.bresenham_lines},
      {"raster.triangles", ra.triangles}, {"raster.tiles_rejected_by_bbox", ra.tiles_rejected_by_bbox},
      {"raster.blocks_tested", ra.blocks_tested}, {"raster.quads", ra.quads}, {"raster.fragments", ra.fragments},
      {"raster.helper_lanes", ra.helper_lanes},
      {"merge.fragments_in", c.merge.fragments_in}, {"merge.stencil_failed", c.merge.stencil_failed},
      {"merge.depth_failed", c.merge.depth_failed}, {"merge.written", c.merge.fragments_written},
      {"merge.overdraw", c.merge.overdraw}};
  for (int l = 0; l < kTileLevels; ++l) {
    const std::string t = "raster.tiles." + std::to_string(l) + ".";
    expected[t + "size"] = uint64_t(kTopTileSize >> l);
    expected[t + "visited"] = ra.tiles_visited[l];
    expected[t + "rejected"] = ra.tiles_rejected[l];
    expected[t + "accepted"] = ra.tiles_accepted[l];
  }
  EXPECT_EQ(parsed.values, expected) << json;
  // What the scene is known to do: 4 lines (one clipped at the guard band, one from behind the near
  // plane clipped), a line drawn twice (overdraw), the left 10 columns failing the depth test.
  EXPECT_EQ(k.lines_in, 4u);
  EXPECT_EQ(k.lines_clipped, 2u);
  EXPECT_GT(c.merge.overdraw, 0u);
  EXPECT_GT(c.merge.depth_failed, 0u);
  EXPECT_EQ(p.line_triangles, 2 * k.lines_out);
  EXPECT_FALSE(parsed.parse(json + "}"));
  EXPECT_FALSE(parsed.parse("{\"a\": 1, \"a\": 2}"));
}

}  // namespace
}  // namespace gsgpu::graphics
