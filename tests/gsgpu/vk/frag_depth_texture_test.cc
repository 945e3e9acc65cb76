// gl_FragDepth from a depth texture (piglit draw-pixels through zink: glDrawPixels of
// GL_DEPTH_COMPONENT samples a depth texture and writes gl_FragDepth; glReadPixels of depth blits
// the depth buffer into a D32 image with texelFetch). An 8 x 8 depth texture of k / 16 (D32) or
// k / 15 (D16, D24S8, X8_D24) is sampled or fetched over a 64 x 64 quad into a D32 target, depth test LESS
// against the clear 1.0; the target's depth and colour against lavapipe's in the same test.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "shader_depth_from_texture_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

Texel depth_texel(VkFormat format, uint32_t x, uint32_t y) {
  const uint32_t k = (x + 3 * y) % 16;
  Texel t{};
  if (format == VK_FORMAT_D32_SFLOAT) {
    const float d = static_cast<float>(k) / 16.0f;
    std::memcpy(t.data(), &d, 4);
  } else {
    const uint32_t n = format == VK_FORMAT_D16_UNORM ? k * 4369u : k * 1118481u;
    std::memcpy(t.data(), &n, 4);
  }
  return t;
}

// The texture of `format` sampled (or fetched) into a 64 x 64 quad over a `target` depth attachment.
DrawFrame render_depth_from_texture(DrawSide& side, VkFormat format, bool fetch,
                                   VkFormat target = VK_FORMAT_D32_SFLOAT) {
  SampledTextureObjects o;
  o.device = side.device();
  o.texture = make_texture(side, 8, 1, [&](uint32_t, uint32_t, uint32_t x, uint32_t y) { return depth_texel(format, x, y); },
                           1, format);
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  const VkDescriptorSet set = combined_sampler_set(info, &o);
  DrawScene scene;
  scene.depth = true;
  scene.depth_format = target;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = fetch ? 1.0f : 0.0f;
  scene.draws = {draw};
  scene.fragment_spirv = shader_depth_from_texture_frag;
  scene.fragment_spirv_bytes = sizeof shader_depth_from_texture_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

class VkFragDepthFromTexture : public BothDrivers {};

TEST_F(VkFragDepthFromTexture, SampledAndFetchedDepthMatchesLavapipe) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_X8_D24_UNORM_PACK32,
                          VK_FORMAT_D16_UNORM}) {
    for (bool fetch : {false, true}) {
      const DrawFrame g = render_depth_from_texture(*gsgpu_, format, fetch);
      const DrawFrame l = render_depth_from_texture(*lavapipe_, format, fetch);
      ASSERT_EQ(g.depth.size(), l.depth.size());
      uint32_t differing = 0, below_one = 0;
      float worst = 0;
      for (size_t i = 0; i < g.depth.size(); ++i) {
        const float d = std::fabs(g.depth[i] - l.depth[i]);
        differing += d > 1e-6f;
        worst = std::max(worst, d);
        below_one += g.depth[i] < 1.0f;
      }
      std::printf("[vkfragdepth] format %d %s: %u of %zu depths differ (max %g), %u below the clear\n", int(format),
                  fetch ? "texelFetch" : "texture", differing, g.depth.size(), double(worst), below_one);
      EXPECT_EQ(differing, 0u) << format << (fetch ? " fetch" : " sample");
      EXPECT_EQ(differing_pixels(g, l), 0u) << format << (fetch ? " fetch" : " sample");
      EXPECT_GT(below_one, 64u * 64 * 14 / 16) << format;  // every texel but k = 0 .. 15 ... above 0
    }
  }
}

// X8_D24 (OpenGL's 24-bit depth without stencil through zink) as the depth attachment stores the
// depth as D24S8 does: both within one 24-bit step of lavapipe's (the float -> 24-bit conversions
// round differently), in the same pixels.
TEST_F(VkFragDepthFromTexture, X8D24AttachmentStoresDepthAsD24S8Does) {
  uint32_t differing[2] = {}, worst[2] = {}, written[2] = {};
  const VkFormat targets[2] = {VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_X8_D24_UNORM_PACK32};
  for (int t = 0; t < 2; ++t) {
    const DrawFrame g = render_depth_from_texture(*gsgpu_, VK_FORMAT_D24_UNORM_S8_UINT, true, targets[t]);
    const DrawFrame l = render_depth_from_texture(*lavapipe_, VK_FORMAT_D24_UNORM_S8_UINT, true, targets[t]);
    ASSERT_EQ(g.depth_bits.size(), 64u * 64);
    ASSERT_EQ(g.depth_bits.size(), l.depth_bits.size());
    for (size_t i = 0; i < g.depth_bits.size(); ++i) {
      const int64_t a = g.depth_bits[i] & 0xffffff, b = l.depth_bits[i] & 0xffffff;
      differing[t] += a != b;
      worst[t] = std::max(worst[t], uint32_t(std::llabs(a - b)));
      written[t] += a != 0xffffff;  // below the clear 1.0
    }
    std::printf("[vkfragdepth] target %d: %u of 4096 depths differ from lavapipe (max %u steps), %u written\n",
                int(targets[t]), differing[t], worst[t], written[t]);
  }
  EXPECT_LE(worst[1], 1u);
  EXPECT_EQ(differing[1], differing[0]);
  EXPECT_EQ(written[1], written[0]);
  EXPECT_GT(written[1], 3000u);
}

}  // namespace
}  // namespace gsgpu::vk::test
