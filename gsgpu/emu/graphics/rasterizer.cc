// The hierarchical rasterizer: tile descent with exact corner tests (rules in rasterizer.h).
#include "gsgpu/emu/graphics/rasterizer.h"

#include <algorithm>

namespace gsgpu::graphics {
namespace {

int32_t tile_level_size(int level) { return kTopTileSize >> level; }

// !intersect(a, b).empty(), without building the rectangle (asked twice per tile visited; g++ -O2
// left it a call, 5 % of a small-triangle draw).
[[gnu::always_inline]] inline bool rects_meet(const PixelRect& a, const PixelRect& b) {
  return std::max(a.x0, b.x0) < std::min(a.x1, b.x1) && std::max(a.y0, b.y0) < std::min(a.y1, b.y1);
}

int32_t align_down(int32_t v, int32_t to) { return v - (v % to); }

}  // namespace

void RasterCounters::add(const RasterCounters& o) {
  triangles += o.triangles;
  for (int i = 0; i < kTileLevels; ++i) {
    tiles_visited[i] += o.tiles_visited[i];
    tiles_rejected[i] += o.tiles_rejected[i];
    tiles_accepted[i] += o.tiles_accepted[i];
  }
  tiles_rejected_by_bbox += o.tiles_rejected_by_bbox;
  blocks_tested += o.blocks_tested;
  quads += o.quads;
  fragments += o.fragments;
  helper_lanes += o.helper_lanes;
}

void Rasterizer::rasterize(const TriangleSetup& triangle, const PixelRect& render_area, Queue<Quad>& out) {
  counters_.triangles++;
  area_ = render_area;
  out_ = &out;
  if (render_area.empty()) return;
  // Which top-level tiles are walked: all of the render area, or only those the box meets.
  PixelRect walk = settings_.bounding_box_test ? intersect(render_area, triangle.bbox) : render_area;
  if (walk.empty()) return;
  for (int32_t ty = align_down(walk.y0, kTopTileSize); ty < walk.y1; ty += kTopTileSize) {
    for (int32_t tx = align_down(walk.x0, kTopTileSize); tx < walk.x1; tx += kTopTileSize) {
      visit_tile(triangle, tx, ty, 0);
    }
  }
  out_ = nullptr;
}

Rasterizer::Coverage Rasterizer::classify(const TriangleSetup& t, int32_t x, int32_t y, int32_t size) const {
  const int64_t x0 = pixel_centre(x), y0 = pixel_centre(y);
  const int64_t span = int64_t{size - 1} * kSubpixelOne;  // from the first sample centre to the last
  bool all_accept = true;
  for (const EdgeFunction& e : t.edges) {
    // The extremes of a linear function over the rectangle of sample centres are at its corners:
    // from the corner (x0, y0), the positive coefficients' steps raise it, the negative ones lower
    // it (exact integers, the same values as evaluating E at those corners).
    const int64_t at_first = e.at(x0, y0) + e.bias;
    const int64_t step_x = e.a * span, step_y = e.b * span;
    const int64_t hi = at_first + std::max<int64_t>(step_x, 0) + std::max<int64_t>(step_y, 0);
    if (hi < 0) return Coverage::kRejected;
    const int64_t lo = at_first + std::min<int64_t>(step_x, 0) + std::min<int64_t>(step_y, 0);
    if (lo < 0) all_accept = false;
  }
  return all_accept ? Coverage::kAccepted : Coverage::kPartial;
}

void Rasterizer::visit_tile(const TriangleSetup& t, int32_t x, int32_t y, int level) {
  const int32_t size = tile_level_size(level);
  const PixelRect tile{x, y, x + size, y + size};
  if (!rects_meet(tile, area_)) return;  // never counted: no sample of the tile may be written
  counters_.tiles_visited[level]++;
  if (settings_.bounding_box_test && !rects_meet(tile, t.bbox)) {
    counters_.tiles_rejected_by_bbox++;
    return;
  }
  switch (classify(t, x, y, size)) {
    case Coverage::kRejected:
      counters_.tiles_rejected[level]++;
      return;
    case Coverage::kAccepted:
      counters_.tiles_accepted[level]++;
      emit_accepted(x, y, size);
      return;
    case Coverage::kPartial:
      break;
  }
  if (size == kBlockSize) {
    emit_block(t, x, y);
    return;
  }
  const int32_t half = size / 2;
  visit_tile(t, x, y, level + 1);
  visit_tile(t, x + half, y, level + 1);
  visit_tile(t, x, y + half, level + 1);
  visit_tile(t, x + half, y + half, level + 1);
}

inline bool Rasterizer::in_area(int32_t x, int32_t y) const {  // used only in this file
  return x >= area_.x0 && x < area_.x1 && y >= area_.y0 && y < area_.y1;
}

void Rasterizer::emit_accepted(int32_t x, int32_t y, int32_t size) {
  const PixelRect live = intersect(PixelRect{x, y, x + size, y + size}, area_);
  for (int32_t qy = align_down(live.y0, 2); qy < live.y1; qy += 2) {
    for (int32_t qx = align_down(live.x0, 2); qx < live.x1; qx += 2) {
      // A quad wholly inside the area (the usual case) is covered in full without a test per lane.
      const bool inside = in_area(qx, qy) && in_area(qx + 1, qy + 1);
      uint8_t coverage = inside ? 0xF : 0;
      for (int lane = 0; !inside && lane < 4; ++lane) {
        if (in_area(qx + (lane & 1), qy + (lane >> 1))) coverage |= uint8_t(1u << lane);
      }
      emit_quad(qx, qy, coverage);
    }
  }
}

void Rasterizer::emit_block(const TriangleSetup& t, int32_t x, int32_t y) {
  counters_.blocks_tested++;
  const bool inside = in_area(x, y) && in_area(x + kBlockSize - 1, y + kBlockSize - 1);  // the usual case
  for (int32_t qy = y; qy < y + kBlockSize; qy += 2) {
    for (int32_t qx = x; qx < x + kBlockSize; qx += 2) {
      uint8_t coverage = 0;
      for (int lane = 0; lane < 4; ++lane) {
        int32_t px = qx + (lane & 1), py = qy + (lane >> 1);
        if (!inside && !in_area(px, py)) continue;
        int64_t sx = pixel_centre(px), sy = pixel_centre(py);
        if (t.edges[0].covers(sx, sy) && t.edges[1].covers(sx, sy) && t.edges[2].covers(sx, sy)) {
          coverage |= uint8_t(1u << lane);
        }
      }
      emit_quad(qx, qy, coverage);
    }
  }
}

void Rasterizer::emit_quad(int32_t x, int32_t y, uint8_t coverage) {
  if (coverage == 0) return;
  Quad q{x, y, coverage, uint8_t(~coverage & 0xF)};
  counters_.quads++;
  const int covered = quad_lanes(coverage);
  counters_.fragments += covered;
  counters_.helper_lanes += 4 - covered;
  out_->push(q);
}

}  // namespace gsgpu::graphics
