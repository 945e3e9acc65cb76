// vkCmdClearColorImage and vkCmdClearDepthStencilImage, run on the host at vkQueueSubmit like the
// other transfers (image_transfer.cc). The clear value is encoded once as a stored texel
// (encode_clear_color; depth as the format stores it) and written over every texel of each range;
// a range with levels or layers outside the image, or an aspect the format lacks, is skipped with a
// log line and the command's other ranges run.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

struct Levels {
  uint32_t base_level, level_count, base_layer, layer_count;
};

bool check_range(const Image* image, const VkImageSubresourceRange& r, const char* what, Levels* out) {
  auto skip = [what](const char* why) {
    std::fprintf(stderr, "gsgpu-vk: %s: %s; range skipped\n", what, why);
    return false;
  };
  if (image == nullptr || image->memory == nullptr) return skip("image not bound to memory");
  const ImageShape& s = image->layout.shape;
  const uint32_t layers = s.type == VK_IMAGE_TYPE_3D ? 1 : s.array_layers;
  if (r.aspectMask == 0 || (r.aspectMask & ~image->format->aspects) != 0) return skip("aspects the format lacks");
  if (r.baseMipLevel >= s.mip_levels || r.baseArrayLayer >= layers) return skip("levels or layers outside the image");
  out->base_level = r.baseMipLevel;
  out->level_count = r.levelCount == VK_REMAINING_MIP_LEVELS ? s.mip_levels - r.baseMipLevel : r.levelCount;
  out->base_layer = r.baseArrayLayer;
  out->layer_count = r.layerCount == VK_REMAINING_ARRAY_LAYERS ? layers - r.baseArrayLayer : r.layerCount;
  if (out->level_count == 0 || out->level_count > s.mip_levels - r.baseMipLevel || out->layer_count == 0 ||
      out->layer_count > layers - r.baseArrayLayer) {
    return skip("levels or layers outside the image");
  }
  return true;
}

// Writes `texel` (element_bytes) over every texel of the range; with a byte mask, only the bytes
// of each texel whose mask byte is 0xff (one aspect of D24S8 / D32S8).
void fill_range(const Image& image, const Levels& range, const uint8_t* texel, const uint8_t* mask) {
  const uint32_t e = image.format->element_bytes;
  const bool volume = image.layout.shape.type == VK_IMAGE_TYPE_3D;
  uint8_t* base = image.memory->map + image.memory_offset;
  for (uint32_t n = range.base_level; n < range.base_level + range.level_count; ++n) {
    const LevelLayout& level = image.layout.levels[n];
    // A multisampled image's row holds every sample of each pixel (image_layout.h): all are cleared.
    const size_t columns = size_t{level.width} * image.layout.shape.samples;
    std::vector<uint8_t> row(columns * e);
    for (size_t x = 0; x < columns; ++x) std::memcpy(row.data() + x * e, texel, e);
    const uint32_t slices = volume ? level.depth : range.layer_count;
    for (uint32_t k = 0; k < slices; ++k) {
      for (uint32_t y = 0; y < level.height; ++y) {
        uint8_t* dst = base + image.layout.texel_offset(n, volume ? 0 : range.base_layer + k, 0, y, volume ? k : 0);
        if (mask == nullptr) {
          std::memcpy(dst, row.data(), row.size());
          continue;
        }
        for (size_t i = 0; i < row.size(); ++i) dst[i] = (dst[i] & ~mask[i % e]) | (row[i] & mask[i % e]);
      }
    }
  }
}


void clear(const ClearImageCommand& command, const VkImageSubresourceRange& r) {
  const char* what = command.depth_stencil ? "vkCmdClearDepthStencilImage" : "vkCmdClearColorImage";
  Levels range;
  if (!check_range(command.image, r, what, &range)) return;
  const FormatInfo& format = *command.image->format;
  const bool color = (format.aspects & VK_IMAGE_ASPECT_COLOR_BIT) != 0;
  if (color == command.depth_stencil) {
    std::fprintf(stderr, "gsgpu-vk: %s: an image of the other kind (colour / depth); range skipped\n", what);
    return;
  }
  uint8_t texel[16];
  if (color) {
    encode_clear_color(format, command.color, texel);
    fill_range(*command.image, range, texel, nullptr);
    return;
  }
  uint8_t mask[kMaxDepthStencilBytes];
  encode_depth_stencil(format, command.depth, r.aspectMask, texel, mask);
  const bool whole = std::all_of(mask, mask + format.element_bytes, [](uint8_t m) { return m == 0xff; });
  fill_range(*command.image, range, texel, whole ? nullptr : mask);
}

void record(VkCommandBuffer handle, ClearImageCommand&& command) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state == CommandBuffer::State::kRecording) cb->commands.emplace_back(std::move(command));
}

}  // namespace

// The stored texel (objects.h) of a depth / stencil clear and the bytes it covers for `aspects`.
void encode_depth_stencil(const FormatInfo& format, const VkClearDepthStencilValue& value,
                          VkImageAspectFlags aspects, uint8_t texel[kMaxDepthStencilBytes],
                          uint8_t mask[kMaxDepthStencilBytes]) {
  const float depth = std::isnan(value.depth) ? 0.0f : std::clamp(value.depth, 0.0f, 1.0f);
  std::memset(texel, 0, kMaxDepthStencilBytes);
  std::memset(mask, 0, kMaxDepthStencilBytes);
  if (format.format == VK_FORMAT_D32_SFLOAT || format.format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
    const uint32_t bits = std::bit_cast<uint32_t>(depth);
    std::memcpy(texel, &bits, 4);  // D32S8's stencil byte follows (aspect_placement)
  } else if (format.format == VK_FORMAT_D16_UNORM) {
    const auto bits = static_cast<uint16_t>(std::lround(depth * 65535.0));
    std::memcpy(texel, &bits, 2);
  } else {  // D24_UNORM_S8_UINT, X8_D24_UNORM_PACK32: depth in bits 0..23
    const auto bits = static_cast<uint32_t>(std::lround(depth * 16777215.0));
    std::memcpy(texel, &bits, 3);
  }
  for (const VkImageAspectFlags aspect : {VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_ASPECT_STENCIL_BIT}) {
    if ((aspects & aspect) == 0) continue;
    const AspectPlacement a = aspect_placement(format, aspect);
    if (a.bytes == 0) continue;  // an aspect the format lacks
    std::memset(mask + a.offset, 0xff, a.bytes);
    if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT) texel[a.offset] = static_cast<uint8_t>(value.stencil);
  }
}

void run(const ClearImageCommand& command) {
  for (const VkImageSubresourceRange& r : command.ranges) clear(command, r);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdClearColorImage(VkCommandBuffer cb, VkImage image, VkImageLayout,
                                                      const VkClearColorValue* color, uint32_t count,
                                                      const VkImageSubresourceRange* ranges) {
  record(cb, ClearImageCommand{from_handle<Image>(image), false, *color, {}, {ranges, ranges + count}});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdClearDepthStencilImage(VkCommandBuffer cb, VkImage image, VkImageLayout,
                                                             const VkClearDepthStencilValue* value, uint32_t count,
                                                             const VkImageSubresourceRange* ranges) {
  record(cb, ClearImageCommand{from_handle<Image>(image), true, {}, *value, {ranges, ranges + count}});
}

}  // namespace gsgpu::vk
