// Fast mode's geometry thread (gsgpu/emu/graphics/geometry_thread.h, docs/graphics.md "Reference and
// fast modes"): draws whose geometry engine runs on its own thread and hands batches of triangles to
// the draw's thread give the reference mode's (single-thread) bytes, counters and faults, also when
// a fault on either side stops the draw part-way; the thread and its batches are reused from draw to
// draw. The draws use the fixed stages (no shader cores), with depth testing and blending so that the
// order of the triangles decides the bytes, and triangles across the viewport's edges so that the
// clipper's counters move.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "tests/gsgpu/emu/graphics/grid_scene.h"

namespace gsgpu::graphics {
namespace {

using grid_test::draw;
using grid_test::expect_same;
using grid_test::GridScene;
using grid_test::kCells;
using grid_test::Outcome;

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

// GSGPU_GEOMETRY_THREAD=0 keeps fast mode's geometry engine on the draw's thread (no thread
// starts), with the same bytes and counters.
TEST(GeometryThread, TheSettingKeepsTheEngineOnTheDrawsThread) {
  GridScene s;
  s.indexed_strips();
  const Outcome reference = draw(s, DrawMode::kReference, nullptr);
  ASSERT_EQ(setenv("GSGPU_GEOMETRY_THREAD", "0", 1), 0);
  DrawScratch off;
  const Outcome single = draw(s, DrawMode::kFast, &off);
  unsetenv("GSGPU_GEOMETRY_THREAD");
  EXPECT_EQ(off.geometry_worker.thread_id(), std::thread::id{});
  expect_same(single, reference);
  DrawScratch on;
  expect_same(draw(s, DrawMode::kFast, &on), reference);
  EXPECT_NE(on.geometry_worker.thread_id(), std::thread::id{});
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
