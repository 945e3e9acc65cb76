// The driver as the loader sees it: the physical device's identity, queue family and memory, and
// entry points that are absent rather than pretending.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/vk_test_util.h"

namespace gsgpu::vk::test {
namespace {

using VkLoader = VkFixture;

TEST_F(VkLoader, OnePhysicalDeviceNamedGsgpuOfTypeVirtualGpu) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  EXPECT_STREQ(props.deviceName, "gsgpu");
  EXPECT_EQ(props.deviceType, VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU);
  EXPECT_EQ(props.apiVersion, VK_API_VERSION_1_0);
  EXPECT_EQ(props.vendorID, 0x47534750u);  // the ID register, "GSGP"
  // The implemented optional features, and no other (docs/vulkan-driver.md "What the device reports").
  VkPhysicalDeviceFeatures features;
  vkGetPhysicalDeviceFeatures(physical_, &features);
  VkPhysicalDeviceFeatures expected{};
  expected.logicOp = VK_TRUE;
  expected.independentBlend = VK_TRUE;  // per colour attachment blend state and write mask (zink's GL 2.0)
  expected.depthClamp = VK_TRUE;        // PIPE_STATE RASTER.DEPTH_CLAMP
  expected.fillModeNonSolid = VK_TRUE;
  expected.occlusionQueryPrecise = VK_TRUE;  // the output merger counts every sample (query_pool.cc)
  expected.shaderClipDistance = VK_TRUE;
  expected.shaderCullDistance = VK_TRUE;
  expected.depthBiasClamp = VK_TRUE;  // triangle setup's DEPTH_BIAS_CLAMP
  expected.largePoints = VK_TRUE;     // pointSizeRange [1, 64]
  expected.alphaToOne = VK_TRUE;  // PIPE_STATE MULTISAMPLE.ALPHA_TO_ONE
  expected.wideLines = VK_TRUE;       // lineWidthRange [1, 64]
  const auto* flags = reinterpret_cast<const VkBool32*>(&features);
  const auto* expected_flags = reinterpret_cast<const VkBool32*>(&expected);
  for (size_t i = 0; i < sizeof(features) / sizeof(VkBool32); ++i) EXPECT_EQ(flags[i], expected_flags[i]) << i;
}

TEST_F(VkLoader, OneGraphicsQueueFamilyAndOneCoherentDeviceLocalMemoryType) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, nullptr);
  ASSERT_EQ(count, 1u);
  VkQueueFamilyProperties family;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, &family);
  EXPECT_EQ(family.queueFlags, VkQueueFlags{VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT});  // draws and dispatches run
  EXPECT_EQ(family.queueCount, 1u);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  ASSERT_EQ(memory.memoryTypeCount, 1u);
  ASSERT_EQ(memory.memoryHeapCount, 1u);
  EXPECT_EQ(memory.memoryTypes[0].propertyFlags, VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT});
  EXPECT_EQ(memory.memoryHeaps[0].flags, VkMemoryHeapFlags{VK_MEMORY_HEAP_DEVICE_LOCAL_BIT});
  // The default device: 256 MiB of VRAM less the driver's ring and fence page.
  EXPECT_GT(memory.memoryHeaps[0].size, uint64_t{200} << 20);
  EXPECT_LE(memory.memoryHeaps[0].size, uint64_t{256} << 20);
}

TEST_F(VkLoader, UnimplementedEntryPointsAreAbsent) {
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdResolveImage"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateImage"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdDraw"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdDrawIndirect"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateComputePipelines"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdDispatchIndirect"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateEvent"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdCopyQueryPoolResults"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateGraphicsPipelines"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdDispatchBase"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateSamplerYcbcrConversion"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCreateDescriptorUpdateTemplate"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkUpdateDescriptorSets"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdPushConstants"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdCopyBuffer"), nullptr);
  // vkCmdNextSubpass exists and refuses with a log line: every render pass has one subpass.
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkCmdNextSubpass"), nullptr);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool), VK_SUCCESS);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb), VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  testing::internal::CaptureStderr();
  vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("vkCmdNextSubpass: render passes have one subpass"),
            std::string::npos);
  EXPECT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  vkDestroyCommandPool(device_, pool, nullptr);
  // The device extensions: the first two in this order, and those of samplers and lines.
  uint32_t count = 0;
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count, nullptr), VK_SUCCESS);
  ASSERT_GE(count, 5u);
  std::vector<VkExtensionProperties> extensions(count);
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count, extensions.data()), VK_SUCCESS);
  const auto offered = [&](const char* name) {
    for (const VkExtensionProperties& e : extensions)
      if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
  };
  EXPECT_TRUE(offered(VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME));
  EXPECT_TRUE(offered(VK_EXT_BORDER_COLOR_SWIZZLE_EXTENSION_NAME));  // texture_unit.cc border_colour
  EXPECT_TRUE(offered(VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_EXTENSION_NAME));
  EXPECT_TRUE(offered(VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME));
  EXPECT_TRUE(offered(VK_EXT_SCALAR_BLOCK_LAYOUT_EXTENSION_NAME));
  EXPECT_STREQ(extensions[0].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  EXPECT_STREQ(extensions[1].extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  EXPECT_STREQ(extensions[2].extensionName, VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME);
  for (const char* name : {VK_KHR_MAINTENANCE_1_EXTENSION_NAME, VK_KHR_MAINTENANCE_2_EXTENSION_NAME,
                           VK_KHR_MULTIVIEW_EXTENSION_NAME, VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME,
                           VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME, VK_KHR_IMAGELESS_FRAMEBUFFER_EXTENSION_NAME}) {
    EXPECT_TRUE(offered(name)) << name;  // what zink requires (docs/vulkan-driver.md "zink")
  }
  EXPECT_TRUE(offered(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME));  // query_pool.cc
  EXPECT_TRUE(offered(VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME));   // pipeline.cc provoking_last
  EXPECT_TRUE(offered(VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME));  // pipeline.cc no_depth_clip
}

// A feature the device does not report is refused, in pEnabledFeatures or in a
// VkPhysicalDeviceFeatures2 of the chain; a reported one (logicOp) is accepted either way.
TEST_F(VkLoader, EnablingAnUnofferedFeatureIsRefused) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures features{};
  features.robustBufferAccess = VK_TRUE;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.pEnabledFeatures = &features;
  VkDevice device = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDevice(physical_, &info, nullptr, &device), VK_ERROR_FEATURE_NOT_PRESENT);
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features2.features.robustBufferAccess = VK_TRUE;
  info.pEnabledFeatures = nullptr;
  info.pNext = &features2;
  EXPECT_EQ(vkCreateDevice(physical_, &info, nullptr, &device), VK_ERROR_FEATURE_NOT_PRESENT);
  features2.features = {};
  features2.features.logicOp = VK_TRUE;
  ASSERT_EQ(vkCreateDevice(physical_, &info, nullptr, &device), VK_SUCCESS);
  vkDestroyDevice(device, nullptr);
  info.pNext = nullptr;
  info.pEnabledFeatures = &features2.features;
  ASSERT_EQ(vkCreateDevice(physical_, &info, nullptr, &device), VK_SUCCESS);
  vkDestroyDevice(device, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
