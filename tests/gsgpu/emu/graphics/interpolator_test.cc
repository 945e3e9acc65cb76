// Interpolation over a triangle, checked against geometry: a perspective-correct varying must equal
// the value at the point of the triangle's plane that the pixel's ray meets; depth is the screen-space
// plane through the three vertices; flat varyings take the provoking (first) vertex.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "gsgpu/emu/graphics/interpolator.h"

namespace gsgpu::graphics {
namespace {

struct ClipVertex {
  double x, y, w;  // clip space; the triangle is the plane through these points (z is not needed)
};

// Viewport of a width x height target: x_f = (x / w + 1) * width / 2, y_f = (y / w + 1) * height / 2.
ScreenVertex to_screen(const ClipVertex& c, double width, double height) {
  return ScreenVertex{float((c.x / c.w + 1) * width / 2), float((c.y / c.w + 1) * height / 2), 0.0f, float(1 / c.w)};
}

TEST(Interpolator, PerspectiveCorrectVaryingMatchesTheRayPlaneIntersection) {
  // w values chosen so that every framebuffer coordinate is a multiple of 1/256 (no snapping error).
  const double width = 64, height = 64;
  std::array<ClipVertex, 3> clip{{{-1.0, -1.0, 1.0}, {4.0, -4.0, 4.0}, {-2.0, 2.0, 2.0}}};
  std::array<ScreenVertex, 3> screen{};
  for (int i = 0; i < 3; ++i) screen[i] = to_screen(clip[i], width, height);
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(screen, SetupState{}, &t), SetupResult::kAccepted);
  // A varying that is affine in clip space: f = 3x - 2y + 5w + 1.
  auto varying = [](double x, double y, double w) { return 3 * x - 2 * y + 5 * w + 1; };
  std::array<float, 3> f{};
  for (int i = 0; i < 3; ++i) f[i] = float(varying(clip[i].x, clip[i].y, clip[i].w));
  // Plane through the clip points: n . p = d, with p = (x, y, w).
  auto sub = [](const ClipVertex& a, const ClipVertex& b) {
    return std::array<double, 3>{a.x - b.x, a.y - b.y, a.w - b.w};
  };
  auto e1 = sub(clip[1], clip[0]), e2 = sub(clip[2], clip[0]);
  std::array<double, 3> n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  double d = n[0] * clip[0].x + n[1] * clip[0].y + n[2] * clip[0].w;
  TriangleInterpolator interp(t);
  int checked = 0;
  for (int py = 0; py < 64; ++py) {
    for (int px = 0; px < 64; ++px) {
      auto b = interp.screen_barycentrics(px, py);
      if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
      // The pixel centre's NDC, its ray (ndc_x * w, ndc_y * w, w) and where it meets the plane.
      double nx = (px + 0.5) * 2 / width - 1, ny = (py + 0.5) * 2 / height - 1;
      double w = d / (n[0] * nx + n[1] * ny + n[2]);
      double expected = varying(nx * w, ny * w, w);
      float got = 0;
      interp.interpolate(px, py, Interpolation::kPerspective, {&f[0], &f[1], &f[2]}, 1, &got);
      ASSERT_NEAR(got, expected, 1e-5 * std::max(1.0, std::fabs(expected))) << px << "," << py;
      float linear = 0;
      interp.interpolate(px, py, Interpolation::kNoPerspective, {&f[0], &f[1], &f[2]}, 1, &linear);
      double screen_linear = b[0] * f[0] + b[1] * f[1] + b[2] * f[2];
      ASSERT_NEAR(linear, screen_linear, 1e-5 * std::max(1.0, std::fabs(screen_linear)));
      ++checked;
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(Interpolator, DepthIsTheScreenSpacePlaneAndBarycentricsSumToOne) {
  auto plane = [](double x, double y) { return 0.01 * x + 0.02 * y + 0.05; };
  std::array<ScreenVertex, 3> v{ScreenVertex{1.5f, 2.25f, 0, 0.5f}, ScreenVertex{60.0f, 10.0f, 0, 0.25f},
                                ScreenVertex{20.0f, 50.5f, 0, 1.0f}};
  for (auto& s : v) s.z = float(plane(s.x, s.y));
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(v, SetupState{}, &t), SetupResult::kAccepted);
  TriangleInterpolator interp(t);
  for (int y = 0; y < 64; y += 3) {
    for (int x = 0; x < 64; x += 3) {
      auto b = interp.screen_barycentrics(x, y);
      EXPECT_NEAR(b[0] + b[1] + b[2], 1.0, 1e-12);
      EXPECT_NEAR(interp.depth(x, y), plane(x + 0.5, y + 0.5), 2e-7);
    }
  }
  auto at_vertex = interp.screen_barycentrics(1, 2);  // near vertex 0, not on it
  EXPECT_GT(at_vertex[0], 0.9);
}

TEST(Interpolator, FlatTakesTheProvokingVertex) {
  std::array<ScreenVertex, 3> v{ScreenVertex{0, 0, 0, 1}, ScreenVertex{0, 16, 0, 1}, ScreenVertex{16, 0, 0, 1}};
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(v, SetupState{}, &t), SetupResult::kAccepted);
  TriangleInterpolator interp(t);
  float a0[2] = {7, -1}, a1[2] = {100, 200}, a2[2] = {-50, 3};
  float out[2];
  interp.interpolate(5, 3, Interpolation::kFlat, {a0, a1, a2}, 2, out);
  EXPECT_EQ(out[0], 7);
  EXPECT_EQ(out[1], -1);
  // With equal w, perspective and linear agree: at pixel (2, 5) the centre is (2.5, 5.5).
  interp.interpolate(2, 5, Interpolation::kPerspective, {a0, a1, a2}, 2, out);
  double b1 = 5.5 / 16, b2 = 2.5 / 16, b0 = 1 - b1 - b2;
  EXPECT_NEAR(out[0], b0 * 7 + b1 * 100 + b2 * -50, 1e-4);
  EXPECT_NEAR(out[1], b0 * -1 + b1 * 200 + b2 * 3, 1e-4);
}

// The fragment stage's one-call weights are the separate calls' results, bit for bit, over a
// triangle with unequal w and z, inside it and on the helper lanes outside it.
TEST(Interpolator, WeightsEqualTheSeparateCallsBitForBit) {
  std::array<ScreenVertex, 3> screen{{{1.3f, 2.7f, 0.125f, 1.0f}, {61.1f, 9.4f, 0.9f, 0.25f}, {20.6f, 58.2f, 0.4f, 0.7f}}};
  TriangleSetup t;
  ASSERT_EQ(setup_triangle(screen, SetupState{}, &t), SetupResult::kAccepted);
  TriangleInterpolator interp(t);
  for (int y = -2; y < 66; ++y) {
    for (int x = -2; x < 66; ++x) {
      const PixelWeights w = interp.weights(x, y);
      const auto screen_b = interp.screen_barycentrics(x, y), perspective_b = interp.perspective_barycentrics(x, y);
      for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(std::bit_cast<uint64_t>(w.screen[i]), std::bit_cast<uint64_t>(screen_b[i])) << x << "," << y;
        ASSERT_EQ(std::bit_cast<uint64_t>(w.perspective[i]), std::bit_cast<uint64_t>(perspective_b[i])) << x << "," << y;
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(w.depth), std::bit_cast<uint32_t>(interp.depth(x, y))) << x << "," << y;
      ASSERT_EQ(std::bit_cast<uint32_t>(w.inverse_w), std::bit_cast<uint32_t>(interp.inverse_w(x, y))) << x << "," << y;
    }
  }
  // quad_weights: the same four lanes, from lane 0's edge values and integer steps.
  for (int y = -2; y < 66; y += 2) {
    for (int x = -2; x < 66; x += 2) {
      std::array<PixelWeights, 4> quad;
      interp.quad_weights(x, y, &quad);
      for (int lane = 0; lane < 4; ++lane) {
        const PixelWeights w = interp.weights(x + (lane & 1), y + (lane >> 1));
        for (int i = 0; i < 3; ++i) {
          ASSERT_EQ(std::bit_cast<uint64_t>(quad[lane].screen[i]), std::bit_cast<uint64_t>(w.screen[i]));
          ASSERT_EQ(std::bit_cast<uint64_t>(quad[lane].perspective[i]), std::bit_cast<uint64_t>(w.perspective[i]));
        }
        ASSERT_EQ(std::bit_cast<uint32_t>(quad[lane].depth), std::bit_cast<uint32_t>(w.depth));
        ASSERT_EQ(std::bit_cast<uint32_t>(quad[lane].inverse_w), std::bit_cast<uint32_t>(w.inverse_w));
      }
    }
  }
}

// Programs without varyings take depth and 1 / w alone; where the vertices share them no division is
// done (interpolator.cc's rounding bound). Bit for bit quad_weights()'s values, over triangles from
// slivers to large ones, shared values from subnormal to huge (and signed zeros, which take the
// sums), on lanes inside and far outside (where the bound sends the lane to the sums).
TEST(Interpolator, SharedDepthAndInverseWAreTheSumsBitForBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> where(-20.0f, 84.0f), unit(0.0f, 1.0f);
  const float shared[] = {0.5f, 1.0f, 0.1f, 0.999999f, 3e38f, 1e-40f, 0.0f, -0.0f, 7.0f / 3.0f, 1e-6f};
  for (int i = 0; i < 400; ++i) {
    std::array<ScreenVertex, 3> v;
    const float size = (i % 4 == 0) ? 0.05f : (i % 4 == 1) ? 3.0f : 60.0f;
    const float x = where(rng), y = where(rng);
    v[0] = {x, y, 0, 1};
    v[1] = {x + size * unit(rng), y + size * unit(rng), 0, 1};
    v[2] = {x + size * unit(rng), y - size * unit(rng), 0, 1};
    if (i % 7 == 0) v[2] = {v[0].x + 0.01f, v[0].y + 50.0f, 0, 1};  // a sliver: huge weights off it
    const float z = shared[i % 10], inv_w = shared[(i / 10) % 10];
    for (auto& p : v) p.z = z, p.inv_w = (inv_w == 0.0f || inv_w < 0) ? 1.0f : inv_w;
    if (i % 5 == 4) v[1].z = std::nextafter(z, 2.0f);  // not shared: the sums
    TriangleSetup t;
    if (setup_triangle(v, SetupState{}, &t) != SetupResult::kAccepted) continue;
    TriangleInterpolator interp(t);
    for (int qy = -40; qy < 100; qy += 6) {
      for (int qx = -40; qx < 100; qx += 6) {
        std::array<PixelWeights, 4> full, fast;
        interp.quad_weights(qx, qy, &full);
        interp.quad_depth_and_inverse_w(qx, qy, &fast);
        for (int lane = 0; lane < 4; ++lane) {
          ASSERT_EQ(std::bit_cast<uint32_t>(fast[lane].depth), std::bit_cast<uint32_t>(full[lane].depth))
              << "triangle " << i << " quad " << qx << "," << qy << " lane " << lane;
          ASSERT_EQ(std::bit_cast<uint32_t>(fast[lane].inverse_w), std::bit_cast<uint32_t>(full[lane].inverse_w))
              << "triangle " << i << " quad " << qx << "," << qy << " lane " << lane;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::graphics
