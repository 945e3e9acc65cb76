// The hierarchical rasterizer of the primitive engine (seed 002, after Larrabee).
//
// The render area (scissor intersected with the render target) is cut into 128x128 tiles; each tile
// is classified against the triangle's three edge functions, and a tile that is neither trivially
// rejected nor trivially accepted is split into four sub-tiles, down through 64, 32, 16 and 8 to 4x4
// blocks, where each pixel is tested. Classification evaluates each edge at the four corner sample
// centres of the tile: an edge is linear, so its extreme values over the tile's samples are at those
// corners, and the tests are exact, not conservative:
//   - trivial reject: some edge is negative (after its fill-rule bias) at all four corners;
//   - trivial accept: every edge is non-negative at all four corners: all samples are covered.
// The bounding-box option (RasterSettings::bounding_box_test) adds a test of each tile against the
// triangle's pixel bounding box before the edge tests. Corner tests cannot reject a tile that lies
// outside the triangle but not wholly outside any single edge (beyond a sharp vertex); the box test
// does, which seed 002 measured as a 10% gain. Either way the top level walks only the 128x128 tiles
// that meet the box, as seed 002's baseline rasterizer does ("the screen area the triangle's box
// covers is cut into tiles"), so the option's effect is the paper's: the box test below the top level.
//
// Small triangles (the box test on, the box inside the render area and inside one tile below the top
// level) start the descent at the smallest tile holding the box: the walk above it would find that
// tile's ancestors partial and their other children rejected by the box, so those counts are added
// without walking (start_at_fitting_level). The quads and every counter are the full walk's
// (tests/gsgpu/emu/graphics/rasterizer_test.cc compares the two on random triangles).
//
// Output: 2x2 quads (lane i at (x + (i & 1), y + (i >> 1))) with a coverage mask and a helper mask:
// the uncovered lanes of a quad run as helper invocations so that the fragment stage can take
// derivatives across the quad (Vulkan's helper invocations).
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/queue.h"
#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

inline constexpr int32_t kTopTileSize = 128;
inline constexpr int32_t kBlockSize = 4;
inline constexpr int kTileLevels = 6;  // 128, 64, 32, 16, 8, 4

struct Quad {
  int32_t x = 0, y = 0;   // the top-left pixel; both even
  uint8_t coverage = 0;   // bit i: lane i's pixel centre is covered (and inside the render area)
  uint8_t helper = 0;     // bit i: lane i runs as a helper invocation (never written)
  // Multisampled draws (rasterize_samples): bit s of samples[i] is lane i's sample s covered. 0 from
  // the single-sample paths, which the output merger reads as every sample of a covered lane.
  std::array<uint8_t, 4> samples{};
};

// Covered lanes of a 4-bit quad mask (a table: without -mpopcnt __builtin_popcount is a libgcc
// call, twice per quad).
inline int quad_lanes(uint8_t mask) {
  static constexpr int8_t kLanes[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return kLanes[mask & 0xF];
}

struct RasterSettings {
  bool bounding_box_test = true;
};

struct RasterCounters {
  uint64_t triangles = 0;
  std::array<uint64_t, kTileLevels> tiles_visited{};   // index 0: 128x128 ... 5: 4x4 blocks
  std::array<uint64_t, kTileLevels> tiles_rejected{};  // by the edge tests
  std::array<uint64_t, kTileLevels> tiles_accepted{};  // trivially, by the edge tests
  uint64_t tiles_rejected_by_bbox = 0;                 // all levels
  uint64_t blocks_tested = 0;                          // 4x4 blocks tested pixel by pixel
  uint64_t quads = 0;
  uint64_t fragments = 0;                              // covered lanes
  uint64_t helper_lanes = 0;
  void add(const RasterCounters& other);
};

// The multisampled rasterizer (rasterizer_samples.cc): every pixel of the quads meeting the
// triangle's box (grown by a pixel: a sample off the centre may be covered where the centre is not)
// inside `render_area` is tested at each of its `samples` standard locations with the same edge
// functions and fill rule as the pixel centres; a lane with any covered sample is covered. Counts
// triangles, quads, fragments and helper lanes (no tiles: it walks no hierarchy).
void rasterize_samples(const TriangleSetup& triangle, const PixelRect& render_area, uint32_t samples,
                       Queue<Quad>& out, RasterCounters* counters);

class Rasterizer {
 public:
  explicit Rasterizer(RasterSettings settings = {}) : settings_(settings) {}

  // Emits the quads of `triangle` that meet `render_area` (which must lie inside
  // [0, kMaxRenderTargetSize)^2), in tile order: top-level tiles row by row, then depth first.
  void rasterize(const TriangleSetup& triangle, const PixelRect& render_area, Queue<Quad>& out);

  const RasterSettings& settings() const { return settings_; }
  void set_settings(const RasterSettings& s) { settings_ = s; }
  const RasterCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }
  // Walk every level from the top even for small triangles (the reference the tests compare with).
  void set_full_descent(bool full) { full_descent_ = full; }

 private:
  enum class Coverage : uint8_t { kRejected, kAccepted, kPartial };
  Coverage classify(const TriangleSetup& t, int32_t x, int32_t y, int32_t size) const;
  void visit_tile(const TriangleSetup& t, int32_t x, int32_t y, int level);
  // What visit_tile does once the tile at (x, y) of `level` is classified.
  void descend(const TriangleSetup& t, int32_t x, int32_t y, int level, Coverage coverage);
  bool start_at_fitting_level(const TriangleSetup& t);
  void count_enclosing_tiles(const PixelRect& box, int level);
  void emit_accepted(int32_t x, int32_t y, int32_t size);
  void emit_block(const TriangleSetup& t, int32_t x, int32_t y);
  static uint16_t block_coverage(const TriangleSetup& t, int32_t x, int32_t y);
  uint16_t block_area_mask(int32_t x, int32_t y) const;
  void emit_quad(int32_t x, int32_t y, uint8_t coverage);
  bool in_area(int32_t x, int32_t y) const;

  RasterSettings settings_;
  bool full_descent_ = false;
  RasterCounters counters_;
  // Per-call state of rasterize().
  PixelRect area_;
  Queue<Quad>* out_ = nullptr;
};

}  // namespace gsgpu::graphics
