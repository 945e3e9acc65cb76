// largePoints against lavapipe: point lists whose vertex shader writes
// gl_PointSize (shaders/point_size.vert) from 1 to 64 pixels, with fractional
// sizes and centres off the pixel grid, on gsgpu and lavapipe in one instance.
// Both draw Vulkan's square of side PointSize sampled at pixel centres
// (docs/graphics.md "Points and lines"). Sizes above gsgpu's 64 are left out:
// lavapipe's range goes to 255 (gsgpu's clamp is tested in point_line_test.cc).
// Constant colours: the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "shader_point_size_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkLargePoints : public BothDrivers {
 protected:
  VkLargePoints() { device_request_.features.largePoints = VK_TRUE; }
};

TEST_F(VkLargePoints, ShaderPointSizesUpTo64MatchLavapipeBitForBit) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &props);
  EXPECT_EQ(props.limits.pointSizeRange[0], 1.0f);
  EXPECT_EQ(props.limits.pointSizeRange[1], 64.0f);
  DrawScene s;
  s.width = s.height = 128;
  s.vertex_spirv = shader_point_size_vert;
  s.vertex_spirv_bytes = sizeof shader_point_size_vert;
  // (x, y) in pixels of the 128 x 128 target, and the size.
  const float points[][3] = {{10.3f, 9.7f, 1.0f},    {30.5f, 10.5f, 2.0f},  {50.2f, 12.8f, 3.5f},
                             {80.6f, 14.1f, 7.25f},  {20.0f, 40.0f, 12.0f}, {60.4f, 50.6f, 20.5f},
                             {100.7f, 45.3f, 33.0f}, {40.9f, 95.2f, 64.0f}, {100.1f, 100.9f, 17.75f}};
  uint8_t shade = 40;
  for (const auto& p : points) {
    s.vertices.push_back({p[0] / 64 - 1, p[1] / 64 - 1, p[2], {shade, uint8_t(255 - shade), 128, 255}});
    shade += 24;
  }
  s.draws = {{false, uint32_t(s.vertices.size()), 0, 0, {1, 1, 1, 1}}};
  VkPipelineInputAssemblyStateCreateInfo ia{};
  s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
    ia = *info.pInputAssemblyState;
    ia.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    info.pInputAssemblyState = &ia;
  };
  const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  const uint32_t differing = differing_pixels(gs, ref);
  uint32_t drawn = 0;
  for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) drawn += gs.color[i + 2] == 128;
  std::printf("[vklargepoints] %u pixels drawn, %u of 16384 differ from lavapipe\n", drawn, differing);
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(drawn, 4096u + 1000u);  // the 64-pixel square among them
}

}  // namespace
}  // namespace gsgpu::vk::test
