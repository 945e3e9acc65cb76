// Float, 16-bit UNORM and packed colour attachments against lavapipe (what Mesa's zink renders
// GL_RGBA16F, GL_R32F, GL_RG16, GL_RGB10_A2, GL_RGB565, GL_SRGB8 ... to). One scene per format: a
// gradient quad whose colours a push-constant tint takes above 1 (float targets keep them, UNORM
// ones clamp) and a flat quad over it, drawn plainly and with additive blending (ONE + ONE on
// colour: float targets sum without clamping, Vulkan's rule), over a cleared target. The frames
// are compared component by component after decoding; the result per format is printed
// ("[vkformats]"): pixels that differ and the largest difference, which must stay within the
// rounding Vulkan leaves open (BlendedScenesMatchLavapipe says how much).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

using VkColorTargetFormats = BothDrivers;

enum class Kind { kUnorm, kFloat, kUfloat };

// How the test reads a texel back: components at (shift, bits) of the little-endian texel.
struct Layout {
  VkFormat format;
  Kind kind;
  int components;
  uint8_t shift[4];
  uint8_t bits[4];
};

constexpr Layout kLayouts[] = {
    {VK_FORMAT_R16G16B16A16_SFLOAT, Kind::kFloat, 4, {0, 16, 32, 48}, {16, 16, 16, 16}},
    {VK_FORMAT_R16_SFLOAT, Kind::kFloat, 1, {0}, {16}},
    {VK_FORMAT_R16G16_SFLOAT, Kind::kFloat, 2, {0, 16}, {16, 16}},
    {VK_FORMAT_R32_SFLOAT, Kind::kFloat, 1, {0}, {32}},
    {VK_FORMAT_R32G32_SFLOAT, Kind::kFloat, 2, {0, 32}, {32, 32}},
    {VK_FORMAT_R16G16B16A16_UNORM, Kind::kUnorm, 4, {0, 16, 32, 48}, {16, 16, 16, 16}},
    {VK_FORMAT_R16_UNORM, Kind::kUnorm, 1, {0}, {16}},
    {VK_FORMAT_R16G16_UNORM, Kind::kUnorm, 2, {0, 16}, {16, 16}},
    {VK_FORMAT_A2B10G10R10_UNORM_PACK32, Kind::kUnorm, 4, {0, 10, 20, 30}, {10, 10, 10, 2}},
    {VK_FORMAT_R5G6B5_UNORM_PACK16, Kind::kUnorm, 3, {11, 5, 0}, {5, 6, 5}},
    {VK_FORMAT_B10G11R11_UFLOAT_PACK32, Kind::kUfloat, 3, {0, 11, 22}, {11, 11, 10}},
    // R8G8B8A8's bytes (zink's choice for GL_SRGB8 is the sRGB one); compared as stored bytes.
    {VK_FORMAT_A8B8G8R8_UNORM_PACK32, Kind::kUnorm, 4, {0, 8, 16, 24}, {8, 8, 8, 8}},
    {VK_FORMAT_A8B8G8R8_SRGB_PACK32, Kind::kUnorm, 4, {0, 8, 16, 24}, {8, 8, 8, 8}},
};

// Every format here has at most 8 bytes a texel.
uint64_t raw_component(const uint8_t* texel, uint32_t texel_bytes, const Layout& l, int i) {
  uint64_t word = 0;
  std::memcpy(&word, texel, std::min<uint32_t>(texel_bytes, 8));
  const uint64_t mask = (uint64_t{1} << l.bits[i]) - 1;
  return (word >> l.shift[i]) & mask;
}

double half_value(uint32_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  const double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                           : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                            : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// An unsigned 11- / 10-bit float: 5-bit exponent (bias 15), 6- / 5-bit mantissa.
double ufloat_value(uint32_t raw, int mantissa_bits) {
  const int exponent = int(raw >> mantissa_bits) & 31, mantissa = int(raw) & ((1 << mantissa_bits) - 1);
  if (exponent == 0) return std::ldexp(mantissa, -14 - mantissa_bits);
  if (exponent == 31) return mantissa ? NAN : INFINITY;
  return std::ldexp((1 << mantissa_bits) + mantissa, exponent - 15 - mantissa_bits);
}

double component_value(const Layout& l, int i, uint64_t raw) {
  if (l.kind == Kind::kUnorm) return double(raw) / double((uint64_t{1} << l.bits[i]) - 1);
  if (l.kind == Kind::kUfloat) return ufloat_value(uint32_t(raw), l.bits[i] - 5);
  if (l.bits[i] == 16) return half_value(uint32_t(raw));
  return double(std::bit_cast<float>(uint32_t(raw)));
}

// A quad over pixels [x0, x1) x [y0, y1) of a 64 x 64 target with a colour per corner.
void add_quad(DrawScene* s, float x0, float y0, float x1, float y1, const uint8_t corner[4][4], const float tint[4]) {
  auto ndc = [](float p) { return p / 32.0f - 1.0f; };
  auto v = [&](float x, float y, const uint8_t* c) { return DrawVertex{ndc(x), ndc(y), 0.5f, {c[0], c[1], c[2], c[3]}}; };
  const DrawVertex a = v(x0, y0, corner[0]), b = v(x1, y0, corner[1]), c = v(x1, y1, corner[2]), d = v(x0, y1, corner[3]);
  const uint32_t first = uint32_t(s->vertices.size());
  s->vertices.insert(s->vertices.end(), {a, b, c, a, c, d});
  DrawCall call{false, 6, first, 0, {}};
  std::memcpy(call.tint, tint, sizeof call.tint);
  s->draws.push_back(call);
}

DrawScene format_scene(VkFormat format, bool blend, VkPipelineColorBlendStateCreateInfo* state,
                       VkPipelineColorBlendAttachmentState* attachment) {
  DrawScene s;
  s.color_format = format;
  const float clear[4] = {0.2f, 0.45f, 0.7f, 0.5f};
  std::memcpy(s.clear, clear, sizeof clear);
  const uint8_t gradient[4][4] = {{0, 40, 255, 255}, {255, 0, 30, 128}, {90, 255, 0, 7}, {200, 133, 77, 0}};
  const float bright[4] = {3.0f, 1.5f, 0.75f, 1.25f};
  add_quad(&s, 4, 4, 44, 44, gradient, bright);
  const uint8_t flat[4][4] = {{0xcc, 0x0f, 0x69, 0xa0}, {0xcc, 0x0f, 0x69, 0xa0}, {0xcc, 0x0f, 0x69, 0xa0},
                              {0xcc, 0x0f, 0x69, 0xa0}};
  const float one[4] = {1, 1, 1, 1};
  add_quad(&s, 20, 24, 60, 60, flat, one);
  *attachment = {};
  attachment->colorWriteMask = 0xf;
  attachment->blendEnable = blend;
  attachment->srcColorBlendFactor = attachment->dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
  attachment->srcAlphaBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
  attachment->dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  *state = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  state->attachmentCount = 1;
  state->pAttachments = attachment;
  s.edit = [state](VkGraphicsPipelineCreateInfo& info) { info.pColorBlendState = state; };
  return s;
}

struct Difference {
  uint32_t pixels = 0;  // pixels whose stored bits differ
  double max = 0;       // the largest difference of a component: UNORM steps, or relative for floats
};

Difference compare(const Layout& l, const DrawFrame& x, const DrawFrame& y) {
  Difference d;
  const uint32_t bytes = color_texel_bytes(l.format);
  for (size_t at = 0; at + bytes <= x.color.size(); at += bytes) {
    if (std::memcmp(&x.color[at], &y.color[at], bytes) == 0) continue;
    d.pixels++;
    for (int i = 0; i < l.components; ++i) {
      const uint64_t ra = raw_component(&x.color[at], bytes, l, i), rb = raw_component(&y.color[at], bytes, l, i);
      const double a = component_value(l, i, ra), b = component_value(l, i, rb);
      // UNORM: in steps of the component; floats: relative to the larger magnitude (at least 1/64,
      // where the interpolated gradient's rounding decides the last bits of values near 0).
      const double units = l.kind == Kind::kUnorm ? std::fabs(double(ra) - double(rb))
                                                  : std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1.0 / 64});
      d.max = std::max(d.max, units);
    }
  }
  return d;
}

TEST_F(VkColorTargetFormats, FormatsAreBlendableColourAttachments) {
  for (const Layout& l : kLayouts) {
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(gsgpu_physical_, l.format, &p);
    const VkFormatFeatureFlags want = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                      VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    EXPECT_EQ(p.optimalTilingFeatures & want, want) << l.format;
  }
}

TEST_F(VkColorTargetFormats, BlendedScenesMatchLavapipe) {
  for (const Layout& l : kLayouts) {
    for (bool blend : {false, true}) {
      VkPipelineColorBlendStateCreateInfo state;
      VkPipelineColorBlendAttachmentState attachment;
      const DrawScene s = format_scene(l.format, blend, &state, &attachment);
      const DrawFrame gs = gsgpu_->render(s);
      const DrawFrame ref = lavapipe_->render(s);
      ASSERT_EQ(gs.color.size(), size_t{64} * 64 * color_texel_bytes(l.format));
      ASSERT_EQ(gs.color.size(), ref.color.size());
      const Difference d = compare(l, gs, ref);
      std::printf("[vkformats] format %d blend %d: %u of 4096 pixels differ, max %.3g (UNORM steps / relative)\n", l.format, int(blend),
                  d.pixels, d.max);
      // Vulkan leaves the rounding to the nearest of two neighbours open (UNORM "should round to
      // nearest", floats "not defined"): lavapipe's binary16 conversion truncates and its 5-, 6- and
      // 10-bit UNORM stores take the other neighbour at times, and the two rasterizers' gradients
      // differ in the last bit of binary32. Bound: one UNORM step; floats two binary16 ulps
      // (2^-9 relative: the blend adds the destination's one-ulp difference), 2^-19 for binary32 (near
      // the gradient's edges, values below 1/64).
      const bool half = l.kind == Kind::kFloat && l.bits[0] == 16;
      const double bound = l.kind == Kind::kUnorm    ? 1.0
                           : l.kind == Kind::kUfloat ? 1.0 / 16  // two ulps of the 10-bit float's 5-bit mantissa
                           : half                    ? 1.0 / 512
                                                     : 1.0 / (1 << 19);
      EXPECT_LE(d.max, bound) << "format " << l.format << " blend " << blend;
      // Float targets are not clamped: the tinted gradient's red passes 2 (UNORM: 1).
      double red = 0;
      const uint32_t bytes = color_texel_bytes(l.format);
      for (size_t at = 0; at + bytes <= gs.color.size(); at += bytes)
        red = std::max(red, component_value(l, 0, raw_component(&gs.color[at], bytes, l, 0)));
      EXPECT_EQ(red > 2.0, l.kind != Kind::kUnorm) << "format " << l.format << " largest red " << red;
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
