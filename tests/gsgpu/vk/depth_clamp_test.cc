// depthClamp and VK_EXT_depth_clip_enable against lavapipe: a quad whose depth ramps from
// z = -0.45 to 1.45 across the target (through both the near and the far plane), then a flat quad at
// z = 0.31 with the depth test LESS, under a viewport of depths [0.25, 0.75]. Clipping (at z = 0 and
// z = w) and clamping (the fragment depth to [0.25, 0.75]) are apart under the extension: each of the
// four combinations decides differently where the flat quad passes. Colours must equal lavapipe's
// pixel for pixel (no pixel centre lies near a clip line or a depth tie), and clamped depths are
// exact. The unclamped ramp stays inside [0.025, 0.975], where Vulkan fixes what a D32 target holds.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkDepthClamp : public BothDrivers {
 protected:
  VkDepthClamp() { device_request_.features.depthClamp = VK_TRUE; }
};

// VK_EXT_depth_clip_enable on both devices, with depthClamp.
class VkDepthClipEnable : public BothDrivers {
 protected:
  VkDepthClipEnable() {
    device_request_.features.depthClamp = VK_TRUE;
    clip_.depthClipEnable = VK_TRUE;
    device_request_.extensions = {VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME};
    device_request_.next = &clip_;
  }
  VkPhysicalDeviceDepthClipEnableFeaturesEXT clip_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT};
};

// clip: absent (Vulkan's default, clipping exactly when clamp is off), or the extension's
// depthClipEnable.
DrawScene depth_clamp_scene(bool clamp, std::optional<bool> clip = std::nullopt) {
  DrawScene s;
  s.depth = true;
  const DrawVertex a{-1, -1, -0.45f, {255, 0, 0, 255}}, b{1, -1, 1.45f, {255, 0, 0, 255}};
  const DrawVertex c{1, 1, 1.45f, {255, 0, 0, 255}}, d{-1, 1, -0.45f, {255, 0, 0, 255}};
  const DrawVertex e{-1, -1, 0.31f, {0, 255, 0, 255}}, f{1, -1, 0.31f, {0, 255, 0, 255}};
  const DrawVertex g{1, 1, 0.31f, {0, 255, 0, 255}}, h{-1, 1, 0.31f, {0, 255, 0, 255}};
  s.vertices = {a, b, c, a, c, d, e, f, g, e, g, h};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}, {false, 6, 6, 0, {1, 1, 1, 1}}};
  s.before_draws = [](VkCommandBuffer cb) {
    const VkViewport viewport{0, 0, 64, 64, 0.25f, 0.75f};
    vkCmdSetViewport(cb, 0, 1, &viewport);
  };
  auto rs = std::make_shared<VkPipelineRasterizationStateCreateInfo>();
  auto clip_state = std::make_shared<VkPipelineRasterizationDepthClipStateCreateInfoEXT>();
  s.edit = [rs, clip_state, clamp, clip](VkGraphicsPipelineCreateInfo& info) {
    *rs = *info.pRasterizationState;
    rs->depthClampEnable = clamp ? VK_TRUE : VK_FALSE;
    if (clip) {
      *clip_state = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT, rs->pNext};
      clip_state->depthClipEnable = *clip ? VK_TRUE : VK_FALSE;
      rs->pNext = clip_state.get();
    }
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
      // Left: the ramp's depth (0.062) clamped to 0.25, in front of the flat quad's 0.405.
      EXPECT_EQ(left[0], 255);
      EXPECT_EQ(gs.depth[32 * 64 + 2], 0.25f);
      // Right: the ramp's 0.92 clamped to 0.75, behind the flat quad.
      EXPECT_EQ(right[1], 255);
      EXPECT_NEAR(gs.depth[32 * 64 + 60], 0.405f, 1e-6f);
    } else {
      // Both ends of the ramp clipped away: the flat quad over the cleared depth.
      EXPECT_EQ(left[1], 255);
      EXPECT_EQ(right[1], 255);
    }
  }
}

// The four combinations of depthClampEnable and the extension's depthClipEnable. Clip and clamp:
// the ends are clipped away as without clamp. Neither: nothing is clipped, and the ramp's own depth
// (0.062 at the left, 0.92 at the right) decides against the flat quad's 0.405.
TEST_F(VkDepthClipEnable, ClipAndClampApartMatchLavapipe) {
  for (bool clamp : {false, true}) {
    for (bool clip : {false, true}) {
      const DrawScene s = depth_clamp_scene(clamp, clip);
      const DrawFrame gs = gsgpu_->render(s);
      const DrawFrame ref = lavapipe_->render(s);
      ASSERT_EQ(gs.color.size(), ref.color.size());
      ASSERT_EQ(gs.depth.size(), size_t{64} * 64);
      const uint32_t differing = differing_pixels(gs, ref);
      float worst = 0;
      for (size_t i = 0; i < gs.depth.size(); ++i) worst = std::max(worst, std::fabs(gs.depth[i] - ref.depth[i]));
      std::printf("[vkdepthclip] clamp %d clip %d: %u of 4096 pixels differ, depth within %g\n", int(clamp), int(clip),
                  differing, double(worst));
      EXPECT_EQ(differing, 0u) << "clamp " << clamp << " clip " << clip;
      EXPECT_LT(worst, 5e-5f) << "clamp " << clamp << " clip " << clip;
      const uint8_t* left = &gs.color[(32 * 64 + 2) * 4];
      const uint8_t* right = &gs.color[(32 * 64 + 60) * 4];
      EXPECT_EQ(right[1], 255) << "clamp " << clamp << " clip " << clip;  // green: the flat quad in front
      if (clip) {
        EXPECT_EQ(left[1], 255) << "clamp " << clamp;  // the ramp's end clipped away
      } else {
        EXPECT_EQ(left[0], 255) << "clamp " << clamp;  // the unclipped ramp in front
        EXPECT_NEAR(gs.depth[32 * 64 + 2], clamp ? 0.25f : 0.062f, clamp ? 0.0f : 1e-3f) << "clamp " << clamp;
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
