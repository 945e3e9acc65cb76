// Indirect commands' arguments (docs/vulkan-driver.md "Indirect commands"). The range of the
// arguments is checked on the host (the buffer bound, the offset a multiple of 4, the words inside
// the buffer: overflow-safe). An indirect draw's values are then read by the command processor when
// the DRAW_INDIRECT packet executes, so arguments a dispatch earlier in the same device submission
// wrote are the ones used, and checked there as a direct draw's are here (vertex / instance ranges,
// the vertex limit; fetches past a buffer are the pipeline's draw fault). An indirect dispatch's
// counts are still read here, after the command stream is flushed when it holds a dispatch.
#include <cstring>
#include <string>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"

namespace gsgpu::vk {
namespace {

// Whether `words` 32-bit words at `offset` lie inside buffer `b` (bound, offset aligned to 4);
// false with *why, naming them as `what`.
bool indirect_range_valid(const Buffer* b, uint64_t offset, uint32_t words, const char* what, std::string* why) {
  const uint64_t size = uint64_t{words} * 4;
  if (b->memory == nullptr) return *why = "the indirect buffer is not bound to memory", false;
  if (offset % 4 != 0) return *why = "an indirect offset that is not a multiple of 4", false;
  if (!gsvirt::range_within(offset, size, b->size)) {
    return *why = std::string(what) + " at " + std::to_string(offset) + " past a buffer of " +
                  std::to_string(b->size) + " bytes",
           false;
  }
  return true;
}

}  // namespace

bool read_indirect_words(const Buffer* b, uint64_t offset, uint32_t words, const char* what, uint32_t* out,
                         std::string* why) {
  if (!indirect_range_valid(b, offset, words, what, why)) return false;
  std::memcpy(out, b->memory->map + b->memory_offset + offset, uint64_t{words} * 4);
  return true;
}

bool indirect_draw_range_valid(const DrawCommand& d, std::string* why) {
  // A byte counter (1 word), VkDrawIndexedIndirectCommand (5 words) / VkDrawIndirectCommand (4 words).
  if (d.byte_count) return indirect_range_valid(d.indirect, d.indirect_offset, 1, "the counter", why);
  return indirect_range_valid(d.indirect, d.indirect_offset, d.indexed ? 5 : 4, "the arguments", why);
}

}  // namespace gsgpu::vk
