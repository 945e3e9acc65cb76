// Fast mode's geometry thread (gsgpu/emu/graphics/geometry_thread.h, docs/graphics.md "Reference and
// fast modes"): draws whose geometry engine runs on its own thread and hands batches of triangles to
// the draw's thread give the reference mode's (single-thread) bytes, counters and faults, also when
// a fault on either side stops the draw part-way; the thread and its batches are reused from draw to
// draw. The draws use the fixed stages (no shader cores), with depth testing and blending so that the
// order of the triangles decides the bytes, and triangles across the viewport's edges so that the
// clipper's counters move.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gsgpu/emu/graphics/draw_counters_json.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

constexpr uint32_t kSize = 96;
constexpr int kCells = 36;  // a 36 x 36 grid of cells, two triangles each: 2,592 triangles

// Vertex (x, y, z, w, r, g, b, a) of grid point (i, j): the grid spans [-1.15, 1.15], with depths and translucent colours that vary from point to point.
void grid_point(int i, int j, std::vector<float>* out) {
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
Outcome draw(GridScene& s, DrawMode mode, DrawScratch* scratch,
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

void expect_same(const Outcome& fast, const Outcome& reference) {
  EXPECT_EQ(fast.fault, reference.fault);
  EXPECT_EQ(fast.counters, reference.counters);
  EXPECT_TRUE(fast.color == reference.color) << "colour differs";
  EXPECT_TRUE(fast.depth == reference.depth) << "depth differs";
}

TEST(GeometryThread, FastDrawsGiveTheReferencesBytesAndCountersOverManyBatches) {
  GridScene s;
  DrawScratch scratch;
  const std::function<void()> draws[] = {
      [&] { s.triangle_list(); },
      [&] { s.indexed_strips(); },
      [&] {
        s.triangle_list();
        s.state.draw.instance_count = 2;  // the second instance draws over the first (depth LESS_OR_EQUAL)
      },
      [&] {
        s.indexed_strips();
        s.state.draw.cull = CullMode::kBack;  // every other row of a strip winds the other way
      },
  };
  std::thread::id thread;
  for (int round = 0; round < 2; ++round) {
    for (size_t d = 0; d < std::size(draws); ++d) {
      SCOPED_TRACE("round " + std::to_string(round) + ", draw " + std::to_string(d));
      draws[d]();
      const Outcome reference = draw(s, DrawMode::kReference, nullptr);
      ASSERT_FALSE(reference.fault) << *reference.fault;
      EXPECT_EQ(reference.counters.find("\"clipped\": 0,"), std::string::npos) << "near-plane clipping";
      expect_same(draw(s, DrawMode::kFast, &scratch), reference);
      expect_same(draw(s, DrawMode::kFast, nullptr), reference);  // a thread of the draw's own
      // The geometry thread started with the first draw and serves every later one.
      if (thread == std::thread::id{}) thread = scratch.geometry_worker.thread_id();
      EXPECT_NE(thread, std::thread::id{});
      EXPECT_EQ(scratch.geometry_worker.thread_id(), thread);
    }
  }
}

// A draw stopped part-way (by the geometry engine: an index past the vertex buffer; by the
// primitive side: the fragment budget, a cancel; by both, the primitive side first) reports in fast
// mode the fault, counters and bytes of the reference: the geometry thread's work ahead of the
// stop is neither drawn nor counted.
TEST(GeometryThread, FaultsOnEitherSideStopTheDrawWhereTheReferenceStops) {
  GridScene s;
  DrawScratch scratch;
  auto bad_index = [&](uint32_t at) {
    s.indexed_strips();
    const uint16_t past_the_buffer = uint16_t((kCells + 1) * (kCells + 1) + 5);
    std::memcpy(s.memory.host(s.state.draw.index_va + 2 * at), &past_the_buffer, 2);
  };
  uint64_t cancel_calls = 0;
  const struct {
    const char* name;
    std::function<void()> scene;
    std::function<void(GraphicsPipeline&)> setup;
    const char* fault;
  } cases[] = {
      {"vertex fetch", [&] { bad_index(1500); }, nullptr, "vertex"},
      {"fragment budget", [&] { s.triangle_list(); }, [](GraphicsPipeline& gp) { gp.set_fragment_budget(5000); },
       "fragment budget"},
      {"cancel", [&] { s.indexed_strips(); },
       [&](GraphicsPipeline& gp) {
         cancel_calls = 0;
         gp.set_cancel_check([&] { return ++cancel_calls > 1234; });
       },
       "cancelled"},
      {"budget before a vertex fault", [&] { bad_index(2400); },
       [](GraphicsPipeline& gp) { gp.set_fragment_budget(3000); }, "fragment budget"},
      {"vertex fault in the last batch", [&] { bad_index(kCells * (2 * (kCells + 1) + 1) - 3); }, nullptr, "vertex"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    c.scene();
    const Outcome reference = draw(s, DrawMode::kReference, nullptr, c.setup);
    ASSERT_TRUE(reference.fault);
    EXPECT_NE(reference.fault->find(c.fault), std::string::npos) << *reference.fault;
    for (int run = 0; run < 3; ++run) expect_same(draw(s, DrawMode::kFast, &scratch, c.setup), reference);
    // The next draw of the same scratch is whole again.
    s.triangle_list();
    const Outcome whole = draw(s, DrawMode::kReference, nullptr);
    expect_same(draw(s, DrawMode::kFast, &scratch), whole);
  }
}

}  // namespace
}  // namespace gsgpu::graphics
