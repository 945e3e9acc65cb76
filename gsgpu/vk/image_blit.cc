// vkCmdBlitImage on the host, in queue order like the other transfers (image_transfer.cc). Each
// destination texel centre maps back into the source region (offsets may be reversed: a mirror),
// then NEAREST takes the texel it falls in, LINEAR interpolates the 2 (1D), 4 (2D) or 8 (3D) nearest
// with clamp-to-edge; the values go through decode_color / encode_clear_color, so formats convert
// (sRGB decoded to linear and encoded again). NEAREST between images of the same format copies the
// texel bytes unchanged (exact, also for depth / stencil: one aspect's bytes alone). A region breaking the rules (levels,
// layers or offsets outside an image, different layer counts, depth / stencil of different formats or
// with LINEAR, integer with LINEAR or into a float or other-signed format) is skipped with a log line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

bool skip(const char* why) {
  std::fprintf(stderr, "gsgpu-vk: vkCmdBlitImage: %s; region skipped\n", why);
  return false;
}

// One side of a blit, checked: its level, first layer, and per axis the two offsets.
struct Side {
  const Image* image = nullptr;
  uint32_t level = 0, base_layer = 0, layers = 0;
  int64_t from[3] = {}, to[3] = {};
  uint32_t size[3] = {};  // the level's extent
};

bool check_side(const Image* image, const VkImageSubresourceLayers& sub, const VkOffset3D offsets[2], Side* out) {
  if (image == nullptr || image->memory == nullptr) return skip("image not bound to memory");
  const ImageShape& s = image->layout.shape;
  if (s.samples != 1) return skip("a multisampled image (blits take one-sample images; resolve it first)");
  const uint32_t layers = s.type == VK_IMAGE_TYPE_3D ? 1 : s.array_layers;
  if (sub.aspectMask == 0 || (sub.aspectMask & ~image->format->aspects) != 0) return skip("aspects the format lacks");
  if (sub.mipLevel >= s.mip_levels) return skip("mip level outside the image");
  if (sub.layerCount == 0 || sub.baseArrayLayer >= layers || sub.layerCount > layers - sub.baseArrayLayer) {
    return skip("layers outside the image");
  }
  const LevelLayout& l = image->layout.levels[sub.mipLevel];
  *out = {image, sub.mipLevel, sub.baseArrayLayer, sub.layerCount, {}, {}, {l.width, l.height, l.depth}};
  const int32_t ends[2][3] = {{offsets[0].x, offsets[0].y, offsets[0].z}, {offsets[1].x, offsets[1].y, offsets[1].z}};
  for (int a = 0; a < 3; ++a) {
    for (int e = 0; e < 2; ++e) {
      if (ends[e][a] < 0 || static_cast<uint32_t>(ends[e][a]) > out->size[a]) return skip("offsets outside the level");
    }
    out->from[a] = ends[0][a];
    out->to[a] = ends[1][a];
  }
  return true;
}

uint8_t* texel_at(const Side& s, uint32_t layer, const int64_t at[3]) {
  const bool volume = s.image->layout.shape.type == VK_IMAGE_TYPE_3D;
  const uint64_t offset = s.image->layout.texel_offset(s.level, volume ? 0 : s.base_layer + layer,
                                                       static_cast<uint32_t>(at[0]), static_cast<uint32_t>(at[1]),
                                                       volume ? static_cast<uint32_t>(at[2]) : 0);
  return s.image->memory->map + s.image->memory_offset + offset;
}

// The source coordinate (in texels, continuous) of destination texel `i` on axis `a`.
double source_coordinate(const Side& src, const Side& dst, int a, int64_t i) {
  const double t = (static_cast<double>(i) + 0.5 - static_cast<double>(dst.from[a])) /
                   static_cast<double>(dst.to[a] - dst.from[a]);
  return static_cast<double>(src.from[a]) + t * static_cast<double>(src.to[a] - src.from[a]);
}

int64_t clamp_index(int64_t i, uint32_t size) { return std::clamp<int64_t>(i, 0, int64_t{size} - 1); }

// The filtered source value at continuous coordinate u (LINEAR: the 2^axes neighbours weighted).
VkClearColorValue sample(const Side& src, uint32_t layer, const double u[3], bool linear, int axes) {
  if (!linear) {
    int64_t at[3];
    for (int a = 0; a < 3; ++a) at[a] = clamp_index(static_cast<int64_t>(std::floor(u[a])), src.size[a]);
    return decode_color(*src.image->format, texel_at(src, layer, at));
  }
  int64_t base[3];
  double frac[3];
  for (int a = 0; a < 3; ++a) {
    const double v = a < axes ? u[a] - 0.5 : std::floor(u[a]);
    base[a] = static_cast<int64_t>(std::floor(v));
    frac[a] = a < axes ? v - std::floor(v) : 0.0;
  }
  double sum[4] = {0, 0, 0, 0};
  for (int corner = 0; corner < (1 << axes); ++corner) {
    double weight = 1.0;
    int64_t at[3];
    for (int a = 0; a < 3; ++a) {
      const int step = a < axes ? (corner >> a) & 1 : 0;
      weight *= step ? frac[a] : 1.0 - frac[a];
      at[a] = clamp_index(base[a] + step, src.size[a]);
    }
    const VkClearColorValue v = decode_color(*src.image->format, texel_at(src, layer, at));
    for (int c = 0; c < 4; ++c) sum[c] += weight * v.float32[c];
  }
  VkClearColorValue out{};
  for (int c = 0; c < 4; ++c) out.float32[c] = static_cast<float>(sum[c]);
  return out;
}

const char* format_rule_broken(const FormatInfo& s, const FormatInfo& d, VkFilter filter) {
  const bool depth = !(s.aspects & VK_IMAGE_ASPECT_COLOR_BIT) || !(d.aspects & VK_IMAGE_ASPECT_COLOR_BIT);
  if (depth && (s.format != d.format || filter != VK_FILTER_NEAREST)) {
    return "depth / stencil blits need one format and NEAREST";
  }
  const auto integer = [](const FormatInfo& f) { return f.kind == NumericKind::kUint || f.kind == NumericKind::kSint; };
  if (integer(s) != integer(d) || (integer(s) && s.kind != d.kind)) return "integer and other formats mixed";
  if (integer(s) && filter != VK_FILTER_NEAREST) return "LINEAR on an integer format";
  if (filter != VK_FILTER_NEAREST && filter != VK_FILTER_LINEAR) return "a filter other than NEAREST / LINEAR";
  return nullptr;
}

void blit_region(const Image* src_image, const Image* dst_image, const VkImageBlit& r, VkFilter filter) {
  Side src, dst;
  if (!check_side(src_image, r.srcSubresource, r.srcOffsets, &src)) return;
  if (!check_side(dst_image, r.dstSubresource, r.dstOffsets, &dst)) return;
  if (src.layers != dst.layers || r.srcSubresource.aspectMask != r.dstSubresource.aspectMask) {
    skip("source and destination of different layer counts or aspects");
    return;
  }
  const FormatInfo& sf = *src_image->format;
  const FormatInfo& df = *dst_image->format;
  if (const char* why = format_rule_broken(sf, df, filter)) {
    skip(why);
    return;
  }
  const bool raw = &sf == &df && filter == VK_FILTER_NEAREST;
  // One aspect of D24S8 / D32S8 moves only its bytes; the other aspect's stay as they were.
  const AspectPlacement moved = r.srcSubresource.aspectMask == sf.aspects
                                    ? AspectPlacement{0, sf.element_bytes, sf.element_bytes}
                                    : aspect_placement(sf, r.srcSubresource.aspectMask);
  const VkImageType type = src_image->layout.shape.type;
  const int axes = type == VK_IMAGE_TYPE_3D ? 3 : type == VK_IMAGE_TYPE_2D ? 2 : 1;
  int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::min(dst.from[a], dst.to[a]);
    hi[a] = std::max(dst.from[a], dst.to[a]);
  }
  uint8_t encoded[16];
  for (uint32_t layer = 0; layer < dst.layers; ++layer) {
    int64_t at[3];
    for (at[2] = lo[2]; at[2] < hi[2]; ++at[2]) {
      for (at[1] = lo[1]; at[1] < hi[1]; ++at[1]) {
        for (at[0] = lo[0]; at[0] < hi[0]; ++at[0]) {
          double u[3];
          for (int a = 0; a < 3; ++a) u[a] = source_coordinate(src, dst, a, at[a]);
          uint8_t* out = texel_at(dst, layer, at);
          if (raw) {
            int64_t from[3];
            for (int a = 0; a < 3; ++a) from[a] = clamp_index(static_cast<int64_t>(std::floor(u[a])), src.size[a]);
            std::memmove(out + moved.offset, texel_at(src, layer, from) + moved.offset, moved.bytes);
            continue;
          }
          encode_clear_color(df, sample(src, layer, u, filter == VK_FILTER_LINEAR, axes), encoded);
          std::memcpy(out, encoded, df.element_bytes);
        }
      }
    }
  }
}

}  // namespace

void run(const BlitImageCommand& command) {
  for (const VkImageBlit& r : command.regions) blit_region(command.src, command.dst, r, command.filter);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBlitImage(VkCommandBuffer handle, VkImage src, VkImageLayout, VkImage dst,
                                                VkImageLayout, uint32_t count, const VkImageBlit* regions,
                                                VkFilter filter) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording) return;
  cb->commands.emplace_back(
      BlitImageCommand{from_handle<Image>(src), from_handle<Image>(dst), {regions, regions + count}, filter});
}

}  // namespace gsgpu::vk
