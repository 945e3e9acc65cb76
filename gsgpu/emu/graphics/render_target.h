// Render-target formats and their conversions (Vulkan "Fixed-Point Data Conversions", sRGB transfer).
//
// A target is a view of host memory that the caller has already bounds-checked (the DRAW path maps
// the whole target through the MMU once): width x height pixels, row_pitch bytes apart.
//   - UNORM8 stores round(clamp(c, 0, 1) * 255), round half up; loads c / 255.
//   - SRGB8 stores the sRGB encoding of the linear value of R, G and B (alpha stays linear):
//     c <= 0.0031308 ? 12.92 c : 1.055 c^(1/2.4) - 0.055, then as UNORM8; loads decode the byte with
//     s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055)^2.4.
//   - B8G8R8A8 holds the same components as R8G8B8A8 with blue first in memory.
//   - R8 / R8G8 UNORM hold the first one / two components as UNORM8; loads give the missing green and
//     blue 0 and alpha 1 (Vulkan's component substitution).
//   - R32G32B32A32_SFLOAT stores floats unchanged.
//   - R32G32B32A32_UINT / _SINT store the fragment's four 32-bit words unchanged: the shader's integer
//     outputs travel in Color's floats bit for bit (copied, never computed on); no blending.
//   - D32_SFLOAT: one float; D24_UNORM_S8_UINT: one 32-bit word, depth round(z * (2^24 - 1)) in bits
//     0..23 and stencil in bits 24..31.
#pragma once

#include <array>
#include <cstdint>

namespace gsgpu::graphics {

enum class ColorFormat : uint8_t {
  kR8G8B8A8Unorm,
  kR8G8B8A8Srgb,
  kB8G8R8A8Unorm,
  kB8G8R8A8Srgb,
  kR32G32B32A32Sfloat,
  kR32G32B32A32Uint,
  kR32G32B32A32Sint,
  kR8Unorm,
  kR8G8Unorm,
};
enum class DepthFormat : uint8_t { kD32Sfloat, kD24UnormS8Uint, kD16Unorm };

using Color = std::array<float, 4>;  // R, G, B, A

// Inline: the output merger asks these per fragment.
inline bool is_integer(ColorFormat f) { return f == ColorFormat::kR32G32B32A32Uint || f == ColorFormat::kR32G32B32A32Sint; }
inline uint32_t bytes_per_pixel(ColorFormat f) {
  if (f == ColorFormat::kR8Unorm) return 1;
  if (f == ColorFormat::kR8G8Unorm) return 2;
  return f == ColorFormat::kR32G32B32A32Sfloat || is_integer(f) ? 16 : 4;
}
// Components stored: R8 1, R8G8 2, the others 4.
inline int stored_components(ColorFormat f) {
  return f == ColorFormat::kR8Unorm ? 1 : f == ColorFormat::kR8G8Unorm ? 2 : 4;
}
inline uint32_t bytes_per_pixel(DepthFormat f) { return f == DepthFormat::kD16Unorm ? 2 : 4; }
inline bool is_srgb(ColorFormat f) { return f == ColorFormat::kR8G8B8A8Srgb || f == ColorFormat::kB8G8R8A8Srgb; }
// UNORM or SRGB: fixed point, blend inputs clamped to [0, 1]
inline bool is_unorm(ColorFormat f) { return f != ColorFormat::kR32G32B32A32Sfloat && !is_integer(f); }
inline bool has_stencil(DepthFormat f) { return f == DepthFormat::kD24UnormS8Uint; }
const char* color_format_name(ColorFormat f);
const char* depth_format_name(DepthFormat f);

float srgb_to_linear(float s);
float linear_to_srgb(float c);
// Round to nearest as floor(x * max + 0.5); the value is positive there, so the conversion's
// truncation is that floor (a libm floor call per channel was 13 % of a flat fill's time). Inline:
// four per stored pixel.
inline uint8_t float_to_unorm8(float c) {
  // NaN becomes 0 (Vulkan leaves it undefined; a fixed choice keeps runs deterministic).
  if (!(c > 0.0f)) return 0;
  if (c >= 1.0f) return 255;
  return static_cast<uint8_t>(static_cast<double>(c) * 255.0 + 0.5);
}
uint32_t float_to_unorm24(float z);
uint32_t float_to_unorm16(float z);

struct ColorTarget {
  uint8_t* data = nullptr;
  uint32_t width = 0, height = 0;
  uint64_t row_pitch = 0;
  ColorFormat format = ColorFormat::kR8G8B8A8Unorm;

  uint8_t* pixel(uint32_t x, uint32_t y) const { return data + y * row_pitch + uint64_t{x} * bytes_per_pixel(format); }
  // Linear values (sRGB decoded).
  Color load(uint32_t x, uint32_t y) const;
  void store(uint32_t x, uint32_t y, const Color& linear) const;
  // The raw components as integers (UNORM / SRGB bytes in R, G, B, A order), for logic ops.
  std::array<uint32_t, 4> load_bits(uint32_t x, uint32_t y) const;
  void store_bits(uint32_t x, uint32_t y, const std::array<uint32_t, 4>& rgba) const;
};

struct DepthStencilTarget {
  uint8_t* data = nullptr;
  uint32_t width = 0, height = 0;
  uint64_t row_pitch = 0;
  DepthFormat format = DepthFormat::kD32Sfloat;

  uint8_t* pixel(uint32_t x, uint32_t y) const { return data + y * row_pitch + uint64_t{x} * bytes_per_pixel(format); }
  float load_depth(uint32_t x, uint32_t y) const;
  void store_depth(uint32_t x, uint32_t y, float z) const;
  uint8_t load_stencil(uint32_t x, uint32_t y) const;  // 0 for a format without stencil
  void store_stencil(uint32_t x, uint32_t y, uint8_t s) const;
};

}  // namespace gsgpu::graphics
