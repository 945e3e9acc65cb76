// The fixture of the image tests: the transfer fixture's command buffer and buffers, plus images
// bound to memory of their own (mapped, so a test can check texels where
// vkGetImageSubresourceLayout says they are), and a count of the driver's log lines.
#pragma once

#include <string>
#include <vector>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {

class VkImageTest : public VkTransfer {
 protected:
  void TearDown() override {
    for (VkImageView v : views_) vkDestroyImageView(device_, v, nullptr);
    for (VkImage i : images_) vkDestroyImage(device_, i, nullptr);
    VkTransfer::TearDown();
  }

  static VkImageCreateInfo image_info(VkFormat format, VkImageType type, VkExtent3D extent, uint32_t layers,
                                      uint32_t mips) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = type;
    info.format = format;
    info.extent = extent;
    info.mipLevels = mips;
    info.arrayLayers = layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    return info;
  }

  // An image bound at offset 0 of memory of its own; *bytes (if given) is that memory mapped.
  VkImage make_image(const VkImageCreateInfo& info, uint8_t** bytes = nullptr) {
    VkImage image = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &image), VK_SUCCESS);
    if (image == VK_NULL_HANDLE) return image;
    images_.push_back(image);
    VkMemoryRequirements reqs;
    vkGetImageMemoryRequirements(device_, image, &reqs);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = reqs.size;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    memories_.push_back(memory);
    EXPECT_EQ(vkBindImageMemory(device_, image, memory, 0), VK_SUCCESS);
    if (bytes != nullptr) {
      void* map = nullptr;
      EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
      *bytes = static_cast<uint8_t*>(map);
    }
    return image;
  }

  static VkBufferImageCopy region(VkImageAspectFlags aspect, uint32_t level, uint32_t layer, uint32_t layers,
                                  VkOffset3D offset, VkExtent3D extent, VkDeviceSize buffer_offset = 0) {
    VkBufferImageCopy r{};
    r.bufferOffset = buffer_offset;
    r.imageSubresource = {aspect, level, layer, layers};
    r.imageOffset = offset;
    r.imageExtent = extent;
    return r;
  }

  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  std::vector<VkImage> images_;
  std::vector<VkImageView> views_;
};

}  // namespace gsgpu::vk::test
