// Render-target number conversions (color_encoding.h).
#include "gsgpu/emu/graphics/color_encoding.h"

#include <bit>
#include <cmath>

namespace gsgpu::graphics {
namespace {

constexpr uint32_t kF32Abs = 0x7fffffffu;
constexpr uint32_t kF32Inf = 0x7f800000u;
// 127 - 15: binary32's exponent bias minus the 5-bit exponents' (binary16, 11- and 10-bit floats).
constexpr uint32_t kRebias = 112u << 23;
// The smallest normal of a 5-bit exponent, 2^-14, as binary32 bits.
constexpr uint32_t kSmallestNormal5 = 113u << 23;

// A positive finite binary32 (bits `abs`) in a 5-bit-exponent float with `mantissa_bits`, rounded
// to nearest even; may carry into exponent 31 (the caller decides what overflow stores).
uint32_t round_to_small_float(uint32_t abs, uint32_t mantissa_bits) {
  if (abs < kSmallestNormal5) {  // subnormal there: a multiple of 2^-(14 + m), exact after scaling
    const float scaled = std::ldexp(std::bit_cast<float>(abs), 14 + static_cast<int>(mantissa_bits));
    return static_cast<uint32_t>(std::nearbyint(scaled));  // default rounding: to nearest even
  }
  const uint32_t drop = 23 - mantissa_bits;
  const uint32_t rebased = abs - kRebias;
  const uint32_t rounded = rebased + ((1u << (drop - 1)) - 1) + ((rebased >> drop) & 1u);
  return rounded >> drop;
}

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
  const uint32_t h = round_to_small_float(abs, 10);
  return static_cast<uint16_t>(sign | (h >= 0x7c00u ? 0x7c00u : h));  // binary16 overflows to infinity
}

}  // namespace gsgpu::graphics
