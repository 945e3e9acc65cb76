// Images through the loader: what the format queries answer, creation, memory requirements,
// binding, subresource layouts, views and samplers, and hostile create infos refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/gsgpu/vk/image_fixture.h"

namespace gsgpu::vk::test {
namespace {

TEST_F(VkImageTest, FormatPropertiesAnswerWhatTheTextureUnitAndOutputMergerDo) {
  VkFormatProperties p;
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_R8G8B8A8_UNORM, &p);
  const VkFormatFeatureFlags color = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                     VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                     VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT |
                                     VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                     VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
  EXPECT_EQ(p.optimalTilingFeatures, color);
  EXPECT_EQ(p.linearTilingFeatures, color);
  EXPECT_EQ(p.bufferFeatures, VkFormatFeatureFlags{VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT});  // a vertex format
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_R32G32B32_SFLOAT, &p);  // a vertex format only
  EXPECT_EQ(p.bufferFeatures, VkFormatFeatureFlags{VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT});
  EXPECT_EQ(p.optimalTilingFeatures, 0u);
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_B8G8R8A8_UNORM, &p);  // not fetched by the geometry engine
  EXPECT_EQ(p.bufferFeatures, 0u);
  for (VkFormat f : {VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
                     VK_FORMAT_R32G32B32A32_SFLOAT}) {
    vkGetPhysicalDeviceFormatProperties(physical_, f, &p);
    EXPECT_EQ(p.optimalTilingFeatures, color) << f;
  }
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_D32_SFLOAT, &p);
  EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
  EXPECT_FALSE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT);
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_D24_UNORM_S8_UINT, &p);
  EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
  // D32_SFLOAT_S8_UINT (DEPTH_FORMAT 130, IMAGE_DESC DEPTH_STENCIL / FLOAT): zink's Z32_FLOAT_S8X24_UINT.
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_D32_SFLOAT_S8_UINT, &p);
  EXPECT_EQ(p.optimalTilingFeatures,
            VkFormatFeatureFlags{VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                 VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                 VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                 VK_FORMAT_FEATURE_BLIT_DST_BIT});
  EXPECT_EQ(p.bufferFeatures, 0u);
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_R32_UINT, &p);  // sampled, nearest only
  EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT);
  EXPECT_FALSE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT);
  EXPECT_FALSE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT);
  // RGBA32 UINT / SINT: render targets whose words are stored unchanged (what zink needs for
  // EXT_texture_integer), never blended, sampled with nearest filtering only.
  for (VkFormat f : {VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT}) {
    vkGetPhysicalDeviceFormatProperties(physical_, f, &p);
    EXPECT_EQ(p.optimalTilingFeatures, color & ~VkFormatFeatureFlags{VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                                                      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT})
        << f;
  }
  for (VkFormat f : {VK_FORMAT_R8G8B8_UNORM, VK_FORMAT_BC1_RGB_UNORM_BLOCK, VK_FORMAT_S8_UINT, VK_FORMAT_UNDEFINED}) {
    vkGetPhysicalDeviceFormatProperties(physical_, f, &p);
    EXPECT_EQ(p.optimalTilingFeatures | p.linearTilingFeatures | p.bufferFeatures, 0u) << f;
  }
}

TEST_F(VkImageTest, ImageFormatPropertiesGiveTheLimitsAndRefuseWhatIsNotThere) {
  VkImageFormatProperties p;
  const VkImageUsageFlags sampled_target = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(physical_, VK_FORMAT_B8G8R8A8_SRGB, VK_IMAGE_TYPE_2D,
                                                     VK_IMAGE_TILING_OPTIMAL, sampled_target, 0, &p),
            VK_SUCCESS);
  EXPECT_EQ(p.maxExtent.width, 4096u);
  EXPECT_EQ(p.maxExtent.height, 4096u);
  EXPECT_EQ(p.maxExtent.depth, 1u);
  EXPECT_EQ(p.maxMipLevels, 13u);
  EXPECT_EQ(p.maxArrayLayers, 2048u);
  // A sampled attachment may have 2 or 4 samples: texelFetch reads one (docs/vulkan-driver.md "Multisampling").
  EXPECT_EQ(p.sampleCounts, VkSampleCountFlags{VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_2_BIT | VK_SAMPLE_COUNT_4_BIT});
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  EXPECT_EQ(p.maxResourceSize, memory.memoryHeaps[0].size);
  ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(physical_, VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TYPE_3D,
                                                     VK_IMAGE_TILING_LINEAR, VK_IMAGE_USAGE_SAMPLED_BIT, 0, &p),
            VK_SUCCESS);
  EXPECT_EQ(p.maxExtent.depth, 2048u);
  EXPECT_EQ(p.maxArrayLayers, 1u);
  EXPECT_EQ(p.maxMipLevels, 12u);
  struct Refused {
    VkFormat format;
    VkImageType type;
    VkImageUsageFlags usage;
    VkImageCreateFlags flags;
  };
  const Refused refused[] = {
      {VK_FORMAT_R8G8B8_UNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_SAMPLED_BIT, 0},
      {VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0},
      {VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_STORAGE_BIT, 0},
      {VK_FORMAT_R8G8B8A8_SNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, 0},  // no attachment format
      {VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT},
      {VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_CREATE_SPARSE_BINDING_BIT},
      {VK_FORMAT_R8G8B8A8_SNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0},
      {VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, 0},
      {VK_FORMAT_D32_SFLOAT, VK_IMAGE_TYPE_3D, VK_IMAGE_USAGE_SAMPLED_BIT, 0},
  };
  for (const Refused& r : refused) {
    p.maxMipLevels = 99;
    EXPECT_EQ(vkGetPhysicalDeviceImageFormatProperties(physical_, r.format, r.type, VK_IMAGE_TILING_OPTIMAL, r.usage,
                                                       r.flags, &p),
              VK_ERROR_FORMAT_NOT_SUPPORTED)
        << r.format << " " << r.type << " " << r.usage << " " << r.flags;
    EXPECT_EQ(p.maxMipLevels, 0u);
  }
  EXPECT_EQ(vkGetPhysicalDeviceImageFormatProperties(physical_, VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_TYPE_2D,
                                                     VK_IMAGE_TILING_OPTIMAL,
                                                     VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                                         VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT,
                                                     0, &p),
            VK_SUCCESS);
  VkPhysicalDeviceLimits limits;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  limits = props.limits;
  EXPECT_EQ(limits.maxImageDimension2D, 4096u);
  EXPECT_EQ(limits.maxImageDimension3D, 2048u);
  EXPECT_EQ(limits.maxImageDimensionCube, 4096u);
  EXPECT_EQ(limits.maxImageArrayLayers, 2048u);
}

TEST_F(VkImageTest, RequirementsBindingAndSubresourceLayoutsFollowTheLayout) {
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {100, 30, 1}, 3, 7);
  info.tiling = VK_IMAGE_TILING_LINEAR;
  VkImage image = make_image(info);
  VkMemoryRequirements reqs;
  vkGetImageMemoryRequirements(device_, image, &reqs);
  EXPECT_EQ(reqs.alignment, 4096u);
  EXPECT_EQ(reqs.size % 4096, 0u);
  EXPECT_EQ(reqs.memoryTypeBits, 1u);
  VkSubresourceLayout l;
  VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
  vkGetImageSubresourceLayout(device_, image, &sub, &l);
  EXPECT_EQ(l.offset, 0u);
  EXPECT_EQ(l.rowPitch, 448u);  // 400 bytes rounded up to 64
  EXPECT_EQ(l.arrayPitch, 448u * 30);
  EXPECT_EQ(l.size, 448u * 30);
  sub = {VK_IMAGE_ASPECT_COLOR_BIT, 1, 2};
  vkGetImageSubresourceLayout(device_, image, &sub, &l);
  const uint64_t level1 = (3 * 448 * 30 + 255) / 256 * 256;
  EXPECT_EQ(l.offset, level1 + 2 * 256 * 15);
  EXPECT_EQ(l.rowPitch, 256u);
  sub = {VK_IMAGE_ASPECT_COLOR_BIT, 6, 2};
  vkGetImageSubresourceLayout(device_, image, &sub, &l);
  EXPECT_LE(l.offset + l.size, reqs.size);
  sub = {VK_IMAGE_ASPECT_COLOR_BIT, 7, 0};  // no level 7
  testing::internal::CaptureStderr();
  vkGetImageSubresourceLayout(device_, image, &sub, &l);
  EXPECT_EQ(count(testing::internal::GetCapturedStderr(), "outside the image"), 1);
  EXPECT_EQ(l.rowPitch, 0u);

  // Two images in one allocation through vkBindImageMemory2; a third past its end is refused, and
  // binding one twice too.
  VkImage a = VK_NULL_HANDLE, b = VK_NULL_HANDLE, c = VK_NULL_HANDLE;
  VkImageCreateInfo small = image_info(VK_FORMAT_R32_SFLOAT, VK_IMAGE_TYPE_2D, {64, 64, 1}, 1, 1);
  ASSERT_EQ(vkCreateImage(device_, &small, nullptr, &a), VK_SUCCESS);
  ASSERT_EQ(vkCreateImage(device_, &small, nullptr, &b), VK_SUCCESS);
  ASSERT_EQ(vkCreateImage(device_, &small, nullptr, &c), VK_SUCCESS);
  images_.insert(images_.end(), {a, b, c});
  VkImageMemoryRequirementsInfo2 req_info{VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
  req_info.image = a;
  VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  dedicated.prefersDedicatedAllocation = dedicated.requiresDedicatedAllocation = VK_TRUE;
  VkMemoryRequirements2 reqs2{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated};
  auto get2 = reinterpret_cast<PFN_vkGetImageMemoryRequirements2>(
      vkGetDeviceProcAddr(device_, "vkGetImageMemoryRequirements2"));
  auto bind2 = reinterpret_cast<PFN_vkBindImageMemory2>(vkGetDeviceProcAddr(device_, "vkBindImageMemory2"));
  ASSERT_NE(get2, nullptr);
  ASSERT_NE(bind2, nullptr);
  get2(device_, &req_info, &reqs2);
  EXPECT_EQ(reqs2.memoryRequirements.size, 64u * 256);  // 64 rows of 256 bytes: 16 KiB
  EXPECT_FALSE(dedicated.prefersDedicatedAllocation);
  EXPECT_FALSE(dedicated.requiresDedicatedAllocation);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = 2 * reqs2.memoryRequirements.size;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
  memories_.push_back(memory);
  VkBindImageMemoryInfo binds[2] = {{VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, nullptr, a, memory, 0},
                                    {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, nullptr, b, memory,
                                     reqs2.memoryRequirements.size}};
  EXPECT_EQ(bind2(device_, 2, binds), VK_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vkBindImageMemory(device_, c, memory, reqs2.memoryRequirements.size + 4096),
            VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(vkBindImageMemory(device_, c, memory, UINT64_MAX & ~uint64_t{4095}), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(vkBindImageMemory(device_, a, memory, 0), VK_ERROR_OUT_OF_DEVICE_MEMORY);  // bound already
}

TEST_F(VkImageTest, HostileCreateInfosAreRefusedNotCrashed) {
  testing::internal::CaptureStderr();
  VkImage image = VK_NULL_HANDLE;
  auto refused = [&](VkImageCreateInfo info, VkResult expected) {
    image = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &image), expected)
        << info.extent.width << "x" << info.extent.height << "x" << info.extent.depth << " layers "
        << info.arrayLayers << " mips " << info.mipLevels;
    EXPECT_EQ(image, VK_NULL_HANDLE);
  };
  const VkResult unsupported = VK_ERROR_FORMAT_NOT_SUPPORTED;
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {0xffffffffu, 0xffffffffu, 1}, 1, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {0, 16, 1}, 1, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 6), unsupported);  // 5 levels
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 0xffffffffu), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 100000, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 2}, 1, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, {16, 16, 16}, 2, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_1D, {16, 2, 1}, 1, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1), unsupported);
  refused(image_info(static_cast<VkFormat>(0x7fffffff), VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1), unsupported);
  refused(image_info(VK_FORMAT_R8G8B8A8_UNORM, static_cast<VkImageType>(9), {16, 16, 1}, 1, 1), unsupported);
  VkImageCreateInfo multisampled = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  multisampled.samples = VK_SAMPLE_COUNT_8_BIT;  // 1, 2 and 4 are offered
  refused(multisampled, unsupported);
  // Within the limits but larger than any allocation: 4096 x 4096 x 16 bytes x 2048 layers.
  refused(image_info(VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_TYPE_2D, {4096, 4096, 1}, 2048, 13),
          VK_ERROR_OUT_OF_DEVICE_MEMORY);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCreateImage: "), 12) << log;
}

// Cube images: CUBE_COMPATIBLE needs a square 2D image of 6 or more layers, a cube view 6 layers of
// such an image (no cube arrays); anything else is VK_ERROR_FORMAT_NOT_SUPPORTED with a log line.
TEST_F(VkImageTest, CubeImagesAndViewsAreCheckedAgainstTheirShape) {
  testing::internal::CaptureStderr();
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 8, 1}, 6, 1);
  info.flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
  VkImage refused_image = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &refused_image), VK_ERROR_FORMAT_NOT_SUPPORTED);  // not square
  info.extent = {16, 16, 1};
  info.arrayLayers = 4;
  EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &refused_image), VK_ERROR_FORMAT_NOT_SUPPORTED);  // 4 layers
  EXPECT_EQ(refused_image, VK_NULL_HANDLE);
  info.arrayLayers = 12;
  const VkImage cube = make_image(info);
  info.flags = 0;
  const VkImage plain = make_image(info);
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = cube;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_CUBE;
  view_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 6, 6};  // the second cube
  VkImageView view = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_SUCCESS);
  views_.push_back(view);
  const auto refused = [&](VkImageViewCreateInfo bad) {
    VkImageView v = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImageView(device_, &bad, nullptr, &v), VK_ERROR_FORMAT_NOT_SUPPORTED);
    EXPECT_EQ(v, VK_NULL_HANDLE);
  };
  VkImageViewCreateInfo bad = view_info;
  bad.subresourceRange.layerCount = 5;
  refused(bad);
  bad.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 8, 6};  // layers 8..13 of 12
  refused(bad);
  bad = view_info;
  bad.viewType = VK_IMAGE_VIEW_TYPE_CUBE_ARRAY;  // imageCubeArray is not offered
  bad.subresourceRange.baseArrayLayer = 0;
  bad.subresourceRange.layerCount = 12;
  refused(bad);
  bad = view_info;
  bad.image = plain;  // not CUBE_COMPATIBLE
  refused(bad);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "CUBE_COMPATIBLE needs a square image"), 2) << log;
  EXPECT_EQ(count(log, "vkCreateImageView: "), 4) << log;
}

TEST_F(VkImageTest, ViewsAndSamplersAreCheckedAgainstTheirImage) {
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {64, 32, 1}, 4, 3);
  info.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
  VkImage image = make_image(info);
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = image;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
  view_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
  VkImageView view = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_SUCCESS);
  views_.push_back(view);
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;  // one level of one layer: a render target
  view_info.format = VK_FORMAT_B8G8R8A8_SRGB;  // MUTABLE_FORMAT, the same texel size
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 3, 1};
  ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_SUCCESS);
  views_.push_back(view);
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;  // layers 1..2 of two levels: valid, no descriptor
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 2, 1, 2};
  ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_SUCCESS);
  views_.push_back(view);

  testing::internal::CaptureStderr();
  auto refused = [&](VkImageViewCreateInfo bad) {
    VkImageView v = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImageView(device_, &bad, nullptr, &v), VK_ERROR_FORMAT_NOT_SUPPORTED);
    EXPECT_EQ(v, VK_NULL_HANDLE);
  };
  VkImageViewCreateInfo bad = view_info;
  bad.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 3, 1, 0, 1};  // no level 3
  refused(bad);
  bad.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 2, 3};  // layers 2..4 of 4
  refused(bad);
  bad.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 1, 0xfffffff0u, 0, 1};
  refused(bad);
  bad.subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
  refused(bad);
  bad = view_info;
  bad.viewType = VK_IMAGE_VIEW_TYPE_CUBE;
  bad.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  refused(bad);
  bad.viewType = VK_IMAGE_VIEW_TYPE_3D;
  refused(bad);
  bad.viewType = VK_IMAGE_VIEW_TYPE_2D;
  bad.format = VK_FORMAT_R32G32_SFLOAT;  // another texel size
  refused(bad);
  bad.format = VK_FORMAT_R8G8B8A8_UNORM;
  bad.components.r = static_cast<VkComponentSwizzle>(42);
  refused(bad);
  VkImage unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImage(device_, &info, nullptr, &unbound), VK_SUCCESS);
  images_.push_back(unbound);
  bad = view_info;
  bad.image = unbound;
  refused(bad);
  EXPECT_EQ(count(testing::internal::GetCapturedStderr(), "vkCreateImageView: "), 9);

  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sampler_info.magFilter = VK_FILTER_LINEAR;
  sampler_info.maxLod = VK_LOD_CLAMP_NONE;
  VkSampler sampler = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSampler(device_, &sampler_info, nullptr, &sampler), VK_SUCCESS);
  vkDestroySampler(device_, sampler, nullptr);
  sampler_info.compareEnable = VK_TRUE;  // shadow samplers are built; an unknown op is not
  sampler_info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  ASSERT_EQ(vkCreateSampler(device_, &sampler_info, nullptr, &sampler), VK_SUCCESS);
  vkDestroySampler(device_, sampler, nullptr);
  sampler_info.compareOp = static_cast<VkCompareOp>(99);
  testing::internal::CaptureStderr();
  sampler = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSampler(device_, &sampler_info, nullptr, &sampler), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(sampler, VK_NULL_HANDLE);
  EXPECT_EQ(count(testing::internal::GetCapturedStderr(), "compareOp"), 1);
}

// Vulkan 1.1's Y'CbCr entry points exist, but samplerYcbcrConversion is false: creating one is
// refused, and so is a sampler naming one; destroying VK_NULL_HANDLE is fine.
TEST_F(VkImageTest, YcbcrConversionsAreRefusedWhileTheFeatureIsOff) {
  auto create = reinterpret_cast<PFN_vkCreateSamplerYcbcrConversion>(
      vkGetDeviceProcAddr(device_, "vkCreateSamplerYcbcrConversion"));
  auto destroy = reinterpret_cast<PFN_vkDestroySamplerYcbcrConversion>(
      vkGetDeviceProcAddr(device_, "vkDestroySamplerYcbcrConversion"));
  ASSERT_NE(create, nullptr);
  ASSERT_NE(destroy, nullptr);
  VkSamplerYcbcrConversionCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO};
  info.format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
  VkSamplerYcbcrConversion conversion = reinterpret_cast<VkSamplerYcbcrConversion>(uintptr_t{8});
  testing::internal::CaptureStderr();
  EXPECT_EQ(create(device_, &info, nullptr, &conversion), VK_ERROR_OUT_OF_HOST_MEMORY);
  EXPECT_EQ(conversion, VK_NULL_HANDLE);
  destroy(device_, VK_NULL_HANDLE, nullptr);
  VkSamplerYcbcrConversionInfo use{VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO};
  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, &use};
  VkSampler sampler = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSampler(device_, &sampler_info, nullptr, &sampler), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(sampler, VK_NULL_HANDLE);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "samplerYcbcrConversion is not offered"), 2) << log;
}

// The texture unit reads D24S8 as its depth: a depth view of it can be a sampled image, a
// stencil-only view cannot (it has no IMAGE_DESC; vkUpdateDescriptorSets refuses it with a log line)
// but is still a valid view for attachments.
TEST_F(VkImageTest, StencilOnlyViewsOfD24S8AreNotSampled) {
  VkImageCreateInfo info = image_info(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  info.usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  VkImage image = make_image(info);
  VkImageView views[2] = {};
  const VkImageAspectFlags aspects[2] = {VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_ASPECT_STENCIL_BIT};
  for (int i = 0; i < 2; ++i) {
    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = info.format;
    view_info.subresourceRange = {aspects[i], 0, 1, 0, 1};
    ASSERT_EQ(vkCreateImageView(device_, &view_info, nullptr, &views[i]), VK_SUCCESS);
    views_.push_back(views[i]);
  }
  const VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_FRAGMENT_BIT,
                                             nullptr};
  VkDescriptorSetLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layout_info.bindingCount = 1;
  layout_info.pBindings = &binding;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDescriptorSetLayout(device_, &layout_info, nullptr, &layout), VK_SUCCESS);
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDescriptorPool(device_, &pool_info, nullptr, &pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(device_, &alloc, &set), VK_SUCCESS);
  std::string logs[2];
  for (int i = 0; i < 2; ++i) {
    const VkDescriptorImageInfo image_info{VK_NULL_HANDLE, views[i], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    w.pImageInfo = &image_info;
    testing::internal::CaptureStderr();
    vkUpdateDescriptorSets(device_, 1, &w, 0, nullptr);
    logs[i] = testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(logs[0], "");
  EXPECT_EQ(count(logs[1], "cannot describe the view"), 1) << logs[1];
  vkDestroyDescriptorPool(device_, pool, nullptr);
  vkDestroyDescriptorSetLayout(device_, layout, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
