// Render-target number conversions (color_encoding.h).
#include "gsgpu/emu/graphics/color_encoding.h"

#include <bit>
#include <cmath>

#include "gsgpu/emu/texture/packed_float.h"

namespace gsgpu::graphics {
namespace {

constexpr uint32_t kF32Abs = 0x7fffffffu;
constexpr uint32_t kF32Inf = 0x7f800000u;

}  // namespace

uint32_t float_to_unorm(float c, uint32_t bits) {
  const uint32_t max = (1u << bits) - 1;
  if (!(c > 0.0f)) return 0;  // NaN too
  if (c >= 1.0f) return max;
  return static_cast<uint32_t>(static_cast<double>(c) * max + 0.5);
}

float unorm_to_float(uint32_t raw, uint32_t bits) {
  return static_cast<float>(raw) / static_cast<float>((1u << bits) - 1);
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & kF32Abs;
  if (abs > kF32Inf) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // quiet NaN
  if (abs == kF32Inf) return static_cast<uint16_t>(sign | 0x7c00u);
  const uint32_t h = texture::round_to_small_float(abs, 10);
  return static_cast<uint16_t>(sign | (h >= 0x7c00u ? 0x7c00u : h));  // binary16 overflows to infinity
}

}  // namespace gsgpu::graphics
