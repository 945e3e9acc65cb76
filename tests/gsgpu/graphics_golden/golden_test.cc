// Golden-image tests: every scene is rendered on gsgpu (the DRAW packet on the emulated device) and on
// lavapipe in the same test and compared with the metric of image_compare.h. Scenes go from flat
// triangles to thousands of small ones; docs/graphics.md "Golden images" lists them with the measured
// differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "tests/gsgpu/graphics_golden/gsgpu_render.h"
#include "tests/gsgpu/graphics_golden/image_compare.h"
#include "tests/gsgpu/graphics_golden/vk_render.h"

namespace gsgpu::golden {
namespace {

// What a scene must meet.
struct Limits {
  double max_fraction_over_threshold = 0;  // fraction of pixels over 16/255
  uint32_t max_difference = 0;             // in 1/255 steps
  bool exact_interiors = true;             // interiors of the reference bit for bit
  double max_interior_depth_difference = 0;
};

class GoldenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    renderer_ = LavapipeRenderer::create(&error).release();
    if (!renderer_) setup_error_ = new std::string(error);
  }
  static void TearDownTestSuite() {
    delete renderer_;
    renderer_ = nullptr;
  }

  // Renders `scene` on both sides and checks it against `limits`; returns the comparison.
  Comparison check(const Scene& scene, const Limits& limits) {
    Comparison c;
    if (!renderer_) {
      ADD_FAILURE() << "lavapipe: " << *setup_error_;
      return c;
    }
    std::string error;
    auto gs = render_on_gsgpu(scene, &error);
    if (!gs) {
      ADD_FAILURE() << scene.name << " on gsgpu: " << error;
      return c;
    }
    auto ref = renderer_->render(scene, &error);
    if (!ref) {
      ADD_FAILURE() << scene.name << " on lavapipe: " << error;
      return c;
    }
    c = compare_frames(*gs, *ref);
    std::printf("[golden] %s: %s\n", scene.name.c_str(), c.summary().c_str());
    const bool ok = c.fraction_over_threshold() <= limits.max_fraction_over_threshold &&
                    c.max_difference <= limits.max_difference &&
                    (!limits.exact_interiors || c.interior_mismatches == 0) && c.stencil_interior_mismatches == 0 &&
                    c.max_interior_depth_difference <= limits.max_interior_depth_difference;
    if (!ok) {
      ADD_FAILURE() << scene.name << " beyond its limits (fraction " << limits.max_fraction_over_threshold << ", max "
                    << limits.max_difference << ", exact interiors " << limits.exact_interiors << ", depth "
                    << limits.max_interior_depth_difference << "): " << c.summary()
                    << "\nimages: " << write_pngs(scene.name, *gs, *ref);
    }
    return c;
  }

  static std::string write_pngs(const std::string& name, const Frame& gs, const Frame& ref) {
    const char* env = std::getenv("GSVIRT_GOLDEN_OUT");
    const std::string dir = env ? env : ::testing::TempDir() + "golden-out";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return write_comparison_pngs(dir, name, gs, ref);
  }

  static LavapipeRenderer* renderer_;
  static std::string* setup_error_;
};

LavapipeRenderer* GoldenTest::renderer_ = nullptr;
std::string* GoldenTest::setup_error_ = nullptr;

// A vertex at pixel coordinates (x, y) of a w x h target (y down), depth z, clip w = 1.
Vertex at(const Scene& s, float x, float y, float z = 0, Vec4 color = {1, 1, 1, 1}) {
  return Vertex{{2 * x / float(s.width) - 1, 2 * y / float(s.height) - 1, z, 1}, color, {0, 0, 0, 0}};
}

// A colour of whole 1/255 steps: Vulkan fixes its UNORM8 bytes (convertFloatToUint may return either
// neighbour of a value between two integers, but must return an integer value that it equals).
Vec4 u8(int r, int g, int b, int a = 255) { return {float(r) / 255, float(g) / 255, float(b) / 255, float(a) / 255}; }

Draw constant_triangles(std::vector<Vertex> vertices, Vec4 color) {
  Draw d;
  d.vertices = std::move(vertices);
  d.constant = color;
  return d;
}

TEST_F(GoldenTest, LavapipeIsTheReference) {
  ASSERT_TRUE(renderer_) << *setup_error_;
  EXPECT_NE(renderer_->device_name().find("llvmpipe"), std::string::npos) << renderer_->device_name();
}

// Flat triangles of one colour each: vertices on pixel centres, on pixel corners, on half pixels and
// off the sub-pixel grid, both windings, edges of every slope, triangles sharing edges.
TEST_F(GoldenTest, FlatTriangles) {
  Scene s;
  s.name = "flat_triangles";
  s.clear_color = u8(25, 51, 76);
  s.draws.push_back(constant_triangles({at(s, 2, 2), at(s, 30, 4), at(s, 6, 29)}, u8(255, 0, 0)));
  s.draws.push_back(
      constant_triangles({at(s, 33.5f, 2.5f), at(s, 61.5f, 30.5f), at(s, 62.5f, 1.5f)}, u8(0, 200, 17, 128)));
  s.draws.push_back(constant_triangles({at(s, 3.3f, 35.7f), at(s, 29.1f, 61.9f), at(s, 30.77f, 33.01f),
                                        at(s, 3.3f, 35.7f), at(s, 2.2f, 62.4f), at(s, 29.1f, 61.9f)},
                                       u8(3, 7, 254)));
  // A fan of thin triangles around a centre (every slope, shared edges).
  Draw fan;
  fan.constant = u8(250, 240, 1);
  for (int i = 0; i < 16; ++i) {
    const float a0 = float(i) * 0.3926991f, a1 = float(i + 1) * 0.3926991f;
    fan.vertices.push_back(at(s, 48, 48));
    fan.vertices.push_back(at(s, 48 + 14 * std::cos(a0), 48 + 14 * std::sin(a0)));
    fan.vertices.push_back(at(s, 48 + 14 * std::cos(a1), 48 + 14 * std::sin(a1)));
  }
  s.draws.push_back(fan);
  check(s, {0, 0});
}

// Interpolated colours: perspective-correct (w varies), no-perspective and flat.
TEST_F(GoldenTest, InterpolatedColours) {
  Scene s;
  s.name = "interpolated_colours";
  const FragmentShading modes[] = {FragmentShading::kSmooth, FragmentShading::kNoPerspective, FragmentShading::kFlat};
  for (int m = 0; m < 3; ++m) {
    Draw d;
    d.shading = modes[m];
    const float y0 = 2 + 21 * float(m);
    d.vertices = {at(s, 2, y0, 0, {1, 0, 0, 1}), at(s, 62, y0 + 3, 0, {0, 1, 0, 0.5f}),
                  at(s, 20, y0 + 19, 0, {0, 0, 1, 0})};
    // Scale the second vertex's clip coordinates by w = 4 (same position, perspective weight).
    for (float& c : d.vertices[1].position) c *= 4;
    s.draws.push_back(d);
  }
  check(s, {0, 1, false});
}

}  // namespace
}  // namespace gsgpu::golden
