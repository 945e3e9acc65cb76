// Golden scenes of texturing (docs/graphics.md "Texturing"): textured quads on gsgpu (a fragment
// program around v_image_sample_implicit, docs/isa.md §8b) and on lavapipe (shaders/texture.frag) with
// nearest and linear filtering, every wrap mode, mipmaps minified at several scales with nearest and
// linear mipmap modes, and an sRGB texture. Texel selection of nearest filtering and the level of
// nearest mipmapping at integer LODs are fixed by Vulkan: those scenes must match bit for bit (the
// scenes keep every pixel centre at least a quarter texel from a texel edge). Linear filtering and
// linear mipmapping are within the metric (lavapipe weighs with 8-bit fixed point; gsgpu in float),
// and so is a floor in perspective, whose LOD varies continuously.
#include <memory>

#include "tests/gsgpu/graphics_golden/golden_fixture.h"

namespace gsgpu::golden {
namespace {

constexpr uint32_t kRepeat = 0, kMirroredRepeat = 1, kClampToEdge = 2, kClampToBorder = 3;
constexpr uint32_t kBorderOpaqueWhite = 4;

// A w x h texture of distinct colours: texel (x, y) = (37x + 11, 53y + 7, 29(x + y) + 3) mod 256, with
// alpha 255.
std::shared_ptr<Texture> pattern_texture(uint32_t w, uint32_t h, uint32_t format = kR8G8B8A8Unorm) {
  auto t = std::make_shared<Texture>();
  t->format = format;
  t->width = w, t->height = h;
  std::vector<uint8_t> level;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      level.insert(level.end(), {uint8_t(37 * x + 11), uint8_t(53 * y + 7), uint8_t(29 * (x + y) + 3), 255});
  t->levels.push_back(level);
  return t;
}

// A 64 x 64 texture with its 7 levels, level L one colour (so that only the level choice shows).
std::shared_ptr<Texture> mip_chain() {
  static const uint8_t colours[7][4] = {{255, 0, 0, 255},   {0, 255, 0, 255},    {0, 0, 255, 255},
                                        {255, 255, 0, 255}, {0, 255, 255, 255},  {255, 0, 255, 255},
                                        {128, 64, 32, 255}};
  auto t = std::make_shared<Texture>();
  t->width = t->height = 64;
  for (uint32_t level = 0; level < 7; ++level) {
    const uint32_t side = 64 >> level;
    std::vector<uint8_t> texels;
    for (uint32_t i = 0; i < side * side; ++i) texels.insert(texels.end(), colours[level], colours[level] + 4);
    t->levels.push_back(texels);
  }
  return t;
}

// A textured rectangle [x0, x1) x [y0, y1) of pixels with texture coordinates (u0, v0) .. (u1, v1)
// in the colour's x, y (two triangles, front-facing).
Draw textured_rect(const Scene& s, float x0, float y0, float x1, float y1, float u0, float v0, float u1, float v1,
                   std::shared_ptr<const Texture> texture, TextureSampler sampler) {
  Draw d;
  const Vertex a = at(s, x0, y0, 0, {u0, v0, 0, 1}), b = at(s, x1, y0, 0, {u1, v0, 0, 1});
  const Vertex c = at(s, x0, y1, 0, {u0, v1, 0, 1}), e = at(s, x1, y1, 0, {u1, v1, 0, 1});
  d.vertices = {a, c, b, c, e, b};
  d.texture = std::move(texture);
  d.sampler = sampler;
  return d;
}

TEST_F(GoldenTest, TextureNearestMagnified) {
  Scene s;
  s.name = "texture_nearest";
  // An 8 x 8 texture over 64 x 64 pixels: 8 pixels a texel, centres 1/16 texel or more from an edge.
  s.draws.push_back(textured_rect(s, 0, 0, 64, 64, 0, 0, 1, 1, pattern_texture(8, 8), TextureSampler{}));
  check(s, {0, 0, true, 0});
}

TEST_F(GoldenTest, TextureLinearMagnified) {
  Scene s;
  s.name = "texture_linear";
  TextureSampler linear;
  linear.mag_linear = linear.min_linear = true;
  s.draws.push_back(textured_rect(s, 0, 0, 64, 64, 0, 0, 1, 1, pattern_texture(8, 8), linear));
  const Comparison c = check(s, {0, 2, false, 0});
  EXPECT_EQ(c.over_threshold, 0u);
}

// Each wrap mode on a quarter of the target, u and v from -1 to 3 (four periods of a 4 x 4 texture
// over 32 pixels: pixel centres at (k + 0.25) / 4 and (k + 0.75) / 4 of a texel), nearest and linear.
Scene wrap_scene(bool linear) {
  Scene s;
  s.name = linear ? "texture_wrap_linear" : "texture_wrap_nearest";
  const uint32_t modes[4] = {kRepeat, kMirroredRepeat, kClampToEdge, kClampToBorder};
  for (int q = 0; q < 4; ++q) {
    TextureSampler sampler;
    sampler.mag_linear = sampler.min_linear = linear;
    sampler.address_u = sampler.address_v = modes[q];
    sampler.border = kBorderOpaqueWhite;
    const float x0 = float(32 * (q & 1)), y0 = float(32 * (q >> 1));
    s.draws.push_back(textured_rect(s, x0, y0, x0 + 32, y0 + 32, -1, -1, 3, 3, pattern_texture(4, 4), sampler));
  }
  return s;
}

TEST_F(GoldenTest, TextureWrapModesNearest) { check(wrap_scene(false), {0, 0, true, 0}); }

TEST_F(GoldenTest, TextureWrapModesLinear) {
  const Comparison c = check(wrap_scene(true), {0, 2, false, 0});
  EXPECT_EQ(c.over_threshold, 0u);
}

// Clamp to border with each border colour Vulkan has for float formats (transparent black, opaque
// black, opaque white), u, v from -0.5 to 1.5 around a 4 x 4 texture, nearest and linear.
TEST_F(GoldenTest, TextureBorderColours) {
  Scene s;
  s.name = "texture_border_colours";
  s.clear_color = u8(40, 80, 120);
  const uint32_t borders[3] = {0, 2, kBorderOpaqueWhite};
  for (int b = 0; b < 3; ++b)
    for (int linear = 0; linear < 2; ++linear) {
      TextureSampler sampler;
      sampler.mag_linear = sampler.min_linear = linear;
      sampler.address_u = sampler.address_v = kClampToBorder;
      sampler.border = borders[b];
      const float x0 = float(20 * b + 2), y0 = float(32 * linear);
      s.draws.push_back(
          textured_rect(s, x0, y0, x0 + 16, y0 + 32, -0.5f, -0.5f, 1.5f, 1.5f, pattern_texture(4, 4), sampler));
    }
  // Measured: 0 pixels differ, the linear half too (its weights against the border happen to agree).
  const Comparison c = check(s, {0, 2, false, 0});
  EXPECT_EQ(c.over_threshold, 0u);
}

// The 64 x 64 chain minified onto squares of 32, 16, 8 and 4 pixels (LOD 1, 2, 3, 4 exactly) and of
// 24 and 12 pixels (LOD 1.415, 2.415: between levels), plus squares with maxLod 1, minLod 3 and
// mipLodBias -1.
Scene mip_scene(bool linear_mipmaps) {
  Scene s;
  s.name = linear_mipmaps ? "texture_mip_linear" : "texture_mip_nearest";
  TextureSampler sampler;
  sampler.mipmap_linear = linear_mipmaps;
  sampler.address_u = sampler.address_v = kClampToEdge;
  const auto chain = mip_chain();
  const float sides[6][3] = {{0, 0, 32}, {32, 0, 16}, {48, 0, 8}, {56, 0, 4}, {0, 32, 24}, {32, 32, 12}};
  for (const auto& q : sides)
    s.draws.push_back(textured_rect(s, q[0], q[1], q[0] + q[2], q[1] + q[2], 0, 0, 1, 1, chain, sampler));
  TextureSampler clamped = sampler;
  clamped.max_lod = 1;  // a 4-pixel square (LOD 4) reads level 1
  s.draws.push_back(textured_rect(s, 48, 32, 52, 36, 0, 0, 1, 1, chain, clamped));
  TextureSampler raised = sampler;
  raised.min_lod = 3;  // a 16-pixel square (LOD 2) reads level 3
  s.draws.push_back(textured_rect(s, 32, 46, 48, 62, 0, 0, 1, 1, chain, raised));
  TextureSampler biased = sampler;
  biased.lod_bias = -1;  // an 8-pixel square (LOD 3) reads level 2
  s.draws.push_back(textured_rect(s, 52, 46, 60, 54, 0, 0, 1, 1, chain, biased));
  return s;
}

TEST_F(GoldenTest, TextureMipmapsNearest) { check(mip_scene(false), {0, 0, true, 0}); }

// Between levels lavapipe's LOD (an approximate log2) and 8-bit level weight differ from gsgpu's
// float ones: measured max 7/255 on the 24- and 12-pixel squares, none over 16/255.
TEST_F(GoldenTest, TextureMipmapsLinear) {
  const Comparison c = check(mip_scene(true), {0, 8, false, 0});
  EXPECT_EQ(c.over_threshold, 0u);
}

// A 64 x 64 pattern with its 7 levels, each the 2 x 2 box average of the one above (rounded).
std::shared_ptr<Texture> filtered_chain() {
  auto t = pattern_texture(64, 64);
  for (uint32_t side = 32; side >= 1; side /= 2) {
    const std::vector<uint8_t>& above = t->levels.back();
    std::vector<uint8_t> level(size_t{side} * side * 4);
    for (uint32_t y = 0; y < side; ++y)
      for (uint32_t x = 0; x < side; ++x)
        for (uint32_t c = 0; c < 4; ++c) {
          const auto texel = [&](uint32_t ax, uint32_t ay) { return above[(size_t{ay} * side * 2 + ax) * 4 + c]; };
          const uint32_t sum = texel(2 * x, 2 * y) + texel(2 * x + 1, 2 * y) + texel(2 * x, 2 * y + 1) +
                               texel(2 * x + 1, 2 * y + 1);
          level[(size_t{y} * side + x) * 4 + c] = uint8_t((sum + 2) / 4);
        }
    t->levels.push_back(level);
  }
  return t;
}

// A floor receding in perspective (clip w from 1 at the bottom to 8 at the top), u, v from 0 to 8
// (repeat): the LOD varies continuously over the levels, so pixels near a level boundary may pick
// either level (nearest) or weigh them differently (linear); within the metric only.
Scene perspective_floor(bool trilinear) {
  Scene s;
  s.name = trilinear ? "texture_floor_trilinear" : "texture_floor_nearest";
  TextureSampler sampler;
  sampler.mag_linear = sampler.min_linear = sampler.mipmap_linear = trilinear;
  Draw d;
  const auto vertex = [](float x, float y, float w, float u, float v) {
    return Vertex{{x * w, y * w, 0, w}, {u, v, 0, 1}, {0, 0, 0, 0}};
  };
  const Vertex near_left = vertex(-1, 1, 1, 0, 8), near_right = vertex(1, 1, 1, 8, 8);
  const Vertex far_left = vertex(-0.25f, -1, 8, 0, 0), far_right = vertex(0.25f, -1, 8, 8, 0);
  d.vertices = {far_left, near_left, far_right, near_left, near_right, far_right};
  d.texture = filtered_chain();
  d.sampler = sampler;
  s.draws.push_back(d);
  return s;
}

// Measured: 0 pixels differ (gsgpu's LOD and lavapipe's pick the same level everywhere here); the
// limit allows 1 % of pixels to flip a level, which Vulkan's LOD precision permits.
TEST_F(GoldenTest, TextureFloorNearest) { check(perspective_floor(false), {0.01, 255, false, 0}); }

// Measured: max 3/255, 1459 pixels differ, none over 16/255.
TEST_F(GoldenTest, TextureFloorTrilinear) {
  const Comparison c = check(perspective_floor(true), {0, 4, false, 0});
  EXPECT_EQ(c.over_threshold, 0u);
}

// sRGB decoding (gsgpu: the exact formula in float; lavapipe: its own conversion) then the UNORM8
// target's rounding: measured max 1/255, in the nearest half too.
TEST_F(GoldenTest, TextureSrgb) {
  Scene s;
  s.name = "texture_srgb";
  TextureSampler linear;
  linear.mag_linear = linear.min_linear = true;
  s.draws.push_back(textured_rect(s, 0, 0, 32, 64, 0, 0, 1, 1, pattern_texture(8, 8, kR8G8B8A8Srgb), TextureSampler{}));
  s.draws.push_back(textured_rect(s, 32, 0, 64, 64, 0, 0, 1, 1, pattern_texture(8, 8, kR8G8B8A8Srgb), linear));
  check(s, {0, 2, false, 0});
}

}  // namespace
}  // namespace gsgpu::golden
