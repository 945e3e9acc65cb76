// A grid of small triangles with depth testing and translucent blending (the order of the triangles
// decides the bytes) and some vertices before the near plane (the clipper cuts their triangles), as
// a triangle list or indexed strips with primitive restarts; and a draw of it whose bytes, counters
// and fault can be compared between the reference and the fast mode (fast mode's geometry thread:
// geometry_thread_test.cc, geometry_thread_program_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gsgpu/emu/graphics/draw_counters_json.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics::grid_test {

using gsgpu::testing::FlatMemory;

inline constexpr uint32_t kSize = 96;
inline constexpr int kCells = 36;  // a 36 x 36 grid of cells, two triangles each: 2,592 triangles

// Vertex (x, y, z, w, r, g, b, a) of grid point (i, j): the grid spans [-1.15, 1.15], with depths
// and translucent colours that vary from point to point.
inline void grid_point(int i, int j, std::vector<float>* out) {
  const float x = -1.15f + 2.3f * float(i) / kCells, y = -1.15f + 2.3f * float(j) / kCells;
  const float w = 1.0f + 0.125f * float((i + 2 * j) % 5);
  // Some points lie before the near plane: their triangles are cut by the clipper.
  const float z = (i * j) % 11 == 3 ? -0.1f : 0.2f + 0.05f * float((3 * i + j) % 7);
  out->insert(out->end(), {x * w, y * w, z * w, w, float(i % 7) / 6, float(j % 5) / 4, float((i + j) % 3) / 2,
                           0.25f + 0.125f * float((i * j) % 5)});
}

struct GridScene {
  FlatMemory memory{0x100000, 16 << 20};
  DrawState state;
  uint64_t color_va = 0, depth_va = 0;

  GridScene() {
    state.width = state.height = kSize;
    state.viewport = Viewport{0, 0, float(kSize), float(kSize), 0, 1};
    color_va = memory.alloc(size_t(kSize) * kSize * 4);
    depth_va = memory.alloc(size_t(kSize) * kSize * 4);
    state.color = ColorTargetState{true, color_va, kSize * 4, ColorFormat::kR8G8B8A8Unorm};
    state.depth = DepthTargetState{true, depth_va, kSize * 4, DepthFormat::kD32Sfloat};
    state.depth_stencil.depth_test = state.depth_stencil.depth_write = true;
    state.depth_stencil.depth_compare = CompareOp::kLessOrEqual;
    state.blend.enable = true;
    state.blend.src_color = BlendFactor::kSrcAlpha;
    state.blend.dst_color = BlendFactor::kOneMinusSrcAlpha;
    state.fragment = FragmentMode::kVaryingColor;
  }
  void bind(const std::vector<float>& vertices) {
    state.input.bindings[0] = VertexBinding{memory.upload(vertices), vertices.size() * 4, 32, InputRate::kVertex, 1};
    state.input.attributes[0] = VertexAttribute{0, 109, 0};   // R32G32B32A32_SFLOAT position
    state.input.attributes[1] = VertexAttribute{0, 109, 16};  // and colour
    state.input.attribute_count = 2;
  }
  // Every cell as two triangles of a list.
  void triangle_list() {
    std::vector<float> v;
    for (int j = 0; j < kCells; ++j) {
      for (int i = 0; i < kCells; ++i) {
        for (const auto [di, dj] : {std::pair{0, 0}, {1, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 1}}) grid_point(i + di, j + dj, &v);
      }
    }
    bind(v);
    state.draw = DrawParams{};
    state.draw.topology = Topology::kTriangleList;
    state.draw.count = uint32_t(v.size() / 8);
  }
  // The grid points once, and each row of cells as an indexed strip ended by a primitive restart.
  void indexed_strips() {
    std::vector<float> v;
    for (int j = 0; j <= kCells; ++j)
      for (int i = 0; i <= kCells; ++i) grid_point(i, j, &v);
    std::vector<uint16_t> indices;
    for (int j = 0; j < kCells; ++j) {
      for (int i = 0; i <= kCells; ++i) {
        indices.push_back(uint16_t(j * (kCells + 1) + i));
        indices.push_back(uint16_t((j + 1) * (kCells + 1) + i));
      }
      indices.push_back(0xFFFF);
    }
    bind(v);
    state.draw = DrawParams{};
    state.draw.topology = Topology::kTriangleStrip;
    state.draw.indexed = true;
    state.draw.index_type = IndexType::kUint16;
    state.draw.index_va = memory.upload(indices);
    state.draw.index_size = indices.size() * 2;
    state.draw.count = uint32_t(indices.size());
    state.draw.primitive_restart = true;
  }
  void clear() {
    std::memset(memory.host(color_va), 0, size_t(kSize) * kSize * 4);
    const float far = 1.0f;
    for (uint32_t i = 0; i < kSize * kSize; ++i) std::memcpy(memory.host(depth_va + 4 * i), &far, 4);
  }
};

struct Outcome {
  std::vector<uint8_t> color, depth;
  std::string counters;
  std::optional<std::string> fault;
};

// One draw on cleared targets; `setup` configures the pipeline (budgets, a cancel check).
inline Outcome draw(GridScene& s, DrawMode mode, DrawScratch* scratch,
             const std::function<void(GraphicsPipeline&)>& setup = nullptr) {
  s.clear();
  GraphicsPipeline gp(s.memory);
  gp.set_mode(mode);
  gp.set_scratch(scratch);
  if (setup) setup(gp);
  DrawResult r = gp.draw(s.state);
  r.counters.merge.overdraw = 0;  // fast mode keeps no overdraw map
  return Outcome{s.memory.download<uint8_t>(s.color_va, size_t(kSize) * kSize * 4),
                 s.memory.download<uint8_t>(s.depth_va, size_t(kSize) * kSize * 4),
                 format_draw_counters_json(r.counters), r.fault};
}

inline void expect_same(const Outcome& fast, const Outcome& reference) {
  EXPECT_EQ(fast.fault, reference.fault);
  EXPECT_EQ(fast.counters, reference.counters);
  EXPECT_TRUE(fast.color == reference.color) << "colour differs";
  EXPECT_TRUE(fast.depth == reference.depth) << "depth differs";
}

}  // namespace gsgpu::graphics::grid_test
