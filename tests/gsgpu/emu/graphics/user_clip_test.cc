// Clip and cull distances (gsgpu/emu/graphics/user_clip.h) on hand-built primitives: the cut is
// where the distance crosses 0, interpolated in clip space; cull drops only when every vertex is
// negative; points, lines, NaN and infinite distances end defined (dropped or kept, never a crash).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "gsgpu/emu/graphics/user_clip.h"

namespace gsgpu::graphics {
namespace {

ShadedVertex vertex(float x, float y, float d0, float d1 = 1) {
  ShadedVertex v;
  v.position = {x, y, 0.5f, 1};
  v.varyings[0] = x;  // a varying that must follow the cut linearly
  v.distances[0] = d0;
  v.distances[1] = d1;
  return v;
}

AssembledPrimitive primitive(std::initializer_list<ShadedVertex> vertices) {
  AssembledPrimitive p;
  p.vertex_count = uint32_t(vertices.size());
  uint32_t i = 0;
  for (const ShadedVertex& v : vertices) p.vertices[i++] = v;
  return p;
}

TEST(UserClip, ATriangleCrossingOneDistanceBecomesTheFanOfWhatIsInside) {
  // d0 = x: the part with x >= 0 of the triangle (-1, 0), (1, 0), (1, 1) is a quad of two triangles.
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(1, 0, 1), vertex(1, 1, 1)}), 1, 0, 0, &out);
  ASSERT_EQ(out.size(), 2u);
  for (const AssembledPrimitive& t : out) {
    EXPECT_EQ(t.vertex_count, 3u);
    for (const ShadedVertex& v : t.vertices) {
      EXPECT_GE(v.position[0], 0.0f);
      EXPECT_FLOAT_EQ(v.varyings[0], v.position[0]);
      EXPECT_FLOAT_EQ(v.distances[0], v.position[0]);
    }
  }
  out.clear();
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(1, 0, 1), vertex(1, 1, 1)}), 0, 0, 0, &out);
  EXPECT_EQ(out.size(), 1u);  // no distances in use: the triangle itself
}

// A line from w = 1 to w = 3 cut where the distance d0 = x (clip space) crosses 0, at t = 1/4: a
// perspective varying takes the clip-space value there, a noperspective one (linear_varyings bit)
// the value at the cut's screen-space parameter t w_b / ((1 - t) w_a + t w_b) = 0.75 / 1.5 = 1/2.
TEST(UserClip, NoPerspectiveVaryingsAreCutInScreenSpace) {
  ShadedVertex a = vertex(-1, 0, -1), b = vertex(9, 0, 3);
  b.position[3] = 3;
  a.varyings[1] = 0, b.varyings[1] = 1;  // component 1: noperspective
  a.varyings[2] = 0, b.varyings[2] = 1;  // component 2: perspective
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({a, b}), 1, 0, uint64_t{1} << 1, &out);
  ASSERT_EQ(out.size(), 1u);
  const ShadedVertex& cut = out[0].vertices[0];
  EXPECT_FLOAT_EQ(cut.position[3], 1.5f);
  EXPECT_FLOAT_EQ(cut.varyings[2], 0.25f);
  EXPECT_FLOAT_EQ(cut.varyings[1], 0.5f);
  EXPECT_FLOAT_EQ(out[0].vertices[1].varyings[1], 1.0f);  // the inside end untouched
}

TEST(UserClip, CullDropsOnlyWhenEveryVertexIsNegative) {
  std::vector<AssembledPrimitive> out;
  // Distance 1 is the cull distance (after 1 clip distance): all negative -> dropped.
  cut_by_distances(primitive({vertex(0, 0, 1, -1), vertex(1, 0, 1, -2), vertex(0, 1, 1, -0.5f)}), 1, 1, 0, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0, 0, 1, -1), vertex(1, 0, 1, 2), vertex(0, 1, 1, -0.5f)}), 1, 1, 0, &out);
  EXPECT_EQ(out.size(), 1u);  // one vertex positive: kept whole, not cut
}

TEST(UserClip, LinesAreCutAndPointsDropped) {
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(3, 0, 3)}), 1, 0, 0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].vertices[0].position[0], 0.0f);
  EXPECT_FLOAT_EQ(out[0].vertices[1].position[0], 3.0f);
  out.clear();
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(-3, 0, -3)}), 1, 0, 0, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0.5f, 0, -0.01f)}), 1, 0, 0, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0.5f, 0, 0)}), 1, 0, 0, &out);
  EXPECT_EQ(out.size(), 1u);  // 0 is inside
}

TEST(UserClip, NanAndInfiniteDistancesEndDefined) {
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({vertex(0, 0, NAN), vertex(1, 0, NAN), vertex(0, 1, NAN)}), 1, 0, 0, &out);
  EXPECT_TRUE(out.empty());  // NaN is outside
  cut_by_distances(primitive({vertex(0, 0, INFINITY), vertex(1, 0, -INFINITY), vertex(0, 1, 1)}), 8, 0, 0, &out);
  cut_by_distances(primitive({vertex(0, 0, NAN), vertex(1, 0, 1)}), 1, 0, 0, &out);
  cut_by_distances(primitive({vertex(0, 0, 1), vertex(1, 0, 1), vertex(0, 1, 1)}), 100, 100, 0, &out);  // clamped to 8
  for (const AssembledPrimitive& p : out) EXPECT_LE(p.vertex_count, 3u);
}

}  // namespace
}  // namespace gsgpu::graphics
