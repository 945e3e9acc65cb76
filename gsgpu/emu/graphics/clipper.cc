// Clipping against the near / far planes and the guard band, then divide and viewport (clipper.h).
#include "gsgpu/emu/graphics/clipper.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gsgpu::graphics {

struct Clipper::Vertex {
  std::array<double, 4> position;
  Varyings varyings;
};

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

Clipper::Clipper(const Viewport& viewport, uint32_t varying_components)
    : viewport_(viewport), varyings_(std::min(varying_components, kMaxVaryingComponents)) {
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
}

ScreenVertex Clipper::to_screen(const std::array<double, 4>& c) const {
  const double inv_w = 1.0 / c[3];
  const double xd = c[0] * inv_w, yd = c[1] * inv_w, zd = c[2] * inv_w;
  const Viewport& v = viewport_;
  return ScreenVertex{float(v.x + v.width / 2.0 * (1.0 + xd)), float(v.y + v.height / 2.0 * (1.0 + yd)),
                      float(v.min_depth + (double(v.max_depth) - v.min_depth) * zd), float(inv_w)};
}

void Clipper::emit(const Vertex& a, const Vertex& b, const Vertex& c, const Varyings& flat,
                   Queue<RasterTriangle>& out) {
  RasterTriangle t;
  t.screen = {to_screen(a.position), to_screen(b.position), to_screen(c.position)};
  t.varyings = {a.varyings, b.varyings, c.varyings};
  t.flat = flat;
  counters_.triangles_out++;
  out.push(t);
}

void Clipper::clip_triangle(const AssembledPrimitive& tri, Queue<RasterTriangle>& out) {
  counters_.triangles_in++;
  std::vector<Vertex> polygon(3);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) polygon[i].position[k] = tri.vertices[i].position[k];
    polygon[i].varyings = tri.vertices[i].varyings;
  }
  auto distance = [](const std::array<double, 5>& p, const Vertex& v) {
    return p[0] * v.position[0] + p[1] * v.position[1] + p[2] * v.position[2] + p[3] * v.position[3] + p[4];
  };
  bool all_inside = true;
  for (const auto& plane : planes_) {
    int outside = 0;
    for (const Vertex& v : polygon) {
      double d = distance(plane, v);
      if (!(d >= 0)) ++outside;  // NaN counts as outside
    }
    if (outside == 3) {
      counters_.rejected++;
      return;
    }
    if (outside) all_inside = false;
  }
  const Varyings& flat = tri.vertices[0].varyings;
  if (all_inside) {
    counters_.trivially_accepted++;
    emit(polygon[0], polygon[1], polygon[2], flat, out);
    return;
  }
  counters_.clipped++;
  for (const auto& plane : planes_) {
    std::vector<Vertex> next;
    for (size_t i = 0; i < polygon.size(); ++i) {
      const Vertex& a = polygon[i];
      const Vertex& b = polygon[(i + 1) % polygon.size()];
      double da = distance(plane, a), db = distance(plane, b);
      bool a_in = da >= 0, b_in = db >= 0;
      if (a_in) next.push_back(a);
      if (a_in != b_in) {
        double t = da / (da - db);
        Vertex v{};
        for (int k = 0; k < 4; ++k) v.position[k] = a.position[k] + t * (b.position[k] - a.position[k]);
        for (uint32_t k = 0; k < varyings_; ++k) {
          v.varyings[k] = float(a.varyings[k] + t * (double(b.varyings[k]) - a.varyings[k]));
        }
        next.push_back(v);
      }
    }
    polygon = std::move(next);
    if (polygon.size() < 3) return;
  }
  for (size_t i = 1; i + 1 < polygon.size(); ++i) emit(polygon[0], polygon[i], polygon[i + 1], flat, out);
}

}  // namespace gsgpu::graphics
