// VK_KHR_swapchain: vkCreateSwapchainKHR makes its images as the application would (driver images
// in the one linear layout, each with its own memory), vkAcquireNextImageKHR hands out an image no
// one holds, vkQueuePresentKHR waits for the queue's work and copies the image to the surface
// (wsi_xcb.cc; nothing for a headless surface), after which the image is free again
// (docs/vulkan-driver.md "WSI").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/wsi.h"

namespace gsgpu::vk {
namespace {

// Why a swapchain cannot be created with `info`, or nullptr. Extents are not held to the surface's
// current size (a window may be resized between the query and the creation): a present whose
// window has another size shows the common part and answers VK_SUBOPTIMAL_KHR.
const char* unsupported_swapchain(const VkSwapchainCreateInfoKHR* info) {
  if (info->flags != 0) return "flags (split-instance, protected, mutable-format) not supported";
  if (std::find(std::begin(kSwapchainFormats), std::end(kSwapchainFormats), info->imageFormat) ==
      std::end(kSwapchainFormats)) {
    return "image format is not one of vkGetPhysicalDeviceSurfaceFormatsKHR's";
  }
  if (info->imageColorSpace != VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return "colour space is not SRGB_NONLINEAR";
  if (info->imageExtent.width == 0 || info->imageExtent.height == 0 ||
      info->imageExtent.width > kMaxImageDimension || info->imageExtent.height > kMaxImageDimension) {
    return "image extent is 0 or above 4096";
  }
  if (info->minImageCount > kSwapchainMaxImages) return "more images than maxImageCount (8)";
  if (info->imageArrayLayers != 1) return "imageArrayLayers is not 1";
  if (info->imageUsage == 0 || (info->imageUsage & ~kSwapchainUsage) != 0) return "usage outside supportedUsageFlags";
  if (info->presentMode != VK_PRESENT_MODE_FIFO_KHR && info->presentMode != VK_PRESENT_MODE_IMMEDIATE_KHR &&
      info->presentMode != VK_PRESENT_MODE_MAILBOX_KHR) {
    return "present mode other than FIFO, IMMEDIATE, MAILBOX";
  }
  if (info->preTransform != VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR) return "transform is not IDENTITY";
  if (info->compositeAlpha != VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR) return "composite alpha is not OPAQUE";
  return nullptr;
}

void destroy_images(Device* device, Swapchain* swapchain) {
  VkDevice handle = to_handle<VkDevice>(device);
  for (Swapchain::SwapImage& image : swapchain->images) {
    gsgpu_vkDestroyImage(handle, image.image, nullptr);
    gsgpu_vkFreeMemory(handle, image.memory, nullptr);
  }
  swapchain->images.clear();
}

VkResult create_images(Device* device, Swapchain* swapchain, const VkSwapchainCreateInfoKHR* info) {
  VkDevice handle = to_handle<VkDevice>(device);
  VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  image_info.imageType = VK_IMAGE_TYPE_2D;
  image_info.format = info->imageFormat;
  image_info.extent = {info->imageExtent.width, info->imageExtent.height, 1};
  image_info.mipLevels = 1;
  image_info.arrayLayers = 1;
  image_info.samples = VK_SAMPLE_COUNT_1_BIT;
  image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
  image_info.usage = info->imageUsage;
  const uint32_t count = std::max(info->minImageCount, kSwapchainMinImages);
  for (uint32_t i = 0; i < count; ++i) {
    Swapchain::SwapImage image;
    if (VkResult r = gsgpu_vkCreateImage(handle, &image_info, nullptr, &image.image); r != VK_SUCCESS) return r;
    swapchain->images.push_back(image);
    VkMemoryRequirements reqs;
    gsgpu_vkGetImageMemoryRequirements(handle, image.image, &reqs);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, reqs.size, kMemoryTypeIndex};
    VkResult r = gsgpu_vkAllocateMemory(handle, &alloc, nullptr, &swapchain->images.back().memory);
    if (r == VK_SUCCESS) r = gsgpu_vkBindImageMemory(handle, image.image, swapchain->images.back().memory, 0);
    if (r != VK_SUCCESS) return r;
  }
  return VK_SUCCESS;
}

// The X resources a swapchain on a window needs (a graphics context), after checking the window
// is one presentation can write.
VkResult attach_surface(Swapchain* swapchain) {
  const SurfaceState state = surface_state(swapchain->surface);
  if (state.lost) return VK_ERROR_SURFACE_LOST_KHR;
#ifdef GSGPU_VK_XCB
  const auto* record = reinterpret_cast<const VkIcdSurfaceBase*>(swapchain->surface);
  if (record->platform == VK_ICD_WSI_PLATFORM_XCB) {
    const auto* xcb = reinterpret_cast<const VkIcdSurfaceXcb*>(record);
    if (!xcb_window_presentable(xcb)) {
      std::fprintf(stderr, "gsgpu-vk: vkCreateSwapchainKHR: window 0x%x is not 32-bit TrueColor; refused\n",
                   xcb->window);
      return VK_ERROR_INITIALIZATION_FAILED;
    }
    swapchain->gc = xcb_create_swapchain_gc(xcb);
    if (swapchain->gc == 0) return VK_ERROR_SURFACE_LOST_KHR;
  }
#endif
  return VK_SUCCESS;
}

void detach_surface(Swapchain* swapchain) {
#ifdef GSGPU_VK_XCB
  const auto* record = reinterpret_cast<const VkIcdSurfaceBase*>(swapchain->surface);
  if (record != nullptr && record->platform == VK_ICD_WSI_PLATFORM_XCB) {
    xcb_free_swapchain_gc(reinterpret_cast<const VkIcdSurfaceXcb*>(record), swapchain->gc);
  }
#else
  (void)swapchain;
#endif
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateSwapchainKHR(VkDevice handle, const VkSwapchainCreateInfoKHR* info,
                                                          const VkAllocationCallbacks*, VkSwapchainKHR* out) {
  Device* device = from_handle<Device>(handle);
  *out = VK_NULL_HANDLE;
  if (const char* why = unsupported_swapchain(info)) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateSwapchainKHR: %s; refused\n", why);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  // The old swapchain is retired even when the new one cannot be made (the spec says so).
  if (Swapchain* old = from_handle<Swapchain>(info->oldSwapchain)) {
    std::lock_guard lock(old->mutex);
    old->retired = true;
  }
  auto* swapchain = new (std::nothrow) Swapchain;
  if (swapchain == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  swapchain->device = device;
  swapchain->surface = info->surface;
  swapchain->format = info->imageFormat;
  swapchain->extent = info->imageExtent;
  VkResult r = attach_surface(swapchain);
  if (r == VK_SUCCESS) r = create_images(device, swapchain, info);
  if (r != VK_SUCCESS) {
    destroy_images(device, swapchain);
    detach_surface(swapchain);
    delete swapchain;
    return r;
  }
  swapchain->last_acquired = static_cast<uint32_t>(swapchain->images.size() - 1);
  *out = to_handle<VkSwapchainKHR>(swapchain);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroySwapchainKHR(VkDevice handle, VkSwapchainKHR swapchain_handle,
                                                       const VkAllocationCallbacks*) {
  Swapchain* swapchain = from_handle<Swapchain>(swapchain_handle);
  if (swapchain == nullptr) return;
  destroy_images(from_handle<Device>(handle), swapchain);
  detach_surface(swapchain);
  delete swapchain;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetSwapchainImagesKHR(VkDevice, VkSwapchainKHR swapchain_handle,
                                                             uint32_t* count, VkImage* images) {
  Swapchain* swapchain = from_handle<Swapchain>(swapchain_handle);
  const auto available = static_cast<uint32_t>(swapchain->images.size());
  if (images == nullptr) {
    *count = available;
    return VK_SUCCESS;
  }
  const uint32_t written = std::min(*count, available);
  for (uint32_t i = 0; i < written; ++i) images[i] = swapchain->images[i].image;
  *count = written;
  return written < available ? VK_INCOMPLETE : VK_SUCCESS;
}

}  // namespace gsgpu::vk
