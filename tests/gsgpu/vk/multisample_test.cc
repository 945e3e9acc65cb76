// Multisampling against lavapipe (docs/vulkan-driver.md "Multisampling"): scenes rendered into 2- and
// 4-sample images by the same code on gsgpu and lavapipe in one instance (texture_fixture.h's
// BothDrivers), resolved by the render pass's resolve attachment or by vkCmdResolveImage, and the
// one-sample results compared. Both use Vulkan's standard sample locations (standardSampleLocations),
// so coverage is fixed by the spec; with flat colours that are multiples of 4/255 over a black clear
// every average of 1..4 samples is a whole 1/255 step, and the frames must be equal bit for bit. Then
// the hostile side: sample counts that are not offered are refused with the spec's results.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkMultisample : public BothDrivers {};

DrawVertex flat(float x, float y, float z, const uint8_t rgb[3]) { return {x, y, z, {rgb[0], rgb[1], rgb[2], 255}}; }

// Three flat triangles with edges at many slopes, overlapping, colours in multiples of 4.
DrawScene triangle_scene(uint32_t samples) {
  DrawScene s;
  s.samples = samples;
  const uint8_t red[3] = {200, 0, 0}, green[3] = {0, 160, 40}, blue[3] = {32, 64, 252};
  s.vertices = {flat(-0.9f, -0.8f, 0.5f, red),   flat(0.7f, -0.55f, 0.5f, red),  flat(-0.2f, 0.9f, 0.5f, red),
                flat(-0.3f, -0.95f, 0.5f, green), flat(0.95f, 0.1f, 0.5f, green), flat(0.05f, 0.4f, 0.5f, green),
                flat(-0.97f, 0.3f, 0.5f, blue),   flat(0.4f, 0.83f, 0.5f, blue),  flat(-0.6f, 0.97f, 0.5f, blue)};
  s.draws = {{false, 9, 0, 0, {1, 1, 1, 1}}};
  return s;
}

// Pixels whose colour is none of the clear and the flat colours: partly covered edges, averaged.
uint32_t blended_pixels(const DrawFrame& f) {
  const std::set<uint32_t> plain = {0xFF000000u, 0xFF0000C8u, 0xFF28A000u, 0xFFFC4020u};
  uint32_t n = 0;
  for (size_t i = 0; i < f.color.size(); i += 4) {
    uint32_t v;
    std::memcpy(&v, &f.color[i], 4);
    n += plain.count(v) == 0;
  }
  return n;
}

TEST_F(VkMultisample, FourSampleTrianglesResolvedMatchLavapipeBitForBit) {
  const DrawScene s = triangle_scene(4);
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  ASSERT_EQ(gs.color.size(), ref.color.size());
  const uint32_t blended = blended_pixels(ref);
  std::printf("[msaa] 4 samples: %u of %u pixels differ, %u edge pixels blended\n", differing_pixels(gs, ref),
              s.width * s.height, blended);
  EXPECT_EQ(differing_pixels(gs, ref), 0u);
  EXPECT_GT(blended, 50u);  // the edges are averaged: multisampling happened
}

// lavapipe offers 1 and 4 samples only (its framebufferColorSampleCounts), so 2 samples are held to
// lavapipe's 4-sample frame where coverage cannot differ (a pixel whose 3 x 3 neighbourhood there is
// one colour) and to averages of two samples on the edges: each channel is the mean of two of the
// scene's plain colours' channels.
TEST_F(VkMultisample, TwoSampleTrianglesMatchLavapipeInsideAndAverageTwoSamplesOnEdges) {
  const DrawFrame gs = gsgpu_->render(triangle_scene(2));
  const DrawFrame ref = lavapipe_->render(triangle_scene(4));
  const uint32_t w = 64;
  auto at = [&](const DrawFrame& f, uint32_t x, uint32_t y) {
    uint32_t v;
    std::memcpy(&v, &f.color[(size_t{y} * w + x) * 4], 4);
    return v;
  };
  uint32_t interior = 0, interior_differing = 0;
  for (uint32_t y = 1; y + 1 < w; ++y) {
    for (uint32_t x = 1; x + 1 < w; ++x) {
      bool uniform = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) uniform = uniform && at(ref, x + dx, y + dy) == at(ref, x, y);
      if (!uniform) continue;
      ++interior;
      interior_differing += at(gs, x, y) != at(ref, x, y);
    }
  }
  const std::set<uint8_t> red = {0, 200, 32}, green = {0, 160, 64}, blue = {0, 40, 252};  // per channel
  uint32_t not_two_sample_means = 0;
  for (size_t i = 0; i < gs.color.size(); i += 4) {
    auto half_sum = [](const std::set<uint8_t>& values, uint8_t v) {
      for (uint8_t a : values)
        for (uint8_t b : values)
          if ((a + b) / 2 == v) return true;
      return false;
    };
    not_two_sample_means += !half_sum(red, gs.color[i]) || !half_sum(green, gs.color[i + 1]) ||
                            !half_sum(blue, gs.color[i + 2]) || gs.color[i + 3] != 255;
  }
  std::printf("[msaa] 2 samples: %u interior pixels, %u differ from lavapipe's 4-sample frame; %u blended\n",
              interior, interior_differing, blended_pixels(gs));
  EXPECT_GT(interior, 2000u);
  EXPECT_EQ(interior_differing, 0u);
  EXPECT_EQ(not_two_sample_means, 0u);
  EXPECT_GT(blended_pixels(gs), 30u);
}

TEST_F(VkMultisample, VkCmdResolveImageMatchesLavapipe) {
  DrawScene s = triangle_scene(4);
  s.resolve_command = true;
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  EXPECT_EQ(differing_pixels(gs, ref), 0u);
  EXPECT_GT(blended_pixels(ref), 50u);
}

// Two interpenetrating triangles: depth is interpolated and tested at each sample, so the line where
// they cross is antialiased too. Depth at a sample is computed differently by the two drivers (a
// plane offset here, the rasterizer's own setup there), so a few samples on the crossing may differ:
// within the metric, and equal everywhere else.
TEST_F(VkMultisample, DepthTestedFourSampleSceneMatchesLavapipe) {
  DrawScene s;
  s.samples = 4;
  s.depth = true;
  const uint8_t red[3] = {200, 0, 0}, blue[3] = {32, 64, 252};
  s.vertices = {flat(-0.9f, -0.9f, 0.1f, red),  flat(0.9f, -0.7f, 0.9f, red), flat(0.0f, 0.9f, 0.5f, red),
                flat(-0.8f, 0.6f, 0.2f, blue),  flat(0.85f, 0.8f, 0.3f, blue), flat(-0.1f, -0.95f, 0.8f, blue)};
  s.draws = {{false, 6, 0, 0, {1, 1, 1, 1}}};
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  uint32_t over_16 = 0, differing = differing_pixels(gs, ref);
  for (size_t i = 0; i < gs.color.size(); ++i) over_16 += std::abs(int(gs.color[i]) - int(ref.color[i])) > 16;
  std::printf("[msaa] depth: %u pixels differ, %u channels over 16/255, %u blended\n", differing, over_16,
              blended_pixels(ref));
  EXPECT_LE(differing, 8u);
  EXPECT_LE(over_16, 4u);
  EXPECT_GT(blended_pixels(ref), 50u);
}

TEST_F(VkMultisample, SampleMaskMatchesLavapipe) {
  for (uint32_t mask : {0x5u, 0x8u, 0x0u}) {
    SCOPED_TRACE(mask);
    DrawScene s = triangle_scene(4);
    s.sample_mask = mask;
    const DrawFrame gs = gsgpu_->render(s);
    const DrawFrame ref = lavapipe_->render(s);
    EXPECT_EQ(differing_pixels(gs, ref), 0u);
  }
}

// Alpha to coverage: gsgpu keeps sample s where alpha > s / samples (docs/graphics.md); the test
// records how lavapipe's frames compare (printed) and holds gsgpu to the metric.
TEST_F(VkMultisample, AlphaToCoverageWithinTheMetricOfLavapipe) {
  DrawScene s = triangle_scene(4);
  s.alpha_to_coverage = true;
  for (DrawVertex& v : s.vertices) v.rgba[3] = 160;  // 0.627: samples 0, 1, 2
  const DrawFrame gs = gsgpu_->render(s);
  const DrawFrame ref = lavapipe_->render(s);
  uint32_t over_16 = 0, max_diff = 0;
  for (size_t i = 0; i < gs.color.size(); i += 4) {
    uint32_t d = 0;
    for (int c = 0; c < 4; ++c) d = std::max<uint32_t>(d, std::abs(int(gs.color[i + c]) - int(ref.color[i + c])));
    over_16 += d > 16;
    max_diff = std::max(max_diff, d);
  }
  std::printf("[msaa] alpha to coverage: %u pixels differ, %u over 16/255, max %u/255\n", differing_pixels(gs, ref),
              over_16, max_diff);
  EXPECT_EQ(over_16, 0u);
  // A pixel inside the red triangle holds 3 of 4 samples: 150 = 200 * 3 / 4.
  EXPECT_EQ(gs.color[(size_t{20} * s.width + 20) * 4], 150);
}

// Sample counts that are not offered: the image query and vkCreateImage agree, pipelines and render
// passes refuse them, and a resolve attachment must be a one-sample image of a multisampled one.
TEST_F(VkMultisample, SampleCountsNotOfferedAreRefused) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &props);
  const VkSampleCountFlags offered = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT;
  EXPECT_EQ(props.limits.framebufferColorSampleCounts, offered);
  EXPECT_EQ(props.limits.framebufferDepthSampleCounts, offered);
  EXPECT_EQ(props.limits.sampledImageColorSampleCounts, offered);
  EXPECT_EQ(props.limits.sampledImageIntegerSampleCounts, offered);
  EXPECT_EQ(props.limits.sampledImageDepthSampleCounts, offered);
  EXPECT_EQ(props.limits.storageImageSampleCounts & ~VkSampleCountFlags{VK_SAMPLE_COUNT_1_BIT}, 0u);  // none stored
  EXPECT_TRUE(props.limits.standardSampleLocations);
  VkImageFormatProperties ifp;
  ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(gsgpu_physical_, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                                     VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0,
                                                     &ifp),
            VK_SUCCESS);
  EXPECT_EQ(ifp.sampleCounts, offered);
  ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(gsgpu_physical_, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                                     VK_IMAGE_TILING_OPTIMAL,
                                                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, 0,
                                                     &ifp),
            VK_SUCCESS);
  EXPECT_EQ(ifp.sampleCounts, offered);  // texelFetch reads one sample (sampled_multisample_test.cc)
  // A texture only (no attachment format is needed to sample, but one to draw the samples): 1.
  ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(gsgpu_physical_, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D,
                                                     VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_SAMPLED_BIT, 0, &ifp),
            VK_SUCCESS);
  EXPECT_EQ(ifp.sampleCounts, VkSampleCountFlags{VK_SAMPLE_COUNT_1_BIT});
  VkDevice device = gsgpu_->device();
  struct Case {
    uint32_t samples, levels;
    VkImageUsageFlags usage;
  };
  for (const Case& c : {Case{8, 1, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT}, Case{3, 1, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT},
                        Case{4, 2, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT},
                        Case{4, 1, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT}}) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.extent = {16, 16, 1};
    info.mipLevels = c.levels;
    info.arrayLayers = 1;
    info.samples = VkSampleCountFlagBits(c.samples);
    info.usage = c.usage;
    VkImage image = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_ERROR_FORMAT_NOT_SUPPORTED) << c.samples;
    EXPECT_EQ(image, VK_NULL_HANDLE);
  }
  // An 8-sample pipeline and a 4-sample one with sample shading.
  for (bool shading : {false, true}) {
    VkPipeline p = VK_NULL_HANDLE;
    const VkResult r = gsgpu_->pipeline(gsgpu_->render_pass(false, VK_FORMAT_D32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM, 4),
                                        false, VK_CULL_MODE_NONE,
                                        [&](VkGraphicsPipelineCreateInfo& info) {
                                          auto* ms = const_cast<VkPipelineMultisampleStateCreateInfo*>(
                                              info.pMultisampleState);
                                          ms->rasterizationSamples = shading ? VK_SAMPLE_COUNT_4_BIT
                                                                             : VK_SAMPLE_COUNT_8_BIT;
                                          ms->sampleShadingEnable = shading;
                                        },
                                        &p);
    EXPECT_NE(r, VK_SUCCESS) << shading;
    EXPECT_EQ(p, VK_NULL_HANDLE);
  }
  // A resolve attachment of the same sample count as the colour attachment.
  VkAttachmentDescription a[2] = {};
  for (VkAttachmentDescription& d : a) {
    d.format = VK_FORMAT_R8G8B8A8_UNORM;
    d.samples = VK_SAMPLE_COUNT_4_BIT;
    d.finalLayout = VK_IMAGE_LAYOUT_GENERAL;
  }
  VkAttachmentReference color{0, VK_IMAGE_LAYOUT_GENERAL}, resolve{1, VK_IMAGE_LAYOUT_GENERAL};
  VkSubpassDescription subpass{};
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  subpass.pResolveAttachments = &resolve;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 2;
  info.pAttachments = a;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  VkRenderPass pass = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateRenderPass(device, &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  a[0].samples = VK_SAMPLE_COUNT_8_BIT;
  a[1].samples = VK_SAMPLE_COUNT_1_BIT;
  EXPECT_EQ(vkCreateRenderPass(device, &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
}

// Buffer copies of a multisampled image are invalid usage that zink makes (glReadPixels / DrawPixels
// of a multisampled window's depth / stencil): gsgpu defines them as every sample written from the
// buffer and sample 0 read back. A 4-sample RGBA8 image over a cleared one: the copy's texels come
// back, and the resolve of the image equals them (every sample was written, the clear is gone); a
// 4-sample D24S8 image's depth and stencil aspects, each copied in and back.
TEST_F(VkMultisample, BufferCopiesOfMultisampledImagesWriteEverySampleAndReadSampleZero) {
  DrawSide& side = *gsgpu_;
  const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  VkImageView view = VK_NULL_HANDLE;
  const VkImage color = side.image(VK_FORMAT_R8G8B8A8_UNORM, 8, 4, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | usage, &view, 4);
  const VkImage resolved = side.image(VK_FORMAT_R8G8B8A8_UNORM, 8, 4, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | usage, &view);
  const VkImage ds = side.image(VK_FORMAT_D24_UNORM_S8_UINT, 8, 4, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | usage,
                                &view, 4);
  const VkBufferUsageFlags both = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  uint8_t* bytes[5] = {};
  VkBuffer buffers[5];  // in: 32 words, 32 stencil bytes; out: colour, resolved colour, depth; stencil in
  for (int b = 0; b < 4; ++b) buffers[b] = side.buffer(8 * 4 * 4, both, &bytes[b]);
  buffers[4] = side.buffer(8 * 4 * 2, both, &bytes[4]);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t word = i * 0x04030201u;
    std::memcpy(bytes[0] + 4 * i, &word, 4);
    bytes[4][i] = uint8_t(7 * i + 1);
  }
  VkCommandBuffer cb = side.cb();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  const VkClearColorValue grey{{0.5f, 0.5f, 0.5f, 0.5f}};
  const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdClearColorImage(cb, color, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &grey, 1, &all);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {8, 4, 1};
  const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  vkCmdCopyBufferToImage(cb, buffers[0], color, dst, 1, &region);
  vkCmdCopyImageToBuffer(cb, color, src, buffers[1], 1, &region);
  VkImageResolve r{};
  r.srcSubresource = r.dstSubresource = region.imageSubresource;
  r.extent = region.imageExtent;
  vkCmdResolveImage(cb, color, src, resolved, dst, 1, &r);
  vkCmdCopyImageToBuffer(cb, resolved, src, buffers[2], 1, &region);
  region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
  vkCmdCopyBufferToImage(cb, buffers[0], ds, dst, 1, &region);
  vkCmdCopyImageToBuffer(cb, ds, src, buffers[3], 1, &region);
  region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
  vkCmdCopyBufferToImage(cb, buffers[4], ds, dst, 1, &region);
  region.bufferOffset = 32;
  vkCmdCopyImageToBuffer(cb, ds, src, buffers[4], 1, &region);
  side.submit_and_wait();
  EXPECT_EQ(std::memcmp(bytes[1], bytes[0], 128), 0);  // sample 0
  EXPECT_EQ(std::memcmp(bytes[2], bytes[0], 128), 0);  // the mean of 4 equal samples
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t depth;
    std::memcpy(&depth, bytes[3] + 4 * i, 4);
    EXPECT_EQ(depth, i * 0x04030201u & 0xffffffu) << i;
    EXPECT_EQ(bytes[4][32 + i], uint8_t(7 * i + 1)) << i;
  }
}

// Several colour attachments (maxColorAttachments 8): all of the subpass's attachments have one
// sample count, and each resolve attachment is a one-sample attachment of its colour attachment's
// format that is no colour attachment and no other one's resolve attachment.
TEST_F(VkMultisample, ResolveAttachmentsOfSeveralColourAttachmentsAreChecked) {
  VkDevice device = gsgpu_->device();
  // 0, 1: 4-sample colour; 2, 3: one-sample resolves; 4: 2-sample colour.
  VkAttachmentDescription a[5] = {};
  const uint32_t samples[5] = {4, 4, 1, 1, 2};
  for (int i = 0; i < 5; ++i) {
    a[i].format = VK_FORMAT_R8G8B8A8_UNORM;
    a[i].samples = VkSampleCountFlagBits(samples[i]);
    a[i].finalLayout = VK_IMAGE_LAYOUT_GENERAL;
  }
  struct Case {
    uint32_t colors[2], resolves[2];
    VkResult expected;
  };
  const uint32_t unused = VK_ATTACHMENT_UNUSED;
  for (const Case& c : {Case{{0, 1}, {2, 3}, VK_SUCCESS}, Case{{0, 1}, {unused, 3}, VK_SUCCESS},
                        Case{{0, 1}, {2, 2}, VK_ERROR_FEATURE_NOT_PRESENT},  // one resolve twice
                        Case{{0, 1}, {2, 0}, VK_ERROR_FEATURE_NOT_PRESENT},  // a colour attachment as resolve
                        Case{{0, 4}, {2, 3}, VK_ERROR_FEATURE_NOT_PRESENT},  // 4 and 2 samples
                        Case{{0, unused}, {2, 3}, VK_ERROR_FEATURE_NOT_PRESENT},  // resolve of an unused slot
                        Case{{0, 1}, {2, 9}, VK_ERROR_FEATURE_NOT_PRESENT}}) {  // index out of range
    SCOPED_TRACE(testing::Message() << c.colors[1] << " " << c.resolves[0] << " " << c.resolves[1]);
    VkAttachmentReference colors[2], resolves[2];
    for (int i = 0; i < 2; ++i) {
      colors[i] = {c.colors[i], VK_IMAGE_LAYOUT_GENERAL};
      resolves[i] = {c.resolves[i], VK_IMAGE_LAYOUT_GENERAL};
    }
    VkSubpassDescription subpass{};
    subpass.colorAttachmentCount = 2;
    subpass.pColorAttachments = colors;
    subpass.pResolveAttachments = resolves;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 5;
    info.pAttachments = a;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    VkRenderPass pass = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateRenderPass(device, &info, nullptr, &pass), c.expected);
    EXPECT_EQ(pass != VK_NULL_HANDLE, c.expected == VK_SUCCESS);
    vkDestroyRenderPass(device, pass, nullptr);
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
