// Golden scenes of points and lines (docs/graphics.md "Points and lines"): point lists of several
// sizes, line lists and strips in many directions with sub-pixel endpoints, interpolated along the
// line, with depth and blending, rendered on gsgpu and on lavapipe in the same test. Kept apart from
// geometry_test.cc (triangles) and merge_test.cc (the output merger).
#include <cmath>

#include "tests/gsgpu/graphics_golden/golden_fixture.h"

namespace gsgpu::golden {
namespace {

// One point-list draw of `points` (pixel coordinates) of side `size` in a constant colour.
Draw points_draw(const Scene& s, const std::vector<std::array<float, 2>>& points, float size, Vec4 color) {
  Draw d;
  d.topology = kPointList;
  d.point_size = size;
  d.constant = color;
  for (const auto& p : points) d.vertices.push_back(at(s, p[0], p[1]));
  return d;
}

// Points of sizes 1 .. 17.25 on pixel centres, pixel corners and sub-pixel positions: Vulkan fixes
// the square and both sides sample it at pixel centres with the same inclusive left / top edges, so
// every pixel must match.
TEST_F(GoldenTest, PointsOfSeveralSizes) {
  Scene s;
  s.name = "points";
  s.width = s.height = 96;
  const float sizes[] = {1, 2, 3, 4.5f, 6, 8, 11.75f, 17.25f};
  float y = 6;
  for (int k = 0; k < 8; ++k) {
    const float size = sizes[k];
    std::vector<std::array<float, 2>> pts;
    // Centre, corner, and sub-pixel offsets of 1/3, 0.71, 1/256 and 0.5 + 1/512 pixel.
    const float offsets[][2] = {{0.5f, 0.5f}, {0, 0}, {0.333f, 0.71f}, {0.0039f, 0.5f}, {0.502f, 0.998f}};
    float x = 4;
    for (const auto& o : offsets) {
      pts.push_back({x + o[0], y + o[1]});
      x += std::max(size, 2.0f) + 3;
      if (x > 90) break;
    }
    s.draws.push_back(points_draw(s, pts, size, u8(40 + 25 * k, 255 - 20 * k, 90 + 15 * k)));
    y += std::max(size, 2.0f) + 2.5f;
  }
  check(s, {0, 0});
}

// Line segments as (x0, y0) -> (x1, y1) in pixels, in one colour.
Draw lines_draw(const Scene& s, uint32_t topology, const std::vector<std::array<float, 2>>& v, Vec4 color) {
  Draw d;
  d.topology = topology;
  d.constant = color;
  for (const auto& p : v) d.vertices.push_back(at(s, p[0], p[1]));
  return d;
}

// Lines in 32 directions around two centres (x-major, y-major, diagonals) with sub-pixel endpoints,
// axis-aligned lines on pixel centres and on pixel edges, short lines under a pixel long, and
// strips: a straight one (joints on centres), a zigzag and a closed square. Constant colours: both
// sides snap the endpoints to 1/256 and apply the top-left rule to the same rectangle.
TEST_F(GoldenTest, LinesInEveryDirection) {
  Scene s;
  s.name = "lines";
  s.width = s.height = 128;
  std::vector<std::array<float, 2>> fan;
  for (int k = 0; k < 32; ++k) {
    const double angle = k * 2 * M_PI / 32 + 0.037;
    const float cx = k % 2 ? 33.37f : 32.5f, cy = k % 2 ? 34.81f : 32.5f;
    const float r0 = 4 + (k % 3) * 0.29f, r1 = 27.6f - (k % 5) * 0.53f;
    fan.push_back({float(cx + r0 * std::cos(angle)), float(cy + r0 * std::sin(angle))});
    fan.push_back({float(cx + r1 * std::cos(angle)), float(cy + r1 * std::sin(angle))});
  }
  s.draws.push_back(lines_draw(s, kLineList, fan, u8(255, 200, 40)));
  s.draws.push_back(lines_draw(s, kLineList,
                               {{70.5f, 4.5f}, {120.5f, 4.5f},      // horizontal on centres
                                {70, 8}, {120, 8},                  // on a pixel edge
                                {120.25f, 11.75f}, {70.25f, 11.75f},  // right to left, sub-pixel
                                {72.5f, 16.5f}, {72.5f, 60.5f},     // vertical on centres
                                {76, 16}, {76, 60},                 // on pixel corners
                                {80.3f, 60.2f}, {80.3f, 16.9f},     // bottom to top
                                {84, 16}, {124, 56},                // 45 degrees through corners
                                {84.5f, 30.5f}, {110.5f, 56.5f},    // 45 degrees through centres
                                {124.1f, 18.3f}, {94.7f, 47.9f},    // anti-diagonal
                                {90.2f, 20.1f}, {90.9f, 20.4f},     // shorter than a pixel
                                {100.5f, 20.5f}, {100.5f, 21.2f}},
                               u8(60, 220, 255)));
  s.draws.push_back(lines_draw(s, kLineStrip,
                               {{4.5f, 70.5f}, {20.5f, 70.5f}, {36.5f, 70.5f}, {60.5f, 70.5f}},
                               u8(255, 90, 200)));
  s.draws.push_back(lines_draw(s, kLineStrip,
                               {{4.2f, 80.3f}, {14.7f, 100.1f}, {25.3f, 79.6f}, {36.1f, 101.4f}, {47.9f, 80.2f},
                                {58.6f, 100.7f}},
                               u8(120, 255, 120)));
  s.draws.push_back(lines_draw(s, kLineStrip,
                               {{70.3f, 70.3f}, {120.6f, 70.3f}, {120.6f, 120.6f}, {70.3f, 120.6f}, {70.3f, 70.3f}},
                               u8(200, 120, 255)));
  check(s, {0, 0});
}

// Colours interpolated along lines: perspective-correct (w from 1 to 4 along the line), linear and
// flat (the first vertex's colour), in a list and a strip. The colours are not whole 1/255 steps
// between the ends, so both sides may round differently: at most 2/255, coverage exact.
TEST_F(GoldenTest, LinesWithInterpolatedColours) {
  Scene s;
  s.name = "lines_interpolated";
  const FragmentShading modes[] = {FragmentShading::kSmooth, FragmentShading::kNoPerspective, FragmentShading::kFlat};
  float y = 6.3f;
  for (FragmentShading mode : modes) {
    Draw d;
    d.topology = kLineList;
    d.shading = mode;
    for (int k = 0; k < 5; ++k) {
      const float x0 = 2.4f + k * 0.13f, x1 = 61.7f - k * 0.2f, y0 = y + k * 3, y1 = y + k * 3 + k * 1.7f;
      Vertex a = at(s, x0, y0, 0.25f, u8(255, 0, 40 * k));
      Vertex b = at(s, x1, y1, 0.25f, u8(0, 255, 255 - 40 * k));
      const float w = 1 + k * 0.75f;  // b's clip w: the same screen position, scaled
      for (float& c : b.position) c *= w;
      d.vertices.push_back(a);
      d.vertices.push_back(b);
    }
    s.draws.push_back(d);
    y += 20;
  }
  check(s, {0, 2, false, 0});
}

// Depth and blending on points and lines: a D32 target, lines at depths 0.25 .. 0.75 crossing a
// z = 0.5 quad (LESS), and wide points blended ONE + ONE over them. Coverage and depth outcomes are
// fixed; the depth stored along a line differs by the snapped endpoints as for triangles.
TEST_F(GoldenTest, PointsAndLinesWithDepthAndBlending) {
  Scene s;
  s.name = "points_lines_depth_blend";
  s.depth_format = kD32Sfloat;
  Draw floor = quad_draw(s, 0, 16, 64, 48, u8(30, 30, 90), 0.5f);
  floor.depth_test = floor.depth_write = true;
  s.draws.push_back(floor);
  for (int k = 0; k < 6; ++k) {
    Draw d;
    d.topology = kLineList;
    d.depth_test = d.depth_write = true;
    d.constant = u8(255, 60 + 30 * k, 0);
    const float y0 = 4.6f + k * 10.1f, y1 = 60.2f - k * 9.7f;
    d.vertices = {at(s, 1.3f, y0, 0.25f), at(s, 62.8f, y1, 0.75f)};
    s.draws.push_back(d);
  }
  Draw p = points_draw(s, {{10.5f, 10.5f}, {30, 30}, {50.25f, 20.75f}, {20.4f, 50.6f}}, 7, u8(0, 100, 0, 255));
  p.blend.enable = true;
  p.blend.dst_color = p.blend.dst_alpha = 1;  // ONE + ONE
  p.depth_test = true;
  p.depth_compare = 7;  // always
  for (auto& v : p.vertices) v.position[2] = 0.1f;
  s.draws.push_back(p);
  check(s, {0, 0, true, 1e-6});
}

// Stencil and scissor on points and lines (D24S8): a line fan and points under a scissor write
// stencil 1 (REPLACE, the colour masked off), then a full-screen quad draws only where the stencil
// equals 1, so the colour shows the stencil at every pixel. The fan stays inside the target: with
// its lines 40 px long (leaving it) one pixel differed, (5, 26), whose centre is 0.0009 px inside
// the rectangle's edge: lavapipe's line, clipped at the viewport, has its normal snapped from the
// clipped direction (docs/graphics.md).
TEST_F(GoldenTest, PointsAndLinesWithStencilAndScissor) {
  Scene s;
  s.name = "points_lines_stencil_scissor";
  s.depth_format = kD24UnormS8Uint;
  std::vector<std::array<float, 2>> fan;
  for (int k = 0; k < 16; ++k) {
    const double angle = k * 2 * M_PI / 16 + 0.2;
    fan.push_back({float(31.6 + 3 * std::cos(angle)), float(32.3 + 3 * std::sin(angle))});
    fan.push_back({float(31.6 + 27 * std::cos(angle)), float(32.3 + 27 * std::sin(angle))});
  }
  Draw lines = lines_draw(s, kLineList, fan, u8(0, 0, 0));
  Draw points = points_draw(s, {{8.5f, 8.5f}, {54.2f, 9.9f}, {10.1f, 53.7f}, {52.5f, 52.5f}}, 6, u8(0, 0, 0));
  for (Draw* d : {&lines, &points}) {
    d->stencil_test = true;
    d->front = {0, 2, 0, 7, 0xFF, 0xFF, 1};  // always, REPLACE with 1
    d->write_mask = 0;
    d->scissor = {4, 6, 50, 47};
    s.draws.push_back(*d);
  }
  Draw fill = quad_draw(s, 0, 0, 64, 64, u8(250, 210, 30));
  fill.stencil_test = true;
  fill.front = {0, 0, 0, 2, 0xFF, 0, 1};  // EQUAL 1, keep
  s.draws.push_back(fill);
  check(s, {0, 0});
}

// Bresenham lines (VK_EXT_line_rasterization on lavapipe, RASTER.LINE_MODE on gsgpu): the fan and
// axis-aligned / diagonal / short lines of LinesInEveryDirection, drawn by the diamond-exit rule.
// lavapipe approximates the rule with a parallelogram whose ends it moves by diamond tests in float;
// gsgpu evaluates the rule exactly on the snapped endpoints. Measured: 4 pixels of 16384 differ, each
// where the rule is decided within 0.003 px (docs/graphics.md), so the limit is 0.05%.
TEST_F(GoldenTest, BresenhamLines) {
  Scene s;
  s.name = "lines_bresenham";
  s.width = s.height = 128;
  std::vector<std::array<float, 2>> fan;
  for (int k = 0; k < 32; ++k) {
    const double angle = k * 2 * M_PI / 32 + 0.037;
    const float cx = k % 2 ? 33.37f : 32.5f, cy = k % 2 ? 34.81f : 32.5f;
    const float r0 = 4 + (k % 3) * 0.29f, r1 = 27.6f - (k % 5) * 0.53f;
    fan.push_back({float(cx + r0 * std::cos(angle)), float(cy + r0 * std::sin(angle))});
    fan.push_back({float(cx + r1 * std::cos(angle)), float(cy + r1 * std::sin(angle))});
  }
  Draw d = lines_draw(s, kLineList, fan, u8(255, 200, 40));
  d.bresenham_lines = true;
  s.draws.push_back(d);
  Draw axis = lines_draw(s, kLineList,
                         {{70.5f, 4.5f}, {120.5f, 4.5f}, {120.25f, 11.75f}, {70.25f, 11.75f}, {72.5f, 16.5f},
                          {72.5f, 60.5f}, {80.3f, 60.2f}, {80.3f, 16.9f}, {84.5f, 30.5f}, {110.5f, 56.5f},
                          {124.1f, 18.3f}, {94.7f, 47.9f}, {90.2f, 20.1f}, {90.9f, 20.4f}},
                         u8(60, 220, 255));
  axis.bresenham_lines = true;
  s.draws.push_back(axis);
  Draw strip = lines_draw(s, kLineStrip,
                          {{4.2f, 80.3f}, {14.7f, 100.1f}, {25.3f, 79.6f}, {36.1f, 101.4f}, {47.9f, 80.2f}},
                          u8(120, 255, 120));
  strip.bresenham_lines = true;
  s.draws.push_back(strip);
  check(s, {0.0005, 255});
}

// Lines that leave the target: lavapipe clips them at the viewport, gsgpu at its guard band and
// lets the scissor cut them; the clipped end of a rectangle then lies on the border instead of
// beyond it, so pixels next to the border may differ.
TEST_F(GoldenTest, LinesCrossingTheBorder) {
  Scene s;
  s.name = "lines_border";
  std::vector<std::array<float, 2>> v;
  for (int k = 0; k < 12; ++k) {
    const double angle = k * 2 * M_PI / 12 + 0.11;
    v.push_back({float(32.3 + 10 * std::cos(angle)), float(31.8 + 10 * std::sin(angle))});
    v.push_back({float(32.3 + 300 * std::cos(angle)), float(31.8 + 300 * std::sin(angle))});
  }
  s.draws.push_back(lines_draw(s, kLineList, v, u8(255, 255, 255)));
  // And points whose centre lies inside near the border: their squares are cut by the target.
  s.draws.push_back(points_draw(s, {{0.5f, 0.5f}, {63.2f, 10.7f}, {20.3f, 63.9f}}, 9, u8(250, 20, 20)));
  check(s, {0.01, 255});
}

}  // namespace
}  // namespace gsgpu::golden
