// Clip and cull distances (gsgpu/emu/graphics/user_clip.h) on hand-built primitives: the cut is
// where the distance crosses 0, interpolated in clip space; cull drops only when every vertex is
// negative; points, lines, NaN and infinite distances end defined (dropped or kept, never a crash).
#include <gtest/gtest.h>

#include <cmath>
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
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(1, 0, 1), vertex(1, 1, 1)}), 1, 0, &out);
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
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(1, 0, 1), vertex(1, 1, 1)}), 0, 0, &out);
  EXPECT_EQ(out.size(), 1u);  // no distances in use: the triangle itself
}

TEST(UserClip, CullDropsOnlyWhenEveryVertexIsNegative) {
  std::vector<AssembledPrimitive> out;
  // Distance 1 is the cull distance (after 1 clip distance): all negative -> dropped.
  cut_by_distances(primitive({vertex(0, 0, 1, -1), vertex(1, 0, 1, -2), vertex(0, 1, 1, -0.5f)}), 1, 1, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0, 0, 1, -1), vertex(1, 0, 1, 2), vertex(0, 1, 1, -0.5f)}), 1, 1, &out);
  EXPECT_EQ(out.size(), 1u);  // one vertex positive: kept whole, not cut
}

TEST(UserClip, LinesAreCutAndPointsDropped) {
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(3, 0, 3)}), 1, 0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].vertices[0].position[0], 0.0f);
  EXPECT_FLOAT_EQ(out[0].vertices[1].position[0], 3.0f);
  out.clear();
  cut_by_distances(primitive({vertex(-1, 0, -1), vertex(-3, 0, -3)}), 1, 0, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0.5f, 0, -0.01f)}), 1, 0, &out);
  EXPECT_TRUE(out.empty());
  cut_by_distances(primitive({vertex(0.5f, 0, 0)}), 1, 0, &out);
  EXPECT_EQ(out.size(), 1u);  // 0 is inside
}

TEST(UserClip, NanAndInfiniteDistancesEndDefined) {
  std::vector<AssembledPrimitive> out;
  cut_by_distances(primitive({vertex(0, 0, NAN), vertex(1, 0, NAN), vertex(0, 1, NAN)}), 1, 0, &out);
  EXPECT_TRUE(out.empty());  // NaN is outside
  cut_by_distances(primitive({vertex(0, 0, INFINITY), vertex(1, 0, -INFINITY), vertex(0, 1, 1)}), 8, 0, &out);
  cut_by_distances(primitive({vertex(0, 0, NAN), vertex(1, 0, 1)}), 1, 0, &out);
  cut_by_distances(primitive({vertex(0, 0, 1), vertex(1, 0, 1), vertex(0, 1, 1)}), 100, 100, &out);  // clamped to 8
  for (const AssembledPrimitive& p : out) EXPECT_LE(p.vertex_count, 3u);
}

}  // namespace
}  // namespace gsgpu::graphics
