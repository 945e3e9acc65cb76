// The image layout and the IMAGE_DESC of a view (image_layout.h). Every size here is bounded by the
// limits checked first (4096 x 4096 x 16 bytes x 2048 layers < 2^41), so the products below cannot
// overflow 64 bits.
#include "gsgpu/vk/image_layout.h"

#include <algorithm>
#include <bit>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

namespace desc = hw::blk::IMAGE_DESC;

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

std::nullopt_t refuse(std::string* why, const char* reason) {
  if (why != nullptr) *why = reason;
  return std::nullopt;
}

const char* check_shape(const ImageShape& s) {
  if (s.width == 0 || s.height == 0 || s.depth == 0 || s.array_layers == 0 || s.mip_levels == 0) {
    return "an extent, layer count or mip count of 0";
  }
  if (s.element_bytes == 0 || s.element_bytes > 16) return "an element size outside 1 .. 16 bytes";
  if (s.samples != 1 && (s.samples != 2 && s.samples != 4)) return "a sample count other than 1, 2 or 4";
  if (s.samples != 1 && (s.type != VK_IMAGE_TYPE_2D || s.mip_levels != 1)) {
    return "a multisampled image that is not 2D with one level";
  }
  switch (s.type) {
    case VK_IMAGE_TYPE_1D:
      if (s.height != 1 || s.depth != 1) return "a 1D image with a height or depth other than 1";
      if (s.width > kMaxImageDimension) return "width above maxImageDimension1D";
      break;
    case VK_IMAGE_TYPE_2D:
      if (s.depth != 1) return "a 2D image with a depth other than 1";
      if (s.width > kMaxImageDimension || s.height > kMaxImageDimension) return "extent above maxImageDimension2D";
      break;
    case VK_IMAGE_TYPE_3D:
      if (s.array_layers != 1) return "a 3D image with more than one layer";
      if (std::max({s.width, s.height, s.depth}) > kMaxImageDimension3D) return "extent above maxImageDimension3D";
      break;
    default:
      return "an unknown image type";
  }
  if (s.array_layers > kMaxArrayLayers) return "more layers than maxImageArrayLayers";
  if (s.mip_levels > max_mip_levels(s.width, s.height, s.depth)) return "more mip levels than the extent has";
  return nullptr;
}

// IMAGE_DESC FORMAT.TYPE of a view type, or 0 for one the texture unit cannot read.
uint32_t desc_type(VkImageViewType type) {
  switch (type) {
    case VK_IMAGE_VIEW_TYPE_1D: return desc::FORMAT_TYPE_IMAGE_1D;
    case VK_IMAGE_VIEW_TYPE_2D: return desc::FORMAT_TYPE_IMAGE_2D;
    case VK_IMAGE_VIEW_TYPE_3D: return desc::FORMAT_TYPE_IMAGE_3D;
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY: return desc::FORMAT_TYPE_IMAGE_1D_ARRAY;
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY: return desc::FORMAT_TYPE_IMAGE_2D_ARRAY;
    case VK_IMAGE_VIEW_TYPE_CUBE: return desc::FORMAT_TYPE_IMAGE_CUBE;
    default: return 0;  // cube arrays: imageCubeArray is not offered
  }
}

// SWIZZLE codes (0 r, 1 g, 2 b, 3 a, 4 zero, 5 one) of a component mapping; false for an unknown
// VkComponentSwizzle. *word stays 0 (ENABLE clear) for the identity.
bool swizzle_word(const VkComponentMapping& m, uint32_t* word) {
  const VkComponentSwizzle swizzles[4] = {m.r, m.g, m.b, m.a};
  uint32_t codes = 0;
  bool identity = true;
  for (uint32_t c = 0; c < 4; ++c) {
    uint32_t code = 0;
    switch (swizzles[c]) {
      case VK_COMPONENT_SWIZZLE_IDENTITY: code = c; break;
      case VK_COMPONENT_SWIZZLE_ZERO: code = 4; break;
      case VK_COMPONENT_SWIZZLE_ONE: code = 5; break;
      case VK_COMPONENT_SWIZZLE_R: code = 0; break;
      case VK_COMPONENT_SWIZZLE_G: code = 1; break;
      case VK_COMPONENT_SWIZZLE_B: code = 2; break;
      case VK_COMPONENT_SWIZZLE_A: code = 3; break;
      default: return false;
    }
    identity = identity && code == c;
    codes |= code << (3 * c);
  }
  *word = identity ? 0 : codes | desc::SWIZZLE_ENABLE_MASK;
  return true;
}

}  // namespace

uint32_t ImageLayout::slices(uint32_t level) const {
  return shape.type == VK_IMAGE_TYPE_3D ? levels[level].depth : shape.array_layers;
}

uint64_t ImageLayout::texel_offset(uint32_t level, uint32_t layer, uint32_t x, uint32_t y, uint32_t z) const {
  const LevelLayout& l = levels[level];
  return l.offset + (uint64_t{layer} + z) * l.slice_pitch + uint64_t{y} * l.row_pitch +
         uint64_t{x} * shape.element_bytes * shape.samples;
}

uint32_t max_mip_levels(uint32_t width, uint32_t height, uint32_t depth) {
  const uint32_t largest = std::max({width, height, depth, 1u});
  return static_cast<uint32_t>(std::bit_width(largest));  // floor(log2) + 1
}

std::optional<ImageLayout> compute_image_layout(const ImageShape& shape, std::string* why) {
  if (const char* reason = check_shape(shape)) return refuse(why, reason);
  ImageLayout layout;
  layout.shape = shape;
  uint64_t offset = 0;
  for (uint32_t n = 0; n < shape.mip_levels; ++n) {
    LevelLayout& l = layout.levels[n];
    l.width = std::max(1u, shape.width >> n);
    l.height = std::max(1u, shape.height >> n);
    l.depth = std::max(1u, shape.depth >> n);
    l.offset = offset;
    l.row_pitch = align_up(uint64_t{l.width} * shape.element_bytes * shape.samples, kRowAlign);
    l.slice_pitch = l.row_pitch * l.height;
    offset = align_up(offset + layout.slices(n) * l.slice_pitch, kMipLevelAlign);
  }
  layout.size = offset;
  return layout;
}

std::optional<std::array<uint32_t, 16>> image_desc_words(const ImageLayout& layout, uint64_t va,
                                                         const FormatInfo& format, const ViewShape& view,
                                                         std::string* why) {
  const ImageShape& shape = layout.shape;
  const uint32_t type = desc_type(view.type);
  if (type == 0) return refuse(why, "cube-array views: imageCubeArray is not offered");
  if (view.level_count == 0 || view.base_level >= shape.mip_levels ||
      view.level_count > shape.mip_levels - view.base_level) {
    return refuse(why, "levels outside the image");
  }
  const uint32_t layers = shape.type == VK_IMAGE_TYPE_3D ? 1 : shape.array_layers;
  if (view.layer_count == 0 || view.base_layer >= layers || view.layer_count > layers - view.base_layer) {
    return refuse(why, "layers outside the image");
  }
  // Several levels of the first layers of a larger array (zink's 2D-array views of a cube's six faces
  // in a 36-layer image): PACKED_LAYERS gives the texture unit the image's layer count, after all of
  // which PACKED puts the next level. A sub-range from a later layer over several levels has none.
  const bool first_layers_only = view.level_count > 1 && view.layer_count != layers;
  if (first_layers_only && view.base_layer != 0) {
    return refuse(why, "several levels of layers from a later layer than 0: PACKED puts level n + 1 after all layers of level n");
  }
  uint32_t swizzle = 0;
  if (!swizzle_word(view.components, &swizzle)) return refuse(why, "an unknown component swizzle");
  const LevelLayout& base = layout.levels[view.base_level];
  const bool arrayed = view.type == VK_IMAGE_VIEW_TYPE_1D_ARRAY || view.type == VK_IMAGE_VIEW_TYPE_2D_ARRAY ||
                       view.type == VK_IMAGE_VIEW_TYPE_CUBE;  // a cube's six faces are layers
  const bool several_slices = arrayed ? view.layer_count > 1 : view.type == VK_IMAGE_VIEW_TYPE_3D && base.depth > 1;
  const uint64_t address = va + base.offset + uint64_t{view.base_layer} * base.slice_pitch;
  std::array<uint32_t, 16> w{};
  w[desc::BASE_VA_LO] = static_cast<uint32_t>(address);
  w[desc::BASE_VA_HI] = static_cast<uint32_t>(address >> 32);
  uint32_t format_word = (format.channel_order << desc::FORMAT_CHANNEL_ORDER_SHIFT) |
                         (format.data_type << desc::FORMAT_DATA_TYPE_SHIFT) | (type << desc::FORMAT_TYPE_SHIFT) |
                         (view.level_count << desc::FORMAT_MIP_LEVELS_SHIFT);
  // Samples side by side in each row (the layout's row pitch holds them): SAMPLES_LOG2.
  if (shape.samples > 1) {
    if (type != desc::FORMAT_TYPE_IMAGE_2D && type != desc::FORMAT_TYPE_IMAGE_2D_ARRAY) {
      return refuse(why, "a multisampled image's view other than 2D or 2D array");
    }
    format_word |= uint32_t(std::countr_zero(shape.samples)) << desc::FORMAT_SAMPLES_LOG2_SHIFT;
  }
  if (view.level_count > 1) {
    format_word |= (desc::FORMAT_MIP_LAYOUT_PACKED << desc::FORMAT_MIP_LAYOUT_SHIFT) |
                   (kRowAlignLog2 << desc::FORMAT_MIP_ROW_ALIGN_LOG2_SHIFT);
  }
  w[desc::FORMAT] = format_word;
  w[desc::WIDTH] = base.width;
  w[desc::HEIGHT] = base.height;
  w[desc::DEPTH] = view.type == VK_IMAGE_VIEW_TYPE_3D ? base.depth : 1;
  w[desc::ARRAY_SIZE] = arrayed ? view.layer_count : 1;
  w[desc::ROW_PITCH] = static_cast<uint32_t>(base.row_pitch);  // at most 4096 x 16 bytes
  w[desc::SLICE_PITCH] = several_slices ? static_cast<uint32_t>(base.slice_pitch) : 0;  // at most 2^28
  w[desc::SWIZZLE] = swizzle;
  w[desc::PACKED_LAYERS] = first_layers_only ? layers : 0;
  return w;
}

}  // namespace gsgpu::vk
