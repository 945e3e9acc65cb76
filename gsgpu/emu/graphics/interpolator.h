// Attribute and depth interpolation over a set-up triangle (Vulkan "Barycentric Interpolation").
//
// Screen-space barycentrics at a pixel centre come from the triangle's exact integer edge functions:
// b_i = E_i(p) / (2 * area), so they sum to 1 up to rounding and are 1 at vertex i. Then:
//   - depth is linear in screen space: z = sum b_i * z_i (Vulkan's depth interpolation for polygons);
//   - a perspective-correct varying is f = sum(b_i * f_i / w_i) / sum(b_i / w_i);
//   - a no-perspective varying is sum b_i * f_i;
//   - a flat varying takes the provoking vertex's value (vertex 0: Vulkan's default
//     VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX_EXT).
// Arithmetic is in double and rounded to float once at the end, so the result does not depend on
// the order in which pixels are shaded. Helper lanes outside the triangle get extrapolated values,
// which is what derivatives across a quad need.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

enum class Interpolation : uint8_t { kPerspective, kNoPerspective, kFlat };

// Everything a fragment lane needs at one pixel centre, from one evaluation of the edge functions.
struct PixelWeights {
  std::array<double, 3> screen{};       // screen_barycentrics()
  std::array<double, 3> perspective{};  // perspective_barycentrics()
  float depth = 0;                      // depth()
  float inverse_w = 0;                  // inverse_w()
};

class TriangleInterpolator {
 public:
  explicit TriangleInterpolator(const TriangleSetup& triangle);

  std::array<double, 3> screen_barycentrics(int32_t x, int32_t y) const;
  // Perspective-corrected weights: b_i / w_i normalised to sum to 1.
  std::array<double, 3> perspective_barycentrics(int32_t x, int32_t y) const;
  float depth(int32_t x, int32_t y) const;
  // 1 / w_clip, linear in screen space (gl_FragCoord.w).
  float inverse_w(int32_t x, int32_t y) const;
  // All four at once, bit for bit what the separate calls return (the fragment stage's hot path:
  // sum b_i / w_i is both the perspective normaliser and 1 / w).
  PixelWeights weights(int32_t x, int32_t y) const;
  // weights() of the four lanes of the quad at (x, y) (lane i at (x + (i & 1), y + (i >> 1))): the
  // edge values of lanes 1..3 are lane 0's plus exact integer steps, the rest as weights().
  void quad_weights(int32_t x, int32_t y, std::array<PixelWeights, 4>* out) const;
  // Only the depth and 1 / w of quad_weights() (bit for bit), for programs that read no varyings.
  // Where a triangle's three vertices share z (or 1 / w) the value is that z without a division
  // when the lane's weights are small enough that the sum of b_i z rounds back to z (see .cc).
  void quad_depth_and_inverse_w(int32_t x, int32_t y, std::array<PixelWeights, 4>* out) const;

  // The depth plane's change per pixel in x and in y (multisampled depth at a sample's location:
  // depth at the centre plus these times the sample's offset from it).
  std::array<float, 2> depth_slopes() const;

  // out[k] for k < count from per-vertex arrays attribute[i][k] (i = vertex).
  void interpolate(int32_t x, int32_t y, Interpolation mode, const std::array<const float*, 3>& attribute,
                   size_t count, float* out) const;

 private:
  // Written in place: returned by value, four copies of 64 bytes per quad cost more than they saved.
  void weights_from_edges(int64_t e0, int64_t e1, int64_t e2, PixelWeights* w) const;
  void depth_from_edges(int64_t e0, int64_t e1, int64_t e2, PixelWeights* w) const;

  const TriangleSetup& t_;
  // The vertices' shared z / 1 / w (equal bits, finite, not zero), when they share one.
  bool uniform_z_ = false, uniform_inverse_w_ = false;
};

}  // namespace gsgpu::graphics
