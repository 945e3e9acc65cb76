// VkInstance: creation checks the asked-for extensions (VK_KHR_get_physical_device_properties2:
// physical_device2.cc; the surface extensions: wsi.h), opens one driver client
// (driver_client.h) to read the device's caps for the one physical device, and closes it again; each VkDevice
// opens its own driver client (device.cc).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "gsgpu/vk/driver_client.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

namespace {

// The instance extensions: the extensible physical-device queries and the surfaces (wsi.h; the
// loader creates the surfaces themselves).
const VkExtensionProperties kInstanceExtensions[] = {
    {VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_SPEC_VERSION},
    {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_SURFACE_SPEC_VERSION},
    {VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME, VK_KHR_GET_SURFACE_CAPABILITIES_2_SPEC_VERSION},
    {VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME, VK_EXT_HEADLESS_SURFACE_SPEC_VERSION},
#ifdef GSGPU_VK_XCB
    {VK_KHR_XCB_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_SPEC_VERSION},
#endif
};
constexpr uint32_t kInstanceExtensionCount = sizeof(kInstanceExtensions) / sizeof(kInstanceExtensions[0]);

bool instance_extension_offered(const char* name) {
  for (const VkExtensionProperties& extension : kInstanceExtensions) {
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  }
  return false;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkEnumerateInstanceExtensionProperties(const char* layer, uint32_t* count,
                                                                            VkExtensionProperties* props) {
  if (layer != nullptr) return VK_ERROR_LAYER_NOT_PRESENT;
  if (props == nullptr) {
    *count = kInstanceExtensionCount;
    return VK_SUCCESS;
  }
  const uint32_t written = std::min(*count, kInstanceExtensionCount);
  for (uint32_t i = 0; i < written; ++i) props[i] = kInstanceExtensions[i];
  *count = written;
  return written < kInstanceExtensionCount ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks*,
                                                      VkInstance* out) {
  for (uint32_t i = 0; i < info->enabledExtensionCount; ++i) {
    if (!instance_extension_offered(info->ppEnabledExtensionNames[i])) return VK_ERROR_EXTENSION_NOT_PRESENT;
  }
  auto* instance = new (std::nothrow) Instance;
  if (instance == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  init_loader_data(&instance->loader_data);
  PhysicalDevice& physical = instance->physical_device;
  init_loader_data(&physical.loader_data);
  physical.instance = instance;
  physical.config = drv::local_config_from_env();
  physical.config.name = "gsgpu-vk";
  // A developer's setting, as gsgpu/cl's: every draw's readable dump and counters as files
  // (docs/driver.md "Dumps"; bench/graphics/bbox_counters.py sums the counters of whole scenes).
  if (const char* dir = std::getenv("GSGPU_DUMP_DIR"); dir != nullptr && *dir != 0) physical.config.dump_dir = dir;
  std::string error;
  std::unique_ptr<drv::Device> probe = open_driver_client(physical.config, &error);
  if (!probe) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateInstance: cannot open a gsgpu device: %s\n", error.c_str());
    delete instance;
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  physical.caps = probe->caps();
  *out = to_handle<VkInstance>(instance);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks*) {
  delete from_handle<Instance>(instance);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkEnumeratePhysicalDevices(VkInstance handle, uint32_t* count,
                                                                VkPhysicalDevice* devices) {
  Instance* instance = from_handle<Instance>(handle);
  if (devices == nullptr) {
    *count = 1;
    return VK_SUCCESS;
  }
  if (*count == 0) return VK_INCOMPLETE;
  devices[0] = to_handle<VkPhysicalDevice>(&instance->physical_device);
  *count = 1;
  return VK_SUCCESS;
}

}  // namespace gsgpu::vk
