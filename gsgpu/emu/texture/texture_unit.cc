#include "gsgpu/emu/texture/texture_unit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gsgpu/emu/texture/addressing.h"
#include "gsgpu/emu/texture/cube_map.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::texture {
namespace {

namespace desc = hw::blk::IMAGE_DESC;
namespace smp = hw::blk::SAMPLER_STATE;
namespace sdesc = hw::blk::SAMPLER_DESC;
using hw::get_field;

constexpr uint32_t kMaxDimension = 1u << 28;
constexpr uint32_t kMaxArraySize = 1u << 16;
constexpr uint64_t kMaxExtentBytes = uint64_t{1} << 48;
constexpr uint64_t kMipLevelAlign = 256;
// SAMPLER_STATE COMPARE: 1 + VkCompareOp, NEVER 1 .. ALWAYS 8.
constexpr uint32_t kCompareAlways = 8;

bool refuse(std::string* why, std::string text) {
  if (why) *why = std::move(text);
  return false;
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Which dimensions an image type uses: (height, depth, layers) may exceed 1.
struct TypeShape {
  bool has_height, has_depth, arrayed, mips;
};

bool shape_of(uint32_t type, TypeShape* out) {
  switch (type) {
    case desc::FORMAT_TYPE_IMAGE_1D: *out = {false, false, false, true}; return true;
    case desc::FORMAT_TYPE_IMAGE_1D_BUFFER: *out = {false, false, false, false}; return true;
    case desc::FORMAT_TYPE_IMAGE_1D_ARRAY: *out = {false, false, true, true}; return true;
    case desc::FORMAT_TYPE_IMAGE_2D: *out = {true, false, false, true}; return true;
    case desc::FORMAT_TYPE_IMAGE_2D_ARRAY: *out = {true, false, true, true}; return true;
    case desc::FORMAT_TYPE_IMAGE_3D: *out = {true, true, false, true}; return true;
    case desc::FORMAT_TYPE_IMAGE_CUBE: *out = {true, false, true, true}; return true;  // faces as layers
    default: return false;  // 0 and unknown codes
  }
}

bool check_dimensions(std::span<const uint32_t> w, const TypeShape& shape, std::string* why) {
  const auto in_range = [](uint32_t v, uint32_t max) { return v >= 1 && v <= max; };
  if (!in_range(w[desc::WIDTH], kMaxDimension)) return refuse(why, "WIDTH must be 1..2^28");
  if (!in_range(w[desc::HEIGHT], shape.has_height ? kMaxDimension : 1))
    return refuse(why, shape.has_height ? "HEIGHT must be 1..2^28" : "HEIGHT must be 1 for this image type");
  if (!in_range(w[desc::DEPTH], shape.has_depth ? kMaxDimension : 1))
    return refuse(why, shape.has_depth ? "DEPTH must be 1..2^28" : "DEPTH must be 1 for this image type");
  if (!in_range(w[desc::ARRAY_SIZE], shape.arrayed ? kMaxArraySize : 1))
    return refuse(why, shape.arrayed ? "ARRAY_SIZE must be 1..2^16" : "ARRAY_SIZE must be 1 for this image type");
  return true;
}

bool decode_swizzle(uint32_t word, Image* image, std::string* why) {
  if (word >> 13) return refuse(why, "SWIZZLE bits 31:13 must be 0");
  image->swizzle = get_field(word, desc::SWIZZLE_ENABLE_MASK, desc::SWIZZLE_ENABLE_SHIFT) != 0;
  if (!image->swizzle) {
    if (word != 0) return refuse(why, "SWIZZLE R/G/B/A must be 0 without ENABLE");
    return true;
  }
  for (int c = 0; c < 4; ++c) {
    const uint32_t code = (word >> (3 * c)) & 7u;
    if (code > 5) return refuse(why, "SWIZZLE code " + std::to_string(code) + " is not 0..5");
    image->swizzle_source[c] = static_cast<uint8_t>(code);
  }
  return true;
}

// SAMPLES_LOG2: 1 (two) or 2 (four) only for a 2D image or 2D array of one level.
bool check_samples(const Image& image, std::string* why) {
  if (image.samples_log2 == 0) return true;
  if (image.samples_log2 > 2) return refuse(why, "FORMAT.SAMPLES_LOG2 3 is not 0..2");
  if (image.type != desc::FORMAT_TYPE_IMAGE_2D && image.type != desc::FORMAT_TYPE_IMAGE_2D_ARRAY)
    return refuse(why, "a multisampled image must be IMAGE_2D or IMAGE_2D_ARRAY");
  if (image.mip_levels != 1) return refuse(why, "a multisampled image has one level");
  return true;
}

// PACKED_LAYERS: how many layers each level of the PACKED layout holds (a view of the first layers
// of a larger array reads fewer than the layout holds); 0 means the image's own slices.
bool packed_layers(std::span<const uint32_t> w, const Image& image, uint32_t layout, uint32_t* out, std::string* why) {
  const uint32_t v = w[desc::PACKED_LAYERS];
  *out = 0;
  if (v == 0) return true;
  if (layout != desc::FORMAT_MIP_LAYOUT_PACKED) return refuse(why, "PACKED_LAYERS needs MIP_LAYOUT PACKED");
  if (image.type == desc::FORMAT_TYPE_IMAGE_3D || image.type == desc::FORMAT_TYPE_IMAGE_1D_BUFFER)
    return refuse(why, "PACKED_LAYERS must be 0 for 3D and buffer images");
  if (v < image.slices(0) || v > kMaxArraySize) return refuse(why, "PACKED_LAYERS must be ARRAY_SIZE .. 2^16");
  *out = v;
  return true;
}

// Level offsets and pitches (PACKED layout for levels 1..) and the extent the image may touch;
// `layout_layers` (PACKED_LAYERS, or 0) places the levels, the image's own slices bound the extent.
bool lay_out_levels(std::span<const uint32_t> w, uint32_t row_align_log2, uint32_t layout_layers, Image* image,
                    std::string* why) {
  const uint64_t element = image->format.element_bytes;
  const uint64_t row0 = w[desc::ROW_PITCH];
  const uint64_t slice_field = w[desc::SLICE_PITCH];
  const Extent size0 = image->size;
  // A multisampled row holds WIDTH x samples elements (every field below 2^30: no wrap).
  const uint64_t row_elements = uint64_t{size0.width} << image->samples_log2;
  if (row0 < row_elements * element) return refuse(why, "ROW_PITCH is below WIDTH x samples x element size");
  if (row0 % image->format.channel_bytes) return refuse(why, "ROW_PITCH is not a multiple of the channel size");
  const uint64_t min_slice = row0 * size0.height;
  if (image->slices(0) > 1 ? slice_field < min_slice : slice_field != 0 && slice_field < min_slice)
    return refuse(why, "SLICE_PITCH is below ROW_PITCH x HEIGHT");
  if (slice_field % image->format.channel_bytes)
    return refuse(why, "SLICE_PITCH is not a multiple of the channel size");
  uint64_t offset = 0;
  uint64_t end = 0;
  for (uint32_t level = 0; level < image->mip_levels; ++level) {
    const Extent s = image->level_size(level);
    uint64_t row = row0, slice = slice_field ? slice_field : min_slice;
    if (level > 0) {
      row = align_up(uint64_t{s.width} * element, std::max<uint64_t>(uint64_t{1} << row_align_log2, 1));
      slice = row * s.height;
    }
    image->level_offset[level] = offset;
    image->row_pitch[level] = row;
    image->slice_pitch[level] = slice;
    const uint64_t slices = image->slices(level);
    // Every factor is below 2^33 and the sums stay far below 2^64 before the limit check.
    end = offset + (slices - 1) * slice + uint64_t{s.height - 1} * row + (uint64_t{s.width} << image->samples_log2) * element;
    if (end > kMaxExtentBytes) return refuse(why, "the image extent exceeds 2^48 bytes");
    // PACKED_LAYERS may exceed the slices that bound `slice` above (a 2D level can be 2^60 bytes):
    // checked against the limit before the product.
    const uint64_t layout_slices = std::max<uint64_t>(slices, layout_layers);
    if (layout_slices > slices && slice > kMaxExtentBytes / layout_slices)
      return refuse(why, "the image extent exceeds 2^48 bytes");
    offset = align_up(offset + layout_slices * slice, kMipLevelAlign);
  }
  image->extent_bytes = end;
  if (image->base_va + end < image->base_va) return refuse(why, "BASE_VA + extent wraps around");
  return true;
}

}  // namespace

bool Image::arrayed() const {
  return type == desc::FORMAT_TYPE_IMAGE_1D_ARRAY || type == desc::FORMAT_TYPE_IMAGE_2D_ARRAY ||
         type == desc::FORMAT_TYPE_IMAGE_CUBE;
}

Extent Image::level_size(uint32_t level) const {
  return {std::max(1u, size.width >> level), std::max(1u, size.height >> level), std::max(1u, size.depth >> level)};
}

uint32_t Image::slices(uint32_t level) const { return arrayed() ? array_size : level_size(level).depth; }

bool decode_image(std::span<const uint32_t> w, Image* out, std::string* why) {
  if (w.size() != desc::SIZE_DWORDS) return refuse(why, "an IMAGE_DESC is 16 dwords");
  for (uint32_t i = desc::RESERVED_11; i <= desc::RESERVED_15; ++i)
    if (w[i] != 0) return refuse(why, std::string(hw::kIMAGE_DESC_DWORD_NAMES[i]) + " must be 0");
  Image image;
  const uint32_t format = w[desc::FORMAT];
  image.type = get_field(format, desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT);
  image.samples_log2 = get_field(format, desc::FORMAT_SAMPLES_LOG2_MASK, desc::FORMAT_SAMPLES_LOG2_SHIFT);
  TypeShape shape;
  if (!shape_of(image.type, &shape))
    return refuse(why, "FORMAT.TYPE " + std::to_string(image.type) + " is not supported");
  const uint32_t order = get_field(format, desc::FORMAT_CHANNEL_ORDER_MASK, desc::FORMAT_CHANNEL_ORDER_SHIFT);
  const uint32_t data_type = get_field(format, desc::FORMAT_DATA_TYPE_MASK, desc::FORMAT_DATA_TYPE_SHIFT);
  if (!make_texel_format(order, data_type, &image.format))
    return refuse(why, "FORMAT channel order " + std::to_string(order) + " with data type " +
                           std::to_string(data_type) + " is not a supported format");
  image.mip_levels = get_field(format, desc::FORMAT_MIP_LEVELS_MASK, desc::FORMAT_MIP_LEVELS_SHIFT);
  const uint32_t layout = get_field(format, desc::FORMAT_MIP_LAYOUT_MASK, desc::FORMAT_MIP_LAYOUT_SHIFT);
  const uint32_t row_align_log2 =
      get_field(format, desc::FORMAT_MIP_ROW_ALIGN_LOG2_MASK, desc::FORMAT_MIP_ROW_ALIGN_LOG2_SHIFT);
  if (image.mip_levels == 0) return refuse(why, "FORMAT.MIP_LEVELS must be 1..15");
  if (layout == desc::FORMAT_MIP_LAYOUT_SINGLE) {
    if (image.mip_levels != 1) return refuse(why, "MIP_LAYOUT SINGLE needs MIP_LEVELS 1");
    if (row_align_log2 != 0) return refuse(why, "MIP_ROW_ALIGN_LOG2 must be 0 with MIP_LAYOUT SINGLE");
  } else if (layout != desc::FORMAT_MIP_LAYOUT_PACKED || !shape.mips) {
    return refuse(why, "FORMAT.MIP_LAYOUT " + std::to_string(layout) + " is not valid for this image type");
  }
  if (!check_samples(image, why)) return false;
  if (!check_dimensions(w, shape, why)) return false;
  if (image.type == desc::FORMAT_TYPE_IMAGE_CUBE &&
      (w[desc::WIDTH] != w[desc::HEIGHT] || w[desc::ARRAY_SIZE] % 6 != 0))
    return refuse(why, "a cube needs WIDTH = HEIGHT and ARRAY_SIZE a multiple of 6");
  image.size = {w[desc::WIDTH], w[desc::HEIGHT], w[desc::DEPTH]};
  image.array_size = w[desc::ARRAY_SIZE];
  image.base_va = uint64_t{w[desc::BASE_VA_HI]} << 32 | w[desc::BASE_VA_LO];
  if (image.base_va % image.format.channel_bytes) return refuse(why, "BASE_VA is not aligned to the channel size");
  if (!decode_swizzle(w[desc::SWIZZLE], &image, why)) return false;
  uint32_t layout_layers = 0;
  if (!packed_layers(w, image, layout, &layout_layers, why)) return false;
  if (!lay_out_levels(w, row_align_log2, layout_layers, &image, why)) return false;
  *out = image;
  return true;
}

namespace {

// The STATE word's fields; BORDER CUSTOM only where the caller has the SAMPLER_DESC's colour.
bool decode_state_word(uint32_t word, bool custom_allowed, Sampler* out, std::string* why) {
  Sampler s;
  s.normalized = get_field(word, smp::STATE_NORMALIZED_MASK, smp::STATE_NORMALIZED_SHIFT) != 0;
  const uint32_t shifts[3] = {smp::STATE_ADDRESS_U_SHIFT, smp::STATE_ADDRESS_V_SHIFT, smp::STATE_ADDRESS_W_SHIFT};
  for (int axis = 0; axis < 3; ++axis) {
    s.address[axis] = (word >> shifts[axis]) & 7u;
    if (s.address[axis] > smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE)
      return refuse(why, "SAMPLER_STATE addressing mode " + std::to_string(s.address[axis]) + " is not supported");
    if (!s.normalized && (s.address[axis] == smp::STATE_ADDRESS_U_REPEAT ||
                          s.address[axis] == smp::STATE_ADDRESS_U_MIRRORED_REPEAT ||
                          s.address[axis] == smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE))
      return refuse(why, "SAMPLER_STATE repeat and mirror addressing need NORMALIZED coordinates");
  }
  s.mag_linear = get_field(word, smp::STATE_MAG_FILTER_MASK, smp::STATE_MAG_FILTER_SHIFT) != 0;
  s.min_linear = get_field(word, smp::STATE_MIN_FILTER_MASK, smp::STATE_MIN_FILTER_SHIFT) != 0;
  s.mip_filter = get_field(word, smp::STATE_MIP_FILTER_MASK, smp::STATE_MIP_FILTER_SHIFT);
  if (s.mip_filter > 2) return refuse(why, "SAMPLER_STATE MIP_FILTER 3 is not valid");
  s.border = get_field(word, smp::STATE_BORDER_MASK, smp::STATE_BORDER_SHIFT);
  if (s.border == smp::STATE_BORDER_CUSTOM && !custom_allowed)
    return refuse(why, "SAMPLER_STATE BORDER CUSTOM needs a SAMPLER_DESC");
  s.compare = get_field(word, smp::STATE_COMPARE_MASK, smp::STATE_COMPARE_SHIFT);
  if (s.compare > kCompareAlways)
    return refuse(why, "SAMPLER_STATE COMPARE " + std::to_string(s.compare) + " is not 0..8");
  // LOD clamps in quarter levels; MAX_LOD 0 is "no clamp" so that OpenCL's words keep their meaning.
  const uint32_t min_quarters = get_field(word, smp::STATE_MIN_LOD_MASK, smp::STATE_MIN_LOD_SHIFT);
  const uint32_t max_code = get_field(word, smp::STATE_MAX_LOD_MASK, smp::STATE_MAX_LOD_SHIFT);
  s.min_lod = static_cast<float>(min_quarters) / 4.0f;
  if (max_code != 0) {
    if (max_code - 1 < min_quarters)
      return refuse(why, "SAMPLER_STATE MAX_LOD " + std::to_string(max_code) + " is below MIN_LOD " +
                             std::to_string(min_quarters));
    s.max_lod = static_cast<float>(max_code - 1) / 4.0f;
  }
  *out = s;
  return true;
}

// A colour (r, g, b, a) read as a texel of `f`: the components it does not store read 0, alpha 1
// (Vulkan's conversion to RGBA). Packed types: D24S8's depth is r, A2B10G10R10 has all four, the
// others r, g, b; luminance and intensity orders keep every component.
Texel as_stored(const TexelFormat& f, const Texel& rgba) {
  uint32_t stored = 0;
  if (f.components == 0) {
    stored = f.data_type == desc::FORMAT_DATA_TYPE_UNORM_INT24 ? 0x1u
             : f.data_type == desc::FORMAT_DATA_TYPE_UNORM_INT_101010_2 ? 0xFu : 0x7u;
  }
  for (int i = 0; i < f.components; ++i) {
    const Slot s = f.slots[i];
    if (s <= kA) stored |= 1u << s;
    else if (s == kLuminance || s == kIntensity) stored |= 0xFu;
  }
  Texel t = rgba;
  for (int c = 0; c < 3; ++c) {
    if ((stored & (1u << c)) == 0) t.v[c] = 0;
  }
  if ((stored & 0x8u) == 0) t.v[3] = f.value_class == ValueClass::kFloat ? 0x3f800000u : 1u;
  return t;
}

}  // namespace

bool decode_sampler(uint32_t word, Sampler* out, std::string* why) { return decode_state_word(word, false, out, why); }

bool decode_sampler_desc(std::span<const uint32_t> words, Sampler* out, std::string* why) {
  if (words.size() < sdesc::SIZE_DWORDS) return refuse(why, "SAMPLER_DESC is 8 words");
  if (!decode_state_word(words[sdesc::STATE], true, out, why)) return false;
  // The colour is kept as stored: binary32 for float and normalised formats, integers for integer
  // ones, so one record serves either (customBorderColorWithoutFormat).
  for (int c = 0; c < 4; ++c) out->custom_border.v[c] = words[sdesc::BORDER_R + c];
  return true;
}

bool TextureUnit::load_record_sampler(uint64_t image_desc_va, uint32_t word, Sampler* out) {
  const uint64_t offset = desc::SIZE_DWORDS * 4;  // the SAMPLER_DESC follows the IMAGE_DESC
  const uint64_t va = image_desc_va + offset;
  if (va < image_desc_va) return fail(TextureFault::kBadDescriptor, "texture record VA + 64 wraps around");
  const uint8_t* host = memory_.translate(va, sdesc::SIZE_DWORDS * 4, Access::kRead);
  if (host == nullptr)
    return fail_memory({va, sdesc::SIZE_DWORDS * 4, Access::kRead}, "the record's SAMPLER_DESC is not mapped readable");
  uint32_t words[sdesc::SIZE_DWORDS];
  std::memcpy(words, host, sizeof(words));
  if (words[sdesc::STATE] != word)
    return fail(TextureFault::kBadDescriptor, "BORDER CUSTOM: the record's SAMPLER_DESC STATE is not the sampler word");
  std::string why;
  if (!decode_sampler_desc(words, out, &why)) return fail(TextureFault::kBadDescriptor, "SAMPLER_DESC: " + why);
  return true;
}

bool TextureUnit::fail(TextureFault kind, std::string reason) {
  fault_ = kind;
  reason_ = std::move(reason);
  return false;
}

bool TextureUnit::fail_memory(MemoryFault where, std::string reason) {
  memory_fault_ = where;
  return fail(TextureFault::kMemory, std::move(reason));
}

bool TextureUnit::load_image(uint64_t desc_va, ImageUse use, Image* out) {
  if (desc_va % desc::ALIGN_BYTES) return fail(TextureFault::kBadDescriptor, "IMAGE_DESC VA is not 64-byte aligned");
  const uint8_t* host = memory_.translate(desc_va, desc::SIZE_DWORDS * 4, Access::kRead);
  if (host == nullptr)
    return fail_memory({desc_va, desc::SIZE_DWORDS * 4, Access::kRead}, "IMAGE_DESC is not mapped readable");
  uint32_t words[desc::SIZE_DWORDS];
  std::memcpy(words, host, sizeof(words));  // one snapshot: the guest may change memory meanwhile
  std::string why;
  if (!decode_image(words, out, &why)) return fail(TextureFault::kBadDescriptor, "IMAGE_DESC: " + why);
  if (use == ImageUse::kQuery) return true;
  const Access access = use == ImageUse::kWrite ? Access::kWrite : Access::kRead;
  if (memory_.translate(out->base_va, out->extent_bytes, access) == nullptr)
    return fail_memory({out->base_va, out->extent_bytes, access}, "the image's texels are not mapped for this access");
  return true;
}

Texel TextureUnit::swizzled(const Image& image, const Texel& t) const {
  if (!image.swizzle) return t;
  const bool is_float = image.format.value_class == ValueClass::kFloat;
  Texel r;
  for (int c = 0; c < 4; ++c) {
    const uint8_t src = image.swizzle_source[c];
    if (src < 4) r.v[c] = t.v[src];
    else if (src == 4) r.v[c] = 0;
    else r.v[c] = is_float ? 0x3f800000u : 1u;
  }
  return r;
}

// The border colour as a stored texel would read before the view's swizzle: the components the
// format lacks read 0 (alpha 1), as Vulkan converts a texel to RGBA; callers then swizzle it like
// any texel (VK_EXT_border_color_swizzle's borderColorSwizzleFromImage: zink's ALPHA8 as R8 read
// (0, 0, 0, r) gets (0, 0, 0, border r)).
Texel TextureUnit::border_colour(const Image& image, const Sampler& sampler) const {
  if (sampler.border == smp::STATE_BORDER_CUSTOM) return as_stored(image.format, sampler.custom_border);
  if (sampler.border == smp::STATE_BORDER_TRANSPARENT_BLACK) return image.format.transparent_black();
  const uint32_t one = image.format.value_class == ValueClass::kFloat ? 0x3f800000u : 1u;
  Texel t;
  t.v[3] = one;
  if (sampler.border == smp::STATE_BORDER_OPAQUE_WHITE) t.v[0] = t.v[1] = t.v[2] = one;
  return as_stored(image.format, t);
}

bool TextureUnit::read_texel(const Image& image, uint32_t level, int64_t x, int64_t y, int64_t slice, Texel* out,
                             bool raw) {
  const uint64_t offset = image.level_offset[level] + static_cast<uint64_t>(slice) * image.slice_pitch[level] +
                          static_cast<uint64_t>(y) * image.row_pitch[level] +
                          static_cast<uint64_t>(x) * image.format.element_bytes;
  const uint8_t* host = memory_.translate(image.base_va + offset, image.format.element_bytes, Access::kRead);
  if (host == nullptr)
    return fail_memory({image.base_va + offset, image.format.element_bytes, Access::kRead},
                       "texel read outside the image's mapping");
  *out = raw ? image.format.decode(host) : swizzled(image, image.format.decode(host));
  return true;
}

namespace {

// Which coordinate is the layer (-1: none) and how many spatial axes an image type has.
struct CoordUse {
  int spatial_axes;
  int layer_axis;
};

CoordUse coord_use(uint32_t type) {
  switch (type) {
    case desc::FORMAT_TYPE_IMAGE_1D_ARRAY: return {1, 1};
    case desc::FORMAT_TYPE_IMAGE_2D: return {2, -1};
    case desc::FORMAT_TYPE_IMAGE_2D_ARRAY: return {2, 2};
    case desc::FORMAT_TYPE_IMAGE_CUBE: return {2, 2};  // loads and stores: the face is the layer
    case desc::FORMAT_TYPE_IMAGE_3D: return {3, -1};
    default: return {1, -1};  // 1D, 1D buffer
  }
}

// Vulkan's depth compare (VkCompareOp order, `compare` = op + 1): reference OP texel depth, as 1 / 0.
float depth_compare(uint32_t compare, float reference, float depth) {
  switch (compare - 1) {
    case 0: return 0.0f;                                 // NEVER
    case 1: return reference < depth ? 1.0f : 0.0f;     // LESS
    case 2: return reference == depth ? 1.0f : 0.0f;    // EQUAL
    case 3: return reference <= depth ? 1.0f : 0.0f;    // LESS_OR_EQUAL
    case 4: return reference > depth ? 1.0f : 0.0f;     // GREATER
    case 5: return reference != depth ? 1.0f : 0.0f;    // NOT_EQUAL
    case 6: return reference >= depth ? 1.0f : 0.0f;    // GREATER_OR_EQUAL
    default: return 1.0f;                                // ALWAYS
  }
}

bool is_depth(const TexelFormat& f) {
  return f.channel_order == desc::FORMAT_CHANNEL_ORDER_DEPTH || f.channel_order == desc::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL;
}

}  // namespace

bool TextureUnit::fetch(const Image& image, const int32_t coord[3], uint32_t level, const Sampler* sampler,
                        Texel* out, const TexelOffset& offset) {
  if (image.samples_log2 != 0) {
    if (sampler != nullptr || offset.any())
      return fail(TextureFault::kBadDescriptor, "a multisampled image read through a sampler or with a texel offset");
    return fetch_sample(image, coord, level, out);
  }
  if (level >= image.mip_levels) return fail(TextureFault::kBadDescriptor, "LOD past the image's mip levels");
  const CoordUse use = coord_use(image.type);
  const Extent s = image.level_size(level);
  const uint32_t sizes[3] = {s.width, s.height, s.depth};
  int64_t index[3] = {0, 0, 0};
  bool outside = false;
  for (int axis = 0; axis < use.spatial_axes; ++axis) {
    int64_t i = int64_t{coord[axis]} + offset.v[axis];  // int64: no wrap for any int32 coordinate
    if (sampler != nullptr && sampler->address[axis] == smp::STATE_ADDRESS_U_CLAMP_TO_EDGE)
      i = std::clamp<int64_t>(i, 0, sizes[axis] - 1);
    outside |= i < 0 || i >= sizes[axis];
    index[axis] = i;
  }
  int64_t slice = use.spatial_axes == 3 ? index[2] : 0;
  if (use.layer_axis >= 0) {
    slice = coord[use.layer_axis];
    if (sampler != nullptr) slice = std::clamp<int64_t>(slice, 0, image.array_size - 1);
    outside |= slice < 0 || slice >= image.array_size;
  }
  if (outside) {
    *out = sampler != nullptr ? swizzled(image, border_colour(image, *sampler)) : image.format.transparent_black();
    return true;
  }
  return read_texel(image, level, index[0], index[1], slice, out);
}

// Sample `sample` of texel (x, y[, layer]) of a multisampled image: column x x samples + sample of
// the row; a texel, layer or sample index out of range reads as transparent black, as v_image_load's
// other out-of-range reads (Vulkan leaves the value undefined; nothing outside the image is read).
bool TextureUnit::fetch_sample(const Image& image, const int32_t coord[3], uint32_t sample, Texel* out) {
  const uint32_t samples = 1u << image.samples_log2;
  const int64_t x = coord[0], y = coord[1];
  const int64_t layer = image.type == desc::FORMAT_TYPE_IMAGE_2D_ARRAY ? coord[2] : 0;
  if (x < 0 || x >= image.size.width || y < 0 || y >= image.size.height || layer < 0 ||
      layer >= image.array_size || sample >= samples) {
    *out = image.format.transparent_black();
    return true;
  }
  return read_texel(image, 0, x * samples + sample, y, layer, out);
}

bool TextureUnit::store(const Image& image, const int32_t coord[3], uint32_t level, const Texel& value) {
  if (image.samples_log2 != 0) return fail(TextureFault::kBadDescriptor, "a store to a multisampled image");
  if (level >= image.mip_levels) return fail(TextureFault::kBadDescriptor, "LOD past the image's mip levels");
  const CoordUse use = coord_use(image.type);
  const Extent s = image.level_size(level);
  const uint32_t sizes[3] = {s.width, s.height, s.depth};
  for (int axis = 0; axis < use.spatial_axes; ++axis)
    if (coord[axis] < 0 || static_cast<uint32_t>(coord[axis]) >= sizes[axis]) return true;
  int64_t slice = use.spatial_axes == 3 ? coord[2] : 0;
  if (use.layer_axis >= 0) {
    slice = coord[use.layer_axis];
    if (slice < 0 || slice >= image.array_size) return true;
  }
  const int64_t y = use.spatial_axes >= 2 ? coord[1] : 0;
  const uint64_t offset = image.level_offset[level] + static_cast<uint64_t>(slice) * image.slice_pitch[level] +
                          static_cast<uint64_t>(y) * image.row_pitch[level] +
                          static_cast<uint64_t>(coord[0]) * image.format.element_bytes;
  uint8_t* host = memory_.translate(image.base_va + offset, image.format.element_bytes, Access::kWrite);
  if (host == nullptr)
    return fail_memory({image.base_va + offset, image.format.element_bytes, Access::kWrite},
                       "texel write outside the image's mapping");
  image.format.encode(value, host);
  return true;
}

// Whether a sample compares depth (a COMPARE sampler on a depth image; colour images ignore COMPARE,
// as OpenGL ignores TEXTURE_COMPARE_MODE for them), and the reference: coordinate channel 2, which
// only 1D, 1D-array and 2D images leave free. False after a fault for the other types.
bool TextureUnit::check_compare(const Image& image, const Sampler& sampler, const float coord[3], float* reference) {
  *reference = std::numeric_limits<float>::quiet_NaN();
  if (sampler.compare == 0 || !is_depth(image.format)) return true;
  if (image.type != desc::FORMAT_TYPE_IMAGE_1D && image.type != desc::FORMAT_TYPE_IMAGE_1D_ARRAY &&
      image.type != desc::FORMAT_TYPE_IMAGE_2D)
    return fail(TextureFault::kBadDescriptor, "COMPARE samples 1D, 1D-array and 2D depth images only");
  float r = coord[2];
  // Vulkan clamps the reference to [0, 1] for fixed-point depth formats (D16, D24); NaN compares false.
  if (image.format.data_type != desc::FORMAT_DATA_TYPE_FLOAT && !std::isnan(r)) r = std::clamp(r, 0.0f, 1.0f);
  *reference = r;
  return true;
}

bool TextureUnit::sample_level(const Image& image, const Sampler& sampler, bool linear, const float coord[3],
                               uint32_t level, const TexelOffset& offset, Texel* out) {
  if (image.type == desc::FORMAT_TYPE_IMAGE_CUBE) return sample_cube_level(image, sampler, linear, coord, level, out);
  float reference = 0;
  if (!check_compare(image, sampler, coord, &reference)) return false;
  const bool comparing = sampler.compare != 0 && is_depth(image.format);
  const CoordUse use = coord_use(image.type);
  const Extent s = image.level_size(level);
  const uint32_t sizes[3] = {s.width, s.height, s.depth};
  int64_t layer = 0;
  if (use.layer_axis >= 0) {  // never normalised, never wrapped: clamp(rint(c), 0, layers - 1)
    const float c = coord[use.layer_axis];
    layer = std::isnan(c) ? 0 : static_cast<int64_t>(std::rint(std::clamp(c, -1.0e9f, 1.0e9f)));
    layer = std::clamp<int64_t>(layer, 0, image.array_size - 1);
  }
  // Integer formats are never filtered (OpenCL leaves linear filtering of them undefined).
  linear = linear && image.format.value_class == ValueClass::kFloat;
  LinearAxis axes[3];
  for (int axis = 0; axis < 3; ++axis) {
    if (axis >= use.spatial_axes) continue;  // a single index 0 with weight 0
    if (linear) {
      axes[axis] = linear_axis(coord[axis], sizes[axis], sampler.address[axis], sampler.normalized, offset.v[axis]);
    } else {
      bool border = false;
      axes[axis].i0 =
          nearest_index(coord[axis], sizes[axis], sampler.address[axis], sampler.normalized, offset.v[axis], &border);
      axes[axis].i1 = axes[axis].i0;
    }
  }
  // A compare reads the border's depth unswizzled (the swizzle follows the compare, below).
  const Texel border = comparing ? border_colour(image, sampler) : swizzled(image, border_colour(image, sampler));
  const auto texel_at = [&](int64_t x, int64_t y, int64_t z, Texel* t) {
    const bool outside = x < 0 || x >= sizes[0] || y < 0 || y >= sizes[1] || z < 0 || z >= sizes[2];
    if (outside) *t = border;
    else if (!read_texel(image, level, x, y, use.spatial_axes == 3 ? z : layer, t, comparing)) return false;
    // The spec's order: compare the stored depth of each texel, filter the 0 / 1 results, then the
    // view's component swizzle (OpenGL's DEPTH_TEXTURE_MODE through zink: ALPHA is (0, 0, 0, r)).
    if (comparing) {
      const float result = depth_compare(sampler.compare, reference, t->f(0));
      *t = Texel{};
      t->set_f(0, result);
      t->set_f(3, 1.0f);
    }
    return true;
  };
  if (!linear) {
    if (!texel_at(axes[0].i0, axes[1].i0, axes[2].i0, out)) return false;
    if (comparing) *out = swizzled(image, *out);
    return true;
  }
  // The spec's weighted sum, corners in its order (x fastest, then y, then z), products left to right.
  float sum[4] = {0, 0, 0, 0};
  const int corners_z = use.spatial_axes == 3 ? 2 : 1;
  const int corners_y = use.spatial_axes >= 2 ? 2 : 1;
  for (int k = 0; k < corners_z; ++k)
    for (int j = 0; j < corners_y; ++j)
      for (int i = 0; i < 2; ++i) {
        float weight = i ? axes[0].a : 1.0f - axes[0].a;
        if (corners_y == 2) weight *= j ? axes[1].a : 1.0f - axes[1].a;
        if (corners_z == 2) weight *= k ? axes[2].a : 1.0f - axes[2].a;
        Texel t;
        if (!texel_at(i ? axes[0].i1 : axes[0].i0, j ? axes[1].i1 : axes[1].i0, k ? axes[2].i1 : axes[2].i0, &t))
          return false;
        for (int c = 0; c < 4; ++c) sum[c] += weight * t.f(c);
      }
  for (int c = 0; c < 4; ++c) out->set_f(c, sum[c]);
  if (comparing) *out = swizzled(image, *out);
  return true;
}

bool TextureUnit::sample(const Image& image, const Sampler& sampler, const float coord[3], float lod, Texel* out,
                         const TexelOffset& offset) {
  if (image.samples_log2 != 0) return fail(TextureFault::kBadDescriptor, "a multisampled image is not sampled");
  if (offset.any() && image.type == desc::FORMAT_TYPE_IMAGE_CUBE)
    return fail(TextureFault::kBadDescriptor, "a texel offset on a cube image (cubes take no offsets)");
  lod = sampler_clamped_lod(sampler, lod);
  const bool minifying = lod > 0.0f;
  const bool linear = minifying ? sampler.min_linear : sampler.mag_linear;
  const uint32_t last = image.mip_levels - 1;
  if (sampler.mip_filter == 0 || last == 0) return sample_level(image, sampler, linear, coord, 0, offset, out);
  const float clamped = std::clamp(lod, 0.0f, static_cast<float>(last));
  if (sampler.mip_filter == 1)
    return sample_level(image, sampler, linear, coord, nearest_level(clamped, last), offset, out);
  const uint32_t level0 = static_cast<uint32_t>(std::floor(clamped));
  const uint32_t level1 = std::min(level0 + 1, last);
  const float weight = clamped - std::floor(clamped);
  Texel t0, t1;
  if (!sample_level(image, sampler, linear, coord, level0, offset, &t0)) return false;
  if (!sample_level(image, sampler, linear, coord, level1, offset, &t1)) return false;
  if (image.format.value_class != ValueClass::kFloat) {
    *out = weight < 0.5f ? t0 : t1;
    return true;
  }
  for (int c = 0; c < 4; ++c) out->set_f(c, (1.0f - weight) * t0.f(c) + weight * t1.f(c));
  return true;
}

// A cube: the direction picks the face and (s, t) on it (cube_map.h); nearest reads the texel
// (s, t) falls in, linear the 2 x 2 texels around it, those past an edge from the neighbouring
// face, a corner's missing texel the average of the other three (seamless filtering, as Vulkan
// requires). Addressing modes do not apply to cubes. Faces are layers 0..5 of the descriptor.
bool TextureUnit::sample_cube_level(const Image& image, const Sampler& sampler, bool linear, const float coord[3],
                                    uint32_t level, Texel* out) {
  if (!sampler.normalized) return fail(TextureFault::kBadDescriptor, "a cube is sampled with normalised coordinates only");
  if (sampler.compare != 0 && is_depth(image.format))
    return fail(TextureFault::kBadDescriptor, "COMPARE samples 1D, 1D-array and 2D depth images only");
  const CubeFaceCoord c = cube_face_coord(coord);
  const uint32_t size = image.level_size(level).width;
  const float n = static_cast<float>(size);
  const auto floor_int = [](float u) {  // NaN reads texel 0 (clamped below)
    if (std::isnan(u)) return int64_t{0};
    return static_cast<int64_t>(std::floor(std::clamp(u, -1.0e9f, 1.0e9f)));
  };
  linear = linear && image.format.value_class == ValueClass::kFloat;
  if (!linear) {
    const int64_t i = std::clamp<int64_t>(floor_int(c.s * n), 0, size - 1);
    const int64_t j = std::clamp<int64_t>(floor_int(c.t * n), 0, size - 1);
    return read_texel(image, level, i, j, c.face, out);
  }
  const float u = c.s * n - 0.5f, v = c.t * n - 0.5f;
  const int64_t i0 = std::clamp<int64_t>(floor_int(u), -1, size - 1), j0 = std::clamp<int64_t>(floor_int(v), -1, size - 1);
  const float a = std::isnan(u) ? 0.0f : u - std::floor(u), b = std::isnan(v) ? 0.0f : v - std::floor(v);
  Texel texels[4];  // (i0, j0), (i1, j0), (i0, j1), (i1, j1): the spec's order
  int corner = -1;
  for (int k = 0; k < 4; ++k) {
    int64_t i = i0 + (k & 1), j = j0 + (k >> 1);
    uint32_t face = c.face;
    if (i < 0 || i >= size || j < 0 || j >= size) {
      if (!cube_neighbour_texel(c.face, i, j, size, &face, &i, &j)) {
        corner = k;
        continue;
      }
    }
    if (!read_texel(image, level, i, j, face, &texels[k])) return false;
  }
  if (corner >= 0)
    for (int ch = 0; ch < 4; ++ch)
      texels[corner].set_f(ch, (texels[(corner + 1) % 4].f(ch) + texels[(corner + 2) % 4].f(ch) +
                                texels[(corner + 3) % 4].f(ch)) / 3.0f);
  const float weights[4] = {(1.0f - a) * (1.0f - b), a * (1.0f - b), (1.0f - a) * b, a * b};
  float sum[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k)
    for (int ch = 0; ch < 4; ++ch) sum[ch] += weights[k] * texels[k].f(ch);
  for (int ch = 0; ch < 4; ++ch) out->set_f(ch, sum[ch]);
  return true;
}

float TextureUnit::implicit_lod(const Image& image, const Sampler& sampler, const float ddx[3], const float ddy[3]) {
  const int axes = coord_use(image.type).spatial_axes;
  const uint32_t sizes[3] = {image.size.width, image.size.height, image.size.depth};
  float length_x = 0, length_y = 0;  // squared lengths of the two derivative vectors, in texels
  for (int axis = 0; axis < axes; ++axis) {
    const float scale = sampler.normalized ? static_cast<float>(sizes[axis]) : 1.0f;
    const float dx = ddx[axis] * scale, dy = ddy[axis] * scale;
    length_x += dx * dx;
    length_y += dy * dy;
  }
  // log2(max(sqrt(a), sqrt(b))) = 0.5 * log2(max(a, b)); 0 gives -inf (clamped later), NaN stays NaN
  // (sample() reads it as 0).
  return 0.5f * std::log2(std::max(length_x, length_y));
}

float TextureUnit::sampler_clamped_lod(const Sampler& sampler, float lod) {
  if (std::isnan(lod)) lod = 0.0f;
  return std::clamp(lod, sampler.min_lod, sampler.max_lod);
}

// MIP_FILTER NEAREST's level: ceil(lod + 0.5) - 1 (Vulkan's rounding, halves down), within the image.
uint32_t TextureUnit::nearest_level(float clamped_lod, uint32_t last) {
  const uint32_t level = static_cast<uint32_t>(std::max(0.0f, std::ceil(clamped_lod + 0.5f) - 1.0f));
  return std::min(level, last);
}

// The level sample() reads at `lod`, as a float: the same clamps and the same choice of level, so
// that OpImageQueryLod and the sample it describes agree.
TextureUnit::LodQuery TextureUnit::query_lod(const Image& image, const Sampler& sampler, float lod) {
  LodQuery q;
  q.lod = lod;
  const uint32_t last = image.mip_levels - 1;
  if (sampler.mip_filter == 0 || last == 0) return q;  // level 0
  const float clamped = std::clamp(sampler_clamped_lod(sampler, lod), 0.0f, static_cast<float>(last));
  q.level = sampler.mip_filter == 1 ? static_cast<float>(nearest_level(clamped, last)) : clamped;
  return q;
}

uint32_t TextureUnit::query(const Image& image, ImageQuery what, uint32_t level) {
  level = std::min(level, image.mip_levels - 1);
  const Extent s = image.level_size(level);
  switch (what) {
    case ImageQuery::kWidth: return s.width;
    case ImageQuery::kHeight: return s.height;
    case ImageQuery::kDepth: return s.depth;
    case ImageQuery::kArraySize: return image.array_size;
    case ImageQuery::kChannelOrder: return image.format.channel_order;
    case ImageQuery::kDataType: return image.format.data_type;
    case ImageQuery::kMipLevels: return image.mip_levels;
  }
  return 0;
}

}  // namespace gsgpu::texture
