// Golden images of the geometry and rasterization side: flat and interpolated triangles, clipping,
// thousands of small triangles, slivers, strips / fans / indexed draws, draw parameters, viewports, a
// perspective mesh, and the refusal of points and lines (docs/graphics.md "Golden images").
#include "tests/gsgpu/graphics_golden/golden_fixture.h"

namespace gsgpu::golden {
namespace {

TEST_F(GoldenTest, LavapipeIsTheReference) {
  ASSERT_TRUE(renderer_) << *setup_error_;
  EXPECT_NE(renderer_->device_name().find("llvmpipe"), std::string::npos) << renderer_->device_name();
  // gsgpu snaps to 8 sub-pixel bits (docs/graphics.md); the same grid is what makes edges comparable.
  EXPECT_EQ(renderer_->sub_pixel_precision_bits(), 8u);
}

// Flat triangles of one colour each: vertices on pixel centres, on pixel corners, on half pixels and
// off the sub-pixel grid, both windings, edges of every slope, triangles sharing edges.
TEST_F(GoldenTest, FlatTriangles) {
  Scene s;
  s.name = "flat_triangles";
  s.clear_color = u8(25, 51, 76);
  s.draws.push_back(constant_triangles({at(s, 2, 2), at(s, 30, 4), at(s, 6, 29)}, u8(255, 0, 0)));
  s.draws.push_back(
      constant_triangles({at(s, 33.5f, 2.5f), at(s, 61.5f, 30.5f), at(s, 62.5f, 1.5f)}, u8(0, 200, 17, 128)));
  s.draws.push_back(constant_triangles({at(s, 3.3f, 35.7f), at(s, 29.1f, 61.9f), at(s, 30.77f, 33.01f),
                                        at(s, 3.3f, 35.7f), at(s, 2.2f, 62.4f), at(s, 29.1f, 61.9f)},
                                       u8(3, 7, 254)));
  // A fan of thin triangles around a centre (every slope, shared edges).
  Draw fan;
  fan.constant = u8(250, 240, 1);
  for (int i = 0; i < 16; ++i) {
    const float a0 = float(i) * 0.3926991f, a1 = float(i + 1) * 0.3926991f;
    fan.vertices.push_back(at(s, 48, 48));
    fan.vertices.push_back(at(s, 48 + 14 * std::cos(a0), 48 + 14 * std::sin(a0)));
    fan.vertices.push_back(at(s, 48 + 14 * std::cos(a1), 48 + 14 * std::sin(a1)));
  }
  s.draws.push_back(fan);
  check(s, {0, 0});
}

// Interpolated colours: perspective-correct (w varies), no-perspective and flat.
TEST_F(GoldenTest, InterpolatedColours) {
  Scene s;
  s.name = "interpolated_colours";
  const FragmentShading modes[] = {FragmentShading::kSmooth, FragmentShading::kNoPerspective, FragmentShading::kFlat};
  for (int m = 0; m < 3; ++m) {
    Draw d;
    d.shading = modes[m];
    const float y0 = 2 + 21 * float(m);
    d.vertices = {at(s, 2, y0, 0, {1, 0, 0, 1}), at(s, 62, y0 + 3, 0, {0, 1, 0, 0.5f}),
                  at(s, 20, y0 + 19, 0, {0, 0, 1, 0})};
    // Scale the second vertex's clip coordinates by w = 4 (same position, perspective weight).
    for (float& c : d.vertices[1].position) c *= 4;
    s.draws.push_back(d);
  }
  check(s, {0, 2, false});
}

// Triangles cut by the near and far planes (z < 0 and z > w in clip space, with w varying), and
// triangles far beyond the guard band (clipped by the geometry engine's guard-band planes), with
// interpolated colours so that the clipped vertices' attributes are compared too.
TEST_F(GoldenTest, ClippedByNearFarAndGuardBand) {
  Scene s;
  s.name = "clipped";
  s.depth_format = kD32Sfloat;
  s.clear_color = u8(10, 10, 10);
  Draw near_far;
  near_far.shading = FragmentShading::kSmooth;
  near_far.depth_test = near_far.depth_write = true;
  near_far.depth_compare = 7;
  near_far.vertices = {{{-0.9f, -0.9f, -0.8f, 1}, {1, 0, 0, 1}},
                       {{0.9f * 2, -0.2f * 2, 0.5f * 2, 2}, {0, 1, 0, 1}},
                       {{-0.3f * 0.5f, 0.1f * 0.5f, 1.6f * 0.5f, 0.5f}, {0, 0, 1, 1}},
                       {{-0.9f, 0.3f, 0.2f, 1}, {1, 1, 0, 1}},
                       {{0.9f, 0.95f, 1.8f, 1}, {0, 1, 1, 1}},
                       {{0.1f, 0.2f, -0.5f, 1}, {1, 0, 1, 1}}};
  s.draws.push_back(near_far);
  Draw guard;
  guard.shading = FragmentShading::kNoPerspective;
  guard.vertices = {{{-5000, -3000, 0.5f, 1}, {1, 1, 1, 1}},
                    {{4000, -0.5f, 0.5f, 1}, {0, 0, 0, 1}},
                    {{-0.2f, 6000, 0.5f, 1}, {0.5f, 0.25f, 1, 1}}};
  guard.scissor = {0, 40, 64, 24};
  s.draws.push_back(guard);
  Draw flat_near;  // flat shading keeps the provoking vertex's colour on every piece of a clipped triangle
  flat_near.shading = FragmentShading::kFlat;
  flat_near.vertices = {{{0.2f, -0.95f, -0.6f, 1}, u8(90, 180, 250)},
                        {{0.95f, -0.9f, 0.5f, 1}, u8(255, 0, 0)},
                        {{0.5f, -0.1f, 1.7f, 1}, u8(0, 255, 0)}};
  s.draws.push_back(flat_near);
  Draw flat_guard;  // one colour: the clipped triangle's interior is bit-exact
  flat_guard.vertices = {{{-3000, 0.2f, 0.5f, 1}}, {{3000, 0.25f, 0.5f, 1}}, {{0.3f, 0.6f, 0.5f, 1}}};
  flat_guard.constant = u8(200, 100, 50);
  s.draws.push_back(flat_guard);
  // Depth at interior pixels differs by up to 1.8e-4 where the clipped triangle's depth is steep: the new
  // vertices are computed in double on gsgpu and in float on lavapipe, and snap to different sub-pixel
  // positions (1/256 pixel x a slope of ~0.05 per pixel).
  check(s, {0.01, 255, false, 1e-3});
}

// Thousands of small triangles, each of one colour (flat shading with the provoking vertex's colour),
// in one draw: their interiors must match bit for bit.
TEST_F(GoldenTest, ThousandsOfSmallTriangles) {
  Scene s;
  s.name = "many_small_triangles";
  s.width = s.height = 128;
  Draw d;
  d.shading = FragmentShading::kFlat;
  Lcg rng{12345};
  for (int t = 0; t < 4000; ++t) {
    const float cx = rng.unit() * 132 - 2, cy = rng.unit() * 132 - 2;
    // One draw from the generator per statement: the order of evaluation of arguments is unspecified.
    const int r = int(rng.next() >> 24), g = int(rng.next() >> 24), b = int(rng.next() >> 24);
    for (int v = 0; v < 3; ++v) {
      const float x = cx + rng.unit() * 6 - 3;
      const float y = cy + rng.unit() * 6 - 3;
      d.vertices.push_back(at(s, x, y, 0, u8(r, g, b)));
    }
  }
  s.draws.push_back(d);
  check(s, {0.001, 255, true});
}

// Slivers and degenerate triangles: 80-pixel triangles from 0.002 to 0.6 pixel wide at many angles (the
// coverage of each centre is decided by a hair: snapping and the top-left rule must agree exactly), and
// a strip stitched with zero-area triangles (repeated vertices), which draw nothing.
TEST_F(GoldenTest, SliversAndDegenerateTriangles) {
  Scene s;
  s.name = "slivers";
  s.width = s.height = 96;
  s.clear_color = u8(0, 0, 0);
  Draw slivers;
  slivers.shading = FragmentShading::kFlat;
  Lcg rng{777};
  for (int t = 0; t < 60; ++t) {
    const float angle = float(t) * 0.1047f, width = 0.002f + 0.6f * rng.unit();
    const float cx = 48 + 6 * rng.unit(), cy = 48 + 6 * rng.unit();
    const float dx = std::cos(angle), dy = std::sin(angle);
    const Vec4 color = u8(40 + 3 * t, 255 - 3 * t, 100 + t);
    slivers.vertices.push_back(at(s, cx - 40 * dx, cy - 40 * dy, 0, color));
    slivers.vertices.push_back(at(s, cx + 40 * dx - width * dy, cy + 40 * dy + width * dx, 0, color));
    slivers.vertices.push_back(at(s, cx + 40 * dx, cy + 40 * dy, 0, color));
  }
  s.draws.push_back(slivers);
  Draw stitched;
  stitched.topology = kTriangleStrip;
  stitched.constant = u8(250, 250, 250);
  const float xs[] = {3, 3, 9, 9, 9, 20, 20, 26, 26};  // 9 -> 20 repeats: zero-area stitching triangles
  for (int i = 0; i < 9; ++i) stitched.vertices.push_back(at(s, xs[i] + 0.37f * float(i % 2), i % 2 ? 90 : 80));
  s.draws.push_back(stitched);
  // The slivers stay inside the target: reaching past it (45 pixels from the centre), lavapipe clips
  // them at the viewport and the clipped vertex's snap moves a long edge by a fraction of a sub-pixel
  // (docs/graphics.md: one pixel differed).
  check(s, {0, 0});
}

// Strips, fans, indexed lists (u16 and u32) and indexed strips with primitive restart, flat colours.
TEST_F(GoldenTest, StripsFansAndIndexedWithRestart) {
  Scene s;
  s.name = "strips_fans_indexed";
  s.clear_color = u8(0, 0, 40);
  Draw strip;
  strip.topology = kTriangleStrip;
  strip.shading = FragmentShading::kFlat;
  for (int i = 0; i < 10; ++i) {
    strip.vertices.push_back(at(s, 2 + 3.1f * float(i), 2 + (i % 2) * 12.5f, 0, u8(25 * i, 255 - 25 * i, 60)));
  }
  s.draws.push_back(strip);
  Draw fan;
  fan.topology = kTriangleFan;
  fan.shading = FragmentShading::kFlat;
  fan.vertices.push_back(at(s, 48, 14, 0, u8(255, 255, 255)));
  for (int i = 0; i < 9; ++i) {
    const float a = float(i) * 0.7f;
    fan.vertices.push_back(at(s, 48 + 13 * std::cos(a), 14 + 12 * std::sin(a), 0, u8(28 * i, 90, 255 - 28 * i)));
  }
  s.draws.push_back(fan);
  Draw list16;
  list16.index_u16 = true;
  list16.shading = FragmentShading::kFlat;
  for (int i = 0; i < 6; ++i) {
    list16.vertices.push_back(at(s, 3 + 5.3f * float(i), 34 + (i % 3) * 4.7f, 0, u8(200, 40 * i, 10)));
  }
  list16.indices = {0, 1, 2, 2, 1, 3, 5, 4, 3, 0, 5, 3};
  s.draws.push_back(list16);
  Draw restart;
  restart.topology = kTriangleStrip;
  restart.primitive_restart = true;
  restart.shading = FragmentShading::kFlat;
  for (int i = 0; i < 8; ++i) {
    restart.vertices.push_back(at(s, 34 + 4 * float(i), 34 + (i % 2) * 10.25f, 0, u8(255 - 30 * i, 30 * i, 200)));
    restart.vertices.push_back(at(s, 34 + 4 * float(i), 50 + (i % 2) * 10.25f, 0, u8(30 * i, 200, 255 - 30 * i)));
  }
  restart.indices = {0, 2, 4, 6, 0xFFFFFFFFu, 1, 3, 5, 7, 9, 11, 13, 15, 0xFFFFFFFFu, 8, 10, 12, 14};
  s.draws.push_back(restart);
  check(s, {0, 0});
}

// Viewports: an offset one, one reaching past the target, a negative height (y flipped, Vulkan 1.1),
// and depth ranges other than [0, 1] (the stored depth is compared).
TEST_F(GoldenTest, ViewportsAndDepthRanges) {
  Scene s;
  s.name = "viewports";
  s.depth_format = kD32Sfloat;
  s.clear_color = u8(0, 0, 0);
  const std::array<float, 6> viewports[] = {
      {4, 6, 24, 20, 0, 1}, {40, -10, 40, 30, 0.25f, 0.5f}, {2, 60, 30, -28, 0.9f, 0.1f}, {36, 36, 24, 24, 0.5f, 0.5f}};
  int i = 0;
  for (const auto& v : viewports) {
    Draw d;
    d.viewport = v;
    d.depth_test = d.depth_write = true;
    d.depth_compare = 7;
    d.shading = FragmentShading::kFlat;
    d.vertices = {{{-0.8f, -0.9f, 0.1f, 1}, u8(60 * i, 200, 40)},
                  {{0.9f, -0.3f, 0.5f, 1}, u8(0, 0, 0)},
                  {{-0.2f, 0.85f, 0.9f, 1}, u8(0, 0, 0)}};
    s.draws.push_back(d);
    ++i;
  }
  // gsgpu interpolates depth through the snapped (1/256 pixel) vertex positions, lavapipe through the
  // unsnapped ones: up to half a sub-pixel times the depth slope (~0.04 per pixel here) apart: 3.5e-5.
  check(s, {0, 0, true, 1e-4});
}

// A perspective scene: a torus of 1152 triangles with per-vertex colours, indexed, under a perspective
// projection, back faces culled, depth tested, its near side cut by the near plane, on a 320 x 240 target
// (several 128 x 128 tiles, sizes that are not multiples of a tile). Interpolated colours: the metric.
TEST_F(GoldenTest, PerspectiveTorus) {
  Scene s;
  s.name = "perspective_torus";
  s.width = 320;
  s.height = 240;
  s.depth_format = kD32Sfloat;
  s.clear_color = u8(20, 20, 30);
  Draw d;
  d.shading = FragmentShading::kSmooth;
  d.depth_test = d.depth_write = true;
  d.depth_compare = 1;
  d.cull = 2;  // back
  const int rings = 32, sides = 18;
  const double aspect = 320.0 / 240.0, focal = 1.0 / std::tan(1.0), near = 1.0, far = 10.0;
  for (int i = 0; i < rings; ++i) {
    for (int j = 0; j < sides; ++j) {
      const double u = 2 * M_PI * i / rings, v = 2 * M_PI * j / sides;
      // The torus in view space (camera at the origin looking down -z), tilted towards the camera.
      const double r = 1.6 + 0.7 * std::cos(v);
      const double x = r * std::cos(u), y0 = r * std::sin(u), z0 = 0.7 * std::sin(v);
      const double y = y0 * 0.6 - z0 * 0.8, z = y0 * 0.8 + z0 * 0.6 - 2.9;
      // Vulkan clip space: y down, depth 0 at the near plane and 1 at the far one.
      const double w = -z;
      const float clip[4] = {float(focal / aspect * x), float(-focal * y),
                             float((far * (-z) - far * near) / (far - near)), float(w)};
      const Vec4 color = {float(0.5 + 0.5 * std::cos(u)), float(0.5 + 0.5 * std::sin(v)),
                          float(0.5 + 0.4 * std::cos(v + u)), 1};
      d.vertices.push_back(Vertex{{clip[0], clip[1], clip[2], clip[3]}, color, {0, 0, 0, 0}});
    }
  }
  for (int i = 0; i < rings; ++i) {
    for (int j = 0; j < sides; ++j) {
      const uint32_t a = i * sides + j, b = ((i + 1) % rings) * sides + j;
      const uint32_t c = ((i + 1) % rings) * sides + (j + 1) % sides, e = i * sides + (j + 1) % sides;
      d.indices.insert(d.indices.end(), {a, b, c, a, c, e});
    }
  }
  s.draws.push_back(d);
  check(s, {0.001, 255, false, 1e-4});
  // The same frame with the rasterizer's bounding-box test off (it only skips tiles).
  std::string error;
  auto with_box = render_on_gsgpu(s, &error);
  s.draws[0].gsgpu_bounding_box_test = false;
  auto without_box = render_on_gsgpu(s, &error);
  ASSERT_TRUE(with_box && without_box) << error;
  EXPECT_EQ(with_box->color, without_box->color);
  EXPECT_EQ(with_box->depth, without_box->depth);
}

// Draw parameters: first vertex, first index and a vertex offset into a shared buffer, instances
// (without per-instance data every instance draws the same triangles: additive blending counts them),
// first instance; and culling under a negative-height viewport (the flip reverses the winding).
TEST_F(GoldenTest, DrawParametersInstancesAndFlippedCulling) {
  Scene s;
  s.name = "draw_parameters";
  s.clear_color = u8(0, 0, 0, 0);
  std::vector<Vertex> shared;
  for (int q = 0; q < 4; ++q) {
    for (const Vertex& v : quad(s, 2 + 15.0f * float(q), 2, 14 + 15.0f * float(q), 14)) shared.push_back(v);
  }
  Draw ranged;  // quad 1 only: 6 vertices from vertex 6
  ranged.vertices = shared;
  ranged.count = 6;
  ranged.first_vertex = 6;
  ranged.constant = u8(200, 0, 0);
  s.draws.push_back(ranged);
  Draw indexed;  // quad 2 by indices 6..11 of a list that starts with quad 0's, offset by 6 vertices
  indexed.vertices = shared;
  for (uint32_t i = 0; i < 12; ++i) indexed.indices.push_back(i);
  indexed.first_index = 6;
  indexed.count = 6;
  indexed.vertex_offset = 6;
  indexed.constant = u8(0, 200, 0);
  s.draws.push_back(indexed);
  Draw instanced = quad_draw(s, 2, 20, 30, 30, u8(40, 30, 20, 10));
  instanced.instance_count = 3;
  instanced.first_instance = 5;
  instanced.blend = {true, 1, 1, 0, 1, 1, 0};  // ONE + ONE: three instances add up
  s.draws.push_back(instanced);
  for (int flip = 0; flip < 2; ++flip) {
    for (uint32_t cull = 1; cull <= 2; ++cull) {
      Draw d;
      const float x = 2 + 16.0f * float(flip * 2 + cull - 1);
      d.viewport = flip ? std::array<float, 6>{x, 62, 14, -28, 0, 1} : std::array<float, 6>{x, 34, 14, 28, 0, 1};
      d.vertices = {{{-0.9f, -0.9f, 0, 1}}, {{-0.9f, 0.9f, 0, 1}}, {{0.9f, 0, 0, 1}}};
      d.cull = cull;
      d.constant = u8(50 + 100 * flip, 100 * cull, 220);
      s.draws.push_back(d);
    }
  }
  check(s, {0, 0});
}

}  // namespace
}  // namespace gsgpu::golden
