// Barycentric interpolation of depth and varyings (formulas in interpolator.h).
#include "gsgpu/emu/graphics/interpolator.h"

#include <bit>
#include <cmath>

namespace gsgpu::graphics {
namespace {

// Equal bits at the three vertices, finite and not zero (a signed zero could come back as +0).
bool uniform_value(float a, float b, float c) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) &&
         std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(c) && std::isfinite(a) && a != 0.0f;
}

int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

}  // namespace

TriangleInterpolator::TriangleInterpolator(const TriangleSetup& triangle)
    : t_(triangle),
      uniform_z_(uniform_value(triangle.vertices[0].z, triangle.vertices[1].z, triangle.vertices[2].z)),
      uniform_inverse_w_(
          uniform_value(triangle.vertices[0].inv_w, triangle.vertices[1].inv_w, triangle.vertices[2].inv_w)) {}

std::array<double, 3> TriangleInterpolator::screen_barycentrics(int32_t x, int32_t y) const {
  const int64_t sx = pixel_centre(x), sy = pixel_centre(y);
  const double area = static_cast<double>(t_.twice_area);
  return {static_cast<double>(t_.edges[0].at(sx, sy)) / area, static_cast<double>(t_.edges[1].at(sx, sy)) / area,
          static_cast<double>(t_.edges[2].at(sx, sy)) / area};
}

std::array<double, 3> TriangleInterpolator::perspective_barycentrics(int32_t x, int32_t y) const {
  std::array<double, 3> b = screen_barycentrics(x, y);
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    b[i] *= static_cast<double>(t_.vertices[i].inv_w);
    sum += b[i];
  }
  // sum is 0 only where the plane of the triangle meets w = 0, which clipping keeps off screen.
  if (sum != 0) {
    for (double& v : b) v /= sum;
  }
  return b;
}

float TriangleInterpolator::depth(int32_t x, int32_t y) const {
  const std::array<double, 3> b = screen_barycentrics(x, y);
  double z = 0;
  for (int i = 0; i < 3; ++i) z += b[i] * static_cast<double>(t_.vertices[i].z);
  return static_cast<float>(z);
}

std::array<float, 2> TriangleInterpolator::depth_slopes() const {
  // z = sum E_i z_i / (2 area); E_i changes by a_i (b_i) subpixel units per subpixel in x (y).
  double dx = 0, dy = 0;
  for (int i = 0; i < 3; ++i) {
    const double z = static_cast<double>(t_.vertices[i].z);
    dx += static_cast<double>(t_.edges[i].a) * z;
    dy += static_cast<double>(t_.edges[i].b) * z;
  }
  const double per_pixel = static_cast<double>(kSubpixelOne) / static_cast<double>(t_.twice_area);
  return {static_cast<float>(dx * per_pixel), static_cast<float>(dy * per_pixel)};
}

float TriangleInterpolator::inverse_w(int32_t x, int32_t y) const {
  const std::array<double, 3> b = screen_barycentrics(x, y);
  double v = 0;
  for (int i = 0; i < 3; ++i) v += b[i] * static_cast<double>(t_.vertices[i].inv_w);
  return static_cast<float>(v);
}

PixelWeights TriangleInterpolator::weights(int32_t x, int32_t y) const {
  const int64_t sx = pixel_centre(x), sy = pixel_centre(y);
  PixelWeights w;
  weights_from_edges(t_.edges[0].at(sx, sy), t_.edges[1].at(sx, sy), t_.edges[2].at(sx, sy), &w);
  return w;
}

void TriangleInterpolator::quad_weights(int32_t x, int32_t y, std::array<PixelWeights, 4>* out) const {
  const int64_t sx = pixel_centre(x), sy = pixel_centre(y);
  const EdgeFunction &e0 = t_.edges[0], &e1 = t_.edges[1], &e2 = t_.edges[2];
  const int64_t v0 = e0.at(sx, sy), v1 = e1.at(sx, sy), v2 = e2.at(sx, sy);
  // E is linear: one pixel right adds a * one, one pixel down b * one (exact integers).
  const int64_t x0 = e0.a * kSubpixelOne, x1 = e1.a * kSubpixelOne, x2 = e2.a * kSubpixelOne;
  const int64_t y0 = e0.b * kSubpixelOne, y1 = e1.b * kSubpixelOne, y2 = e2.b * kSubpixelOne;
  weights_from_edges(v0, v1, v2, &(*out)[0]);
  weights_from_edges(v0 + x0, v1 + x1, v2 + x2, &(*out)[1]);
  weights_from_edges(v0 + y0, v1 + y1, v2 + y2, &(*out)[2]);
  weights_from_edges(v0 + x0 + y0, v1 + x1 + y1, v2 + x2 + y2, &(*out)[3]);
}

void TriangleInterpolator::quad_depth_and_inverse_w(int32_t x, int32_t y, std::array<PixelWeights, 4>* out) const {
  const int64_t sx = pixel_centre(x), sy = pixel_centre(y);
  const EdgeFunction &e0 = t_.edges[0], &e1 = t_.edges[1], &e2 = t_.edges[2];
  const int64_t v0 = e0.at(sx, sy), v1 = e1.at(sx, sy), v2 = e2.at(sx, sy);
  const int64_t x0 = e0.a * kSubpixelOne, x1 = e1.a * kSubpixelOne, x2 = e2.a * kSubpixelOne;
  const int64_t y0 = e0.b * kSubpixelOne, y1 = e1.b * kSubpixelOne, y2 = e2.b * kSubpixelOne;
  // The bound of depth_from_edges() for all four lanes at once: no lane's |e_i| exceeds lane 0's plus
  // both steps.
  const int64_t quad_bound = magnitude(v0) + magnitude(v1) + magnitude(v2) + magnitude(x0) + magnitude(x1) +
                             magnitude(x2) + magnitude(y0) + magnitude(y1) + magnitude(y2);
  if (uniform_z_ && uniform_inverse_w_ && quad_bound < (t_.twice_area << 12)) {
    for (PixelWeights& w : *out) w.depth = t_.vertices[0].z, w.inverse_w = t_.vertices[0].inv_w;
    return;
  }
  depth_from_edges(v0, v1, v2, &(*out)[0]);
  depth_from_edges(v0 + x0, v1 + x1, v2 + x2, &(*out)[1]);
  depth_from_edges(v0 + y0, v1 + y1, v2 + y2, &(*out)[2]);
  depth_from_edges(v0 + x0 + y0, v1 + x1 + y1, v2 + x2 + y2, &(*out)[3]);
}

// weights_from_edges()'s depth and 1 / w. With b_i = e_i / A rounded (A = twice the area, e_i summing
// to A exactly) and S = sum |e_i| / A, the double sum of b_i z differs from z by at most about
// 4 * 2^-53 * S * |z| (the rounding of each b_i, product and sum), and float(sum) is z whenever that
// is under half a float ulp, |z| * 2^-25. S < 2^12 leaves a margin of 2^10; beyond it (helper lanes
// far outside a sliver) the sums are computed. Test: Interpolator.SharedDepthAndInverseWAreTheSumsBitForBit.
void TriangleInterpolator::depth_from_edges(int64_t e0, int64_t e1, int64_t e2, PixelWeights* w) const {
  const bool small_weights = magnitude(e0) + magnitude(e1) + magnitude(e2) < (t_.twice_area << 12);
  if (small_weights && uniform_z_ && uniform_inverse_w_) {
    w->depth = t_.vertices[0].z;
    w->inverse_w = t_.vertices[0].inv_w;
    return;
  }
  PixelWeights full;
  weights_from_edges(e0, e1, e2, &full);
  w->depth = full.depth;
  w->inverse_w = full.inverse_w;
}

void TriangleInterpolator::weights_from_edges(int64_t e0, int64_t e1, int64_t e2, PixelWeights* out) const {
  PixelWeights& w = *out;
  const double area = static_cast<double>(t_.twice_area);  // as screen_barycentrics()
  w.screen = {static_cast<double>(e0) / area, static_cast<double>(e1) / area, static_cast<double>(e2) / area};
  // The same operations in the same order as perspective_barycentrics(), depth() and inverse_w().
  double sum = 0, z = 0;
  for (int i = 0; i < 3; ++i) {
    w.perspective[i] = w.screen[i] * static_cast<double>(t_.vertices[i].inv_w);
    sum += w.perspective[i];
    z += w.screen[i] * static_cast<double>(t_.vertices[i].z);
  }
  if (sum != 0) {
    for (double& v : w.perspective) v /= sum;
  }
  w.depth = static_cast<float>(z);
  w.inverse_w = static_cast<float>(sum);
}

void TriangleInterpolator::interpolate(int32_t x, int32_t y, Interpolation mode,
                                       const std::array<const float*, 3>& attribute, size_t count,
                                       float* out) const {
  if (mode == Interpolation::kFlat) {
    for (size_t k = 0; k < count; ++k) out[k] = attribute[0][k];
    return;
  }
  const std::array<double, 3> b =
      mode == Interpolation::kPerspective ? perspective_barycentrics(x, y) : screen_barycentrics(x, y);
  for (size_t k = 0; k < count; ++k) {
    double v = 0;
    for (int i = 0; i < 3; ++i) v += b[i] * static_cast<double>(attribute[i][k]);
    out[k] = static_cast<float>(v);
  }
}

}  // namespace gsgpu::graphics
