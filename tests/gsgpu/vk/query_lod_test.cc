// textureQueryLod (OpImageQueryLod: the compiler's v_image_query_lod, docs/isa.md §8b) on gsgpu and
// on lavapipe in one instance (texture_fixture.h). shaders/query_lod.frag writes the query of a
// 64 x 64 texture of 7 levels to an R32G32_SFLOAT target at coordinates that grow cubically
// across the quad, so each frame holds LODs from magnified (negative) to past the last level: x, the
// level a sample would read (clamped to the sampler's minLod / maxLod and the levels; whole for
// NEAREST mipmapping), and y, the LOD before any clamp. llvmpipe computes log2 with a polynomial
// (lp_build_fast_log2), gsgpu with the C library's, so the floats agree within a tolerance rather
// than bit for bit (measured: at most 0.043 of a level); NEAREST's whole levels agree exactly.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstring>

#include "shader_query_lod_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kTargetSize = 32, kTextureSize = 64, kLevels = 7;

Texel grey_texel(uint32_t level, uint32_t, uint32_t, uint32_t) {
  const uint8_t v = static_cast<uint8_t>(40 * level);
  return {v, v, v, 255};
}

struct LodScene {
  VkSamplerMipmapMode mip = VK_SAMPLER_MIPMAP_MODE_LINEAR;
  float min_lod = 0, max_lod = kLevels - 1, bias = 0;
  float scale[2] = {16, 16};  // push.tint.xy: the cubed coordinates' scale
};

DrawFrame render_query(DrawSide& side, const LodScene& s) {
  SampledTextureObjects o;
  o.device = side.device();
  o.texture = make_texture(side, kTextureSize, kLevels, grey_texel);
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_LINEAR;
  info.mipmapMode = s.mip;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.minLod = s.min_lod;
  info.maxLod = s.max_lod;
  info.mipLodBias = s.bias;
  const VkDescriptorSet set = combined_sampler_set(info, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  scene.color_format = VK_FORMAT_R32G32_SFLOAT;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = s.scale[0];
  draw.tint[1] = s.scale[1];
  scene.draws = {draw};
  scene.fragment_spirv = shader_query_lod_frag;
  scene.fragment_spirv_bytes = sizeof shader_query_lod_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

// lavapipe's polynomial log2 against the C library's (measured 0.043 at most).
constexpr float kLodTolerance = 0.05f;

struct LodComparison {
  float max_level_diff = 0, max_lod_diff = 0;
  uint32_t level_differing = 0;   // pixels whose x differs at all
  float min_level = 1e9f, max_level = -1e9f, min_lod = 1e9f, max_lod = -1e9f;  // gsgpu's ranges
};

class VkQueryLod : public BothDrivers {
 protected:
  LodComparison both(const LodScene& s, const char* name) {
    const DrawFrame g = render_query(*gsgpu_, s), l = render_query(*lavapipe_, s);
    const size_t pixels = size_t{kTargetSize} * kTargetSize;
    EXPECT_EQ(g.color.size(), pixels * 8) << name;
    EXPECT_EQ(l.color.size(), pixels * 8) << name;
    LodComparison c;
    for (size_t i = 0; i < pixels && (i + 1) * 8 <= std::min(g.color.size(), l.color.size()); ++i) {
      float gv[2], lv[2];
      std::memcpy(gv, &g.color[i * 8], 8);
      std::memcpy(lv, &l.color[i * 8], 8);
      c.max_level_diff = std::max(c.max_level_diff, std::fabs(gv[0] - lv[0]));
      c.max_lod_diff = std::max(c.max_lod_diff, std::fabs(gv[1] - lv[1]));
      c.level_differing += gv[0] != lv[0];
      c.min_level = std::min(c.min_level, gv[0]);
      c.max_level = std::max(c.max_level, gv[0]);
      c.min_lod = std::min(c.min_lod, gv[1]);
      c.max_lod = std::max(c.max_lod, gv[1]);
    }
    std::printf("[vkquerylod] %s: level max diff %g (%u pixels differ), lod max diff %g; gsgpu level %g .. %g, lod "
                "%g .. %g\n",
                name, c.max_level_diff, c.level_differing, c.max_lod_diff, c.min_level, c.max_level, c.min_lod,
                c.max_lod);
    return c;
  }
};

// LINEAR mipmapping: x is the LOD clamped to [0, 6], y the LOD itself, from below 0 to above 6.
TEST_F(VkQueryLod, LinearMipmappingMatchesLavapipe) {
  const LodComparison c = both(LodScene{}, "linear");
  EXPECT_LE(c.max_level_diff, kLodTolerance);
  EXPECT_LE(c.max_lod_diff, kLodTolerance);
  EXPECT_EQ(c.min_level, 0.0f);  // magnified pixels
  EXPECT_EQ(c.max_level, 6.0f);  // past the last level
  EXPECT_LT(c.min_lod, 0.0f);
  EXPECT_GT(c.max_lod, 6.0f);
}

// NEAREST mipmapping: x is the whole level ceil(lambda + 0.5) - 1.
TEST_F(VkQueryLod, NearestMipmappingGivesWholeLevels) {
  LodScene s;
  s.mip = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  const LodComparison c = both(s, "nearest");
  EXPECT_LE(c.max_lod_diff, kLodTolerance);
  EXPECT_EQ(c.level_differing, 0u);
  EXPECT_EQ(c.max_level, 6.0f);
}

// The sampler's minLod / maxLod clamp x, not y; its mipLodBias moves both (Vulkan's lambda includes it).
TEST_F(VkQueryLod, SamplerClampsAndBiasApplyAsOnLavapipe) {
  LodScene s;
  s.min_lod = 1.5f;
  s.max_lod = 3.25f;
  s.bias = 0.75f;
  s.scale[1] = 4;  // anisotropic: the longer derivative decides
  const LodComparison c = both(s, "clamped and biased");
  EXPECT_LE(c.max_level_diff, kLodTolerance);
  EXPECT_LE(c.max_lod_diff, kLodTolerance);
  EXPECT_EQ(c.min_level, 1.5f);
  EXPECT_EQ(c.max_level, 3.25f);
  EXPECT_LT(c.min_lod, 1.5f);
  EXPECT_GT(c.max_lod, 3.25f);
}

}  // namespace
}  // namespace gsgpu::vk::test
