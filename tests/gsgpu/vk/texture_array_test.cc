// Arrays of combined image samplers (GLSL sampler2D t[4], SPIR-V OpTypeArray of sampled images;
// zink's max-samplers / border scenes) on gsgpu and on lavapipe in one instance
// (texture_fixture.h): four solid 4 x 4 textures at set 0 binding 0, read by shaders/texture_array_index.frag
// with constant indices and with a dynamically uniform index from the push constant. Nearest
// filtering of solid colours: bit for bit. A run-time index past the array faults the draw on
// gsgpu (the record address 0 the compiler gives such a lane is never mapped), not the device; a
// pipeline whose layout binding holds fewer descriptors than the shader's array is refused.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include "shader_texture_array_index_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kTargetSize = 16, kElements = 4;

const Texel kColours[kElements] = {{200, 10, 10, 255}, {10, 200, 10, 255}, {10, 10, 200, 128}, {90, 90, 30, 255}};

// The four textures, their sampler, and a set whose binding 0 holds `layout_count` combined image
// samplers (the first four written).
struct ArrayObjects {
  VkDevice device = VK_NULL_HANDLE;
  Texture textures[kElements];
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  ~ArrayObjects() {
    vkDeviceWaitIdle(device);
    vkDestroyDescriptorPool(device, pool, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroySampler(device, sampler, nullptr);
    for (Texture& t : textures) {
      vkDestroyImageView(device, t.view, nullptr);
      vkDestroyImage(device, t.image, nullptr);
      vkFreeMemory(device, t.memory, nullptr);
    }
  }
};

void make_array_set(DrawSide& side, uint32_t layout_count, ArrayObjects* o) {
  o->device = side.device();
  for (uint32_t i = 0; i < kElements; ++i)
    o->textures[i] = make_texture(side, 4, 1, [i](uint32_t, uint32_t, uint32_t, uint32_t) { return kColours[i]; });
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  EXPECT_EQ(vkCreateSampler(o->device, &info, nullptr, &o->sampler), VK_SUCCESS);
  o->set = allocate_combined_sampler_set(o->device, layout_count, &o->set_layout, &o->layout, &o->pool);
  VkDescriptorImageInfo images[kElements];
  for (uint32_t i = 0; i < kElements; ++i)
    images[i] = {o->sampler, o->textures[i].view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = o->set;
  write.descriptorCount = std::min(layout_count, kElements);
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = images;
  vkUpdateDescriptorSets(o->device, 1, &write, 0, nullptr);
}

// A quad over the target; push.tint = (index, dynamic, 0, 0).
DrawFrame render_array(DrawSide& side, float index, bool dynamic) {
  ArrayObjects o;
  make_array_set(side, kElements, &o);
  DrawScene scene;
  scene.width = scene.height = kTargetSize;
  const DrawVertex corners[4] = {{-1, -1, 0.5f, {0, 0, 0, 255}},
                                 {1, -1, 0.5f, {255, 0, 0, 255}},
                                 {1, 1, 0.5f, {255, 255, 0, 255}},
                                 {-1, 1, 0.5f, {0, 255, 0, 255}}};
  scene.vertices = {corners[0], corners[1], corners[2], corners[0], corners[2], corners[3]};
  DrawCall draw;
  draw.count = 6;
  draw.tint[0] = index;
  draw.tint[1] = dynamic ? 1.0f : 0.0f;
  scene.draws = {draw};
  scene.fragment_spirv = shader_texture_array_index_frag;
  scene.fragment_spirv_bytes = sizeof shader_texture_array_index_frag;
  const VkPipelineLayout layout = o.layout;
  const VkDescriptorSet set = o.set;
  scene.edit = [layout](VkGraphicsPipelineCreateInfo& info) { info.layout = layout; };
  scene.before_draws = [layout, set](VkCommandBuffer cb) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  };
  return side.render(scene);
}

class VkTextureArray : public BothDrivers {};

TEST_F(VkTextureArray, ConstantIndicesReadTheirElementsAsOnLavapipe) {
  const DrawFrame g = render_array(*gsgpu_, 0, false), l = render_array(*lavapipe_, 0, false);
  ASSERT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4);
  EXPECT_EQ(compare_frames(kTargetSize, g, l, "constant indices").differing, 0u);
  const Texel want{kColours[1][0], kColours[1][1], kColours[2][2], kColours[2][3]};
  EXPECT_EQ(frame_pixel(g, kTargetSize, 5, 9), want);
}

TEST_F(VkTextureArray, DynamicallyUniformIndexReadsEachElementAsOnLavapipe) {
  for (uint32_t i = 0; i < kElements; ++i) {
    const DrawFrame g = render_array(*gsgpu_, float(i), true), l = render_array(*lavapipe_, float(i), true);
    ASSERT_EQ(g.color.size(), size_t{kTargetSize} * kTargetSize * 4);
    EXPECT_EQ(compare_frames(kTargetSize, g, l, "dynamic index").differing, 0u) << i;
    EXPECT_EQ(frame_pixel(g, kTargetSize, 3, 12), kColours[i]) << i;
  }
}

// Index 7 of 4 (and -1): the draw faults and draws nothing; the device draws the next frame.
TEST_F(VkTextureArray, IndexPastTheArrayFaultsTheDrawNotTheDevice) {
  for (float index : {7.0f, -1.0f}) {
    const DrawFrame bad = render_array(*gsgpu_, index, true);
    ASSERT_EQ(bad.color.size(), size_t{kTargetSize} * kTargetSize * 4);
    EXPECT_EQ(frame_pixel(bad, kTargetSize, 8, 8), (Texel{0, 0, 0, 255})) << index;
  }
  const DrawFrame good = render_array(*gsgpu_, 3, true);
  EXPECT_EQ(frame_pixel(good, kTargetSize, 8, 8), kColours[3]);
}

// A layout binding of 2 descriptors for the shader's array of 4: the pipeline is refused (Vulkan
// requires the layout to hold the shader's array), so no draw reads records never written.
TEST_F(VkTextureArray, LayoutShorterThanTheShadersArrayIsRefused) {
  ArrayObjects o;
  make_array_set(*gsgpu_, 2, &o);
  const VkShaderModule fs = shader_module(o.device, shader_texture_array_index_frag, sizeof shader_texture_array_index_frag);
  VkPipelineShaderStageCreateInfo stages[2];
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult r = gsgpu_->pipeline(gsgpu_->render_pass(false), false, VK_CULL_MODE_NONE,
                                      [&](VkGraphicsPipelineCreateInfo& info) {
                                        std::copy(info.pStages, info.pStages + 2, stages);
                                        stages[1].module = fs;
                                        info.pStages = stages;
                                        info.layout = o.layout;
                                      },
                                      &pipeline);
  EXPECT_NE(r, VK_SUCCESS);
  EXPECT_EQ(pipeline, VK_NULL_HANDLE);
  vkDestroyShaderModule(o.device, fs, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
