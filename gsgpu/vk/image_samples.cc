// Which images may be multisampled (docs/vulkan-driver.md "Multisampling"). The output merger writes
// 1, 2 or 4 samples per pixel into PIPE_STATE's colour and depth formats, and the texture unit reads
// one sample of a texel of such an image (IMAGE_DESC SAMPLES_LOG2, texelFetch on a sampler2DMS), so
// attachments may also be sampled or input attachments (sampledImage*SampleCounts 1 | 2 | 4). Storage
// images are not offered at all: an image that would be stored has one sample.
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VkSampleCountFlags image_sample_counts(const FormatInfo& format, VkImageType type, VkImageTiling tiling,
                                       VkImageUsageFlags usage, VkImageCreateFlags flags) {
  const bool attachment_format = format.color_target || format.depth_target;
  if (type != VK_IMAGE_TYPE_2D || tiling != VK_IMAGE_TILING_OPTIMAL || !attachment_format ||
      (usage & VK_IMAGE_USAGE_STORAGE_BIT) != 0 || (flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) != 0) {
    return VK_SAMPLE_COUNT_1_BIT;
  }
  return kAttachmentSampleCounts;
}

}  // namespace gsgpu::vk
