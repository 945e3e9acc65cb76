// Indirect draws' arguments (docs/vulkan-driver.md "Indirect commands"). They are read from the
// buffer's memory when the queue reaches the draw: the queue runs its commands in order and waits
// for each device packet (draw, dispatch) before the next, so arguments that an earlier command of
// the same submission wrote (a compute shader, a transfer) are the ones read. The values come from
// memory the application or a shader controls: the range is checked here, and the counts then go
// through the same checks as a direct draw's (check_draw: vertex / index / instance ranges, the
// 2^24-vertex bound), so nothing read from memory reaches the device unchecked.
#include <cstring>
#include <string>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"

namespace gsgpu::vk {

bool read_indirect_words(const Buffer* b, uint64_t offset, uint32_t words, const char* what, uint32_t* out,
                         std::string* why) {
  const uint64_t size = uint64_t{words} * 4;
  if (b->memory == nullptr) return *why = "the indirect buffer is not bound to memory", false;
  if (offset % 4 != 0) return *why = "an indirect offset that is not a multiple of 4", false;
  if (!gsvirt::range_within(offset, size, b->size)) {
    return *why = std::string(what) + " at " + std::to_string(offset) + " past a buffer of " +
                  std::to_string(b->size) + " bytes",
           false;
  }
  std::memcpy(out, b->memory->map + b->memory_offset + offset, size);
  return true;
}

bool read_indirect_draw(DrawCommand* d, std::string* why) {
  // VkDrawIndexedIndirectCommand (5 words) / VkDrawIndirectCommand (4 words).
  uint32_t w[5] = {};
  if (!read_indirect_words(d->indirect, d->indirect_offset, d->indexed ? 5 : 4, "the arguments", w, why)) {
    return false;
  }
  d->count = w[0];
  d->instance_count = w[1];
  if (d->indexed) {
    d->first_index = w[2];
    d->vertex_offset = static_cast<int32_t>(w[3]);
    d->first_instance = w[4];
  } else {
    d->first_vertex = w[2];
    d->first_instance = w[3];
  }
  return true;
}

}  // namespace gsgpu::vk
