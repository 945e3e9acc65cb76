// The queue and fences. vkQueueSubmit (queue_submit.cc) runs the submitted work on the host
// (after the queue's earlier work has retired, so the queue stays ordered), then submits a NOP
// packet on the queue's drv ring: its seqno is the batch's point on the device timeline, and a
// fence is that seqno, waited for with drv fence_wait. docs/vulkan-driver.md "Transfers" says why.
// A fence whose submission is still queued (waiting for a timeline value) has no seqno yet: a
// wait for it sleeps on Device::progress until the submission runs.
#include <new>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/timeline.h"

namespace gsgpu::vk {
namespace {

// Waits for the newest submission of the queue; the caller holds the device mutex.
VkResult wait_queue_locked(Queue* queue) {
  if (queue->last_seqno == 0) return VK_SUCCESS;
  return to_vk(queue->device->drv->fence_wait(queue->ring, queue->last_seqno, UINT64_MAX));
}

}  // namespace

// Submissions still queued run when their timeline values are signalled from the host; idle
// is after them.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueWaitIdle(VkQueue handle) {
  Queue* queue = from_handle<Queue>(handle);
  std::unique_lock lock(queue->device->mutex);
  queue->device->progress.wait(lock, [queue] { return queue->waiting.empty(); });
  return wait_queue_locked(queue);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateFence(VkDevice, const VkFenceCreateInfo* info,
                                                   const VkAllocationCallbacks*, VkFence* out) {
  auto* fence = new (std::nothrow) Fence;
  if (fence == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  fence->signaled = (info->flags & VK_FENCE_CREATE_SIGNALED_BIT) != 0;
  *out = to_handle<VkFence>(fence);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyFence(VkDevice, VkFence fence, const VkAllocationCallbacks*) {
  delete from_handle<Fence>(fence);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkResetFences(VkDevice handle, uint32_t count, const VkFence* fences) {
  std::lock_guard lock(from_handle<Device>(handle)->mutex);
  for (uint32_t i = 0; i < count; ++i) *from_handle<Fence>(fences[i]) = Fence{};
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetFenceStatus(VkDevice handle, VkFence fence_handle) {
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  Fence* fence = from_handle<Fence>(fence_handle);
  if (!fence->signaled && fence->seqno != 0 && device->drv->fence_poll(fence->ring) >= fence->seqno) {
    fence->signaled = true;
  }
  return fence->signaled ? VK_SUCCESS : VK_NOT_READY;
}

// One ring retires in order, so waiting for all fences is waiting for the highest seqno, and
// waiting for any is waiting for the lowest. A fence never submitted cannot signal: VK_TIMEOUT.
// Fences whose submissions are still queued are waited for on Device::progress first: for all,
// until none is queued; for any, until one is not (queued ones run after every submitted one).
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkWaitForFences(VkDevice handle, uint32_t count, const VkFence* fences,
                                                     VkBool32 wait_all, uint64_t timeout_ns) {
  Device* device = from_handle<Device>(handle);
  uint64_t target = 0;
  uint32_t ring = 0;
  bool unsubmitted = false;
  const Deadline deadline(timeout_ns);
  {
    std::unique_lock lock(device->mutex);
    auto held_back = [&] {
      bool any_queued = false;
      bool any_submitted = false;
      for (uint32_t i = 0; i < count; ++i) {
        const Fence* fence = from_handle<Fence>(fences[i]);
        any_queued |= fence->queued;
        any_submitted |= fence->signaled || fence->seqno != 0;
      }
      return wait_all ? any_queued : (any_queued && !any_submitted);
    };
    while (held_back()) {
      if (deadline.passed()) return VK_TIMEOUT;
      deadline.wait(device, lock);
    }
    for (uint32_t i = 0; i < count; ++i) {
      const Fence* fence = from_handle<Fence>(fences[i]);
      if (fence->signaled && !wait_all) return VK_SUCCESS;
      if (fence->signaled) continue;
      if (fence->seqno == 0) {
        unsubmitted = true;
        continue;
      }
      ring = fence->ring;
      if (target == 0 || (wait_all ? fence->seqno > target : fence->seqno < target)) target = fence->seqno;
    }
  }
  if (target == 0) return unsubmitted ? VK_TIMEOUT : VK_SUCCESS;
  const uint64_t remaining = deadline.remaining_ns();
  if (VkResult r = to_vk(device->drv->fence_wait(ring, target, remaining)); r != VK_SUCCESS) return r;
  std::lock_guard lock(device->mutex);
  for (uint32_t i = 0; i < count; ++i) {
    Fence* fence = from_handle<Fence>(fences[i]);
    if (fence->seqno != 0 && fence->seqno <= target) fence->signaled = true;
  }
  return (wait_all && unsubmitted) ? VK_TIMEOUT : VK_SUCCESS;
}

}  // namespace gsgpu::vk
