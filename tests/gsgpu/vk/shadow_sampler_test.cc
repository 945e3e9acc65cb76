// Shadow samplers (compareEnable / compareOp) on depth textures, on gsgpu and on lavapipe in one
// instance (texture_fixture.h): GLSL texture(), textureProj() and textureLod() on a sampler2DShadow
// (shaders/shadow_2d*.frag: OpImageSample{,Proj}Dref{Implicit,Explicit}Lod). The quad's vertex
// colour carries the coordinates, the push constant the reference, so every compare sees the same
// reference on both drivers. Nearest filtering makes each pixel one texel's 0 / 1 result, bit for
// bit; linear filtering averages the four results (the spec's order: compare, then filter).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>

#include "shader_shadow_2d_frag.h"
#include "shader_shadow_2d_lod_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

struct ShadowScene {
  VkFormat format = VK_FORMAT_D32_SFLOAT;
  uint32_t levels = 1;
  VkCompareOp op = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkFilter filter = VK_FILTER_NEAREST;
  float reference = 0.5f;
  bool projective = false;  // textureProj, q from 1 to 4 across the quad
  bool explicit_lod = false;  // textureLod at `lod`
  float lod = 0;
};

constexpr uint32_t kTextureSize = 8, kTargetSize = 64;

// Depth k / 16 (D32, D32S8: exact, 8 / 16 equals the reference 0.5) or k / 15 (D16, D24: never 0.5), with
// k = (x + 3y + 5 level) mod 16, stored as the format's bytes.
Texel depth_texel(VkFormat format, uint32_t level, uint32_t x, uint32_t y) {
  const uint32_t k = (x + 3 * y + 5 * level) % 16;
  Texel t{};
  if (format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_D32_SFLOAT_S8_UINT) {  // the depth aspect's floats
    const float d = static_cast<float>(k) / 16.0f;
    std::memcpy(t.data(), &d, 4);
  } else {
    const uint32_t n = format == VK_FORMAT_D16_UNORM ? k * 4369u : k * 1118481u;  // (2^16 - 1) / 15, (2^24 - 1) / 15
    std::memcpy(t.data(), &n, 4);  // D16: the low two bytes; D24: depth in bits 0..23, stencil 0
  }
  return t;
}

using ShadowObjects = SampledTextureObjects;

// Set 0 binding 0: the depth view and the shadow sampler; the push range of draw_color.frag's.
VkDescriptorSet shadow_set(const ShadowScene& s, ShadowObjects* o) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = s.filter;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = static_cast<float>(s.levels - 1);
  info.compareEnable = VK_TRUE;
  info.compareOp = s.op;
  return combined_sampler_set(info, o);
}

// A quad over the target: red / green the texture coordinates 0 .. 1, blue 0 .. 1 left to right
// (textureProj's q), drawn once with push.tint = (reference, projective, lod, 0).
DrawFrame render_shadow(DrawSide& side, const ShadowScene& s) {
  ShadowObjects o;
  o.device = side.device();
  o.texture = make_texture(
      side, kTextureSize, s.levels,
      [&](uint32_t level, uint32_t, uint32_t x, uint32_t y) { return depth_texel(s.format, level, x, y); }, 1, s.format);
  const VkDescriptorSet set = shadow_set(s, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 255, 255}},
                                 {1, 1, 0.5f, {255, 255, 255, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = s.reference;
  draw.tint[1] = s.projective ? 1.0f : 0.0f;
  draw.tint[2] = s.lod;
  scene.draws = {draw};
  scene.fragment_spirv = s.explicit_lod ? shader_shadow_2d_lod_frag : shader_shadow_2d_frag;
  scene.fragment_spirv_bytes = s.explicit_lod ? sizeof shader_shadow_2d_lod_frag : sizeof shader_shadow_2d_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

class VkShadowSampler : public BothDrivers {
 protected:
  // Renders on both and compares; *lit counts gsgpu's pixels whose compare passed (red 255).
  FrameComparison both(const ShadowScene& s, const char* name, uint32_t* lit = nullptr) {
    const DrawFrame g = render_shadow(*gsgpu_, s), l = render_shadow(*lavapipe_, s);
    EXPECT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4);
    if (lit != nullptr) {
      *lit = 0;
      for (size_t i = 0; i + 4 <= g.color.size(); i += 4) *lit += g.color[i] == 255;
    }
    return compare_frames(kTargetSize, g, l, name);
  }
};

// Every VkCompareOp on D32 with nearest filtering: each pixel is one texel's 0 / 1, and the texel
// 8 / 16 equals the reference exactly, so EQUAL / NOT_EQUAL see equality too. 0 pixels differ.
TEST_F(VkShadowSampler, EveryCompareOpMatchesLavapipeExactly) {
  const char* names[8] = {"never", "less", "equal", "less-or-equal", "greater", "not-equal", "greater-or-equal",
                          "always"};
  for (uint32_t op = VK_COMPARE_OP_NEVER; op <= VK_COMPARE_OP_ALWAYS; ++op) {
    ShadowScene s;
    s.op = static_cast<VkCompareOp>(op);
    uint32_t lit = 0;
    EXPECT_EQ(both(s, names[op], &lit).differing, 0u) << names[op];
    // NEVER lights nothing, ALWAYS everything; every other op some texels and not others.
    if (op == VK_COMPARE_OP_NEVER) EXPECT_EQ(lit, 0u);
    else if (op == VK_COMPARE_OP_ALWAYS) EXPECT_EQ(lit, kTargetSize * kTargetSize);
    else EXPECT_TRUE(lit > 0 && lit < kTargetSize * kTargetSize) << names[op] << ": " << lit;
  }
}

// D16 and D24S8's depth (UNORM): the reference is clamped to [0, 1] before the compare, so 1.5
// passes LESS_OR_EQUAL against the texels of depth 1 and -1 fails GREATER against those of depth 0.
TEST_F(VkShadowSampler, UnormDepthFormatsClampTheReference) {
  for (VkFormat format : {VK_FORMAT_D16_UNORM, VK_FORMAT_D24_UNORM_S8_UINT}) {
    const char* name = format == VK_FORMAT_D16_UNORM ? "d16" : "d24s8";
    ShadowScene s;
    s.format = format;
    s.op = VK_COMPARE_OP_LESS;
    EXPECT_EQ(both(s, name).differing, 0u) << name;
    s.op = VK_COMPARE_OP_LESS_OR_EQUAL;
    s.reference = 1.5f;
    EXPECT_EQ(both(s, name).differing, 0u) << name;
    s.op = VK_COMPARE_OP_GREATER;
    s.reference = -1.0f;
    EXPECT_EQ(both(s, name).differing, 0u) << name;
  }
}

// D32_SFLOAT_S8_UINT's depth aspect (8-byte texels: IMAGE_DESC DEPTH_STENCIL / FLOAT) compares as
// D32's: the reference 0.5 equals the texel 8 / 16, nearest exact, linear within the metric.
TEST_F(VkShadowSampler, D32S8DepthAspectComparesAsD32) {
  ShadowScene s;
  s.format = VK_FORMAT_D32_SFLOAT_S8_UINT;
  for (VkCompareOp op : {VK_COMPARE_OP_LESS_OR_EQUAL, VK_COMPARE_OP_EQUAL, VK_COMPARE_OP_GREATER}) {
    s.op = op;
    uint32_t lit = 0;
    EXPECT_EQ(both(s, "d32s8", &lit).differing, 0u) << op;
    EXPECT_TRUE(lit > 0 && lit < kTargetSize * kTargetSize) << op << ": " << lit;
  }
  s.filter = VK_FILTER_LINEAR;
  const FrameComparison c = both(s, "d32s8 linear");
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 2u);
}

// Linear filtering averages the four compare results (percentage-closer filtering): within the
// metric (no pixel over 16/255).
TEST_F(VkShadowSampler, LinearFilteringAveragesTheCompareResults) {
  ShadowScene s;
  s.filter = VK_FILTER_LINEAR;
  uint32_t lit = 0;
  const FrameComparison c = both(s, "linear pcf", &lit);
  EXPECT_GT(lit, 0u);  // (and partly lit pixels at the texel edges)
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 2u);
}

// textureProj divides the coordinates and the reference by q (1 .. 4 across the quad); a reference
// away from every texel's depth keeps each result exact. textureLod picks level 1 (its own depths).
TEST_F(VkShadowSampler, ProjectiveAndExplicitLodFormsMatchLavapipeExactly) {
  ShadowScene s;
  s.projective = true;
  s.reference = 0.53f;
  EXPECT_EQ(both(s, "textureProj").differing, 0u);
  ShadowScene lod;
  lod.levels = 2;
  lod.explicit_lod = true;
  lod.lod = 1.0f;
  lod.reference = 0.53f;
  EXPECT_EQ(both(lod, "textureLod level 1").differing, 0u);
}

}  // namespace
}  // namespace gsgpu::vk::test
