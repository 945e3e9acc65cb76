// Explicit gradients (GLSL textureGrad, OpImageSampleExplicitLod Grad) on gsgpu and on lavapipe in
// one instance (texture_fixture.h): the gradients are constants from the push constant, so both
// drivers see the same d/dx and d/dy, and a 64 x 64 texture whose levels are solid colours shows
// which level Vulkan's scale-factor formula chose (lambda = log2 max(|d/dx|, |d/dy|) in texels).
// Isotropic, anisotropic and diagonal gradients with nearest mipmapping are bit for bit (no
// lambda near a level boundary); linear mipmapping blends two levels, within the metric.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include "shader_texture_grad_push_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kTargetSize = 32, kTextureSize = 64, kLevels = 7;

// Level n solid in its own colour.
Texel level_texel(uint32_t level, uint32_t, uint32_t, uint32_t) {
  static const Texel colours[kLevels] = {{255, 0, 0, 255},   {0, 255, 0, 255},   {0, 0, 255, 255}, {255, 255, 0, 255},
                                         {255, 0, 255, 255}, {0, 255, 255, 255}, {128, 128, 128, 255}};
  return colours[level];
}

using GradObjects = SampledTextureObjects;

// Set 0 binding 0: the texture and its sampler; the push range of draw_color.frag's.
VkDescriptorSet grad_set(const VkSamplerMipmapMode mip, GradObjects* o) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_NEAREST;
  info.mipmapMode = mip;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = static_cast<float>(kLevels - 1);
  return combined_sampler_set(info, o);
}

// A quad over the target, red / green the coordinates 0 .. 1, push.tint = (d/dx, d/dy) in uv.
DrawFrame render_grad(DrawSide& side, VkSamplerMipmapMode mip, const float gradients[4]) {
  GradObjects o;
  o.device = side.device();
  o.texture = make_texture(side, kTextureSize, kLevels, level_texel);
  const VkDescriptorSet set = grad_set(mip, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  for (int i = 0; i < 4; ++i) draw.tint[i] = gradients[i];
  scene.draws = {draw};
  scene.fragment_spirv = shader_texture_grad_push_frag;
  scene.fragment_spirv_bytes = sizeof shader_texture_grad_push_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

class VkTextureGrad : public BothDrivers {
 protected:
  FrameComparison both(VkSamplerMipmapMode mip, const float gradients[4], const char* name, Texel* centre = nullptr) {
    const DrawFrame g = render_grad(*gsgpu_, mip, gradients), l = render_grad(*lavapipe_, mip, gradients);
    EXPECT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4);
    if (centre != nullptr && !g.color.empty()) *centre = frame_pixel(g, kTargetSize, kTargetSize / 2, kTargetSize / 2);
    return compare_frames(kTargetSize, g, l, name);
  }
};

// lambda from the longer gradient in texels (level 0 is 64 texels across): the level chosen is
// ceil(lambda + 0.5) - 1, and every pixel of the frame shows that level's colour on both drivers.
TEST_F(VkTextureGrad, GradientsChooseTheLevelAsLavapipeDoes) {
  struct Case {
    const char* name;
    float d[4];      // d/dx (s, t), d/dy (s, t) in texels of level 0
    uint32_t level;  // the level Vulkan's formula selects
  };
  const Case cases[] = {
      {"isotropic 4", {4, 0, 0, 4}, 2},          // lambda 2
      {"anisotropic 0.5 x 3", {0.5f, 0, 0, 3}, 2},  // the longer: lambda log2 3 = 1.58
      {"diagonal 3, 4", {3, 4, 0, 1}, 2},        // |d/dx| = 5: lambda 2.32
      {"anisotropic 16 x 1", {16, 0, 0, 1}, 4},  // lambda 4
      {"magnified", {0.1f, 0, 0, 0.1f}, 0},      // lambda < 0
  };
  for (const Case& c : cases) {
    float uv[4];
    for (int i = 0; i < 4; ++i) uv[i] = c.d[i] / kTextureSize;
    Texel centre{};
    EXPECT_EQ(both(VK_SAMPLER_MIPMAP_MODE_NEAREST, uv, c.name, &centre).differing, 0u) << c.name;
    EXPECT_EQ(centre, level_texel(c.level, 0, 0, 0)) << c.name;
  }
}

// Linear mipmapping at lambda = log2 3: 58 % of level 2 and 42 % of level 1, within the metric.
TEST_F(VkTextureGrad, LinearMipmappingBlendsTheTwoLevels) {
  const float uv[4] = {3.0f / kTextureSize, 0, 0, 1.0f / kTextureSize};
  const FrameComparison c = both(VK_SAMPLER_MIPMAP_MODE_LINEAR, uv, "linear mip grad");
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 7u);  // measured 6/255: lavapipe's approximate log2 and 8-bit level weight
}

}  // namespace
}  // namespace gsgpu::vk::test
