// Texel offsets (GLSL textureOffset, textureLodOffset, texelFetchOffset: SPIR-V ConstOffset) on gsgpu
// and on lavapipe in one instance (texture_fixture.h). A 16 x 16 texture of 5 levels whose texels
// are all different, sampled at uv from -0.25 to 1.25 (shaders/texture_offset.frag), so that every
// wrap mode is reached from both sides with offsets of both signs, at level 0 (implicit LOD:
// magnified), at an explicit LOD of 1 and 2, and fetched at levels 0 and 1. Nearest sampling is bit
// for bit (no coordinate lies within 1/8 texel of a texel edge), linear within the metric.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include "shader_texture_offset_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kTargetSize = 32, kTextureSize = 16, kLevels = 5;

// Every texel of every level its own colour.
Texel offset_texel(uint32_t level, uint32_t, uint32_t x, uint32_t y) {
  return {static_cast<uint8_t>(x * 16 + level * 3), static_cast<uint8_t>(y * 16 + level * 5),
          static_cast<uint8_t>((x * 7 + y * 11 + level * 50) & 0xff), 255};
}

DrawFrame render_offset(DrawSide& side, VkSamplerAddressMode address, VkFilter filter, float form, float lod) {
  SampledTextureObjects o;
  o.device = side.device();
  o.texture = make_texture(side, kTextureSize, kLevels, offset_texel);
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = filter;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = address;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.maxLod = static_cast<float>(kLevels - 1);
  const VkDescriptorSet set = combined_sampler_set(info, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = form;
  draw.tint[1] = lod;
  draw.tint[2] = draw.tint[3] = 0;
  scene.draws = {draw};
  scene.fragment_spirv = shader_texture_offset_frag;
  scene.fragment_spirv_bytes = sizeof shader_texture_offset_frag;
  use_sampled_texture(&scene, o, set);
  return side.render(scene);
}

class VkTextureOffset : public BothDrivers {
 protected:
  FrameComparison both(VkSamplerAddressMode address, VkFilter filter, float form, float lod, const char* name) {
    const DrawFrame g = render_offset(*gsgpu_, address, filter, form, lod),
                    l = render_offset(*lavapipe_, address, filter, form, lod);
    EXPECT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4) << name;
    return compare_frames(kTargetSize, g, l, name);
  }
};

struct Form {
  const char* name;
  float form, lod;
};
constexpr Form kForms[] = {{"textureOffset (-8, 7)", 0, 0},     {"textureOffset (3, -2)", 1, 0},
                           {"textureLodOffset lod 1 (-1, 2)", 2, 1}, {"textureLodOffset lod 2 (-1, 2)", 2, 2},
                           {"texelFetchOffset level 0", 3, 0},   {"texelFetchOffset level 1", 3, 1}};
constexpr VkSamplerAddressMode kModes[] = {VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
                                           VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                           VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER};

TEST_F(VkTextureOffset, ReportsTheOffsetRangeOfTheImageInstructions) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &props);
  EXPECT_EQ(props.limits.minTexelOffset, -8);
  EXPECT_EQ(props.limits.maxTexelOffset, 7u);
  EXPECT_EQ(props.limits.maxTexelGatherOffset, 0u);  // no gather
}

TEST_F(VkTextureOffset, NearestOffsetsMatchLavapipeBitForBitInEveryWrapMode) {
  for (VkSamplerAddressMode mode : kModes)
    for (const Form& f : kForms) {
      const FrameComparison c = both(mode, VK_FILTER_NEAREST, f.form, f.lod, f.name);
      EXPECT_EQ(c.differing, 0u) << f.name << ", address mode " << mode;
    }
}

TEST_F(VkTextureOffset, LinearOffsetsMatchLavapipeWithinTheMetric) {
  for (VkSamplerAddressMode mode : kModes)
    for (const Form& f : kForms) {
      if (f.form == 3) continue;  // a fetch does not filter: covered above
      const FrameComparison c = both(mode, VK_FILTER_LINEAR, f.form, f.lod, f.name);
      EXPECT_EQ(c.over_16, 0u) << f.name << ", address mode " << mode;
      EXPECT_LE(c.max_diff, 1u) << f.name << ", address mode " << mode;  // measured 1/255
    }
}

}  // namespace
}  // namespace gsgpu::vk::test
