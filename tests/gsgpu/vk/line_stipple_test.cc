// Stippled lines (VK_EXT_line_rasterization's stippledRectangularLines / stippledBresenhamLines)
// against lavapipe: fans of lines whose colour runs from one end to the other, and line strips whose
// stipple counter carries from segment to segment, in both line modes, with the pipeline's factor
// and pattern or vkCmdSetLineStippleEXT's (VK_DYNAMIC_STATE_LINE_STIPPLE_EXT), drawn on gsgpu and on
// lavapipe in one instance (texture_fixture.h's BothDrivers). Endpoints lie off the pixel grid's
// ties. Hostile factors (0, above 256) are refused at pipeline creation and by the command.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkLineStipple : public BothDrivers {
 protected:
  VkLineStipple() {
    features_.rectangularLines = VK_TRUE;
    features_.bresenhamLines = VK_TRUE;
    features_.stippledRectangularLines = VK_TRUE;
    features_.stippledBresenhamLines = VK_TRUE;
    device_request_.extensions = {VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME};
    device_request_.next = &features_;
  }
  // The loader's trampoline for the extension's command, which dispatches by command buffer to
  // either driver.
  PFN_vkCmdSetLineStippleEXT set_line_stipple() const {
    return reinterpret_cast<PFN_vkCmdSetLineStippleEXT>(vkGetInstanceProcAddr(instance_, "vkCmdSetLineStippleEXT"));
  }
  VkPhysicalDeviceLineRasterizationFeaturesEXT features_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
};

struct Stipple {
  uint32_t factor;
  uint16_t pattern;
};

// A stippled scene: `topology` LINE_LIST (a fan of 12 lines) or LINE_STRIP (two zigzag strips, one
// draw each), in `mode`; the factor and pattern from the pipeline or, when `dynamic`, from
// vkCmdSetLineStippleEXT (`set`).
struct StippleScene {
  DrawScene scene;
  VkPipelineRasterizationLineStateCreateInfoEXT line{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  VkPipelineRasterizationStateCreateInfo rs{};
  VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  VkDynamicState states[3] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_LINE_STIPPLE_EXT};

  StippleScene(VkPrimitiveTopology topology, VkLineRasterizationModeEXT mode, Stipple stipple, bool dynamic,
               PFN_vkCmdSetLineStippleEXT set) {
    if (topology == VK_PRIMITIVE_TOPOLOGY_LINE_LIST) {
      fan();
    } else {
      strips();
    }
    line.lineRasterizationMode = mode;
    line.stippledLineEnable = VK_TRUE;
    line.lineStippleFactor = dynamic ? 0 : stipple.factor;  // ignored when dynamic
    line.lineStipplePattern = dynamic ? 0 : stipple.pattern;
    ia.topology = topology;
    scene.edit = [this, dynamic](VkGraphicsPipelineCreateInfo& info) {
      rs = *info.pRasterizationState;
      rs.pNext = &line;
      info.pRasterizationState = &rs;
      info.pInputAssemblyState = &ia;
      if (!dynamic) return;
      dyn.dynamicStateCount = 3;  // the fixture's viewport and scissor, and the stipple
      dyn.pDynamicStates = states;
      info.pDynamicState = &dyn;
    };
    if (dynamic) scene.before_draws = [set, stipple](VkCommandBuffer cb) { set(cb, stipple.factor, stipple.pattern); };
  }

  void add(float x, float y, uint8_t r, uint8_t g, uint8_t b) {
    scene.vertices.push_back({x / 32 - 1, y / 32 - 1, 0.5f, {r, g, b, 255}});
  }
  // 12 lines outwards from near the centre at (0.3, 0.2)-pixel offsets, red at the inner end and
  // green at the outer (the pieces must keep the line's interpolation).
  void fan() {
    for (int i = 0; i < 12; ++i) {
      const double angle = 2 * M_PI * (i + 0.37) / 12;
      add(32.3f + float(4 * std::cos(angle)), 31.2f + float(4 * std::sin(angle)), 250, 20, uint8_t(10 * i));
      add(32.3f + float(29 * std::cos(angle)), 31.2f + float(29 * std::sin(angle)), 20, 250, uint8_t(10 * i));
    }
    scene.draws = {{false, uint32_t(scene.vertices.size()), 0, 0, {1, 1, 1, 1}}};
  }
  // Two strips of 7 vertices (segments of 13.55 pixels, so the counter's carry from one segment
  // to the next shows), one draw each: the second restarts the counter.
  void strips() {
    for (int s = 0; s < 2; ++s) {
      for (int i = 0; i < 7; ++i) {
        // No vertex on a diamond's edge (|x - centre| + |y - centre| = 1/2), where the rule ties.
        const float x = 3.35f + 9.7f * float(i), y = 6.2f + 27.0f * float(s) + (i % 2 ? 13.55f : 0.0f);
        add(x, y, uint8_t(250 - 30 * i), uint8_t(30 * i), uint8_t(120 * s));
      }
    }
    scene.draws = {{false, 7, 0, 0, {1, 1, 1, 1}}, {false, 7, 7, 0, {1, 1, 1, 1}}};
  }
};

uint32_t lit_pixels(const DrawFrame& f) {
  uint32_t n = 0;
  for (size_t i = 0; i + 4 <= f.color.size(); i += 4) n += f.color[i] != 0 || f.color[i + 1] != 0;
  return n;
}

// Renders the scene on both drivers; EXPECTs the same pixels lit and their colours within one step
// (lavapipe interpolates a piece's colours in binary32 in its own order), and returns gsgpu's lit
// pixels.
uint32_t compare(DrawSide& gsgpu, DrawSide& lavapipe, const StippleScene& s, const char* name) {
  const DrawFrame gs = gsgpu.render(s.scene);
  const DrawFrame ref = lavapipe.render(s.scene);
  EXPECT_EQ(gs.color.size(), ref.color.size());
  if (gs.color.size() != ref.color.size()) return 0;
  uint32_t coverage = 0, max_diff = 0;
  for (size_t p = 0; p + 4 <= gs.color.size(); p += 4) {
    const bool lit = gs.color[p] != 0 || gs.color[p + 1] != 0, ref_lit = ref.color[p] != 0 || ref.color[p + 1] != 0;
    coverage += lit != ref_lit;
    for (size_t c = 0; c < 4 && lit && ref_lit; ++c) max_diff = std::max<uint32_t>(max_diff, std::abs(gs.color[p + c] - ref.color[p + c]));
  }
  std::printf("[vkstipple] %s: %u lit (lavapipe %u), %u of 4096 lit on one side only, %u differ, max %u/255\n", name,
              lit_pixels(gs), lit_pixels(ref), coverage, differing_pixels(gs, ref), max_diff);
  EXPECT_EQ(coverage, 0u) << name;
  EXPECT_LE(max_diff, 1u) << name;
  return lit_pixels(gs);
}

const Stipple kStipples[] = {{1, 0x0F0F}, {3, 0x00FF}, {2, 0xA5C3}, {1, 0x0001}};

TEST_F(VkLineStipple, ListsAndStripsInBothModesMatchLavapipe) {
  const VkLineRasterizationModeEXT modes[] = {VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT,
                                              VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT};
  const VkPrimitiveTopology topologies[] = {VK_PRIMITIVE_TOPOLOGY_LINE_LIST, VK_PRIMITIVE_TOPOLOGY_LINE_STRIP};
  for (VkLineRasterizationModeEXT mode : modes) {
    for (VkPrimitiveTopology topology : topologies) {
      uint32_t solid_lit = 0;
      for (const Stipple& st : kStipples) {
        char name[96];
        std::snprintf(name, sizeof name, "%s %s, factor %u, pattern 0x%04x",
                      mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT ? "Bresenham" : "rectangular",
                      topology == VK_PRIMITIVE_TOPOLOGY_LINE_LIST ? "list" : "strips", st.factor, st.pattern);
        const uint32_t lit = compare(*gsgpu_, *lavapipe_, StippleScene(topology, mode, st, false, nullptr), name);
        if (st.pattern == 0x0F0F) solid_lit = lit;
        EXPECT_GT(lit, 8u) << name;
      }
      // Half the pattern's bits: about half of the lines' pixels.
      const uint32_t all = compare(*gsgpu_, *lavapipe_, StippleScene(topology, mode, {1, 0xFFFF}, false, nullptr),
                                   "pattern 0xffff");
      EXPECT_GT(solid_lit, all / 3);
      EXPECT_LT(solid_lit, all * 2 / 3);
    }
  }
}

TEST_F(VkLineStipple, DynamicFactorAndPatternMatchLavapipe) {
  const PFN_vkCmdSetLineStippleEXT set = set_line_stipple();
  ASSERT_NE(set, nullptr);
  for (const Stipple& st : {Stipple{4, 0x3C3C}, Stipple{256, 0x00FF}, Stipple{1, 0x5555}}) {
    char name[64];
    std::snprintf(name, sizeof name, "dynamic factor %u pattern 0x%04x", st.factor, st.pattern);
    compare(*gsgpu_, *lavapipe_,
            StippleScene(VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, st, true, set),
            name);
  }
}

// lineStippleFactor must lie in [1, 256]: a pipeline with 0 or 257 (not dynamic) is refused; a
// dynamic pipeline ignores its own; vkCmdSetLineStippleEXT(0 or 257) is not set, so the draw that
// needs it is not recorded (the frame stays clear) and a valid call after it draws.
TEST_F(VkLineStipple, FactorsOutsideTheRangeAreRefused) {
  StippleScene s(VK_PRIMITIVE_TOPOLOGY_LINE_LIST, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, {0, 0x0F0F}, false, nullptr);
  const DrawSide::Targets t = gsgpu_->targets(s.scene);
  VkPipeline p = VK_NULL_HANDLE;
  for (uint32_t factor : {0u, 257u, 0xFFFFFFFFu}) {
    s.line.lineStippleFactor = factor;
    EXPECT_EQ(gsgpu_->pipeline(t.pass, false, VK_CULL_MODE_NONE, s.scene.edit, &p), VK_ERROR_FEATURE_NOT_PRESENT)
        << factor;
  }
  const PFN_vkCmdSetLineStippleEXT set = set_line_stipple();
  ASSERT_NE(set, nullptr);
  StippleScene bad(VK_PRIMITIVE_TOPOLOGY_LINE_LIST, VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, {0, 0x0F0F}, true, set);
  EXPECT_EQ(lit_pixels(gsgpu_->render(bad.scene)), 0u);
  bad.scene.before_draws = [set](VkCommandBuffer cb) { set(cb, 257, 0x0F0F); };
  EXPECT_EQ(lit_pixels(gsgpu_->render(bad.scene)), 0u);
  bad.scene.before_draws = [set](VkCommandBuffer cb) {
    set(cb, 0, 0xFFFF);
    set(cb, 2, 0x0F0F);  // the valid call stands
  };
  EXPECT_GT(lit_pixels(gsgpu_->render(bad.scene)), 20u);
}

}  // namespace
}  // namespace gsgpu::vk::test
