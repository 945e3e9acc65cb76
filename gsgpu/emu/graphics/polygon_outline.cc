// Polygon modes LINE and POINT (Vulkan "Polygon Mode", the fillModeNonSolid feature): a triangle is
// clipped like a filled one, culled by the facing of the clipped polygon (as a filled triangle
// would be; its lines and points are never culled later), then drawn as its edges with the line
// rules or as its vertices with the point rules. Edges that clipping made (along a clip plane) are
// not drawn, nor vertices it made: only the triangle's own. Flat varyings are the triangle's
// provoking vertex's for every edge and point.
#include <cmath>

#include "gsgpu/emu/graphics/clipper.h"

namespace gsgpu::graphics {
namespace {

double plane_distance(const std::array<double, 5>& p, const std::array<double, 4>& v) {
  return p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3] * v[3] + p[4];
}

ShadedVertex shaded(const std::array<double, 4>& position, const Varyings& varyings) {
  ShadedVertex v;
  for (int k = 0; k < 4; ++k) v.position[k] = float(position[k]);
  v.varyings = varyings;
  return v;
}

}  // namespace

// Sutherland-Hodgman as clip_triangle, keeping for each edge polygon[i] -> polygon[i + 1] whether it
// is part of one of the triangle's edges (true) or lies along a clip plane (false). False when
// nothing is left.
bool Clipper::clip_with_edge_flags(const AssembledPrimitive& tri, std::vector<Vertex>* polygon,
                                   std::vector<bool>* edges) {
  polygon->assign(3, Vertex{});
  edges->assign(3, true);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) (*polygon)[i].position[k] = tri.vertices[i].position[k];
    (*polygon)[i].varyings = tri.vertices[i].varyings;
  }
  for (const auto& plane : planes_) {
    std::vector<Vertex> next;
    std::vector<bool> next_edges;
    for (size_t i = 0; i < polygon->size(); ++i) {
      const Vertex& a = (*polygon)[i];
      const Vertex& b = (*polygon)[(i + 1) % polygon->size()];
      const double da = plane_distance(plane, a.position), db = plane_distance(plane, b.position);
      const bool a_in = da >= 0, b_in = db >= 0;  // NaN is outside
      if (a_in) next.push_back(a), next_edges.push_back((*edges)[i]);
      if (a_in == b_in) continue;
      const double t = da / (da - db);
      Vertex v{};
      for (int k = 0; k < 4; ++k) v.position[k] = a.position[k] + t * (b.position[k] - a.position[k]);
      snap_to_plane(plane, v.position);
      for (uint32_t k = 0; k < varyings_; ++k) v.varyings[k] = float(a.varyings[k] + t * (double(b.varyings[k]) - a.varyings[k]));
      next.push_back(v);
      // Leaving: the new vertex's edge runs along the plane to where the polygon comes back in.
      // Entering: it continues the triangle's edge a -> b.
      next_edges.push_back(a_in ? false : (*edges)[i]);
    }
    *polygon = std::move(next);
    *edges = std::move(next_edges);
    if (polygon->size() < 3) return false;
  }
  return true;
}

// The cull test of triangle setup on the clipped polygon's screen-space area (its sign is the
// triangle's facing); a polygon of no area is drawn (its edges and points still show).
bool Clipper::culled(const std::vector<Vertex>& polygon, const OutlineState& state) const {
  double cross_sum = 0;
  for (size_t i = 0; i < polygon.size(); ++i) {
    const ScreenVertex p = to_screen(polygon[i].position), q = to_screen(polygon[(i + 1) % polygon.size()].position);
    cross_sum += double(p.x) * q.y - double(q.x) * p.y;
  }
  if (cross_sum == 0 || std::isnan(cross_sum)) return state.cull == CullMode::kFrontAndBack;
  const bool front = (cross_sum < 0) == (state.front_face == FrontFace::kCounterClockwise);
  return state.cull == CullMode::kFrontAndBack || (state.cull == CullMode::kFront && front) ||
         (state.cull == CullMode::kBack && !front);
}

void Clipper::outline_triangle(const AssembledPrimitive& tri, const OutlineState& state, Queue<RasterTriangle>& out) {
  counters_.triangles_in++;
  std::vector<Vertex> polygon;
  std::vector<bool> edges;
  if (!clip_with_edge_flags(tri, &polygon, &edges) || culled(polygon, state)) {
    counters_.rejected++;
    return;
  }
  const Varyings& flat = tri.flat_varyings();
  // Vulkan biases a polygon whatever its mode: the offset of the clipped polygon's plane (its first
  // three vertices) goes into every edge and point drawn for it.
  depth_offset_ = 0;
  if (state.depth_bias.enable) {
    const std::array<ScreenVertex, 3> plane{to_screen(polygon[0].position), to_screen(polygon[1].position),
                                            to_screen(polygon[2].position)};
    depth_offset_ = depth_bias_offset(state.depth_bias, plane);
  }
  struct ResetOffset {
    float& offset;
    ~ResetOffset() { offset = 0; }
  } reset{depth_offset_};
  if (state.mode == PolygonMode::kPoint) {
    for (const ShadedVertex& v : tri.vertices) {  // the point rules cull those outside the volume
      AssembledPrimitive point;
      point.vertex_count = 1;
      point.vertices[0] = v;
      clip_point(point, state.point_size, out, &flat);
    }
    return;
  }
  bool first_edge = true;  // the stipple counter restarts per triangle and runs on along its edges
  for (size_t i = 0; i < polygon.size(); ++i) {
    if (!edges[i]) continue;
    const Vertex& a = polygon[i];
    const Vertex& b = polygon[(i + 1) % polygon.size()];
    AssembledPrimitive line;
    line.restarts_stipple = first_edge;
    first_edge = false;
    line.vertex_count = 2;
    line.vertices[0] = shaded(a.position, a.varyings);
    line.vertices[1] = shaded(b.position, b.varyings);
    clip_line(line, state.line, out, &flat);
  }
}

}  // namespace gsgpu::graphics
