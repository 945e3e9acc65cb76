// fillModeNonSolid against lavapipe: triangles of both windings drawn with VK_POLYGON_MODE_LINE
// (their edges by the line rules, rectangular and Bresenham) and VK_POLYGON_MODE_POINT (their
// vertices as points), back faces culled, on gsgpu and lavapipe in one instance (BothDrivers, both
// devices created with fillModeNonSolid and VK_EXT_line_rasterization). Each triangle is one solid
// colour and its vertices lie off the rules' ties, so the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkPolygonModes : public BothDrivers {
 protected:
  VkPolygonModes() {
    device_request_.features.fillModeNonSolid = VK_TRUE;
    lines_.bresenhamLines = VK_TRUE;
    lines_.rectangularLines = VK_TRUE;
    device_request_.extensions = {VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME};
    device_request_.next = &lines_;
  }
  VkPhysicalDeviceLineRasterizationFeaturesEXT lines_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
};

// Four triangles in pixel coordinates of the 64 x 64 target: three counter-clockwise on screen
// (front faces) and one clockwise (a back face, culled), each its own colour; no edge passes a
// Bresenham diamond's corner or a pixel centre, where the rules leave the choice to the driver.
DrawScene triangles() {
  DrawScene s;
  const float tris[4][6] = {{4.3f, 5.2f, 10.1f, 27.6f, 28.7f, 9.4f},
                            {36.3f, 4.7f, 35.8f, 22.15f, 60.4f, 30.3f},
                            {6.6f, 58.3f, 30.9f, 60.2f, 26.2f, 36.4f},
                            {40.3f, 40.2f, 61.4f, 44.9f, 42.6f, 60.7f}};
  const uint8_t colours[4][3] = {{250, 40, 40}, {40, 250, 40}, {60, 60, 250}, {250, 250, 60}};
  for (int t = 0; t < 4; ++t) {
    for (int v = 0; v < 3; ++v) {
      s.vertices.push_back({tris[t][2 * v] / 32 - 1, tris[t][2 * v + 1] / 32 - 1, 0.5f,
                            {colours[t][0], colours[t][1], colours[t][2], 255}});
    }
  }
  s.draws = {{false, 12, 0, 0, {1, 1, 1, 1}}};
  s.cull = VK_CULL_MODE_BACK_BIT;
  return s;
}

uint32_t drawn_pixels(const DrawFrame& f) {
  uint32_t n = 0;
  for (size_t i = 0; i + 4 <= f.color.size(); i += 4) n += f.color[i] != 0 || f.color[i + 1] != 0 || f.color[i + 2] != 0;
  return n;
}

TEST_F(VkPolygonModes, LineAndPointModesMatchLavapipeBitForBit) {
  struct Mode {
    VkPolygonMode polygon;
    bool bresenham;
    const char* name;
  };
  const Mode modes[] = {{VK_POLYGON_MODE_FILL, false, "fill"},
                        {VK_POLYGON_MODE_LINE, false, "line"},
                        {VK_POLYGON_MODE_LINE, true, "line, Bresenham"},
                        {VK_POLYGON_MODE_POINT, false, "point"}};
  uint32_t drawn[4] = {};
  for (int m = 0; m < 4; ++m) {
    VkPipelineRasterizationLineStateCreateInfoEXT line{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
    line.lineRasterizationMode =
        modes[m].bresenham ? VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT : VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT;
    VkPipelineRasterizationStateCreateInfo rs{};
    DrawScene s = triangles();
    s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
      rs = *info.pRasterizationState;
      rs.polygonMode = modes[m].polygon;
      rs.pNext = &line;
      info.pRasterizationState = &rs;
    };
    const DrawFrame gs = gsgpu_->render(s);
    const DrawFrame ref = lavapipe_->render(s);
    ASSERT_EQ(gs.color.size(), ref.color.size());
    const uint32_t differing = differing_pixels(gs, ref);
    drawn[m] = drawn_pixels(gs);
    std::printf("[vkpolygon] %s: %u pixels drawn, %u of 4096 differ from lavapipe\n", modes[m].name, drawn[m],
                differing);
    EXPECT_EQ(differing, 0u) << modes[m].name;
  }
  // Outlines draw fewer pixels than the fill and more than the 9 points of the three front faces.
  EXPECT_LT(drawn[1], drawn[0]);
  EXPECT_GT(drawn[1], 60u);
  EXPECT_EQ(drawn[3], 9u);
}

}  // namespace
}  // namespace gsgpu::vk::test
