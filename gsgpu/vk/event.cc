// Events (docs/vulkan-driver.md "Queries and events"). An event is a 64-bit
// word (1 set, 0 reset) in a BO mapped for the host and at a GPU address, so
// both see one state: the host reads and writes the word; vkCmdSetEvent /
// vkCmdResetEvent are SYNC packets that write it once every earlier command is
// complete. vkCmdWaitEvents is kept by the queue, not the device: the queue
// runs its commands in order, so when it reaches the wait every earlier device
// write has landed, and if an event is not set yet only the host can still set
// it (a later submission waits behind this one). The queue then holds the rest
// of the submission (queue_submit.cc) and vkSetEvent lets it go on. The command
// processor never waits on memory: a ring held for as long as the application
// likes would stall the device thread (in the native context, every client's
// work) until a time budget killed it; the host holding the submission costs
// nothing while it waits.
#include <atomic>
#include <new>

#include "gsgpu/drv/packets.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/timeline.h"

namespace gsgpu::vk {
namespace {

constexpr uint64_t kSet = 1, kReset = 0;

uint64_t load(const Event &event) {
  return std::atomic_ref<const uint64_t>(*event.word)
      .load(std::memory_order_acquire);
}
void store(const Event &event, uint64_t value) {
  std::atomic_ref<uint64_t>(*event.word)
      .store(value, std::memory_order_release);
}

template <typename T> void record(VkCommandBuffer handle, T &&command) {
  CommandBuffer *cb = from_handle<CommandBuffer>(handle);
  if (cb->state == CommandBuffer::State::kRecording)
    cb->commands.emplace_back(std::forward<T>(command));
}

} // namespace

VKAPI_ATTR VkResult VKAPI_CALL
gsgpu_vkCreateEvent(VkDevice handle, const VkEventCreateInfo *,
                    const VkAllocationCallbacks *, VkEvent *out) {
  *out = VK_NULL_HANDLE;
  Device *device = from_handle<Device>(handle);
  auto *event = new (std::nothrow) Event;
  if (event == nullptr)
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  event->device = device;
  event->va_size = device->drv->caps().page_size;
  std::lock_guard lock(device->mutex);
  if (device->drv->bo_create(event->va_size, 0, &event->bo) !=
      drv::Status::kOk) {
    delete event;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  std::optional<uint64_t> va = device->va->allocate(event->va_size);
  if (!va ||
      device->drv->va_bind(event->bo, 0, *va, event->va_size,
                           drv::kVaRead | drv::kVaWrite) != drv::Status::kOk) {
    if (va)
      device->va->free(*va);
    device->drv->bo_free(event->bo);
    delete event;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  event->va = *va;
  event->word = static_cast<uint64_t *>(
      device->drv->bo_map(event->bo)); // zero-filled: reset
  *out = to_handle<VkEvent>(event);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyEvent(VkDevice handle,
                                                VkEvent event_handle,
                                                const VkAllocationCallbacks *) {
  Event *event = from_handle<Event>(event_handle);
  if (event == nullptr)
    return;
  Device *device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  device->drv->va_unbind(event->va, event->va_size);
  device->va->free(event->va);
  device->drv->bo_free(event->bo);
  delete event;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetEventStatus(VkDevice, VkEvent event) {
  return load(*from_handle<Event>(event)) == kSet ? VK_EVENT_SET
                                                  : VK_EVENT_RESET;
}

// A submission held at a vkCmdWaitEvents may go on now: the queue runs what can
// run, on this thread.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkSetEvent(VkDevice handle,
                                                VkEvent event) {
  Device *device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  store(*from_handle<Event>(event), kSet);
  return run_ready_submissions_locked(&device->queue);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkResetEvent(VkDevice handle,
                                                  VkEvent event) {
  std::lock_guard lock(from_handle<Device>(handle)->mutex);
  store(*from_handle<Event>(event), kReset);
  return VK_SUCCESS;
}

void run(Device *device, const EventCommand &c) {
  const std::vector<uint32_t> packets = drv::encode_sync(
      drv::kSyncWriteFence | drv::kSyncFence64, c.event->va, c.value);
  stream_packets(device, packets, c.event->bo,
                          c.value == kSet ? "vkCmdSetEvent"
                                          : "vkCmdResetEvent");
}

bool events_set(const WaitEventsCommand &c) {
  for (const Event *event : c.events) {
    if (load(*event) != kSet)
      return false;
  }
  return true;
}

// Every stage has finished when the SYNC runs, so the stage mask asks for
// nothing more.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetEvent(VkCommandBuffer cb,
                                               VkEvent event,
                                               VkPipelineStageFlags) {
  if (event == VK_NULL_HANDLE)
    return log_refusal("vkCmdSetEvent", "no event", "not recorded");
  record(cb, EventCommand{from_handle<Event>(event), kSet});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdResetEvent(VkCommandBuffer cb,
                                                 VkEvent event,
                                                 VkPipelineStageFlags) {
  if (event == VK_NULL_HANDLE)
    return log_refusal("vkCmdResetEvent", "no event", "not recorded");
  record(cb, EventCommand{from_handle<Event>(event), kReset});
}

// The memory barriers need no work, as vkCmdPipelineBarrier's (sync.cc): every
// earlier command has finished, written through coherent memory, when the queue
// goes past the wait.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdWaitEvents(
    VkCommandBuffer cb, uint32_t count, const VkEvent *events,
    VkPipelineStageFlags, VkPipelineStageFlags, uint32_t,
    const VkMemoryBarrier *, uint32_t, const VkBufferMemoryBarrier *, uint32_t,
    const VkImageMemoryBarrier *) {
  WaitEventsCommand command;
  for (uint32_t i = 0; i < count; ++i) {
    if (events[i] == VK_NULL_HANDLE)
      return log_refusal("vkCmdWaitEvents", "a null event", "not recorded");
    command.events.push_back(from_handle<Event>(events[i]));
  }
  record(cb, std::move(command));
}

} // namespace gsgpu::vk
