// Resolves of multisampled colour images (docs/vulkan-driver.md "Multisampling"): vkCmdResolveImage
// and the render pass's resolve attachments (render_pass.cc records one of these at
// vkCmdEndRenderPass). Like the other transfers they run on the host at vkQueueSubmit, in queue
// order, through the memory's CPU mapping (the device has no copy packet): each destination pixel is
// the average of the source pixel's samples, decoded to values (sRGB to linear), averaged in double
// and encoded as a clear colour is (rounded to nearest); integer formats take sample 0 (Vulkan's
// rule). Every region is checked when it runs, overflow-safe, and a bad one is skipped with a log
// line: an unbound image, a source of one sample or a destination of several, formats that differ,
// an aspect other than colour, levels, layers or texels outside either image.
#include <cstdio>
#include <cstring>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

bool skip(const char* why) {
  std::fprintf(stderr, "gsgpu-vk: vkCmdResolveImage: %s; region skipped\n", why);
  return false;
}

// One side of a region, checked: the layers and the rectangle lie inside the level.
bool check_side(const Image* image, const VkImageSubresourceLayers& sub, VkOffset3D offset, VkExtent3D extent) {
  if (image == nullptr || image->memory == nullptr) return skip("image not bound to memory");
  const ImageShape& s = image->layout.shape;
  if (sub.aspectMask != VK_IMAGE_ASPECT_COLOR_BIT || image->format->aspects != VK_IMAGE_ASPECT_COLOR_BIT) {
    return skip("an aspect other than colour");
  }
  if (sub.mipLevel >= s.mip_levels) return skip("mip level outside the image");
  if (sub.layerCount == 0 || sub.baseArrayLayer >= s.array_layers ||
      sub.layerCount > s.array_layers - sub.baseArrayLayer) {
    return skip("layers outside the image");
  }
  const LevelLayout& l = image->layout.levels[sub.mipLevel];
  if (offset.x < 0 || offset.y < 0 || offset.z != 0 || extent.depth != 1 || extent.width == 0 || extent.height == 0 ||
      uint64_t(offset.x) + extent.width > l.width || uint64_t(offset.y) + extent.height > l.height) {
    return skip("texels outside the level (or an empty extent)");
  }
  return true;
}

// One destination texel from the `samples` texels at `from`.
void resolve_texel(const FormatInfo& f, const uint8_t* from, uint32_t samples, uint8_t* to) {
  if (f.kind == NumericKind::kUint || f.kind == NumericKind::kSint) {
    std::memcpy(to, from, f.element_bytes);
    return;
  }
  double sum[4] = {};
  for (uint32_t s = 0; s < samples; ++s) {
    const VkClearColorValue v = decode_color(f, from + size_t{s} * f.element_bytes);
    for (int c = 0; c < 4; ++c) sum[c] += v.float32[c];
  }
  VkClearColorValue mean{};
  for (int c = 0; c < 4; ++c) mean.float32[c] = static_cast<float>(sum[c] / samples);
  encode_clear_color(f, mean, to);
}

void resolve_region(const Image* src, const Image* dst, const VkImageResolve& r) {
  if (!check_side(src, r.srcSubresource, r.srcOffset, r.extent)) return;
  if (!check_side(dst, r.dstSubresource, r.dstOffset, r.extent)) return;
  const uint32_t samples = src->layout.shape.samples;
  if (samples == 1 || dst->layout.shape.samples != 1) {
    skip("a source of one sample or a destination of several");
    return;
  }
  if (src->format != dst->format) {
    skip("source and destination formats differ");
    return;
  }
  if (r.srcSubresource.layerCount != r.dstSubresource.layerCount) {
    skip("source and destination of different layer counts");
    return;
  }
  const FormatInfo& f = *src->format;
  const uint8_t* src_base = src->memory->map + src->memory_offset;
  uint8_t* dst_base = dst->memory->map + dst->memory_offset;
  for (uint32_t k = 0; k < r.srcSubresource.layerCount; ++k) {
    for (uint32_t y = 0; y < r.extent.height; ++y) {
      // texel_offset of a multisampled image is the pixel's sample 0; its samples follow.
      const uint8_t* from =
          src_base + src->layout.texel_offset(r.srcSubresource.mipLevel, r.srcSubresource.baseArrayLayer + k,
                                              uint32_t(r.srcOffset.x), uint32_t(r.srcOffset.y) + y, 0);
      uint8_t* to = dst_base + dst->layout.texel_offset(r.dstSubresource.mipLevel,
                                                        r.dstSubresource.baseArrayLayer + k, uint32_t(r.dstOffset.x),
                                                        uint32_t(r.dstOffset.y) + y, 0);
      for (uint32_t x = 0; x < r.extent.width; ++x) {
        resolve_texel(f, from + size_t{x} * samples * f.element_bytes, samples, to + size_t{x} * f.element_bytes);
      }
    }
  }
}

}  // namespace

void run(const ResolveImageCommand& command) {
  for (const VkImageResolve& r : command.regions) resolve_region(command.src, command.dst, r);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdResolveImage(VkCommandBuffer handle, VkImage src, VkImageLayout, VkImage dst,
                                                   VkImageLayout, uint32_t count, const VkImageResolve* regions) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording) return;
  cb->commands.emplace_back(
      ResolveImageCommand{from_handle<Image>(src), from_handle<Image>(dst), {regions, regions + count}});
}

}  // namespace gsgpu::vk
