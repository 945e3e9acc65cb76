// VK_KHR_surface's queries (and VK_KHR_get_surface_capabilities2's): what a swapchain on a surface
// may be. The loader creates every surface (VK_KHR_xcb_surface, VK_EXT_headless_surface) as its
// own VkIcdSurfaceBase record and hands it to the driver, which therefore implements no
// vkCreate*SurfaceKHR / vkDestroySurfaceKHR of its own (docs/vulkan-driver.md "WSI").
#include <algorithm>
#include <cstdio>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/wsi.h"

namespace gsgpu::vk {
namespace {

const VkIcdSurfaceBase* surface_record(VkSurfaceKHR surface) {
  return reinterpret_cast<const VkIcdSurfaceBase*>(surface);
}

// A present puts the whole image into the window when vkQueuePresentKHR runs (no vertical blank to
// wait for, no tearing), which is what FIFO, IMMEDIATE and MAILBOX each allow; zink asks for
// IMMEDIATE when the GL swap interval is 0.
constexpr VkPresentModeKHR kPresentModes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR,
                                              VK_PRESENT_MODE_MAILBOX_KHR};

// The Vulkan "fill an array of count" rule: the count alone, or as many as fit and VK_INCOMPLETE
// when some did not.
template <typename T, typename Fill>
VkResult answer_array(uint32_t available, uint32_t* count, T* out, Fill fill) {
  if (out == nullptr) {
    *count = available;
    return VK_SUCCESS;
  }
  const uint32_t written = std::min(*count, available);
  for (uint32_t i = 0; i < written; ++i) fill(i, &out[i]);
  *count = written;
  return written < available ? VK_INCOMPLETE : VK_SUCCESS;
}

}  // namespace

SurfaceState surface_state(VkSurfaceKHR surface) {
  const VkIcdSurfaceBase* record = surface_record(surface);
  if (record == nullptr) return SurfaceState{.lost = true};
  switch (record->platform) {
    case VK_ICD_WSI_PLATFORM_HEADLESS:
      return SurfaceState{};
#ifdef GSGPU_VK_XCB
    case VK_ICD_WSI_PLATFORM_XCB:
      return xcb_surface_state(reinterpret_cast<const VkIcdSurfaceXcb*>(record));
#endif
    default:
      // A platform whose instance extension the driver does not offer cannot reach it.
      std::fprintf(stderr, "gsgpu-vk: surface of platform %d: not supported\n", record->platform);
      return SurfaceState{.lost = true};
  }
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice, uint32_t family,
                                                                          VkSurfaceKHR surface, VkBool32* supported) {
  *supported = VK_FALSE;
  if (family != kQueueFamilyIndex) return VK_SUCCESS;
  const SurfaceState state = surface_state(surface);
  if (state.lost) return VK_ERROR_SURFACE_LOST_KHR;
#ifdef GSGPU_VK_XCB
  if (surface_record(surface)->platform == VK_ICD_WSI_PLATFORM_XCB) {
    *supported = xcb_window_presentable(reinterpret_cast<const VkIcdSurfaceXcb*>(surface)) ? VK_TRUE : VK_FALSE;
    return VK_SUCCESS;
  }
#endif
  *supported = VK_TRUE;
  return VK_SUCCESS;
}

// A window's swapchain has the window's size (currentExtent = min = max, as the spec asks of xcb
// surfaces); a headless surface has none, so any size the device can render is allowed.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice, VkSurfaceKHR surface,
                                                                               VkSurfaceCapabilitiesKHR* caps) {
  *caps = {};
  const SurfaceState state = surface_state(surface);
  if (state.lost) return VK_ERROR_SURFACE_LOST_KHR;
  caps->minImageCount = kSwapchainMinImages;
  caps->maxImageCount = kSwapchainMaxImages;
  if (state.has_extent) {
    caps->currentExtent = state.extent;
    caps->minImageExtent = state.extent;
    caps->maxImageExtent = state.extent;
  } else {
    caps->currentExtent = {0xFFFFFFFFu, 0xFFFFFFFFu};
    caps->minImageExtent = {1, 1};
    caps->maxImageExtent = {kMaxImageDimension, kMaxImageDimension};
  }
  caps->maxImageArrayLayers = 1;
  caps->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
  caps->currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
  // put_image writes the window's colour channels; X ignores a 24-bit window's fourth byte.
  caps->supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  caps->supportedUsageFlags = kSwapchainUsage;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice, VkSurfaceKHR surface,
                                                                          uint32_t* count,
                                                                          VkSurfaceFormatKHR* formats) {
  if (surface_state(surface).lost) return VK_ERROR_SURFACE_LOST_KHR;
  return answer_array(std::size(kSwapchainFormats), count, formats, [](uint32_t i, VkSurfaceFormatKHR* out) {
    *out = {kSwapchainFormats[i], VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  });
}

// FIFO only: a present has copied the image to the window before it returns, which is what
// every mode shows on a window system without vertical blanks (Xvfb).
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice,
                                                                               VkSurfaceKHR surface, uint32_t* count,
                                                                               VkPresentModeKHR* modes) {
  if (surface_state(surface).lost) return VK_ERROR_SURFACE_LOST_KHR;
  return answer_array(std::size(kPresentModes), count, modes,
                      [](uint32_t i, VkPresentModeKHR* out) { *out = kPresentModes[i]; });
}

// VK_KHR_get_surface_capabilities2: the same answers; chained structures (none of this driver's
// extensions defines one) are left as they are.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfaceCapabilities2KHR(
    VkPhysicalDevice physical, const VkPhysicalDeviceSurfaceInfo2KHR* info, VkSurfaceCapabilities2KHR* caps) {
  return gsgpu_vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical, info->surface, &caps->surfaceCapabilities);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice,
                                                                           const VkPhysicalDeviceSurfaceInfo2KHR* info,
                                                                           uint32_t* count,
                                                                           VkSurfaceFormat2KHR* formats) {
  if (surface_state(info->surface).lost) return VK_ERROR_SURFACE_LOST_KHR;
  return answer_array(std::size(kSwapchainFormats), count, formats, [](uint32_t i, VkSurfaceFormat2KHR* out) {
    out->surfaceFormat = {kSwapchainFormats[i], VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
  });
}

#ifdef GSGPU_VK_XCB
// Any visual: whether a window can be presented to depends on its depth, which
// vkGetPhysicalDeviceSurfaceSupportKHR checks once the window exists.
VKAPI_ATTR VkBool32 VKAPI_CALL gsgpu_vkGetPhysicalDeviceXcbPresentationSupportKHR(VkPhysicalDevice, uint32_t family,
                                                                                  xcb_connection_t*, xcb_visualid_t) {
  return family == kQueueFamilyIndex ? VK_TRUE : VK_FALSE;
}
#endif

}  // namespace gsgpu::vk
