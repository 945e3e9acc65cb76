// The multisampled rasterizer: coverage per standard sample location (see rasterizer.h).
#include <algorithm>

#include "gsgpu/emu/graphics/multisample.h"
#include "gsgpu/emu/graphics/rasterizer.h"

namespace gsgpu::graphics {
namespace {

// Bit s: sample s of pixel (x, y) is inside all three edges (with their top-left bias).
uint8_t pixel_samples(const TriangleSetup& t, int32_t x, int32_t y, const SampleLocation* locations,
                      uint32_t samples) {
  uint8_t mask = 0;
  const int64_t px = int64_t{x} * kSubpixelOne, py = int64_t{y} * kSubpixelOne;
  for (uint32_t s = 0; s < samples; ++s) {
    const int64_t sx = px + locations[s].x, sy = py + locations[s].y;
    if (t.edges[0].covers(sx, sy) && t.edges[1].covers(sx, sy) && t.edges[2].covers(sx, sy)) {
      mask |= uint8_t(1u << s);
    }
  }
  return mask;
}

}  // namespace

void rasterize_samples(const TriangleSetup& t, const PixelRect& area, uint32_t samples, Queue<Quad>& out,
                       RasterCounters* counters) {
  counters->triangles++;
  // Sample locations lie inside the pixel, so a covered sample is at most one pixel from a centre
  // the box admits.
  const PixelRect grown{t.bbox.x0 - 1, t.bbox.y0 - 1, t.bbox.x1 + 1, t.bbox.y1 + 1};
  const PixelRect walk = intersect(area, grown);
  if (walk.empty()) return;
  const SampleLocation* locations = sample_locations(samples);
  // walk lies in the render area, whose coordinates are non-negative: & ~1 rounds down to even.
  for (int32_t qy = walk.y0 & ~1; qy < walk.y1; qy += 2) {
    for (int32_t qx = walk.x0 & ~1; qx < walk.x1; qx += 2) {
      Quad q{qx, qy, 0, 0, {}};
      for (int lane = 0; lane < 4; ++lane) {
        const int32_t x = qx + (lane & 1), y = qy + (lane >> 1);
        if (x < walk.x0 || x >= walk.x1 || y < walk.y0 || y >= walk.y1) continue;
        q.samples[lane] = pixel_samples(t, x, y, locations, samples);
        if (q.samples[lane] != 0) q.coverage |= uint8_t(1u << lane);
      }
      if (q.coverage == 0) continue;
      q.helper = uint8_t(~q.coverage & 0xF);
      counters->quads++;
      counters->fragments += quad_lanes(q.coverage);
      counters->helper_lanes += 4 - quad_lanes(q.coverage);
      out.push(q);
    }
  }
}

}  // namespace gsgpu::graphics
