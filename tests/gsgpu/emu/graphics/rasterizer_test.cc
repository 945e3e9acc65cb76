// The primitive engine: triangle setup, the top-left fill rule, the hierarchical rasterizer and its
// counters, quads and helper lanes, scissor, culling, degenerate and huge triangles.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "tests/gsgpu/emu/graphics/raster_test_util.h"

namespace gsgpu::graphics::test {
namespace {

using Tri = std::array<ScreenVertex, 3>;

// Coverage straight from the edge functions, pixel by pixel: what the hierarchy must reproduce.
std::vector<int> direct_coverage(const Tri& tri, const PrimitiveState& state) {
  std::vector<int> count(size_t(state.target_width) * size_t(state.target_height), 0);
  TriangleSetup t;
  if (setup_triangle(tri, state.setup, &t) != SetupResult::kAccepted) return count;
  PixelRect area = intersect(PixelRect{0, 0, state.target_width, state.target_height}, state.scissor);
  for (int32_t y = area.y0; y < area.y1; ++y) {
    for (int32_t x = area.x0; x < area.x1; ++x) {
      int64_t sx = pixel_centre(x), sy = pixel_centre(y);
      bool in = t.edges[0].covers(sx, sy) && t.edges[1].covers(sx, sy) && t.edges[2].covers(sx, sy);
      count[size_t(y) * size_t(state.target_width) + size_t(x)] = in ? 1 : 0;
    }
  }
  return count;
}

TEST(TriangleSetup, SnapsToEightSubpixelBitsRoundingToNearestEven) {
  int64_t v = 0;
  ASSERT_TRUE(snap_to_subpixel(1.0f, &v));
  EXPECT_EQ(v, 256);
  ASSERT_TRUE(snap_to_subpixel(1.0f + 1.0f / 512, &v));  // half a step: ties to even
  EXPECT_EQ(v, 256);
  ASSERT_TRUE(snap_to_subpixel(1.0f + 3.0f / 512, &v));
  EXPECT_EQ(v, 258);
  ASSERT_TRUE(snap_to_subpixel(-2.5f, &v));
  EXPECT_EQ(v, -640);
  EXPECT_FALSE(snap_to_subpixel(std::numeric_limits<float>::quiet_NaN(), &v));
  EXPECT_FALSE(snap_to_subpixel(std::numeric_limits<float>::infinity(), &v));
  EXPECT_FALSE(snap_to_subpixel(40000.0f, &v));
}

TEST(TriangleSetup, FacingFollowsVulkansSignedAreaWithYDown) {
  // On screen (y down) (0,0) -> (0,8) -> (8,0) turns counter-clockwise: Vulkan's a > 0.
  Tri ccw{sv(0, 0), sv(0, 8), sv(8, 0)};
  Tri cw{sv(0, 0), sv(8, 0), sv(0, 8)};
  TriangleSetup t;
  SetupState ccw_front{CullMode::kNone, FrontFace::kCounterClockwise};
  ASSERT_EQ(setup_triangle(ccw, ccw_front, &t), SetupResult::kAccepted);
  EXPECT_TRUE(t.front_facing);
  EXPECT_EQ(t.twice_area, 64 * 256 * 256);
  ASSERT_EQ(setup_triangle(cw, ccw_front, &t), SetupResult::kAccepted);
  EXPECT_FALSE(t.front_facing);
  SetupState cw_front{CullMode::kNone, FrontFace::kClockwise};
  ASSERT_EQ(setup_triangle(cw, cw_front, &t), SetupResult::kAccepted);
  EXPECT_TRUE(t.front_facing);
}

TEST(TriangleSetup, CullModesRemoveTheRightFaces) {
  Tri ccw{sv(0, 0), sv(0, 8), sv(8, 0)};
  Tri cw{sv(0, 0), sv(8, 0), sv(0, 8)};
  TriangleSetup t;
  auto run = [&](const Tri& tri, CullMode m) {
    return setup_triangle(tri, SetupState{m, FrontFace::kCounterClockwise}, &t);
  };
  EXPECT_EQ(run(ccw, CullMode::kBack), SetupResult::kAccepted);
  EXPECT_EQ(run(cw, CullMode::kBack), SetupResult::kCulled);
  EXPECT_EQ(run(ccw, CullMode::kFront), SetupResult::kCulled);
  EXPECT_EQ(run(cw, CullMode::kFront), SetupResult::kAccepted);
  EXPECT_EQ(run(ccw, CullMode::kFrontAndBack), SetupResult::kCulled);
  EXPECT_EQ(run(cw, CullMode::kFrontAndBack), SetupResult::kCulled);
}

TEST(TriangleSetup, DegenerateAndOutOfBandTrianglesDrawNothing) {
  TriangleSetup t;
  SetupState s;
  EXPECT_EQ(setup_triangle({sv(0, 0), sv(4, 4), sv(8, 8)}, s, &t), SetupResult::kDegenerate);
  EXPECT_EQ(setup_triangle({sv(3, 3), sv(3, 3), sv(3, 3)}, s, &t), SetupResult::kDegenerate);
  // Distinct in float but the same after snapping to 1/256.
  EXPECT_EQ(setup_triangle({sv(1, 1), sv(1.001f, 1), sv(1, 1.001f)}, s, &t), SetupResult::kDegenerate);
  EXPECT_EQ(setup_triangle({sv(0, 0), sv(1e9f, 0), sv(0, 8)}, s, &t), SetupResult::kOutsideGuardBand);
  EXPECT_EQ(setup_triangle({sv(0, 0), sv(std::nanf(""), 0), sv(0, 8)}, s, &t), SetupResult::kOutsideGuardBand);
}

// depth_bias.h: o = m * slope + r * constant, clamped; m = max(|dz/dx|, |dz/dy|); r = 2 / (2^n - 1)
// for UNORM targets and 2^(e - 23) for D32 (e the largest depth's exponent); added to every vertex.
TEST(TriangleSetup, DepthBiasAddsSlopeAndConstantUnitsWithinTheClamp) {
  const Tri tri{ScreenVertex{0, 0, 0.5f, 1}, ScreenVertex{8, 0, 0.58f, 1}, ScreenVertex{0, 8, 0.66f, 1}};
  const auto biased_z0 = [&](DepthBias b) {
    b.enable = true;
    TriangleSetup t;
    SetupState s;
    s.depth_bias = b;
    EXPECT_EQ(setup_triangle(tri, s, &t), SetupResult::kAccepted);
    EXPECT_FLOAT_EQ(t.vertices[2].z - t.vertices[0].z, 0.16f);  // one offset for all three
    return double(t.vertices[0].z) - 0.5;
  };
  EXPECT_NEAR(biased_z0({true, 1, 0, 0, 16}), 2.0 / 65535, 1e-7);
  EXPECT_NEAR(biased_z0({true, 3, 0, 0, 24}), 6.0 / 16777215, 1e-8);
  EXPECT_NEAR(biased_z0({true, 4, 0, 0, 0}), 0x1p-22, 1e-9);  // D32: 0.66 has exponent -1
  EXPECT_NEAR(biased_z0({true, 0, 2, 0, 16}), 0.04, 1e-6);     // m = dz/dy = 0.02
  EXPECT_NEAR(biased_z0({true, 0, -2, 0, 16}), -0.04, 1e-6);
  EXPECT_NEAR(biased_z0({true, 100, 2, 0.001f, 16}), 0.001, 1e-7);
  EXPECT_NEAR(biased_z0({true, -100, -2, -0.001f, 16}), -0.001, 1e-7);
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(tri, SetupState{}, &t), SetupResult::kAccepted);  // off: unchanged
  EXPECT_EQ(t.vertices[0].z, 0.5f);
}

TEST(FillRule, CentresOnLeftAndTopEdgesAreCoveredRightAndBottomAreNot) {
  // A square from (0.5, 0.5) to (3.5, 3.5) passes through pixel centres on all four sides.
  PrimitiveEngine engine;
  for (bool flip_diagonal : {false, true}) {
    std::vector<Tri> tris = flip_diagonal
        ? std::vector<Tri>{{sv(0.5, 0.5), sv(0.5, 3.5), sv(3.5, 0.5)}, {sv(3.5, 0.5), sv(0.5, 3.5), sv(3.5, 3.5)}}
        : std::vector<Tri>{{sv(0.5, 0.5), sv(3.5, 3.5), sv(3.5, 0.5)}, {sv(0.5, 0.5), sv(0.5, 3.5), sv(3.5, 3.5)}};
    CoverageImage img = rasterize_all(engine, full_target(8, 8), tris);
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 8; ++x) {
        EXPECT_EQ(img.at(x, y), (x < 3 && y < 3) ? 1 : 0) << x << "," << y << " flip " << flip_diagonal;
      }
    }
  }
}

TEST(FillRule, HypotenuseThroughCentresBelongsToTheTriangleOnItsLeft) {
  // Right triangle (0,0),(4,0),(0,4): centres with x + y + 1 == 4 lie on the hypotenuse, which is a
  // right edge here; the 6 centres with x + y <= 2 are inside.
  PrimitiveEngine engine;
  CoverageImage img = rasterize_all(engine, full_target(8, 8), {{sv(0, 0), sv(0, 4), sv(4, 0)}});
  int total = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      EXPECT_EQ(img.at(x, y), x + y <= 2 ? 1 : 0) << x << "," << y;
      total += img.at(x, y);
    }
  EXPECT_EQ(total, 6);
  // The mirror triangle across the hypotenuse takes the 4 centres on it: x + y == 3.
  CoverageImage other = rasterize_all(engine, full_target(8, 8), {{sv(4, 0), sv(0, 4), sv(4, 4)}});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(other.at(x, y), x + y >= 3 ? 1 : 0) << x << "," << y;
}

// A jittered grid of cells, each split into two triangles with a random diagonal and random winding:
// the mesh covers a rectangle, and every pixel centre inside it must be covered exactly once.
std::vector<Tri> jittered_mesh(std::mt19937& rng, float x0, float y0, int cells_x, int cells_y, float cell) {
  std::uniform_int_distribution<int> jitter(-4, 4);  // in half pixels: many centres fall on edges
  std::vector<std::vector<ScreenVertex>> grid(cells_y + 1, std::vector<ScreenVertex>(cells_x + 1));
  for (int j = 0; j <= cells_y; ++j) {
    for (int i = 0; i <= cells_x; ++i) {
      bool border_x = i == 0 || i == cells_x, border_y = j == 0 || j == cells_y;
      float dx = border_x ? 0 : jitter(rng) * 0.5f, dy = border_y ? 0 : jitter(rng) * 0.5f;
      grid[j][i] = sv(x0 + i * cell + dx, y0 + j * cell + dy);
    }
  }
  std::vector<Tri> tris;
  std::bernoulli_distribution coin(0.5);
  for (int j = 0; j < cells_y; ++j) {
    for (int i = 0; i < cells_x; ++i) {
      ScreenVertex a = grid[j][i], b = grid[j][i + 1], c = grid[j + 1][i + 1], d = grid[j + 1][i];
      std::array<Tri, 2> pair = coin(rng) ? std::array<Tri, 2>{Tri{a, b, c}, Tri{a, c, d}}
                                          : std::array<Tri, 2>{Tri{a, b, d}, Tri{b, c, d}};
      for (Tri t : pair) {
        if (coin(rng)) std::swap(t[1], t[2]);
        tris.push_back(t);
      }
    }
  }
  return tris;
}

TEST(FillRule, AdjacentTrianglesOfAMeshCoverEveryPixelExactlyOnce) {
  std::mt19937 rng(1234);
  for (bool bbox : {false, true}) {
    PrimitiveEngine engine(RasterSettings{bbox});
    // Borders at whole pixels 8 and 8 + 12 * 16 = 200: centres 8.5 .. 199.5 are inside.
    std::vector<Tri> mesh = jittered_mesh(rng, 8, 8, 12, 9, 16);
    CoverageImage img = rasterize_all(engine, full_target(256, 192), mesh);
    for (int y = 0; y < 192; ++y) {
      for (int x = 0; x < 256; ++x) {
        bool inside = x >= 8 && x < 200 && y >= 8 && y < 152;
        ASSERT_EQ(img.at(x, y), inside ? 1 : 0) << "pixel " << x << "," << y << " bbox " << bbox;
      }
    }
  }
}

TEST(FillRule, AFanAroundACentreNeverCoversTwiceAndLeavesNoHole) {
  // 24 triangles around (64.5, 64.5), rim vertices on subpixel positions of a circle.
  std::vector<Tri> fan;
  const int n = 24;
  auto rim = [&](int k) {
    double angle = 2 * 3.14159265358979 * k / n;
    return sv(float(std::round((64.5 + 50 * std::cos(angle)) * 256) / 256),
              float(std::round((64.5 + 50 * std::sin(angle)) * 256) / 256));
  };
  for (int k = 0; k < n; ++k) fan.push_back({sv(64.5, 64.5), rim(k), rim(k + 1)});
  PrimitiveEngine engine;
  CoverageImage img = rasterize_all(engine, full_target(130, 130), fan);
  for (int y = 0; y < 130; ++y) {
    for (int x = 0; x < 130; ++x) {
      ASSERT_LE(img.at(x, y), 1) << x << "," << y;
      double r = std::hypot(x + 0.5 - 64.5, y + 0.5 - 64.5);
      if (r < 47) {
        ASSERT_EQ(img.at(x, y), 1) << x << "," << y;  // well inside the 24-gon
      }
      if (r > 50.5) {
        ASSERT_EQ(img.at(x, y), 0) << x << "," << y;
      }
    }
  }
}

TEST(Rasterizer, HierarchyMatchesPixelByPixelTestsForRandomTriangles) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> coord(-40.0f, 340.0f);
  for (int i = 0; i < 300; ++i) {
    Tri tri{sv(coord(rng), coord(rng)), sv(coord(rng), coord(rng)), sv(coord(rng), coord(rng))};
    if (i % 3 == 0) tri[2] = sv(tri[0].x + 0.7f, tri[0].y + 90.0f);  // thin slivers
    PrimitiveState state = full_target(300, 290);
    if (i % 5 == 0) state.scissor = PixelRect{13, 21, 250, 203};
    std::vector<int> expected = direct_coverage(tri, state);
    for (bool bbox : {false, true}) {
      PrimitiveEngine engine(RasterSettings{bbox});
      CoverageImage img = rasterize_all(engine, state, {tri});
      ASSERT_EQ(img.count, expected) << "triangle " << i << " bbox " << bbox;
    }
  }
}

TEST(Rasterizer, BothOrientationsCoverTheSamePixels) {
  PrimitiveEngine engine;
  Tri ccw{sv(3.25f, 2.5f), sv(20.5f, 30.75f), sv(40.0f, 5.5f)};
  Tri cw{ccw[0], ccw[2], ccw[1]};
  CoverageImage a = rasterize_all(engine, full_target(64, 64), {ccw});
  CoverageImage b = rasterize_all(engine, full_target(64, 64), {cw});
  EXPECT_EQ(a.count, b.count);
  EXPECT_GT(std::accumulate(a.count.begin(), a.count.end(), 0), 300);
}

TEST(Rasterizer, QuadsCarryCoverageAndHelperLanes) {
  PrimitiveEngine engine;
  // Covers only the centre of pixel (5, 6): lane 3 of the quad at (4, 6).
  CoverageImage img =
      rasterize_all(engine, full_target(16, 16), {{sv(5.25f, 6.25f), sv(5.25f, 6.875f), sv(5.875f, 6.25f)}});
  ASSERT_EQ(img.quads.size(), 1u);
  EXPECT_EQ(img.quads[0].x, 4);
  EXPECT_EQ(img.quads[0].y, 6);
  EXPECT_EQ(img.quads[0].coverage, 0b0010);
  EXPECT_EQ(img.quads[0].helper, 0b1101);
  PrimitiveCounters c = engine.counters();
  EXPECT_EQ(c.raster.quads, 1u);
  EXPECT_EQ(c.raster.fragments, 1u);
  EXPECT_EQ(c.raster.helper_lanes, 3u);
}

TEST(Rasterizer, ScissorAndTargetBoundsClipCoverage) {
  PrimitiveEngine engine;
  PrimitiveState state = full_target(37, 29);
  state.scissor = PixelRect{5, 3, 30, 100};
  CoverageImage img = rasterize_all(engine, state, {{sv(-100, -100), sv(-100, 300), sv(300, -100)}});
  for (int y = 0; y < 29; ++y)
    for (int x = 0; x < 37; ++x) EXPECT_EQ(img.at(x, y), (x >= 5 && x < 30 && y >= 3) ? 1 : 0) << x << "," << y;
  for (const Quad& q : img.quads) EXPECT_EQ(q.coverage & q.helper, 0);
}

TEST(Rasterizer, HugeTriangleIsTriviallyAcceptedAtTheTopLevel) {
  PrimitiveEngine engine;
  CoverageImage img = rasterize_all(engine, full_target(256, 256),
                                    {{sv(-30000, -30000), sv(-30000, 32000), sv(32000, -30000)}});
  for (int v : img.count) ASSERT_EQ(v, 1);
  PrimitiveCounters c = engine.counters();
  EXPECT_EQ(c.raster.tiles_visited[0], 4u);
  EXPECT_EQ(c.raster.tiles_accepted[0], 4u);
  EXPECT_EQ(c.raster.tiles_visited[1], 0u);
  EXPECT_EQ(c.raster.quads, 128u * 128u);
  EXPECT_EQ(c.raster.fragments, 256u * 256u);
  EXPECT_EQ(c.raster.blocks_tested, 0u);
}

TEST(Rasterizer, CountersDescribeTheDescent) {
  // A 128x128 target and the triangle covering its upper-left half (diagonal through no centre).
  PrimitiveEngine engine(RasterSettings{false});
  rasterize_all(engine, full_target(128, 128), {{sv(0, 0), sv(0, 128), sv(128, 0)}});
  RasterCounters c = engine.counters().raster;
  EXPECT_EQ(c.tiles_visited[0], 1u);
  EXPECT_EQ(c.tiles_visited[1], 4u);
  EXPECT_EQ(c.tiles_accepted[1], 1u);   // upper-left 64x64
  EXPECT_EQ(c.tiles_rejected[1], 1u);   // lower-right
  EXPECT_EQ(c.fragments, 128u * 127u / 2u);  // x + y + 1 < 128, centres on the diagonal excluded
  uint64_t visited_blocks = c.tiles_visited[5];
  EXPECT_EQ(visited_blocks, c.tiles_rejected[5] + c.tiles_accepted[5] + c.blocks_tested);
}

TEST(Rasterizer, BoundingBoxTestRejectsTilesTheEdgeTestsCannot) {
  // A thin sliver near the diagonal: beyond its sharp vertices, tiles pass all corner tests.
  Tri sliver{sv(40, 40), sv(210, 200), sv(211, 212)};
  PrimitiveEngine plain(RasterSettings{false}), boxed(RasterSettings{true});
  CoverageImage a = rasterize_all(plain, full_target(512, 512), {sliver});
  CoverageImage b = rasterize_all(boxed, full_target(512, 512), {sliver});
  EXPECT_EQ(a.count, b.count);
  RasterCounters ca = plain.counters().raster, cb = boxed.counters().raster;
  // Both walks start from the top-level tiles meeting the box (40..212) of the 16 of the 512x512
  // render area, as seed 002's baseline does; below that the box rejects tiles beyond the sharp
  // vertices, so fewer tiles reach the edge tests and fewer are split.
  EXPECT_EQ(ca.tiles_visited[0], 4u);
  EXPECT_EQ(cb.tiles_visited[0], 4u);
  EXPECT_EQ(ca.tiles_rejected_by_bbox, 0u);
  EXPECT_GT(cb.tiles_rejected_by_bbox, 0u);
  uint64_t visited_a = 0, visited_b = 0;
  for (int l = 1; l < kTileLevels; ++l) visited_a += ca.tiles_visited[l], visited_b += cb.tiles_visited[l];
  EXPECT_LT(visited_b, visited_a);
  EXPECT_LT(cb.blocks_tested, ca.blocks_tested);
  EXPECT_EQ(ca.quads, cb.quads);
  EXPECT_EQ(ca.fragments, cb.fragments);
}

void expect_same_counters(const RasterCounters& a, const RasterCounters& b, int triangle) {
  EXPECT_EQ(a.triangles, b.triangles) << triangle;
  EXPECT_EQ(a.tiles_visited, b.tiles_visited) << triangle;
  EXPECT_EQ(a.tiles_rejected, b.tiles_rejected) << triangle;
  EXPECT_EQ(a.tiles_accepted, b.tiles_accepted) << triangle;
  EXPECT_EQ(a.tiles_rejected_by_bbox, b.tiles_rejected_by_bbox) << triangle;
  EXPECT_EQ(a.blocks_tested, b.blocks_tested) << triangle;
  EXPECT_EQ(a.quads, b.quads) << triangle;
  EXPECT_EQ(a.fragments, b.fragments) << triangle;
  EXPECT_EQ(a.helper_lanes, b.helper_lanes) << triangle;
}

TEST(Rasterizer, SmallTrianglesStartingBelowTheTopGiveTheFullWalksQuadsAndCounters) {
  // Triangles of 0.1 .. 40 pixels anywhere around odd-sized areas (some with a scissor), slivers
  // between centres (empty or nearly empty boxes) among them; each against the walk from the top.
  std::mt19937 rng(2002);
  std::uniform_real_distribution<float> where(-12.0f, 312.0f), unit(0.0f, 1.0f);
  const float extents[] = {0.1f, 0.6f, 2.0f, 5.0f, 40.0f};
  uint64_t started_below = 0;
  for (int i = 0; i < 3000; ++i) {
    const float size = extents[i % 5] * (0.25f + unit(rng));
    const float x = where(rng), y = where(rng);
    Tri tri{sv(x, y), sv(x + size * unit(rng), y + size * unit(rng)), sv(x + size * unit(rng), y - size * unit(rng))};
    PrimitiveState state = full_target(300, 290);
    if (i % 4 == 1) state.scissor = PixelRect{13, 21, 250, 203};
    if (i % 4 == 2) state = full_target(100, 75);
    PrimitiveEngine reference(RasterSettings{true}), fast(RasterSettings{true});
    reference.rasterizer().set_full_descent(true);
    CoverageImage a = rasterize_all(reference, state, {tri});
    CoverageImage b = rasterize_all(fast, state, {tri});
    ASSERT_EQ(a.quads.size(), b.quads.size()) << "triangle " << i;
    for (size_t k = 0; k < a.quads.size(); ++k) {
      ASSERT_TRUE(a.quads[k].x == b.quads[k].x && a.quads[k].y == b.quads[k].y &&
                  a.quads[k].coverage == b.quads[k].coverage && a.quads[k].helper == b.quads[k].helper)
          << "triangle " << i << " quad " << k;
    }
    const RasterCounters ca = reference.counters().raster, cb = fast.counters().raster;
    expect_same_counters(ca, cb, i);
    if (ca.tiles_visited[0] == 1 && ca.tiles_visited[1] > 0) started_below++;
  }
  EXPECT_GT(started_below, 600u);  // walks that went below one top tile: many took the short way
}

TEST(PrimitiveEngine, CountsEveryOutcome) {
  PrimitiveEngine engine;
  rasterize_all(engine, full_target(16, 16, CullMode::kBack),
                {{sv(0, 0), sv(0, 8), sv(8, 0)}, {sv(0, 0), sv(8, 0), sv(0, 8)}, {sv(0, 0), sv(1, 1), sv(2, 2)},
                 {sv(0, 0), sv(0, 8), sv(1e7f, 0)}});
  PrimitiveCounters c = engine.counters();
  EXPECT_EQ(c.triangles_in, 4u);
  EXPECT_EQ(c.culled, 1u);
  EXPECT_EQ(c.degenerate, 1u);
  EXPECT_EQ(c.outside_guard_band, 1u);
  EXPECT_EQ(c.raster.triangles, 1u);
}

}  // namespace
}  // namespace gsgpu::graphics::test
