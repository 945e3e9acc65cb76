// Depth bias (Vulkan "Depth Bias", PIPE_STATE RASTER.DEPTH_BIAS and DEPTH_BIAS_*): triangle setup
// adds one offset o to the depth of a filled triangle's three vertices, so every fragment of it
// moves by o (GL's polygon offset, through zink):
//   o = m * slope + r * constant, then clamped by `clamp` (> 0: at most clamp; < 0: at least clamp)
//   m = max(|dz/dx|, |dz/dy|) of the triangle's depth plane in framebuffer coordinates (the
//       approximation Vulkan allows instead of the gradient's length; lavapipe's too);
//   r = 2 / (2^n - 1) for an n-bit UNORM depth target (D16, D24: llvmpipe's minimum resolvable
//       difference times two, which lavapipe draws with), and for D32_SFLOAT 2^(e - 23) with e
//       the exponent of the largest vertex depth (0 below 2^-104).
// The outlines of polygon modes LINE / POINT take their polygon's offset (the clipper's
// outline_triangle); point and line topologies are not biased.
#pragma once

#include <array>
#include <cstdint>

namespace gsgpu::graphics {

struct ScreenVertex;

struct DepthBias {
  bool enable = false;
  float constant = 0, slope = 0, clamp = 0;  // finite (draw_state.cc checks them)
  uint32_t unorm_bits = 0;  // 16 or 24 for UNORM depth targets; 0 for D32_SFLOAT or no depth target
};

// The bias o of a triangle with these vertices (framebuffer coordinates, z after the viewport).
float depth_bias_offset(const DepthBias& bias, const std::array<ScreenVertex, 3>& vertices);

}  // namespace gsgpu::graphics
