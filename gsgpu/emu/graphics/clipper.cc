// Clipping against the near / far planes and the guard band, then divide and viewport (clipper.h).
#include "gsgpu/emu/graphics/clipper.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gsgpu::graphics {
namespace {

// The coordinate each of the constructor's planes bounds (the w plane none: its x coefficient is 0),
// and 0 for the eighth, always-inside plane of outcode()'s last pair.
constexpr std::array<size_t, 8> kOutcodeAxis = {2, 2, 0, 0, 1, 1, 0, 0};

// Whether a coordinate has all exponent bits set (infinity or NaN): four at once where SSE2 is.
inline bool any_not_finite(const std::array<float, 4>& position) {
#if defined(__SSE2__)
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(position.data()));
  const __m128i exponent = _mm_set1_epi32(0x7f800000);
  return _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(bits, exponent), exponent)) != 0;
#else
  uint32_t not_finite = 0;
  for (float c : position) not_finite |= (std::bit_cast<uint32_t>(c) & 0x7f800000u) == 0x7f800000u;
  return not_finite != 0;
#endif
}

// Bit i: lane i of d is >= 0 (NaN is not).
inline uint32_t inside_lanes(double __attribute__((vector_size(16))) d) {
#if defined(__SSE2__)
  return uint32_t(_mm_movemask_pd(_mm_cmpge_pd(d, _mm_setzero_pd())));  // one instruction, not two lane moves
#else
  const auto inside = d >= 0;
  return uint32_t(inside[0] != 0) | uint32_t(inside[1] != 0) << 1;
#endif
}

}  // namespace

// Puts a new vertex exactly on the plane that made it. Interpolated as a + t (b - a), a coordinate
// between vertices at 1e30 is only known to about 1e14, far more than the guard band is wide, so the
// vertex could land anywhere (an enormous triangle then covered a few fragments of a target it
// encloses). The coordinate the plane bounds (x, y or z; w for the w plane) is recomputed from the
// others instead; each later plane does the same for its own, so the corners of the guard band come
// out exact.
void snap_to_plane(const std::array<double, 5>& plane, std::array<double, 4>& v) {
  int k = 3;
  for (int i = 0; i < 3; ++i) {
    if (plane[i] != 0) {
      k = i;
      break;
    }
  }
  double rest = plane[4];
  for (int j = 0; j < 4; ++j) {
    if (j != k) rest += plane[j] * v[j];
  }
  v[k] = -rest / plane[k];
}

std::optional<std::string> validate_viewport(const Viewport& v) {
  for (float f : {v.x, v.y, v.width, v.height, v.min_depth, v.max_depth}) {
    if (!std::isfinite(f)) return std::string("viewport has a value that is not finite");
  }
  if (!(v.width > 0) || v.height == 0) return std::string("viewport is empty");
  const float y_lo = std::min(v.y, v.y + v.height), y_hi = std::max(v.y, v.y + v.height);
  if (v.x < -kMaxViewportBound || v.x + v.width > kMaxViewportBound || y_lo < -kMaxViewportBound ||
      y_hi > kMaxViewportBound) {
    return std::string("viewport lies outside [-32768, 32768]");
  }
  if (v.min_depth < 0 || v.min_depth > 1 || v.max_depth < 0 || v.max_depth > 1) {
    return std::string("viewport depth range outside [0, 1]");
  }
  return std::nullopt;
}

void lerp_varyings(const Varyings& a, const Varyings& b, double t, double wa, double wb, uint32_t count,
                   uint64_t linear_varyings, Varyings* out) {
  const double w = (1 - t) * wa + t * wb;
  const double s = w > 0 ? t * wb / w : t;
  for (uint32_t k = 0; k < count; ++k) {
    const double u = (linear_varyings >> k & 1) ? s : t;
    (*out)[k] = float(a[k] + u * (double(b[k]) - a[k]));
  }
}

Clipper::Clipper(const Viewport& viewport, uint32_t varying_components, bool no_depth_clip, uint64_t linear_varyings)
    : viewport_(viewport),
      varyings_(std::min(varying_components, kMaxVaryingComponents)),
      copied_(carried_varying_components(varying_components)),
      no_depth_clip_(no_depth_clip),
      linear_varyings_(linear_varyings) {
  // NDC bounds that map to +-kGuardBandClip pixels: x_f = o + p / 2 * x_d.
  auto band = [](double origin, double extent, double* lo, double* hi) {
    double a = (-kGuardBandClip - origin) / (extent / 2), b = (kGuardBandClip - origin) / (extent / 2);
    *lo = std::min(a, b);
    *hi = std::max(a, b);
  };
  double x_lo, x_hi, y_lo, y_hi;
  band(viewport.x + viewport.width / 2.0, viewport.width, &x_lo, &x_hi);
  band(viewport.y + viewport.height / 2.0, viewport.height, &y_lo, &y_hi);
  planes_ = {{
      {0, 0, 1, 0, 0},       // near: z >= 0
      {0, 0, -1, 1, 0},      // far: z <= w
      {-1, 0, 0, x_hi, 0},   // x <= x_hi * w
      {1, 0, 0, -x_lo, 0},   // x >= x_lo * w
      {0, -1, 0, y_hi, 0},
      {0, 1, 0, -y_lo, 0},
      {0, 0, 0, 1, -kMinClipW},
  }};
  // No depth clip: the near and far planes become ones every vertex is inside (distance 1).
  if (no_depth_clip) planes_[0] = planes_[1] = {0, 0, 0, 0, 1};
  viewport_terms_ = {viewport.x, viewport.y, viewport.width / 2.0, viewport.height / 2.0, viewport.min_depth,
                     double(viewport.max_depth) - viewport.min_depth};
  const std::array<double, 5> kAlwaysInside = {0, 0, 0, 0, 1};
  for (size_t k = 0; k < 4; ++k) {
    const std::array<double, 5>& a = planes_[2 * k];
    const std::array<double, 5>& b = 2 * k + 1 < planes_.size() ? planes_[2 * k + 1] : kAlwaysInside;
    const size_t axis = kOutcodeAxis[2 * k];  // both planes of a pair bound the same coordinate
    plane_pairs_.axis[k] = DoublePair{a[axis], b[axis]};
    plane_pairs_.w[k] = DoublePair{a[3], b[3]};
    plane_pairs_.constant[k] = DoublePair{a[4], b[4]};
  }
}

ScreenVertex Clipper::to_screen(const std::array<double, 4>& c) const {
  const double inv_w = 1.0 / c[3];
  const double xd = c[0] * inv_w, yd = c[1] * inv_w;
  // Unclipped in z (no depth clip), z / w may be anything: kept finite in float so that setup's depth
  // plane stays finite; the output merger clamps the fragment's depth to the viewport's range.
  const double zd = no_depth_clip_ ? std::clamp(c[2] * inv_w, -1e30, 1e30) : c[2] * inv_w;
  const ViewportTerms& v = viewport_terms_;
  return ScreenVertex{float(v.x + v.half_width * (1.0 + xd)), float(v.y + v.half_height * (1.0 + yd)),
                      float(v.min_depth + v.depth_range * zd) + depth_offset_, float(inv_w)};
}

void Clipper::emit(const Vertex& a, const Vertex& b, const Vertex& c, const Varyings& flat,
                   Queue<RasterTriangle>& out) {
  RasterTriangle& t = out.push_slot();  // filled in place: a triangle is 1 KiB
  t.kind = PrimitiveKind::kTriangle;
  t.screen = {to_screen(a.position), to_screen(b.position), to_screen(c.position)};
  copy_varyings({&a.varyings, &b.varyings, &c.varyings}, flat, &t);
  counters_.triangles_out++;
}

void Clipper::copy_varyings(const std::array<const Varyings*, 3>& vertices, const Varyings& flat,
                            RasterTriangle* t) const {
  for (int i = 0; i < 3; ++i) copy_varying_blocks(*vertices[i], copied_, &t->varyings[i]);
  copy_varying_blocks(flat, copied_, &t->flat);
}

namespace {

std::array<double, 4> clip_position(const ShadedVertex& v) {
  return {v.position[0], v.position[1], v.position[2], v.position[3]};
}

double plane_distance(const std::array<double, 5>& p, const std::array<double, 4>& v) {
  return p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3] * v[3] + p[4];
}

}  // namespace

uint32_t Clipper::outcode(const ShadedVertex& vertex) const {
  const std::array<double, 4> v = clip_position(vertex);
  uint32_t code = 0;
  if (any_not_finite(vertex.position)) {  // 0 * inf is NaN in plane_distance: the full evaluation
    for (size_t p = 0; p < planes_.size(); ++p) {
      if (!(plane_distance(planes_[p], v) >= 0)) code |= 1u << p;  // NaN counts as outside
    }
    return code;
  }
  // With every coordinate finite a plane's zero coefficients add only zeros, which can change the
  // sign of a zero distance but never which side of the plane (>= 0) the vertex is on; so each
  // distance is its axis term plus its w term and constant, in plane_distance's order (the plane
  // shapes of the constructor: near and far bound z, then two for x, two for y, one for w alone).
  // Two planes at a time (plane_pairs_), each lane the same double operations in the same order
  // as one plane alone, so the same distances.
  const DoublePair ws = {v[3], v[3]};
#pragma GCC unroll 4
  for (size_t k = 0; k < 4; ++k) {
    const double a = v[kOutcodeAxis[2 * k]];
    const DoublePair d = plane_pairs_.axis[k] * DoublePair{a, a} + plane_pairs_.w[k] * ws + plane_pairs_.constant[k];
    const uint32_t inside = inside_lanes(d);
    code |= (~inside & 3u) << (2 * k);
  }
  return code;
}

Clipper::Extent Clipper::classify(const AssembledPrimitive& tri) const {
  const uint32_t a = outcode(tri.vertices[0]), b = outcode(tri.vertices[1]), c = outcode(tri.vertices[2]);
  if (a & b & c) return Extent::kOutside;  // all three outside one plane
  return (a | b | c) ? Extent::kCrossing : Extent::kInside;
}

void Clipper::clip_triangle(const AssembledPrimitive& tri, Queue<RasterTriangle>& out, const Varyings* flat_in) {
  counters_.triangles_in++;
  const Varyings& flat = flat_in ? *flat_in : tri.flat_varyings();
  switch (classify(tri)) {
    case Extent::kOutside: counters_.rejected++; return;
    case Extent::kInside: break;
    case Extent::kCrossing: counters_.clipped++; clip_polygon(tri, flat, out); return;
  }
  // Wholly inside every plane (most triangles): straight to the viewport, no clip-space copy.
  counters_.trivially_accepted++;
  RasterTriangle& t = out.push_slot();
  t.kind = PrimitiveKind::kTriangle;
  for (int i = 0; i < 3; ++i) t.screen[i] = to_screen(clip_position(tri.vertices[i]));
  copy_varyings({&tri.vertices[0].varyings, &tri.vertices[1].varyings, &tri.vertices[2].varyings}, flat, &t);
  counters_.triangles_out++;
}

// Sutherland-Hodgman against every plane, in the members' polygons (no allocation per triangle).
void Clipper::clip_polygon(const AssembledPrimitive& tri, const Varyings& flat, Queue<RasterTriangle>& out) {
  std::vector<Vertex>& polygon = polygon_;
  polygon.resize(3);
  for (int i = 0; i < 3; ++i) {
    polygon[i].position = clip_position(tri.vertices[i]);
    std::copy_n(tri.vertices[i].varyings.begin(), copied_, polygon[i].varyings.begin());
  }
  for (const auto& plane : planes_) {
    std::vector<Vertex>& next = next_polygon_;
    next.clear();
    for (size_t i = 0; i < polygon.size(); ++i) {
      const Vertex& a = polygon[i];
      const Vertex& b = polygon[(i + 1) % polygon.size()];
      double da = plane_distance(plane, a.position), db = plane_distance(plane, b.position);
      bool a_in = da >= 0, b_in = db >= 0;
      if (a_in) next.push_back(a);
      if (a_in != b_in) {
        double t = da / (da - db);
        Vertex& v = next.emplace_back();  // value-initialised: components past varyings_ are 0
        for (int k = 0; k < 4; ++k) v.position[k] = a.position[k] + t * (b.position[k] - a.position[k]);
        snap_to_plane(plane, v.position);
        lerp_varyings(a.varyings, b.varyings, t, a.position[3], b.position[3], varyings_, linear_varyings_,
                      &v.varyings);
      }
    }
    std::swap(polygon, next);
    if (polygon.size() < 3) return;
  }
  for (size_t i = 1; i + 1 < polygon.size(); ++i) emit(polygon[0], polygon[i], polygon[i + 1], flat, out);
}

}  // namespace gsgpu::graphics

namespace gsgpu::graphics {
namespace {

bool finite_position(const ShadedVertex& v) {
  return std::isfinite(v.position[0]) && std::isfinite(v.position[1]) && std::isfinite(v.position[2]) &&
         std::isfinite(v.position[3]);
}

}  // namespace

void ClipCounters::add(const ClipCounters& o) {
  triangles_in += o.triangles_in;
  trivially_accepted += o.trivially_accepted;
  clipped += o.clipped;
  rejected += o.rejected;
  triangles_out += o.triangles_out;
  points_in += o.points_in;
  points_culled += o.points_culled;
  lines_in += o.lines_in;
  lines_clipped += o.lines_clipped;
  lines_rejected += o.lines_rejected;
  lines_degenerate += o.lines_degenerate;
  points_out += o.points_out;
  lines_out += o.lines_out;
  outside_guard_band += o.outside_guard_band;
}

void Clipper::emit_expanded(PrimitiveKind kind, const ExpandedPrimitive& e, const std::array<const Varyings*, 2>& ends,
                            const Varyings& flat, Queue<RasterTriangle>& out) {
  for (int k = 0; k < 2; ++k) {
    RasterTriangle t;
    t.kind = kind;
    t.screen = e.triangles[k];
    for (int i = 0; i < 3; ++i) t.varyings[i] = *ends[e.endpoint[k][i]];
    t.flat = flat;
    out.push(t);
  }
}

void Clipper::clip_point(const AssembledPrimitive& point, float point_size, Queue<RasterTriangle>& out,
                         const Varyings* flat) {
  counters_.points_in++;
  const ShadedVertex& v = point.vertices[0];
  const double x = v.position[0], y = v.position[1], z = v.position[2], w = v.position[3];
  // The view volume itself, not the guard band (NaN fails every comparison).
  if (!finite_position(v) || !(w >= kMinClipW) || !(x >= -w && x <= w) || !(y >= -w && y <= w) ||
      !(no_depth_clip_ || (z >= 0 && z <= w))) {
    counters_.points_culled++;
    return;
  }
  ExpandedPrimitive e;
  const float size = v.has_point_size ? v.point_size : point_size;
  if (expand_point(to_screen({x, y, z, w}), size, &e) != ExpandResult::kOk) {
    counters_.outside_guard_band++;
    return;
  }
  counters_.points_out++;
  emit_expanded(PrimitiveKind::kPoint, e, {&v.varyings, &v.varyings}, flat ? *flat : v.varyings, out);
}

void Clipper::clip_line(const AssembledPrimitive& line, const LineRules& rules, Queue<RasterTriangle>& out,
                        const Varyings* flat) {
  counters_.lines_in++;
  if (line.restarts_stipple) stippler_.restart();
  const ShadedVertex& a = line.vertices[0];
  const ShadedVertex& b = line.vertices[1];
  if (!finite_position(a) || !finite_position(b)) {
    counters_.lines_rejected++;
    return;
  }
  std::array<double, 4> pa, pb;
  for (int k = 0; k < 4; ++k) pa[k] = a.position[k], pb[k] = b.position[k];
  // Parametric (Liang-Barsky) clip: the part of a + t (b - a) with t in [t0, t1] inside every plane.
  double t0 = 0, t1 = 1;
  const std::array<double, 5>*plane0 = nullptr, *plane1 = nullptr;  // the planes that set t0 and t1
  for (const auto& p : planes_) {
    const double da = p[0] * pa[0] + p[1] * pa[1] + p[2] * pa[2] + p[3] * pa[3] + p[4];
    const double db = p[0] * pb[0] + p[1] * pb[1] + p[2] * pb[2] + p[3] * pb[3] + p[4];
    if (da < 0 && db < 0) {
      t1 = -1;  // wholly outside
    } else if (da < 0 && da / (da - db) > t0) {
      t0 = da / (da - db), plane0 = &p;
    } else if (db < 0 && da / (da - db) < t1) {
      t1 = da / (da - db), plane1 = &p;
    }
    if (!(t0 <= t1)) {
      counters_.lines_rejected++;
      return;
    }
  }
  Varyings va = a.varyings, vb = b.varyings;
  auto at = [&](double t, std::array<double, 4>* pos, Varyings* var) {
    for (int k = 0; k < 4; ++k) (*pos)[k] = pa[k] + t * (pb[k] - pa[k]);
    lerp_varyings(a.varyings, b.varyings, t, pa[3], pb[3], varyings_, linear_varyings_, var);
  };
  std::array<double, 4> ca = pa, cb = pb;
  if (t0 > 0 || t1 < 1) {
    counters_.lines_clipped++;
    if (t1 < 1) at(t1, &cb, &vb), snap_to_plane(*plane1, cb);
    if (t0 > 0) at(t0, &ca, &va), snap_to_plane(*plane0, ca);
  }
  const Varyings& flat_varyings = flat ? *flat : line.flat_varyings();
  const LineEnd ea{to_screen(ca), &va, ca[3]}, eb{to_screen(cb), &vb, cb[3]};
  if (rules.stipple.enabled) {
    stipple_line(ea, eb, rules, flat_varyings, out);
  } else {
    set_up_line(ea.screen, eb.screen, va, vb, rules, flat_varyings, out);
  }
}

void Clipper::set_up_line(const ScreenVertex& sa, const ScreenVertex& sb, const Varyings& va, const Varyings& vb,
                          const LineRules& rules, const Varyings& flat, Queue<RasterTriangle>& out) {
  ExpandedPrimitive e;
  const bool bresenham = rules.mode == LineMode::kBresenham;
  switch (bresenham ? bresenham_triangle(sa, sb, rules.width, &e) : expand_line(sa, sb, rules.width, &e)) {
    case ExpandResult::kOk: break;
    case ExpandResult::kDegenerate: counters_.lines_degenerate++; return;
    case ExpandResult::kOutsideGuardBand: counters_.outside_guard_band++; return;
  }
  counters_.lines_out++;
  if (!bresenham) {
    emit_expanded(PrimitiveKind::kLine, e, {&va, &vb}, flat, out);
    return;
  }
  RasterTriangle t;
  t.kind = PrimitiveKind::kBresenhamLine;
  t.screen = e.triangles[0];
  for (int i = 0; i < 3; ++i) t.varyings[i] = e.endpoint[0][i] ? vb : va;
  t.flat = flat;
  out.push(t);
}

// Each drawn piece of a stippled line is set up as a line of its own. Its ends lie on the line in
// framebuffer coordinates (linear there, as lavapipe cuts them); their depth and 1 / w are linear
// in the framebuffer too, and their varyings are taken at the clip-space parameter of the same
// point, so that interpolation inside a piece is the whole line's.
void Clipper::stipple_line(const LineEnd& a, const LineEnd& b, const LineRules& rules, const Varyings& flat,
                           Queue<RasterTriangle>& out) {
  stippler_.split(a.screen.x, a.screen.y, b.screen.x, b.screen.y, rules.stipple, rules.mode == LineMode::kRectangular,
                  &stipple_runs_);
  auto at = [&](float u, ScreenVertex* s, Varyings* v) {
    s->x = a.screen.x + u * (b.screen.x - a.screen.x);
    s->y = a.screen.y + u * (b.screen.y - a.screen.y);
    s->z = a.screen.z + u * (b.screen.z - a.screen.z);
    s->inv_w = a.screen.inv_w + u * (b.screen.inv_w - a.screen.inv_w);
    // Screen parameter u is clip parameter t = u w_a / (u w_a + (1 - u) w_b).
    const double t = double(u) * a.w / (double(u) * a.w + (1.0 - u) * b.w);
    lerp_varyings(*a.varyings, *b.varyings, t, a.w, b.w, varyings_, linear_varyings_, v);
  };
  for (const StippleRun& run : stipple_runs_) {
    ScreenVertex sa = a.screen, sb = b.screen;
    Varyings va = *a.varyings, vb = *b.varyings;
    if (run.u0 > 0) at(run.u0, &sa, &va);
    if (run.u1 < 1) at(run.u1, &sb, &vb);
    set_up_line(sa, sb, va, vb, rules, flat, out);
  }
}

}  // namespace gsgpu::graphics
