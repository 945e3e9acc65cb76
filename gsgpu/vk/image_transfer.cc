// Image transfers: vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer, vkCmdCopyImage,
// vkCmdClearColorImage, vkCmdClearDepthStencilImage. Like the buffer transfers they run on the host
// at vkQueueSubmit, in queue order, through the memory's CPU mapping (docs/vulkan-driver.md
// "Transfers"). Every region is checked when it runs, overflow-safe: an image or buffer without
// memory, a level, layer or texel range outside the image, an aspect the format lacks, or buffer
// bytes outside the buffer skips that region with a log line; the command's other regions run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/checked_math.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

using gsvirt::checked_add;
using gsvirt::checked_mul;

bool skip(const char* what, const char* why) {
  std::fprintf(stderr, "gsgpu-vk: %s: %s; region skipped\n", what, why);
  return false;
}

uint8_t* image_base(const Image* image) { return image->memory->map + image->memory_offset; }

// A region of one level of an image, checked: `slices` slices (3D: z from offset.z; arrays: layers
// from base_layer), each extent.height rows of extent.width texels from offset.
struct ImageRegion {
  uint32_t level = 0, base_layer = 0, slices = 0;
  uint32_t x = 0, y = 0, z = 0;
  uint32_t width = 0, height = 0;
};

bool check_region(const Image* image, const VkImageSubresourceLayers& sub, VkOffset3D offset, VkExtent3D extent,
                  const char* what, ImageRegion* out) {
  if (image == nullptr || image->memory == nullptr) return skip(what, "image not bound to memory");
  const ImageShape& s = image->layout.shape;
  if (sub.mipLevel >= s.mip_levels) return skip(what, "mip level outside the image");
  const uint32_t layers = s.type == VK_IMAGE_TYPE_3D ? 1 : s.array_layers;
  if (sub.layerCount == 0 || sub.baseArrayLayer >= layers || sub.layerCount > layers - sub.baseArrayLayer) {
    return skip(what, "layers outside the image");
  }
  const LevelLayout& l = image->layout.levels[sub.mipLevel];
  const int64_t starts[3] = {offset.x, offset.y, offset.z};
  const uint64_t sizes[3] = {extent.width, extent.height, extent.depth};
  const uint64_t limits[3] = {l.width, l.height, l.depth};
  for (int axis = 0; axis < 3; ++axis) {
    if (starts[axis] < 0 || sizes[axis] == 0 || static_cast<uint64_t>(starts[axis]) > limits[axis] ||
        sizes[axis] > limits[axis] - static_cast<uint64_t>(starts[axis])) {
      return skip(what, "texels outside the level (or an empty extent)");
    }
  }
  // One of the two is 1: a 3D image has one layer, an array level has depth 1.
  *out = {sub.mipLevel, sub.baseArrayLayer, sub.layerCount * extent.depth, static_cast<uint32_t>(offset.x),
          static_cast<uint32_t>(offset.y), static_cast<uint32_t>(offset.z), extent.width, extent.height};
  return true;
}

// The bytes of row `y` of slice `k` of a checked region.
uint8_t* region_row(const Image* image, const ImageRegion& r, uint32_t k, uint32_t y) {
  const bool volume = image->layout.shape.type == VK_IMAGE_TYPE_3D;
  const uint32_t layer = volume ? 0 : r.base_layer + k;
  const uint32_t z = volume ? r.z + k : 0;
  return image_base(image) + image->layout.texel_offset(r.level, layer, r.x, r.y + y, z);
}

// Moves `count` texels of one aspect between an image row and packed memory. Colour and
// single-aspect formats copy whole texels; one aspect of D24S8 / D32S8 copies its bytes
// (aspect_placement) and keeps the other aspect's bytes of the image; a buffer's bytes past the
// aspect's (D24S8 depth's top byte) are written 0.
void move_texels(const FormatInfo& format, VkImageAspectFlags aspect, uint8_t* image_row, uint8_t* packed,
                 uint32_t count, bool to_image) {
  const AspectPlacement a = aspect_placement(format, aspect);
  if (a.bytes == format.element_bytes) {
    const size_t bytes = size_t{count} * format.element_bytes;
    to_image ? std::memmove(image_row, packed, bytes) : std::memmove(packed, image_row, bytes);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* texel = image_row + size_t{i} * format.element_bytes + a.offset;
    uint8_t* value = packed + size_t{i} * a.buffer_bytes;
    if (to_image) {
      std::memcpy(texel, value, a.bytes);
    } else {
      std::memcpy(value, texel, a.bytes);
      std::memset(value + a.bytes, 0, a.buffer_bytes - a.bytes);
    }
  }
}

// The buffer bytes of a buffer <-> image region, checked against the buffer; nullptr (logged)
// when they are not inside it. *row_stride and *slice_stride are the bytes between rows / slices.
uint8_t* buffer_region(const Buffer* buffer, const VkBufferImageCopy& c, const ImageRegion& r, uint32_t texel,
                       uint64_t* row_stride, uint64_t* slice_stride, const char* what) {
  if (buffer == nullptr || buffer->memory == nullptr) return skip(what, "buffer not bound to memory"), nullptr;
  const uint64_t row_length = c.bufferRowLength ? c.bufferRowLength : r.width;
  const uint64_t image_height = c.bufferImageHeight ? c.bufferImageHeight : r.height;
  if (row_length < r.width || image_height < r.height) {
    return skip(what, "bufferRowLength / bufferImageHeight below the extent"), nullptr;
  }
  auto row = checked_mul<uint64_t>(row_length, texel);
  auto slice = row ? checked_mul<uint64_t>(*row, image_height) : std::nullopt;
  // Bytes from the first texel to one past the last: (slices - 1) slices, (height - 1) rows, a row.
  auto head = slice ? checked_mul<uint64_t>(*slice, r.slices - 1) : std::nullopt;
  auto rows = row ? checked_mul<uint64_t>(*row, r.height - 1) : std::nullopt;
  auto span = head && rows ? checked_add<uint64_t>(*head, *rows) : std::nullopt;
  span = span ? checked_add<uint64_t>(*span, uint64_t{r.width} * texel) : std::nullopt;
  if (!span || !gsvirt::range_within(c.bufferOffset, *span, buffer->size)) {
    return skip(what, "buffer bytes outside the buffer"), nullptr;
  }
  *row_stride = *row;
  *slice_stride = *slice;
  return buffer->memory->map + buffer->memory_offset + c.bufferOffset;
}

// A row of a multisampled image (samples side by side) and packed one-sample texels: Vulkan allows
// buffer copies of one-sample images only, but zink copies its multisampled depth buffer to read
// it (glReadPixels of a multisampled window), as lavapipe lets it. Defined here as reading sample 0
// of each pixel, and writing every sample of it.
void move_samples(const FormatInfo& format, VkImageAspectFlags aspect, uint8_t* image_row, uint8_t* packed,
                  uint32_t count, uint32_t samples, bool to_image, uint32_t packed_texel) {
  const size_t pixel = size_t{samples} * format.element_bytes;
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t s = 0; s < (to_image ? samples : 1); ++s) {
      move_texels(format, aspect, image_row + i * pixel + s * format.element_bytes, packed + size_t{i} * packed_texel,
                  1, to_image);
    }
  }
}

void copy_buffer_image_region(const BufferImageCopyCommand& command, const VkBufferImageCopy& c) {
  const char* what = command.to_image ? "vkCmdCopyBufferToImage" : "vkCmdCopyImageToBuffer";
  ImageRegion r;
  if (!check_region(command.image, c.imageSubresource, c.imageOffset, c.imageExtent, what, &r)) return;
  const uint32_t samples = command.image->layout.shape.samples;
  const FormatInfo& format = *command.image->format;
  const uint32_t texel = copy_texel_bytes(format, c.imageSubresource.aspectMask);
  if (texel == 0) {
    skip(what, "not one aspect of the image's format");
    return;
  }
  uint64_t row_stride = 0, slice_stride = 0;
  uint8_t* packed = buffer_region(command.buffer, c, r, texel, &row_stride, &slice_stride, what);
  if (packed == nullptr) return;
  for (uint32_t k = 0; k < r.slices; ++k) {
    for (uint32_t y = 0; y < r.height; ++y) {
      uint8_t* row = region_row(command.image, r, k, y);
      uint8_t* bytes = packed + k * slice_stride + y * row_stride;
      if (samples == 1) {
        move_texels(format, c.imageSubresource.aspectMask, row, bytes, r.width, command.to_image);
      } else {
        move_samples(format, c.imageSubresource.aspectMask, row, bytes, r.width, samples, command.to_image, texel);
      }
    }
  }
}

// VK_KHR_maintenance1: between a 3D image and a 2D (array) one, extent.depth counts the 3D side's
// slices and the other side's layerCount its layers (checked equal below); the 2D side's region is
// one slice deep.
void copy_extents(const ImageCopyCommand& command, const VkImageCopy& c, VkExtent3D* src, VkExtent3D* dst) {
  *src = *dst = c.extent;
  const bool src_volume = command.src != nullptr && command.src->layout.shape.type == VK_IMAGE_TYPE_3D;
  const bool dst_volume = command.dst != nullptr && command.dst->layout.shape.type == VK_IMAGE_TYPE_3D;
  if (src_volume && !dst_volume) dst->depth = 1;
  if (dst_volume && !src_volume) src->depth = 1;
}

void copy_image_region(const ImageCopyCommand& command, const VkImageCopy& c) {
  const char* what = "vkCmdCopyImage";
  ImageRegion src, dst;
  VkExtent3D src_extent, dst_extent;
  copy_extents(command, c, &src_extent, &dst_extent);
  if (!check_region(command.src, c.srcSubresource, c.srcOffset, src_extent, what, &src)) return;
  if (!check_region(command.dst, c.dstSubresource, c.dstOffset, dst_extent, what, &dst)) return;
  const FormatInfo& sf = *command.src->format;
  const FormatInfo& df = *command.dst->format;
  if (sf.element_bytes != df.element_bytes || sf.aspects != df.aspects) {
    skip(what, "formats of different texel sizes or aspects");
    return;
  }
  const VkImageAspectFlags aspect = c.srcSubresource.aspectMask;
  if (aspect != c.dstSubresource.aspectMask || aspect == 0 || (aspect & ~sf.aspects) != 0) {
    skip(what, "aspects that differ or that the format lacks");
    return;
  }
  if (src.slices != dst.slices) {
    skip(what, "source and destination of different layer counts");
    return;
  }
  // Multisampled images copy whole pixels, every sample (equal counts: Vulkan's rule).
  const uint32_t samples = command.src->layout.shape.samples;
  if (samples != command.dst->layout.shape.samples) {
    skip(what, "source and destination of different sample counts");
    return;
  }
  const bool whole = aspect == sf.aspects;
  std::vector<uint8_t> row(size_t{src.width} * sf.element_bytes * samples);
  for (uint32_t k = 0; k < src.slices; ++k) {
    for (uint32_t y = 0; y < src.height; ++y) {
      uint8_t* from = region_row(command.src, src, k, y);
      uint8_t* to = region_row(command.dst, dst, k, y);
      if (whole) {
        std::memmove(to, from, row.size());  // overlap is invalid usage; memmove keeps it defined
      } else {  // one aspect of D24S8 / D32S8: through packed texels of that aspect
        move_texels(sf, aspect, from, row.data(), src.width * samples, false);
        move_texels(df, aspect, to, row.data(), src.width * samples, true);
      }
    }
  }
}

}  // namespace

void run(const BufferImageCopyCommand& command) {
  for (const VkBufferImageCopy& c : command.regions) copy_buffer_image_region(command, c);
}

void run(const ImageCopyCommand& command) {
  for (const VkImageCopy& c : command.regions) copy_image_region(command, c);
}

namespace {

// Recording into a command buffer that is not recording drops the command (invalid usage).
void record(VkCommandBuffer handle, Command&& command) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state == CommandBuffer::State::kRecording) cb->commands.emplace_back(std::move(command));
}

}  // namespace

// The image layouts an application names are not needed: every layout is the same linear one.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdCopyBufferToImage(VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout,
                                                        uint32_t count, const VkBufferImageCopy* regions) {
  record(cb, BufferImageCopyCommand{from_handle<Buffer>(src), from_handle<Image>(dst), true,
                                    {regions, regions + count}});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdCopyImageToBuffer(VkCommandBuffer cb, VkImage src, VkImageLayout, VkBuffer dst,
                                                        uint32_t count, const VkBufferImageCopy* regions) {
  record(cb, BufferImageCopyCommand{from_handle<Buffer>(dst), from_handle<Image>(src), false,
                                    {regions, regions + count}});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdCopyImage(VkCommandBuffer cb, VkImage src, VkImageLayout, VkImage dst,
                                                VkImageLayout, uint32_t count, const VkImageCopy* regions) {
  record(cb, ImageCopyCommand{from_handle<Image>(src), from_handle<Image>(dst), {regions, regions + count}});
}

}  // namespace gsgpu::vk
