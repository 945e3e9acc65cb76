// The diamond-exit rule for Bresenham lines (see bresenham.h).
#include "gsgpu/emu/graphics/bresenham.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>

#include "gsgpu/emu/graphics/point_line_setup.h"

namespace gsgpu::graphics {
namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Collects the line's pixels into 2x2 quads. A wide line produces a run of pixels across each
// major-axis column, so quads are gathered per pair of columns (one quad column) and sent when the
// line moves on to the next pair: each quad is sent once, pairs in line order.
class QuadBuilder {
 public:
  QuadBuilder(bool x_major, Queue<Quad>& out, RasterCounters* counters)
      : x_major_(x_major), out_(out), counters_(counters) {}
  // Pixels [lo, hi) of the minor axis in major-axis column c (lo < hi).
  void add(int32_t c, int32_t lo, int32_t hi) {
    const int32_t pair = c & ~1;
    if (pair != pair_) {
      flush();
      pair_ = pair;
    }
    Run& run = runs_[c - pair];
    run = run.lo < run.hi ? Run{std::min(run.lo, lo), std::max(run.hi, hi)} : Run{lo, hi};
  }
  void flush() {
    const int32_t lo = std::min(runs_[0].lo, runs_[1].lo) & ~1, hi = std::max(runs_[0].hi, runs_[1].hi);
    for (int32_t q = lo; q < hi; q += 2) {
      uint8_t mask = 0;
      for (int32_t i = 0; i < 2; ++i) {      // major-axis column of the pair
        for (int32_t j = 0; j < 2; ++j) {    // minor-axis row of the quad
          if (q + j < runs_[i].lo || q + j >= runs_[i].hi) continue;
          mask = uint8_t(mask | 1u << (x_major_ ? j * 2 + i : i * 2 + j));
        }
      }
      if (mask != 0) emit(x_major_ ? pair_ : q, x_major_ ? q : pair_, mask);
    }
    runs_ = {};
  }

 private:
  struct Run {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
  };
  void emit(int32_t qx, int32_t qy, uint8_t mask) {
    const int covered = __builtin_popcount(mask);
    counters_->quads++;
    counters_->fragments += uint64_t(covered);
    counters_->helper_lanes += uint64_t(4 - covered);
    out_.push(Quad{qx, qy, mask, uint8_t(~mask & 0xF), {}});
  }
  bool x_major_;
  Queue<Quad>& out_;
  RasterCounters* counters_;
  int32_t pair_ = INT32_MIN;
  std::array<Run, 2> runs_{};
};

}  // namespace

void rasterize_bresenham(const std::array<ScreenVertex, 3>& triangle, const PixelRect& area, Queue<Quad>& out,
                         RasterCounters* counters) {
  int64_t s[3][2];
  for (int i = 0; i < 3; ++i) {
    if (!snap_to_subpixel(triangle[i].x, &s[i][0]) || !snap_to_subpixel(triangle[i].y, &s[i][1])) return;
  }
  // The triangle is snap(a) - m, snap(b) - m, snap(b) + m with m half the width on the minor axis.
  const bool x_major = s[2][0] == s[1][0];
  const int64_t m[2] = {(s[2][0] - s[1][0]) / 2, (s[2][1] - s[1][1]) / 2};
  const int64_t width = std::clamp<int64_t>((m[0] + m[1]) * 2 / kSubpixelOne, 1, int64_t(kMaxLineWidth));
  // Vulkan's wide Bresenham lines: the segment moved by -(width - 1) / 2 on the minor axis is
  // rasterized with width 1, and each of its pixels becomes the first of `width` across.
  const int64_t shift = (width - 1) * kSubpixelOne / 2;
  const int64_t ax = s[0][0] + m[0] - (x_major ? 0 : shift), ay = s[0][1] + m[1] - (x_major ? shift : 0);
  const int64_t bx = s[1][0] + m[0] - (x_major ? 0 : shift), by = s[1][1] + m[1] - (x_major ? shift : 0);
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
  QuadBuilder quads(x_major, out, counters);
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
    const int64_t lo = std::max<int64_t>(r, v_lo), hi = std::min<int64_t>(r + width, v_hi);
    if (meets && !b_inside && lo < hi) quads.add(int32_t(c), int32_t(lo), int32_t(hi));
    if (c == c_last) break;
  }
  quads.flush();
}

}  // namespace gsgpu::graphics
