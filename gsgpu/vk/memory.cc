// VkDeviceMemory over gsgpu/drv buffer objects: vkAllocateMemory is bo_create (zero-filled, page
// granular), vkMapMemory is the BO's CPU mapping (coherent, so flush and invalidate do nothing).
#include <cstdio>
#include <new>
#include <optional>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkAllocateMemory(VkDevice handle, const VkMemoryAllocateInfo* info,
                                                      const VkAllocationCallbacks*, VkDeviceMemory* out) {
  Device* device = from_handle<Device>(handle);
  if (info->memoryTypeIndex != kMemoryTypeIndex) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  // Larger than the heap: the driver refuses before asking (bo_create would say kInvalidArgument).
  if (info->allocationSize == 0 || info->allocationSize > device->drv->caps().max_bo_size) {
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  auto* memory = new (std::nothrow) DeviceMemory;
  if (memory == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  drv::Status status = device->drv->bo_create(info->allocationSize, 0, &memory->bo);
  if (status != drv::Status::kOk) {
    delete memory;
    return status == drv::Status::kOutOfMemory ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  memory->size = info->allocationSize;
  memory->map = static_cast<uint8_t*>(device->drv->bo_map(memory->bo));
  *out = to_handle<VkDeviceMemory>(memory);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkFreeMemory(VkDevice handle, VkDeviceMemory memory_handle,
                                              const VkAllocationCallbacks*) {
  DeviceMemory* memory = from_handle<DeviceMemory>(memory_handle);
  if (memory == nullptr) return;
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  // The spec lets buffers and images outlive their memory, unusable: they become unbound here. bo_free
  // removes their VA bindings with the BO; a submission using it keeps the memory until it
  // retires (drv).
  for (Buffer* buffer : memory->bound) {
    device->va->free(buffer->va);
    buffer->memory = nullptr;
    buffer->va = 0;
    buffer->va_size = 0;
  }
  for (Image* image : memory->bound_images) {
    device->va->free(image->va);
    image->memory = nullptr;
    image->va = 0;
    image->va_size = 0;
  }
  device->drv->bo_free(memory->bo);
  delete memory;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkMapMemory(VkDevice, VkDeviceMemory memory_handle, VkDeviceSize offset,
                                                 VkDeviceSize size, VkMemoryMapFlags, void** data) {
  DeviceMemory* memory = from_handle<DeviceMemory>(memory_handle);
  if (offset >= memory->size || (size != VK_WHOLE_SIZE && size > memory->size - offset)) {
    return VK_ERROR_MEMORY_MAP_FAILED;
  }
  *data = memory->map + offset;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkUnmapMemory(VkDevice, VkDeviceMemory) {}  // the mapping lives with the BO

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkFlushMappedMemoryRanges(VkDevice, uint32_t, const VkMappedMemoryRange*) {
  return VK_SUCCESS;  // the only memory type is host-coherent
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkInvalidateMappedMemoryRanges(VkDevice, uint32_t, const VkMappedMemoryRange*) {
  return VK_SUCCESS;
}

VkResult bind_memory_range(Device* device, DeviceMemory* memory, uint64_t offset, uint64_t size,
                           const char* command, uint64_t* va, uint64_t* va_size) {
  const uint64_t page = device->drv->caps().page_size;
  const uint64_t bound = round_up(size, page);
  if (memory == nullptr || offset % page != 0 || offset > memory->size ||
      bound > round_up(memory->size, page) - offset) {
    std::fprintf(stderr, "gsgpu-vk: %s: offset %llu + %llu bytes outside the memory; refused\n", command,
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(bound));
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  std::optional<uint64_t> at = device->va->allocate(bound);
  if (!at) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (device->drv->va_bind(memory->bo, offset, *at, bound, drv::kVaRead | drv::kVaWrite) != drv::Status::kOk) {
    device->va->free(*at);
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  *va = *at;
  *va_size = bound;
  return VK_SUCCESS;
}

void answer_no_dedicated_allocation(VkMemoryRequirements2* reqs) {
  for (auto* s = static_cast<VkBaseOutStructure*>(reqs->pNext); s != nullptr; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS) continue;
    auto* dedicated = reinterpret_cast<VkMemoryDedicatedRequirements*>(s);
    dedicated->prefersDedicatedAllocation = VK_FALSE;
    dedicated->requiresDedicatedAllocation = VK_FALSE;
  }
}

}  // namespace gsgpu::vk
