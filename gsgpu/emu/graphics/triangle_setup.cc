// Triangle setup: snap, orient, cull, build the edge functions (rules in triangle_setup.h).
#include "gsgpu/emu/graphics/triangle_setup.h"

#include <algorithm>
#include <cmath>

namespace gsgpu::graphics {
namespace {

// floor(a / kSubpixelOne): an arithmetic shift (C++20 defines >> of a negative value so), where a
// division was two 64-bit divides per bound, four per triangle.
int64_t floor_subpixels(int64_t a) { return a >> kSubpixelBits; }

struct SnappedVertex {
  int64_t x, y;
};

// The edge from p to q with its normal pointing to the side where E is positive before orientation.
EdgeFunction edge_from(const SnappedVertex& p, const SnappedVertex& q, int64_t sign) {
  EdgeFunction e;
  e.a = (q.y - p.y) * sign;
  e.b = -(q.x - p.x) * sign;
  e.c = -(e.a * p.x + e.b * p.y);
  // Inside is E > 0. A left edge has the interior towards +x (a > 0); a top edge is horizontal with
  // the interior towards +y, i.e. below it on screen (a == 0, b > 0).
  bool top_left = e.a > 0 || (e.a == 0 && e.b > 0);
  e.bias = top_left ? 0 : -1;
  return e;
}

// Pixels i whose centre i * one + one / 2 lies in [lo, hi] (subpixel units).
void centre_span(int64_t lo, int64_t hi, int32_t* first, int32_t* end) {
  *first = static_cast<int32_t>(-floor_subpixels(-(lo - kSubpixelOne / 2)));
  *end = static_cast<int32_t>(floor_subpixels(hi - kSubpixelOne / 2) + 1);
}

}  // namespace

PixelRect intersect(const PixelRect& a, const PixelRect& b) {
  return PixelRect{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}

const char* setup_result_name(SetupResult r) {
  switch (r) {
    case SetupResult::kAccepted: return "accepted";
    case SetupResult::kCulled: return "culled";
    case SetupResult::kDegenerate: return "degenerate";
    case SetupResult::kOutsideGuardBand: return "outside guard band";
  }
  return "?";
}

SetupResult setup_triangle(const std::array<ScreenVertex, 3>& vertices, const SetupState& state, TriangleSetup* out) {
  std::array<SnappedVertex, 3> s;
  for (int i = 0; i < 3; ++i) {
    if (!snap_to_subpixel(vertices[i].x, &s[i].x) || !snap_to_subpixel(vertices[i].y, &s[i].y)) {
      return SetupResult::kOutsideGuardBand;
    }
  }
  // sum(x_i * y_{i+1} - x_{i+1} * y_i); Vulkan's area a = -cross_sum / 2. Written out, as are the
  // edges below: the loops' indices modulo 3 cost about as much as the products.
  const SnappedVertex &s0 = s[0], &s1 = s[1], &s2 = s[2];
  const int64_t cross_sum = (s0.x * s1.y - s1.x * s0.y) + (s1.x * s2.y - s2.x * s1.y) + (s2.x * s0.y - s0.x * s2.y);
  if (cross_sum == 0) return SetupResult::kDegenerate;
  bool counter_clockwise = cross_sum < 0;
  bool front = counter_clockwise == (state.front_face == FrontFace::kCounterClockwise);
  bool culled = state.cull == CullMode::kFrontAndBack || (state.cull == CullMode::kFront && front) ||
                (state.cull == CullMode::kBack && !front);
  if (culled) return SetupResult::kCulled;

  // With p = v[i+1], q = v[i+2], the raw edge value at v[i] is -cross_sum: positive exactly when the
  // triangle is counter-clockwise; flip the sign otherwise so that the interior is always positive.
  int64_t sign = counter_clockwise ? 1 : -1;
  // Written in place (every field): a local TriangleSetup copied out was a sixth of this function.
  TriangleSetup& t = *out;
  const float offset = state.depth_bias.enable ? depth_bias_offset(state.depth_bias, vertices) : 0.0f;
  t.vertices = vertices;  // `vertices` is read no more below, so it may be out->vertices
  if (state.depth_bias.enable) {
    for (ScreenVertex& v : t.vertices) v.z += offset;
  }
  t.edges[0] = edge_from(s1, s2, sign);  // edges[i] from v[i+1] to v[i+2]
  t.edges[1] = edge_from(s2, s0, sign);
  t.edges[2] = edge_from(s0, s1, sign);
  t.twice_area = t.edges[0].at(s0.x, s0.y);
  t.front_facing = front;
  int64_t min_x = std::min({s0.x, s1.x, s2.x}), max_x = std::max({s0.x, s1.x, s2.x});
  int64_t min_y = std::min({s0.y, s1.y, s2.y}), max_y = std::max({s0.y, s1.y, s2.y});
  centre_span(min_x, max_x, &t.bbox.x0, &t.bbox.x1);
  centre_span(min_y, max_y, &t.bbox.y0, &t.bbox.y1);
  return SetupResult::kAccepted;
}

}  // namespace gsgpu::graphics
