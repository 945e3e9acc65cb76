// The first Vulkan draws on gsgpu against lavapipe (mesa-vulkan-drivers), both through the Khronos
// loader in one instance (meson sets VK_DRIVER_FILES to both manifests): the same scene is rendered
// by the same code (draw_fixture.h) on each device and the images read back with
// vkCmdCopyImageToBuffer are compared with docs/graphics.md's metric — the fraction of pixels whose
// largest channel difference is over 16/255, the largest difference — and bit for bit where Vulkan
// fixes the result: pixels whose 3 x 3 neighbourhood in lavapipe's frame is one value (coverage
// fixed by the rules) with colours in whole 1/255 steps.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "tests/gsgpu/vk/draw_fixture.h"

namespace gsgpu::vk::test {
namespace {

struct Comparison {
  uint32_t over_16 = 0;      // pixels whose largest channel difference is over 16/255
  uint32_t max_diff = 0;     // in 1/255 steps
  uint32_t differing = 0;
  uint32_t interior = 0;           // pixels with a uniform 3 x 3 neighbourhood in the reference
  uint32_t interior_differing = 0;
  float max_depth_diff = 0;        // interior pixels
};

uint32_t pixel(const std::vector<uint8_t>& c, uint32_t width, uint32_t x, uint32_t y) {
  uint32_t v;
  std::memcpy(&v, &c[(size_t{y} * width + x) * 4], 4);
  return v;
}

bool uniform_neighbourhood(const std::vector<uint8_t>& c, uint32_t w, uint32_t h, uint32_t x, uint32_t y) {
  if (x == 0 || y == 0 || x + 1 >= w || y + 1 >= h) return false;
  const uint32_t v = pixel(c, w, x, y);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (pixel(c, w, x + dx, y + dy) != v) return false;
  return true;
}

Comparison compare(const DrawScene& s, const DrawFrame& gs, const DrawFrame& ref) {
  Comparison r;
  for (uint32_t y = 0; y < s.height; ++y) {
    for (uint32_t x = 0; x < s.width; ++x) {
      const size_t i = (size_t{y} * s.width + x) * 4;
      uint32_t d = 0;
      for (int c = 0; c < 4; ++c) d = std::max<uint32_t>(d, std::abs(int(gs.color[i + c]) - int(ref.color[i + c])));
      r.max_diff = std::max(r.max_diff, d);
      r.over_16 += d > 16;
      r.differing += d != 0;
      if (!uniform_neighbourhood(ref.color, s.width, s.height, x, y)) continue;
      ++r.interior;
      r.interior_differing += d != 0;
      if (!ref.depth.empty()) {
        r.max_depth_diff = std::max(r.max_depth_diff, std::fabs(gs.depth[i / 4] - ref.depth[i / 4]));
      }
    }
  }
  std::printf("[vkdraw] %u pixels: %u over 16/255, max %u/255, %u differing; %u interior, %u of them differing; "
              "interior depth within %g\n",
              s.width * s.height, r.over_16, r.max_diff, r.differing, r.interior, r.interior_differing,
              double(r.max_depth_diff));
  return r;
}

class VkDrawReference : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_reference_instance(VK_API_VERSION_1_0, &instance_, &found));
    gsgpu_ = std::make_unique<DrawSide>(found.gsgpu[0]);
    lavapipe_ = std::make_unique<DrawSide>(found.lavapipe);
  }
  void TearDown() override {
    gsgpu_.reset();
    lavapipe_.reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  std::unique_ptr<DrawSide> gsgpu_, lavapipe_;
};

DrawVertex v(float x, float y, float z, uint8_t r, uint8_t g, uint8_t b) { return {x, y, z, {r, g, b, 255}}; }

TEST_F(VkDrawReference, ColouredTriangleMatchesLavapipe) {
  DrawScene s;
  s.clear[0] = 0.2f;  // 51/255: a whole step
  s.vertices = {v(-0.8f, -0.7f, 0.5f, 255, 0, 0), v(0.9f, -0.5f, 0.5f, 0, 255, 0), v(-0.1f, 0.85f, 0.5f, 0, 0, 255)};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 1u);
  EXPECT_GT(c.differing + c.interior, 0u);
  // The clear colour and the triangle's coverage are fixed: the pixel at the centre is inside, the
  // corners are the clear colour, on both.
  EXPECT_EQ(pixel(gs.color, s.width, 0, 0), pixel(ref.color, s.width, 0, 0));
  EXPECT_EQ(gs.color[0], 51);
  EXPECT_NE(pixel(gs.color, s.width, 32, 32), pixel(gs.color, s.width, 0, 0));
}

// Two quads drawn from one index buffer (the second with firstIndex 6 and vertexOffset 4): a near
// red quad first, then a far white one tinted (0, 1, 1, 1) by push constants, which the depth test
// (LESS, cleared to 1) hides where the near one is.
TEST_F(VkDrawReference, IndexedQuadsWithDepthMatchLavapipe) {
  DrawScene s;
  s.depth = true;
  s.vertices = {v(-0.7f, -0.7f, 0.25f, 255, 0, 0), v(0.3f, -0.7f, 0.25f, 255, 0, 0),
                v(-0.7f, 0.3f, 0.25f, 255, 0, 0),  v(0.3f, 0.3f, 0.25f, 255, 0, 0),
                v(-0.4f, -0.4f, 0.75f, 255, 255, 255), v(0.8f, -0.4f, 0.6f, 255, 255, 255),
                v(-0.4f, 0.8f, 0.9f, 255, 255, 255), v(0.8f, 0.8f, 0.75f, 255, 255, 255)};
  s.indices = {0, 1, 2, 2, 1, 3, 0, 1, 2, 2, 1, 3};
  s.draws = {{true, 6, 0, 0, {1, 1, 1, 1}}, {true, 6, 6, 4, {0, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_EQ(c.interior_differing, 0u);  // flat colours, clears, depth-test outcomes: fixed
  EXPECT_LT(c.max_depth_diff, 2e-5f);  // measured 8.6e-6 on the sloped far quad (lavapipe interpolates its own way)
  // (12, 12) is only in the near quad; (45, 28) only in the far one, tinted cyan; (28, 28) both.
  EXPECT_EQ(pixel(gs.color, s.width, 12, 12), 0xff0000ffu);
  EXPECT_EQ(pixel(gs.color, s.width, 45, 28), 0xffffff00u);
  EXPECT_EQ(pixel(gs.color, s.width, 28, 28), 0xff0000ffu);
  EXPECT_NEAR(gs.depth[28 * 64 + 28], 0.25f, 1e-7);
  EXPECT_EQ(gs.depth[2], 1.0f);
}

// Back faces culled: of two triangles wound in opposite directions one disappears, the same on both.
TEST_F(VkDrawReference, CullingFollowsTheFrontFace) {
  DrawScene s;
  s.cull = VK_CULL_MODE_BACK_BIT;
  s.vertices = {v(-0.9f, -0.9f, 0.5f, 0, 255, 0), v(-0.1f, -0.9f, 0.5f, 0, 255, 0), v(-0.9f, -0.1f, 0.5f, 0, 255, 0),
                v(0.1f, 0.1f, 0.5f, 255, 255, 0), v(0.1f, 0.9f, 0.5f, 255, 255, 0), v(0.9f, 0.1f, 0.5f, 255, 255, 0)};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_EQ(c.interior_differing, 0u);
  const bool first = pixel(ref.color, s.width, 12, 12) != pixel(ref.color, s.width, 0, 0);
  const bool second = pixel(ref.color, s.width, 44, 44) != pixel(ref.color, s.width, 0, 0);
  EXPECT_NE(first, second);  // one of the two is a back face
  EXPECT_EQ(pixel(gs.color, s.width, 12, 12), pixel(ref.color, s.width, 12, 12));
  EXPECT_EQ(pixel(gs.color, s.width, 44, 44), pixel(ref.color, s.width, 44, 44));
}

// The vertex shader reads an offset from a uniform buffer (set 0, binding 0; the descriptor set's
// table entry in the draw's constant buffer): the triangle moves 8 pixels right and 4 up on both.
TEST_F(VkDrawReference, UniformBufferOffsetMovesTheTriangle) {
  DrawScene s;
  s.uniform_offset = true;
  s.offset[0] = 0.25f;
  s.offset[1] = -0.125f;
  s.vertices = {v(-0.8f, -0.6f, 0.5f, 255, 0, 0), v(0.5f, -0.6f, 0.5f, 255, 0, 0), v(-0.8f, 0.6f, 0.5f, 255, 0, 0)};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_EQ(c.differing, 0u);
  // Without the offset x = -0.8 is pixel 6.4; with it, 14.4: pixel 10 is outside, 16 inside.
  EXPECT_EQ(pixel(gs.color, s.width, 10, 20), 0xff000000u);
  EXPECT_EQ(pixel(gs.color, s.width, 16, 20), 0xff0000ffu);
}

// D24S8, dynamic state and clears inside the pass: vkCmdClearAttachments writes a blue rectangle
// and stencil 1 over the right half; a full-screen white triangle then draws only where the stencil
// EQUALs the dynamic reference 1 (dynamic compare mask), blended as src × the dynamic blend constant
// (1, 0, 0, 1) + dst: red over black, magenta over blue. Every value is fixed by Vulkan: the frames,
// the stencil and the depth (untouched: the depth test is off) must be equal.
TEST_F(VkDrawReference, StencilBlendConstantsAndClearAttachmentsMatchLavapipe) {
  DrawScene s;
  s.depth = true;
  s.depth_format = VK_FORMAT_D24_UNORM_S8_UINT;
  s.vertices = {v(-1, -1, 0.5f, 255, 255, 255), v(3, -1, 0.5f, 255, 255, 255), v(-1, 3, 0.5f, 255, 255, 255)};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  s.edit = [](VkGraphicsPipelineCreateInfo& info) {
    auto* ds = const_cast<VkPipelineDepthStencilStateCreateInfo*>(info.pDepthStencilState);
    ds->depthTestEnable = VK_FALSE;
    ds->depthWriteEnable = VK_FALSE;
    ds->stencilTestEnable = VK_TRUE;
    ds->front = {VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INCREMENT_AND_CLAMP, VK_STENCIL_OP_KEEP, VK_COMPARE_OP_EQUAL, 0, 0xff, 0};
    ds->back = ds->front;
    auto* blend = const_cast<VkPipelineColorBlendAttachmentState*>(info.pColorBlendState->pAttachments);
    blend->blendEnable = VK_TRUE;
    blend->srcColorBlendFactor = blend->srcAlphaBlendFactor = VK_BLEND_FACTOR_CONSTANT_COLOR;
    blend->dstColorBlendFactor = blend->dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    blend->colorBlendOp = blend->alphaBlendOp = VK_BLEND_OP_ADD;
    static const VkDynamicState states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                                            VK_DYNAMIC_STATE_BLEND_CONSTANTS, VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
                                            VK_DYNAMIC_STATE_STENCIL_REFERENCE};
    auto* dyn = const_cast<VkPipelineDynamicStateCreateInfo*>(info.pDynamicState);
    dyn->dynamicStateCount = 5;
    dyn->pDynamicStates = states;
  };
  s.before_draws = [](VkCommandBuffer cb) {
    VkClearAttachment clears[2] = {};
    clears[0].aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    clears[0].clearValue.color.float32[2] = 1.0f;
    clears[0].clearValue.color.float32[3] = 1.0f;
    clears[1].aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
    clears[1].clearValue.depthStencil = {0.0f, 1};  // the depth value is not written: stencil aspect only
    VkClearRect blue{{{24, 8}, {16, 16}}, 0, 1};
    VkClearRect right{{{32, 0}, {32, 64}}, 0, 1};
    vkCmdClearAttachments(cb, 1, &clears[0], 1, &blue);
    vkCmdClearAttachments(cb, 1, &clears[1], 1, &right);
    const float constants[4] = {1, 0, 0, 1};
    vkCmdSetBlendConstants(cb, constants);
    vkCmdSetStencilCompareMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 0xff);
    vkCmdSetStencilReference(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 1);
  };
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.differing, 0u);
  EXPECT_EQ(gs.stencil, ref.stencil);
  EXPECT_EQ(gs.depth_bits, ref.depth_bits);
  EXPECT_EQ(pixel(gs.color, s.width, 4, 4), 0xff000000u);    // left: stencil 0, not drawn
  EXPECT_EQ(pixel(gs.color, s.width, 28, 12), 0xffff0000u);  // left part of the blue rectangle
  EXPECT_EQ(pixel(gs.color, s.width, 36, 12), 0xffff00ffu);  // blue + red
  EXPECT_EQ(pixel(gs.color, s.width, 50, 50), 0xff0000ffu);  // black + red
  EXPECT_EQ(gs.stencil[50 * 64 + 50], 2);  // INCREMENT_AND_CLAMP where drawn
  EXPECT_EQ(gs.stencil[4], 0);
}

// A vertex shader without vertex inputs (DRAW_INFO with 0 attributes: the program's v0 is the vertex
// index): the triangle comes from gl_VertexIndex, which includes firstVertex (3 here).
TEST_F(VkDrawReference, VertexIndexOnlyShaderMatchesLavapipe) {
  DrawScene s;
  s.vertex_index_only = true;
  s.draws = {{false, 3, 3, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_LE(c.max_diff, 1u);
  EXPECT_EQ(c.interior_differing, 0u);
  EXPECT_NE(pixel(gs.color, s.width, 30, 32), 0xff000000u);  // inside the triangle
}

// D16_UNORM as the depth attachment (vkcube's depth buffer): the indexed quads of the depth scene;
// the colours equal lavapipe's, and the stored 16-bit depth at interior pixels is within one step.
TEST_F(VkDrawReference, D16DepthAttachmentMatchesLavapipe) {
  DrawScene s;
  s.depth = true;
  s.depth_format = VK_FORMAT_D16_UNORM;
  s.vertices = {v(-0.7f, -0.7f, 0.25f, 255, 0, 0), v(0.3f, -0.7f, 0.25f, 255, 0, 0),
                v(-0.7f, 0.3f, 0.25f, 255, 0, 0),  v(0.3f, 0.3f, 0.25f, 255, 0, 0),
                v(-0.4f, -0.4f, 0.75f, 255, 255, 255), v(0.8f, -0.4f, 0.6f, 255, 255, 255),
                v(-0.4f, 0.8f, 0.9f, 255, 255, 255), v(0.8f, 0.8f, 0.75f, 255, 255, 255)};
  s.indices = {0, 1, 2, 2, 1, 3, 0, 1, 2, 2, 1, 3};
  s.draws = {{true, 6, 0, 0, {1, 1, 1, 1}}, {true, 6, 6, 4, {0, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_EQ(c.interior_differing, 0u);
  ASSERT_EQ(gs.depth_bits.size(), ref.depth_bits.size());
  uint32_t worst = 0, differing = 0;
  for (uint32_t y = 1; y + 1 < s.height; ++y) {
    for (uint32_t x = 1; x + 1 < s.width; ++x) {
      if (!uniform_neighbourhood(ref.color, s.width, s.height, x, y)) continue;
      const size_t i = size_t{y} * s.width + x;
      const uint32_t d = uint32_t(std::abs(int(gs.depth_bits[i]) - int(ref.depth_bits[i])));
      worst = std::max(worst, d);
      differing += d != 0;
    }
  }
  std::printf("[vkdraw] D16 interior depth: %u pixels differ, at most %u step(s)\n", differing, worst);
  EXPECT_LE(worst, 1u);
  EXPECT_EQ(gs.depth_bits[28 * 64 + 28], 16384u);  // 0.25 × 65535 = 16383.75, rounded to nearest
  EXPECT_EQ(gs.depth_bits[2], 65535u);             // the clear
}

// D32_SFLOAT_S8_UINT (GL's DEPTH32F_STENCIL8): a red quad at z 0.25, then a sloped cyan quad
// partly behind it, both with the stencil test ALWAYS: passing fragments INCREMENT_AND_CLAMP, those
// failing the depth test REPLACE with 7. Colours within the metric, interior depth floats within
// 2e-5 of lavapipe's (as D32's: lavapipe interpolates the sloped quad its own way), and the stencil (fixed by coverage and the two tests) equal byte for byte.
TEST_F(VkDrawReference, D32S8DepthAndStencilMatchLavapipe) {
  DrawScene s;
  s.depth = true;
  s.depth_format = VK_FORMAT_D32_SFLOAT_S8_UINT;
  s.vertices = {v(-0.7f, -0.7f, 0.25f, 255, 0, 0), v(0.3f, -0.7f, 0.25f, 255, 0, 0),
                v(-0.7f, 0.3f, 0.25f, 255, 0, 0),  v(0.3f, 0.3f, 0.25f, 255, 0, 0),
                v(-0.4f, -0.4f, 0.75f, 0, 255, 255), v(0.8f, -0.4f, 0.6f, 0, 255, 255),
                v(-0.4f, 0.8f, 0.9f, 0, 255, 255),  v(0.8f, 0.8f, 0.75f, 0, 255, 255)};
  s.indices = {0, 1, 2, 2, 1, 3, 0, 1, 2, 2, 1, 3};
  s.draws = {{true, 6, 0, 0, {1, 1, 1, 1}}, {true, 6, 6, 4, {1, 1, 1, 1}}};
  s.edit = [](VkGraphicsPipelineCreateInfo& info) {
    auto* ds = const_cast<VkPipelineDepthStencilStateCreateInfo*>(info.pDepthStencilState);
    ds->stencilTestEnable = VK_TRUE;
    ds->front = {VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INCREMENT_AND_CLAMP, VK_STENCIL_OP_REPLACE, VK_COMPARE_OP_ALWAYS,
                 0xff, 0xff, 7};
    ds->back = ds->front;
  };
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  const Comparison c = compare(s, gs, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_EQ(c.interior_differing, 0u);
  EXPECT_EQ(gs.stencil, ref.stencil);
  EXPECT_LT(c.max_depth_diff, 2e-5f);  // measured 8.6e-6, as D32's sloped far quad
  EXPECT_EQ(gs.depth[28 * 64 + 28], 0.25f);
  EXPECT_EQ(gs.depth[2], 1.0f);  // the clear
  EXPECT_EQ(gs.stencil[2], 0);
  EXPECT_EQ(gs.stencil[12 * 64 + 12], 1);  // red only
  EXPECT_EQ(gs.stencil[28 * 64 + 28], 7);  // cyan behind red: depth failed, REPLACE
  EXPECT_EQ(gs.stencil[40 * 64 + 45], 1);  // cyan only
}

// GSGPU_VK_BBOX_TEST=0 (docs/vulkan-driver.md "Draws"; bench/graphics/bbox_counters.py) clears
// PIPE_STATE RASTER.BBOX_TEST in the pipelines created while it is set: the rasterizer's counters,
// read from GSGPU_DUMP_DIR's per-draw JSON, show no tile rejected by the box, and the pixels are
// the same as with the test on (the default) and within the metric of lavapipe's.
class VkDrawBoundingBoxSetting : public VkDrawReference {
 protected:
  void SetUp() override {
    // In the native route the device, and so its dump_dir, is the host context's (capset.cc).
    const char* drivers = std::getenv("VK_DRIVER_FILES");
    if (drivers != nullptr && std::strstr(drivers, "gsgpu_vk_native") != nullptr)
      GTEST_SKIP() << "GSGPU_DUMP_DIR is read by the local route's driver (libgsgpu_vk.so) only";
    char pattern[] = "/tmp/gsgpu-bbox-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dump_dir_ = pattern;
    setenv("GSGPU_DUMP_DIR", dump_dir_.c_str(), 1);  // read at vkCreateInstance
    VkDrawReference::SetUp();
  }
  void TearDown() override {
    VkDrawReference::TearDown();
    if (dump_dir_.empty()) return;  // skipped
    unsetenv("GSGPU_DUMP_DIR");
    unsetenv("GSGPU_VK_BBOX_TEST");
    std::filesystem::remove_all(dump_dir_);
  }
  // The sum of "tiles_rejected_by_bbox" over the draws dumped since the last call (their files are
  // removed), and how many draws that was.
  uint64_t rejected_by_box(int* draws) {
    const std::regex key("\"tiles_rejected_by_bbox\": ([0-9]+)");
    uint64_t sum = 0;
    *draws = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dump_dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with(".counters.json")) {
        std::stringstream text;
        text << std::ifstream(entry.path()).rdbuf();
        std::smatch m;
        const std::string json = text.str();
        if (std::regex_search(json, m, key)) sum += std::stoull(m[1].str()), ++*draws;
      }
      std::filesystem::remove(entry.path());
    }
    return sum;
  }
  std::string dump_dir_;
};

TEST_F(VkDrawBoundingBoxSetting, OffChangesTheRasterCountersNotThePixels) {
  DrawScene s;
  // A sliver in the middle of a 256 x 256 target (box about 64..170): beyond its sharp vertices lie
  // tiles of the top-level tiles it meets that pass every corner test and only the box rejects.
  s.width = s.height = 256;
  s.vertices = {v(-0.5f, -0.5f, 0.5f, 255, 0, 0), v(0.3f, 0.25f, 0.5f, 0, 255, 0), v(0.32f, 0.33f, 0.5f, 0, 0, 255)};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  int draws = 0;
  setenv("GSGPU_VK_BBOX_TEST", "0", 1);
  const DrawFrame off = gsgpu_->render(s);
  EXPECT_EQ(rejected_by_box(&draws), 0u);
  EXPECT_EQ(draws, 1);
  setenv("GSGPU_VK_BBOX_TEST", "1", 1);
  const DrawFrame on = gsgpu_->render(s);
  EXPECT_GT(rejected_by_box(&draws), 0u);
  EXPECT_EQ(draws, 1);
  EXPECT_TRUE(on.color == off.color);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(on.color.size(), ref.color.size());
  const Comparison c = compare(s, on, ref);
  EXPECT_EQ(c.over_16, 0u);
  EXPECT_GT(c.differing + c.interior, 0u);
}

}  // namespace
}  // namespace gsgpu::vk::test
