// Acquiring and presenting swapchain images. A present finishes its copy before it returns, so an
// image is either held by the application (acquired) or free; acquiring one signals its
// semaphore and fence at once, with nothing to wait for. Presenting waits for the present's
// semaphores and the queue's earlier work, then copies the image to the surface
// (docs/vulkan-driver.md "WSI").
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/wsi.h"

namespace gsgpu::vk {
namespace {

// The index of a free image, or -1: the first free one after the last acquired, so a frame loop
// cycles through every image as on a real presentation engine. The caller holds swapchain->mutex.
int free_image_locked(const Swapchain* swapchain) {
  const size_t count = swapchain->images.size();
  for (size_t step = 1; step <= count; ++step) {
    const size_t i = (swapchain->last_acquired + step) % count;
    if (!swapchain->images[i].acquired) return static_cast<int>(i);
  }
  return -1;
}

// Waits up to `timeout_ns` for a free image. With none free, nothing but another thread's present
// can free one; UINT64_MAX then would wait forever, which the spec forbids when the application
// holds more than imageCount - minImageCount images: refused (VK_ERROR_UNKNOWN, a log line).
VkResult wait_for_free_image(Swapchain* swapchain, std::unique_lock<std::mutex>& lock, uint64_t timeout_ns,
                             int* index) {
  *index = free_image_locked(swapchain);
  if (*index >= 0) return VK_SUCCESS;
  if (timeout_ns == 0) return VK_NOT_READY;
  if (timeout_ns == UINT64_MAX) {
    std::fprintf(stderr,
                 "gsgpu-vk: vkAcquireNextImageKHR: all %zu images are acquired and the timeout is infinite; "
                 "refused\n",
                 swapchain->images.size());
    return VK_ERROR_UNKNOWN;
  }
  const auto timeout = std::chrono::nanoseconds(std::min<uint64_t>(timeout_ns, INT64_MAX / 2));
  swapchain->released.wait_for(lock, timeout, [&] { return free_image_locked(swapchain) >= 0; });
  *index = free_image_locked(swapchain);
  return *index >= 0 ? VK_SUCCESS : VK_TIMEOUT;
}

// The result of a present or an acquire for the surface's state: the swapchain's extent no longer
// the window's is suboptimal (the image is shown clipped or with a border of old pixels).
VkResult result_for(const SurfaceState& state, const Swapchain* swapchain) {
  if (state.lost) return VK_ERROR_SURFACE_LOST_KHR;
  if (state.has_extent &&
      (state.extent.width != swapchain->extent.width || state.extent.height != swapchain->extent.height)) {
    return VK_SUBOPTIMAL_KHR;
  }
  return VK_SUCCESS;
}

VkResult wait_point(Device* device, uint32_t ring, uint64_t seqno) {
  if (seqno == 0) return VK_SUCCESS;
  return device->drv->fence_wait(ring, seqno, UINT64_MAX) == drv::Status::kOk ? VK_SUCCESS : VK_ERROR_DEVICE_LOST;
}

// Refuses (a log line) a present that names an image it does not hold or waits on a semaphore
// nothing signals; such a present would show an image being rendered or hang. The caller holds
// the device mutex.
bool present_valid_locked(const VkPresentInfoKHR* info) {
  for (uint32_t i = 0; i < info->waitSemaphoreCount; ++i) {
    const Semaphore* s = from_handle<Semaphore>(info->pWaitSemaphores[i]);
    if (s == nullptr || s->state != Semaphore::State::kSignalPending) {
      std::fprintf(stderr, "gsgpu-vk: vkQueuePresentKHR: waits for a semaphore nothing signals; refused\n");
      return false;
    }
  }
  for (uint32_t i = 0; i < info->swapchainCount; ++i) {
    Swapchain* swapchain = from_handle<Swapchain>(info->pSwapchains[i]);
    const uint32_t index = info->pImageIndices[i];
    std::lock_guard lock(swapchain->mutex);
    if (index >= swapchain->images.size() || !swapchain->images[index].acquired) {
      std::fprintf(stderr, "gsgpu-vk: vkQueuePresentKHR: image %u of swapchain %u is not acquired; refused\n", index,
                   i);
      return false;
    }
  }
  return true;
}

// Shows one image on its swapchain's surface (an xcb window; a headless surface shows nothing) and
// frees it.
VkResult present_image(Swapchain* swapchain, uint32_t index) {
  const SurfaceState state = surface_state(swapchain->surface);
  VkResult result = result_for(state, swapchain);
#ifdef GSGPU_VK_XCB
  const auto* record = reinterpret_cast<const VkIcdSurfaceBase*>(swapchain->surface);
  if (!state.lost && record->platform == VK_ICD_WSI_PLATFORM_XCB) {
    const Image* image = from_handle<Image>(swapchain->images[index].image);
    const uint8_t* pixels = image->memory->map + image->memory_offset;
    const uint32_t width = std::min(swapchain->extent.width, state.extent.width);
    const uint32_t height = std::min(swapchain->extent.height, state.extent.height);
    if (!xcb_put_pixels(reinterpret_cast<const VkIcdSurfaceXcb*>(record), swapchain->gc, state.depth, pixels,
                        image->layout.levels[0].row_pitch, width, height)) {
      result = VK_ERROR_SURFACE_LOST_KHR;
    }
  }
#endif
  std::lock_guard lock(swapchain->mutex);
  swapchain->images[index].acquired = false;
  swapchain->released.notify_all();
  return result;
}

// Errors outrank VK_SUBOPTIMAL_KHR, which outranks VK_SUCCESS.
VkResult worse(VkResult a, VkResult b) {
  if (a < 0) return a;
  if (b < 0) return b;
  return a != VK_SUCCESS ? a : b;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkAcquireNextImageKHR(VkDevice handle, VkSwapchainKHR swapchain_handle,
                                                           uint64_t timeout_ns, VkSemaphore semaphore_handle,
                                                           VkFence fence_handle, uint32_t* index_out) {
  Device* device = from_handle<Device>(handle);
  Swapchain* swapchain = from_handle<Swapchain>(swapchain_handle);
  Semaphore* semaphore = from_handle<Semaphore>(semaphore_handle);
  Fence* fence = from_handle<Fence>(fence_handle);
  {
    std::lock_guard lock(device->mutex);
    if (semaphore != nullptr && semaphore->state != Semaphore::State::kUnsignaled) {
      std::fprintf(stderr, "gsgpu-vk: vkAcquireNextImageKHR: the semaphore has a signal pending; refused\n");
      return VK_ERROR_UNKNOWN;
    }
  }
  const SurfaceState state = surface_state(swapchain->surface);
  if (state.lost) return VK_ERROR_SURFACE_LOST_KHR;
  int index = -1;
  {
    std::unique_lock lock(swapchain->mutex);
    if (swapchain->retired) return VK_ERROR_OUT_OF_DATE_KHR;
    if (VkResult r = wait_for_free_image(swapchain, lock, timeout_ns, &index); r != VK_SUCCESS) return r;
    swapchain->images[index].acquired = true;
    swapchain->last_acquired = static_cast<uint32_t>(index);
  }
  *index_out = static_cast<uint32_t>(index);
  std::lock_guard lock(device->mutex);
  // Signalled now, with no point on the ring to wait for: the image's last present is done.
  if (semaphore != nullptr) *semaphore = Semaphore{Semaphore::State::kSignalPending, device->queue.ring, 0};
  if (fence != nullptr) *fence = Fence{.signaled = true};
  return result_for(state, swapchain);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueuePresentKHR(VkQueue queue_handle, const VkPresentInfoKHR* info) {
  Queue* queue = from_handle<Queue>(queue_handle);
  Device* device = queue->device;
  {
    std::lock_guard lock(device->mutex);
    if (!present_valid_locked(info)) return VK_ERROR_UNKNOWN;
    for (uint32_t i = 0; i < info->waitSemaphoreCount; ++i) {
      Semaphore* s = from_handle<Semaphore>(info->pWaitSemaphores[i]);
      if (VkResult r = wait_point(device, s->ring, s->seqno); r != VK_SUCCESS) return r;
      *s = Semaphore{};
    }
    // The queue's earlier work (the rendering of these images among it) has retired.
    if (VkResult r = wait_point(device, queue->ring, queue->last_seqno); r != VK_SUCCESS) return r;
  }
  VkResult overall = VK_SUCCESS;
  for (uint32_t i = 0; i < info->swapchainCount; ++i) {
    const VkResult r = present_image(from_handle<Swapchain>(info->pSwapchains[i]), info->pImageIndices[i]);
    if (info->pResults != nullptr) info->pResults[i] = r;
    overall = worse(overall, r);
  }
  return overall;
}

}  // namespace gsgpu::vk
