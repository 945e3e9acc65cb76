// The extensible physical-device queries (Vulkan 1.1 core names, offered on this 1.0 driver through
// the instance extension VK_KHR_get_physical_device_properties2): each answers as its 1.0 query and
// then walks the output pNext chain. The structures Vulkan 1.1 defines are filled honestly (every
// feature false: none is implemented); a structure the driver does not know is skipped, as the spec
// requires. docs/vulkan-driver.md "Extensible queries" lists them.
#include <algorithm>
#include <cstring>

#include "gsgpu/vk/draw_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

constexpr uint32_t kMaxCustomBorderColorSamplers = 65536;
// VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT (query_pool.cc, query_commands.cc).
constexpr VkBool32 kXfbQueriesOffered = VK_TRUE;

// Resets a chained output structure to its zero value (every VkBool32 false, every limit 0) and
// keeps its sType and pNext, so the rest of the chain stays reachable.
template <typename T>
T* reset_keeping_chain(VkBaseOutStructure* base) {
  T* out = reinterpret_cast<T*>(base);
  VkBaseOutStructure* next = base->pNext;
  const VkStructureType type = base->sType;
  *out = T{};
  out->sType = type;
  out->pNext = next;
  return out;
}

// A UUID of 16 bytes from a text tag and two 32-bit words (stable for one device shape).
void make_uuid(const char* tag, uint32_t a, uint32_t b, uint8_t* uuid) {
  std::memset(uuid, 0, VK_UUID_SIZE);
  std::memcpy(uuid, tag, std::min<size_t>(std::strlen(tag), 8));
  std::memcpy(uuid + 8, &a, 4);
  std::memcpy(uuid + 12, &b, 4);
}

void fill_property(const PhysicalDevice& physical, VkBaseOutStructure* s) {
  switch (s->sType) {
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES: {
      auto* id = reset_keeping_chain<VkPhysicalDeviceIDProperties>(s);
      make_uuid("gsgpu-dv", physical.caps.chip_id, physical.caps.version, id->deviceUUID);
      make_uuid("gsgpu-vk", 0, 1, id->driverUUID);
      id->deviceLUIDValid = VK_FALSE;  // no Windows LUID
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES: {
      auto* m3 = reset_keeping_chain<VkPhysicalDeviceMaintenance3Properties>(s);
      m3->maxPerSetDescriptors = kTableBindings;  // a set's table: bindings 0-15 reach shaders
      m3->maxMemoryAllocationSize = physical.caps.max_bo_size;  // one allocation is one BO
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES: {
      auto* sub = reset_keeping_chain<VkPhysicalDeviceSubgroupProperties>(s);
      sub->subgroupSize = physical.caps.warp_width;  // a warp; no stage runs shaders yet
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES:
      reset_keeping_chain<VkPhysicalDevicePointClippingProperties>(s)->pointClippingBehavior =
          VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;  // the default; nothing draws yet
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES: {
      // render_pass.cc replays a subpass per view; instances are numbered in 32 bits, the spec's
      // minimum 2^27 - 1 is reported.
      auto* mv = reset_keeping_chain<VkPhysicalDeviceMultiviewProperties>(s);
      mv->maxMultiviewViewCount = kMaxMultiviewViews;
      mv->maxMultiviewInstanceIndex = (1u << 27) - 1;
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_PROPERTIES:
      reset_keeping_chain<VkPhysicalDeviceProtectedMemoryProperties>(s);  // protectedNoFault false
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES:
      // timeline.cc keeps 64-bit values and bounds no distance between them.
      reset_keeping_chain<VkPhysicalDeviceTimelineSemaphoreProperties>(s)->maxTimelineSemaphoreValueDifference =
          UINT64_MAX;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_PROPERTIES_EXT:
      // Each sampler carries its colour in its own SAMPLER_DESC: no table to run out of. The
      // number is what the driver promises, not a count it keeps.
      reset_keeping_chain<VkPhysicalDeviceCustomBorderColorPropertiesEXT>(s)->maxCustomBorderColorSamplers =
          kMaxCustomBorderColorSamplers;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_PROPERTIES_EXT:
      // Line endpoints are snapped as every vertex: 8 sub-pixel bits.
      reset_keeping_chain<VkPhysicalDeviceLineRasterizationPropertiesEXT>(s)->lineSubPixelPrecisionBits = 8;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_PROPERTIES_EXT:
      // Each pipeline's PIPE_STATE carries its own mode; transform feedback's order with the last
      // vertex provoking is GL's, which this property does not promise.
      reset_keeping_chain<VkPhysicalDeviceProvokingVertexPropertiesEXT>(s)->provokingVertexModePerPipeline = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_PROPERTIES_EXT: {
      // The device's XFB_STATE (docs/graphics.md "Transform feedback"): one stream, four buffers of up
      // to 2^32 - 4 bytes (XFB_BUFFER SIZE), strides up to 2048 bytes; the stream query is
      // transform_feedback.cc's; vkCmdDrawIndirectByteCountEXT is the DRAW_BYTE_COUNT packet (draw.cc).
      auto* p = reset_keeping_chain<VkPhysicalDeviceTransformFeedbackPropertiesEXT>(s);
      p->maxTransformFeedbackStreams = 1;
      p->maxTransformFeedbackBuffers = kMaxXfbBuffers;
      p->maxTransformFeedbackBufferSize = UINT32_MAX & ~3u;
      p->maxTransformFeedbackStreamDataSize = 512;
      p->maxTransformFeedbackBufferDataSize = 512;
      p->maxTransformFeedbackBufferDataStride = kMaxXfbVertexStride;
      p->transformFeedbackQueries = kXfbQueriesOffered;
      p->transformFeedbackDraw = VK_TRUE;
      break;
    }
    default:
      break;  // unknown to the driver: left as the application wrote it
  }
}

void fill_feature(VkBaseOutStructure* s) {
  switch (s->sType) {
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
      reset_keeping_chain<VkPhysicalDevice16BitStorageFeatures>(s);
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES:  // render passes only: no geometry / tessellation
      reset_keeping_chain<VkPhysicalDeviceMultiviewFeatures>(s)->multiview = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES:  // framebuffer.cc
      reset_keeping_chain<VkPhysicalDeviceImagelessFramebufferFeatures>(s)->imagelessFramebuffer = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES:
      reset_keeping_chain<VkPhysicalDeviceVariablePointersFeatures>(s);
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES:
      reset_keeping_chain<VkPhysicalDeviceProtectedMemoryFeatures>(s);
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES:
      reset_keeping_chain<VkPhysicalDeviceSamplerYcbcrConversionFeatures>(s);
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES:
      reset_keeping_chain<VkPhysicalDeviceShaderDrawParametersFeatures>(s);
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT: {
      // The texture unit returns the colour's words as given, so no format is needed.
      auto* border = reset_keeping_chain<VkPhysicalDeviceCustomBorderColorFeaturesEXT>(s);
      border->customBorderColors = VK_TRUE;
      border->customBorderColorWithoutFormat = VK_TRUE;
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BORDER_COLOR_SWIZZLE_FEATURES_EXT: {
      // The texture unit reads a border colour as a texel of the view's format, then applies the
      // view's swizzle, so no VkSamplerBorderColorComponentMappingCreateInfoEXT is needed (ignored).
      auto* swizzle = reset_keeping_chain<VkPhysicalDeviceBorderColorSwizzleFeaturesEXT>(s);
      swizzle->borderColorSwizzle = VK_TRUE;
      swizzle->borderColorSwizzleFromImage = VK_TRUE;
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT: {
      // The rasterizer's rectangular and Bresenham lines (docs/graphics.md "Points and lines"),
      // stippled in both modes (PIPE_STATE LINE_STIPPLE, "Line stipple"); no smooth lines.
      auto* lines = reset_keeping_chain<VkPhysicalDeviceLineRasterizationFeaturesEXT>(s);
      lines->rectangularLines = VK_TRUE;
      lines->bresenhamLines = VK_TRUE;
      lines->stippledRectangularLines = VK_TRUE;
      lines->stippledBresenhamLines = VK_TRUE;
      break;
    }
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT:
      // The geometry engine's RASTER.PROVOKING_LAST (gsgpu/emu/graphics/primitive_assembly.h);
      // transformFeedbackPreservesProvokingVertex stays false (not tested against a reference).
      reset_keeping_chain<VkPhysicalDeviceProvokingVertexFeaturesEXT>(s)->provokingVertexLast = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT:
      // Clipping at z = 0 / w and the depth clamp are separate bits (RASTER.NO_DEPTH_CLIP,
      // RASTER.DEPTH_CLAMP); zink 22.3 answers PIPE_CAP_DEPTH_CLIP_DISABLE, GL's ARB_depth_clamp, from it.
      reset_keeping_chain<VkPhysicalDeviceDepthClipEnableFeaturesEXT>(s)->depthClipEnable = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT:
      // transform_feedback.cc; one vertex stream, so no geometryStreams (no geometry shaders either).
      reset_keeping_chain<VkPhysicalDeviceTransformFeedbackFeaturesEXT>(s)->transformFeedback = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES:
      // The compiler reads blocks at their Offset / ArrayStride whatever the alignment (uniform
      // buffers and push constants; storage buffers are not offered at all).
      reset_keeping_chain<VkPhysicalDeviceScalarBlockLayoutFeatures>(s)->scalarBlockLayout = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES:  // timeline.cc
      reset_keeping_chain<VkPhysicalDeviceTimelineSemaphoreFeatures>(s)->timelineSemaphore = VK_TRUE;
      break;
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES:  // query_pool.cc vkResetQueryPool
      reset_keeping_chain<VkPhysicalDeviceHostQueryResetFeatures>(s)->hostQueryReset = VK_TRUE;
      break;
    default:
      break;  // unknown: skipped
  }
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceProperties2(VkPhysicalDevice handle,
                                                                VkPhysicalDeviceProperties2* props) {
  gsgpu_vkGetPhysicalDeviceProperties(handle, &props->properties);
  const PhysicalDevice& physical = *from_handle<PhysicalDevice>(handle);
  for (auto* s = static_cast<VkBaseOutStructure*>(props->pNext); s != nullptr; s = s->pNext) fill_property(physical, s);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceFeatures2(VkPhysicalDevice handle,
                                                              VkPhysicalDeviceFeatures2* features) {
  gsgpu_vkGetPhysicalDeviceFeatures(handle, &features->features);
  for (auto* s = static_cast<VkBaseOutStructure*>(features->pNext); s != nullptr; s = s->pNext) fill_feature(s);
}

// The chains of the remaining queries hold only extension structures (memory budget, queue
// priorities, DRM format modifiers, ...), none of which the driver offers: skipped.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceMemoryProperties2(VkPhysicalDevice handle,
                                                                      VkPhysicalDeviceMemoryProperties2* props) {
  gsgpu_vkGetPhysicalDeviceMemoryProperties(handle, &props->memoryProperties);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice handle, uint32_t* count,
                                                                           VkQueueFamilyProperties2* props) {
  if (props == nullptr) {
    gsgpu_vkGetPhysicalDeviceQueueFamilyProperties(handle, count, nullptr);
    return;
  }
  if (*count == 0) return;
  uint32_t one = 1;
  gsgpu_vkGetPhysicalDeviceQueueFamilyProperties(handle, &one, &props[0].queueFamilyProperties);
  *count = one;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceFormatProperties2(VkPhysicalDevice handle, VkFormat format,
                                                                      VkFormatProperties2* props) {
  gsgpu_vkGetPhysicalDeviceFormatProperties(handle, format, &props->formatProperties);
}

// The 1.0 answer. No external memory handle type is supported: an
// VkPhysicalDeviceExternalImageFormatInfo naming one makes the combination unsupported, and
// VkExternalImageFormatProperties says nothing can be exported or imported. Unknown structures skipped.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceImageFormatProperties2(
    VkPhysicalDevice handle, const VkPhysicalDeviceImageFormatInfo2* info, VkImageFormatProperties2* props) {
  VkResult result = gsgpu_vkGetPhysicalDeviceImageFormatProperties(handle, info->format, info->type, info->tiling,
                                                                   info->usage, info->flags,
                                                                   &props->imageFormatProperties);
  for (auto* s = static_cast<const VkBaseInStructure*>(info->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO &&
        reinterpret_cast<const VkPhysicalDeviceExternalImageFormatInfo*>(s)->handleType != 0) {
      props->imageFormatProperties = {};
      result = VK_ERROR_FORMAT_NOT_SUPPORTED;
    }
  }
  for (auto* s = static_cast<VkBaseOutStructure*>(props->pNext); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES) {
      reset_keeping_chain<VkExternalImageFormatProperties>(s);
    }
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceSparseImageFormatProperties2(
    VkPhysicalDevice, const VkPhysicalDeviceSparseImageFormatInfo2*, uint32_t* count, VkSparseImageFormatProperties2*) {
  *count = 0;  // no sparse resources
}

// No external handle type (fd, dma-buf, ...) is offered: no export, no import, nothing compatible.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceExternalBufferProperties(
    VkPhysicalDevice, const VkPhysicalDeviceExternalBufferInfo*, VkExternalBufferProperties* props) {
  props->externalMemoryProperties = {};
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice,
                                                                            const VkPhysicalDeviceExternalFenceInfo*,
                                                                            VkExternalFenceProperties* props) {
  props->exportFromImportedHandleTypes = 0;
  props->compatibleHandleTypes = 0;
  props->externalFenceFeatures = 0;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice, const VkPhysicalDeviceExternalSemaphoreInfo*, VkExternalSemaphoreProperties* props) {
  props->exportFromImportedHandleTypes = 0;
  props->compatibleHandleTypes = 0;
  props->externalSemaphoreFeatures = 0;
}

}  // namespace gsgpu::vk
