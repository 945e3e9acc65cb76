// The queue and fences. vkQueueSubmit runs the submitted transfers on the host (after the
// queue's earlier work has retired, so the queue stays ordered), then submits a NOP packet on the
// queue's drv ring: its seqno is the batch's point on the device timeline, and a fence is that
// seqno, waited for with drv fence_wait. docs/vulkan-driver.md "Transfers" says why.
#include <cstdio>
#include <new>

#include "gsgpu/drv/packets.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

VkResult to_vk(drv::Status status) {
  switch (status) {
    case drv::Status::kOk:
      return VK_SUCCESS;
    case drv::Status::kTimeout:
      return VK_TIMEOUT;
    case drv::Status::kOutOfMemory:
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    default:
      return VK_ERROR_DEVICE_LOST;  // a faulted or cancelled submission, or a lost device
  }
}

// Waits for the newest submission of the queue; the caller holds the device mutex.
VkResult wait_queue_locked(Queue* queue) {
  if (queue->last_seqno == 0) return VK_SUCCESS;
  return to_vk(queue->device->drv->fence_wait(queue->ring, queue->last_seqno, UINT64_MAX));
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueSubmit(VkQueue handle, uint32_t count, const VkSubmitInfo* submits,
                                                   VkFence fence_handle) {
  Queue* queue = from_handle<Queue>(handle);
  Device* device = queue->device;
  std::lock_guard lock(device->mutex);
  if (VkResult r = wait_queue_locked(queue); r != VK_SUCCESS) return r;
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t j = 0; j < submits[i].commandBufferCount; ++j) {
      const CommandBuffer* cb = from_handle<CommandBuffer>(submits[i].pCommandBuffers[j]);
      if (cb->state != CommandBuffer::State::kExecutable) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: command buffer not executable; skipped\n");
        continue;
      }
      execute_commands(device, *cb);
    }
  }
  const std::vector<uint32_t> packets = drv::encode_nop();
  drv::SubmitDesc desc;
  desc.ring = queue->ring;
  desc.packets = packets.data();
  desc.dwords = static_cast<uint32_t>(packets.size());
  uint64_t seqno = 0;
  if (drv::Status status = device->drv->submit(desc, &seqno); status != drv::Status::kOk) return to_vk(status);
  queue->last_seqno = seqno;
  if (Fence* fence = from_handle<Fence>(fence_handle)) {
    fence->signaled = false;
    fence->ring = queue->ring;
    fence->seqno = seqno;
  }
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueWaitIdle(VkQueue handle) {
  Queue* queue = from_handle<Queue>(handle);
  std::lock_guard lock(queue->device->mutex);
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
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkWaitForFences(VkDevice handle, uint32_t count, const VkFence* fences,
                                                     VkBool32 wait_all, uint64_t timeout_ns) {
  Device* device = from_handle<Device>(handle);
  uint64_t target = 0;
  uint32_t ring = 0;
  bool unsubmitted = false;
  {
    std::lock_guard lock(device->mutex);
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
  if (VkResult r = to_vk(device->drv->fence_wait(ring, target, timeout_ns)); r != VK_SUCCESS) return r;
  std::lock_guard lock(device->mutex);
  for (uint32_t i = 0; i < count; ++i) {
    Fence* fence = from_handle<Fence>(fences[i]);
    if (fence->seqno != 0 && fence->seqno <= target) fence->signaled = true;
  }
  return (wait_all && unsubmitted) ? VK_TIMEOUT : VK_SUCCESS;
}

}  // namespace gsgpu::vk
