// The unsigned packed float formats (Vulkan "Unsigned 11-Bit / 10-Bit Floating-Point Numbers",
// B10G11R11_UFLOAT_PACK32, and the shared-exponent E5B9G9R9_UFLOAT_PACK32): the texture unit's
// decode and encode (IMAGE_DESC data types UFLOAT_11_11_10, SHARED_EXP_9_9_9_5), the output
// merger's B10G11R11 target, and the Vulkan driver's clears and copies of those formats: plain
// number conversions, so they live below both the device and the driver.
//   - 11- / 10-bit floats: 5-bit exponent (bias 15), 6- / 5-bit mantissa, no sign. From binary32:
//     negatives and -0 give 0, +inf stays infinite, NaN stays NaN, the mantissa is rounded to
//     nearest even and finite values above the largest finite one (65024 for 11 bits, 64512 for
//     10) give it.
//   - E5B9G9R9: r, g, b = 9-bit mantissa x 2^(exponent - 24), no hidden bit. From binary32 with
//     the spec's algorithm: components clamped to [0, 65408] (NaN 0), the shared exponent from the
//     largest, mantissas rounded to nearest.
#pragma once

#include <cstdint>

namespace gsvirt {

// mantissa_bits: 6 for the 11-bit float, 5 for the 10-bit one.
uint32_t float_to_ufloat(float f, uint32_t mantissa_bits);
float ufloat_to_float(uint32_t raw, uint32_t mantissa_bits);

// B10G11R11: r in bits 10:0, g 21:11, b 31:22.
void decode_b10g11r11(uint32_t word, float rgb[3]);
uint32_t encode_b10g11r11(const float rgb[3]);

// E5B9G9R9: r in bits 8:0, g 17:9, b 26:18, the exponent in 31:27.
void decode_e5b9g9r9(uint32_t word, float rgb[3]);
uint32_t encode_e5b9g9r9(const float rgb[3]);

}  // namespace gsvirt
