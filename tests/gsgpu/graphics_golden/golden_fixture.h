// The golden-image test fixture: renders a scene on gsgpu and on lavapipe and checks the comparison
// against the scene's limits (docs/graphics.md "Golden images"), plus helpers that build scenes.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/gsgpu/graphics_golden/gsgpu_render.h"
#include "tests/gsgpu/graphics_golden/image_compare.h"
#include "tests/gsgpu/graphics_golden/vk_render.h"

namespace gsgpu::golden {

// What a scene must meet. Scenes of flat colours need every pixel equal ({0, 0}); where edges may
// legitimately move (depth crossings, triangles clipped at the border) a small fraction over 16/255 and
// any maximum; interpolated and blended colours a maximum of 2/255 (measured: 1; one step of margin for
// lavapipe's JIT on another CPU, whose float code may fuse differently), interiors by the metric only.
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
    // Vertex and fragment programs that compute the stand-ins must give the same frame, bit for bit.
    auto programs = render_on_gsgpu(scene, &error, GsgpuShaders::kPrograms);
    if (!programs) {
      ADD_FAILURE() << scene.name << " on gsgpu with programs: " << error;
    } else {
      EXPECT_TRUE(programs->color == gs->color) << scene.name << ": programs differ from the stand-ins";
      EXPECT_TRUE(programs->depth == gs->depth) << scene.name << ": programs' depth differs";
      EXPECT_TRUE(programs->stencil == gs->stencil) << scene.name << ": programs' stencil differs";
    }
    // The fast mode (docs/graphics.md "Reference and fast modes") must give the reference's frame
    // byte for byte, with the stand-ins and with programs (its fragment batches are larger).
    for (GsgpuShaders shaders : {GsgpuShaders::kStandIns, GsgpuShaders::kPrograms}) {
      const std::optional<Frame>& reference = shaders == GsgpuShaders::kPrograms ? programs : gs;
      auto fast = render_on_gsgpu(scene, &error, shaders, graphics::DrawMode::kFast);
      if (!fast || !reference) {
        ADD_FAILURE() << scene.name << " in fast mode: " << (fast ? "no reference frame" : error);
        continue;
      }
      EXPECT_TRUE(fast->color == reference->color) << scene.name << ": fast mode's colour differs";
      EXPECT_TRUE(fast->depth == reference->depth) << scene.name << ": fast mode's depth differs";
      EXPECT_TRUE(fast->stencil == reference->stencil) << scene.name << ": fast mode's stencil differs";
    }
    c = compare_frames(*gs, *ref);
    std::printf("[golden] %s: %s\n", scene.name.c_str(), c.summary().c_str());
    const bool ok = c.fraction_over_threshold() <= limits.max_fraction_over_threshold &&
                    c.max_difference <= limits.max_difference &&
                    (!limits.exact_interiors || c.interior_mismatches == 0) && c.stencil_interior_mismatches == 0 &&
                    c.max_interior_depth_difference <= limits.max_interior_depth_difference;
    if (std::getenv("GSVIRT_GOLDEN_KEEP"))
      std::printf("[golden] images: %s\n", write_pngs(scene.name, *gs, *ref).c_str());
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

  static inline LavapipeRenderer* renderer_ = nullptr;
  static inline std::string* setup_error_ = nullptr;
};

// A vertex at pixel coordinates (x, y) of a w x h target (y down), depth z, clip w = 1.
inline Vertex at(const Scene& s, float x, float y, float z = 0, Vec4 color = {1, 1, 1, 1}) {
  return Vertex{{2 * x / float(s.width) - 1, 2 * y / float(s.height) - 1, z, 1}, color, {0, 0, 0, 0}};
}

// A colour of whole 1/255 steps: Vulkan fixes its UNORM8 bytes (convertFloatToUint may return either
// neighbour of a value between two integers, but must return an integer value that it equals).
inline Vec4 u8(int r, int g, int b, int a = 255) {
  return {float(r) / 255, float(g) / 255, float(b) / 255, float(a) / 255};
}

inline Draw constant_triangles(std::vector<Vertex> vertices, Vec4 color) {
  Draw d;
  d.vertices = std::move(vertices);
  d.constant = color;
  return d;
}

// Two front-facing triangles (counter-clockwise in Vulkan's framebuffer-space formula) covering the pixel
// rectangle [x0, x1) x [y0, y1) at depth z; `reversed` makes them clockwise (back-facing).
inline std::vector<Vertex> quad(const Scene& s, float x0, float y0, float x1, float y1, float z = 0,
                                bool reversed = false, Vec4 color = {1, 1, 1, 1}) {
  std::vector<Vertex> v = {at(s, x0, y0, z, color), at(s, x1, y0, z, color), at(s, x0, y1, z, color),
                           at(s, x0, y1, z, color), at(s, x1, y0, z, color), at(s, x1, y1, z, color)};
  // As listed, a is negative in Vulkan's facing formula (clockwise: back-facing by default); swapped,
  // front-facing.
  if (!reversed) std::swap(v[1], v[2]), std::swap(v[4], v[5]);
  return v;
}

inline Draw quad_draw(const Scene& s, float x0, float y0, float x1, float y1, Vec4 color, float z = 0) {
  Draw d;
  d.vertices = quad(s, x0, y0, x1, y1, z);
  d.constant = color;
  return d;
}

// A small deterministic generator (the scenes must be the same on every run).
struct Lcg {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  float unit() { return float(next() >> 8) / float(1u << 24); }  // [0, 1)
};

}  // namespace gsgpu::golden
