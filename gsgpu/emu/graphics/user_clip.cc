// Clip and cull distances (user_clip.h).
#include "gsgpu/emu/graphics/user_clip.h"

#include "gsgpu/emu/graphics/clipper.h"

#include <algorithm>
#include <cmath>

namespace gsgpu::graphics {
namespace {

bool inside(float d) { return d >= 0; }  // NaN is outside

// a + t (b - a) for every clip-space value a vertex carries, in double; noperspective varyings
// (linear_varyings) at the matching screen-space parameter (clipper.h lerp_varyings).
ShadedVertex lerp(const ShadedVertex& a, const ShadedVertex& b, double t, uint64_t linear_varyings) {
  ShadedVertex v = a;
  for (int k = 0; k < 4; ++k) v.position[k] = float(a.position[k] + t * (double(b.position[k]) - a.position[k]));
  lerp_varyings(a.varyings, b.varyings, t, a.position[3], b.position[3], kMaxVaryingComponents, linear_varyings,
                &v.varyings);
  for (uint32_t k = 0; k < kMaxClipCullDistances; ++k)
    v.distances[k] = float(a.distances[k] + t * (double(b.distances[k]) - a.distances[k]));
  return v;
}

// Whether every vertex has cull distance j below 0 (Vulkan: then the primitive is discarded).
bool culled(const AssembledPrimitive& p, uint32_t first, uint32_t count) {
  for (uint32_t j = first; j < first + count; ++j) {
    bool all_negative = true;
    for (uint32_t i = 0; i < p.vertex_count; ++i) all_negative = all_negative && p.vertices[i].distances[j] < 0;
    if (all_negative) return true;
  }
  return false;
}

// Sutherland-Hodgman of the triangle against each clip distance's zero; the fan of what is left.
void cut_triangle(const AssembledPrimitive& p, uint32_t clip, uint64_t linear, std::vector<AssembledPrimitive>* out) {
  std::vector<ShadedVertex> polygon(p.vertices.begin(), p.vertices.end());
  for (uint32_t j = 0; j < clip && polygon.size() >= 3; ++j) {
    std::vector<ShadedVertex> next;
    for (size_t i = 0; i < polygon.size(); ++i) {
      const ShadedVertex& a = polygon[i];
      const ShadedVertex& b = polygon[(i + 1) % polygon.size()];
      const float da = a.distances[j], db = b.distances[j];
      if (inside(da)) next.push_back(a);
      if (inside(da) != inside(db) && !std::isnan(da) && !std::isnan(db)) {
        next.push_back(lerp(a, b, double(da) / (double(da) - db), linear));
      }
    }
    polygon = std::move(next);
  }
  for (size_t i = 1; i + 1 < polygon.size(); ++i) {
    AssembledPrimitive t;
    t.vertex_count = 3;
    t.vertices = {polygon[0], polygon[i], polygon[i + 1]};
    out->push_back(t);
  }
}

// The parametric cut of a line: the t range where every clip distance is >= 0.
void cut_line(const AssembledPrimitive& p, uint32_t clip, uint64_t linear, std::vector<AssembledPrimitive>* out) {
  double t0 = 0, t1 = 1;
  for (uint32_t j = 0; j < clip; ++j) {
    const double da = p.vertices[0].distances[j], db = p.vertices[1].distances[j];
    if (!inside(float(da)) && !inside(float(db))) return;
    if (!inside(float(da))) t0 = std::max(t0, da / (da - db));
    if (!inside(float(db))) t1 = std::min(t1, da / (da - db));
  }
  if (!(t0 < t1)) return;
  AssembledPrimitive l = p;
  if (t0 > 0) l.vertices[0] = lerp(p.vertices[0], p.vertices[1], t0, linear);
  if (t1 < 1) l.vertices[1] = lerp(p.vertices[0], p.vertices[1], t1, linear);
  out->push_back(l);
}

}  // namespace

void cut_by_distances(const AssembledPrimitive& p, uint32_t clip, uint32_t cull, uint64_t linear_varyings,
                      std::vector<AssembledPrimitive>* out) {
  clip = std::min(clip, kMaxClipCullDistances);
  cull = std::min(cull, kMaxClipCullDistances - clip);
  if (culled(p, clip, cull)) return;
  bool all_inside = true;
  for (uint32_t i = 0; i < p.vertex_count; ++i)
    for (uint32_t j = 0; j < clip; ++j) all_inside = all_inside && inside(p.vertices[i].distances[j]);
  if (all_inside) return out->push_back(p);
  if (p.vertex_count == 3) return cut_triangle(p, clip, linear_varyings, out);
  if (p.vertex_count == 2) return cut_line(p, clip, linear_varyings, out);
  // A point outside a clip distance is dropped.
}

}  // namespace gsgpu::graphics
