// The primitive engine: triangle setup followed by the hierarchical rasterizer.
//
// It takes triangles in framebuffer coordinates from the geometry engine and hands the fragment
// stage each accepted triangle's setup (edge functions and vertices, for interpolation) with its 2x2
// quads in a Queue. The render area is the scissor rectangle intersected with the render target;
// a pixel outside it is never covered (it may still be a helper lane of a quad that is).
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/clipper.h"
#include "gsgpu/emu/graphics/queue.h"
#include "gsgpu/emu/graphics/rasterizer.h"
#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

struct PrimitiveState {
  SetupState setup;
  int32_t target_width = 0, target_height = 0;  // 1 .. kMaxRenderTargetSize (checked by the caller)
  PixelRect scissor{0, 0, kMaxRenderTargetSize, kMaxRenderTargetSize};
  uint32_t samples = 1;  // 1: the hierarchical rasterizer; 2 or 4: rasterize_samples
  // The pixels whose centres lie in the viewport rectangle (viewport_pixels): Vulkan clips
  // triangles and lines to the view volume, which the clipper leaves to the guard band, so they are
  // cut here; points keep their whole square up to the render area (docs/graphics.md).
  PixelRect viewport{-kMaxRenderTargetSize, -kMaxRenderTargetSize, 2 * kMaxRenderTargetSize, 2 * kMaxRenderTargetSize};
};

// The pixels whose centres lie in the viewport's rectangle, left / top edges in and right / bottom
// edges out (the top-left rule of a clipped triangle's edge there).
PixelRect viewport_pixels(const Viewport& v);

struct PrimitiveCounters {
  uint64_t triangles_in = 0;
  uint64_t culled = 0;
  uint64_t degenerate = 0;
  uint64_t outside_guard_band = 0;  // never happens behind the geometry engine's clipper
  uint64_t point_triangles = 0;     // of triangles_in: halves of points' squares
  uint64_t line_triangles = 0;      // of triangles_in: halves of lines' rectangles
  uint64_t bresenham_lines = 0;     // of triangles_in: Bresenham lines (their quads in raster)
  RasterCounters raster;
};

class PrimitiveEngine {
 public:
  explicit PrimitiveEngine(RasterSettings settings = {}) : rasterizer_(settings) {}

  void set_state(const PrimitiveState& state);
  // Sets the triangle up and, when it is accepted, rasterizes it into `quads`; the outcome is counted.
  // Halves of points and lines (point_line_setup.h) are front-facing and never culled.
  SetupResult draw_triangle(const std::array<ScreenVertex, 3>& vertices, TriangleSetup* setup, Queue<Quad>& quads,
                            PrimitiveKind kind = PrimitiveKind::kTriangle);

  PrimitiveCounters counters() const;
  void reset_counters();
  Rasterizer& rasterizer() { return rasterizer_; }

 private:
  PrimitiveState state_;
  PixelRect render_area_;
  PixelRect clipped_area_;  // render_area_ inside the viewport: triangles and lines
  Rasterizer rasterizer_;
  PrimitiveCounters counters_;
  RasterCounters bresenham_raster_;  // quads / fragments of Bresenham lines (no tiles)
  RasterCounters sample_raster_;     // of multisampled triangles (no tiles)
};

}  // namespace gsgpu::graphics
