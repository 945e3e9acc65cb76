// Multisampled draws through the blocks (docs/graphics.md "Multisampling"): coverage at Vulkan's
// standard sample locations with the top-left rule per sample, the sample mask, alpha to coverage
// and alpha to one, depth tested per sample at its own location, and the targets' samples side by
// side in memory. Known answers: each expectation is worked out from the locations in the spec's
// table, not from the code under test.
#include <gtest/gtest.h>

#include <vector>

#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

constexpr uint32_t kSize = 8;

// An 8 x 8 RGBA8 target of `samples` samples per pixel (and optionally a D32 one), cleared to 0.
struct MsScene {
  FlatMemory memory{0x100000, 1 << 20};
  DrawState state;
  uint64_t color_va = 0, depth_va = 0;

  explicit MsScene(uint32_t samples) {
    state.width = state.height = kSize;
    state.viewport = Viewport{0, 0, float(kSize), float(kSize), 0, 1};
    state.multisample.samples = samples;
    color_va = memory.alloc(size_t(kSize) * kSize * 4 * samples);
    state.color = ColorTargetState{true, color_va, kSize * 4 * samples, ColorFormat::kR8G8B8A8Unorm};
    state.draw.topology = Topology::kTriangleList;
  }
  void add_depth(float clear) {
    const uint32_t samples = state.multisample.samples;
    depth_va = memory.alloc(size_t(kSize) * kSize * 4 * samples);
    state.depth = DepthTargetState{true, depth_va, kSize * 4 * samples, DepthFormat::kD32Sfloat};
    DepthStencilTarget t = depth();
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize * samples; ++x) t.store_depth(x, y, clear);
  }
  // Rectangles [x0, x1) x [0, 8) in pixels as two triangles each, at depth z0 (left) .. z1 (right).
  void rectangles(const std::vector<std::array<float, 4>>& rects) {
    std::vector<float> v;
    for (const auto& [x0, x1, z0, z1] : rects) {
      const float a = x0 / 4 - 1, b = x1 / 4 - 1;
      for (float f : {a, -1.f, z0, 1.f, b, -1.f, z1, 1.f, a, 1.f, z0, 1.f, b, -1.f, z1, 1.f, b, 1.f, z1, 1.f,
                      a, 1.f, z0, 1.f}) {
        v.push_back(f);
      }
    }
    state.input.bindings[0] = VertexBinding{memory.upload(v), v.size() * 4, 16, InputRate::kVertex, 1};
    state.input.attributes[0] = VertexAttribute{0, 109, 0};
    state.input.attribute_count = 1;
    state.draw.count = uint32_t(v.size() / 4);
  }
  void run() {
    GraphicsPipeline gp(memory);
    const DrawResult r = gp.draw(state);
    ASSERT_FALSE(r.fault) << *r.fault;
  }
  ColorTarget color() {
    const uint32_t n = state.multisample.samples;
    return ColorTarget{memory.host(color_va), kSize * n, kSize, state.color.row_pitch, state.color.format};
  }
  DepthStencilTarget depth() {
    const uint32_t n = state.multisample.samples;
    return DepthStencilTarget{memory.host(depth_va), kSize * n, kSize, state.depth.row_pitch, state.depth.format};
  }
  // The red byte of sample s of pixel (x, y): samples side by side.
  uint32_t red(uint32_t x, uint32_t y, uint32_t s) { return color().load_bits(x * state.multisample.samples + s, y)[0]; }
};

TEST(Multisample, FourSamplesAtTheStandardLocationsWithTheTopLeftRule) {
  // Two rectangles meeting at x = 4.375, sample 0's x in pixel 4 (locations x: 0.375, 0.875, 0.125,
  // 0.625): sample 0 lies on the shared edge, which is the left rectangle's right edge (not taken)
  // and the right one's left edge (taken). Additive blending counts the writes: each sample once.
  MsScene s(4);
  s.state.constant_color = {1.0f / 255, 0, 0, 1};
  s.state.blend.enable = true;
  s.state.blend.dst_color = BlendFactor::kOne;
  s.rectangles({{0, 4.375f, 0, 0}});
  s.run();
  for (uint32_t y = 0; y < kSize; ++y) {
    for (uint32_t x = 0; x < kSize; ++x) {
      // Pixel 4: samples 2 (x 0.125) in; 0 (on the right edge), 1 and 3 out.
      const uint32_t in = x < 4 ? 0xF : x == 4 ? 0x4 : 0;
      for (uint32_t k = 0; k < 4; ++k) ASSERT_EQ(s.red(x, y, k), (in >> k & 1)) << x << "," << y << " s" << k;
    }
  }
  s.rectangles({{4.375f, 8, 0, 0}});
  s.run();
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize * 4; ++x) ASSERT_EQ(s.color().load_bits(x, y)[0], 1u) << x << "," << y;
}

TEST(Multisample, TwoSamplesAtTheStandardLocations) {
  MsScene s(2);  // sample 0 at (0.75, 0.75), sample 1 at (0.25, 0.25)
  s.state.constant_color = {1, 0, 0, 1};
  s.rectangles({{0, 2.5f, 0, 0}});
  s.run();
  for (uint32_t x = 0; x < 4; ++x) {
    EXPECT_EQ(s.red(x, 3, 0), x < 2 ? 255u : 0u) << x;
    EXPECT_EQ(s.red(x, 3, 1), x < 3 ? 255u : 0u) << x;
  }
}

TEST(Multisample, SampleMaskAlphaToCoverageAndAlphaToOneKeepTheDocumentedSamples) {
  MsScene s(4);
  s.state.constant_color = {1, 0, 0, 0.6f};
  s.state.multisample.sample_mask = 0xD;  // samples 0, 2, 3
  s.state.multisample.alpha_to_coverage = true;  // alpha 0.6 > 0, 1/4, 2/4, not 3/4: samples 0..2
  s.rectangles({{0, 8, 0, 0}});
  s.run();
  for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(s.red(5, 5, k), k == 0 || k == 2 ? 255u : 0u) << k;
  EXPECT_EQ(s.color().load_bits(0, 0)[3], 153u);  // alpha 0.6 stored as it is
  MsScene one(4);
  one.state.constant_color = {0, 1, 0, 0.2f};
  one.state.multisample.alpha_to_one = true;
  one.rectangles({{0, 8, 0, 0}});
  one.run();
  for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(one.color().load_bits(12 + k, 3)[3], 255u) << k;
}

TEST(Multisample, DepthIsInterpolatedAndTestedAtEachSample) {
  // z = x / 8 across the target, against a stored 0.45 = 3.6 / 8 with LESS: in pixel 3 the samples
  // left of x = 3.6 pass (0 at 0.375, 2 at 0.125), 1 (0.875) and 3 (0.625) fail.
  MsScene s(4);
  s.add_depth(0.45f);
  s.state.depth_stencil.depth_test = s.state.depth_stencil.depth_write = true;
  s.state.constant_color = {1, 0, 0, 1};
  s.rectangles({{0, 8, 0, 1}});
  s.run();
  for (uint32_t k = 0; k < 4; ++k) {
    const bool pass = k == 0 || k == 2;
    EXPECT_EQ(s.red(3, 2, k), pass ? 255u : 0u) << k;
    const float x = 3 + (k == 0 ? 0.375f : k == 1 ? 0.875f : k == 2 ? 0.125f : 0.625f);
    EXPECT_NEAR(s.depth().load_depth(3 * 4 + k, 2), pass ? x / 8 : 0.45f, 1e-6) << k;
  }
}

TEST(Multisample, ASampleCountOtherThanOneTwoOrFourAndATargetTooNarrowFault) {
  MsScene s(4);
  s.rectangles({{0, 8, 0, 0}});
  s.state.multisample.samples = 3;
  GraphicsPipeline gp(s.memory);
  DrawResult r = gp.draw(s.state);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(*r.fault, "3 samples per pixel");
  s.state.multisample.samples = 4;
  s.state.color.row_pitch = kSize * 4 * 2;  // a row of two samples per pixel
  r = gp.draw(s.state);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(*r.fault, "colour target row pitch 64 is less than a row of 128 bytes");
  EXPECT_EQ(r.counters.merge.fragments_in, 0u);
}

}  // namespace
}  // namespace gsgpu::graphics
