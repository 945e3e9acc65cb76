// Which images may be multisampled (docs/vulkan-driver.md "Multisampling"). The output merger writes
// 1, 2 or 4 samples per pixel into PIPE_STATE's colour and depth formats; the texture unit has no
// multisampled read, so an image that would be sampled or stored has one sample (sampledImage*
// SampleCounts stay VK_SAMPLE_COUNT_1_BIT, and vkGetPhysicalDeviceImageFormatProperties answers 1 for
// such a usage).
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VkSampleCountFlags image_sample_counts(const FormatInfo& format, VkImageType type, VkImageTiling tiling,
                                       VkImageUsageFlags usage, VkImageCreateFlags flags) {
  const bool attachment_format = format.color_target || format.depth_target;
  const VkImageUsageFlags read_by_shaders =
      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
  if (type != VK_IMAGE_TYPE_2D || tiling != VK_IMAGE_TILING_OPTIMAL || !attachment_format ||
      (usage & read_by_shaders) != 0 || (flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) != 0) {
    return VK_SAMPLE_COUNT_1_BIT;
  }
  return kAttachmentSampleCounts;
}

}  // namespace gsgpu::vk
