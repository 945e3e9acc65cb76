// Timeline semaphores (VK_KHR_timeline_semaphore): vkCreateSemaphore with
// VkSemaphoreTypeCreateInfo, vkGetSemaphoreCounterValue, vkWaitSemaphores, vkSignalSemaphore. A
// timeline's value grows by host signals and by submissions (queue_submit.cc): a submission that
// has run leaves a TimelineSignal, its value reached when its NOP's seqno retires on the ring, so
// a host wait for a value a submission promises is a drv fence_wait; a wait for a value nothing
// promises yet sleeps on Device::progress until a host signal or a submission changes that.
// docs/vulkan-driver.md "Synchronisation".
#include <algorithm>
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/timeline.h"

namespace gsgpu::vk {
namespace {

// A host wait that only a host signal or a new submission can end is woken by Device::progress;
// one that a running submission may also end watches the ring in slices of this length.
constexpr uint64_t kMixedWaitSliceNs = 1'000'000;

Semaphore* timeline_or_log(VkSemaphore handle, const char* command) {
  Semaphore* s = from_handle<Semaphore>(handle);
  if (s == nullptr || !s->timeline) {
    std::fprintf(stderr, "gsgpu-vk: %s: not a timeline semaphore; refused\n", command);
    return nullptr;
  }
  return s;
}

// The first signal of a submission that has run and reaches `value`, or null.
const TimelineSignal* signal_reaching(const Semaphore& s, uint64_t value) {
  for (const TimelineSignal& signal : s.pending) {
    if (signal.value >= value) return &signal;
  }
  return nullptr;
}

// The lowest value a signal operation not yet executed will set: a host signal must stay below it.
uint64_t lowest_pending_signal(const Queue& queue, const Semaphore& s) {
  uint64_t lowest = s.pending.empty() ? UINT64_MAX : s.pending.front().value;
  for (const QueuedSubmission& submission : queue.waiting) {
    for (const SubmittedBatch& batch : submission.batches) {
      for (const SemaphorePoint& point : batch.signals) {
        if (point.semaphore == &s) lowest = std::min(lowest, point.value);
      }
    }
  }
  return lowest;
}

}  // namespace

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

uint64_t timeline_value_locked(Device* device, Semaphore* s) {
  while (!s->pending.empty()) {
    const TimelineSignal& first = s->pending.front();
    if (device->drv->fence_poll(first.ring) < first.seqno) break;
    s->value = std::max(s->value, first.value);
    s->pending.erase(s->pending.begin());
  }
  return s->value;
}

uint64_t timeline_promised(const Semaphore& s) {
  return s.pending.empty() ? s.value : std::max(s.value, s.pending.back().value);
}

Deadline::Deadline(uint64_t timeout_ns) {
  constexpr uint64_t kForeverNs = uint64_t{1} << 62;  // steady_clock's nanoseconds cannot add more
  forever_ = timeout_ns >= kForeverNs;
  if (!forever_) end_ = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
}

bool Deadline::passed() const { return !forever_ && std::chrono::steady_clock::now() >= end_; }

uint64_t Deadline::remaining_ns() const {
  if (forever_) return UINT64_MAX;
  const auto left = end_ - std::chrono::steady_clock::now();
  return left.count() <= 0 ? 0 : static_cast<uint64_t>(std::chrono::nanoseconds(left).count());
}

void Deadline::wait(Device* device, std::unique_lock<std::mutex>& lock) const {
  if (forever_) {
    device->progress.wait(lock);
  } else {
    device->progress.wait_until(lock, end_);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateSemaphore(VkDevice, const VkSemaphoreCreateInfo* info,
                                                       const VkAllocationCallbacks*, VkSemaphore* out) {
  const auto* type = find_in_chain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  const bool timeline = type != nullptr && type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE;
  if (type != nullptr && !timeline && type->initialValue != 0) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateSemaphore: a binary semaphore with initial value %llu; refused\n",
                 static_cast<unsigned long long>(type->initialValue));
    return VK_ERROR_UNKNOWN;
  }
  auto* semaphore = new (std::nothrow) Semaphore;
  if (semaphore == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  semaphore->timeline = timeline;
  if (timeline) semaphore->value = semaphore->last_signal = type->initialValue;
  *out = to_handle<VkSemaphore>(semaphore);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroySemaphore(VkDevice, VkSemaphore semaphore, const VkAllocationCallbacks*) {
  delete from_handle<Semaphore>(semaphore);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetSemaphoreCounterValue(VkDevice handle, VkSemaphore semaphore,
                                                                uint64_t* value) {
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  Semaphore* s = timeline_or_log(semaphore, "vkGetSemaphoreCounterValue");
  if (s == nullptr) return VK_ERROR_UNKNOWN;
  *value = timeline_value_locked(device, s);
  return VK_SUCCESS;
}

// A host signal: the value must exceed the current one and stay below every signal not yet
// executed (the spec's valid usage; refused otherwise, so the timeline never goes backwards).
// Submissions that waited for it run now, in this thread.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkSignalSemaphore(VkDevice handle, const VkSemaphoreSignalInfo* info) {
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  Semaphore* s = timeline_or_log(info->semaphore, "vkSignalSemaphore");
  if (s == nullptr) return VK_ERROR_UNKNOWN;
  const uint64_t current = timeline_value_locked(device, s);
  const uint64_t ceiling = lowest_pending_signal(device->queue, *s);
  if (info->value <= current || info->value >= ceiling) {
    std::fprintf(stderr,
                 "gsgpu-vk: vkSignalSemaphore: value %llu not above the current %llu or not below a pending "
                 "signal (%llu); refused\n",
                 static_cast<unsigned long long>(info->value), static_cast<unsigned long long>(current),
                 static_cast<unsigned long long>(ceiling));
    return VK_ERROR_UNKNOWN;
  }
  s->value = info->value;
  s->last_signal = std::max(s->last_signal, info->value);
  device->progress.notify_all();
  return run_ready_submissions_locked(&device->queue);
}

// Waits until all (or, with VK_SEMAPHORE_WAIT_ANY_BIT, one) of the semaphores reach their values.
// A value a submission that has run promises is waited for on the ring; one nothing promises yet,
// on Device::progress. Each pass re-reads every semaphore, so a host signal from another thread
// or a new submission is seen.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkWaitSemaphores(VkDevice handle, const VkSemaphoreWaitInfo* info,
                                                      uint64_t timeout_ns) {
  Device* device = from_handle<Device>(handle);
  const bool wait_any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
  const Deadline deadline(timeout_ns);
  std::unique_lock lock(device->mutex);
  for (;;) {
    uint32_t reached = 0;
    bool all_promised = true;
    const TimelineSignal* soonest = nullptr;
    for (uint32_t i = 0; i < info->semaphoreCount; ++i) {
      Semaphore* s = timeline_or_log(info->pSemaphores[i], "vkWaitSemaphores");
      if (s == nullptr) return VK_ERROR_UNKNOWN;
      if (timeline_value_locked(device, s) >= info->pValues[i]) {
        ++reached;
        continue;
      }
      const TimelineSignal* signal = signal_reaching(*s, info->pValues[i]);
      if (signal == nullptr) {
        all_promised = false;
      } else if (soonest == nullptr || signal->seqno < soonest->seqno) {
        soonest = signal;
      }
    }
    if (wait_any ? (reached > 0 || info->semaphoreCount == 0) : reached == info->semaphoreCount) return VK_SUCCESS;
    if (deadline.passed()) return VK_TIMEOUT;
    if (soonest == nullptr) {
      deadline.wait(device, lock);
      continue;
    }
    const uint32_t ring = soonest->ring;
    const uint64_t seqno = soonest->seqno;
    // Where a host signal could end the wait first, the ring is watched in slices.
    const uint64_t budget =
        (wait_any && !all_promised) ? std::min(deadline.remaining_ns(), kMixedWaitSliceNs) : deadline.remaining_ns();
    lock.unlock();
    const drv::Status status = device->drv->fence_wait(ring, seqno, budget);
    lock.lock();
    if (status != drv::Status::kOk && status != drv::Status::kTimeout) return to_vk(status);
  }
}

}  // namespace gsgpu::vk
