// vkQueueSubmit. A submission is checked whole, then queued; the queue runs its submissions in
// order, each on the host (its transfers and draws, after the queue's earlier work has retired),
// ending with a NOP packet on the queue's drv ring whose seqno is the submission's point: its
// fence, binary signals and timeline signals (TimelineSignal) complete when that point retires.
// A submission whose timeline wait nothing has signalled or promised yet (wait-before-signal)
// stays queued, and the ones after it with it, until a host signal (timeline.cc) lets it run; so
// does the rest of a submission that reached a vkCmdWaitEvents whose events are not set, until
// vkSetEvent (event.cc) lets it go on.
// docs/vulkan-driver.md "Synchronisation".
#include <cstdio>
#include <map>
#include <vector>

#include "gsgpu/drv/packets.h"
#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/timeline.h"

namespace gsgpu::vk {
namespace {

// The semaphore operations of one VkSubmitInfo with their timeline values. A timeline semaphore
// without a value in VkTimelineSemaphoreSubmitInfo (no structure, or a count that differs) is
// refused: the value would be read past its array.
bool gather_points(const VkSubmitInfo& submit, SubmittedBatch* batch) {
  const auto* values = find_in_chain<VkTimelineSemaphoreSubmitInfo>(submit.pNext,
                                                                   VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
  auto gather = [&](uint32_t count, const VkSemaphore* handles, uint32_t value_count, const uint64_t* value_array,
                    std::vector<SemaphorePoint>* out) {
    for (uint32_t i = 0; i < count; ++i) {
      Semaphore* s = from_handle<Semaphore>(handles[i]);
      if (s == nullptr) return false;
      uint64_t value = 0;
      if (s->timeline) {
        if (values == nullptr || value_count != count || value_array == nullptr) return false;
        value = value_array[i];
      }
      out->push_back({s, value});
    }
    return true;
  };
  return gather(submit.waitSemaphoreCount, submit.pWaitSemaphores, values ? values->waitSemaphoreValueCount : 0,
                values ? values->pWaitSemaphoreValues : nullptr, &batch->waits) &&
         gather(submit.signalSemaphoreCount, submit.pSignalSemaphores,
                values ? values->signalSemaphoreValueCount : 0, values ? values->pSignalSemaphoreValues : nullptr,
                &batch->signals);
}

// Semaphore misuse that would hang the queue, lose a signal or move a timeline backwards is
// refused before anything is queued: a wait on a binary semaphore that neither an earlier
// submission nor an earlier batch of this one signals (with one queue nothing could ever signal
// it), a signal of a binary semaphore whose signal is still pending, a timeline signal not above
// the semaphore's earlier signals. `binary` and `timeline` follow the states batch by batch.
bool points_valid(const std::vector<SubmittedBatch>& batches) {
  std::map<const Semaphore*, bool> binary;
  std::map<const Semaphore*, uint64_t> timeline;
  auto pending = [&](const Semaphore* s) {
    auto it = binary.find(s);
    return it != binary.end() ? it->second : s->state == Semaphore::State::kSignalPending;
  };
  for (const SubmittedBatch& batch : batches) {
    for (const SemaphorePoint& wait : batch.waits) {
      if (wait.semaphore->timeline) continue;  // may wait for a signal still to come
      if (!pending(wait.semaphore)) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: waits for a semaphore nothing signals; refused\n");
        return false;
      }
      binary[wait.semaphore] = false;
    }
    for (const SemaphorePoint& signal : batch.signals) {
      const Semaphore* s = signal.semaphore;
      if (!s->timeline && pending(s)) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: signals a semaphore already signalled; refused\n");
        return false;
      }
      if (!s->timeline) {
        binary[s] = true;
        continue;
      }
      const uint64_t last = timeline.count(s) ? timeline[s] : s->last_signal;
      if (signal.value <= last) {
        std::fprintf(stderr,
                     "gsgpu-vk: vkQueueSubmit: timeline signal value %llu not above the semaphore's %llu; refused\n",
                     static_cast<unsigned long long>(signal.value), static_cast<unsigned long long>(last));
        return false;
      }
      timeline[s] = signal.value;
    }
  }
  return true;
}

// Queues the submission: binary semaphores change state now (in submission order, which is the
// order they run in); their seqnos and the timeline signals come when it runs.
void enqueue_locked(Queue* queue, std::vector<SubmittedBatch> batches, Fence* fence) {
  for (const SubmittedBatch& batch : batches) {
    for (const SemaphorePoint& wait : batch.waits) {
      if (!wait.semaphore->timeline) wait.semaphore->state = Semaphore::State::kUnsignaled;
    }
    for (const SemaphorePoint& signal : batch.signals) {
      Semaphore* s = signal.semaphore;
      if (s->timeline) {
        s->last_signal = signal.value;
      } else {
        *s = Semaphore{Semaphore::State::kSignalPending, queue->ring, 0};
      }
    }
  }
  if (fence != nullptr) *fence = Fence{.queued = true};
  queue->waiting.push_back(QueuedSubmission{std::move(batches), fence});
}

// Whether every timeline wait of the submission is met by a value reached or promised (by a
// submission that has run, or by an earlier batch of this one).
bool ready_locked(const QueuedSubmission& submission) {
  std::map<const Semaphore*, uint64_t> promised;
  for (const SubmittedBatch& batch : submission.batches) {
    for (const SemaphorePoint& wait : batch.waits) {
      if (!wait.semaphore->timeline) continue;
      auto it = promised.find(wait.semaphore);
      const uint64_t reach = it != promised.end() ? it->second : timeline_promised(*wait.semaphore);
      if (wait.value > reach) return false;
    }
    for (const SemaphorePoint& signal : batch.signals) {
      if (signal.semaphore->timeline) promised[signal.semaphore] = signal.value;
    }
  }
  return true;
}

// Runs a submission's command buffers from where it stopped; false when a vkCmdWaitEvents found an
// event not set (the submission keeps its place and runs on when the host sets the event). The
// queue's earlier work has retired before it starts (wait for the queue's newest point), so a wait
// on a binary semaphore or on a promised timeline value has nothing left to wait for.
bool run_commands_locked(Queue* queue, QueuedSubmission* submission) {
  Device* device = queue->device;
  for (; submission->batch < submission->batches.size(); ++submission->batch, submission->buffer = 0) {
    const SubmittedBatch& batch = submission->batches[submission->batch];
    for (; submission->buffer < batch.command_buffers.size(); ++submission->buffer, submission->command = 0) {
      const CommandBuffer* cb = batch.command_buffers[submission->buffer];
      if (cb->state != CommandBuffer::State::kExecutable) {
        std::fprintf(stderr, "gsgpu-vk: vkQueueSubmit: command buffer not executable; skipped\n");
        continue;
      }
      submission->command = execute_commands(device, *cb, submission->command);
      if (submission->command < cb->commands.size()) return false;
    }
  }
  return true;
}

// Runs one submission (or the rest of it) and gives its signals and fence the NOP's seqno.
// *blocked when it stopped at an event that is not set.
VkResult run_submission_locked(Queue* queue, QueuedSubmission* submission, bool* blocked) {
  Device* device = queue->device;
  *blocked = false;
  if (queue->last_seqno != 0) {
    if (VkResult r = to_vk(device->drv->fence_wait(queue->ring, queue->last_seqno, UINT64_MAX)); r != VK_SUCCESS) {
      return r;
    }
  }
  submission->started = true;
  const uint64_t before = queue->last_seqno;
  const bool finished = run_commands_locked(queue, submission);
  device->stream.flush(device);  // the run's device work; at a vkCmdWaitEvents it is flushed already
  if (!finished) {
    *blocked = true;
    return VK_SUCCESS;
  }
  // The submission's point: its last device submission (waited for, after its host work), or a
  // NOP when it had none or that one faulted (a faulted seqno would fail the fence's wait).
  uint64_t seqno = queue->last_seqno;
  if (seqno == before || seqno == 0 || device->stream.last_faulted()) {
    const std::vector<uint32_t> packets = drv::encode_nop();
    drv::SubmitDesc desc;
    desc.ring = queue->ring;
    desc.packets = packets.data();
    desc.dwords = static_cast<uint32_t>(packets.size());
    if (drv::Status status = device->drv->submit(desc, &seqno); status != drv::Status::kOk) return to_vk(status);
    queue->last_seqno = seqno;
  }
  for (const SubmittedBatch& batch : submission->batches) {
    for (const SemaphorePoint& signal : batch.signals) {
      Semaphore* s = signal.semaphore;
      if (s->timeline) {
        s->pending.push_back({signal.value, queue->ring, seqno});
      } else {
        s->ring = queue->ring;
        s->seqno = seqno;
      }
    }
  }
  if (submission->fence != nullptr) *submission->fence = Fence{.ring = queue->ring, .seqno = seqno};
  return VK_SUCCESS;
}

}  // namespace

VkResult run_ready_submissions_locked(Queue* queue) {
  VkResult result = VK_SUCCESS;
  bool ran = false;
  while (!queue->waiting.empty() && (queue->waiting.front().started || ready_locked(queue->waiting.front()))) {
    bool blocked = false;
    const VkResult r = run_submission_locked(queue, &queue->waiting.front(), &blocked);
    if (blocked) break;  // held at a vkCmdWaitEvents until the host sets its events
    const QueuedSubmission submission = std::move(queue->waiting.front());
    queue->waiting.pop_front();
    ran = true;
    if (r != VK_SUCCESS) {
      // Its fence can never signal now: waiters see the failure instead of sleeping.
      if (submission.fence != nullptr) *submission.fence = Fence{};
      if (result == VK_SUCCESS) result = r;
    }
  }
  if (ran) queue->device->progress.notify_all();
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueSubmit(VkQueue handle, uint32_t count, const VkSubmitInfo* submits,
                                                   VkFence fence_handle) {
  Queue* queue = from_handle<Queue>(handle);
  std::lock_guard lock(queue->device->mutex);
  std::vector<SubmittedBatch> batches(count);
  for (uint32_t i = 0; i < count; ++i) {
    if (!gather_points(submits[i], &batches[i])) {
      std::fprintf(stderr,
                   "gsgpu-vk: vkQueueSubmit: batch %u: a null semaphore, or a timeline semaphore without its value in "
                   "VkTimelineSemaphoreSubmitInfo; refused\n",
                   i);
      return VK_ERROR_UNKNOWN;
    }
    for (uint32_t j = 0; j < submits[i].commandBufferCount; ++j) {
      batches[i].command_buffers.push_back(from_handle<CommandBuffer>(submits[i].pCommandBuffers[j]));
    }
  }
  if (!points_valid(batches)) return VK_ERROR_UNKNOWN;
  enqueue_locked(queue, std::move(batches), from_handle<Fence>(fence_handle));
  return run_ready_submissions_locked(queue);
}

}  // namespace gsgpu::vk
