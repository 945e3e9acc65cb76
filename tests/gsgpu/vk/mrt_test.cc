// Several colour attachments against lavapipe: one subpass with up to four colour attachments fed
// by a fragment shader's outputs at Locations 0..3 (shaders/mrt.frag), each attachment with its
// own clear, blend state and write mask (independentBlend), an unused attachment slot, mixed
// formats, and vkCmdClearAttachments aimed at one attachment. The frames of every attachment must
// equal lavapipe's byte for byte (UNORM8 and float targets; the blends used are exact in 8 bits).
// Then the same attachments with 4 samples, each resolved by its own resolve attachment.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "shader_mrt_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kSize = 64;

struct MrtAttachment {
  VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;  // VK_FORMAT_UNDEFINED: VK_ATTACHMENT_UNUSED in the subpass
  float clear[4] = {0, 0, 0, 1};
  VkPipelineColorBlendAttachmentState blend{VK_FALSE, VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD,
                                            VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD, 0xf};
};

uint32_t texel_bytes(VkFormat f) {
  return f == VK_FORMAT_R8_UNORM ? 1 : f == VK_FORMAT_R32G32B32A32_SFLOAT ? 16 : 4;
}

// Two overlapping flat quads of the draw fixture's vertex layout.
std::vector<DrawVertex> quads() {
  auto ndc = [](float p) { return p / 32.0f - 1.0f; };
  std::vector<DrawVertex> v;
  auto quad = [&](float x0, float y0, float x1, float y1, std::array<uint8_t, 4> c) {
    const DrawVertex a{ndc(x0), ndc(y0), 0.5f, {c[0], c[1], c[2], c[3]}}, b{ndc(x1), ndc(y0), 0.5f, {c[0], c[1], c[2], c[3]}};
    const DrawVertex d{ndc(x1), ndc(y1), 0.5f, {c[0], c[1], c[2], c[3]}}, e{ndc(x0), ndc(y1), 0.5f, {c[0], c[1], c[2], c[3]}};
    v.insert(v.end(), {a, b, d, a, d, e});
  };
  quad(6, 4, 44, 40, {0xf0, 0x40, 0x20, 0x80});
  quad(20, 18, 60, 58, {0x10, 0xc0, 0x66, 0xff});
  return v;
}

// Two overlapping flat quadrilaterals with sloped edges (for multisampling: their edge pixels are
// partly covered), in colours whose UNORM8 values are multiples of 8.
std::vector<DrawVertex> sloped_quads() {
  auto ndc = [](float p) { return p / 32.0f - 1.0f; };
  std::vector<DrawVertex> v;
  auto quad = [&](std::array<float, 8> p, std::array<uint8_t, 4> c) {
    DrawVertex q[4];
    for (int i = 0; i < 4; ++i) q[i] = {ndc(p[2 * i]), ndc(p[2 * i + 1]), 0.5f, {c[0], c[1], c[2], c[3]}};
    v.insert(v.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
  };
  quad({5.3f, 8.1f, 41.7f, 3.2f, 47.9f, 38.6f, 9.4f, 44.3f}, {0xf0, 0x40, 0x20, 0x80});
  quad({24.2f, 14.7f, 61.1f, 22.9f, 55.6f, 60.3f, 17.8f, 51.2f}, {0x10, 0xc0, 0x68, 0xf8});
  return v;
}

// The render pass of `atts` (CLEAR / STORE each), in attachment order; with several samples, one
// resolve attachment per used colour attachment follows them, in the same order.
VkRenderPass mrt_pass(VkDevice device, const std::vector<MrtAttachment>& atts, uint32_t samples = 1) {
  std::vector<VkAttachmentDescription> descs;
  std::vector<VkAttachmentReference> refs, resolves;
  uint32_t used = 0;
  for (const MrtAttachment& a : atts) used += a.format != VK_FORMAT_UNDEFINED;
  for (const MrtAttachment& a : atts) {
    if (a.format == VK_FORMAT_UNDEFINED) {
      refs.push_back({VK_ATTACHMENT_UNUSED, VK_IMAGE_LAYOUT_UNDEFINED});
      resolves.push_back({VK_ATTACHMENT_UNUSED, VK_IMAGE_LAYOUT_UNDEFINED});
      continue;
    }
    resolves.push_back({uint32_t(descs.size()) + used, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL});
    VkAttachmentDescription d{};
    d.format = a.format;
    d.samples = VkSampleCountFlagBits(samples);
    d.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    d.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    d.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    d.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    d.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    refs.push_back({uint32_t(descs.size()), VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL});
    descs.push_back(d);
  }
  for (uint32_t i = 0; samples > 1 && i < used; ++i) {
    VkAttachmentDescription d = descs[i];
    d.samples = VK_SAMPLE_COUNT_1_BIT;
    d.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    descs.push_back(d);
  }
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = uint32_t(refs.size());
  subpass.pColorAttachments = refs.data();
  subpass.pResolveAttachments = samples > 1 ? resolves.data() : nullptr;
  VkSubpassDependency dep{0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT, 0};
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = uint32_t(descs.size());
  info.pAttachments = descs.data();
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 1;
  info.pDependencies = &dep;
  VkRenderPass pass = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateRenderPass(device, &info, nullptr, &pass), VK_SUCCESS);
  return pass;
}

// Renders the two quads into `atts` on one side; `in_pass` records more commands after the draws.
// Returns each used attachment's texels (rows of kSize), in attachment order. With several samples
// the sloped quads are drawn and the texels are those of each attachment's resolve attachment.
std::vector<std::vector<uint8_t>> render_mrt(DrawSide& side, const std::vector<MrtAttachment>& atts,
                                             const std::function<void(VkCommandBuffer)>& in_pass = {},
                                             uint32_t samples = 1) {
  VkDevice device = side.device();
  std::vector<VkImage> images;
  std::vector<VkImageView> views;
  std::vector<VkClearValue> clears;
  std::vector<VkPipelineColorBlendAttachmentState> blends;
  for (const MrtAttachment& a : atts) {
    blends.push_back(a.blend);
    if (a.format == VK_FORMAT_UNDEFINED) continue;
    VkImageView view = VK_NULL_HANDLE;
    images.push_back(side.image(a.format, kSize, kSize, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, &view, samples));
    views.push_back(view);
    VkClearValue c{};
    std::memcpy(c.color.float32, a.clear, sizeof a.clear);
    clears.push_back(c);
  }
  const size_t used = images.size();
  for (size_t i = 0; samples > 1 && i < used; ++i) {  // the resolve attachments, read back instead
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    for (size_t k = 0, n = 0; k < atts.size(); ++k) {
      if (atts[k].format != VK_FORMAT_UNDEFINED && n++ == i) format = atts[k].format;
    }
    images[i] = side.image(format, kSize, kSize, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, &view);
    views.push_back(view);
  }
  VkRenderPass pass = mrt_pass(device, atts, samples);
  VkFramebufferCreateInfo fb_info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fb_info.renderPass = pass;
  fb_info.attachmentCount = uint32_t(views.size());
  fb_info.pAttachments = views.data();
  fb_info.width = fb_info.height = kSize;
  fb_info.layers = 1;
  VkFramebuffer fb = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateFramebuffer(device, &fb_info, nullptr, &fb), VK_SUCCESS);
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = sizeof shader_mrt_frag;
  module_info.pCode = shader_mrt_frag;
  VkShaderModule frag = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateShaderModule(device, &module_info, nullptr, &frag), VK_SUCCESS);
  VkPipelineColorBlendStateCreateInfo cbs{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cbs.attachmentCount = uint32_t(blends.size());
  cbs.pAttachments = blends.data();
  VkPipelineShaderStageCreateInfo stages[2];
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineMultisampleStateCreateInfo ms{};
  EXPECT_EQ(side.pipeline(pass, false, VK_CULL_MODE_NONE,
                          [&](VkGraphicsPipelineCreateInfo& info) {
                            std::copy(info.pStages, info.pStages + 2, stages);
                            stages[1].module = frag;
                            info.pStages = stages;
                            info.pColorBlendState = &cbs;
                            ms = *info.pMultisampleState;
                            ms.rasterizationSamples = VkSampleCountFlagBits(samples);
                            info.pMultisampleState = &ms;
                          },
                          &pipeline),
            VK_SUCCESS);
  const std::vector<DrawVertex> vertices = samples > 1 ? sloped_quads() : quads();
  uint8_t* vbytes = nullptr;
  VkBuffer vb = side.buffer(vertices.size() * sizeof(DrawVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vbytes);
  std::memcpy(vbytes, vertices.data(), vertices.size() * sizeof(DrawVertex));
  std::vector<uint8_t*> outputs;
  std::vector<VkBuffer> readback;
  for (const MrtAttachment& a : atts) {
    if (a.format == VK_FORMAT_UNDEFINED) continue;
    uint8_t* bytes = nullptr;
    readback.push_back(side.buffer(VkDeviceSize{kSize} * kSize * texel_bytes(a.format), VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bytes));
    outputs.push_back(bytes);
  }
  VkCommandBuffer cb = side.cb();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = pass;
  rp.framebuffer = fb;
  rp.renderArea = {{0, 0}, {kSize, kSize}};
  rp.clearValueCount = uint32_t(clears.size());
  rp.pClearValues = clears.data();
  vkCmdBeginRenderPass(cb, &rp, VK_SUBPASS_CONTENTS_INLINE);
  VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
  VkRect2D scissor{{0, 0}, {kSize, kSize}};
  vkCmdSetViewport(cb, 0, 1, &viewport);
  vkCmdSetScissor(cb, 0, 1, &scissor);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
  const float tint[4] = {1, 0.5f, 1, 1};
  vkCmdPushConstants(cb, side.layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
  vkCmdDraw(cb, 6, 1, 0, 0);
  vkCmdDraw(cb, 6, 1, 6, 0);
  if (in_pass) in_pass(cb);
  vkCmdEndRenderPass(cb);
  for (size_t i = 0; i < used; ++i) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {kSize, kSize, 1};
    vkCmdCopyImageToBuffer(cb, images[i], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback[i], 1, &region);
  }
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
  side.submit_and_wait();
  std::vector<std::vector<uint8_t>> frames;
  size_t k = 0;
  for (const MrtAttachment& a : atts) {
    if (a.format == VK_FORMAT_UNDEFINED) continue;
    frames.emplace_back(outputs[k], outputs[k] + size_t{kSize} * kSize * texel_bytes(a.format));
    ++k;
  }
  vkDestroyShaderModule(device, frag, nullptr);
  vkDestroyFramebuffer(device, fb, nullptr);
  vkDestroyRenderPass(device, pass, nullptr);
  return frames;
}

uint32_t differing_texels(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, uint32_t texel) {
  uint32_t n = 0;
  for (size_t i = 0; i + texel <= x.size() && i + texel <= y.size(); i += texel) n += std::memcmp(&x[i], &y[i], texel) != 0;
  return n;
}

// The largest difference of two UNORM8 frames' bytes.
int max_byte_difference(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y) {
  int worst = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) worst = std::max(worst, std::abs(int(x[i]) - int(y[i])));
  return worst;
}

using VkMultipleTargets = BothDrivers;

TEST_F(VkMultipleTargets, DeviceOffersEightAttachmentsWithIndependentBlend) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &p);
  EXPECT_EQ(p.limits.maxColorAttachments, 8u);
  EXPECT_EQ(p.limits.maxFragmentOutputAttachments, 8u);
  VkPhysicalDeviceFeatures f;
  vkGetPhysicalDeviceFeatures(gsgpu_physical_, &f);
  EXPECT_TRUE(f.independentBlend);
}

// Four RGBA8 attachments: plain, additive blending, a write mask of R and A, and alpha blending
// with ONE_MINUS_SRC_ALPHA of an alpha 0.75; each cleared to its own colour. The first three are
// exact in 8 bits and must be equal byte for byte; the fourth multiplies by a fraction, whose
// rounding Vulkan leaves to the implementation (lavapipe blends in 8-bit fixed point): within 1/255.
TEST_F(VkMultipleTargets, FourAttachmentsWithTheirOwnBlendMatchLavapipe) {
  std::vector<MrtAttachment> atts(4);
  const float clears[4][4] = {{0.2f, 0.4f, 0.6f, 1}, {0.5f, 0.25f, 0, 0.5f}, {1, 1, 0, 0}, {0, 0, 0.5f, 1}};
  for (int i = 0; i < 4; ++i) std::memcpy(atts[i].clear, clears[i], sizeof clears[i]);
  atts[1].blend = {VK_TRUE, VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD,
                   VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD, 0xf};
  atts[2].blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_A_BIT;
  atts[3].blend = {VK_TRUE, VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_OP_ADD,
                   VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD, 0xf};
  const auto gs = render_mrt(*gsgpu_, atts);
  const auto ref = render_mrt(*lavapipe_, atts);
  ASSERT_EQ(gs.size(), 4u);
  ASSERT_EQ(ref.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const uint32_t differing = differing_texels(gs[i], ref[i], 4);
    const int worst = max_byte_difference(gs[i], ref[i]);
    std::printf("[vkmrt] attachment %zu: %u of 4096 pixels differ, by at most %d / 255\n", i, differing, worst);
    if (i < 3) {
      EXPECT_EQ(differing, 0u) << "attachment " << i;
    }
    EXPECT_LE(worst, 1) << "attachment " << i;
  }
  // By hand at (50, 50), inside the second quad alone (colour 10 c0 66 ff): attachment 1 is the
  // clear plus the swizzled colour (b, g, r, a), saturated; attachment 2 keeps the clear's G and B.
  const uint8_t* a1 = &gs[1][(50 * kSize + 50) * 4];
  EXPECT_EQ(a1[0], std::min(0x66 + 0x80, 0xff));  // 0.5 cleared = 128 (round half up)
  EXPECT_EQ(a1[1], 0xff);                          // 0xc0 + 0x40
  EXPECT_EQ(a1[2], 0x10);                          // 0x10 + 0
  const uint8_t* a2 = &gs[2][(50 * kSize + 50) * 4];
  EXPECT_EQ(a2[0], 0xff - 0x10);
  EXPECT_EQ(a2[1], 0xff);  // the clear's green, masked
  EXPECT_EQ(a2[2], 0x00);  // the clear's blue, masked
  EXPECT_EQ(a2[3], 0x00);  // 1 - alpha 1
  const uint8_t* a0 = &gs[0][(1 * kSize + 1) * 4];  // outside both quads: the clear
  EXPECT_EQ(a0[0], 0x33);
}

// An unused slot (VK_ATTACHMENT_UNUSED at Location 1: its output is discarded), R8_UNORM at 2 and
// R32G32B32A32_SFLOAT at 3, then vkCmdClearAttachments of a rectangle on attachment 2 only.
TEST_F(VkMultipleTargets, UnusedSlotMixedFormatsAndAClearOfOneAttachmentMatchLavapipe) {
  std::vector<MrtAttachment> atts(4);
  atts[1].format = VK_FORMAT_UNDEFINED;
  atts[2].format = VK_FORMAT_R8_UNORM;
  atts[3].format = VK_FORMAT_R32G32B32A32_SFLOAT;
  atts[3].clear[0] = -2.5f;
  auto clear_one = [](VkCommandBuffer cb) {
    VkClearAttachment a{VK_IMAGE_ASPECT_COLOR_BIT, 2, {}};
    a.clearValue.color.float32[0] = 0.6f;
    VkClearRect r{{{10, 12}, {20, 8}}, 0, 1};
    vkCmdClearAttachments(cb, 1, &a, 1, &r);
  };
  const auto gs = render_mrt(*gsgpu_, atts, clear_one);
  const auto ref = render_mrt(*lavapipe_, atts, clear_one);
  ASSERT_EQ(gs.size(), 3u);
  ASSERT_EQ(ref.size(), 3u);
  const uint32_t texels[3] = {4, 1, 16};
  for (size_t i = 0; i < 3; ++i) {
    const uint32_t differing = differing_texels(gs[i], ref[i], texels[i]);
    std::printf("[vkmrt] mixed attachment %zu: %u of 4096 pixels differ\n", i, differing);
    EXPECT_EQ(differing, 0u) << "attachment " << i;
  }
  EXPECT_EQ(gs[1][15 * kSize + 12], 153);  // round(0.6 * 255) inside the cleared rectangle
  float at[4];
  std::memcpy(at, &gs[2][(50 * kSize + 50) * 16], 16);
  EXPECT_EQ(at[0], 50.5f / 64.0f);  // gl_FragCoord.x / 64, exactly
  EXPECT_EQ(at[2], 0.25f);          // the second quad's red 0x10 is below one half
  EXPECT_EQ(at[3], 0.75f);
}

// Four samples in three used attachments around an unused slot: RGBA8 cleared black (the colour
// times the tint), RGBA8 cleared white (the colour's complement) and R8; each has its own resolve
// attachment, averaged at vkCmdEndRenderPass. With colours in multiples of 8 over those clears every
// average of 4 samples in the RGBA8 attachments is a whole step: equal to lavapipe's byte for byte.
// The R8 one holds gl_FragCoord.x / 64, whose averages with the clear are fractions of a step that
// Vulkan does not fix the rounding of: within 1/255.
TEST_F(VkMultipleTargets, FourSampleAttachmentsWithTheirOwnResolvesMatchLavapipe) {
  std::vector<MrtAttachment> atts(4);
  atts[1].format = VK_FORMAT_UNDEFINED;
  atts[3].format = VK_FORMAT_R8_UNORM;
  const float black[4] = {0, 0, 0, 0}, white[4] = {1, 1, 1, 1};
  std::memcpy(atts[0].clear, black, sizeof black);
  std::memcpy(atts[2].clear, white, sizeof white);
  std::memcpy(atts[3].clear, black, sizeof black);
  const auto gs = render_mrt(*gsgpu_, atts, {}, 4);
  const auto ref = render_mrt(*lavapipe_, atts, {}, 4);
  ASSERT_EQ(gs.size(), 3u);
  ASSERT_EQ(ref.size(), 3u);
  const uint32_t texels[3] = {4, 4, 1};
  for (size_t i = 0; i < 3; ++i) {
    const uint32_t differing = differing_texels(gs[i], ref[i], texels[i]);
    const int worst = max_byte_difference(gs[i], ref[i]);
    std::printf("[vkmrt] 4 samples, attachment %zu: %u of 4096 pixels differ, by at most %d / 255\n", i, differing,
                worst);
    if (i < 2) {
      EXPECT_EQ(differing, 0u) << "attachment " << i;
    }
    EXPECT_LE(worst, 1) << "attachment " << i;
  }
  // Edge pixels hold averages of the quads' colours and the clear: the resolve really averaged.
  uint32_t averaged = 0;
  for (size_t p = 0; p < gs[0].size(); p += 4) {
    const uint8_t r = gs[0][p];
    averaged += r != 0 && r != 0xf0 && r != 0x10;
  }
  std::printf("[vkmrt] 4 samples: %u pixels of attachment 0 averaged on edges\n", averaged);
  EXPECT_GT(averaged, 40u);
}

}  // namespace
}  // namespace gsgpu::vk::test
