// Shared by the textured Vulkan draw tests (texture_draw_test.cc, vkcube_scene_test.cc): an RGBA8
// texture uploaded level by level, shader modules, the comparison of two frames with
// docs/graphics.md's metric, and a fixture holding gsgpu and lavapipe in one instance.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "tests/gsgpu/vk/draw_fixture.h"

namespace gsgpu::vk::test {

using Texel = std::array<uint8_t, 4>;

using TexelFunction = std::function<Texel(uint32_t level, uint32_t layer, uint32_t x, uint32_t y)>;

// A 2D (or, with several layers, 2D array) RGBA8 texture (or another 4-byte format, or a depth format)
// with its levels and layers uploaded, in SHADER_READ_ONLY_OPTIMAL layout.
struct Texture {
  VkImage image = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

// The bytes a texel of `format` takes in a copy and the aspect copied: depth formats copy their depth
// aspect (D16: 2 bytes, the texel function's first two; D24S8: 4, depth in bits 0..23; D32 and
// D32S8: 4, a float).
// Colour formats of fewer bytes (R8, R8G8, R5G6B5) copy the function's first one / two bytes.
inline uint32_t copy_texel_bytes(VkFormat format) {
  switch (format) {
    case VK_FORMAT_R8_UNORM: return 1;
    case VK_FORMAT_D16_UNORM: case VK_FORMAT_R8G8_UNORM: case VK_FORMAT_R5G6B5_UNORM_PACK16: return 2;
    default: return 4;
  }
}
inline VkImageAspectFlags copy_aspect(VkFormat format) {
  const bool depth = format == VK_FORMAT_D16_UNORM || format == VK_FORMAT_D24_UNORM_S8_UINT ||
                     format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_X8_D24_UNORM_PACK32 ||
                     format == VK_FORMAT_D32_SFLOAT_S8_UINT;
  return depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

// With `cube`, the image is CUBE_COMPATIBLE and the view a cube of its 6 layers; `components` is
// the view's component mapping (zero: identity).
inline Texture make_texture(DrawSide& side, uint32_t size, uint32_t levels, const TexelFunction& texel,
                            uint32_t layers = 1, VkFormat format = VK_FORMAT_R8G8B8A8_UNORM, bool cube = false,
                            const VkComponentMapping& components = {}) {
  VkDevice device = side.device();
  const uint32_t texel_bytes = copy_texel_bytes(format);
  const VkImageAspectFlags aspect = copy_aspect(format);
  Texture t;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  if (cube) info.flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
  info.format = format;  // a format of 4 bytes a texel: the texel function's bytes
  info.extent = {size, size, 1};
  info.mipLevels = levels;
  info.arrayLayers = layers;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  EXPECT_EQ(vkCreateImage(device, &info, nullptr, &t.image), VK_SUCCESS);
  VkMemoryRequirements reqs;
  vkGetImageMemoryRequirements(device, t.image, &reqs);
  // Owned here (not by the side), so that a hostile scene can free it; never mapped, so any type.
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = reqs.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(__builtin_ctz(reqs.memoryTypeBits));
  EXPECT_EQ(vkAllocateMemory(device, &alloc, nullptr, &t.memory), VK_SUCCESS);
  EXPECT_EQ(vkBindImageMemory(device, t.image, t.memory, 0), VK_SUCCESS);
  VkImageViewCreateInfo v{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  v.image = t.image;
  v.viewType = cube ? VK_IMAGE_VIEW_TYPE_CUBE : layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
  v.format = info.format;
  v.components = components;
  v.subresourceRange = {aspect, 0, levels, 0, layers};
  EXPECT_EQ(vkCreateImageView(device, &v, nullptr, &t.view), VK_SUCCESS);

  // The levels through a staging buffer: UNDEFINED -> TRANSFER_DST, copies, -> SHADER_READ_ONLY.
  VkDeviceSize bytes = 0;
  for (uint32_t l = 0; l < levels; ++l)
    bytes += VkDeviceSize{texel_bytes} * layers * std::max(1u, size >> l) * std::max(1u, size >> l);
  uint8_t* staging_bytes = nullptr;
  VkBuffer staging = side.buffer(bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging_bytes);
  std::vector<VkBufferImageCopy> regions;
  VkDeviceSize offset = 0;
  for (uint32_t l = 0; l < levels; ++l) {
    const uint32_t n = std::max(1u, size >> l);
    for (uint32_t layer = 0; layer < layers; ++layer) {
      for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x)
          std::memcpy(staging_bytes + offset + texel_bytes * (y * n + x), texel(l, layer, x, y).data(), texel_bytes);
      VkBufferImageCopy r{};
      r.bufferOffset = offset;
      r.imageSubresource = {aspect, l, layer, 1};
      r.imageExtent = {n, n, 1};
      regions.push_back(r);
      offset += VkDeviceSize{texel_bytes} * n * n;
    }
  }
  VkCommandBuffer cb = side.cb();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = t.image;
  barrier.subresourceRange = v.subresourceRange;
  if (format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT)  // a barrier names both aspects of a depth / stencil image
    barrier.subresourceRange.aspectMask |= VK_IMAGE_ASPECT_STENCIL_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       1, &barrier);
  vkCmdCopyBufferToImage(cb, staging, t.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(regions.size()),
                         regions.data());
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &barrier);
  side.submit_and_wait();
  return t;
}

inline VkShaderModule shader_module(VkDevice device, const uint32_t* code, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = code;
  VkShaderModule m = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateShaderModule(device, &info, nullptr, &m), VK_SUCCESS);
  return m;
}

// The objects of one scene sampling one texture that the side does not own, destroyed together.
struct SampledTextureObjects {
  VkDevice device = VK_NULL_HANDLE;
  Texture texture;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ~SampledTextureObjects() {
    vkDeviceWaitIdle(device);
    vkDestroyDescriptorPool(device, pool, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroySampler(device, sampler, nullptr);
    vkDestroyImageView(device, texture.view, nullptr);
    vkDestroyImage(device, texture.image, nullptr);
    vkFreeMemory(device, texture.memory, nullptr);
  }
};

// Set 0 binding 0: `count` combined image samplers for the fragment stage: the set layout, a
// pipeline layout with draw_color.frag's 16-byte push range, a pool for one set, and that set,
// whose descriptors the caller writes.
inline VkDescriptorSet allocate_combined_sampler_set(VkDevice device, uint32_t count, VkDescriptorSetLayout* set_layout,
                                                     VkPipelineLayout* layout, VkDescriptorPool* pool) {
  const VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, count,
                                             VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = 1;
  set_info.pBindings = &binding;
  EXPECT_EQ(vkCreateDescriptorSetLayout(device, &set_info, nullptr, set_layout), VK_SUCCESS);
  const VkPushConstantRange range{VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  EXPECT_EQ(vkCreatePipelineLayout(device, &layout_info, nullptr, layout), VK_SUCCESS);
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, count};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  EXPECT_EQ(vkCreateDescriptorPool(device, &pool_info, nullptr, pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = *pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateDescriptorSets(device, &alloc, &set), VK_SUCCESS);
  return set;
}

// Set 0 binding 0: o->texture's view and a sampler made from `sampler_info`, one combined image
// sampler for the fragment stage; the pipeline layout has draw_color.frag's 16-byte push range.
inline VkDescriptorSet combined_sampler_set(const VkSamplerCreateInfo& sampler_info, SampledTextureObjects* o) {
  const VkDescriptorSet set = allocate_combined_sampler_set(o->device, 1, &o->set_layout, &o->layout, &o->pool);
  EXPECT_EQ(vkCreateSampler(o->device, &sampler_info, nullptr, &o->sampler), VK_SUCCESS);
  const VkDescriptorImageInfo image{o->sampler, o->texture.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = &image;
  vkUpdateDescriptorSets(o->device, 1, &write, 0, nullptr);
  return set;
}

// The scene's pipeline takes o's layout, and `set` is bound before its draws.
inline void use_sampled_texture(DrawScene* scene, const SampledTextureObjects& o, VkDescriptorSet set) {
  const VkPipelineLayout layout = o.layout;
  scene->edit = [layout](VkGraphicsPipelineCreateInfo& info) { info.layout = layout; };
  scene->before_draws = [layout, set](VkCommandBuffer cb) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  };
}

struct FrameComparison {
  uint32_t over_16 = 0, max_diff = 0, differing = 0;
};

inline FrameComparison compare_frames(uint32_t size, const DrawFrame& gs, const DrawFrame& ref, const char* name) {
  FrameComparison r;
  for (size_t i = 0; i + 4 <= ref.color.size() && i + 4 <= gs.color.size(); i += 4) {
    uint32_t d = 0;
    for (int c = 0; c < 4; ++c) d = std::max<uint32_t>(d, std::abs(int(gs.color[i + c]) - int(ref.color[i + c])));
    r.max_diff = std::max(r.max_diff, d);
    r.over_16 += d > 16;
    r.differing += d != 0;
  }
  std::printf("[vktexture] %s: %u pixels: %u over 16/255, max %u/255, %u differing\n", name, size * size, r.over_16,
              r.max_diff, r.differing);
  return r;
}

inline Texel frame_pixel(const DrawFrame& f, uint32_t size, uint32_t x, uint32_t y) {
  Texel t;
  std::memcpy(t.data(), &f.color[(size_t{y} * size + x) * 4], 4);
  return t;
}

class BothDrivers : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_reference_instance(VK_API_VERSION_1_0, &instance_, &found));
    gsgpu_physical_ = found.gsgpu[0];
    gsgpu_ = std::make_unique<DrawSide>(gsgpu_physical_, device_request_);
    lavapipe_ = std::make_unique<DrawSide>(found.lavapipe, device_request_);
  }
  void TearDown() override {
    gsgpu_.reset();
    lavapipe_.reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  DeviceRequest device_request_;  // what a derived fixture's constructor asks of both devices
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice gsgpu_physical_ = VK_NULL_HANDLE;
  std::unique_ptr<DrawSide> gsgpu_, lavapipe_;
};


}  // namespace gsgpu::vk::test
