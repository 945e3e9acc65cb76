// Draws that break Vulkan's rules on gsgpu: each is refused when it is recorded or skipped when the
// queue reaches it, with one log line, and the device keeps working (a good draw after them renders).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <memory>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/draw_fixture.h"

namespace gsgpu::vk::test {
namespace {

int count_lines(const std::string& log, const char* needle) {
  int n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

class VkDrawHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_test_instance(VK_API_VERSION_1_0, &instance_, &found));
    ASSERT_FALSE(found.gsgpu.empty()) << "no gsgpu device";
    side_ = std::make_unique<DrawSide>(found.gsgpu[0]);
  }
  void TearDown() override {
    side_.reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }
  VkInstance instance_ = VK_NULL_HANDLE;
  std::unique_ptr<DrawSide> side_;
};

TEST_F(VkDrawHostile, BadDrawsAreSkippedAndAGoodOneStillRenders) {
  DrawScene s;
  DrawSide::Targets t = side_->targets(s);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, [](VkGraphicsPipelineCreateInfo&) {}, &pipeline),
            VK_SUCCESS);
  const DrawVertex tri[3] = {{-1, -1, 0.5f, {255, 255, 255, 255}}, {3, -1, 0.5f, {255, 255, 255, 255}},
                             {-1, 3, 0.5f, {255, 255, 255, 255}}};
  uint8_t *good_bytes = nullptr, *short_bytes = nullptr, *index_bytes = nullptr;
  VkBuffer good = side_->buffer(sizeof tri, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &good_bytes);
  std::memcpy(good_bytes, tri, sizeof tri);
  VkBuffer too_short = side_->buffer(2 * sizeof(DrawVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &short_bytes);
  VkBuffer indices = side_->buffer(8, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &index_bytes);
  const uint16_t index_values[4] = {0, 1, 60000, 2};
  std::memcpy(index_bytes, index_values, sizeof index_values);
  VkCommandBuffer cb = side_->cb();
  testing::internal::CaptureStderr();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdDraw(cb, 3, 1, 0, 0);  // 1: outside a render pass (not recorded)
  side_->begin_pass(s, t);    // (begin_pass begins the buffer again: the draw above is gone anyway)
  vkCmdDraw(cb, 3, 1, 0, 0);  // 2: no pipeline (not recorded)
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  float tint[4] = {1, 1, 1, 1};
  vkCmdPushConstants(cb, side_->layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
  vkCmdDraw(cb, 3, 1, 0, 0);  // 3: no vertex buffer (skipped at submission)
  VkDeviceSize offset = 0;
  VkBuffer two[2] = {good, good};
  VkDeviceSize offsets[2] = {0, 0};
  vkCmdBindVertexBuffers(cb, 15, 2, two, offsets);  // 4: bindings 15 and 16 (not bound)
  vkCmdBindVertexBuffers(cb, 0, 1, &too_short, &offset);
  vkCmdDraw(cb, 3, 1, 0, 0);           // 5: the buffer holds two vertices
  vkCmdBindVertexBuffers(cb, 0, 1, &good, &offset);
  vkCmdDraw(cb, UINT32_MAX, 1, 0, 0);  // 6: 2^32 - 1 vertices
  vkCmdDraw(cb, 3, 1, UINT32_MAX - 1, 0);  // 7: first vertex past the buffer (and past 2^32)
  vkCmdDraw(cb, 3, 2, 0, 0);           // fine: two instances of a per-vertex binding
  vkCmdDrawIndexed(cb, 3, 1, 0, 0, 0);  // 8: no index buffer
  vkCmdBindIndexBuffer(cb, indices, 0, VK_INDEX_TYPE_UINT16);
  vkCmdDrawIndexed(cb, 3, 1, 1, 0, 0);  // 9: index 60000 past the vertex buffer
  vkCmdDrawIndexed(cb, 5, 1, 0, 0, 0);  // 10: indices past the index buffer
  vkCmdDrawIndexed(cb, 2, 1, 0, -5, 0);  // 11: index + vertexOffset below 0
  vkCmdDrawIndexed(cb, 2, 1, 0, 1, 0);   // fine: vertices 1, 2
  vkCmdDraw(cb, 3, 1, 0, 0);             // fine: covers the target
  DrawFrame frame = side_->finish(s, t);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "gsgpu-vk:"), 11) << log;
  EXPECT_EQ(count_lines(log, "draw skipped"), 8) << log;
  EXPECT_EQ(count_lines(log, "lost"), 0) << log;  // nothing reached the device that it faulted on
  // The good draws covered every pixel: white over the black clear.
  for (size_t i = 0; i < frame.color.size(); ++i) ASSERT_EQ(frame.color[i], 255) << i;
}

TEST_F(VkDrawHostile, PassesFramebuffersAndPipelinesTheEmulatorCannotDoAreRefused) {
  testing::internal::CaptureStderr();
  VkAttachmentDescription a{};
  a.format = VK_FORMAT_R8G8B8A8_UNORM;
  a.samples = VK_SAMPLE_COUNT_1_BIT;
  VkAttachmentReference bad{5, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &bad;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &a;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  VkRenderPass pass = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateRenderPass(side_->device(), &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(pass, VK_NULL_HANDLE);
  a.format = VK_FORMAT_R16G16B16A16_SNORM;  // sampled, not a render target
  bad.attachment = 0;
  EXPECT_EQ(vkCreateRenderPass(side_->device(), &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  // Nine colour attachments (maxColorAttachments is 8), and one attachment as two colour attachments.
  a.format = VK_FORMAT_R8G8B8A8_UNORM;
  const std::vector<VkAttachmentReference> nine(9, VkAttachmentReference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL});
  subpass.colorAttachmentCount = 9;
  subpass.pColorAttachments = nine.data();
  EXPECT_EQ(vkCreateRenderPass(side_->device(), &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  subpass.colorAttachmentCount = 2;
  EXPECT_EQ(vkCreateRenderPass(side_->device(), &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(pass, VK_NULL_HANDLE);
  DrawScene s;
  DrawSide::Targets t = side_->targets(s);
  VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fb.renderPass = t.pass;
  fb.attachmentCount = 0;  // the pass has one
  fb.width = fb.height = 64;
  fb.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateFramebuffer(side_->device(), &fb, nullptr, &framebuffer), VK_ERROR_FEATURE_NOT_PRESENT);
  VkPipeline p = VK_NULL_HANDLE;
  auto line_mode = [](VkGraphicsPipelineCreateInfo& i) {  // VK_POLYGON_MODE_FILL_RECTANGLE_NV
    const_cast<VkPipelineRasterizationStateCreateInfo*>(i.pRasterizationState)->polygonMode = VkPolygonMode(1000153000);
  };
  EXPECT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, line_mode, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  // (Rasterizer discard is drawn since PIPE_STATE RASTER.DISCARD: xfb_test.cc.)
  // A SRC1 (dual-source) factor on colour attachment 1: only attachment 0 has a second source.
  auto src1_on_attachment_1 = [](VkGraphicsPipelineCreateInfo& i) {
    static VkPipelineColorBlendAttachmentState two[2] = {};
    two[0].colorWriteMask = two[1].colorWriteMask = 0xf;
    two[1].blendEnable = VK_TRUE;
    two[1].srcColorBlendFactor = VK_BLEND_FACTOR_SRC1_COLOR;
    static VkPipelineColorBlendStateCreateInfo cbs{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cbs.attachmentCount = 2;
    cbs.pAttachments = two;
    i.pColorBlendState = &cbs;
  };
  EXPECT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, src1_on_attachment_1, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  auto no_location_1 = [](VkGraphicsPipelineCreateInfo& i) {
    const_cast<VkPipelineVertexInputStateCreateInfo*>(i.pVertexInputState)->vertexAttributeDescriptionCount = 1;
  };
  EXPECT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, no_location_1, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  auto cull_dynamic = [](VkGraphicsPipelineCreateInfo& i) {
    static const VkDynamicState states[] = {VK_DYNAMIC_STATE_CULL_MODE_EXT};  // an extension not offered
    const_cast<VkPipelineDynamicStateCreateInfo*>(i.pDynamicState)->dynamicStateCount = 1;
    const_cast<VkPipelineDynamicStateCreateInfo*>(i.pDynamicState)->pDynamicStates = states;
  };
  EXPECT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, cull_dynamic, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(p, VK_NULL_HANDLE);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCreateRenderPass"), 4) << log;
  EXPECT_EQ(count_lines(log, "maxColorAttachments is 8"), 1) << log;
  EXPECT_EQ(count_lines(log, "one attachment is two colour attachments"), 1) << log;
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCreateFramebuffer"), 1) << log;
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCreateGraphicsPipelines"), 4) << log;
  EXPECT_EQ(count_lines(log, "on colour attachment 1"), 1) << log;
}

// depthBiasEnable's factors (draw_dynamic.cc apply_depth_bias): a finite bias draws, filled or
// outlined (its depth is compared with lavapipe's in depth_bias_test.cc, viewport_clip_test.cc); a
// factor that is not finite is refused with a log line and the frame keeps its clear colour.
TEST_F(VkDrawHostile, DepthBiasThatIsNotFiniteIsRefused) {
  DrawScene s;
  s.vertices = {{-0.6f, -0.6f, 0.5f, {255, 0, 0, 255}},
                {0.7f, -0.5f, 0.5f, {255, 0, 0, 255}},
                {-0.5f, 0.65f, 0.5f, {255, 0, 0, 255}}};
  s.draws = {{false, 3, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame plain = side_->render(s);
  float constant = 0.0f, clamp = 0.0f;
  VkPolygonMode mode = VK_POLYGON_MODE_FILL;
  s.edit = [&](VkGraphicsPipelineCreateInfo& i) {
    auto* r = const_cast<VkPipelineRasterizationStateCreateInfo*>(i.pRasterizationState);
    r->depthBiasEnable = VK_TRUE;
    r->depthBiasConstantFactor = constant;
    r->depthBiasClamp = clamp;
    r->polygonMode = mode;
  };
  constant = 1.0f;
  EXPECT_EQ(side_->render(s).color, plain.color);  // no depth target: the bias changes nothing seen
  const auto refused = [&](const char* why) {
    testing::internal::CaptureStderr();
    const DrawFrame f = side_->render(s);
    const std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(count_lines(log, why), 1) << log;
    EXPECT_EQ(std::count(f.color.begin(), f.color.end(), uint8_t{255}), 64 * 64);  // alpha only: clear
  };
  constant = std::numeric_limits<float>::quiet_NaN();
  refused("vkCmdDraw: a depth bias factor that is not finite");
  constant = 1.0f, clamp = std::numeric_limits<float>::infinity();
  refused("vkCmdDraw: a depth bias factor that is not finite");
  clamp = 0.0f, mode = VK_POLYGON_MODE_LINE;
  const DrawFrame outline = side_->render(s);
  EXPECT_NE(outline.color, plain.color);  // the edges, not the whole target
  EXPECT_GT(std::count(outline.color.begin(), outline.color.end(), uint8_t{255}), 64 * 64);  // some red
}

// A pipeline whose vertex shader reads set 0 draws only once a set of the layout's set layout is
// bound there (sets_ready_for_draw); before that the draw is not recorded.
TEST_F(VkDrawHostile, DrawReadingAnUnboundSetIsNotRecorded) {
  DrawScene s;
  DrawSide::Targets t = side_->targets(s);
  side_->use_uniform_offset(true);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, [](VkGraphicsPipelineCreateInfo&) {}, &pipeline),
            VK_SUCCESS);
  side_->use_uniform_offset(false);
  const DrawVertex tri[3] = {{-1, -1, 0.5f, {255, 255, 255, 255}}, {3, -1, 0.5f, {255, 255, 255, 255}},
                             {-1, 3, 0.5f, {255, 255, 255, 255}}};
  uint8_t* bytes = nullptr;
  VkBuffer vb = side_->buffer(sizeof tri, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &bytes);
  std::memcpy(bytes, tri, sizeof tri);
  VkDescriptorSet set = side_->offset_set(std::vector<uint8_t>(16, 0));  // a zero offset
  VkCommandBuffer cb = side_->cb();
  testing::internal::CaptureStderr();
  side_->begin_pass(s, t);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
  vkCmdDraw(cb, 3, 1, 0, 0);  // set 0 not bound: not recorded
  const DrawFrame before = side_->finish(s, t);
  side_->begin_pass(s, t);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, side_->layout(), 0, 1, &set, 0, nullptr);
  float tint[4] = {1, 1, 1, 1};
  vkCmdPushConstants(cb, side_->layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
  vkCmdDraw(cb, 3, 1, 0, 0);
  const DrawFrame after = side_->finish(s, t);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCmdDraw"), 1) << log;
  EXPECT_EQ(count_lines(log, "gsgpu-vk:"), 1) << log;
  EXPECT_EQ(before.color[0], 0);    // the clear
  EXPECT_EQ(after.color[0], 255);   // the draw
}

// A pipeline's dynamic state must be set before a draw (else not recorded); clears inside a pass name
// attachments of the subpass and layer 0 (else skipped); a rectangle past the target is clipped.
TEST_F(VkDrawHostile, UnsetDynamicStateAndBadClearsAreRefused) {
  DrawScene s;
  DrawSide::Targets t = side_->targets(s);
  VkPipeline pipeline = VK_NULL_HANDLE;
  auto blend_dynamic = [](VkGraphicsPipelineCreateInfo& i) {
    static const VkDynamicState states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
                                            VK_DYNAMIC_STATE_BLEND_CONSTANTS};
    const_cast<VkPipelineDynamicStateCreateInfo*>(i.pDynamicState)->dynamicStateCount = 3;
    const_cast<VkPipelineDynamicStateCreateInfo*>(i.pDynamicState)->pDynamicStates = states;
  };
  ASSERT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, blend_dynamic, &pipeline), VK_SUCCESS);
  VkCommandBuffer cb = side_->cb();
  VkClearAttachment white{VK_IMAGE_ASPECT_COLOR_BIT, 0, {}};
  for (float& f : white.clearValue.color.float32) f = 1.0f;
  VkClearRect past{{{60, 0}, {100, 1}}, 0, 1};
  testing::internal::CaptureStderr();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdClearAttachments(cb, 1, &white, 1, &past);  // 1: outside a render pass
  side_->begin_pass(s, t);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdDraw(cb, 3, 1, 0, 0);  // 2: blend constants not set (and no vertex buffer: never reached)
  VkClearAttachment third = white;
  third.colorAttachment = 3;
  vkCmdClearAttachments(cb, 1, &third, 1, &past);  // 3: colour attachment 3
  VkClearAttachment depth{VK_IMAGE_ASPECT_DEPTH_BIT, 0, {}};
  vkCmdClearAttachments(cb, 1, &depth, 1, &past);  // 4: no depth attachment
  VkClearRect layer1{{{0, 0}, {4, 4}}, 1, 1};
  vkCmdClearAttachments(cb, 1, &white, 1, &layer1);  // 5: layer 1
  vkCmdClearAttachments(cb, 1, &white, 1, &past);    // fine: clipped to x 60..63 of row 0
  const DrawFrame frame = side_->finish(s, t);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCmdClearAttachments"), 4) << log;
  EXPECT_EQ(count_lines(log, "gsgpu-vk: vkCmdDraw"), 1) << log;
  EXPECT_EQ(count_lines(log, "gsgpu-vk:"), 5) << log;
  for (uint32_t x = 0; x < 64; ++x) EXPECT_EQ(frame.color[x * 4], x >= 60 ? 255 : 0) << x;
  EXPECT_EQ(frame.color[64 * 4 + 63 * 4], 0);  // row 1 untouched
}

// Draws with arguments from a fixed seed — counts, first vertex / index / instance, vertex offsets,
// viewports (0, negative, huge, NaN) and scissors near 0, the edges and any 32-bit value — over a
// 4-vertex buffer and a 6-index buffer: each is drawn or skipped with a log line, and none reaches the
// device in a shape it faults on ("lost").
TEST_F(VkDrawHostile, RandomDrawArgumentsAreDrawnOrSkippedAndNeverFaultTheDevice) {
  DrawScene s;
  DrawSide::Targets t = side_->targets(s);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(side_->pipeline(t.pass, false, VK_CULL_MODE_NONE, [](VkGraphicsPipelineCreateInfo&) {}, &pipeline),
            VK_SUCCESS);
  const DrawVertex quad[4] = {{-0.5f, -0.5f, 0.5f, {255, 0, 0, 255}}, {0.5f, -0.5f, 0.5f, {0, 255, 0, 255}},
                              {-0.5f, 0.5f, 0.5f, {0, 0, 255, 255}}, {0.5f, 0.5f, 0.5f, {255, 255, 255, 255}}};
  const uint16_t index_values[6] = {0, 1, 2, 2, 1, 3};
  uint8_t *vbytes = nullptr, *ibytes = nullptr;
  VkBuffer vb = side_->buffer(sizeof quad, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vbytes);
  VkBuffer ib = side_->buffer(sizeof index_values, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ibytes);
  std::memcpy(vbytes, quad, sizeof quad);
  std::memcpy(ibytes, index_values, sizeof index_values);
  // GSGPU_VK_DRAW_SEED runs another sequence (the test's default is fixed).
  const char* seed_env = std::getenv("GSGPU_VK_DRAW_SEED");
  std::mt19937 rng(seed_env ? uint32_t(std::strtoul(seed_env, nullptr, 10)) : 20261128u);
  auto small = [&] { return uint32_t(rng() % 8); };
  auto any = [&]() -> uint32_t {
    const uint32_t edges[] = {0, 1, 2, 3, 4, 5, 6, 7, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    return rng() % 2 ? edges[rng() % 12] : uint32_t(rng());
  };
  auto maybe = [&](uint32_t usual) { return rng() % 4 ? usual : any(); };
  auto coordinate = [&]() -> float {
    const float edges[] = {0.0f, -1.0f, 64.0f, 1e30f, -1e30f, 32767.0f, std::nanf(""), 1e-30f, -32768.0f, 65.5f};
    return rng() % 4 == 0 ? edges[rng() % 10] : float(int(rng() % 200) - 50);
  };
  VkCommandBuffer cb = side_->cb();
  int draws = 0;
  testing::internal::CaptureStderr();
  for (int batch = 0; batch < 20; ++batch) {
    side_->begin_pass(s, t);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    float tint[4] = {1, 1, 1, 1};
    vkCmdPushConstants(cb, side_->layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
    VkDeviceSize offset = rng() % 8 == 0 ? any() : 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
    vkCmdBindIndexBuffer(cb, ib, rng() % 8 == 0 ? any() : 0, VK_INDEX_TYPE_UINT16);
    for (int i = 0; i < 30; ++i, ++draws) {
      if (rng() % 3 == 0) {
        VkViewport v{coordinate(), coordinate(), coordinate(), coordinate(), float(rng() % 3) / 2, float(rng() % 3) / 2};
        vkCmdSetViewport(cb, 0, 1, &v);
      }
      if (rng() % 3 == 0) {
        VkRect2D r{{int32_t(maybe(small())), int32_t(maybe(small()))}, {maybe(64 - small()), maybe(64 - small())}};
        vkCmdSetScissor(cb, 0, 1, &r);
      }
      const uint32_t count = maybe(small()), instances = maybe(1 + small() % 2);
      if (rng() % 2) {
        vkCmdDraw(cb, count, instances, maybe(small() % 2), maybe(0));
      } else {
        vkCmdDrawIndexed(cb, count, instances, maybe(small() % 4), int32_t(maybe(small() % 2)), maybe(0));
      }
    }
    side_->finish(s, t);
  }
  const std::string log = testing::internal::GetCapturedStderr();
  const int skipped = count_lines(log, "draw skipped");
  std::printf("[vkdraw] %d random draws: %d skipped with a log line\n", draws, skipped);
  const size_t lost = log.find("; lost");
  EXPECT_EQ(lost, std::string::npos) << log.substr(log.rfind('\n', lost == std::string::npos ? 0 : lost) + 1, 600);
  EXPECT_GT(skipped, 0);
}

}  // namespace
}  // namespace gsgpu::vk::test
