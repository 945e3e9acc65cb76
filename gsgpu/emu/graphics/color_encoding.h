// The number conversions of render-target components (Vulkan "Fixed-Point Data Conversions",
// "16-Bit Floating-Point Numbers", "Unsigned 11-Bit / 10-Bit Floating-Point Numbers"):
//   - UNORM of n bits: round(clamp(c, 0, 1) * (2^n - 1)), half up (the 8-bit path's rule, which
//     equals lavapipe's); NaN stores 0; loads raw / (2^n - 1).
//   - binary16: the texture unit's texture::float_to_half_rte (round to nearest even, what
//     lavapipe's F16C conversion does; overflow to infinity, NaN stays a quiet NaN).
//   - unsigned 11- / 10-bit floats: common/packed_float.h, shared with the texture unit and the
//     Vulkan driver.
#pragma once

#include <cstdint>

namespace gsgpu::graphics {

uint32_t float_to_unorm(float c, uint32_t bits);
float unorm_to_float(uint32_t raw, uint32_t bits);

}  // namespace gsgpu::graphics
