// Every Vulkan entry point the driver implements, by scope. Each is declared from the Khronos
// PFN_vk* type, so a definition whose signature differs does not link. An entry point not listed
// here is not offered: vkGetInstanceProcAddr / vkGetDeviceProcAddr answer NULL for it.
#pragma once

#include <type_traits>

#include "gsgpu/vk/objects.h"

// Global commands (instance == NULL).
#define GSGPU_VK_GLOBAL_ENTRY_POINTS(X) \
  X(CreateInstance)                     \
  X(EnumerateInstanceExtensionProperties)

// Instance and physical-device commands.
#define GSGPU_VK_INSTANCE_ENTRY_POINTS(X)   \
  X(DestroyInstance)                        \
  X(EnumeratePhysicalDevices)               \
  X(GetInstanceProcAddr)                    \
  X(GetPhysicalDeviceProperties)            \
  X(GetPhysicalDeviceFeatures)              \
  X(GetPhysicalDeviceMemoryProperties)      \
  X(GetPhysicalDeviceQueueFamilyProperties) \
  X(GetPhysicalDeviceFormatProperties)      \
  X(GetPhysicalDeviceImageFormatProperties) \
  X(GetPhysicalDeviceSparseImageFormatProperties) \
  X(GetPhysicalDeviceProperties2)           \
  X(GetPhysicalDeviceFeatures2)             \
  X(GetPhysicalDeviceMemoryProperties2)     \
  X(GetPhysicalDeviceQueueFamilyProperties2) \
  X(GetPhysicalDeviceFormatProperties2)     \
  X(GetPhysicalDeviceImageFormatProperties2) \
  X(GetPhysicalDeviceSparseImageFormatProperties2) \
  X(GetPhysicalDeviceExternalBufferProperties) \
  X(GetPhysicalDeviceExternalFenceProperties) \
  X(GetPhysicalDeviceExternalSemaphoreProperties) \
  X(EnumerateDeviceLayerProperties)         \
  X(EnumerateDeviceExtensionProperties)     \
  X(CreateDevice)

// The same commands under the names of VK_KHR_get_physical_device_properties2 (the instance
// extension through which this 1.0 driver offers them; the PFN types are aliases).
#define GSGPU_VK_KHR_ALIASES(X)                     \
  X(GetPhysicalDeviceProperties2)                   \
  X(GetPhysicalDeviceFeatures2)                     \
  X(GetPhysicalDeviceMemoryProperties2)             \
  X(GetPhysicalDeviceQueueFamilyProperties2)        \
  X(GetPhysicalDeviceFormatProperties2)             \
  X(GetPhysicalDeviceImageFormatProperties2)        \
  X(GetPhysicalDeviceSparseImageFormatProperties2)

// Device commands under the names of device extensions (VK_KHR_timeline_semaphore,
// VK_KHR_descriptor_update_template, VK_KHR_maintenance1, VK_KHR_create_renderpass2).
#define GSGPU_VK_DEVICE_KHR_ALIASES(X) \
  X(TrimCommandPool)                   \
  X(CreateRenderPass2)                 \
  X(CmdBeginRenderPass2)               \
  X(CmdNextSubpass2)                   \
  X(CmdEndRenderPass2)                 \
  X(GetSemaphoreCounterValue)          \
  X(WaitSemaphores)                    \
  X(SignalSemaphore)                   \
  X(CreateDescriptorUpdateTemplate)    \
  X(DestroyDescriptorUpdateTemplate)   \
  X(UpdateDescriptorSetWithTemplate)

// Device, queue and command-buffer commands.
#define GSGPU_VK_DEVICE_ENTRY_POINTS(X) \
  X(GetDeviceProcAddr)                  \
  X(DestroyDevice)                      \
  X(GetDeviceQueue)                     \
  X(DeviceWaitIdle)                     \
  X(AllocateMemory)                     \
  X(FreeMemory)                         \
  X(MapMemory)                          \
  X(UnmapMemory)                        \
  X(FlushMappedMemoryRanges)            \
  X(InvalidateMappedMemoryRanges)       \
  X(CreateBuffer)                       \
  X(DestroyBuffer)                      \
  X(GetBufferMemoryRequirements)        \
  X(BindBufferMemory)                   \
  X(BindBufferMemory2)                  \
  X(GetBufferMemoryRequirements2)       \
  X(GetDeviceQueue2)                    \
  X(GetDeviceGroupPeerMemoryFeatures)   \
  X(TrimCommandPool)                    \
  X(CmdSetDeviceMask)                   \
  X(CreateCommandPool)                  \
  X(DestroyCommandPool)                 \
  X(ResetCommandPool)                   \
  X(AllocateCommandBuffers)             \
  X(FreeCommandBuffers)                 \
  X(BeginCommandBuffer)                 \
  X(EndCommandBuffer)                   \
  X(ResetCommandBuffer)                 \
  X(CmdCopyBuffer)                      \
  X(CmdFillBuffer)                      \
  X(CmdUpdateBuffer)                    \
  X(CmdPipelineBarrier)                 \
  X(CreateImage)                        \
  X(DestroyImage)                       \
  X(GetImageMemoryRequirements)         \
  X(GetImageMemoryRequirements2)        \
  X(GetImageSparseMemoryRequirements)   \
  X(GetImageSparseMemoryRequirements2)  \
  X(BindImageMemory)                    \
  X(BindImageMemory2)                   \
  X(GetImageSubresourceLayout)          \
  X(CreateImageView)                   \
  X(CreateBufferView)                  \
  X(DestroyBufferView)                 \
  X(DestroyImageView)                   \
  X(CreateSampler)                      \
  X(DestroySampler)                     \
  X(CreateSamplerYcbcrConversion)       \
  X(DestroySamplerYcbcrConversion)      \
  X(CmdCopyBufferToImage)               \
  X(CmdCopyImageToBuffer)               \
  X(CmdCopyImage)                       \
  X(CmdBlitImage)                       \
  X(CmdClearColorImage)                 \
  X(CmdClearDepthStencilImage)          \
  X(CreateSemaphore)                    \
  X(DestroySemaphore)                   \
  X(GetSemaphoreCounterValue)           \
  X(WaitSemaphores)                     \
  X(SignalSemaphore)                    \
  X(QueueSubmit)                        \
  X(QueueWaitIdle)                      \
  X(CreateFence)                        \
  X(DestroyFence)                       \
  X(ResetFences)                        \
  X(GetFenceStatus)                     \
  X(WaitForFences)

// Device commands of the resource-binding model (docs/vulkan-driver.md "Resource binding").
#define GSGPU_VK_BINDING_ENTRY_POINTS(X) \
  X(CreateShaderModule)                  \
  X(DestroyShaderModule)                 \
  X(CreateDescriptorSetLayout)           \
  X(DestroyDescriptorSetLayout)          \
  X(CreatePipelineLayout)                \
  X(DestroyPipelineLayout)               \
  X(CreateDescriptorPool)                \
  X(DestroyDescriptorPool)               \
  X(ResetDescriptorPool)                 \
  X(AllocateDescriptorSets)              \
  X(FreeDescriptorSets)                  \
  X(UpdateDescriptorSets)                \
  X(CmdBindDescriptorSets)               \
  X(CmdPushConstants)                    \
  X(CreateDescriptorUpdateTemplate)      \
  X(DestroyDescriptorUpdateTemplate)     \
  X(UpdateDescriptorSetWithTemplate)     \
  X(GetDescriptorSetLayoutSupport)

// Render passes, pipelines and draws (docs/vulkan-driver.md "Draws"); compute pipelines and
// dispatches ("Compute").
#define GSGPU_VK_DRAW_ENTRY_POINTS(X) \
  X(CreateRenderPass)                 \
  X(CreateRenderPass2)                \
  X(CmdBeginRenderPass2)              \
  X(CmdNextSubpass2)                  \
  X(CmdEndRenderPass2)                \
  X(DestroyRenderPass)                \
  X(GetRenderAreaGranularity)         \
  X(CreateFramebuffer)                \
  X(DestroyFramebuffer)               \
  X(CreateGraphicsPipelines)          \
  X(DestroyPipeline)                  \
  X(CreatePipelineCache)              \
  X(DestroyPipelineCache)             \
  X(GetPipelineCacheData)             \
  X(MergePipelineCaches)              \
  X(CmdBeginRenderPass)               \
  X(CmdEndRenderPass)                 \
  X(CmdNextSubpass)                   \
  X(CmdBindPipeline)                  \
  X(CmdBindVertexBuffers)             \
  X(CmdBindIndexBuffer)               \
  X(CmdSetViewport)                   \
  X(CmdSetScissor)                    \
  X(CmdSetLineWidth)                  \
  X(CmdDraw)                          \
  X(CmdDrawIndexed)                   \
  X(CmdClearAttachments)              \
  X(CmdSetBlendConstants)             \
  X(CmdSetStencilCompareMask)         \
  X(CmdSetStencilWriteMask)           \
  X(CmdSetStencilReference)           \
  X(CmdSetDepthBias)                  \
  X(CmdSetDepthBounds)                \
  X(CreateComputePipelines)           \
  X(CmdDispatch)                      \
  X(CmdDispatchBase)                  \
  X(CmdDispatchIndirect)              \
  X(CmdDrawIndirect)                  \
  X(CmdDrawIndexedIndirect)           \
  X(CmdExecuteCommands)               \
  X(CmdResolveImage)                  \
  X(GetDeviceMemoryCommitment)        \
  X(QueueBindSparse)

// Queries and events (docs/vulkan-driver.md "Queries and events").
#define GSGPU_VK_QUERY_ENTRY_POINTS(X) \
  X(CreateQueryPool)                   \
  X(DestroyQueryPool)                  \
  X(GetQueryPoolResults)               \
  X(ResetQueryPool)                    \
  X(CmdResetQueryPool)                 \
  X(CmdBeginQuery)                     \
  X(CmdEndQuery)                       \
  X(CmdWriteTimestamp)                 \
  X(CmdCopyQueryPoolResults)           \
  X(CreateEvent)                       \
  X(DestroyEvent)                      \
  X(GetEventStatus)                    \
  X(SetEvent)                          \
  X(ResetEvent)                        \
  X(CmdSetEvent)                       \
  X(CmdResetEvent)                     \
  X(CmdWaitEvents)

// VK_EXT_transform_feedback's commands, under their own names (transform_feedback.cc).
#define GSGPU_VK_XFB_ENTRY_POINTS(X)      \
  X(CmdBindTransformFeedbackBuffersEXT) \
  X(CmdBeginTransformFeedbackEXT)       \
  X(CmdEndTransformFeedbackEXT)         \
  X(CmdDrawIndirectByteCountEXT)        \
  X(CmdBeginQueryIndexedEXT)            \
  X(CmdEndQueryIndexedEXT)

// VK_EXT_line_rasterization's command (draw_dynamic.cc).
#define GSGPU_VK_LINE_ENTRY_POINTS(X) X(CmdSetLineStippleEXT)

// Device commands under the names of EXT device extensions (VK_EXT_host_query_reset).
#define GSGPU_VK_DEVICE_EXT_ALIASES(X) X(ResetQueryPool)

namespace gsgpu::vk {

#define GSGPU_VK_DECLARE(name) std::remove_pointer_t<PFN_vk##name> gsgpu_vk##name;
GSGPU_VK_GLOBAL_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_INSTANCE_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_DEVICE_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_BINDING_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_DRAW_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_QUERY_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_XFB_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_LINE_ENTRY_POINTS(GSGPU_VK_DECLARE)
#undef GSGPU_VK_DECLARE

}  // namespace gsgpu::vk
