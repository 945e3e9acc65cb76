// The loader-ICD interface (Khronos "LoaderDriverInterface"): interface version negotiation and
// the three vk_icd* exports, the only symbols libgsgpu_vk.so exports. Everything else is reached
// through vkGetInstanceProcAddr / vkGetDeviceProcAddr, which answer NULL for what the driver does
// not implement.
#include <cstring>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/wsi.h"

namespace gsgpu::vk {
namespace {

struct NamedProc {
  const char* name;
  PFN_vkVoidFunction proc;
};

#define GSGPU_VK_ENTRY(name) {"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&gsgpu_vk##name)},
const NamedProc kGlobalProcs[] = {GSGPU_VK_GLOBAL_ENTRY_POINTS(GSGPU_VK_ENTRY)};
const NamedProc kInstanceProcs[] = {GSGPU_VK_INSTANCE_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                        GSGPU_VK_WSI_INSTANCE_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                            GSGPU_VK_WSI_XCB_ENTRY_POINTS(GSGPU_VK_ENTRY)};
const NamedProc kDeviceProcs[] = {GSGPU_VK_DEVICE_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                      GSGPU_VK_BINDING_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                      GSGPU_VK_DRAW_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                          GSGPU_VK_QUERY_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                              GSGPU_VK_XFB_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                                  GSGPU_VK_LINE_ENTRY_POINTS(GSGPU_VK_ENTRY)
                                          GSGPU_VK_WSI_DEVICE_ENTRY_POINTS(GSGPU_VK_ENTRY)};
#undef GSGPU_VK_ENTRY
#define GSGPU_VK_KHR_ENTRY(name) {"vk" #name "KHR", reinterpret_cast<PFN_vkVoidFunction>(&gsgpu_vk##name)},
const NamedProc kKhrAliasProcs[] = {GSGPU_VK_KHR_ALIASES(GSGPU_VK_KHR_ENTRY)};
const NamedProc kDeviceKhrAliasProcs[] = {GSGPU_VK_DEVICE_KHR_ALIASES(GSGPU_VK_KHR_ENTRY)};
#undef GSGPU_VK_KHR_ENTRY
#define GSGPU_VK_EXT_ENTRY(name) {"vk" #name "EXT", reinterpret_cast<PFN_vkVoidFunction>(&gsgpu_vk##name)},
const NamedProc kDeviceExtAliasProcs[] = {GSGPU_VK_DEVICE_EXT_ALIASES(GSGPU_VK_EXT_ENTRY)};
#undef GSGPU_VK_EXT_ENTRY

template <size_t N>
PFN_vkVoidFunction find(const NamedProc (&table)[N], const char* name) {
  for (const NamedProc& entry : table) {
    if (std::strcmp(entry.name, name) == 0) return entry.proc;
  }
  return nullptr;
}

// The interface version this driver speaks: 5 (the loader may call vk_icdGetPhysicalDeviceProcAddr,
// and the driver's apiVersion is taken at face value). Debian 12's loader 1.3.239 offers up to 6.
constexpr uint32_t kLoaderInterfaceVersion = 5;

}  // namespace

PFN_vkVoidFunction lookup_device_proc(const char* name) {
  if (PFN_vkVoidFunction proc = find(kDeviceKhrAliasProcs, name)) return proc;
  if (PFN_vkVoidFunction proc = find(kDeviceExtAliasProcs, name)) return proc;
  return find(kDeviceProcs, name);
}

PFN_vkVoidFunction lookup_physical_device_proc(const char* name) {
  if (std::strncmp(name, "vkGetPhysicalDevice", 19) != 0 && std::strcmp(name, "vkCreateDevice") != 0 &&
      std::strcmp(name, "vkEnumerateDeviceExtensionProperties") != 0) {
    return nullptr;
  }
  if (PFN_vkVoidFunction proc = find(kKhrAliasProcs, name)) return proc;
  return find(kInstanceProcs, name);
}

PFN_vkVoidFunction lookup_instance_proc(const char* name) {
  if (PFN_vkVoidFunction proc = find(kGlobalProcs, name)) return proc;
  if (PFN_vkVoidFunction proc = find(kInstanceProcs, name)) return proc;
  if (PFN_vkVoidFunction proc = find(kKhrAliasProcs, name)) return proc;
  return find(kDeviceProcs, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gsgpu_vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  if (name == nullptr) return nullptr;
  // Without an instance only the global commands (and this one) are defined.
  if (instance == VK_NULL_HANDLE) {
    if (std::strcmp(name, "vkGetInstanceProcAddr") == 0) {
      return reinterpret_cast<PFN_vkVoidFunction>(&gsgpu_vkGetInstanceProcAddr);
    }
    return find(kGlobalProcs, name);
  }
  return lookup_instance_proc(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL gsgpu_vkGetDeviceProcAddr(VkDevice device, const char* name) {
  if (device == VK_NULL_HANDLE || name == nullptr) return nullptr;
  return lookup_device_proc(name);
}

}  // namespace gsgpu::vk

extern "C" {

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t* version) {
  if (version == nullptr) return VK_ERROR_INCOMPATIBLE_DRIVER;
  // Versions below 2 need the driver to export every vk* symbol itself, which this one does not.
  if (*version < 2) return VK_ERROR_INCOMPATIBLE_DRIVER;
  if (*version > gsgpu::vk::kLoaderInterfaceVersion) *version = gsgpu::vk::kLoaderInterfaceVersion;
  return VK_SUCCESS;
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetInstanceProcAddr(VkInstance instance, const char* name) {
  return gsgpu::vk::gsgpu_vkGetInstanceProcAddr(instance, name);
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetPhysicalDeviceProcAddr(VkInstance instance, const char* name) {
  if (instance == VK_NULL_HANDLE || name == nullptr) return nullptr;
  return gsgpu::vk::lookup_physical_device_proc(name);
}

}  // extern "C"
