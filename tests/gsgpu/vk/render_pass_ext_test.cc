// What zink's render-pass extensions render on gsgpu against lavapipe, both through the loader in
// one instance (draw_fixture.h's DrawSide on each): a multiview pass drawing two views into two
// layers with gl_ViewIndex read by both stages (VK_KHR_multiview, the 1.0 create info's chain), a
// vkCreateRenderPass2 pass whose view mask names view 1 only (layer 0 keeps what was there), an
// imageless framebuffer's draw equal to the classic framebuffer's (VK_KHR_imageless_framebuffer),
// and a negative viewport height (VK_KHR_maintenance1) flipping the scene. Frames compare with
// docs/graphics.md's metric: no pixel over 16/255 and at most 1/255 of difference.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "shader_multiview_frag.h"
#include "shader_multiview_vert.h"
#include "tests/gsgpu/vk/draw_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kSide = 64;
constexpr VkDeviceSize kLayerBytes = VkDeviceSize{kSide} * kSide * 4;

// The largest channel difference of two RGBA8 frames, and how many pixels differ by over 16/255.
struct Difference {
  uint32_t max = 0, over_16 = 0;
};
Difference difference(const uint8_t* a, const uint8_t* b, VkDeviceSize bytes) {
  Difference d;
  for (VkDeviceSize i = 0; i < bytes; i += 4) {
    uint32_t m = 0;
    for (int c = 0; c < 4; ++c) m = std::max<uint32_t>(m, std::abs(int(a[i + c]) - int(b[i + c])));
    d.max = std::max(d.max, m);
    d.over_16 += m > 16;
  }
  return d;
}

DrawVertex v(float x, float y, uint8_t r, uint8_t g, uint8_t b) { return {x, y, 0.5f, {r, g, b, 255}}; }
const DrawVertex kTriangle[3] = {v(-0.8f, -0.7f, 255, 0, 0), v(0.5f, -0.5f, 0, 255, 0), v(-0.3f, 0.85f, 0, 0, 255)};

// One device's objects for a pass over a `layers`-layer RGBA8 image.
class LayeredScene {
 public:
  LayeredScene(DrawSide* side, uint32_t layers) : side_(side), layers_(layers) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.extent = {kSide, kSide, 1};
    info.mipLevels = 1;
    info.arrayLayers = layers;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    EXPECT_EQ(vkCreateImage(device(), &info, nullptr, &image_), VK_SUCCESS);
    VkMemoryRequirements reqs;
    vkGetImageMemoryRequirements(device(), image_, &reqs);
    EXPECT_EQ(vkBindImageMemory(device(), image_, side->allocate(reqs, nullptr), 0), VK_SUCCESS);
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = image_;
    view.viewType = layers == 1 ? VK_IMAGE_VIEW_TYPE_2D : VK_IMAGE_VIEW_TYPE_2D_ARRAY;
    view.format = VK_FORMAT_R8G8B8A8_UNORM;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers};
    EXPECT_EQ(vkCreateImageView(device(), &view, nullptr, &view_), VK_SUCCESS);
    uint8_t* bytes = nullptr;
    vertices_ = side->buffer(sizeof kTriangle, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &bytes);
    std::memcpy(bytes, kTriangle, sizeof kTriangle);
    readback_ = side->buffer(kLayerBytes * layers, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &readback_bytes_);
  }
  ~LayeredScene() {
    vkDeviceWaitIdle(device());
    if (framebuffer_) vkDestroyFramebuffer(device(), framebuffer_, nullptr);
    for (VkShaderModule m : modules_) vkDestroyShaderModule(device(), m, nullptr);
    if (pass_) vkDestroyRenderPass(device(), pass_, nullptr);
    vkDestroyImageView(device(), view_, nullptr);
    vkDestroyImage(device(), image_, nullptr);
  }
  VkDevice device() const { return side_->device(); }
  VkImageView view() const { return view_; }

  // The pass: one colour attachment (CLEAR, STORE) and a view mask, through vkCreateRenderPass
  // (with VkRenderPassMultiviewCreateInfo when the mask is not 0) or vkCreateRenderPass2KHR.
  void make_pass(uint32_t view_mask, bool pass2) {
    if (pass2) return make_pass2(view_mask);
    VkAttachmentDescription a{0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                              VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                              VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
    VkAttachmentReference color{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{0, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, nullptr, 1, &color};
    VkRenderPassMultiviewCreateInfo mv{VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO};
    mv.subpassCount = 1;
    mv.pViewMasks = &view_mask;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, view_mask ? &mv : nullptr, 0, 1, &a, 1,
                                &subpass};
    ASSERT_EQ(vkCreateRenderPass(device(), &info, nullptr, &pass_), VK_SUCCESS);
  }

  // A framebuffer of the view, or with `imageless` one that names only what the view will be.
  void make_framebuffer(bool imageless) {
    const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    VkFramebufferAttachmentImageInfo image{VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO};
    image.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    image.width = image.height = kSide;
    image.layerCount = layers_;
    image.viewFormatCount = 1;
    image.pViewFormats = &format;
    VkFramebufferAttachmentsCreateInfo images{VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO};
    images.attachmentImageInfoCount = 1;
    images.pAttachmentImageInfos = &image;
    VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, imageless ? &images : nullptr};
    fb.flags = imageless ? VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT : 0;
    fb.renderPass = pass_;
    fb.attachmentCount = 1;
    fb.pAttachments = imageless ? nullptr : &view_;
    fb.width = fb.height = kSide;
    fb.layers = 1;
    ASSERT_EQ(vkCreateFramebuffer(device(), &fb, nullptr, &framebuffer_), VK_SUCCESS);
  }

  // The draw_color pipeline, or with `multiview_shaders` shaders/multiview.*.
  void make_pipeline(bool multiview_shaders) {
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    if (multiview_shaders) {
      modules_.push_back(module(shader_multiview_vert, sizeof shader_multiview_vert));
      modules_.push_back(module(shader_multiview_frag, sizeof shader_multiview_frag));
      for (int i = 0; i < 2; ++i) {
        stages[i].stage = i == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
        stages[i].module = modules_[i];
        stages[i].pName = "main";
      }
    }
    ASSERT_EQ(side_->pipeline(pass_, false, VK_CULL_MODE_NONE,
                              [&](VkGraphicsPipelineCreateInfo& info) {
                                if (multiview_shaders) info.pStages = stages;
                              },
                              &pipeline_),
              VK_SUCCESS);
  }

  // Clears every layer to `fill` with vkCmdClearColorImage, runs the pass (its CLEAR load op, the
  // triangle with `viewport`), reads every layer back.
  const uint8_t* render(const VkViewport& viewport, bool imageless, float fill_blue = 0.0f) {
    VkCommandBuffer cb = side_->cb();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
    const VkClearColorValue fill{{0.0f, 0.0f, fill_blue, 1.0f}};
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers_};
    vkCmdClearColorImage(cb, image_, VK_IMAGE_LAYOUT_GENERAL, &fill, 1, &all);
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    VkClearValue clear{};
    clear.color = {{0.2f, 0.0f, 0.0f, 1.0f}};
    VkRenderPassAttachmentBeginInfo attachments{VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO};
    attachments.attachmentCount = 1;
    attachments.pAttachments = &view_;
    VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, imageless ? &attachments : nullptr};
    rp.renderPass = pass_;
    rp.framebuffer = framebuffer_;
    rp.renderArea = {{0, 0}, {kSide, kSide}};
    rp.clearValueCount = 1;
    rp.pClearValues = &clear;
    vkCmdBeginRenderPass(cb, &rp, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    const VkRect2D scissor{{0, 0}, {kSide, kSide}};
    vkCmdSetViewport(cb, 0, 1, &viewport);
    vkCmdSetScissor(cb, 0, 1, &scissor);
    const VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vertices_, &offset);
    const float tint[4] = {1, 1, 1, 1};
    vkCmdPushConstants(cb, side_->layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
    vkCmdDraw(cb, 3, 1, 0, 0);
    vkCmdEndRenderPass(cb);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, layers_};
    region.imageExtent = {kSide, kSide, 1};
    vkCmdCopyImageToBuffer(cb, image_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_, 1, &region);
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT);
    side_->submit_and_wait();
    return readback_bytes_;
  }

 private:
  void make_pass2(uint32_t view_mask) {
    VkAttachmentDescription2 a{VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2};
    a.format = VK_FORMAT_R8G8B8A8_UNORM;
    a.samples = VK_SAMPLE_COUNT_1_BIT;
    a.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    a.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    a.initialLayout = VK_IMAGE_LAYOUT_GENERAL;
    a.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference2 color{VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2};
    color.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    VkSubpassDescription2 subpass{VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.viewMask = view_mask;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &color;
    VkRenderPassCreateInfo2 info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2};
    info.attachmentCount = 1;
    info.pAttachments = &a;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    auto create = reinterpret_cast<PFN_vkCreateRenderPass2KHR>(vkGetDeviceProcAddr(device(), "vkCreateRenderPass2KHR"));
    ASSERT_NE(create, nullptr);
    ASSERT_EQ(create(device(), &info, nullptr, &pass_), VK_SUCCESS);
  }
  static void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
  }
  VkShaderModule module(const uint32_t* code, size_t bytes) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = bytes;
    info.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateShaderModule(device(), &info, nullptr, &m), VK_SUCCESS);
    return m;
  }

  DrawSide* side_;
  uint32_t layers_;
  VkImage image_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules_;
  VkBuffer vertices_ = VK_NULL_HANDLE, readback_ = VK_NULL_HANDLE;
  uint8_t* readback_bytes_ = nullptr;
};

class VkRenderPassExtensions : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_reference_instance(VK_API_VERSION_1_0, &instance_, &found));
    multiview_.multiview = VK_TRUE;
    multiview_.pNext = &imageless_;
    imageless_.imagelessFramebuffer = VK_TRUE;
    DeviceRequest request;
    request.extensions = {VK_KHR_MAINTENANCE_1_EXTENSION_NAME,       VK_KHR_MAINTENANCE_2_EXTENSION_NAME,
                          VK_KHR_MULTIVIEW_EXTENSION_NAME,           VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME,
                          VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,   VK_KHR_IMAGELESS_FRAMEBUFFER_EXTENSION_NAME};
    request.next = &multiview_;
    gsgpu_ = std::make_unique<DrawSide>(found.gsgpu[0], request);
    lavapipe_ = std::make_unique<DrawSide>(found.lavapipe, request);
  }
  void TearDown() override {
    gsgpu_.reset();
    lavapipe_.reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  VkPhysicalDeviceMultiviewFeatures multiview_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES};
  VkPhysicalDeviceImagelessFramebufferFeatures imageless_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES};
  VkInstance instance_ = VK_NULL_HANDLE;
  std::unique_ptr<DrawSide> gsgpu_, lavapipe_;
};

const VkViewport kViewport{0, 0, float(kSide), float(kSide), 0, 1};

void expect_close(const uint8_t* gs, const uint8_t* ref, VkDeviceSize bytes, const char* what) {
  const Difference d = difference(gs, ref, bytes);
  EXPECT_EQ(d.over_16, 0u) << what;
  EXPECT_LE(d.max, 1u) << what;
}

TEST_F(VkRenderPassExtensions, MultiviewPassRendersEachViewIntoItsLayer) {
  std::vector<std::vector<uint8_t>> frames;
  for (DrawSide* side : {gsgpu_.get(), lavapipe_.get()}) {
    LayeredScene scene(side, 2);
    scene.make_pass(0b11, false);
    scene.make_framebuffer(false);
    scene.make_pipeline(true);
    const uint8_t* bytes = scene.render(kViewport, false);
    frames.emplace_back(bytes, bytes + 2 * kLayerBytes);
  }
  expect_close(frames[0].data(), frames[1].data(), kLayerBytes, "layer 0");
  expect_close(frames[0].data() + kLayerBytes, frames[1].data() + kLayerBytes, kLayerBytes, "layer 1");
  // The view index reached both stages: the layers differ (moved and complemented).
  EXPECT_GT(difference(frames[0].data(), frames[0].data() + kLayerBytes, kLayerBytes).over_16, 500u);
}

TEST_F(VkRenderPassExtensions, RenderPass2ViewMaskOfView1LeavesLayer0) {
  std::vector<std::vector<uint8_t>> frames;
  for (DrawSide* side : {gsgpu_.get(), lavapipe_.get()}) {
    LayeredScene scene(side, 2);
    scene.make_pass(0b10, true);
    scene.make_framebuffer(false);
    scene.make_pipeline(true);
    const uint8_t* bytes = scene.render(kViewport, false, 1.0f);
    frames.emplace_back(bytes, bytes + 2 * kLayerBytes);
  }
  expect_close(frames[0].data(), frames[1].data(), 2 * kLayerBytes, "both layers");
  const uint8_t blue[4] = {0, 0, 255, 255};  // layer 0: vkCmdClearColorImage's fill, not the pass's clear
  EXPECT_EQ(std::memcmp(frames[0].data() + 4 * (kSide * kSide / 2 + kSide / 2), blue, 4), 0);
}

TEST_F(VkRenderPassExtensions, ImagelessFramebufferDrawEqualsTheClassicOne) {
  std::vector<std::vector<uint8_t>> frames;
  for (DrawSide* side : {gsgpu_.get(), lavapipe_.get()}) {
    for (bool imageless : {false, true}) {
      LayeredScene scene(side, 1);
      scene.make_pass(0, imageless);  // the imageless one through vkCreateRenderPass2 as well
      scene.make_framebuffer(imageless);
      scene.make_pipeline(false);
      const uint8_t* bytes = scene.render(kViewport, imageless);
      frames.emplace_back(bytes, bytes + kLayerBytes);
    }
  }
  EXPECT_EQ(frames[0], frames[1]) << "gsgpu: imageless differs from classic";
  EXPECT_EQ(frames[2], frames[3]) << "lavapipe: imageless differs from classic";
  expect_close(frames[1].data(), frames[3].data(), kLayerBytes, "imageless");
}

TEST_F(VkRenderPassExtensions, NegativeViewportHeightFlipsTheSceneAsLavapipe) {
  const VkViewport flipped{0, float(kSide), float(kSide), -float(kSide), 0, 1};
  std::vector<std::vector<uint8_t>> frames;
  for (DrawSide* side : {gsgpu_.get(), lavapipe_.get()}) {
    for (const VkViewport& viewport : {kViewport, flipped}) {
      LayeredScene scene(side, 1);
      scene.make_pass(0, false);
      scene.make_framebuffer(false);
      scene.make_pipeline(false);
      const uint8_t* bytes = scene.render(viewport, false);
      frames.emplace_back(bytes, bytes + kLayerBytes);
    }
  }
  expect_close(frames[1].data(), frames[3].data(), kLayerBytes, "flipped");
  // Row y of the flipped frame is row 63 - y of the upright one (the same rasterization, mirrored),
  // within the metric: edge pixels may round differently.
  std::vector<uint8_t> mirrored(kLayerBytes);
  for (uint32_t y = 0; y < kSide; ++y) {
    std::memcpy(&mirrored[y * kSide * 4], &frames[0][(kSide - 1 - y) * kSide * 4], kSide * 4);
  }
  EXPECT_EQ(difference(frames[1].data(), mirrored.data(), kLayerBytes).over_16 < 2 * kSide, true);
}

}  // namespace
}  // namespace gsgpu::vk::test
