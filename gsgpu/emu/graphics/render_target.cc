// Render-target loads and stores with Vulkan's conversions (see render_target.h).
#include "gsgpu/emu/graphics/render_target.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gsgpu::graphics {
namespace {

bool is_bgra(ColorFormat f) { return f == ColorFormat::kB8G8R8A8Unorm || f == ColorFormat::kB8G8R8A8Srgb; }

// Memory position of component c (R, G, B, A) in an 8-bit format.
int byte_of(ColorFormat f, int c) { return (is_bgra(f) && c < 3) ? 2 - c : c; }

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
  }
  return "?";
}

const char* depth_format_name(DepthFormat f) {
  return f == DepthFormat::kD32Sfloat ? "D32_SFLOAT" : f == DepthFormat::kD16Unorm ? "D16_UNORM" : "D24_UNORM_S8_UINT";
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

Color ColorTarget::load(uint32_t x, uint32_t y) const {
  const uint8_t* p = pixel(x, y);
  Color c{};
  if (bytes_per_pixel(format) == 16) {  // SFLOAT, UINT, SINT: the words as they are
    std::memcpy(c.data(), p, 16);
    return c;
  }
  const int stored = stored_components(format);
  c[3] = 1.0f;  // R8 / R8G8: green and blue 0, alpha 1
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
  }
  for (int i = 0; i < 4; ++i) {
    float v = (is_srgb(format) && i < 3) ? linear_to_srgb(linear[i]) : linear[i];
    p[byte_of(format, i)] = float_to_unorm8(v);
  }
}

std::array<uint32_t, 4> ColorTarget::load_bits(uint32_t x, uint32_t y) const {
  const uint8_t* p = pixel(x, y);
  std::array<uint32_t, 4> bits{};
  if (bytes_per_pixel(format) == 16) {
    std::memcpy(bits.data(), p, 16);
    return bits;
  }
  for (int i = 0; i < stored_components(format); ++i) bits[i] = p[byte_of(format, i)];
  return bits;
}

void ColorTarget::store_bits(uint32_t x, uint32_t y, const std::array<uint32_t, 4>& rgba) const {
  uint8_t* p = pixel(x, y);
  if (bytes_per_pixel(format) == 16) {
    std::memcpy(p, rgba.data(), 16);
    return;
  }
  for (int i = 0; i < stored_components(format); ++i) p[byte_of(format, i)] = static_cast<uint8_t>(rgba[i]);
}

float DepthStencilTarget::load_depth(uint32_t x, uint32_t y) const {
  if (format == DepthFormat::kD16Unorm) {
    uint16_t bits;
    std::memcpy(&bits, pixel(x, y), 2);
    return static_cast<float>(static_cast<double>(bits) / 65535.0);
  }
  uint32_t word;
  std::memcpy(&word, pixel(x, y), 4);
  if (format == DepthFormat::kD32Sfloat) {
    float z;
    std::memcpy(&z, &word, 4);
    return z;
  }
  return static_cast<float>(static_cast<double>(word & 0xFFFFFF) / 16777215.0);
}

void DepthStencilTarget::store_depth(uint32_t x, uint32_t y, float z) const {
  uint8_t* p = pixel(x, y);
  if (format == DepthFormat::kD32Sfloat) {
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
  return pixel(x, y)[3];  // bits 24..31 of a little-endian word
}

void DepthStencilTarget::store_stencil(uint32_t x, uint32_t y, uint8_t s) const {
  if (has_stencil(format)) pixel(x, y)[3] = s;
}

}  // namespace gsgpu::graphics
