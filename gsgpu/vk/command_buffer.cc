// Command pools and command buffers. Recording keeps the transfer commands; vkQueueSubmit runs
// them (execute_commands). Every range is checked when it runs, overflow-safe: a region outside
// its buffer, or a buffer without memory, is skipped with a log line and nothing is written
// (Vulkan calls it invalid usage; the driver refuses it, the host does not crash).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <type_traits>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// The bytes [offset, offset + size) of a bound buffer, or nullptr (with a log line) when the
// range is not inside it.
uint8_t* buffer_bytes(const Buffer* buffer, uint64_t offset, uint64_t size, const char* what) {
  if (buffer->memory == nullptr) {
    std::fprintf(stderr, "gsgpu-vk: %s: buffer not bound to memory (or its memory was freed); skipped\n", what);
    return nullptr;
  }
  if (offset > buffer->size || size > buffer->size - offset) {
    std::fprintf(stderr, "gsgpu-vk: %s: range [%llu, +%llu) outside a buffer of %llu bytes; skipped\n", what,
                 static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
                 static_cast<unsigned long long>(buffer->size));
    return nullptr;
  }
  return buffer->memory->map + buffer->memory_offset + offset;
}

void run(const CopyCommand& copy) {
  for (const VkBufferCopy& r : copy.regions) {
    uint8_t* src = buffer_bytes(copy.src, r.srcOffset, r.size, "vkCmdCopyBuffer src");
    uint8_t* dst = buffer_bytes(copy.dst, r.dstOffset, r.size, "vkCmdCopyBuffer dst");
    if (src && dst) std::memmove(dst, src, r.size);  // overlap is invalid usage; memmove keeps it defined
  }
}

void run(const FillCommand& fill) {
  uint64_t size = fill.size;
  if (size == VK_WHOLE_SIZE) size = fill.offset <= fill.dst->size ? (fill.dst->size - fill.offset) & ~uint64_t{3} : 0;
  if (fill.offset % 4 != 0 || size % 4 != 0) {
    std::fprintf(stderr, "gsgpu-vk: vkCmdFillBuffer: offset and size must be multiples of 4; skipped\n");
    return;
  }
  uint8_t* dst = buffer_bytes(fill.dst, fill.offset, size, "vkCmdFillBuffer");
  if (dst == nullptr) return;
  for (uint64_t i = 0; i < size; i += 4) std::memcpy(dst + i, &fill.data, 4);
}

void run(const UpdateCommand& update) {
  uint8_t* dst = buffer_bytes(update.dst, update.offset, update.data.size(), "vkCmdUpdateBuffer");
  if (dst) std::memcpy(dst, update.data.data(), update.data.size());
}

// A barrier runs nothing: the transfers before it have finished, written through coherent memory,
// when the ones after it start (sync.cc, docs/vulkan-driver.md "Synchronisation").
void run(const BarrierCommand&) {}

// Recording into a buffer that is not recording (or out of host memory) marks nothing: the
// command is dropped, as invalid usage.
template <typename T>
void record(VkCommandBuffer handle, T&& command) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording) return;
  cb->commands.emplace_back(std::forward<T>(command));
}

// Whether a host command touches memory the device reads or writes, so the stream must be flushed
// before it: every one but a barrier (no work: the stream runs in order) and a render pass begun
// without load-op clears.
bool touches_memory(const Command& command) {
  if (std::holds_alternative<BarrierCommand>(command)) return false;
  if (const auto* begin = std::get_if<BeginRenderPassCommand>(&command)) {
    return begin->clear_color || begin->clear_depth || begin->clear_stencil;
  }
  return true;
}

}  // namespace

size_t execute_commands(Device* device, const CommandBuffer& cb, size_t first) {
  for (size_t i = first; i < cb.commands.size(); ++i) {
    const Command& command = cb.commands[i];
    if (const auto* wait = std::get_if<WaitEventsCommand>(&command)) {
      device->stream.flush(device);  // an event set by an earlier SYNC of the run must have landed
      if (!events_set(*wait)) return i;
      continue;
    }
    std::visit(
        [device, &command](const auto& c) {
          if constexpr (requires { run(device, c); }) {
            run(device, c);  // device work: joins the stream
          } else if constexpr (requires { run(c); }) {
            // Host work: the device's results so far must have landed, and its writes must land
            // before later device work reads them.
            if (touches_memory(command)) device->stream.flush(device);
            run(c);
          }
        },
        command);
  }
  return cb.commands.size();
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateCommandPool(VkDevice, const VkCommandPoolCreateInfo* info,
                                                         const VkAllocationCallbacks*, VkCommandPool* out) {
  if (info->queueFamilyIndex != kQueueFamilyIndex) return VK_ERROR_INITIALIZATION_FAILED;
  auto* pool = new (std::nothrow) CommandPool;
  if (pool == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  pool->queue_family = info->queueFamilyIndex;
  *out = to_handle<VkCommandPool>(pool);
  return VK_SUCCESS;
}

// Command buffers are owned by the application until freed; destroying the pool frees those it
// still knows (the spec: destroying a pool frees its command buffers).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyCommandPool(VkDevice, VkCommandPool handle, const VkAllocationCallbacks*) {
  CommandPool* pool = from_handle<CommandPool>(handle);
  if (pool == nullptr) return;
  for (CommandBuffer* cb : pool->buffers) delete cb;
  delete pool;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkResetCommandPool(VkDevice, VkCommandPool handle, VkCommandPoolResetFlags) {
  for (CommandBuffer* cb : from_handle<CommandPool>(handle)->buffers) {
    cb->commands.clear();
    cb->bindings = {};
    cb->graphics = {};
    cb->compute_pipeline = nullptr;
    cb->state = CommandBuffer::State::kInitial;
  }
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkAllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* info,
                                                              VkCommandBuffer* out) {
  CommandPool* pool = from_handle<CommandPool>(info->commandPool);
  for (uint32_t i = 0; i < info->commandBufferCount; ++i) {
    auto* cb = new (std::nothrow) CommandBuffer;
    if (cb == nullptr) {
      gsgpu_vkFreeCommandBuffers(device, info->commandPool, i, out);
      for (uint32_t j = 0; j < info->commandBufferCount; ++j) out[j] = VK_NULL_HANDLE;
      return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    init_loader_data(&cb->loader_data);
    cb->device = from_handle<Device>(device);
    cb->pool = pool;
    cb->secondary = info->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    pool->buffers.insert(cb);
    out[i] = to_handle<VkCommandBuffer>(cb);
  }
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkFreeCommandBuffers(VkDevice, VkCommandPool handle, uint32_t count,
                                                      const VkCommandBuffer* buffers) {
  CommandPool* pool = from_handle<CommandPool>(handle);
  for (uint32_t i = 0; i < count; ++i) {
    CommandBuffer* cb = from_handle<CommandBuffer>(buffers[i]);
    if (cb == nullptr || pool->buffers.erase(cb) == 0) continue;
    delete cb;
  }
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkBeginCommandBuffer(VkCommandBuffer handle, const VkCommandBufferBeginInfo* info) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  cb->commands.clear();  // an implicit reset, as the spec allows for a pool's buffers
  cb->bindings = {};
  cb->graphics = {};
  cb->compute_pipeline = nullptr;
  cb->continues_pass = false;
  if (cb->secondary) begin_secondary(cb, info);
  cb->state = CommandBuffer::State::kRecording;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkEndCommandBuffer(VkCommandBuffer handle) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording) return VK_ERROR_OUT_OF_HOST_MEMORY;
  cb->state = CommandBuffer::State::kExecutable;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkResetCommandBuffer(VkCommandBuffer handle, VkCommandBufferResetFlags) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  cb->commands.clear();
  cb->bindings = {};
  cb->graphics = {};
  cb->compute_pipeline = nullptr;
  cb->state = CommandBuffer::State::kInitial;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdCopyBuffer(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t count,
                                                 const VkBufferCopy* regions) {
  record(cb, CopyCommand{from_handle<Buffer>(src), from_handle<Buffer>(dst), {regions, regions + count}});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdFillBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset,
                                                 VkDeviceSize size, uint32_t data) {
  record(cb, FillCommand{from_handle<Buffer>(dst), offset, size, data});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdUpdateBuffer(VkCommandBuffer cb, VkBuffer dst, VkDeviceSize offset,
                                                   VkDeviceSize size, const void* data) {
  if (size > 65536) return;  // the spec's limit; invalid usage above it, dropped
  const auto* bytes = static_cast<const uint8_t*>(data);
  record(cb, UpdateCommand{from_handle<Buffer>(dst), offset, {bytes, bytes + size}});
}

// Vulkan 1.1: a pool keeps no memory beyond its command buffers' vectors, which a reset already
// releases with the commands; nothing to trim.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkTrimCommandPool(VkDevice, VkCommandPool, VkCommandPoolTrimFlags) {}

// Vulkan 1.1, device groups: the one device is device 0, so the only valid mask is 1 and it is
// what every command already runs on. Another mask is invalid usage: logged, nothing recorded.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetDeviceMask(VkCommandBuffer, uint32_t mask) {
  if (mask != 1) std::fprintf(stderr, "gsgpu-vk: vkCmdSetDeviceMask: mask 0x%x names no device but 0; ignored\n", mask);
}

}  // namespace gsgpu::vk
