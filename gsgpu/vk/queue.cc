// The queue and fences. vkQueueSubmit runs the submitted transfers on the host (after the
// queue's earlier work has retired, so the queue stays ordered), then submits a NOP packet on the
// queue's drv ring: its seqno is the batch's point on the device timeline, and a fence is that
// seqno, waited for with drv fence_wait. docs/vulkan-driver.md "Transfers" says why.
#include <cstdio>
#include <map>
#include <vector>
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

// Semaphore misuse that would hang the queue or lose a signal is refused before anything runs
// (a log line, VK_ERROR_UNKNOWN): a wait on a semaphore that neither an earlier submission nor an
// earlier batch of this one signals (with one queue nothing could ever signal it), or a signal of
// a semaphore whose signal is still pending. `pending` follows the states batch by batch.
bool semaphores_valid(uint32_t count, const VkSubmitInfo* submits) {
  std::map<const Semaphore*, bool> pending;
  auto signaled = [&](const Semaphore* s) {
    auto it = pending.find(s);
    return it != pending.end() ? it->second : s->state == Semaphore::State::kSignalPending;
  };
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t j = 0; j < submits[i].waitSemaphoreCount; ++j) {
      const Semaphore* s = from_handle<Semaphore>(submits[i].pWaitSemaphores[j]);
      if (s == nullptr || !signaled(s)) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: waits for a semaphore nothing signals; refused\n");
        return false;
      }
      pending[s] = false;
    }
    for (uint32_t j = 0; j < submits[i].signalSemaphoreCount; ++j) {
      const Semaphore* s = from_handle<Semaphore>(submits[i].pSignalSemaphores[j]);
      if (s == nullptr || signaled(s)) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: signals a semaphore already signalled; refused\n");
        return false;
      }
      pending[s] = true;
    }
  }
  return true;
}

// Runs one batch: waits for its semaphores' signal points and consumes them, runs its command
// buffers, and marks its signal semaphores pending at "this submission" (seqno 0 until the NOP
// gives the point; a later batch of the same call waiting on one has nothing to wait for, the
// batches run in order). The caller holds the device mutex.
VkResult run_batch_locked(Queue* queue, const VkSubmitInfo& batch, std::vector<Semaphore*>* signals) {
  Device* device = queue->device;
  for (uint32_t j = 0; j < batch.waitSemaphoreCount; ++j) {
    Semaphore* s = from_handle<Semaphore>(batch.pWaitSemaphores[j]);
    if (s->seqno != 0) {
      if (VkResult r = to_vk(device->drv->fence_wait(s->ring, s->seqno, UINT64_MAX)); r != VK_SUCCESS) return r;
    }
    *s = Semaphore{};
  }
  for (uint32_t j = 0; j < batch.commandBufferCount; ++j) {
    const CommandBuffer* cb = from_handle<CommandBuffer>(batch.pCommandBuffers[j]);
    if (cb->state != CommandBuffer::State::kExecutable) {
      std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: command buffer not executable; skipped\n");
      continue;
    }
    execute_commands(device, *cb);
  }
  for (uint32_t j = 0; j < batch.signalSemaphoreCount; ++j) {
    Semaphore* s = from_handle<Semaphore>(batch.pSignalSemaphores[j]);
    *s = Semaphore{Semaphore::State::kSignalPending, queue->ring, 0};
    signals->push_back(s);
  }
  return VK_SUCCESS;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueSubmit(VkQueue handle, uint32_t count, const VkSubmitInfo* submits,
                                                   VkFence fence_handle) {
  Queue* queue = from_handle<Queue>(handle);
  Device* device = queue->device;
  std::lock_guard lock(device->mutex);
  if (!semaphores_valid(count, submits)) return VK_ERROR_UNKNOWN;
  if (VkResult r = wait_queue_locked(queue); r != VK_SUCCESS) return r;
  std::vector<Semaphore*> signals;
  for (uint32_t i = 0; i < count; ++i) {
    if (VkResult r = run_batch_locked(queue, submits[i], &signals); r != VK_SUCCESS) return r;
  }
  const std::vector<uint32_t> packets = drv::encode_nop();
  drv::SubmitDesc desc;
  desc.ring = queue->ring;
  desc.packets = packets.data();
  desc.dwords = static_cast<uint32_t>(packets.size());
  uint64_t seqno = 0;
  if (drv::Status status = device->drv->submit(desc, &seqno); status != drv::Status::kOk) return to_vk(status);
  queue->last_seqno = seqno;
  // Signals happen at the submission's point: those still pending (not consumed by a later batch
  // of this call) take its seqno.
  for (Semaphore* s : signals) {
    if (s->state == Semaphore::State::kSignalPending && s->seqno == 0) s->seqno = seqno;
  }
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
