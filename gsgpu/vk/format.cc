// The supported image formats (format.h). A VkFormat is here only when gsgpu's texture unit reads
// it (its IMAGE_DESC channel order / data type pair is one make_texel_format accepts; the test
// ImageLayout.EveryFormatIsOneTheTextureUnitDecodes checks each row against the emulator) and the
// element size is what the unit steps by. Render-target support is the output merger's list in
// gsgpu.xml PIPE_STATE COLOR_FORMAT / DEPTH_FORMAT.
#include "gsgpu/vk/format.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "common/packed_float.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

namespace fmt = hw::blk::IMAGE_DESC;

static_assert(std::endian::native == std::endian::little, "byte-aligned components are copied as integers");

constexpr VkImageAspectFlags kColor = VK_IMAGE_ASPECT_COLOR_BIT;
constexpr VkImageAspectFlags kDepth = VK_IMAGE_ASPECT_DEPTH_BIT;
constexpr VkImageAspectFlags kDepthStencil = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;

// Byte-aligned components in memory order r, g, b, a of `bits` each.
constexpr Component R(uint8_t bits) { return {0, 0, bits}; }
constexpr Component G(uint8_t bits) { return {1, bits, bits}; }
constexpr Component B(uint8_t bits) { return {2, static_cast<uint8_t>(2 * bits), bits}; }
constexpr Component A(uint8_t bits) { return {3, static_cast<uint8_t>(3 * bits), bits}; }

#define O(name) fmt::FORMAT_CHANNEL_ORDER_##name
#define T(name) fmt::FORMAT_DATA_TYPE_##name
#define K(name) NumericKind::k##name
#define ONE(bits) 1, {R(bits)}
#define TWO(bits) 2, {R(bits), G(bits)}
#define FOUR(bits) 4, {R(bits), G(bits), B(bits), A(bits)}

constexpr FormatInfo kFormats[] = {
    {VK_FORMAT_R8_UNORM, 1, O(R), T(UNORM_INT8), K(Unorm), ONE(8), true, false, kColor},
    {VK_FORMAT_R8_SNORM, 1, O(R), T(SNORM_INT8), K(Snorm), ONE(8), false, false, kColor},
    {VK_FORMAT_R8_UINT, 1, O(R), T(UNSIGNED_INT8), K(Uint), ONE(8), false, false, kColor},
    {VK_FORMAT_R8_SINT, 1, O(R), T(SIGNED_INT8), K(Sint), ONE(8), false, false, kColor},
    {VK_FORMAT_R8G8_UNORM, 2, O(RG), T(UNORM_INT8), K(Unorm), TWO(8), true, false, kColor},
    {VK_FORMAT_R8G8_SNORM, 2, O(RG), T(SNORM_INT8), K(Snorm), TWO(8), false, false, kColor},
    {VK_FORMAT_R8G8_UINT, 2, O(RG), T(UNSIGNED_INT8), K(Uint), TWO(8), false, false, kColor},
    {VK_FORMAT_R8G8_SINT, 2, O(RG), T(SIGNED_INT8), K(Sint), TWO(8), false, false, kColor},
    {VK_FORMAT_R8G8B8A8_UNORM, 4, O(RGBA), T(UNORM_INT8), K(Unorm), FOUR(8), true, false, kColor},
    {VK_FORMAT_R8G8B8A8_SNORM, 4, O(RGBA), T(SNORM_INT8), K(Snorm), FOUR(8), false, false, kColor},
    {VK_FORMAT_R8G8B8A8_UINT, 4, O(RGBA), T(UNSIGNED_INT8), K(Uint), FOUR(8), false, false, kColor},
    {VK_FORMAT_R8G8B8A8_SINT, 4, O(RGBA), T(SIGNED_INT8), K(Sint), FOUR(8), false, false, kColor},
    {VK_FORMAT_R8G8B8A8_SRGB, 4, O(SRGBA), T(UNORM_INT8), K(Srgb), FOUR(8), true, false, kColor},
    {VK_FORMAT_B8G8R8A8_UNORM, 4, O(BGRA), T(UNORM_INT8), K(Unorm), 4, {{2, 0, 8}, {1, 8, 8}, {0, 16, 8}, {3, 24, 8}},
     true, false, kColor},
    {VK_FORMAT_B8G8R8A8_SRGB, 4, O(SBGRA), T(UNORM_INT8), K(Srgb), 4, {{2, 0, 8}, {1, 8, 8}, {0, 16, 8}, {3, 24, 8}},
     true, false, kColor},
    {VK_FORMAT_B8G8R8A8_SNORM, 4, O(BGRA), T(SNORM_INT8), K(Snorm), 4, {{2, 0, 8}, {1, 8, 8}, {0, 16, 8}, {3, 24, 8}},
     false, false, kColor},
    {VK_FORMAT_B8G8R8A8_UINT, 4, O(BGRA), T(UNSIGNED_INT8), K(Uint), 4, {{2, 0, 8}, {1, 8, 8}, {0, 16, 8}, {3, 24, 8}},
     false, false, kColor},
    {VK_FORMAT_B8G8R8A8_SINT, 4, O(BGRA), T(SIGNED_INT8), K(Sint), 4, {{2, 0, 8}, {1, 8, 8}, {0, 16, 8}, {3, 24, 8}},
     false, false, kColor},
    // A8B8G8R8_*_PACK32: a 32-bit word with r in bits 7..0, i.e. R8G8B8A8's bytes on a little-endian host.
    {VK_FORMAT_A8B8G8R8_UNORM_PACK32, 4, O(RGBA), T(UNORM_INT8), K(Unorm), FOUR(8), true, false, kColor},
    {VK_FORMAT_A8B8G8R8_SNORM_PACK32, 4, O(RGBA), T(SNORM_INT8), K(Snorm), FOUR(8), false, false, kColor},
    {VK_FORMAT_A8B8G8R8_UINT_PACK32, 4, O(RGBA), T(UNSIGNED_INT8), K(Uint), FOUR(8), false, false, kColor},
    {VK_FORMAT_A8B8G8R8_SINT_PACK32, 4, O(RGBA), T(SIGNED_INT8), K(Sint), FOUR(8), false, false, kColor},
    {VK_FORMAT_A8B8G8R8_SRGB_PACK32, 4, O(SRGBA), T(UNORM_INT8), K(Srgb), FOUR(8), true, false, kColor},
    {VK_FORMAT_R5G6B5_UNORM_PACK16, 2, O(RGB), T(UNORM_SHORT_565), K(Unorm), 3, {{0, 11, 5}, {1, 5, 6}, {2, 0, 5}},
     true, false, kColor},
    {VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, O(RGBA), T(UNORM_INT_101010_2), K(Unorm), 4,
     {{0, 0, 10}, {1, 10, 10}, {2, 20, 10}, {3, 30, 2}}, true, false, kColor},
    {VK_FORMAT_B10G11R11_UFLOAT_PACK32, 4, O(RGB), T(UFLOAT_11_11_10), K(Ufloat), 3, {{0, 0, 11}, {1, 11, 11}, {2, 22, 10}},
     true, false, kColor},
    {VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, 4, O(RGB), T(SHARED_EXP_9_9_9_5), K(SharedExponent), 3,
     {{0, 0, 9}, {1, 9, 9}, {2, 18, 9}}, false, false, kColor},
    {VK_FORMAT_R16_UNORM, 2, O(R), T(UNORM_INT16), K(Unorm), ONE(16), true, false, kColor},
    {VK_FORMAT_R16_SNORM, 2, O(R), T(SNORM_INT16), K(Snorm), ONE(16), false, false, kColor},
    {VK_FORMAT_R16_UINT, 2, O(R), T(UNSIGNED_INT16), K(Uint), ONE(16), false, false, kColor},
    {VK_FORMAT_R16_SINT, 2, O(R), T(SIGNED_INT16), K(Sint), ONE(16), false, false, kColor},
    {VK_FORMAT_R16_SFLOAT, 2, O(R), T(HALF_FLOAT), K(Sfloat), ONE(16), true, false, kColor},
    {VK_FORMAT_R16G16_UNORM, 4, O(RG), T(UNORM_INT16), K(Unorm), TWO(16), true, false, kColor},
    {VK_FORMAT_R16G16_SNORM, 4, O(RG), T(SNORM_INT16), K(Snorm), TWO(16), false, false, kColor},
    {VK_FORMAT_R16G16_UINT, 4, O(RG), T(UNSIGNED_INT16), K(Uint), TWO(16), false, false, kColor},
    {VK_FORMAT_R16G16_SINT, 4, O(RG), T(SIGNED_INT16), K(Sint), TWO(16), false, false, kColor},
    {VK_FORMAT_R16G16_SFLOAT, 4, O(RG), T(HALF_FLOAT), K(Sfloat), TWO(16), true, false, kColor},
    {VK_FORMAT_R16G16B16A16_UNORM, 8, O(RGBA), T(UNORM_INT16), K(Unorm), FOUR(16), true, false, kColor},
    {VK_FORMAT_R16G16B16A16_SNORM, 8, O(RGBA), T(SNORM_INT16), K(Snorm), FOUR(16), false, false, kColor},
    {VK_FORMAT_R16G16B16A16_UINT, 8, O(RGBA), T(UNSIGNED_INT16), K(Uint), FOUR(16), false, false, kColor},
    {VK_FORMAT_R16G16B16A16_SINT, 8, O(RGBA), T(SIGNED_INT16), K(Sint), FOUR(16), false, false, kColor},
    {VK_FORMAT_R16G16B16A16_SFLOAT, 8, O(RGBA), T(HALF_FLOAT), K(Sfloat), FOUR(16), true, false, kColor},
    {VK_FORMAT_R32_UINT, 4, O(R), T(UNSIGNED_INT32), K(Uint), ONE(32), false, false, kColor},
    {VK_FORMAT_R32_SINT, 4, O(R), T(SIGNED_INT32), K(Sint), ONE(32), false, false, kColor},
    {VK_FORMAT_R32_SFLOAT, 4, O(R), T(FLOAT), K(Sfloat), ONE(32), true, false, kColor},
    {VK_FORMAT_R32G32_UINT, 8, O(RG), T(UNSIGNED_INT32), K(Uint), TWO(32), false, false, kColor},
    {VK_FORMAT_R32G32_SINT, 8, O(RG), T(SIGNED_INT32), K(Sint), TWO(32), false, false, kColor},
    {VK_FORMAT_R32G32_SFLOAT, 8, O(RG), T(FLOAT), K(Sfloat), TWO(32), true, false, kColor},
    {VK_FORMAT_R32G32B32A32_UINT, 16, O(RGBA), T(UNSIGNED_INT32), K(Uint), FOUR(32), true, false, kColor},
    {VK_FORMAT_R32G32B32A32_SINT, 16, O(RGBA), T(SIGNED_INT32), K(Sint), FOUR(32), true, false, kColor},
    {VK_FORMAT_R32G32B32A32_SFLOAT, 16, O(RGBA), T(FLOAT), K(Sfloat), FOUR(32), true, false, kColor},
    // Depth: the texture unit reads d as (d, 0, 0, 1); the output merger renders D32 and D24S8.
    {VK_FORMAT_D16_UNORM, 2, O(DEPTH), T(UNORM_INT16), K(Unorm), ONE(16), false, true, kDepth},
    {VK_FORMAT_D32_SFLOAT, 4, O(DEPTH), T(FLOAT), K(Sfloat), ONE(32), false, true, kDepth},
    {VK_FORMAT_D24_UNORM_S8_UINT, 4, O(DEPTH_STENCIL), T(UNORM_INT24), K(Unorm), ONE(24), false, true, kDepthStencil},
    // D24S8's texel with its top byte unused: read as D24S8's depth, rendered as DEPTH_FORMAT 129
    // with the stencil test off (draw_execute.cc). zink takes it for OpenGL's 24-bit depth without
    // stencil; without it zink stores that depth in D32_SFLOAT images and uploads 24-bit integer
    // texels into them unconverted (piglit draw-pixels read back 0).
    {VK_FORMAT_X8_D24_UNORM_PACK32, 4, O(DEPTH_STENCIL), T(UNORM_INT24), K(Unorm), ONE(24), false, true, kDepth},
    // 8 bytes: the float depth, then the stencil byte (the output merger's DEPTH_FORMAT 130 layout).
    {VK_FORMAT_D32_SFLOAT_S8_UINT, 8, O(DEPTH_STENCIL), T(FLOAT), K(Sfloat), ONE(32), false, true, kDepthStencil},
};

#undef O
#undef T
#undef K
#undef ONE
#undef TWO
#undef FOUR

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (abs < 0x38800000u) {  // a binary16 subnormal (or zero): units of 2^-24, round to nearest even
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  const uint32_t rebased = abs - (112u << 23);  // exponent 127 -> 15
  const uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float linear_to_srgb(float c) {
  if (!(c > 0.0f)) return 0.0f;
  if (c >= 1.0f) return 1.0f;
  if (c <= 0.0031308f) return c * 12.92f;
  return static_cast<float>(1.055 * std::pow(static_cast<double>(c), 1.0 / 2.4) - 0.055);
}

// round(clamp(f, lo, 1) * max); NaN is 0.
int64_t normalized(float f, float lo, uint32_t max) {
  if (std::isnan(f)) return 0;
  const float clamped = f < lo ? lo : f > 1.0f ? 1.0f : f;
  return std::lround(static_cast<double>(clamped) * max);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24
    const float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float srgb_to_linear(float s) {
  if (s <= 0.04045f) return s / 12.92f;
  return static_cast<float>(std::pow((static_cast<double>(s) + 0.055) / 1.055, 2.4));
}

uint32_t component_bits(const FormatInfo& info, const Component& c, const VkClearColorValue& value) {
  const uint32_t max_unsigned = c.bits >= 32 ? 0xffffffffu : (1u << c.bits) - 1;
  const float f = value.float32[c.channel];
  switch (info.kind) {
    case NumericKind::kUnorm:
      return static_cast<uint32_t>(normalized(f, 0.0f, max_unsigned));
    case NumericKind::kSrgb:
      return static_cast<uint32_t>(normalized(c.channel < 3 ? linear_to_srgb(f) : f, 0.0f, max_unsigned));
    case NumericKind::kSnorm:
      return static_cast<uint32_t>(normalized(f, -1.0f, max_unsigned >> 1)) & max_unsigned;
    case NumericKind::kUint:
      return value.uint32[c.channel] & max_unsigned;
    case NumericKind::kSint:
      return static_cast<uint32_t>(value.int32[c.channel]) & max_unsigned;
    case NumericKind::kSfloat:
      return c.bits == 16 ? float_to_half(f) : std::bit_cast<uint32_t>(f);
    case NumericKind::kUfloat:
      return gsvirt::float_to_ufloat(f, c.bits - 5u);
    case NumericKind::kSharedExponent:
      return 0;  // the whole texel at once (encode_clear_color)
  }
  return 0;
}

// Component `c`'s bits as the value it stores (float bits or an integer).
uint32_t component_value(const FormatInfo& info, const Component& c, uint32_t bits) {
  const uint32_t max = c.bits >= 32 ? 0xffffffffu : (1u << c.bits) - 1;
  const uint32_t sign_bit = c.bits >= 32 ? 0x80000000u : 1u << (c.bits - 1);
  const int32_t as_signed = static_cast<int32_t>((bits ^ sign_bit) - sign_bit);  // sign-extended
  switch (info.kind) {
    case NumericKind::kUnorm:  // times the reciprocal, as the texture unit decodes
      return std::bit_cast<uint32_t>(static_cast<float>(bits) * (1.0f / static_cast<float>(max)));
    case NumericKind::kSrgb: {
      const float v = static_cast<float>(bits) * (1.0f / static_cast<float>(max));
      return std::bit_cast<uint32_t>(c.channel < 3 ? srgb_to_linear(v) : v);
    }
    case NumericKind::kSnorm:
      return std::bit_cast<uint32_t>(std::fmax(-1.0f, static_cast<float>(as_signed) / static_cast<float>(max >> 1)));
    case NumericKind::kUint:
      return bits;
    case NumericKind::kSint:
      return static_cast<uint32_t>(as_signed);
    case NumericKind::kSfloat:
      return c.bits == 16 ? std::bit_cast<uint32_t>(half_to_float(static_cast<uint16_t>(bits))) : bits;
    case NumericKind::kUfloat:
      return std::bit_cast<uint32_t>(gsvirt::ufloat_to_float(bits, c.bits - 5u));
    case NumericKind::kSharedExponent:
      return 0;  // the whole texel at once (decode_color)
  }
  return 0;
}

}  // namespace

const FormatInfo* find_format(VkFormat format) {
  for (const FormatInfo& info : kFormats) {
    if (info.format == format) return &info;
  }
  return nullptr;
}

const FormatInfo* supported_formats(uint32_t* count) {
  *count = sizeof(kFormats) / sizeof(kFormats[0]);
  return kFormats;
}

VkFormatFeatureFlags format_features(const FormatInfo* info) {
  if (info == nullptr) return 0;
  // Blits run on the host through decode_color / encode_clear_color (depth formats: same format,
  // nearest, texels copied), so every format can be a blit source and destination.
  VkFormatFeatureFlags features = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                  VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                  VK_FORMAT_FEATURE_BLIT_DST_BIT;
  // The texture unit filters every format it returns as floats; integer formats only by nearest.
  if (info->kind != NumericKind::kUint && info->kind != NumericKind::kSint) {
    features |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
  }
  if (info->color_target) features |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
  // The output merger blends every target but the integer ones (their words are stored unchanged).
  if (info->color_target && info->kind != NumericKind::kUint && info->kind != NumericKind::kSint) {
    features |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
  }
  if (info->depth_target) features |= VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
  return features;
}

AspectPlacement aspect_placement(const FormatInfo& info, VkImageAspectFlags aspect) {
  if ((info.aspects & aspect) == 0 || (aspect & (aspect - 1)) != 0) return {};  // one aspect the format has
  const bool stencil = aspect == VK_IMAGE_ASPECT_STENCIL_BIT;
  // Vulkan's buffer layouts: D24S8's depth is a 4-byte word (bits 0..23), D32S8's a float; stencil 1 byte.
  if (info.format == VK_FORMAT_D24_UNORM_S8_UINT) return stencil ? AspectPlacement{3, 1, 1} : AspectPlacement{0, 3, 4};
  if (info.format == VK_FORMAT_D32_SFLOAT_S8_UINT) return stencil ? AspectPlacement{4, 1, 1} : AspectPlacement{0, 4, 4};
  return {0, info.element_bytes, info.element_bytes};
}

uint32_t copy_texel_bytes(const FormatInfo& info, VkImageAspectFlags aspect) {
  return aspect_placement(info, aspect).buffer_bytes;
}

void encode_clear_color(const FormatInfo& info, const VkClearColorValue& value, uint8_t* out) {
  std::memset(out, 0, info.element_bytes);
  if (info.kind == NumericKind::kSharedExponent) {  // one exponent for r, g and b
    const uint32_t word = gsvirt::encode_e5b9g9r9(value.float32);
    std::memcpy(out, &word, 4);
    return;
  }
  for (uint32_t i = 0; i < info.component_count; ++i) {
    const Component& c = info.components[i];
    const uint32_t bits = component_bits(info, c, value);
    if (c.bit_offset % 8 == 0 && c.bits % 8 == 0) {  // byte-aligned (little endian host)
      std::memcpy(out + c.bit_offset / 8, &bits, c.bits / 8);
      continue;
    }
    for (uint32_t b = 0; b < c.bits; ++b) {
      if ((bits >> b) & 1u) out[(c.bit_offset + b) / 8] |= static_cast<uint8_t>(1u << ((c.bit_offset + b) % 8));
    }
  }
}

}  // namespace gsgpu::vk

namespace gsgpu::vk {

VkClearColorValue decode_color(const FormatInfo& info, const uint8_t* texel) {
  VkClearColorValue value{};
  const bool integer = info.kind == NumericKind::kUint || info.kind == NumericKind::kSint;
  value.uint32[3] = integer ? 1u : std::bit_cast<uint32_t>(1.0f);
  if (info.kind == NumericKind::kSharedExponent) {
    uint32_t word;
    std::memcpy(&word, texel, 4);
    gsvirt::decode_e5b9g9r9(word, value.float32);
    return value;
  }
  for (uint32_t i = 0; i < info.component_count; ++i) {
    const Component& c = info.components[i];
    uint32_t bits = 0;
    const uint8_t* at = texel + c.bit_offset / 8;
    if (c.bit_offset % 8 == 0 && c.bits == 8) {  // byte-aligned: the bytes themselves (little endian)
      bits = *at;
    } else if (c.bit_offset % 8 == 0 && c.bits == 16) {
      uint16_t half;
      std::memcpy(&half, at, 2);
      bits = half;
    } else if (c.bit_offset % 8 == 0 && c.bits == 32) {
      std::memcpy(&bits, at, 4);
    } else {
      for (uint32_t b = 0; b < c.bits; ++b) {
        bits |= static_cast<uint32_t>((texel[(c.bit_offset + b) / 8] >> ((c.bit_offset + b) % 8)) & 1u) << b;
      }
    }
    value.uint32[c.channel] = component_value(info, c, bits);
  }
  return value;
}

}  // namespace gsgpu::vk
