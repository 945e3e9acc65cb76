// The diamond-exit rule for Bresenham lines (see bresenham.h).
#include "gsgpu/emu/graphics/bresenham.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace gsgpu::graphics {
namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Collects the line's pixels into 2x2 quads in order.
class QuadBuilder {
 public:
  QuadBuilder(Queue<Quad>& out, RasterCounters* counters) : out_(out), counters_(counters) {}
  void add(int32_t x, int32_t y) {
    const int32_t qx = x & ~1, qy = y & ~1;
    if (qx != qx_ || qy != qy_) {
      flush();
      qx_ = qx, qy_ = qy;
    }
    mask_ = uint8_t(mask_ | 1u << ((y - qy) * 2 + (x - qx)));
  }
  void flush() {
    if (mask_ == 0) return;
    const int covered = __builtin_popcount(mask_);
    counters_->quads++;
    counters_->fragments += uint64_t(covered);
    counters_->helper_lanes += uint64_t(4 - covered);
    out_.push(Quad{qx_, qy_, mask_, uint8_t(~mask_ & 0xF), {}});
    mask_ = 0;
  }

 private:
  Queue<Quad>& out_;
  RasterCounters* counters_;
  int32_t qx_ = INT32_MIN, qy_ = INT32_MIN;
  uint8_t mask_ = 0;
};

}  // namespace

void rasterize_bresenham(const std::array<ScreenVertex, 3>& triangle, const PixelRect& area, Queue<Quad>& out,
                         RasterCounters* counters) {
  int64_t s[3][2];
  for (int i = 0; i < 3; ++i) {
    if (!snap_to_subpixel(triangle[i].x, &s[i][0]) || !snap_to_subpixel(triangle[i].y, &s[i][1])) return;
  }
  // The triangle is snap(a) - m, snap(b) - m, snap(b) + m with m half a pixel on the minor axis.
  const bool x_major = s[2][0] == s[1][0];
  const int64_t m[2] = {(s[2][0] - s[1][0]) / 2, (s[2][1] - s[1][1]) / 2};
  const int64_t ax = s[0][0] + m[0], ay = s[0][1] + m[1], bx = s[1][0] + m[0], by = s[1][1] + m[1];
  // Major (u) and minor (v) coordinates; du != 0 and |dv| <= |du|.
  const int64_t au = x_major ? ax : ay, av = x_major ? ay : ax, bu = x_major ? bx : by, bv = x_major ? by : bx;
  const int64_t du = bu - au, dv = bv - av, sign = du > 0 ? 1 : -1, D = du * sign;
  if (du == 0) return;
  const int32_t u_lo = x_major ? area.x0 : area.y0, u_hi = x_major ? area.x1 : area.y1;
  const int32_t v_lo = x_major ? area.y0 : area.x0, v_hi = x_major ? area.y1 : area.x1;
  // The columns from a's to b's, only those of the render area (a line clipped to the guard band may
  // be 64000 pixels long: the walk stays within 4096 columns).
  int64_t c_first = floor_div(au, kSubpixelOne), c_last = floor_div(bu, kSubpixelOne);
  c_first = sign > 0 ? std::max<int64_t>(c_first, u_lo) : std::min<int64_t>(c_first, u_hi - 1);
  c_last = sign > 0 ? std::min<int64_t>(c_last, u_hi - 1) : std::max<int64_t>(c_last, u_lo);
  if ((c_last - c_first) * sign < 0) return;
  QuadBuilder quads(out, counters);
  for (int64_t c = c_first;; c += sign) {
    const int64_t uc = c * kSubpixelOne + kSubpixelOne / 2;
    const int64_t ustar = std::clamp(uc, std::min(au, bu), std::max(au, bu));  // nearest to the centre
    // v(ustar) = N / D exactly, with the signs folded so that D > 0.
    const int64_t N = (av * du + (ustar - au) * dv) * sign;
    const int64_t r = floor_div(N, kSubpixelOne * D);
    const int64_t vc = r * kSubpixelOne + kSubpixelOne / 2;
    // |u - uc| + |v - vc| at ustar, times D: its minimum over the segment (|dv| <= |du|).
    const int64_t g = std::llabs(ustar - uc) * D + std::llabs(N - vc * D);
    const bool meets = g < (kSubpixelOne / 2) * D || (g == (kSubpixelOne / 2) * D && ustar == uc);
    const bool b_inside = std::llabs(bu - uc) + std::llabs(bv - vc) < kSubpixelOne / 2;
    if (meets && !b_inside && r >= v_lo && r < v_hi) {
      quads.add(x_major ? int32_t(c) : int32_t(r), x_major ? int32_t(r) : int32_t(c));
    }
    if (c == c_last) break;
  }
  quads.flush();
}

}  // namespace gsgpu::graphics
