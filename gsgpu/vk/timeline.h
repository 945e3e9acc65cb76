// What the queue (queue.cc, queue_submit.cc) and the timeline semaphores (timeline.cc) share: the
// queue runs submissions in order and holds back one whose timeline waits nothing can meet yet
// (wait-before-signal); a host signal or a later submission lets it run.
#pragma once

#include <chrono>
#include <mutex>

#include "gsgpu/vk/objects.h"

namespace gsgpu::vk {

VkResult to_vk(drv::Status status);

// The value timeline semaphore `s` has reached; retires the signals whose submissions completed.
// The caller holds device->mutex.
uint64_t timeline_value_locked(Device* device, Semaphore* s);

// The value `s` reaches without further host signals or submissions: its value or the highest
// signal of a submission that has run.
uint64_t timeline_promised(const Semaphore& s);

// Runs the queue's waiting submissions, oldest first, while every timeline wait of the next one
// can be met; notifies Device::progress when one ran. Returns the first failure (a lost device).
// The caller holds device->mutex.
VkResult run_ready_submissions_locked(Queue* queue);

// A host wait's end: `timeout_ns` from now, or never (a timeout past ~292 years).
class Deadline {
 public:
  explicit Deadline(uint64_t timeout_ns);
  bool passed() const;
  uint64_t remaining_ns() const;  // UINT64_MAX when there is no end
  // Sleeps on device->progress until notified or the deadline; `lock` holds device->mutex.
  void wait(Device* device, std::unique_lock<std::mutex>& lock) const;

 private:
  bool forever_ = false;
  std::chrono::steady_clock::time_point end_;
};

}  // namespace gsgpu::vk
