// Golden-image tests: every scene is rendered on gsgpu (the DRAW packet on the emulated device) and on
// lavapipe in the same test and compared with the metric of image_compare.h. Scenes go from flat
// triangles to thousands of small ones; docs/graphics.md "Golden images" lists them with the measured
// differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "tests/gsgpu/graphics_golden/gsgpu_render.h"
#include "tests/gsgpu/graphics_golden/image_compare.h"
#include "tests/gsgpu/graphics_golden/vk_render.h"

namespace gsgpu::golden {
namespace {

// What a scene must meet. Scenes of flat colours need every pixel equal ({0, 0}); where edges may
// legitimately move (depth crossings, triangles clipped at the border) a small fraction over 16/255 and
// any maximum; interpolated and blended colours a maximum of 2/255 (measured: 1; one step of margin for
// lavapipe's JIT on another CPU, whose float code may fuse differently), interiors by the metric only.
struct Limits {
  double max_fraction_over_threshold = 0;  // fraction of pixels over 16/255
  uint32_t max_difference = 0;             // in 1/255 steps
  bool exact_interiors = true;             // interiors of the reference bit for bit
  double max_interior_depth_difference = 0;
};

class GoldenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    renderer_ = LavapipeRenderer::create(&error).release();
    if (!renderer_) setup_error_ = new std::string(error);
  }
  static void TearDownTestSuite() {
    delete renderer_;
    renderer_ = nullptr;
  }

  // Renders `scene` on both sides and checks it against `limits`; returns the comparison.
  Comparison check(const Scene& scene, const Limits& limits) {
    Comparison c;
    if (!renderer_) {
      ADD_FAILURE() << "lavapipe: " << *setup_error_;
      return c;
    }
    std::string error;
    auto gs = render_on_gsgpu(scene, &error);
    if (!gs) {
      ADD_FAILURE() << scene.name << " on gsgpu: " << error;
      return c;
    }
    auto ref = renderer_->render(scene, &error);
    if (!ref) {
      ADD_FAILURE() << scene.name << " on lavapipe: " << error;
      return c;
    }
    c = compare_frames(*gs, *ref);
    std::printf("[golden] %s: %s\n", scene.name.c_str(), c.summary().c_str());
    const bool ok = c.fraction_over_threshold() <= limits.max_fraction_over_threshold &&
                    c.max_difference <= limits.max_difference &&
                    (!limits.exact_interiors || c.interior_mismatches == 0) && c.stencil_interior_mismatches == 0 &&
                    c.max_interior_depth_difference <= limits.max_interior_depth_difference;
    if (std::getenv("GSVIRT_GOLDEN_KEEP"))
      std::printf("[golden] images: %s\n", write_pngs(scene.name, *gs, *ref).c_str());
    if (!ok) {
      ADD_FAILURE() << scene.name << " beyond its limits (fraction " << limits.max_fraction_over_threshold << ", max "
                    << limits.max_difference << ", exact interiors " << limits.exact_interiors << ", depth "
                    << limits.max_interior_depth_difference << "): " << c.summary()
                    << "\nimages: " << write_pngs(scene.name, *gs, *ref);
    }
    return c;
  }

  static std::string write_pngs(const std::string& name, const Frame& gs, const Frame& ref) {
    const char* env = std::getenv("GSVIRT_GOLDEN_OUT");
    const std::string dir = env ? env : ::testing::TempDir() + "golden-out";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return write_comparison_pngs(dir, name, gs, ref);
  }

  static LavapipeRenderer* renderer_;
  static std::string* setup_error_;
};

LavapipeRenderer* GoldenTest::renderer_ = nullptr;
std::string* GoldenTest::setup_error_ = nullptr;

// A vertex at pixel coordinates (x, y) of a w x h target (y down), depth z, clip w = 1.
Vertex at(const Scene& s, float x, float y, float z = 0, Vec4 color = {1, 1, 1, 1}) {
  return Vertex{{2 * x / float(s.width) - 1, 2 * y / float(s.height) - 1, z, 1}, color, {0, 0, 0, 0}};
}

// A colour of whole 1/255 steps: Vulkan fixes its UNORM8 bytes (convertFloatToUint may return either
// neighbour of a value between two integers, but must return an integer value that it equals).
Vec4 u8(int r, int g, int b, int a = 255) { return {float(r) / 255, float(g) / 255, float(b) / 255, float(a) / 255}; }

Draw constant_triangles(std::vector<Vertex> vertices, Vec4 color) {
  Draw d;
  d.vertices = std::move(vertices);
  d.constant = color;
  return d;
}

// Two front-facing triangles (counter-clockwise in Vulkan's framebuffer-space formula) covering the pixel
// rectangle [x0, x1) x [y0, y1) at depth z; `reversed` makes them clockwise (back-facing).
std::vector<Vertex> quad(const Scene& s, float x0, float y0, float x1, float y1, float z = 0, bool reversed = false,
                         Vec4 color = {1, 1, 1, 1}) {
  std::vector<Vertex> v = {at(s, x0, y0, z, color), at(s, x1, y0, z, color), at(s, x0, y1, z, color),
                           at(s, x0, y1, z, color), at(s, x1, y0, z, color), at(s, x1, y1, z, color)};
  // As listed, a is negative in Vulkan's facing formula (clockwise: back-facing by default); swapped,
  // front-facing.
  if (!reversed) std::swap(v[1], v[2]), std::swap(v[4], v[5]);
  return v;
}

Draw quad_draw(const Scene& s, float x0, float y0, float x1, float y1, Vec4 color, float z = 0) {
  Draw d;
  d.vertices = quad(s, x0, y0, x1, y1, z);
  d.constant = color;
  return d;
}

// A small deterministic generator (the scenes must be the same on every run).
struct Lcg {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  float unit() { return float(next() >> 8) / float(1u << 24); }  // [0, 1)
};

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

// Depth: in each of 8 columns a quad at z = 0.5 (written with ALWAYS), then with the column's compare op
// a triangle whose depth slopes from 0.25 to 0.75 across it (the crossing is an edge of the result) and a
// quad at exactly 0.5 (EQUAL, LESS_OR_EQUAL, GREATER_OR_EQUAL pass, the others fail: fixed by the rules).
Scene depth_scene(uint32_t depth_format, const char* name) {
  Scene s;
  s.name = name;
  s.width = 128;
  s.depth_format = depth_format;
  s.clear_color = u8(0, 0, 0);
  s.clear_depth = 1;
  for (uint32_t op = 0; op < 8; ++op) {
    const float x0 = 16.0f * float(op) + 1, x1 = x0 + 14;
    Draw base = quad_draw(s, x0, 2, x1, 62, u8(40, 40, 200), 0.5f);
    base.depth_test = base.depth_write = true;
    base.depth_compare = 7;
    s.draws.push_back(base);
    Draw slope;
    slope.vertices = {at(s, x0 - 0.5f, 4, 0.25f), at(s, x1 + 0.5f, 20, 0.75f), at(s, x0 - 0.5f, 36, 0.75f)};
    slope.constant = u8(220, 30, 30);
    slope.depth_test = slope.depth_write = true;
    slope.depth_compare = op;
    s.draws.push_back(slope);
    Draw equal = quad_draw(s, x0 + 2, 42, x1 - 2, 60, u8(30, 220, 30), 0.5f);
    equal.depth_test = equal.depth_write = true;
    equal.depth_compare = op;
    s.draws.push_back(equal);
  }
  return s;
}

TEST_F(GoldenTest, DepthEveryCompareOpD32) { check(depth_scene(kD32Sfloat, "depth_d32"), {0.01, 255, true, 1e-6}); }
TEST_F(GoldenTest, DepthEveryCompareOpD24S8) {
  check(depth_scene(kD24UnormS8Uint, "depth_d24s8"), {0.01, 255, true, 1e-6});
}

// Invariance (Vulkan's rule: the same geometry with the same state gives the same depth): perspective
// triangles written with LESS, drawn again with EQUAL in another colour, must pass at every pixel they
// cover, on D32 and D24S8.
Scene invariance_scene(uint32_t depth_format, const char* name) {
  Scene s;
  s.name = name;
  s.depth_format = depth_format;
  s.clear_color = u8(0, 0, 0);
  const std::vector<Vertex> triangles = {{{-0.9f * 0.5f, -0.8f * 0.5f, 0.05f, 0.5f}},
                                         {{0.8f * 3, -0.7f * 3, 2.9f, 3}},
                                         {{-0.6f, 0.9f, 0.5f, 1}},
                                         {{0.9f, 0.95f, 0.99f, 1}},
                                         {{0.1f * 2, 0.2f * 2, 0.01f, 2}},
                                         {{0.95f, -0.2f, 0.6f, 1}}};
  Draw write;
  write.vertices = triangles;
  write.depth_test = write.depth_write = true;
  write.depth_compare = 1;  // less
  write.constant = u8(200, 60, 60);
  s.draws.push_back(write);
  Draw again = write;
  again.depth_compare = 2;  // equal
  again.depth_write = false;
  again.constant = u8(60, 200, 60);
  s.draws.push_back(again);
  return s;
}

TEST_F(GoldenTest, DepthInvarianceD32) { check(invariance_scene(kD32Sfloat, "invariance_d32"), {0, 0, true, 1e-4}); }
TEST_F(GoldenTest, DepthInvarianceD24S8) {
  check(invariance_scene(kD24UnormS8Uint, "invariance_d24s8"), {0, 0, true, 1e-4});
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

// Blending: each factor as the source factor (destination ZERO) and as the destination factor (source
// ZERO), for colour and alpha at once, then each equation; three source colours per state, over a
// destination with alpha below 1. SRC1 factors use the stand-in's second (dual-source) colour.
Scene blend_scene(uint32_t format, const char* name) {
  Scene s;
  s.name = name;
  s.color_format = format;
  s.width = s.height = 96;
  s.clear_color = u8(60, 120, 180, 100);
  const Vec4 sources[3] = {u8(255, 128, 0, 200), u8(20, 200, 240, 60), u8(130, 10, 90, 255)};
  uint32_t cell = 0;
  auto add = [&](BlendState b) {
    for (const Vec4& src : sources) {
      const float x = float(cell % 16) * 6, y = float(cell / 16) * 6;
      Draw d = quad_draw(s, x + 1, y + 1, x + 6, y + 6, src);
      d.blend = b;
      d.blend.enable = true;
      d.blend_constant = u8(64, 160, 32, 96);
      d.dual_source = b.src_color >= 15 || b.dst_color >= 15;
      d.constant1 = u8(90, 250, 180, 30);
      s.draws.push_back(d);
      ++cell;
    }
  };
  for (uint32_t f = 0; f <= 18; ++f) add({true, f, 0, 0, f, 0, 0});
  for (uint32_t f = 0; f <= 18; ++f) add({true, 0, f, 0, 0, f, 0});
  for (uint32_t op = 0; op <= 4; ++op) add({true, 6, 7, op, 1, 1, op});  // SRC_ALPHA, ONE_MINUS_SRC_ALPHA
  return s;
}

TEST_F(GoldenTest, BlendEveryFactorAndEquationUnorm) {
  check(blend_scene(kR8G8B8A8Unorm, "blend_unorm"), {0, 2, false});
}
TEST_F(GoldenTest, BlendEveryFactorAndEquationSrgb) { check(blend_scene(kB8G8R8A8Srgb, "blend_srgb"), {0, 2, false}); }
TEST_F(GoldenTest, BlendEveryFactorAndEquationFloat) {
  check(blend_scene(kR32G32B32A32Sfloat, "blend_float"), {0, 2, false});
}

// Stencil on D24S8: every op from three starting values (0x80, 0xFF, 0x00), every compare op, the
// back-face state on reversed quads, the depth-fail op, partial compare and write masks. The stencil
// buffer itself is compared (interiors bit for bit) as well as the colours.
TEST_F(GoldenTest, StencilOps) {
  Scene s;
  s.name = "stencil";
  s.depth_format = kD24UnormS8Uint;
  s.clear_stencil = 0x80;
  s.clear_depth = 0.5f;
  s.clear_color = u8(0, 0, 0);
  auto cell = [&](uint32_t col, uint32_t row, float z = 0.25f, bool reversed = false) {
    Draw d;
    d.vertices = quad(s, 8.0f * float(col) + 1, 8.0f * float(row) + 1, 8.0f * float(col) + 7, 8.0f * float(row) + 7, z,
                      reversed);
    d.stencil_test = true;
    d.depth_test = true;
    d.depth_compare = 1;  // less than the cleared 0.5
    d.constant = u8(30 * col, 25 * row, 128);
    return d;
  };
  const uint32_t starts[3] = {0x80, 0xFF, 0x00};
  for (uint32_t row = 0; row < 3; ++row) {
    for (uint32_t op = 0; op < 8; ++op) {
      if (row > 0) {  // set the starting value
        Draw set = cell(op, row);
        set.front = {0, 2, 0, 7, 0xFF, 0xFF, starts[row]};
        s.draws.push_back(set);
      }
      Draw d = cell(op, row);
      d.front = {0, op, 0, 7, 0xFF, 0xFF, 0x35};
      s.draws.push_back(d);
    }
  }
  for (uint32_t cmp = 0; cmp < 8; ++cmp) {  // row 3: stored 0x80 against reference 0x80 / row 4: 0x7F
    for (uint32_t row = 3; row < 5; ++row) {
      Draw d = cell(cmp, row);
      d.front = {6 /* decrement and wrap */, 1 /* zero */, 0, cmp, 0xFF, 0xFF, row == 3 ? 0x80u : 0x7Fu};
      s.draws.push_back(d);
    }
  }
  for (uint32_t op = 0; op < 8; ++op) {
    Draw back = cell(op, 5, 0.25f, true);  // back-facing: the back state applies
    back.front = {0, 1, 0, 7, 0xFF, 0xFF, 0};
    back.back = {0, op, 0, 7, 0xFF, 0xFF, 0x11};
    s.draws.push_back(back);
    Draw depth_fail = cell(op, 6, 0.75f);  // behind the cleared depth: the depth-fail op
    depth_fail.front = {1, 1, op, 7, 0xFF, 0xFF, 0x22};
    s.draws.push_back(depth_fail);
    Draw masked = cell(op, 7);
    masked.front = {0, op, 0, op, 0xF0, 0x3C, 0x9A};
    s.draws.push_back(masked);
  }
  check(s, {0, 0});
}

// Scissors: inside, at the target's edges, with a negative offset (clamped), larger than the target and
// empty; full-screen triangles drawn through each.
TEST_F(GoldenTest, Scissor) {
  Scene s;
  s.name = "scissor";
  s.clear_color = u8(5, 5, 5);
  const std::array<int32_t, 4> rects[] = {{3, 5, 20, 11},    {40, 0, 24, 9}, {0, 50, 64, 14},
                                          {50, 20, 100, 20}, {30, 30, 1, 1}, {10, 25, 0, 0}};
  int i = 0;
  for (const auto& r : rects) {
    Draw d;
    d.vertices = {{{-1, -1, 0, 1}}, {{3, -1, 0, 1}}, {{-1, 3, 0, 1}}};
    d.scissor = r;
    if (r[2] == 0) d.scissor = {10, 25, 1, 0};  // empty: draws nothing (width 0 means "whole target")
    d.constant = u8(40 * i, 255 - 30 * i, 100 + 20 * i);
    s.draws.push_back(d);
    ++i;
  }
  check(s, {0, 0});
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

// Facing and culling: a counter-clockwise and a clockwise triangle under each cull mode and front face;
// colour write masks; every logic op over a destination of known bits (UNORM only: logic ops apply to
// it; gsgpu writes float and sRGB targets as if the op were off, as Vulkan says).
TEST_F(GoldenTest, CullingWriteMasksAndLogicOps) {
  Scene s;
  s.name = "cull_mask_logic";
  s.width = 128;
  s.clear_color = u8(0x5A, 0xC3, 0x0F, 0x99);
  for (uint32_t cull = 0; cull < 4; ++cull) {
    for (uint32_t front = 0; front < 2; ++front) {
      const float x = 16.0f * float(cull * 2 + front);
      for (bool reversed : {false, true}) {
        Draw d;
        const float y = reversed ? 12 : 1;
        d.vertices = {at(s, x + 1, y), at(s, x + 14, y + 1), at(s, x + 2, y + 10)};
        if (reversed) std::swap(d.vertices[1], d.vertices[2]);
        d.cull = cull;
        d.clockwise = front == 1;
        d.constant = reversed ? u8(250, 20, 20) : u8(20, 250, 20);
        s.draws.push_back(d);
      }
    }
  }
  for (uint32_t mask = 0; mask < 16; ++mask) {
    Draw d = quad_draw(s, 8.0f * float(mask) + 1, 25, 8.0f * float(mask) + 7, 31, u8(0xF0, 0x0F, 0xAA, 0x55));
    d.write_mask = mask;
    s.draws.push_back(d);
  }
  for (uint32_t op = 0; op < 16; ++op) {
    Draw d = quad_draw(s, 8.0f * float(op) + 1, 34, 8.0f * float(op) + 7, 40, u8(0xF0, 0x0F, 0xAA, 0x55));
    d.logic_op_enable = true;
    d.logic_op = op;
    s.draws.push_back(d);
  }
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

// Each colour format: flat triangles, an interpolated one and a blended one.
class GoldenFormatTest : public GoldenTest, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(GoldenFormatTest, ColourFormat) {
  Scene s;
  s.color_format = GetParam();
  s.name = "format_" + std::to_string(GetParam());
  s.clear_color = u8(12, 34, 56, 78);
  s.draws.push_back(constant_triangles({at(s, 2, 2), at(s, 60, 6), at(s, 8, 40)}, u8(250, 128, 3, 200)));
  Draw smooth;
  smooth.shading = FragmentShading::kSmooth;
  smooth.vertices = {at(s, 62, 10, 0, {1, 0, 0, 1}), at(s, 30, 62, 0, {0, 1, 0.5f, 0.25f}),
                     at(s, 63, 62, 0, {0.2f, 0.1f, 1, 0.75f})};
  s.draws.push_back(smooth);
  Draw blended = quad_draw(s, 4, 30, 40, 60, u8(255, 255, 0, 128));
  blended.blend = {true, 6, 7, 0, 1, 7, 0};
  s.draws.push_back(blended);
  check(s, {0, 2, false});
}

// Colours outside [0, 1]: clamped on fixed-point targets (before blending too, blend constants as well),
// kept on float targets; a logic op, which applies to UNORM targets only (float and sRGB pass through).
// Values are chosen so that no UNORM result is a tie between two bytes (Vulkan lets either be returned).
TEST_P(GoldenFormatTest, OutOfRangeColoursAndLogicOps) {
  Scene s;
  s.color_format = GetParam();
  s.name = "out_of_range_" + std::to_string(GetParam());
  s.clear_color = u8(100, 150, 200, 128);
  const Vec4 colours[] = {{2.5f, -0.5f, 1000, 0.4f}, {-3, 0.25f, 1.5f, 2}, {0.75f, 4, -0.125f, -1}};
  for (int i = 0; i < 3; ++i) {
    const float y = 2 + 20.0f * float(i);
    s.draws.push_back(quad_draw(s, 2, y, 14, y + 16, colours[i]));
    Draw blended = quad_draw(s, 16, y, 30, y + 16, colours[i]);
    blended.blend = {true, 6, 7, 0, 1, 1, 0};  // SRC_ALPHA, ONE_MINUS_SRC_ALPHA; alpha ONE + ONE
    s.draws.push_back(blended);
    Draw constant = quad_draw(s, 32, y, 46, y + 16, colours[i]);
    constant.blend = {true, 10, 1, 2, 12, 1, 0};  // CONSTANT_COLOR, ONE, REVERSE_SUBTRACT; CONSTANT_ALPHA
    constant.blend_constant = {1.5f, -0.25f, 0.25f, 3};
    s.draws.push_back(constant);
    Draw logic = quad_draw(s, 48, y, 62, y + 16, u8(0x0F, 0xF0, 0x55, 0xAA));
    logic.logic_op_enable = true;
    logic.logic_op = 6;  // XOR
    s.draws.push_back(logic);
  }
  // UNORM: every byte fixed; sRGB encoding and float blending round differently (docs/graphics.md).
  const bool unorm = GetParam() == kR8G8B8A8Unorm || GetParam() == kB8G8R8A8Unorm;
  check(s, unorm ? Limits{0, 0} : Limits{0, 2, false});
}

INSTANTIATE_TEST_SUITE_P(Formats, GoldenFormatTest,
                         ::testing::Values(kR8G8B8A8Unorm, kR8G8B8A8Srgb, kB8G8R8A8Unorm, kB8G8R8A8Srgb,
                                           kR32G32B32A32Sfloat));

// Points and lines are assembled but not rasterized by gsgpu yet: the draw is refused with a fault
// that says so (docs/graphics.md), for each of the three topologies.
TEST_F(GoldenTest, PointsAndLinesAreRefusedAsNotSupportedYet) {
  for (uint32_t topology : {0u, 1u, 2u}) {
    Scene s;
    s.name = "points_lines";
    Draw d;
    d.topology = topology;
    d.vertices = {at(s, 2, 2), at(s, 30, 30), at(s, 40, 5), at(s, 50, 50)};
    s.draws.push_back(d);
    std::string error;
    EXPECT_FALSE(render_on_gsgpu(s, &error)) << topology;
    EXPECT_NE(error.find("not supported yet"), std::string::npos) << topology << ": " << error;
  }
}

}  // namespace
}  // namespace gsgpu::golden
