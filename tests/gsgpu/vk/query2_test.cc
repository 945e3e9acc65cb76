// The extensible physical-device queries through the loader, on an instance that enables
// VK_KHR_get_physical_device_properties2 (the driver reports Vulkan 1.0): each *2 answer equals the
// 1.0 answer, the Vulkan 1.1 structures of a chain are filled honestly (features false), and a
// structure the driver does not know is skipped with the rest of the chain still filled.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>

namespace gsgpu::vk::test {
namespace {

class VkQuery2 : public ::testing::Test {
 protected:
  void SetUp() override {
    uint32_t count = 0;
    ASSERT_EQ(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr), VK_SUCCESS);
    ASSERT_GE(count, 1u);
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_0;
    const char* extension = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
    ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance_), VK_SUCCESS);
    count = 1;
    ASSERT_EQ(vkEnumeratePhysicalDevices(instance_, &count, &physical_), VK_SUCCESS);
    properties2_ = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2KHR>(
        vkGetInstanceProcAddr(instance_, "vkGetPhysicalDeviceProperties2KHR"));
    features2_ = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2KHR>(
        vkGetInstanceProcAddr(instance_, "vkGetPhysicalDeviceFeatures2KHR"));
    ASSERT_NE(properties2_, nullptr);
    ASSERT_NE(features2_, nullptr);
  }
  void TearDown() override {
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }
  template <typename T>
  T proc(const char* name) {
    return reinterpret_cast<T>(vkGetInstanceProcAddr(instance_, name));
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  PFN_vkGetPhysicalDeviceProperties2KHR properties2_ = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2KHR features2_ = nullptr;
};

// A structure of an extension the driver does not offer, with a marker the driver must not touch.
struct Unknown {
  VkStructureType sType;
  void* pNext;
  uint32_t marker;
};

TEST_F(VkQuery2, Properties2EqualsTheOneZeroAnswerAndFillsTheOneOneChain) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  VkPhysicalDeviceProtectedMemoryProperties protected_memory{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_PROPERTIES};
  protected_memory.protectedNoFault = VK_TRUE;  // must come back false
  VkPhysicalDeviceMultiviewProperties multiview{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES,
                                                &protected_memory};
  multiview.maxMultiviewViewCount = 99;
  VkPhysicalDevicePointClippingProperties clipping{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES,
                                                   &multiview};
  clipping.pointClippingBehavior = VK_POINT_CLIPPING_BEHAVIOR_USER_CLIP_PLANES_ONLY;  // must be overwritten
  // The unknown structure sits in the middle: what follows it must still be filled.
  Unknown unknown{static_cast<VkStructureType>(1000999000), &clipping, 0x5a5a5a5au};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &unknown};
  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &subgroup};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, &m3};
  id.deviceLUIDValid = VK_TRUE;
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
  properties2_(physical_, &props2);

  EXPECT_EQ(std::memcmp(&props2.properties, &props, sizeof props), 0);
  EXPECT_EQ(props2.properties.apiVersion, VK_API_VERSION_1_0);
  EXPECT_EQ(std::memcmp(id.deviceUUID, "gsgpu-dv", 8), 0);
  EXPECT_EQ(std::memcmp(id.driverUUID, "gsgpu-vk", 8), 0);
  EXPECT_FALSE(id.deviceLUIDValid);
  EXPECT_EQ(id.pNext, &m3);  // the chain is kept
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  EXPECT_EQ(m3.maxMemoryAllocationSize, memory.memoryHeaps[0].size);
  EXPECT_EQ(m3.maxPerSetDescriptors, 16u);  // a set's table: bindings 0-15 reach shaders
  EXPECT_GT(subgroup.subgroupSize, 0u);
  EXPECT_EQ(subgroup.supportedStages, 0u);
  EXPECT_EQ(subgroup.supportedOperations, 0u);
  EXPECT_EQ(unknown.marker, 0x5a5a5a5au);
  EXPECT_EQ(unknown.pNext, &clipping);
  EXPECT_EQ(clipping.pointClippingBehavior, VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES);
  EXPECT_EQ(multiview.maxMultiviewViewCount, 6u);  // VK_KHR_multiview: views 0-5 (the spec's minimum)
  EXPECT_EQ(multiview.maxMultiviewInstanceIndex, (1u << 27) - 1);
  EXPECT_FALSE(protected_memory.protectedNoFault);
}

TEST_F(VkQuery2, Features2AreTheOfferedOnesAndAnUnknownStructureIsSkipped) {
  VkPhysicalDeviceShaderDrawParametersFeatures draw{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES};
  VkPhysicalDeviceSamplerYcbcrConversionFeatures ycbcr{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES, &draw};
  VkPhysicalDeviceProtectedMemoryFeatures protected_memory{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES,
                                                           &ycbcr};
  Unknown unknown{static_cast<VkStructureType>(1000999001), &protected_memory, 0xa5a5a5a5u};
  VkPhysicalDeviceVariablePointersFeatures pointers{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES,
                                                    &unknown};
  VkPhysicalDeviceMultiviewFeatures multiview{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES, &pointers};
  VkPhysicalDevice16BitStorageFeatures storage{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, &multiview};
  // Every VkBool32 set true first: the driver must write each one it does not offer false.
  storage.storageBuffer16BitAccess = storage.storagePushConstant16 = VK_TRUE;
  multiview.multiview = multiview.multiviewTessellationShader = VK_TRUE;
  pointers.variablePointers = pointers.variablePointersStorageBuffer = VK_TRUE;
  protected_memory.protectedMemory = VK_TRUE;
  ycbcr.samplerYcbcrConversion = VK_TRUE;
  draw.shaderDrawParameters = VK_TRUE;
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &storage};
  std::memset(&features2.features, 0xff, sizeof features2.features);
  features2_(physical_, &features2);

  VkPhysicalDeviceFeatures one_zero;  // the 1.0 answer, which the chain's structure repeats
  vkGetPhysicalDeviceFeatures(physical_, &one_zero);
  EXPECT_EQ(std::memcmp(&features2.features, &one_zero, sizeof one_zero), 0);
  EXPECT_FALSE(storage.storageBuffer16BitAccess);
  EXPECT_FALSE(storage.storagePushConstant16);
  EXPECT_TRUE(multiview.multiview);  // VK_KHR_multiview: render passes (no geometry or tessellation stages)
  EXPECT_FALSE(multiview.multiviewTessellationShader);
  EXPECT_FALSE(pointers.variablePointers);
  EXPECT_FALSE(pointers.variablePointersStorageBuffer);
  EXPECT_EQ(unknown.marker, 0xa5a5a5a5u);
  EXPECT_FALSE(protected_memory.protectedMemory);
  EXPECT_FALSE(ycbcr.samplerYcbcrConversion);
  EXPECT_FALSE(draw.shaderDrawParameters);
}

// VK_EXT_custom_border_color: both features, and a limit of at least the spec's 32 samplers.
TEST_F(VkQuery2, CustomBorderColourFeaturesAndLimit) {
  VkPhysicalDeviceCustomBorderColorFeaturesEXT features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &features};
  features2_(physical_, &features2);
  EXPECT_TRUE(features.customBorderColors);
  EXPECT_TRUE(features.customBorderColorWithoutFormat);
  VkPhysicalDeviceCustomBorderColorPropertiesEXT props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &props};
  properties2_(physical_, &props2);
  EXPECT_GE(props.maxCustomBorderColorSamplers, 32u);
}

// VK_EXT_line_rasterization: rectangular and Bresenham lines, stippled in both modes, no smooth ones; 8 bits.
TEST_F(VkQuery2, LineRasterizationFeaturesAndPrecision) {
  VkPhysicalDeviceLineRasterizationFeaturesEXT features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
  std::memset(&features.rectangularLines, 0xff, 6 * sizeof(VkBool32));  // every flag must be written
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &features};
  features2_(physical_, &features2);
  EXPECT_TRUE(features.rectangularLines);
  EXPECT_TRUE(features.bresenhamLines);
  EXPECT_FALSE(features.smoothLines);
  EXPECT_TRUE(features.stippledRectangularLines);
  EXPECT_TRUE(features.stippledBresenhamLines);
  EXPECT_FALSE(features.stippledSmoothLines);
  VkPhysicalDeviceLineRasterizationPropertiesEXT props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &props};
  properties2_(physical_, &props2);
  EXPECT_EQ(props.lineSubPixelPrecisionBits, 8u);
}

// VK_EXT_depth_clip_enable: clipping at z = 0 / w apart from depthClamp (RASTER.NO_DEPTH_CLIP;
// drawn by VkDepthClipEnable.ClipAndClampApartMatchLavapipe in gsgpu_vk_draw).
TEST_F(VkQuery2, DepthClipEnableFeature) {
  VkPhysicalDeviceDepthClipEnableFeaturesEXT clip{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &clip};
  features2_(physical_, &features2);
  EXPECT_TRUE(clip.depthClipEnable);
}

TEST_F(VkQuery2, ScalarBlockLayoutFeature) {
  VkPhysicalDeviceScalarBlockLayoutFeaturesEXT scalar{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &scalar};
  features2_(physical_, &features2);
  EXPECT_TRUE(scalar.scalarBlockLayout);
}

TEST_F(VkQuery2, MemoryQueueFormatAndImageQueriesEqualTheOneZeroAnswers) {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  VkPhysicalDeviceMemoryProperties2 memory2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  proc<PFN_vkGetPhysicalDeviceMemoryProperties2KHR>("vkGetPhysicalDeviceMemoryProperties2KHR")(physical_, &memory2);
  EXPECT_EQ(std::memcmp(&memory2.memoryProperties, &memory, sizeof memory), 0);

  auto queues2 =
      proc<PFN_vkGetPhysicalDeviceQueueFamilyProperties2KHR>("vkGetPhysicalDeviceQueueFamilyProperties2KHR");
  uint32_t count = 0;
  queues2(physical_, &count, nullptr);
  ASSERT_EQ(count, 1u);
  VkQueueFamilyProperties2 family2[2] = {{VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2},
                                         {VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2}};
  count = 2;
  queues2(physical_, &count, family2);
  EXPECT_EQ(count, 1u);
  VkQueueFamilyProperties family;
  uint32_t one = 1;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &one, &family);
  EXPECT_EQ(std::memcmp(&family2[0].queueFamilyProperties, &family, sizeof family), 0);
  EXPECT_EQ(family2[0].queueFamilyProperties.queueFlags,
            VkQueueFlags{VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT});

  VkFormatProperties2 format2{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2};
  std::memset(&format2.formatProperties, 0xff, sizeof format2.formatProperties);
  proc<PFN_vkGetPhysicalDeviceFormatProperties2KHR>("vkGetPhysicalDeviceFormatProperties2KHR")(
      physical_, VK_FORMAT_R8G8B8A8_UNORM, &format2);
  VkFormatProperties format;
  vkGetPhysicalDeviceFormatProperties(physical_, VK_FORMAT_R8G8B8A8_UNORM, &format);
  EXPECT_EQ(std::memcmp(&format2.formatProperties, &format, sizeof format), 0);
  EXPECT_NE(format.optimalTilingFeatures, 0u);

  // The 1.0 answer; an external memory handle type (none is offered) makes it unsupported, and the
  // external properties in the output chain are written as zeros.
  VkPhysicalDeviceImageFormatInfo2 image_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
  image_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  image_info.type = VK_IMAGE_TYPE_2D;
  image_info.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  VkExternalImageFormatProperties external{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  std::memset(&external.externalMemoryProperties, 0xff, sizeof external.externalMemoryProperties);
  VkImageFormatProperties2 image2{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, &external};
  auto image_props2 =
      proc<PFN_vkGetPhysicalDeviceImageFormatProperties2KHR>("vkGetPhysicalDeviceImageFormatProperties2KHR");
  EXPECT_EQ(image_props2(physical_, &image_info, &image2), VK_SUCCESS);
  VkImageFormatProperties image;
  EXPECT_EQ(vkGetPhysicalDeviceImageFormatProperties(physical_, image_info.format, image_info.type,
                                                     image_info.tiling, image_info.usage, 0, &image),
            VK_SUCCESS);
  EXPECT_EQ(std::memcmp(&image2.imageFormatProperties, &image, sizeof image), 0);
  EXPECT_EQ(external.externalMemoryProperties.externalMemoryFeatures, 0u);
  EXPECT_EQ(external.externalMemoryProperties.compatibleHandleTypes, 0u);
  VkPhysicalDeviceExternalImageFormatInfo handle{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
  handle.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  image_info.pNext = &handle;
  EXPECT_EQ(image_props2(physical_, &image_info, &image2), VK_ERROR_FORMAT_NOT_SUPPORTED);
  image_info.pNext = nullptr;
  image_info.format = VK_FORMAT_R8G8B8_UNORM;
  EXPECT_EQ(image_props2(physical_, &image_info, &image2), VK_ERROR_FORMAT_NOT_SUPPORTED);
}

// An instance asking for Vulkan 1.1 reaches the driver's core-named query: the loader calls the
// driver's vkGetPhysicalDeviceProperties2 (the ID structure carries the driver's UUID, which the
// loader's own 1.0 emulation could not write).
TEST(VkQuery2OnOneOneInstance, CoreNamedProperties2ReachesTheDriver) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance), VK_SUCCESS);
  uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  ASSERT_EQ(vkEnumeratePhysicalDevices(instance, &count, &physical), VK_SUCCESS);
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
  vkGetPhysicalDeviceProperties2(physical, &props2);
  EXPECT_EQ(props2.properties.apiVersion, VK_API_VERSION_1_0);
  EXPECT_EQ(std::memcmp(id.driverUUID, "gsgpu-vk", 8), 0);
  vkDestroyInstance(instance, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
