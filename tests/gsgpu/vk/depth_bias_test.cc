// Depth bias against lavapipe (gsgpu/emu/graphics/depth_bias.h): a sloped
// triangle drawn with depthBiasEnable into D16, D24 and D32 targets, the
// factors set by vkCmdSetDepthBias (constant only, slope only, both with a
// clamp, negative ones), and GL's use of it: a quad drawn again over itself at
// the same depth, which a negative bias lets through a LESS test and a positive
// one does not. Vulkan fixes neither m (the gradient's length or the larger
// slope) nor r of UNORM formats exactly, so depths are compared within the
// measured tolerance; the coplanar quads' colours are a yes / no decision and
// must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkDepthBias : public BothDrivers {
 protected:
  VkDepthBias() { device_request_.features.depthBiasClamp = VK_TRUE; }
};

struct BiasFactors {
  float constant, clamp, slope;
  const char* name;
};

// Makes the scene's pipeline take its bias from vkCmdSetDepthBias, set before
// draw i to bias[i].
void use_dynamic_bias(DrawScene* s, const std::vector<BiasFactors>& bias, VkPipelineRasterizationStateCreateInfo* rs,
                      VkPipelineDynamicStateCreateInfo* dyn, std::array<VkDynamicState, 3>* states) {
  *states = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_DEPTH_BIAS};
  s->edit = [rs, dyn, states](VkGraphicsPipelineCreateInfo& info) {
    *rs = *info.pRasterizationState;
    rs->depthBiasEnable = VK_TRUE;
    info.pRasterizationState = rs;
    *dyn = *info.pDynamicState;
    dyn->dynamicStateCount = 3;
    dyn->pDynamicStates = states->data();
    info.pDynamicState = dyn;
  };
  s->before_draw = [bias](VkCommandBuffer cb, size_t i) {
    vkCmdSetDepthBias(cb, bias[i].constant, bias[i].clamp, bias[i].slope);
  };
}

// The depth of every pixel as a number in [0, 1] (UNORM bits divided by 2^n -
// 1).
std::vector<double> depths(const DrawFrame& f, VkFormat format) {
  std::vector<double> d;
  for (size_t i = 0; i < f.depth_bits.size(); ++i) {
    if (format == VK_FORMAT_D32_SFLOAT) d.push_back(f.depth[i]);
    if (format == VK_FORMAT_D16_UNORM) d.push_back(f.depth_bits[i] / 65535.0);
    if (format == VK_FORMAT_D24_UNORM_S8_UINT) d.push_back((f.depth_bits[i] & 0xffffff) / 16777215.0);
  }
  return d;
}

// The sloped triangle drawn with one bias (dynamic) into a target of `format`.
DrawScene sloped_triangle(VkFormat format, const BiasFactors& b, VkPipelineRasterizationStateCreateInfo* rs,
                          VkPipelineDynamicStateCreateInfo* dyn, std::array<VkDynamicState, 3>* states) {
  DrawScene s;
  s.depth = true;
  s.depth_format = format;
  // z from 0.55 to 0.95 across the target: slopes of about 0.003 per pixel.
  s.vertices = {{-0.9f, -0.85f, 0.55f, {200, 40, 40, 255}},
                {0.95f, -0.7f, 0.75f, {200, 40, 40, 255}},
                {-0.6f, 0.9f, 0.95f, {200, 40, 40, 255}}};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  use_dynamic_bias(&s, {b}, rs, dyn, states);
  return s;
}

// The bias each driver adds is compared: the biased depth minus the same
// driver's unbiased one. (The unbiased depths themselves differ by up to half a
// sub-pixel times the slope: gsgpu interpolates from snapped vertices, lavapipe
// from unsnapped ones; docs/graphics.md.)
TEST_F(VkDepthBias, SlopedTriangleDepthsMatchLavapipeForEachFormatAndFactors) {
  const VkFormat formats[] = {VK_FORMAT_D16_UNORM, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT};
  const char* format_names[] = {"D16", "D24", "D32"};
  const double units[] = {1 / 65535.0, 1 / 16777215.0, 0x1p-24};  // the largest depth's step (0.5 .. 1)
  const BiasFactors factors[] = {{0, 0, 0, "none"},
                                 {1, 0, 0, "constant 1"},
                                 {0, 0, 1, "slope 1"},
                                 {50, 0.002f, 3, "constant 50, slope 3, clamp 0.002"},
                                 {-20, -0.0005f, -2, "constant -20, slope -2, clamp -0.0005"},
                                 {300, 0, -0.5f, "constant 300, slope -0.5"}};
  for (int f = 0; f < 3; ++f) {
    std::vector<double> plain[2];  // gsgpu's and lavapipe's unbiased depths
    for (const BiasFactors& b : factors) {
      VkPipelineRasterizationStateCreateInfo rs{};
      VkPipelineDynamicStateCreateInfo dyn{};
      std::array<VkDynamicState, 3> states{};
      const DrawScene s = sloped_triangle(formats[f], b, &rs, &dyn, &states);
      const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
      ASSERT_EQ(gs.color, ref.color) << format_names[f] << ", " << b.name;  // the same pixels drawn
      const std::vector<double> a = depths(gs, formats[f]), r = depths(ref, formats[f]);
      ASSERT_EQ(a.size(), r.size());
      if (plain[0].empty()) plain[0] = a, plain[1] = r;
      double max_diff = 0, max_bias = 0;
      uint32_t differing = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        const double bias_gs = a[i] - plain[0][i], bias_ref = r[i] - plain[1][i];
        max_diff = std::max(max_diff, std::fabs(bias_gs - bias_ref));
        differing += bias_gs != bias_ref;
        max_bias = std::max(max_bias, std::fabs(bias_ref));
      }
      std::printf(
          "[vkdepthbias] %s, %s: bias up to %.3g; %u of 4096 biases "
          "differ, max %.3g (%.2f steps)\n",
          format_names[f], b.name, max_bias, differing, max_diff, max_diff / units[f]);
      EXPECT_LE(max_diff, 2.01 * units[f]) << format_names[f] << ", " << b.name;
      if (b.constant != 0 || b.slope != 0) {
        EXPECT_GT(max_bias, 0.0) << format_names[f] << ", " << b.name;
      }
    }
  }
}

// GL's polygon offset: a red quad, then the same quad in green with a bias.
// LESS lets the green one through only where its biased depth is below the red
// one's: everywhere with a negative bias, nowhere with a positive one (and
// nowhere without a bias: the depths are equal).
TEST_F(VkDepthBias, CoplanarQuadPassesTheDepthTestOnlyWithANegativeBias) {
  const VkFormat formats[] = {VK_FORMAT_D16_UNORM, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT};
  const BiasFactors second[] = {{0, 0, 0, "none"}, {-1, 0, -1, "-1, -1"}, {1, 0, 1, "1, 1"}, {-1, 0, 0, "-1, 0"}};
  for (VkFormat format : formats) {
    for (const BiasFactors& b : second) {
      DrawScene s;
      s.depth = true;
      s.depth_format = format;
      const float zs[4] = {0.3f, 0.5f, 0.6f, 0.8f};
      const float xy[4][2] = {{-0.8f, -0.75f}, {0.85f, -0.8f}, {-0.7f, 0.8f}, {0.75f, 0.85f}};
      for (int copy = 0; copy < 2; ++copy) {
        const uint8_t g = copy ? 255 : 0, r = copy ? 0 : 255;
        const int order[6] = {0, 1, 2, 2, 1, 3};
        for (int v : order) s.vertices.push_back({xy[v][0], xy[v][1], zs[v], {r, g, 0, 255}});
      }
      s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}, {false, 6, 6, 0, {1, 1, 1, 1}}};
      VkPipelineRasterizationStateCreateInfo rs{};
      VkPipelineDynamicStateCreateInfo dyn{};
      std::array<VkDynamicState, 3> states{};
      use_dynamic_bias(&s, {{0, 0, 0, "first"}, b}, &rs, &dyn, &states);
      const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
      const uint32_t differing = differing_pixels(gs, ref);
      uint32_t green = 0;
      for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) green += gs.color[i + 1] == 255;
      std::printf(
          "[vkdepthbias] coplanar, format %d, bias %s: %u green "
          "pixels, %u of 4096 differ from lavapipe\n",
          int(format), b.name, green, differing);
      EXPECT_EQ(differing, 0u) << b.name;
      EXPECT_EQ(green == 0, b.constant >= 0) << b.name;
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
