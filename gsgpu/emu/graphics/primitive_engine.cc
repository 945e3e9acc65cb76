// The primitive engine: setup, cull, rasterize (see primitive_engine.h).
#include "gsgpu/emu/graphics/primitive_engine.h"

#include <algorithm>
#include <cmath>

#include "gsgpu/emu/graphics/bresenham.h"

namespace gsgpu::graphics {

PixelRect viewport_pixels(const Viewport& v) {
  // Pixel i's centre i + 0.5 lies in [lo, hi) when ceil(lo - 0.5) <= i < ceil(hi - 0.5). A
  // validated viewport is inside +-32768, so the bounds fit; they are clamped all the same.
  const auto first = [](double edge) {
    return int32_t(std::clamp(std::ceil(edge - 0.5), -2.0 * kMaxRenderTargetSize, 2.0 * kMaxRenderTargetSize));
  };
  const double y0 = std::min(double(v.y), double(v.y) + v.height), y1 = std::max(double(v.y), double(v.y) + v.height);
  return PixelRect{first(v.x), first(y0), first(double(v.x) + v.width), first(y1)};
}

void PrimitiveEngine::set_state(const PrimitiveState& state) {
  state_ = state;
  render_area_ = intersect(PixelRect{0, 0, state.target_width, state.target_height}, state.scissor);
  render_area_ = intersect(render_area_, PixelRect{0, 0, kMaxRenderTargetSize, kMaxRenderTargetSize});
  clipped_area_ = intersect(render_area_, state.viewport);
}

SetupResult PrimitiveEngine::draw_triangle(const std::array<ScreenVertex, 3>& vertices, TriangleSetup* setup,
                                           Queue<Quad>& quads, PrimitiveKind kind) {
  counters_.triangles_in++;
  if (kind == PrimitiveKind::kPoint) counters_.point_triangles++;
  if (kind == PrimitiveKind::kLine) counters_.line_triangles++;
  if (kind == PrimitiveKind::kBresenhamLine) counters_.bresenham_lines++;
  const bool triangle = kind == PrimitiveKind::kTriangle;
  SetupResult result = setup_triangle(vertices, triangle ? state_.setup : SetupState{}, setup);
  if (!triangle) setup->front_facing = true;  // Vulkan: points and lines are front-facing
  switch (result) {
    case SetupResult::kAccepted: {
      // Points keep their whole square up to the render area; the rest stays in the viewport.
      const PixelRect& area = kind == PrimitiveKind::kPoint ? render_area_ : clipped_area_;
      if (kind == PrimitiveKind::kBresenhamLine) {
        // Bresenham lines have no per-sample rule: their quads cover every sample of a pixel.
        rasterize_bresenham(vertices, clipped_area_, quads, &bresenham_raster_);
      } else if (state_.samples > 1) {
        rasterize_samples(*setup, area, state_.samples, quads, &sample_raster_);
      } else {
        rasterizer_.rasterize(*setup, area, quads);
      }
      break;
    }
    case SetupResult::kCulled: counters_.culled++; break;
    case SetupResult::kDegenerate: counters_.degenerate++; break;
    case SetupResult::kOutsideGuardBand: counters_.outside_guard_band++; break;
  }
  return result;
}

PrimitiveCounters PrimitiveEngine::counters() const {
  PrimitiveCounters c = counters_;
  c.raster = rasterizer_.counters();
  c.raster.add(bresenham_raster_);
  c.raster.add(sample_raster_);
  return c;
}

void PrimitiveEngine::reset_counters() {
  counters_ = {};
  bresenham_raster_ = {};
  sample_raster_ = {};
  rasterizer_.reset_counters();
}

}  // namespace gsgpu::graphics
