// depthClamp against lavapipe: a quad whose depth ramps from z = -0.45 to 1.55 across the target
// (through both the near and the far plane), then a flat quad at z = 0.31 with the depth test LESS,
// under a viewport of depths [0.25, 0.75]. Without depth clamp the ramp is clipped at z = 0 and
// z = w; with it nothing is clipped and the fragment depth is clamped to [0.25, 0.75], which
// decides where the flat quad passes. Colours must equal lavapipe's pixel for pixel (no pixel
// centre lies near a clip line or a depth tie), and the clamped depths are exact.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkDepthClamp : public BothDrivers {
 protected:
  VkDepthClamp() { device_request_.features.depthClamp = VK_TRUE; }
};

DrawScene depth_clamp_scene(bool clamp) {
  DrawScene s;
  s.depth = true;
  const DrawVertex a{-1, -1, -0.45f, {255, 0, 0, 255}}, b{1, -1, 1.55f, {255, 0, 0, 255}};
  const DrawVertex c{1, 1, 1.55f, {255, 0, 0, 255}}, d{-1, 1, -0.45f, {255, 0, 0, 255}};
  const DrawVertex e{-1, -1, 0.31f, {0, 255, 0, 255}}, f{1, -1, 0.31f, {0, 255, 0, 255}};
  const DrawVertex g{1, 1, 0.31f, {0, 255, 0, 255}}, h{-1, 1, 0.31f, {0, 255, 0, 255}};
  s.vertices = {a, b, c, a, c, d, e, f, g, e, g, h};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}, {false, 6, 6, 0, {1, 1, 1, 1}}};
  s.before_draws = [](VkCommandBuffer cb) {
    const VkViewport viewport{0, 0, 64, 64, 0.25f, 0.75f};
    vkCmdSetViewport(cb, 0, 1, &viewport);
  };
  auto rs = std::make_shared<VkPipelineRasterizationStateCreateInfo>();
  s.edit = [rs, clamp](VkGraphicsPipelineCreateInfo& info) {
    *rs = *info.pRasterizationState;
    rs->depthClampEnable = clamp ? VK_TRUE : VK_FALSE;
    info.pRasterizationState = rs.get();
  };
  return s;
}

TEST_F(VkDepthClamp, ClampedAndClippedRampsMatchLavapipe) {
  VkPhysicalDeviceFeatures features;
  vkGetPhysicalDeviceFeatures(gsgpu_physical_, &features);
  EXPECT_TRUE(features.depthClamp);
  for (bool clamp : {false, true}) {
    const DrawScene s = depth_clamp_scene(clamp);
    const DrawFrame gs = gsgpu_->render(s);
    const DrawFrame ref = lavapipe_->render(s);
    ASSERT_EQ(gs.color.size(), ref.color.size());
    ASSERT_EQ(gs.depth.size(), size_t{64} * 64);
    const uint32_t differing = differing_pixels(gs, ref);
    float worst = 0;
    for (size_t i = 0; i < gs.depth.size(); ++i) worst = std::max(worst, std::fabs(gs.depth[i] - ref.depth[i]));
    std::printf("[vkdepthclamp] clamp %d: %u of 4096 pixels differ, depth within %g\n", int(clamp), differing,
                double(worst));
    EXPECT_EQ(differing, 0u) << "clamp " << clamp;
    // The ramp is steep (0.5 of depth over 64 pixels): interpolation's last bits differ by up to
    // 2.4e-5 where nothing clamps (measured); clamped depths are exact.
    EXPECT_LT(worst, 5e-5f) << "clamp " << clamp;
    const uint8_t* left = &gs.color[(32 * 64 + 2) * 4];
    const uint8_t* right = &gs.color[(32 * 64 + 60) * 4];
    if (clamp) {
      // Left: the ramp's depth (0.064) clamped to 0.25, in front of the flat quad's 0.405.
      EXPECT_EQ(left[0], 255);
      EXPECT_EQ(gs.depth[32 * 64 + 2], 0.25f);
      // Right: the ramp's 0.96 clamped to 0.75, behind the flat quad.
      EXPECT_EQ(right[1], 255);
      EXPECT_NEAR(gs.depth[32 * 64 + 60], 0.405f, 1e-6f);
    } else {
      // Both ends of the ramp clipped away: the flat quad over the cleared depth.
      EXPECT_EQ(left[1], 255);
      EXPECT_EQ(right[1], 255);
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
