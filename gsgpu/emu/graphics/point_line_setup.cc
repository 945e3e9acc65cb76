// Points as squares and lines as rectangles, each two triangles (rules in point_line_setup.h).
#include "gsgpu/emu/graphics/point_line_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gsgpu::graphics {
namespace {

// A corner comes back to the triangle setup as a float that is exactly k / 256 (|k| < 2^23), so the
// setup's snap finds k again.
ScreenVertex corner(int64_t x, int64_t y, const ScreenVertex& from) {
  ScreenVertex v = from;
  v.x = float(double(x) / kSubpixelOne);
  v.y = float(double(y) / kSubpixelOne);
  return v;
}

// Corners past the guard band are pulled back to it: the render area lies far inside, so no covered
// pixel changes, and every coordinate stays in the rasterizer's integer range.
int64_t clamp_to_band(int64_t v) {
  const int64_t limit = int64_t(kGuardBandPixels - 1) * kSubpixelOne;
  return std::clamp(v, -limit, limit);
}

}  // namespace

float clamp_point_size(float size) {
  if (std::isnan(size)) return kMinPointSize;
  return std::clamp(size, kMinPointSize, kMaxPointSize);
}

float clamp_line_width(float width) {
  if (std::isnan(width)) return kMinLineWidth;
  return std::clamp(width, kMinLineWidth, kMaxLineWidth);
}

int32_t bresenham_width(float width) { return int32_t(std::lround(clamp_line_width(width))); }

ExpandResult expand_point(const ScreenVertex& centre, float size, ExpandedPrimitive* out) {
  int64_t cx, cy, side;
  if (!snap_to_subpixel(centre.x, &cx) || !snap_to_subpixel(centre.y, &cy)) return ExpandResult::kOutsideGuardBand;
  snap_to_subpixel(clamp_point_size(size), &side);
  const int64_t x0 = clamp_to_band(cx - side / 2), x1 = clamp_to_band(cx - side / 2 + side);
  const int64_t y0 = clamp_to_band(cy - side / 2), y1 = clamp_to_band(cy - side / 2 + side);
  out->triangles[0] = {corner(x0, y0, centre), corner(x1, y0, centre), corner(x1, y1, centre)};
  out->triangles[1] = {corner(x0, y0, centre), corner(x1, y1, centre), corner(x0, y1, centre)};
  out->endpoint = {{{0, 0, 0}, {0, 0, 0}}};
  return ExpandResult::kOk;
}

ExpandResult expand_line(const ScreenVertex& a, const ScreenVertex& b, float width, ExpandedPrimitive* out) {
  int64_t ax, ay, bx, by;
  if (!snap_to_subpixel(a.x, &ax) || !snap_to_subpixel(a.y, &ay) || !snap_to_subpixel(b.x, &bx) ||
      !snap_to_subpixel(b.y, &by)) {
    return ExpandResult::kOutsideGuardBand;
  }
  const double dx = double(b.x) - a.x, dy = double(b.y) - a.y;
  const double length = std::sqrt(dx * dx + dy * dy);
  if (!(length > 0)) return ExpandResult::kDegenerate;
  // Half the width along the unit normal, snapped once and applied to both ends (a parallelogram
  // with integer corners; nearbyint rounds half to even, symmetric in the sign).
  const double scale = double(clamp_line_width(width)) / 2 / length;
  const int64_t tx = int64_t(std::nearbyint(-dy * scale * kSubpixelOne));
  const int64_t ty = int64_t(std::nearbyint(dx * scale * kSubpixelOne));
  const ScreenVertex a0 = corner(ax - tx, ay - ty, a), a1 = corner(ax + tx, ay + ty, a);
  const ScreenVertex b0 = corner(bx - tx, by - ty, b), b1 = corner(bx + tx, by + ty, b);
  out->triangles[0] = {a0, b0, b1};
  out->triangles[1] = {a0, b1, a1};
  out->endpoint = {{{0, 1, 1}, {0, 1, 0}}};
  return ExpandResult::kOk;
}

}  // namespace gsgpu::graphics

namespace gsgpu::graphics {

ExpandResult bresenham_triangle(const ScreenVertex& a, const ScreenVertex& b, float width, ExpandedPrimitive* out) {
  int64_t ax, ay, bx, by;
  if (!snap_to_subpixel(a.x, &ax) || !snap_to_subpixel(a.y, &ay) || !snap_to_subpixel(b.x, &bx) ||
      !snap_to_subpixel(b.y, &by)) {
    return ExpandResult::kOutsideGuardBand;
  }
  if (ax == bx && ay == by) return ExpandResult::kDegenerate;
  const bool x_major = std::llabs(bx - ax) >= std::llabs(by - ay);
  const int64_t half = bresenham_width(width) * kSubpixelOne / 2;
  const int64_t mx = x_major ? 0 : half, my = x_major ? half : 0;
  out->triangles[0] = {corner(ax - mx, ay - my, a), corner(bx - mx, by - my, b), corner(bx + mx, by + my, b)};
  out->triangles[1] = out->triangles[0];
  out->endpoint = {{{0, 1, 1}, {0, 1, 1}}};
  return ExpandResult::kOk;
}

}  // namespace gsgpu::graphics
