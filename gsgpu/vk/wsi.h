// The window-system integration of the gsgpu Vulkan driver (docs/vulkan-driver.md "WSI"):
// VK_KHR_surface over the loader's surface records (VkIcdSurfaceBase: the loader creates and
// destroys surfaces, the driver only reads them), VK_EXT_headless_surface, VK_KHR_xcb_surface
// (when libxcb was found at build time: GSGPU_VK_XCB) and VK_KHR_swapchain. A swapchain's images
// are ordinary driver images in the one linear layout; presenting copies one from its CPU
// mapping to the window (xcb_put_image) after the queue's work, so an image is free again as
// soon as vkQueuePresentKHR returns.
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include "gsgpu/vk/objects.h"

#ifdef GSGPU_VK_XCB
#include <xcb/xcb.h>
#include <vulkan/vulkan_xcb.h>
#endif

namespace gsgpu::vk {

// The swapchain images' formats: what an X server's 24- and 32-bit TrueColor visuals store
// (B, G, R, X bytes on a little-endian server), in the sRGB colour space.
inline constexpr VkFormat kSwapchainFormats[] = {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM};
inline constexpr uint32_t kSwapchainMinImages = 2;
inline constexpr uint32_t kSwapchainMaxImages = 8;
// The usages a swapchain image may have: the supported formats' features, no storage; input
// attachment as any colour-target image (image.cc; zink asks for it on its swapchains).
inline constexpr VkImageUsageFlags kSwapchainUsage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                                     VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                     VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;

// What a surface is right now: its size (headless: none, the swapchain decides) and whether it
// still exists (an X window can be destroyed under the application).
struct SurfaceState {
  bool lost = false;
  bool has_extent = false;
  VkExtent2D extent{};
  uint8_t depth = 0;  // an X window's depth (PutImage must name it)
};
SurfaceState surface_state(VkSurfaceKHR surface);

struct Swapchain {
  Device* device = nullptr;
  VkSurfaceKHR surface = VK_NULL_HANDLE;  // the loader's record (VkIcdSurfaceBase)
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  // Set when the swapchain is named as oldSwapchain of a newer one: no image can be acquired
  // from it any more (VK_ERROR_OUT_OF_DATE_KHR), those acquired may still be presented.
  bool retired = false;
  struct SwapImage {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    bool acquired = false;
  };
  std::vector<SwapImage> images;
  uint32_t last_acquired = 0;  // the next acquire starts looking after it (the last image at first)
  std::mutex mutex;  // guards `acquired` and `retired`; a present wakes a waiting acquire
  std::condition_variable released;
#ifdef GSGPU_VK_XCB
  uint32_t gc = 0;  // the X graphics context put_image draws with (xcb surfaces)
#endif
};

// The xcb side (wsi_xcb.cc, or stubs without libxcb).
#ifdef GSGPU_VK_XCB
// The window's size, or lost when the server no longer knows it.
SurfaceState xcb_surface_state(const VkIcdSurfaceXcb* surface);
// Whether the window's pixels are 32-bit B, G, R, X in the server's byte order (the only layout
// presentation writes): depth 24 or 32, 32 bits per pixel, LSB-first images.
bool xcb_window_presentable(const VkIcdSurfaceXcb* surface);
// A graphics context for put_image on the window (0 on failure); freed with xcb_free_swapchain_gc.
uint32_t xcb_create_swapchain_gc(const VkIcdSurfaceXcb* surface);
void xcb_free_swapchain_gc(const VkIcdSurfaceXcb* surface, uint32_t gc);
// Copies `width` x `height` texels of 4 bytes (rows `row_pitch` apart) to the window's top-left
// corner and waits until the server has taken them; false when the server refused them.
bool xcb_put_pixels(const VkIcdSurfaceXcb* surface, uint32_t gc, uint8_t depth, const uint8_t* pixels,
                    uint64_t row_pitch, uint32_t width, uint32_t height);
#endif

}  // namespace gsgpu::vk

// The WSI entry points, listed as entry_points.h lists the others.
#define GSGPU_VK_WSI_INSTANCE_ENTRY_POINTS(X)     \
  X(GetPhysicalDeviceSurfaceSupportKHR)           \
  X(GetPhysicalDeviceSurfaceCapabilitiesKHR)      \
  X(GetPhysicalDeviceSurfaceFormatsKHR)           \
  X(GetPhysicalDeviceSurfacePresentModesKHR)      \
  X(GetPhysicalDeviceSurfaceCapabilities2KHR)     \
  X(GetPhysicalDeviceSurfaceFormats2KHR)

#define GSGPU_VK_WSI_DEVICE_ENTRY_POINTS(X) \
  X(CreateSwapchainKHR)                     \
  X(DestroySwapchainKHR)                    \
  X(GetSwapchainImagesKHR)                  \
  X(AcquireNextImageKHR)                    \
  X(QueuePresentKHR)

#ifdef GSGPU_VK_XCB
#define GSGPU_VK_WSI_XCB_ENTRY_POINTS(X) X(GetPhysicalDeviceXcbPresentationSupportKHR)
#else
#define GSGPU_VK_WSI_XCB_ENTRY_POINTS(X)
#endif

namespace gsgpu::vk {
#define GSGPU_VK_DECLARE(name) std::remove_pointer_t<PFN_vk##name> gsgpu_vk##name;
GSGPU_VK_WSI_INSTANCE_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_WSI_DEVICE_ENTRY_POINTS(GSGPU_VK_DECLARE)
GSGPU_VK_WSI_XCB_ENTRY_POINTS(GSGPU_VK_DECLARE)
#undef GSGPU_VK_DECLARE
}  // namespace gsgpu::vk
