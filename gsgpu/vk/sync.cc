// Synchronisation: vkCmdPipelineBarrier (semaphores: timeline.cc; vkQueueSubmit in queue_submit.cc
// signals and waits them). The queue runs its commands in order on one timeline, so a
// barrier has no work to do; it is validated when recorded and refused (not recorded, a log line)
// when it names a buffer or image without memory, or a range outside its buffer or image. An
// image layout transition moves no texel: every layout is the same linear one (image_layout.h).
// docs/vulkan-driver.md "Synchronisation" says why no work is needed.
#include <algorithm>
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// Whether a buffer barrier names a bound buffer and a range inside it (overflow-safe).
bool buffer_barrier_valid(const VkBufferMemoryBarrier& barrier) {
  const Buffer* buffer = from_handle<Buffer>(barrier.buffer);
  if (buffer == nullptr || buffer->memory == nullptr) {
    std::fprintf(stderr, "gsgpu-vk: vkCmdPipelineBarrier: buffer not bound to memory; barrier refused\n");
    return false;
  }
  const bool whole = barrier.size == VK_WHOLE_SIZE;
  // offset < size is checked first, so size - offset cannot wrap.
  const bool outside = barrier.offset >= buffer->size ||
                       (!whole && (barrier.size == 0 || barrier.size > buffer->size - barrier.offset));
  if (outside) {
    std::fprintf(stderr,
                 "gsgpu-vk: vkCmdPipelineBarrier: range [%llu, +%llu) outside a buffer of %llu bytes; "
                 "barrier refused\n",
                 static_cast<unsigned long long>(barrier.offset), static_cast<unsigned long long>(barrier.size),
                 static_cast<unsigned long long>(buffer->size));
    return false;
  }
  return true;
}

// Whether an image barrier names a bound image and levels and layers inside it.
bool image_barrier_valid(const VkImageMemoryBarrier& barrier) {
  const Image* image = from_handle<Image>(barrier.image);
  if (image == nullptr || image->memory == nullptr) {
    std::fprintf(stderr, "gsgpu-vk: vkCmdPipelineBarrier: image not bound to memory; barrier refused\n");
    return false;
  }
  const VkImageSubresourceRange& r = barrier.subresourceRange;
  const ImageShape& s = image->layout.shape;
  const uint32_t layers = s.type == VK_IMAGE_TYPE_3D ? 1 : s.array_layers;
  const uint32_t levels = r.levelCount == VK_REMAINING_MIP_LEVELS ? s.mip_levels - std::min(r.baseMipLevel, s.mip_levels)
                                                                  : r.levelCount;
  const uint32_t count = r.layerCount == VK_REMAINING_ARRAY_LAYERS ? layers - std::min(r.baseArrayLayer, layers)
                                                                   : r.layerCount;
  if (r.aspectMask == 0 || (r.aspectMask & ~image->format->aspects) != 0 || r.baseMipLevel >= s.mip_levels ||
      levels == 0 || levels > s.mip_levels - r.baseMipLevel || r.baseArrayLayer >= layers || count == 0 ||
      count > layers - r.baseArrayLayer) {
    std::fprintf(stderr,
                 "gsgpu-vk: vkCmdPipelineBarrier: levels, layers or aspects outside the image; barrier refused\n");
    return false;
  }
  return true;
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdPipelineBarrier(VkCommandBuffer handle, VkPipelineStageFlags src_stages,
                                                      VkPipelineStageFlags dst_stages, VkDependencyFlags,
                                                      uint32_t, const VkMemoryBarrier*, uint32_t buffer_count,
                                                      const VkBufferMemoryBarrier* buffer_barriers,
                                                      uint32_t image_count,
                                                      const VkImageMemoryBarrier* image_barriers) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording) return;
  for (uint32_t i = 0; i < buffer_count; ++i) {
    if (!buffer_barrier_valid(buffer_barriers[i])) return;
  }
  for (uint32_t i = 0; i < image_count; ++i) {
    if (!image_barrier_valid(image_barriers[i])) return;
  }
  cb->commands.emplace_back(BarrierCommand{src_stages, dst_stages, buffer_count, image_count});
}

}  // namespace gsgpu::vk
