// The one physical device: a VIRTUAL_GPU named "gsgpu", Vulkan 1.0, no optional features, one
// memory heap (the device's VRAM, host-visible and coherent: drv BOs are CPU-mapped) and one
// queue family. The queue family says TRANSFER only: transfers are what the driver executes so
// far (no pipelines, so neither GRAPHICS nor COMPUTE is honest yet).
#include <algorithm>
#include <cstring>

#include "gsgpu/vk/draw_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// The ID register's value ("GSGP") as the vendor; no PCI vendor id is ours.
constexpr uint32_t kDriverVersion = VK_MAKE_VERSION(0, 1, 0);

// What shaders can reach through the draw's constant buffer (binding_model.h, docs/compiler.md
// "Constant buffer"): 128 bytes of push constants and a VA for each of bindings 0-15 of sets 0-3,
// which the compiler lets shaders read as uniform buffers, or as texture records for sampled
// images, samplers and combined image samplers (element 0 of each binding), and compute shaders as
// storage buffers too. Storage images and input attachments have no shader access yet: 0
// (docs/vulkan-driver.md "Resource binding").
void fill_descriptor_limits(VkPhysicalDeviceLimits* limits) {
  const uint32_t table_entries = kMaxBoundSets * kTableBindings;  // 64
  limits->maxBoundDescriptorSets = kMaxBoundSets;
  limits->maxPushConstantsSize = kPushConstantBytes;
  limits->maxPerStageDescriptorUniformBuffers = table_entries;
  limits->maxDescriptorSetUniformBuffers = table_entries;
  limits->maxDescriptorSetUniformBuffersDynamic = table_entries;
  limits->maxPerStageDescriptorStorageBuffers = table_entries;
  limits->maxDescriptorSetStorageBuffers = table_entries;
  limits->maxDescriptorSetStorageBuffersDynamic = table_entries;
  limits->maxPerStageDescriptorSamplers = table_entries;
  limits->maxPerStageDescriptorSampledImages = table_entries;
  limits->maxDescriptorSetSamplers = table_entries;
  limits->maxDescriptorSetSampledImages = table_entries;
  limits->maxPerStageResources = table_entries;
  limits->maxUniformBufferRange = kMaxUniformBufferRange;
  limits->maxStorageBufferRange = kMaxStorageBufferRange;  // what a descriptor write accepts
}

// What the DRAW packet's blocks express (protocol/gsgpu/gsgpu.xml): 16 vertex bindings and
// attributes, attribute offsets up to 2047, strides up to 65535, 64 varying components, one
// viewport and one colour target of at most 4096 x 4096.
void fill_draw_limits(VkPhysicalDeviceLimits* limits) {
  limits->maxVertexInputAttributes = 16;
  limits->maxVertexInputBindings = 16;
  limits->maxVertexInputAttributeOffset = 2047;
  limits->maxVertexInputBindingStride = 65535;
  limits->maxVertexOutputComponents = 64;
  limits->maxFragmentInputComponents = 64;
  // Target 0 in PIPE_STATE, 1..7 in COLOR_TARGET records; fragment shaders write no storage
  // resources, so the combined count is the attachments'.
  limits->maxFragmentOutputAttachments = 8;
  limits->maxFragmentCombinedOutputResources = 8;
  limits->maxColorAttachments = 8;
  limits->maxViewports = 1;
  limits->maxViewportDimensions[0] = limits->maxViewportDimensions[1] = 4096;
  limits->viewportBoundsRange[0] = -32768.0f;
  limits->viewportBoundsRange[1] = 32767.0f;
  limits->maxFramebufferWidth = limits->maxFramebufferHeight = 4096;
  limits->maxFramebufferLayers = 1;
  // The output merger writes 1, 2 or 4 samples per pixel at the standard locations (PIPE_STATE
  // MULTISAMPLE, docs/graphics.md "Multisampling"). A subpass without attachments has no target to
  // give the device, so it is single-sampled.
  limits->framebufferColorSampleCounts = kAttachmentSampleCounts;
  limits->framebufferDepthSampleCounts = kAttachmentSampleCounts;
  limits->framebufferStencilSampleCounts = kAttachmentSampleCounts;
  limits->framebufferNoAttachmentsSampleCounts = VK_SAMPLE_COUNT_1_BIT;
  limits->standardSampleLocations = VK_TRUE;
  limits->maxSampleMaskWords = 1;
  limits->maxDrawIndexedIndexValue = UINT32_MAX;
  limits->maxDrawIndirectCount = 1;
  limits->subPixelPrecisionBits = 8;
  // The geometry engine clamps PointSize to [1, 64] and snaps it to 1/256 (docs/graphics.md "Points
  // and lines"): Vulkan's minimum range for largePoints.
  limits->pointSizeRange[0] = 1.0f;
  limits->pointSizeRange[1] = 64.0f;
  limits->pointSizeGranularity = 1.0f / 256;
  // The geometry engine clamps the width to [1, 64]; a rectangular line's half-width offsets are
  // snapped to 1/256, Bresenham lines round it to whole pixels.
  limits->lineWidthRange[0] = 1.0f;
  limits->lineWidthRange[1] = 64.0f;
  limits->lineWidthGranularity = 1.0f / 256;
  limits->maxClipDistances = 8;  // SHADER_STATE VERTEX.CLIP_DISTANCES + CULL_DISTANCES <= 8
  limits->maxCullDistances = 8;
  limits->maxCombinedClipAndCullDistances = 8;
}

// What a compute pipeline and a dispatch are checked against (compute_pipeline.cc, dispatch.cc): the
// device's group size and local memory, Vulkan's minimum group counts (compute_objects.h).
void fill_compute_limits(const drv::Caps& caps, VkPhysicalDeviceLimits* limits) {
  for (uint32_t& count : limits->maxComputeWorkGroupCount) count = kMaxComputeGroupCount;
  limits->maxComputeWorkGroupSize[0] = limits->maxComputeWorkGroupSize[1] = caps.max_work_group_size;
  limits->maxComputeWorkGroupSize[2] = std::min(kMaxComputeGroupSizeZ, caps.max_work_group_size);
  limits->maxComputeWorkGroupInvocations = caps.max_work_group_size;
  limits->maxComputeSharedMemorySize = caps.max_local_mem_size;
}

void fill_limits(const drv::Caps& caps, VkPhysicalDeviceLimits* limits) {
  *limits = {};
  // What the driver checks; pipelines do not exist yet, and what they alone need is 0.
  limits->maxMemoryAllocationCount = 65536;  // LocalConfig::max_bos
  limits->bufferImageGranularity = caps.page_size;
  limits->nonCoherentAtomSize = 64;
  limits->minMemoryMapAlignment = caps.page_size;
  limits->optimalBufferCopyOffsetAlignment = 4;
  limits->optimalBufferCopyRowPitchAlignment = 4;
  limits->minUniformBufferOffsetAlignment = kBufferOffsetAlignment;
  limits->minStorageBufferOffsetAlignment = kBufferOffsetAlignment;
  limits->minTexelBufferOffsetAlignment = kMinTexelBufferOffsetAlignment;
  limits->maxTexelBufferElements = kMaxTexelBufferElements;
  // Timestamps count the device clock's nominal cycles (gsgpu.xml CLOCK_LO / _HI): CFG_CLOCK_MHZ of
  // them per microsecond; every queue writes them (docs/vulkan-driver.md "Queries and events").
  limits->timestampPeriod = caps.clock_mhz != 0 ? 1000.0f / float(caps.clock_mhz) : 1.0f;
  limits->timestampComputeAndGraphics = VK_TRUE;
  // Images (image_layout.h): the output merger's 4096 x 4096 targets; cubes as large (the texture
  // unit's IMAGE_CUBE; no cube arrays); sampled images have one sample (the unit reads no
  // multisampled image).
  limits->maxImageDimension1D = kMaxImageDimension;
  limits->maxImageDimension2D = kMaxImageDimension;
  limits->maxImageDimension3D = kMaxImageDimension3D;
  limits->maxImageDimensionCube = kMaxImageDimension;
  limits->maxImageArrayLayers = kMaxArrayLayers;
  limits->maxSamplerLodBias = kMaxSamplerLodBias;  // the texture record's bias, added by the compiled shader
  limits->maxSamplerAnisotropy = 1.0f;
  // ConstOffset on samples and fetches: the image instructions' 4-bit offset fields (docs/isa.md §8b,
  // isa::kMinTexelOffset / kMaxTexelOffset). No gather: its offsets stay 0.
  limits->minTexelOffset = -8;
  limits->maxTexelOffset = 7;
  // Multisampled images are read by texelFetch of one sample (IMAGE_DESC SAMPLES_LOG2). A stencil
  // aspect is sampled at no count (the texture unit reads D24S8 as its depth; image_view.cc), so the
  // stencil count says only which images may be made with SAMPLED usage.
  limits->sampledImageColorSampleCounts = kAttachmentSampleCounts;
  limits->sampledImageIntegerSampleCounts = kAttachmentSampleCounts;
  limits->sampledImageDepthSampleCounts = kAttachmentSampleCounts;
  limits->sampledImageStencilSampleCounts = kAttachmentSampleCounts;
  fill_descriptor_limits(limits);
  fill_draw_limits(limits);
  fill_compute_limits(caps, limits);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceProperties(VkPhysicalDevice handle,
                                                               VkPhysicalDeviceProperties* props) {
  const PhysicalDevice* physical = from_handle<PhysicalDevice>(handle);
  *props = {};
  props->apiVersion = VK_API_VERSION_1_0;
  props->driverVersion = kDriverVersion;
  props->vendorID = physical->caps.chip_id;
  props->deviceID = physical->caps.version;
  props->deviceType = VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
  std::strncpy(props->deviceName, "gsgpu", VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1);
  std::memcpy(props->pipelineCacheUUID, "gsgpu-vk-0.1\0\0\0", VK_UUID_SIZE);
  fill_limits(physical->caps, &props->limits);
}

// The optional features that are implemented (docs/vulkan-driver.md "What the device reports");
// vkCreateDevice refuses any other.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceFeatures(VkPhysicalDevice, VkPhysicalDeviceFeatures* features) {
  *features = {};
  features->logicOp = VK_TRUE;  // the output merger's 16 ops on UNORM targets (PIPE_STATE OUTPUT.LOGIC_OP)
  // Each of the 8 colour attachments has its own blend state and write mask (PIPE_STATE for target 0,
  // COLOR_TARGET records for 1..7); zink gates EXT_blend_equation_separate, and with it OpenGL 2.0,
  // and GL 3.0's ARB_draw_buffers_blend on this feature.
  features->independentBlend = VK_TRUE;
  features->fillModeNonSolid = VK_TRUE;  // polygon modes LINE / POINT (PIPE_STATE RASTER.POLYGON_MODE)
  // The fragment depth clamped to the viewport's range (PIPE_STATE RASTER.DEPTH_CLAMP) and, unless
  // VK_EXT_depth_clip_enable says otherwise, no clipping at z = 0 / w (RASTER.NO_DEPTH_CLIP).
  features->depthClamp = VK_TRUE;
  // Occlusion queries count every sample that passes the output merger's tests, exactly
  // (docs/vulkan-driver.md "Queries and events").
  features->occlusionQueryPrecise = VK_TRUE;
  // gl_ClipDistance / gl_CullDistance: exported in vertex slots 69.., the geometry engine cuts and
  // culls by them (gsgpu/emu/graphics/user_clip.h).
  features->shaderClipDistance = VK_TRUE;
  features->shaderCullDistance = VK_TRUE;
  // Triangle setup clamps the depth bias (PIPE_STATE DEPTH_BIAS_CLAMP; gsgpu/emu/graphics/depth_bias.h).
  features->depthBiasClamp = VK_TRUE;
  features->largePoints = VK_TRUE;  // pointSizeRange [1, 64] (fill_limits)
  // Output 0's alpha replaced by 1 after alpha to coverage (PIPE_STATE MULTISAMPLE.ALPHA_TO_ONE).
  features->alphaToOne = VK_TRUE;
  // lineWidthRange [1, 64] (PIPE_STATE LINE_WIDTH): rectangles of that width, Bresenham lines that
  // many whole pixels across (docs/graphics.md "Points and lines").
  features->wideLines = VK_TRUE;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceMemoryProperties(VkPhysicalDevice handle,
                                                                     VkPhysicalDeviceMemoryProperties* props) {
  const PhysicalDevice* physical = from_handle<PhysicalDevice>(handle);
  *props = {};
  props->memoryHeapCount = 1;
  props->memoryHeaps[0].size = physical->caps.max_bo_size;
  props->memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
  props->memoryTypeCount = 1;
  props->memoryTypes[kMemoryTypeIndex].heapIndex = 0;
  props->memoryTypes[kMemoryTypeIndex].propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice, uint32_t* count,
                                                                          VkQueueFamilyProperties* props) {
  if (props == nullptr) {
    *count = 1;
    return;
  }
  if (*count == 0) return;
  props[0] = {};
  // Draws and dispatches run (docs/vulkan-driver.md "Draws", "Compute").
  props[0].queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  props[0].queueCount = 1;
  props[0].timestampValidBits = 64;  // the device clock is a 64-bit counter (gsgpu.xml CLOCK_LO / _HI)
  props[0].minImageTransferGranularity = {1, 1, 1};
  *count = 1;
}

// The formats of format.cc: the same features for both tilings (they share one linear layout); no
// buffer features (no texel buffers; vertex formats come with pipelines).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceFormatProperties(VkPhysicalDevice, VkFormat format,
                                                                     VkFormatProperties* props) {
  *props = {};
  props->optimalTilingFeatures = format_features(find_format(format));
  props->linearTilingFeatures = props->optimalTilingFeatures;
  // The formats the geometry engine fetches (pipeline.cc); without this bit zink splits every
  // attribute into 32-bit scalars. No texel-buffer feature: shaders do not read texel buffers.
  if (vertex_format_bytes(format) != 0) props->bufferFeatures = VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceImageFormatProperties(VkPhysicalDevice handle, VkFormat format,
                                                                              VkImageType type, VkImageTiling tiling,
                                                                              VkImageUsageFlags usage,
                                                                              VkImageCreateFlags flags,
                                                                              VkImageFormatProperties* props) {
  return image_format_properties(from_handle<PhysicalDevice>(handle)->caps, format, type, tiling, usage, flags, props);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceSparseImageFormatProperties(
    VkPhysicalDevice, VkFormat, VkImageType, VkSampleCountFlagBits, VkImageUsageFlags, VkImageTiling, uint32_t* count,
    VkSparseImageFormatProperties*) {
  *count = 0;  // no sparse resources
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkEnumerateDeviceLayerProperties(VkPhysicalDevice, uint32_t* count,
                                                                      VkLayerProperties*) {
  *count = 0;
  return VK_SUCCESS;
}

namespace {

// The device extensions: VK_KHR_swapchain (wsi.h), VK_KHR_timeline_semaphore (timeline.cc),
// VK_KHR_descriptor_update_template (descriptor_template.cc; its push-descriptor command belongs to
// VK_KHR_push_descriptor, not offered), and what zink requires (docs/vulkan-driver.md "zink"):
// maintenance1 (image.cc, image_view.cc, descriptor_set.cc, vkTrimCommandPoolKHR), maintenance2
// (image_view.cc), multiview (render_pass.cc, draw.cc, the compiler's ViewIndex),
// create_renderpass2 (render_pass2.cc), image_format_list (image.cc), imageless_framebuffer
// (framebuffer.cc); VK_EXT_host_query_reset (query_pool.cc).
const VkExtensionProperties kDeviceExtensions[] = {
    {VK_KHR_SWAPCHAIN_EXTENSION_NAME, VK_KHR_SWAPCHAIN_SPEC_VERSION},
    {VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME, VK_KHR_TIMELINE_SEMAPHORE_SPEC_VERSION},
    {VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME, VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_SPEC_VERSION},
    {VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME, VK_EXT_CUSTOM_BORDER_COLOR_SPEC_VERSION},  // sampler_state.cc
    // The texture unit swizzles the border colour like a texel of the view (texture_unit.cc).
    {VK_EXT_BORDER_COLOR_SWIZZLE_EXTENSION_NAME, VK_EXT_BORDER_COLOR_SWIZZLE_SPEC_VERSION},
    {VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_EXTENSION_NAME, VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_SPEC_VERSION},
    {VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME, VK_EXT_LINE_RASTERIZATION_SPEC_VERSION},  // pipeline.cc line_mode
    {VK_EXT_SCALAR_BLOCK_LAYOUT_EXTENSION_NAME, VK_EXT_SCALAR_BLOCK_LAYOUT_SPEC_VERSION},  // the compiler's ArrayStride
    {VK_KHR_MAINTENANCE_1_EXTENSION_NAME, VK_KHR_MAINTENANCE_1_SPEC_VERSION},
    {VK_KHR_MAINTENANCE_2_EXTENSION_NAME, VK_KHR_MAINTENANCE_2_SPEC_VERSION},
    {VK_KHR_MULTIVIEW_EXTENSION_NAME, VK_KHR_MULTIVIEW_SPEC_VERSION},
    {VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME, VK_KHR_CREATE_RENDERPASS_2_SPEC_VERSION},
    {VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME, VK_KHR_IMAGE_FORMAT_LIST_SPEC_VERSION},
    {VK_KHR_IMAGELESS_FRAMEBUFFER_EXTENSION_NAME, VK_KHR_IMAGELESS_FRAMEBUFFER_SPEC_VERSION},
    {VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME, VK_EXT_HOST_QUERY_RESET_SPEC_VERSION},
    {VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME, VK_EXT_PROVOKING_VERTEX_SPEC_VERSION},  // pipeline.cc provoking_last
    {VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME, VK_EXT_DEPTH_CLIP_ENABLE_SPEC_VERSION},  // pipeline.cc no_depth_clip
    {VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME, VK_EXT_TRANSFORM_FEEDBACK_SPEC_VERSION},  // transform_feedback.cc
};
constexpr uint32_t kDeviceExtensionCount = sizeof(kDeviceExtensions) / sizeof(kDeviceExtensions[0]);

}  // namespace

bool device_extension_offered(const char* name) {
  for (const VkExtensionProperties& extension : kDeviceExtensions) {
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  }
  return false;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkEnumerateDeviceExtensionProperties(VkPhysicalDevice, const char* layer,
                                                                          uint32_t* count,
                                                                          VkExtensionProperties* props) {
  if (layer != nullptr) return VK_ERROR_LAYER_NOT_PRESENT;
  if (props == nullptr) {
    *count = kDeviceExtensionCount;
    return VK_SUCCESS;
  }
  const uint32_t written = std::min(*count, kDeviceExtensionCount);
  std::copy(kDeviceExtensions, kDeviceExtensions + written, props);
  *count = written;
  return written < kDeviceExtensionCount ? VK_INCOMPLETE : VK_SUCCESS;
}

}  // namespace gsgpu::vk
