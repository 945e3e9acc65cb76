// Render-target loads and stores with Vulkan's conversions (see render_target.h).
#include "gsgpu/emu/graphics/render_target.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/packed_float.h"
#include "gsgpu/emu/graphics/color_encoding.h"
#include "gsgpu/emu/graphics/vertex_fetch.h"
#include "gsgpu/emu/texture/texel_format.h"

namespace gsgpu::graphics {
namespace {

bool is_bgra(ColorFormat f) { return f == ColorFormat::kB8G8R8A8Unorm || f == ColorFormat::kB8G8R8A8Srgb; }

// Memory position of component c (R, G, B, A) in an 8-bit format.
int byte_of(ColorFormat f, int c) { return (is_bgra(f) && c < 3) ? 2 - c : c; }

// The stored bits of component i: byte-aligned ones read directly (32-bit words of 16-byte
// pixels), packed ones out of the little-endian pixel (at most 4 bytes).
uint32_t read_component(const uint8_t* p, const ColorLayout& l, int i) {
  const uint32_t shift = l.shift[i], bits = l.bits[i];
  if (shift % 8 == 0 && bits % 8 == 0) {
    uint32_t v = 0;
    std::memcpy(&v, p + shift / 8, bits / 8);
    return v;
  }
  uint32_t word = 0;
  std::memcpy(&word, p, l.bytes);
  return (word >> shift) & ((1u << bits) - 1);
}

void write_component(uint8_t* p, const ColorLayout& l, int i, uint32_t v) {
  const uint32_t shift = l.shift[i], bits = l.bits[i];
  if (shift % 8 == 0 && bits % 8 == 0) {
    std::memcpy(p + shift / 8, &v, bits / 8);
    return;
  }
  const uint32_t mask = ((1u << bits) - 1) << shift;
  uint32_t word = 0;
  std::memcpy(&word, p, l.bytes);
  word = (word & ~mask) | ((v << shift) & mask);
  std::memcpy(p, &word, l.bytes);
}

float decode_component(const ColorLayout& l, int i, uint32_t raw) {
  switch (l.coding) {
    case Coding::kUnorm: return unorm_to_float(raw, l.bits[i]);
    case Coding::kSrgb: {
      const float v = static_cast<float>(raw) / 255.0f;
      return i < 3 ? srgb_to_linear(v) : v;
    }
    case Coding::kFloat: return l.bits[i] == 16 ? half_to_float(static_cast<uint16_t>(raw)) : std::bit_cast<float>(raw);
    case Coding::kUfloat: return gsvirt::ufloat_to_float(raw, l.bits[i] - 5u);
    case Coding::kWord: return std::bit_cast<float>(raw);
  }
  return 0.0f;
}

}  // namespace

const char* color_format_name(ColorFormat f) {
  switch (f) {
    case ColorFormat::kR8G8B8A8Unorm: return "R8G8B8A8_UNORM";
    case ColorFormat::kR8G8B8A8Srgb: return "R8G8B8A8_SRGB";
    case ColorFormat::kB8G8R8A8Unorm: return "B8G8R8A8_UNORM";
    case ColorFormat::kB8G8R8A8Srgb: return "B8G8R8A8_SRGB";
    case ColorFormat::kR32G32B32A32Sfloat: return "R32G32B32A32_SFLOAT";
    case ColorFormat::kR32G32B32A32Uint: return "R32G32B32A32_UINT";
    case ColorFormat::kR32G32B32A32Sint: return "R32G32B32A32_SINT";
    case ColorFormat::kR8Unorm: return "R8_UNORM";
    case ColorFormat::kR8G8Unorm: return "R8G8_UNORM";
    case ColorFormat::kR16G16B16A16Sfloat: return "R16G16B16A16_SFLOAT";
    case ColorFormat::kR16Sfloat: return "R16_SFLOAT";
    case ColorFormat::kR16G16Sfloat: return "R16G16_SFLOAT";
    case ColorFormat::kR32Sfloat: return "R32_SFLOAT";
    case ColorFormat::kR32G32Sfloat: return "R32G32_SFLOAT";
    case ColorFormat::kR16G16B16A16Unorm: return "R16G16B16A16_UNORM";
    case ColorFormat::kR16Unorm: return "R16_UNORM";
    case ColorFormat::kR16G16Unorm: return "R16G16_UNORM";
    case ColorFormat::kA2B10G10R10Unorm: return "A2B10G10R10_UNORM_PACK32";
    case ColorFormat::kR5G6B5Unorm: return "R5G6B5_UNORM_PACK16";
    case ColorFormat::kB10G11R11Ufloat: return "B10G11R11_UFLOAT_PACK32";
  }
  return "?";
}

bool color_format_from_vk(uint32_t vk_format, ColorFormat* out) {
  struct Code {
    uint32_t vk;
    ColorFormat format;
  };
  static constexpr Code kCodes[] = {
      {37, ColorFormat::kR8G8B8A8Unorm},      {43, ColorFormat::kR8G8B8A8Srgb},
      {44, ColorFormat::kB8G8R8A8Unorm},      {50, ColorFormat::kB8G8R8A8Srgb},
      {109, ColorFormat::kR32G32B32A32Sfloat}, {107, ColorFormat::kR32G32B32A32Uint},
      {108, ColorFormat::kR32G32B32A32Sint},  {9, ColorFormat::kR8Unorm},
      {16, ColorFormat::kR8G8Unorm},          {97, ColorFormat::kR16G16B16A16Sfloat},
      {76, ColorFormat::kR16Sfloat},          {83, ColorFormat::kR16G16Sfloat},
      {100, ColorFormat::kR32Sfloat},         {103, ColorFormat::kR32G32Sfloat},
      {91, ColorFormat::kR16G16B16A16Unorm},  {70, ColorFormat::kR16Unorm},
      {77, ColorFormat::kR16G16Unorm},        {64, ColorFormat::kA2B10G10R10Unorm},
      {4, ColorFormat::kR5G6B5Unorm},         {122, ColorFormat::kB10G11R11Ufloat},
      // A8B8G8R8_UNORM / _SRGB_PACK32: R8G8B8A8's bytes on a little-endian host.
      {51, ColorFormat::kR8G8B8A8Unorm},      {57, ColorFormat::kR8G8B8A8Srgb},
  };
  for (const Code& c : kCodes) {
    if (c.vk == vk_format) {
      *out = c.format;
      return true;
    }
  }
  return false;
}

const char* depth_format_name(DepthFormat f) {
  switch (f) {
    case DepthFormat::kD32Sfloat: return "D32_SFLOAT";
    case DepthFormat::kD16Unorm: return "D16_UNORM";
    case DepthFormat::kD32SfloatS8Uint: return "D32_SFLOAT_S8_UINT";
    default: return "D24_UNORM_S8_UINT";
  }
}

float srgb_to_linear(float s) {
  double v = s;
  return static_cast<float>(v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float c) {
  double v = std::clamp(static_cast<double>(c), 0.0, 1.0);
  return static_cast<float>(v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055);
}

// D16_UNORM: round to nearest, as D24.
uint32_t float_to_unorm16(float z) {
  if (!(z > 0.0f)) return 0;
  if (z >= 1.0f) return 0xFFFF;
  return static_cast<uint32_t>(static_cast<double>(z) * 65535.0 + 0.5);
}

uint32_t float_to_unorm24(float z) {
  if (!(z > 0.0f)) return 0;
  if (z >= 1.0f) return 0xFFFFFF;
  return static_cast<uint32_t>(static_cast<double>(z) * 16777215.0 + 0.5);
}

uint32_t encode_component(ColorFormat f, int i, float c) {
  const ColorLayout& l = color_layout(f);
  switch (l.coding) {
    case Coding::kUnorm: return l.bits[i] == 8 ? float_to_unorm8(c) : float_to_unorm(c, l.bits[i]);
    case Coding::kSrgb: return float_to_unorm8(i < 3 ? linear_to_srgb(c) : c);
    case Coding::kFloat: return l.bits[i] == 16 ? texture::float_to_half_rte(c) : std::bit_cast<uint32_t>(c);
    case Coding::kUfloat: return gsvirt::float_to_ufloat(c, l.bits[i] - 5u);
    case Coding::kWord: return std::bit_cast<uint32_t>(c);
  }
  return 0;
}

uint32_t component_mask(ColorFormat f, int i) {
  const uint32_t bits = color_layout(f).bits[i];
  return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
}

Color ColorTarget::load(uint32_t x, uint32_t y) const {
  const uint8_t* p = pixel(x, y);
  const ColorLayout& l = color_layout(format);
  Color c{};
  if (l.bytes == 16) {  // SFLOAT, UINT, SINT: the words as they are
    std::memcpy(c.data(), p, 16);
    return c;
  }
  c[3] = 1.0f;  // components not stored: 0, alpha 1
  if (l.bits[0] != 8) {  // 16-bit, packed and float formats
    for (int i = 0; i < l.components; ++i) c[i] = decode_component(l, i, read_component(p, l, i));
    return c;
  }
  const int stored = l.components;
  for (int i = 0; i < stored; ++i) c[i] = static_cast<float>(p[byte_of(format, i)]) / 255.0f;
  if (is_srgb(format)) {
    for (int i = 0; i < 3; ++i) c[i] = srgb_to_linear(c[i]);
  }
  return c;
}

void ColorTarget::store(uint32_t x, uint32_t y, const Color& linear) const {
  uint8_t* p = pixel(x, y);
  switch (format) {  // the linear formats without a per-component test; sRGB below
    case ColorFormat::kR32G32B32A32Sfloat:
    case ColorFormat::kR32G32B32A32Uint:
    case ColorFormat::kR32G32B32A32Sint: std::memcpy(p, linear.data(), 16); return;
    case ColorFormat::kR8G8B8A8Unorm:
      for (int i = 0; i < 4; ++i) p[i] = float_to_unorm8(linear[i]);
      return;
    case ColorFormat::kB8G8R8A8Unorm:
      for (int i = 0; i < 4; ++i) p[i < 3 ? 2 - i : 3] = float_to_unorm8(linear[i]);
      return;
    case ColorFormat::kR8Unorm:
    case ColorFormat::kR8G8Unorm:
      for (int i = 0; i < stored_components(format); ++i) p[i] = float_to_unorm8(linear[i]);
      return;
    case ColorFormat::kR8G8B8A8Srgb:
    case ColorFormat::kB8G8R8A8Srgb: break;
    default: {  // 16-bit, packed and float formats: each component through its coding
      const ColorLayout& l = color_layout(format);
      for (int i = 0; i < l.components; ++i) write_component(p, l, i, encode_component(format, i, linear[i]));
      return;
    }
  }
  for (int i = 0; i < 4; ++i) {
    float v = (is_srgb(format) && i < 3) ? linear_to_srgb(linear[i]) : linear[i];
    p[byte_of(format, i)] = float_to_unorm8(v);
  }
}

std::array<uint32_t, 4> ColorTarget::load_bits(uint32_t x, uint32_t y) const {
  const uint8_t* p = pixel(x, y);
  const ColorLayout& l = color_layout(format);
  std::array<uint32_t, 4> bits{};
  for (int i = 0; i < l.components; ++i) bits[i] = read_component(p, l, i);
  return bits;
}

void ColorTarget::store_bits(uint32_t x, uint32_t y, const std::array<uint32_t, 4>& rgba) const {
  uint8_t* p = pixel(x, y);
  const ColorLayout& l = color_layout(format);
  for (int i = 0; i < l.components; ++i) write_component(p, l, i, rgba[i]);
}

float DepthStencilTarget::load_depth(uint32_t x, uint32_t y) const {
  if (format == DepthFormat::kD16Unorm) {
    uint16_t bits;
    std::memcpy(&bits, pixel(x, y), 2);
    return static_cast<float>(static_cast<double>(bits) / 65535.0);
  }
  uint32_t word;
  std::memcpy(&word, pixel(x, y), 4);
  if (is_float_depth(format)) {
    float z;
    std::memcpy(&z, &word, 4);
    return z;
  }
  return static_cast<float>(static_cast<double>(word & 0xFFFFFF) / 16777215.0);
}

void DepthStencilTarget::store_depth(uint32_t x, uint32_t y, float z) const {
  uint8_t* p = pixel(x, y);
  if (is_float_depth(format)) {  // D32S8's stencil byte follows the float
    std::memcpy(p, &z, 4);
    return;
  }
  if (format == DepthFormat::kD16Unorm) {
    const auto bits = static_cast<uint16_t>(float_to_unorm16(z));
    std::memcpy(p, &bits, 2);
    return;
  }
  uint32_t word;
  std::memcpy(&word, p, 4);
  word = (word & 0xFF000000u) | float_to_unorm24(z);
  std::memcpy(p, &word, 4);
}

uint8_t DepthStencilTarget::load_stencil(uint32_t x, uint32_t y) const {
  if (!has_stencil(format)) return 0;
  return pixel(x, y)[stencil_byte(format)];
}

void DepthStencilTarget::store_stencil(uint32_t x, uint32_t y, uint8_t s) const {
  if (has_stencil(format)) pixel(x, y)[stencil_byte(format)] = s;
}

}  // namespace gsgpu::graphics
