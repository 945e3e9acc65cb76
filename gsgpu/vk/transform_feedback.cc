// VK_EXT_transform_feedback (docs/vulkan-driver.md "Transform feedback"): the bound buffers are
// command-buffer state that each draw between begin and end snapshots (draw.cc) and names in its
// XFB_STATE (draw_execute.cc); the device writes the captured vertices and keeps each buffer's
// write offset in a word of the command stream's page (CommandStream::xfb_offsets).
// vkCmdBeginTransformFeedbackEXT sets those words from the counter buffers (0 without one) and
// vkCmdEndTransformFeedbackEXT copies them back, on the host with the stream flushed, so a pause
// and resume continues where the device stopped. Every index, offset and range is checked when
// recorded and again when run; a bad one is not recorded (or skipped) with a log line.
#include <cstring>
#include <string>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/command_recording.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// Buffers [first, first + count) of the four, overflow-safe.
bool buffers_inside(uint32_t first, uint32_t count) {
  return first < kMaxXfbBuffers && count <= kMaxXfbBuffers - first;
}

// The 4-byte counter at `offset` of `b`, or nullptr when it is not inside the bound memory.
uint8_t* counter_word(Buffer* b, uint64_t offset) {
  if (b == nullptr || b->memory == nullptr || offset % 4 != 0 || !gsvirt::range_within(offset, 4, b->size))
    return nullptr;
  return b->memory->map + b->memory_offset + offset;
}

// The counter buffers of a begin or end, each checked; false with a log line naming `command`.
bool record_counters(VkCommandBuffer handle, const char* command, bool begin, uint32_t first, uint32_t count,
                     const VkBuffer* buffers, const VkDeviceSize* offsets) {
  CommandBuffer* cb = recording(handle, command);
  if (cb == nullptr) return false;
  if (begin == cb->graphics.xfb_active) {
    log_refusal(command, begin ? "transform feedback is already active" : "transform feedback is not active",
                "not recorded");
    return false;
  }
  XfbCountersCommand c;
  c.begin = begin;
  if (buffers != nullptr) {
    if (!buffers_inside(first, count)) {
      log_refusal(command, "counter buffers past the fourth", "not recorded");
      return false;
    }
    for (uint32_t i = 0; i < count; ++i) {
      c.counters[first + i] = from_handle<Buffer>(buffers[i]);
      c.offsets[first + i] = offsets != nullptr ? offsets[i] : 0;
      if (c.counters[first + i] != nullptr && c.offsets[first + i] % 4 != 0) {
        log_refusal(command, "a counter buffer offset that is not a multiple of 4", "not recorded");
        return false;
      }
    }
  }
  cb->graphics.xfb_active = begin;
  cb->commands.emplace_back(std::move(c));
  return true;
}

}  // namespace

void run(Device* device, const XfbCountersCommand& c) {
  const char* command = c.begin ? "vkCmdBeginTransformFeedbackEXT" : "vkCmdEndTransformFeedbackEXT";
  device->stream.flush(device);  // the device's offsets (end) and the counter buffers (begin) settle first
  uint64_t va = 0;
  uint32_t* words = device->stream.xfb_offsets(device, &va);
  if (words == nullptr) return log_refusal(command, "no memory for transform feedback's offsets", "skipped");
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    if (c.counters[b] == nullptr) {
      if (c.begin) words[b] = 0;  // no counter buffer: capture starts at the bound offset
      continue;
    }
    uint8_t* word = counter_word(c.counters[b], c.offsets[b]);
    if (word == nullptr) {
      log_refusal(command, "counter buffer " + std::to_string(b) + " without memory or too short", "skipped");
      if (c.begin) words[b] = 0;
      continue;
    }
    if (c.begin) std::memcpy(&words[b], word, 4);
    else std::memcpy(word, &words[b], 4);
  }
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBindTransformFeedbackBuffersEXT(VkCommandBuffer handle, uint32_t first,
                                                                      uint32_t count, const VkBuffer* buffers,
                                                                      const VkDeviceSize* offsets,
                                                                      const VkDeviceSize* sizes) {
  CommandBuffer* cb = recording(handle, "vkCmdBindTransformFeedbackBuffersEXT");
  if (cb == nullptr) return;
  if (!buffers_inside(first, count) || buffers == nullptr || offsets == nullptr) {
    return log_refusal("vkCmdBindTransformFeedbackBuffersEXT", "buffers past the fourth, or no arrays", "not recorded");
  }
  for (uint32_t i = 0; i < count; ++i) {
    Buffer* b = from_handle<Buffer>(buffers[i]);
    const uint64_t size = sizes != nullptr ? sizes[i] : VK_WHOLE_SIZE;
    if (b == nullptr || offsets[i] % 4 != 0 || offsets[i] > b->size ||
        (size != VK_WHOLE_SIZE && (size % 4 != 0 || size > b->size - offsets[i]))) {
      return log_refusal("vkCmdBindTransformFeedbackBuffersEXT",
                         "buffer " + std::to_string(first + i) + ": an offset or size outside it or not a multiple of 4",
                         "not recorded");
    }
  }
  for (uint32_t i = 0; i < count; ++i)
    cb->graphics.xfb_buffers[first + i] =
        XfbBinding{from_handle<Buffer>(buffers[i]), offsets[i], sizes != nullptr ? sizes[i] : VK_WHOLE_SIZE};
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginTransformFeedbackEXT(VkCommandBuffer handle, uint32_t first, uint32_t count,
                                                                 const VkBuffer* counters, const VkDeviceSize* offsets) {
  record_counters(handle, "vkCmdBeginTransformFeedbackEXT", true, first, count, counters, offsets);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdEndTransformFeedbackEXT(VkCommandBuffer handle, uint32_t first, uint32_t count,
                                                               const VkBuffer* counters, const VkDeviceSize* offsets) {
  record_counters(handle, "vkCmdEndTransformFeedbackEXT", false, first, count, counters, offsets);
}

}  // namespace gsgpu::vk
