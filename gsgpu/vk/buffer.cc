// VkBuffer: a size, and once bound a range of a memory object mapped at a GPU virtual address of
// the device's client (va_bind), where shaders will reach it. Memory requirements: page-aligned
// offset and page-rounded size, because a VA binding is page granular.
#include <new>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {


}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateBuffer(VkDevice handle, const VkBufferCreateInfo* info,
                                                    const VkAllocationCallbacks*, VkBuffer* out) {
  Device* device = from_handle<Device>(handle);
  if (info->flags != 0) return VK_ERROR_FEATURE_NOT_PRESENT;  // sparse and protected buffers
  // A buffer no allocation could hold: refused here so page rounding cannot overflow later.
  if (info->size > device->drv->caps().max_bo_size) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  auto* buffer = new (std::nothrow) Buffer;
  if (buffer == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  buffer->size = info->size;
  *out = to_handle<VkBuffer>(buffer);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyBuffer(VkDevice handle, VkBuffer buffer_handle,
                                                 const VkAllocationCallbacks*) {
  Buffer* buffer = from_handle<Buffer>(buffer_handle);
  if (buffer == nullptr) return;
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  if (buffer->memory != nullptr) {
    device->drv->va_unbind(buffer->va, buffer->va_size);
    device->va->free(buffer->va);
    buffer->memory->bound.erase(buffer);
  }
  delete buffer;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetBufferMemoryRequirements(VkDevice handle, VkBuffer buffer_handle,
                                                               VkMemoryRequirements* reqs) {
  const uint64_t page = from_handle<Device>(handle)->drv->caps().page_size;
  reqs->size = round_up(from_handle<Buffer>(buffer_handle)->size, page);
  reqs->alignment = page;
  reqs->memoryTypeBits = 1u << kMemoryTypeIndex;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkBindBufferMemory(VkDevice handle, VkBuffer buffer_handle,
                                                        VkDeviceMemory memory_handle, VkDeviceSize offset) {
  Device* device = from_handle<Device>(handle);
  Buffer* buffer = from_handle<Buffer>(buffer_handle);
  DeviceMemory* memory = from_handle<DeviceMemory>(memory_handle);
  std::lock_guard lock(device->mutex);
  if (buffer->memory != nullptr) return VK_ERROR_OUT_OF_DEVICE_MEMORY;  // bound already: invalid usage
  const VkResult bound =
      bind_memory_range(device, memory, offset, buffer->size, "vkBindBufferMemory", &buffer->va, &buffer->va_size);
  if (bound != VK_SUCCESS) return bound;
  buffer->memory = memory;
  memory->bound.insert(buffer);
  buffer->memory_offset = offset;
  return VK_SUCCESS;
}

// Vulkan 1.1: binds each buffer as vkBindBufferMemory does, in order, stopping at the first
// failure (the spec leaves the bindings' state undefined then; those before it stay bound).
// VkBindBufferMemoryDeviceGroupInfo in a chain may only name device 0 of a one-device group: the
// binding is the same.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkBindBufferMemory2(VkDevice device, uint32_t count,
                                                         const VkBindBufferMemoryInfo* infos) {
  for (uint32_t i = 0; i < count; ++i) {
    VkResult r = gsgpu_vkBindBufferMemory(device, infos[i].buffer, infos[i].memory, infos[i].memoryOffset);
    if (r != VK_SUCCESS) return r;
  }
  return VK_SUCCESS;
}

// Vulkan 1.1: the 1.0 requirements; VkMemoryDedicatedRequirements in the chain says a dedicated
// allocation is neither preferred nor required (a buffer is a VA range over any BO).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetBufferMemoryRequirements2(VkDevice device,
                                                                const VkBufferMemoryRequirementsInfo2* info,
                                                                VkMemoryRequirements2* reqs) {
  gsgpu_vkGetBufferMemoryRequirements(device, info->buffer, &reqs->memoryRequirements);
  answer_no_dedicated_allocation(reqs);
}

}  // namespace gsgpu::vk
