// VK_EXT_line_rasterization against lavapipe: a fan of solid-colour lines in every direction,
// drawn as a line list with the pipeline's line mode (default, rectangular, Bresenham) on gsgpu and
// on lavapipe in one instance (texture_fixture.h's BothDrivers, both devices created with the
// extension and its rectangularLines / bresenhamLines features). Endpoints lie off the pixel grid's
// ties, so the rules fix every pixel and the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkLineRasterization : public BothDrivers {
 protected:
  VkLineRasterization() {
    features_.rectangularLines = VK_TRUE;
    features_.bresenhamLines = VK_TRUE;
    device_request_.extensions = {VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME};
    device_request_.next = &features_;
  }
  VkPhysicalDeviceLineRasterizationFeaturesEXT features_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
};

// 24 lines from near the centre of a 64 x 64 target outwards, each its own colour; the endpoints
// are at (0.3, 0.2)-pixel offsets from the centres so no pixel centre lies on a rule's boundary.
DrawScene line_fan() {
  DrawScene s;
  for (int i = 0; i < 24; ++i) {
    const double angle = 2 * M_PI * (i + 0.37) / 24;
    const float x0 = 32.3f + float(4 * std::cos(angle)), y0 = 31.2f + float(4 * std::sin(angle));
    const float x1 = 32.3f + float(29 * std::cos(angle)), y1 = 31.2f + float(29 * std::sin(angle));
    const uint8_t r = uint8_t(40 + 9 * i), g = uint8_t(250 - 7 * i), b = uint8_t(i % 2 ? 200 : 60);
    s.vertices.push_back({x0 / 32 - 1, y0 / 32 - 1, 0.5f, {r, g, b, 255}});
    s.vertices.push_back({x1 / 32 - 1, y1 / 32 - 1, 0.5f, {r, g, b, 255}});
  }
  s.draws = {{false, uint32_t(s.vertices.size()), 0, 0, {1, 1, 1, 1}}};
  return s;
}

uint32_t drawn_pixels(const DrawFrame& f) {
  uint32_t n = 0;
  for (size_t i = 0; i + 4 <= f.color.size(); i += 4) n += f.color[i] != 0 || f.color[i + 1] != 0;
  return n;
}

TEST_F(VkLineRasterization, EachModeMatchesLavapipeBitForBit) {
  struct Mode {
    bool chained;
    VkLineRasterizationModeEXT mode;
    const char* name;
  };
  const Mode modes[] = {{false, VK_LINE_RASTERIZATION_MODE_DEFAULT_EXT, "no line state"},
                        {true, VK_LINE_RASTERIZATION_MODE_DEFAULT_EXT, "default"},
                        {true, VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, "rectangular"},
                        {true, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, "Bresenham"}};
  uint32_t rectangular_drawn = 0, bresenham_drawn = 0;
  for (const Mode& m : modes) {
    VkPipelineRasterizationLineStateCreateInfoEXT line{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
    line.lineRasterizationMode = m.mode;
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    VkPipelineRasterizationStateCreateInfo rs{};
    DrawScene s = line_fan();
    s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
      rs = *info.pRasterizationState;
      rs.pNext = m.chained ? &line : nullptr;
      info.pRasterizationState = &rs;
      info.pInputAssemblyState = &ia;
    };
    const DrawFrame gs = gsgpu_->render(s);
    const DrawFrame ref = lavapipe_->render(s);
    ASSERT_EQ(gs.color.size(), ref.color.size());
    const uint32_t differing = differing_pixels(gs, ref);
    std::printf("[vklines] %s: %u pixels drawn, %u of 4096 differ from lavapipe\n", m.name, drawn_pixels(gs),
                differing);
    EXPECT_EQ(differing, 0u) << m.name;
    (m.mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT ? bresenham_drawn : rectangular_drawn) = drawn_pixels(gs);
  }
  EXPECT_GT(rectangular_drawn, 24u * 20);
  EXPECT_GT(bresenham_drawn, 24u * 20);
}

// Smooth lines are not offered: a pipeline asking for them (or an unknown mode) is refused. Stippled
// lines are built: line_stipple_test.cc.
TEST_F(VkLineRasterization, SmoothLinesAndUnknownModesAreRefused) {
  VkPipelineRasterizationLineStateCreateInfoEXT line{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
  VkPipelineRasterizationStateCreateInfo rs{};
  DrawScene s = line_fan();
  const auto edit = [&](VkGraphicsPipelineCreateInfo& info) {
    rs = *info.pRasterizationState;
    rs.pNext = &line;
    info.pRasterizationState = &rs;
  };
  const DrawSide::Targets t = gsgpu_->targets(s);
  VkPipeline p = VK_NULL_HANDLE;
  line.lineRasterizationMode = VK_LINE_RASTERIZATION_MODE_RECTANGULAR_SMOOTH_EXT;
  EXPECT_EQ(gsgpu_->pipeline(t.pass, false, VK_CULL_MODE_NONE, edit, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  line.lineRasterizationMode = VkLineRasterizationModeEXT(77);
  EXPECT_EQ(gsgpu_->pipeline(t.pass, false, VK_CULL_MODE_NONE, edit, &p), VK_ERROR_FEATURE_NOT_PRESENT);
}

}  // namespace
}  // namespace gsgpu::vk::test
