// Depth bias: the offset of one triangle (rules in depth_bias.h).
#include "gsgpu/emu/graphics/depth_bias.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {
namespace {

// The depth plane's larger slope. A degenerate triangle (setup drops it anyway)
// has none.
double max_depth_slope(const std::array<ScreenVertex, 3>& v) {
  const double x1 = double(v[1].x) - v[0].x, y1 = double(v[1].y) - v[0].y, z1 = double(v[1].z) - v[0].z;
  const double x2 = double(v[2].x) - v[0].x, y2 = double(v[2].y) - v[0].y, z2 = double(v[2].z) - v[0].z;
  const double det = x1 * y2 - x2 * y1;
  if (det == 0 || !std::isfinite(det)) return 0;
  const double dzdx = (z1 * y2 - z2 * y1) / det, dzdy = (x1 * z2 - x2 * z1) / det;
  return std::max(std::fabs(dzdx), std::fabs(dzdy));
}

// r of a D32_SFLOAT target: 2^(e - 23), e the exponent of the largest depth,
// computed on the bits (the exponent field minus 23, floored at 0) as Vulkan's
// definition reads for binary32.
double float_depth_unit(const std::array<ScreenVertex, 3>& v) {
  const float max_z = std::max({v[0].z, v[1].z, v[2].z});
  const int32_t field = int32_t(std::bit_cast<uint32_t>(std::fabs(max_z)) & 0x7f800000u) - (23 << 23);
  return field > 0 ? double(std::bit_cast<float>(uint32_t(field))) : 0.0;
}

}  // namespace

float depth_bias_offset(const DepthBias& bias, const std::array<ScreenVertex, 3>& vertices) {
  if (!bias.enable) return 0;
  const double r =
      bias.unorm_bits != 0 ? 2.0 / double((uint64_t{1} << bias.unorm_bits) - 1) : float_depth_unit(vertices);
  double o = max_depth_slope(vertices) * bias.slope + r * bias.constant;
  if (bias.clamp > 0) o = std::min(o, double(bias.clamp));
  if (bias.clamp < 0) o = std::max(o, double(bias.clamp));
  return std::isfinite(o) ? float(o) : 0.0f;  // huge slopes: no bias rather than an infinite depth
}

}  // namespace gsgpu::graphics
