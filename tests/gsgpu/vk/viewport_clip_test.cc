// Primitives against a viewport smaller than the render area (scissor the whole target), and the
// depth bias of outlined polygons, against lavapipe in one instance (BothDrivers). Vulkan clips
// triangles and lines to the view volume, so nothing of them may appear outside the viewport even
// where the scissor allows it; gsgpu's clipper leaves x and y to the guard band and the primitive
// engine cuts them at the viewport's pixels (docs/graphics.md "Primitive engine"). GL's polygon
// offset is mostly used to draw a polygon's outline over its fill (polygon mode LINE with a
// negative bias): each outline must win the depth test where lavapipe's does. Constant colours of
// whole 1/255 steps: the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <cstdio>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkViewportClip : public BothDrivers {
 protected:
  VkViewportClip() { device_request_.features.fillModeNonSolid = VK_TRUE; }
};

// A triangle far larger than the viewport, and horizontal and vertical lines across its edges.
TEST_F(VkViewportClip, TrianglesAndLinesStayInsideASmallerViewport) {
  for (int lines = 0; lines < 2; ++lines) {
    DrawScene s;
    if (lines) {
      const float l[6][4] = {{-0.9f, -0.31f, 0.95f, -0.31f}, {-0.95f, 0.22f, 0.9f, 0.22f},
                             {-0.43f, -0.95f, -0.43f, 0.9f}, {0.37f, -0.9f, 0.37f, 0.97f},
                             {-0.8f, 0.6f, 0.3f, 0.6f},      {0.05f, -0.97f, 0.05f, -0.2f}};
      for (const auto& e : l) {
        s.vertices.push_back({e[0], e[1], 0.5f, {40, 250, 90, 255}});
        s.vertices.push_back({e[2], e[3], 0.5f, {40, 250, 90, 255}});
      }
    } else {
      s.vertices = {{-3.1f, -2.7f, 0.5f, {250, 60, 40, 255}},
                    {2.9f, -0.4f, 0.5f, {250, 60, 40, 255}},
                    {-0.6f, 3.3f, 0.5f, {250, 60, 40, 255}}};
    }
    s.draws = {{false, uint32_t(s.vertices.size()), 0, 0, {1, 1, 1, 1}}};
    VkPipelineInputAssemblyStateCreateInfo ia{};
    s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
      ia = *info.pInputAssemblyState;
      ia.topology = lines ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
      info.pInputAssemblyState = &ia;
    };
    s.before_draws = [](VkCommandBuffer cb) {
      const VkViewport viewport{12, 9, 30, 41, 0, 1};  // pixels 12..41 x 9..49 of the 64 x 64 target
      vkCmdSetViewport(cb, 0, 1, &viewport);
    };
    const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
    uint32_t outside = 0, drawn = 0;
    for (uint32_t y = 0; y < 64; ++y) {
      for (uint32_t x = 0; x < 64; ++x) {
        const bool lit = gs.color[(y * 64 + x) * 4 + 1] != 0;
        drawn += lit;
        outside += lit && (x < 12 || x >= 42 || y < 9 || y >= 50);
      }
    }
    const uint32_t differing = differing_pixels(gs, ref);
    std::printf("[vkviewportclip] %s: %u pixels drawn, %u outside the viewport, %u of 4096 differ from lavapipe\n",
                lines ? "lines" : "triangle", drawn, outside, differing);
    EXPECT_EQ(outside, 0u);
    EXPECT_EQ(differing, 0u);
    EXPECT_GT(drawn, lines ? 100u : 1200u);
  }
}

// The fixture draws with one pipeline: here in polygon mode LINE with a dynamic bias. A quad's
// outline in red without bias, then the same outline in green with a bias: the green one passes the
// LESS test where a negative bias brings it nearer, and nowhere with a positive one.
TEST_F(VkViewportClip, OutlinesTakeTheirPolygonsDepthBias) {
  const float bias[3][2] = {{0, 0}, {-1, -1}, {2, 2}};  // constant, slope
  for (const auto& b : bias) {
    DrawScene s;
    s.depth = true;
    s.depth_format = VK_FORMAT_D24_UNORM_S8_UINT;
    const float xy[4][2] = {{-0.8f, -0.75f}, {0.85f, -0.8f}, {-0.7f, 0.8f}, {0.75f, 0.85f}};
    const float zs[4] = {0.3f, 0.5f, 0.6f, 0.8f};
    for (int copy = 0; copy < 2; ++copy) {
      for (int v : {0, 1, 2, 2, 1, 3}) {
        s.vertices.push_back({xy[v][0], xy[v][1], zs[v], {uint8_t(copy ? 0 : 255), uint8_t(copy ? 255 : 0), 0, 255}});
      }
    }
    s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}, {false, 6, 6, 0, {1, 1, 1, 1}}};
    VkPipelineRasterizationStateCreateInfo rs{};
    VkPipelineDynamicStateCreateInfo dyn{};
    std::array<VkDynamicState, 3> states{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                                         VK_DYNAMIC_STATE_DEPTH_BIAS};
    s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
      rs = *info.pRasterizationState;
      rs.depthBiasEnable = VK_TRUE;
      rs.polygonMode = VK_POLYGON_MODE_LINE;
      info.pRasterizationState = &rs;
      dyn = *info.pDynamicState;
      dyn.dynamicStateCount = 3;
      dyn.pDynamicStates = states.data();
      info.pDynamicState = &dyn;
    };
    s.before_draw = [&](VkCommandBuffer cb, size_t i) {
      vkCmdSetDepthBias(cb, i == 0 ? 0.0f : b[0], 0.0f, i == 0 ? 0.0f : b[1]);
    };
    const DrawFrame gs = gsgpu_->render(s), ref = lavapipe_->render(s);
    uint32_t green = 0;
    for (size_t i = 0; i + 4 <= gs.color.size(); i += 4) green += gs.color[i + 1] == 255;
    const uint32_t differing = differing_pixels(gs, ref);
    std::printf("[vkviewportclip] outline over outline, bias %g, %g: %u green, %u of 4096 differ from lavapipe\n",
                b[0], b[1], green, differing);
    EXPECT_EQ(differing, 0u);
    EXPECT_EQ(green > 0, b[0] < 0);
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
