// VkDevice: one gsgpu driver client (driver_client.h: its own VA space, BOs and rings) and
// its one queue on ring 0. The device extensions of physical_device.cc; the VkPhysicalDeviceFeatures
// features it reports, and no other, can be enabled.
#include <cstdio>
#include <cstring>
#include <new>

#include "gsgpu/vk/driver_client.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// Whether `features` asks for a 1.0 feature the physical device does not report. The structure is
// an array of VkBool32, compared member by member with the reported one.
bool unoffered_feature_enabled(VkPhysicalDevice physical, const VkPhysicalDeviceFeatures* features) {
  if (features == nullptr) return false;
  VkPhysicalDeviceFeatures offered;
  gsgpu_vkGetPhysicalDeviceFeatures(physical, &offered);
  const auto* wanted = reinterpret_cast<const VkBool32*>(features);
  const auto* have = reinterpret_cast<const VkBool32*>(&offered);
  for (size_t i = 0; i < sizeof(*features) / sizeof(VkBool32); ++i) {
    if (wanted[i] && !have[i]) return true;
  }
  return false;
}

// The 1.0 features asked for: pEnabledFeatures, or a VkPhysicalDeviceFeatures2 in the chain (the
// form applications of VK_KHR_get_physical_device_properties2 use, zink among them).
const VkPhysicalDeviceFeatures* requested_features(const VkDeviceCreateInfo* info) {
  if (info->pEnabledFeatures != nullptr) return info->pEnabledFeatures;
  const auto* f2 = find_in_chain<VkPhysicalDeviceFeatures2>(info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  return f2 != nullptr ? &f2->features : nullptr;
}

VkResult check_queue_requests(const VkDeviceCreateInfo* info) {
  for (uint32_t i = 0; i < info->queueCreateInfoCount; ++i) {
    const VkDeviceQueueCreateInfo& q = info->pQueueCreateInfos[i];
    if (q.queueFamilyIndex != kQueueFamilyIndex || q.queueCount != 1) return VK_ERROR_INITIALIZATION_FAILED;
  }
  return VK_SUCCESS;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateDevice(VkPhysicalDevice physical_handle, const VkDeviceCreateInfo* info,
                                                    const VkAllocationCallbacks*, VkDevice* out) {
  PhysicalDevice* physical = from_handle<PhysicalDevice>(physical_handle);
  for (uint32_t i = 0; i < info->enabledExtensionCount; ++i) {
    if (!device_extension_offered(info->ppEnabledExtensionNames[i])) {
      return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
  }
  if (unoffered_feature_enabled(physical_handle, requested_features(info))) return VK_ERROR_FEATURE_NOT_PRESENT;
  if (VkResult r = check_queue_requests(info); r != VK_SUCCESS) return r;
  auto* device = new (std::nothrow) Device;
  if (device == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  init_loader_data(&device->loader_data);
  device->physical = physical;
  std::string error;
  device->drv = open_driver_client(physical->config, &error);
  if (!device->drv) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateDevice: cannot open a gsgpu device: %s\n", error.c_str());
    delete device;
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  const drv::Caps& caps = device->drv->caps();
  device->va.emplace(caps.va_base, caps.va_size, caps.page_size);
  init_loader_data(&device->queue.loader_data);
  device->queue.device = device;
  device->queue.ring = 0;
  *out = to_handle<VkDevice>(device);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyDevice(VkDevice handle, const VkAllocationCallbacks*) {
  // Closing the driver client waits for its submissions and frees its BOs and bindings.
  Device* device = from_handle<Device>(handle);
  if (device == nullptr) return;
  {
    std::lock_guard lock(device->mutex);
    device->stream.release(device);
  }
  delete device;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetDeviceQueue(VkDevice handle, uint32_t family, uint32_t index, VkQueue* out) {
  Device* device = from_handle<Device>(handle);
  *out = (family == kQueueFamilyIndex && index == 0) ? to_handle<VkQueue>(&device->queue) : VK_NULL_HANDLE;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkDeviceWaitIdle(VkDevice handle) {
  return gsgpu_vkQueueWaitIdle(to_handle<VkQueue>(&from_handle<Device>(handle)->queue));
}

// Vulkan 1.1: the queue of (family, index) created with these flags. The driver creates no
// protected queue (protectedMemory is false), so flags other than 0 name no queue: NULL.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* info, VkQueue* out) {
  if (info->flags != 0) {
    *out = VK_NULL_HANDLE;
    return;
  }
  gsgpu_vkGetDeviceQueue(device, info->queueFamilyIndex, info->queueIndex, out);
}

// Vulkan 1.1, device groups: one device in the group, so every heap is "peer" to itself only;
// asking about another device index is invalid usage and answered with no feature.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetDeviceGroupPeerMemoryFeatures(VkDevice, uint32_t, uint32_t local, uint32_t remote,
                                                                    VkPeerMemoryFeatureFlags* features) {
  *features = (local == 0 && remote == 0) ? VK_PEER_MEMORY_FEATURE_COPY_SRC_BIT | VK_PEER_MEMORY_FEATURE_COPY_DST_BIT |
                                                VK_PEER_MEMORY_FEATURE_GENERIC_SRC_BIT |
                                                VK_PEER_MEMORY_FEATURE_GENERIC_DST_BIT
                                          : 0;
}

}  // namespace gsgpu::vk
