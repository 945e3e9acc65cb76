// wideLines against lavapipe: fans of solid-colour lines of widths 1 .. 8 in both line modes of
// VK_EXT_line_rasterization (rectangular: the rectangle of the width; Bresenham: the width-1 line
// moved by -(w - 1) / 2 and extended to w whole pixels across), drawn with the width set by
// vkCmdSetLineWidth (dynamic) or by the pipeline, on gsgpu and on lavapipe in one instance
// (texture_fixture.h's BothDrivers). Endpoints lie off the pixel grid's ties, so the rules fix every
// pixel. Hostile widths (NaN, infinite, huge, below 1) are clamped to lineWidthRange, never a fault.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkWideLines : public BothDrivers {
 protected:
  VkWideLines() {
    device_request_.features.wideLines = VK_TRUE;
    features_.rectangularLines = VK_TRUE;
    features_.bresenhamLines = VK_TRUE;
    device_request_.extensions = {VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME};
    device_request_.next = &features_;
  }
  VkPhysicalDeviceLineRasterizationFeaturesEXT features_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
};

// 12 lines from near the centre of a 64 x 64 target outwards at (0.3, 0.2)-pixel offsets, each its
// own colour, drawn as a line list in `mode` with `width` (dynamic when `dynamic`).
struct WideLineScene {
  DrawScene scene;
  VkPipelineRasterizationLineStateCreateInfoEXT line{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  VkPipelineRasterizationStateCreateInfo rs{};
  VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  VkDynamicState states[3] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_LINE_WIDTH};

  WideLineScene(VkLineRasterizationModeEXT mode, float width, bool dynamic) {
    for (int i = 0; i < 12; ++i) {
      const double angle = 2 * M_PI * (i + 0.37) / 12;
      const float x0 = 32.3f + float(5 * std::cos(angle)), y0 = 31.2f + float(5 * std::sin(angle));
      const float x1 = 32.3f + float(27 * std::cos(angle)), y1 = 31.2f + float(27 * std::sin(angle));
      const uint8_t r = uint8_t(40 + 17 * i), g = uint8_t(250 - 13 * i), b = uint8_t(i % 2 ? 200 : 60);
      scene.vertices.push_back({x0 / 32 - 1, y0 / 32 - 1, 0.5f, {r, g, b, 255}});
      scene.vertices.push_back({x1 / 32 - 1, y1 / 32 - 1, 0.5f, {r, g, b, 255}});
    }
    scene.draws = {{false, uint32_t(scene.vertices.size()), 0, 0, {1, 1, 1, 1}}};
    line.lineRasterizationMode = mode;
    ia.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    scene.edit = [this, width, dynamic](VkGraphicsPipelineCreateInfo& info) {
      rs = *info.pRasterizationState;
      rs.pNext = &line;
      rs.lineWidth = dynamic ? std::numeric_limits<float>::quiet_NaN() : width;  // ignored when dynamic
      info.pRasterizationState = &rs;
      info.pInputAssemblyState = &ia;
      if (!dynamic) return;
      // The fixture's pipelines have dynamic viewport and scissor; line width joins them.
      dyn.dynamicStateCount = 3;
      dyn.pDynamicStates = states;
      info.pDynamicState = &dyn;
    };
    if (dynamic) scene.before_draws = [width](VkCommandBuffer cb) { vkCmdSetLineWidth(cb, width); };
  }
};

// The pixels of a 64 x 64 frame that differ from the reference's and lie farther than `reach`
// pixels (in x or y) from every endpoint of the scene's lines.
uint32_t differing_away_from_ends(const DrawFrame& x, const DrawFrame& y, const DrawScene& s, float reach) {
  uint32_t n = 0;
  for (uint32_t p = 0; p < 64 * 64; ++p) {
    if (std::memcmp(&x.color[p * 4], &y.color[p * 4], 4) == 0) continue;
    const float cx = float(p % 64) + 0.5f, cy = float(p / 64) + 0.5f;
    bool near_end = false;
    for (const DrawVertex& v : s.vertices) {
      near_end |= std::fabs((v.x + 1) * 32 - cx) <= reach && std::fabs((v.y + 1) * 32 - cy) <= reach;
    }
    n += !near_end;
  }
  return n;
}

uint32_t drawn_pixels(const DrawFrame& f) {
  uint32_t n = 0;
  for (size_t i = 0; i + 4 <= f.color.size(); i += 4) n += f.color[i] != 0 || f.color[i + 1] != 0;
  return n;
}

TEST_F(VkWideLines, DeviceReportsTheWidthRange) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &props);
  EXPECT_EQ(props.limits.lineWidthRange[0], 1.0f);
  EXPECT_EQ(props.limits.lineWidthRange[1], 64.0f);
  EXPECT_EQ(props.limits.lineWidthGranularity, 1.0f / 256);
}

// Rectangular lines and odd-width Bresenham lines equal lavapipe's bit for bit. Even-width Bresenham
// lines differ at their ends only: gsgpu decides the end columns by the diamond-exit rule on the
// moved segment, as the spec defines it; lavapipe decides them on the unmoved one (its rule for
// width 1) and centres the column on the line, which the spec's tolerance for Bresenham lines
// allows. Inside the line the columns agree (each covers the centres within w / 2 of the line).
TEST_F(VkWideLines, WidthsOneToEightInBothModesMatchLavapipe) {
  const VkLineRasterizationModeEXT modes[] = {VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT,
                                              VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT};
  for (VkLineRasterizationModeEXT mode : modes) {
    const bool bresenham = mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT;
    uint32_t last_drawn = 0;
    for (float width : {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f}) {
      WideLineScene w(mode, width, true);
      const DrawFrame gs = gsgpu_->render(w.scene), ref = lavapipe_->render(w.scene);
      ASSERT_EQ(gs.color.size(), ref.color.size());
      const uint32_t differing = differing_pixels(gs, ref), drawn = drawn_pixels(gs);
      std::printf("[vkwidelines] %s width %g: %u pixels drawn, %u of 4096 differ from lavapipe\n",
                  bresenham ? "Bresenham" : "rectangular", width, drawn, differing);
      const bool even = int(width) % 2 == 0;
      if (bresenham && even) {
        EXPECT_LE(differing, 12 * uint32_t(width)) << width;  // 12, 23, 34, 45 pixels measured for 2 .. 8
        EXPECT_EQ(differing_away_from_ends(gs, ref, w.scene, width / 2 + 1), 0u) << width;
      } else {
        EXPECT_EQ(differing, 0u) << (bresenham ? "Bresenham " : "rectangular ") << width;
      }
      EXPECT_GT(drawn, last_drawn) << width;  // each width covers more
      last_drawn = drawn;
    }
  }
}

// The pipeline's lineWidth (not dynamic) and fractional widths: a rectangle of 2.5 or 5.75 pixels,
// Bresenham lines rounded to whole pixels as lavapipe rounds them (2.5 draws 3, 4.75 draws 5).
TEST_F(VkWideLines, PipelineAndFractionalWidthsMatchLavapipe) {
  for (VkLineRasterizationModeEXT mode :
       {VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT}) {
    for (float width : {2.5f, 4.75f}) {
      WideLineScene w(mode, width, false);
      const DrawFrame gs = gsgpu_->render(w.scene), ref = lavapipe_->render(w.scene);
      ASSERT_EQ(gs.color.size(), ref.color.size());
      const uint32_t differing = differing_pixels(gs, ref);
      std::printf("[vkwidelines] pipeline width %g, mode %d: %u of 4096 differ from lavapipe\n", width, int(mode),
                  differing);
      EXPECT_EQ(differing, 0u) << width << " mode " << mode;
    }
  }
}

// Hostile widths from the application: NaN and values below 1 draw 1, +inf and 10^30 draw 64 (the
// driver clamps to lineWidthRange with a log line; the device would clamp the word again).
TEST_F(VkWideLines, HostileWidthsAreClampedToTheRange) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (VkLineRasterizationModeEXT mode :
       {VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT}) {
    const DrawFrame one = gsgpu_->render(WideLineScene(mode, 1.0f, true).scene);
    const DrawFrame widest = gsgpu_->render(WideLineScene(mode, 64.0f, true).scene);
    if (mode == VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT) {
      EXPECT_EQ(differing_pixels(widest, lavapipe_->render(WideLineScene(mode, 64.0f, true).scene)), 0u);
    }
    EXPECT_GT(drawn_pixels(widest), 3 * drawn_pixels(one));
    for (bool dynamic : {true, false}) {
      for (float width : {nan, 0.0f, -3.0f, -inf}) {
        EXPECT_EQ(differing_pixels(gsgpu_->render(WideLineScene(mode, width, dynamic).scene), one), 0u)
            << width << " dynamic " << dynamic;
      }
      for (float width : {inf, 1e30f, 64.5f}) {
        EXPECT_EQ(differing_pixels(gsgpu_->render(WideLineScene(mode, width, dynamic).scene), widest), 0u)
            << width << " dynamic " << dynamic;
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
