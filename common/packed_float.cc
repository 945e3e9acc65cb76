// Unsigned packed float formats (packed_float.h).
#include "common/packed_float.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gsvirt {
namespace {

constexpr uint32_t kF32Abs = 0x7fffffffu;
constexpr uint32_t kF32Inf = 0x7f800000u;
// binary32's exponent bias (127) minus the 5-bit exponent's (15), in exponent position.
constexpr uint32_t kRebias = 112u << 23;
// 2^-14, the smallest normal of a 5-bit exponent, as binary32 bits.
constexpr uint32_t kSmallestNormal = 113u << 23;

// A positive finite binary32 (its bits `abs`) as a float of a 5-bit exponent (bias 15) and
// `mantissa_bits`, the mantissa rounded to nearest even; may carry into exponent 31 (the caller
// decides what overflow stores).
uint32_t round_to_small_float(uint32_t abs, uint32_t mantissa_bits) {
  if (abs < kSmallestNormal) {  // a subnormal there: a multiple of 2^-(14 + m), exact once scaled
    const float scaled = std::ldexp(std::bit_cast<float>(abs), 14 + static_cast<int>(mantissa_bits));
    return static_cast<uint32_t>(std::nearbyint(scaled));  // default rounding: to nearest even
  }
  const uint32_t drop = 23 - mantissa_bits;  // to nearest even; a carry into the exponent is right
  const uint32_t rebased = abs - kRebias;
  return (rebased + ((1u << (drop - 1)) - 1) + ((rebased >> drop) & 1u)) >> drop;
}

}  // namespace

uint32_t float_to_ufloat(float f, uint32_t mantissa_bits) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t abs = x & kF32Abs;
  const uint32_t infinity = 0x1fu << mantissa_bits;
  if (abs > kF32Inf) return infinity | 1u;  // NaN
  if (x >> 31) return 0;                    // negatives, -inf and -0: there is no sign bit
  if (abs == kF32Inf) return infinity;
  const uint32_t v = round_to_small_float(abs, mantissa_bits);
  return v >= infinity ? infinity - 1 : v;  // finite values stay finite
}

float ufloat_to_float(uint32_t raw, uint32_t mantissa_bits) {
  const uint32_t exponent = (raw >> mantissa_bits) & 0x1fu, mantissa = raw & ((1u << mantissa_bits) - 1);
  if (exponent == 0) return std::ldexp(static_cast<float>(mantissa), -14 - static_cast<int>(mantissa_bits));
  const uint32_t fraction = mantissa << (23 - mantissa_bits);
  if (exponent == 31) return std::bit_cast<float>(kF32Inf | fraction);
  return std::bit_cast<float>(((exponent + 112) << 23) | fraction);
}

void decode_b10g11r11(uint32_t word, float rgb[3]) {
  rgb[0] = ufloat_to_float(word & 0x7ffu, 6);
  rgb[1] = ufloat_to_float((word >> 11) & 0x7ffu, 6);
  rgb[2] = ufloat_to_float(word >> 22, 5);
}

uint32_t encode_b10g11r11(const float rgb[3]) {
  return float_to_ufloat(rgb[0], 6) | float_to_ufloat(rgb[1], 6) << 11 | float_to_ufloat(rgb[2], 5) << 22;
}

void decode_e5b9g9r9(uint32_t word, float rgb[3]) {
  const int exponent = static_cast<int>(word >> 27) - 15 - 9;
  for (int c = 0; c < 3; ++c) rgb[c] = std::ldexp(static_cast<float>((word >> (9 * c)) & 0x1ffu), exponent);
}

// Vulkan "Shared Exponent Conversion" with N = 9 mantissa bits, B = 15, Emax = 31.
uint32_t encode_e5b9g9r9(const float rgb[3]) {
  constexpr double kSharedMax = 511.0 / 512.0 * 65536.0;  // (2^N - 1) / 2^N x 2^(Emax - B)
  double c[3];
  for (int i = 0; i < 3; ++i) c[i] = std::isnan(rgb[i]) ? 0.0 : std::clamp(static_cast<double>(rgb[i]), 0.0, kSharedMax);
  const double largest = std::max({c[0], c[1], c[2]});
  // exp' = max(-B - 1, floor(log2(largest))) + 1 + B, then one more when largest rounds to 2^N.
  int exponent = std::max(-16, largest > 0 ? static_cast<int>(std::floor(std::log2(largest))) : -16) + 1 + 15;
  if (std::floor(largest / std::ldexp(1.0, exponent - 15 - 9) + 0.5) == 512.0) exponent += 1;
  uint32_t word = static_cast<uint32_t>(exponent) << 27;
  for (int i = 0; i < 3; ++i) {
    const auto m = static_cast<uint32_t>(std::floor(c[i] / std::ldexp(1.0, exponent - 15 - 9) + 0.5));
    word |= std::min(m, 511u) << (9 * i);
  }
  return word;
}

}  // namespace gsvirt
