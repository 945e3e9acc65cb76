// The device extensions zink requires (docs/vulkan-driver.md "zink"), their structures' checks on
// gsgpu: buffer views (offset, range, VK_WHOLE_SIZE, maxTexelBufferElements), the image format list,
// a view's narrowed usage (maintenance2), 2D views of a 2D_ARRAY_COMPATIBLE 3D image
// (maintenance1) and 1D colour targets, the counts and indices of multiview, render pass 2 and imageless framebuffer
// create infos. What these render is compared with lavapipe in render_pass_ext_test.cc.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tests/gsgpu/vk/image_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkZinkExtensions : public VkImageTest {
 protected:
  void SetUp() override {
    device_extensions_ = {VK_KHR_MAINTENANCE_1_EXTENSION_NAME,        VK_KHR_MAINTENANCE_2_EXTENSION_NAME,
                          VK_KHR_MULTIVIEW_EXTENSION_NAME,            VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME,
                          VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,    VK_KHR_IMAGELESS_FRAMEBUFFER_EXTENSION_NAME};
    multiview_.multiview = VK_TRUE;
    multiview_.pNext = &imageless_;
    imageless_.imagelessFramebuffer = VK_TRUE;
    device_features_ = &multiview_;
    VkImageTest::SetUp();
  }
  void TearDown() override {
    for (VkBufferView v : buffer_views_) vkDestroyBufferView(device_, v, nullptr);
    for (VkRenderPass p : passes_) vkDestroyRenderPass(device_, p, nullptr);
    VkImageTest::TearDown();
  }

  VkResult buffer_view(VkBuffer buffer, VkFormat format, VkDeviceSize offset, VkDeviceSize range) {
    VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    info.buffer = buffer;
    info.format = format;
    info.offset = offset;
    info.range = range;
    VkBufferView view = VK_NULL_HANDLE;
    const VkResult r = vkCreateBufferView(device_, &info, nullptr, &view);
    if (view != VK_NULL_HANDLE) buffer_views_.push_back(view);
    EXPECT_EQ(r == VK_SUCCESS, view != VK_NULL_HANDLE);
    return r;
  }

  VkResult create_image(const VkImageCreateInfo& info) {
    VkImage image = VK_NULL_HANDLE;
    const VkResult r = vkCreateImage(device_, &info, nullptr, &image);
    if (image != VK_NULL_HANDLE) vkDestroyImage(device_, image, nullptr);
    return r;
  }

  VkResult view(VkImage image, VkImageViewType type, VkFormat format, uint32_t base_layer, uint32_t layers,
                const void* next = nullptr) {
    VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, next};
    info.image = image;
    info.viewType = type;
    info.format = format;
    info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, base_layer, layers};
    VkImageView v = VK_NULL_HANDLE;
    const VkResult r = vkCreateImageView(device_, &info, nullptr, &v);
    if (v != VK_NULL_HANDLE) views_.push_back(v);
    return r;
  }

  VkResult render_pass2(const VkSubpassDescription2& subpass, uint32_t attachment_count) {
    VkAttachmentDescription2 attachment{VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2};
    attachment.format = VK_FORMAT_R8G8B8A8_UNORM;
    attachment.samples = VK_SAMPLE_COUNT_1_BIT;
    attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    attachment.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkRenderPassCreateInfo2 info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2};
    info.attachmentCount = attachment_count;
    info.pAttachments = &attachment;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    auto create = reinterpret_cast<PFN_vkCreateRenderPass2KHR>(vkGetDeviceProcAddr(device_, "vkCreateRenderPass2KHR"));
    EXPECT_NE(create, nullptr);
    VkRenderPass pass = VK_NULL_HANDLE;
    const VkResult r = create(device_, &info, nullptr, &pass);
    if (pass != VK_NULL_HANDLE) passes_.push_back(pass);
    EXPECT_EQ(r == VK_SUCCESS, pass != VK_NULL_HANDLE);
    return r;
  }

  VkPhysicalDeviceMultiviewFeatures multiview_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES};
  VkPhysicalDeviceImagelessFramebufferFeatures imageless_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES};
  std::vector<VkBufferView> buffer_views_;
  std::vector<VkRenderPass> passes_;
};

TEST_F(VkZinkExtensions, BufferViewsAreCheckedAgainstTheirBufferAndTheLimits) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  EXPECT_EQ(props.limits.maxTexelBufferElements, 65536u);
  EXPECT_EQ(props.limits.minTexelBufferOffsetAlignment, 256u);
  uint8_t* bytes = nullptr;
  VkBuffer buffer = make_buffer(1 << 20, &bytes);  // 1 MiB: 262,144 RGBA8 texels
  EXPECT_EQ(buffer_view(buffer, VK_FORMAT_R8G8B8A8_UNORM, 0, 4096), VK_SUCCESS);
  EXPECT_EQ(buffer_view(buffer, VK_FORMAT_R32G32_SFLOAT, 256, 65536 * 8), VK_SUCCESS);  // exactly the limit
  EXPECT_EQ(buffer_view(buffer, VK_FORMAT_R8_UNORM, (1 << 20) - 256, VK_WHOLE_SIZE), VK_SUCCESS);
  const struct {
    VkFormat format;
    VkDeviceSize offset, range;
  } refused[] = {
      {VK_FORMAT_R8G8B8A8_UNORM, 100, 4096},                  // offset not a multiple of 256
      {VK_FORMAT_R8G8B8A8_UNORM, 1 << 20, VK_WHOLE_SIZE},     // offset at the end
      {VK_FORMAT_R8G8B8A8_UNORM, 0, 4098},                    // not whole texels
      {VK_FORMAT_R8G8B8A8_UNORM, 0, 0},                       // empty
      {VK_FORMAT_R8G8B8A8_UNORM, 256, 1 << 20},               // past the end
      {VK_FORMAT_R8G8B8A8_UNORM, 0, ~VkDeviceSize{3}},        // would wrap offset + range
      {VK_FORMAT_R8G8B8A8_UNORM, 0, (65536 + 1) * 4},         // over maxTexelBufferElements
      {VK_FORMAT_R8G8B8A8_UNORM, 0, VK_WHOLE_SIZE},           // the whole buffer: 262,144 texels
      {VK_FORMAT_R8G8B8_UNORM, 0, 3 * 16},                    // unsupported format
      {VK_FORMAT_R8G8B8A8_UNORM, ~VkDeviceSize{255}, 256},    // offset far past the end
  };
  for (const auto& r : refused) {
    EXPECT_EQ(buffer_view(buffer, r.format, r.offset, r.range), VK_ERROR_FORMAT_NOT_SUPPORTED)
        << r.format << " " << r.offset << " " << r.range;
  }
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  VkBuffer unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device_, &info, nullptr, &unbound), VK_SUCCESS);
  EXPECT_EQ(buffer_view(unbound, VK_FORMAT_R8G8B8A8_UNORM, 0, VK_WHOLE_SIZE), VK_ERROR_FORMAT_NOT_SUPPORTED);
  vkDestroyBuffer(device_, unbound, nullptr);
}

TEST_F(VkZinkExtensions, ImageFormatListNamesFormatsAViewCouldHave) {
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  const VkFormat same_size[] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R32_SFLOAT};
  VkImageFormatListCreateInfo list{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
  info.pNext = &list;
  list.viewFormatCount = 1;
  list.pViewFormats = same_size;
  EXPECT_EQ(create_image(info), VK_SUCCESS);  // the image's own format
  list.viewFormatCount = 3;
  EXPECT_EQ(create_image(info), VK_ERROR_FORMAT_NOT_SUPPORTED);  // several formats without MUTABLE_FORMAT
  info.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
  EXPECT_EQ(create_image(info), VK_SUCCESS);
  const VkFormat wider[] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT};
  list.viewFormatCount = 2;
  list.pViewFormats = wider;
  EXPECT_EQ(create_image(info), VK_ERROR_FORMAT_NOT_SUPPORTED);  // another texel size
  list.pViewFormats = nullptr;
  EXPECT_EQ(create_image(info), VK_ERROR_FORMAT_NOT_SUPPORTED);  // a count with no array
}

TEST_F(VkZinkExtensions, ViewUsageMayNarrowTheImageUsageOnly) {
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1));
  VkImageViewUsageCreateInfo usage{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  usage.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  EXPECT_EQ(view(image, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 0, 1, &usage), VK_SUCCESS);
  usage.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;  // the image was not created for it
  EXPECT_EQ(view(image, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 0, 1, &usage), VK_ERROR_FORMAT_NOT_SUPPORTED);
  usage.usage = 0;
  EXPECT_EQ(view(image, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 0, 1, &usage), VK_ERROR_FORMAT_NOT_SUPPORTED);
}

TEST_F(VkZinkExtensions, AttachmentShapesBeyond2DImages) {
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, {16, 16, 8}, 1, 1);
  VkImage plain = make_image(info);
  EXPECT_EQ(view(plain, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 3, 1), VK_ERROR_FORMAT_NOT_SUPPORTED);
  info.flags = VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT;
  info.usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;  // a 3D image's slice as a render target
  VkImage compatible = make_image(info);
  EXPECT_EQ(view(compatible, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 3, 1), VK_SUCCESS);
  EXPECT_EQ(view(compatible, VK_IMAGE_VIEW_TYPE_2D_ARRAY, VK_FORMAT_R8G8B8A8_UNORM, 0, 8), VK_SUCCESS);
  EXPECT_EQ(view(compatible, VK_IMAGE_VIEW_TYPE_2D_ARRAY, VK_FORMAT_R8G8B8A8_UNORM, 4, 5), VK_ERROR_FORMAT_NOT_SUPPORTED);
  EXPECT_EQ(view(compatible, VK_IMAGE_VIEW_TYPE_2D, VK_FORMAT_R8G8B8A8_UNORM, 8, 1), VK_ERROR_FORMAT_NOT_SUPPORTED);
  EXPECT_EQ(view(compatible, VK_IMAGE_VIEW_TYPE_3D, VK_FORMAT_R8G8B8A8_UNORM, 0, 1), VK_SUCCESS);
  // A 1D colour image may be an attachment (a target one row high), a 1D depth image not.
  VkImageCreateInfo row = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_1D, {16, 1, 1}, 2, 1);
  row.usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  EXPECT_EQ(create_image(row), VK_SUCCESS);
  row.format = VK_FORMAT_D32_SFLOAT;
  row.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  EXPECT_EQ(create_image(row), VK_ERROR_FORMAT_NOT_SUPPORTED);
  VkImageCreateInfo flat = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  flat.flags = VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT;  // only for 3D images
  EXPECT_EQ(create_image(flat), VK_ERROR_FORMAT_NOT_SUPPORTED);
}

// VK_KHR_maintenance1: a copy between a 3D image and a 2D array maps extent.depth slices to as many
// layers; the counts must agree, else the region is skipped (the destination keeps its bytes).
TEST_F(VkZinkExtensions, CopiesBetween3DSlicesAnd2DArrayLayers) {
  VkImage volume = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, {8, 8, 4}, 1, 1));
  VkImage array = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {8, 8, 1}, 5, 1));
  uint8_t *up = nullptr, *down = nullptr;
  const VkDeviceSize slice = 8 * 8 * 4;
  VkBuffer upload = make_buffer(4 * slice, &up);
  VkBuffer readback = make_buffer(5 * slice, &down);
  for (VkDeviceSize i = 0; i < 4 * slice; ++i) up[i] = static_cast<uint8_t>(i * 7 + 3);
  std::memset(down, 0xee, 5 * slice);
  VkImageCopy copy{};
  copy.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  copy.srcOffset = {0, 0, 1};  // slices 1, 2, 3
  copy.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 2, 3};  // to layers 2, 3, 4
  copy.extent = {8, 8, 3};
  VkImageCopy mismatched = copy;
  mismatched.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 2};  // 2 layers for 3 slices: skipped
  begin();
  const VkBufferImageCopy in = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {8, 8, 4});
  vkCmdCopyBufferToImage(cb_, upload, volume, VK_IMAGE_LAYOUT_GENERAL, 1, &in);
  vkCmdCopyImage(cb_, volume, VK_IMAGE_LAYOUT_GENERAL, array, VK_IMAGE_LAYOUT_GENERAL, 1, &copy);
  vkCmdCopyImage(cb_, volume, VK_IMAGE_LAYOUT_GENERAL, array, VK_IMAGE_LAYOUT_GENERAL, 1, &mismatched);
  const VkBufferImageCopy out = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 5, {0, 0, 0}, {8, 8, 1});
  vkCmdCopyImageToBuffer(cb_, array, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &out);
  submit_and_wait();
  for (uint32_t layer = 0; layer < 2; ++layer) {  // never written: the image's zero-filled memory
    EXPECT_TRUE(std::all_of(down + layer * slice, down + (layer + 1) * slice, [](uint8_t b) { return b == 0; }))
        << "layer " << layer;
  }
  EXPECT_EQ(std::memcmp(down + 2 * slice, up + slice, 3 * slice), 0);  // slices 1-3 in layers 2-4
}

TEST_F(VkZinkExtensions, RenderPass2AndMultiviewCountsAreChecked) {
  VkAttachmentReference2 color{VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2};
  color.attachment = 0;
  color.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  color.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
  VkSubpassDescription2 subpass{VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  EXPECT_EQ(render_pass2(subpass, 1), VK_SUCCESS);
  subpass.viewMask = 0x3f;  // views 0-5: maxMultiviewViewCount 6
  EXPECT_EQ(render_pass2(subpass, 1), VK_SUCCESS);
  subpass.viewMask = 0x40;  // view 6
  EXPECT_EQ(render_pass2(subpass, 1), VK_ERROR_FEATURE_NOT_PRESENT);
  subpass.viewMask = 0x80000000u;
  EXPECT_EQ(render_pass2(subpass, 1), VK_ERROR_FEATURE_NOT_PRESENT);
  subpass.viewMask = 0;
  color.attachment = 1;  // past the one attachment
  EXPECT_EQ(render_pass2(subpass, 1), VK_ERROR_FEATURE_NOT_PRESENT);
  color.attachment = 0;
  subpass.pColorAttachments = nullptr;  // a count with no array
  EXPECT_EQ(render_pass2(subpass, 1), VK_ERROR_FEATURE_NOT_PRESENT);

  // The 1.0 create info's VkRenderPassMultiviewCreateInfo: one mask per subpass.
  VkAttachmentDescription attachment{0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT};
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{0, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, nullptr, 1, &ref};
  const uint32_t masks[2] = {3, 3};
  VkRenderPassMultiviewCreateInfo mv{VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO};
  mv.subpassCount = 2;  // the pass has one
  mv.pViewMasks = masks;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, &mv, 0, 1, &attachment, 1, &sub};
  VkRenderPass pass = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateRenderPass(device_, &info, nullptr, &pass), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(pass, VK_NULL_HANDLE);
  mv.subpassCount = 1;
  ASSERT_EQ(vkCreateRenderPass(device_, &info, nullptr, &pass), VK_SUCCESS);
  passes_.push_back(pass);
}

TEST_F(VkZinkExtensions, ImagelessFramebufferAttachmentInfosAreChecked) {
  VkAttachmentReference2 color{VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2};
  color.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  VkSubpassDescription2 subpass{VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color;
  ASSERT_EQ(render_pass2(subpass, 1), VK_SUCCESS);
  const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
  VkFramebufferAttachmentImageInfo image{VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO};
  image.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  image.width = image.height = 32;
  image.layerCount = 1;
  image.viewFormatCount = 1;
  image.pViewFormats = &format;
  VkFramebufferAttachmentsCreateInfo attachments{VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO};
  attachments.attachmentImageInfoCount = 1;
  attachments.pAttachmentImageInfos = &image;
  VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, &attachments};
  fb.flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT;
  fb.renderPass = passes_.back();
  fb.attachmentCount = 1;
  fb.width = fb.height = 32;
  fb.layers = 1;
  auto create = [&] {
    VkFramebuffer out = VK_NULL_HANDLE;
    const VkResult r = vkCreateFramebuffer(device_, &fb, nullptr, &out);
    if (out != VK_NULL_HANDLE) vkDestroyFramebuffer(device_, out, nullptr);
    return r;
  };
  EXPECT_EQ(create(), VK_SUCCESS);
  attachments.attachmentImageInfoCount = 2;  // the pass has one attachment
  EXPECT_EQ(create(), VK_ERROR_FEATURE_NOT_PRESENT);
  attachments.attachmentImageInfoCount = 1;
  image.width = 16;  // smaller than the framebuffer
  EXPECT_EQ(create(), VK_ERROR_FEATURE_NOT_PRESENT);
  image.width = 32;
  image.pViewFormats = nullptr;
  EXPECT_EQ(create(), VK_ERROR_FEATURE_NOT_PRESENT);
  image.pViewFormats = &format;
  fb.pNext = nullptr;  // IMAGELESS without the attachment infos
  EXPECT_EQ(create(), VK_ERROR_FEATURE_NOT_PRESENT);
}

}  // namespace
}  // namespace gsgpu::vk::test
