// Helpers for the primitive-engine tests: run triangles through the engine and count coverage.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gsgpu/emu/graphics/primitive_engine.h"

namespace gsgpu::graphics::test {

// How many times each pixel of a width x height target was covered.
struct CoverageImage {
  int32_t width = 0, height = 0;
  std::vector<int> count;
  std::vector<Quad> quads;
  int at(int32_t x, int32_t y) const { return count[size_t(y) * size_t(width) + size_t(x)]; }
};

inline ScreenVertex sv(float x, float y, float z = 0, float inv_w = 1) { return ScreenVertex{x, y, z, inv_w}; }

inline PrimitiveState full_target(int32_t w, int32_t h, CullMode cull = CullMode::kNone) {
  PrimitiveState s;
  s.setup.cull = cull;
  s.target_width = w;
  s.target_height = h;
  return s;
}

inline void accumulate(Queue<Quad>& quads, CoverageImage& image) {
  while (!quads.empty()) {
    Quad q = quads.pop();
    image.quads.push_back(q);
    for (int lane = 0; lane < 4; ++lane) {
      if (q.coverage & (1u << lane)) {
        image.count[size_t(q.y + (lane >> 1)) * size_t(image.width) + size_t(q.x + (lane & 1))]++;
      }
    }
  }
}

inline CoverageImage rasterize_all(PrimitiveEngine& engine, const PrimitiveState& state,
                                   const std::vector<std::array<ScreenVertex, 3>>& triangles) {
  CoverageImage image{state.target_width, state.target_height,
                      std::vector<int>(size_t(state.target_width) * size_t(state.target_height), 0), {}};
  engine.set_state(state);
  Queue<Quad> quads;
  for (const auto& tri : triangles) {
    TriangleSetup setup;
    engine.draw_triangle(tri, &setup, quads);
    accumulate(quads, image);
  }
  return image;
}

}  // namespace gsgpu::graphics::test
