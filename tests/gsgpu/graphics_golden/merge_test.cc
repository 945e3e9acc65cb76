// Golden images of the output merger: depth with every compare op and its invariance, blending with
// every factor and equation, stencil, scissor, culling / write masks / logic ops, each colour format and
// out-of-range colours (docs/graphics.md "Golden images").
#include "tests/gsgpu/graphics_golden/golden_fixture.h"

namespace gsgpu::golden {
namespace {

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

}  // namespace
}  // namespace gsgpu::golden
