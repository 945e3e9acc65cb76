// The hierarchical rasterizer: tile descent with exact corner tests (rules in rasterizer.h).
#include "gsgpu/emu/graphics/rasterizer.h"

#include <algorithm>
#include <bit>

namespace gsgpu::graphics {
namespace {

int32_t tile_level_size(int level) { return kTopTileSize >> level; }

// !intersect(a, b).empty(), without building the rectangle (asked twice per tile visited; g++ -O2
// left it a call, 5 % of a small-triangle draw).
[[gnu::always_inline]] inline bool rects_meet(const PixelRect& a, const PixelRect& b) {
  return std::max(a.x0, b.x0) < std::min(a.x1, b.x1) && std::max(a.y0, b.y0) < std::min(a.y1, b.y1);
}

int32_t align_down(int32_t v, int32_t to) { return v - (v % to); }

bool contains(const PixelRect& outer, const PixelRect& inner) {
  return inner.x0 >= outer.x0 && inner.y0 >= outer.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1;
}

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
  if (settings_.bounding_box_test && !full_descent_ && start_at_fitting_level(triangle)) return;
  // The top-level tiles the box meets, with the option on or off (seed 002's baseline starts from
  // the box's tiles too; rasterizer.h): outside them no sample can be covered.
  const PixelRect walk = intersect(render_area, triangle.bbox);
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
  descend(t, x, y, level, classify(t, x, y, size));
}

void Rasterizer::descend(const TriangleSetup& t, int32_t x, int32_t y, int level, Coverage coverage) {
  const int32_t size = tile_level_size(level);
  switch (coverage) {
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

bool Rasterizer::start_at_fitting_level(const TriangleSetup& t) {
  const PixelRect& box = t.bbox;
  // Inside the render area the box's coordinates are non-negative and every tile meeting it is
  // walked; a box across top-level tiles is walked from the top.
  if (box.empty() || !contains(area_, box)) return false;
  // The box lies in one aligned tile of a power-of-two size s exactly when its first and last
  // coordinates agree above bit log2(s), i.e. when `spread` < s; the fitting level is the deepest
  // whose tiles are larger than spread (in closed form: the loop over levels was a tenth of the
  // rasterizer's time on small triangles).
  const uint32_t spread = uint32_t((box.x0 ^ (box.x1 - 1)) | (box.y0 ^ (box.y1 - 1)));
  const int fitting_bits = std::bit_width(spread);  // tiles of 2^fitting_bits pixels or more hold the box
  constexpr int kTopTileBits = std::bit_width(uint32_t{kTopTileSize}) - 1;  // 128 = 2^7
  if (fitting_bits > kTopTileBits) return false;   // across top-level tiles
  const int level = std::min(kTileLevels - 1, kTopTileBits - fitting_bits);
  if (level == 0) return false;
  const int32_t size = tile_level_size(level);
  const int32_t x = box.x0 & -size, y = box.y0 & -size;
  const Coverage coverage = classify(t, x, y, size);
  // A rejected tile's ancestors may be rejected too (their counts would differ): walk from the top.
  // Otherwise no ancestor is rejected (its samples include this tile's) or accepted (it has samples
  // outside the box, which no covered sample leaves).
  if (coverage == Coverage::kRejected) return false;
  count_enclosing_tiles(box, level);
  descend(t, x, y, level, coverage);
  return true;
}

// The full walk's counts above `level`: each tile holding the box is visited (and found partial);
// its other children that meet the render area are visited and rejected by the box.
void Rasterizer::count_enclosing_tiles(const PixelRect& box, int level) {
  const int32_t top_x = box.x0 & -kTopTileSize, top_y = box.y0 & -kTopTileSize;
  if (contains(area_, PixelRect{top_x, top_y, top_x + kTopTileSize, top_y + kTopTileSize})) {
    // The usual case: every tile under the top-level one meets the area, so below the top each
    // level has the tile holding the box and its three siblings.
    counters_.tiles_visited[0]++;
    for (int l = 1; l <= level; ++l) counters_.tiles_visited[l] += 4;
    counters_.tiles_rejected_by_bbox += 3 * uint64_t(level);
    return;
  }
  for (int l = 0; l < level; ++l) {
    const int32_t size = tile_level_size(l), half = size / 2;
    const int32_t x = box.x0 & -size, y = box.y0 & -size;
    const int32_t next_x = box.x0 & -half, next_y = box.y0 & -half;
    counters_.tiles_visited[l]++;
    for (int child = 0; child < 4; ++child) {
      const int32_t cx = x + (child & 1) * half, cy = y + (child >> 1) * half;
      if ((cx == next_x && cy == next_y) || !rects_meet(PixelRect{cx, cy, cx + half, cy + half}, area_)) continue;
      counters_.tiles_visited[l + 1]++;
      counters_.tiles_rejected_by_bbox++;
    }
  }
  counters_.tiles_visited[level]++;
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
  const uint16_t covered = block_coverage(t, x, y) & block_area_mask(x, y);
  for (int32_t qy = 0; qy < kBlockSize; qy += 2) {
    for (int32_t qx = 0; qx < kBlockSize; qx += 2) {
      const int bit = qy * kBlockSize + qx;  // lane 0; lane i at bit + (i & 1) + (i >> 1) * kBlockSize
      const uint8_t coverage = uint8_t((covered >> bit & 3) | (covered >> (bit + kBlockSize) & 3) << 2);
      emit_quad(x + qx, y + qy, coverage);
    }
  }
}

// Bit (py * 4 + px): the centre of pixel (x + px, y + py) is covered. Only the block's pixels inside
// the triangle's box are tested (no centre outside it is covered); the edge values at the first of
// them plus exact integer steps (E is linear) are the values E has at each centre.
uint16_t Rasterizer::block_coverage(const TriangleSetup& t, int32_t x, int32_t y) {
  const int32_t px0 = std::max(t.bbox.x0 - x, 0), px1 = std::min(t.bbox.x1 - x, kBlockSize);
  const int32_t py0 = std::max(t.bbox.y0 - y, 0), py1 = std::min(t.bbox.y1 - y, kBlockSize);
  std::array<int64_t, 3> row, step_x, step_y;
  for (int i = 0; i < 3; ++i) {
    const EdgeFunction& e = t.edges[i];
    row[i] = e.at(pixel_centre(x + px0), pixel_centre(y + py0)) + e.bias;
    step_x[i] = e.a * kSubpixelOne;
    step_y[i] = e.b * kSubpixelOne;
  }
  uint16_t covered = 0;
  for (int32_t py = py0; py < py1; ++py) {
    int64_t v0 = row[0], v1 = row[1], v2 = row[2];
    for (int32_t px = px0; px < px1; ++px) {
      if ((v0 | v1 | v2) >= 0) covered |= uint16_t(1u << (py * kBlockSize + px));  // no sign bit set
      v0 += step_x[0], v1 += step_x[1], v2 += step_x[2];
    }
    for (int i = 0; i < 3; ++i) row[i] += step_y[i];
  }
  return covered;
}

// The pixels of the block at (x, y) inside the render area, as block_coverage's bits.
uint16_t Rasterizer::block_area_mask(int32_t x, int32_t y) const {
  if (in_area(x, y) && in_area(x + kBlockSize - 1, y + kBlockSize - 1)) return 0xFFFF;  // the usual case
  uint16_t mask = 0;
  for (int py = 0; py < kBlockSize; ++py) {
    for (int px = 0; px < kBlockSize; ++px) {
      if (in_area(x + px, y + py)) mask |= uint16_t(1u << (py * kBlockSize + px));
    }
  }
  return mask;
}

void Rasterizer::emit_quad(int32_t x, int32_t y, uint8_t coverage) {
  if (coverage == 0) return;
  Quad q{x, y, coverage, uint8_t(~coverage & 0xF), {}};
  counters_.quads++;
  const int covered = quad_lanes(coverage);
  counters_.fragments += covered;
  counters_.helper_lanes += 4 - covered;
  out_->push(q);
}

}  // namespace gsgpu::graphics
