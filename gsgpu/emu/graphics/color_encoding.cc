// Render-target number conversions (color_encoding.h).
#include "gsgpu/emu/graphics/color_encoding.h"

namespace gsgpu::graphics {

uint32_t float_to_unorm(float c, uint32_t bits) {
  const uint32_t max = (1u << bits) - 1;
  if (!(c > 0.0f)) return 0;  // NaN too
  if (c >= 1.0f) return max;
  return static_cast<uint32_t>(static_cast<double>(c) * max + 0.5);
}

float unorm_to_float(uint32_t raw, uint32_t bits) {
  return static_cast<float>(raw) / static_cast<float>((1u << bits) - 1);
}

}  // namespace gsgpu::graphics
