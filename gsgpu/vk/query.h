// Query pools and events (docs/vulkan-driver.md "Queries and events"). Both
// live in GPU-visible memory, so the device and the host see the same bytes:
// the device writes query values with REPORT packets (protocol/gsgpu/gsgpu.xml:
// the output merger's SAMPLES_PASSED counter and the device clock, availability
// written after the value) and sets or resets events with SYNC packets (a fence
// write once all earlier work is complete); the host reads and writes them
// through the BO's mapping.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <vector>

#include "gsgpu/drv/drv.h"

namespace gsgpu::vk {

struct Buffer;
struct Device;

// One query's slot in the pool's BO: the counter at vkCmdBeginQuery, the
// counter at vkCmdEndQuery (or the timestamp), and the availability word the
// device writes after `end`.
struct QuerySlot {
  uint64_t begin;
  uint64_t end;
  uint64_t available; // 1 once the device wrote `end`; 0 after a reset
  uint64_t reserved;
};
static_assert(sizeof(QuerySlot) == 32);

// A VkQueryPool: `count` queries of values() slots each in a BO of its own,
// mapped at `va` (read / write). A transform-feedback stream query has two
// values, primitives written then needed: slot 0 counts XFB_WRITTEN (and holds
// the query's availability), slot 1 XFB_NEEDED.
struct QueryPool {
  Device *device = nullptr;
  VkQueryType type = VK_QUERY_TYPE_OCCLUSION;
  uint32_t count = 0;
  drv::BoHandle bo = 0;
  uint64_t va = 0, va_size = 0;
  uint8_t *map = nullptr;
  uint32_t values() const {
    return type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT ? 2 : 1;
  }
  uint64_t slot_va(uint32_t query, uint32_t value = 0) const {
    return va + (uint64_t{query} * values() + value) * sizeof(QuerySlot);
  }
  QuerySlot *slot(uint32_t query, uint32_t value = 0) const {
    return reinterpret_cast<QuerySlot *>(map) + uint64_t{query} * values() +
           value;
  }
};

// A VkEvent: one 64-bit word (1 set, 0 reset) in a page of its own, mapped at
// `va`.
struct Event {
  Device *device = nullptr;
  drv::BoHandle bo = 0;
  uint64_t va = 0, va_size = 0;
  uint64_t *word = nullptr;
};

// Recorded commands, run in queue order (command_buffer.cc execute_commands).
struct QueryCommand { // vkCmdBeginQuery, vkCmdEndQuery, vkCmdWriteTimestamp
                      // (and the Indexed forms): REPORTs on the device
  enum class Kind { kBegin, kEnd, kTimestamp } kind;
  QueryPool *pool;
  uint32_t query;
};
struct ResetQueriesCommand { // vkCmdResetQueryPool: the slots zeroed on the
                             // host, in queue order
  QueryPool *pool;
  uint32_t first, count;
};
struct CopyQueryResultsCommand { // vkCmdCopyQueryPoolResults: written on the
                                 // host, in queue order
  QueryPool *pool;
  uint32_t first, count;
  Buffer *dst;
  uint64_t offset, stride;
  VkQueryResultFlags flags;
};
struct EventCommand { // vkCmdSetEvent / vkCmdResetEvent: a SYNC writing `value`
                      // to the event
  Event *event;
  uint64_t value;
};
struct WaitEventsCommand { // vkCmdWaitEvents: the queue holds what follows
                           // until every event is set
  std::vector<Event *> events;
};

void run(Device *device, const QueryCommand &command);
void run(const ResetQueriesCommand &command);
void run(const CopyQueryResultsCommand &command);
void run(Device *device, const EventCommand &command);
// Whether every event of the command is set now (the queue may go past it).
bool events_set(const WaitEventsCommand &command);

// Writes queries [first, first + count) of `pool` as vkGetQueryPoolResults lays
// them out (`stride` apart, 32- or 64-bit values, availability after each when
// asked) into `out`, which holds (count - 1) * stride + one record (the caller
// checked); true when every query was available. An unavailable query's value
// is written (as 0) only with PARTIAL, or with `zero_unavailable`.
bool write_query_results(const QueryPool &pool, uint32_t first, uint32_t count,
                         uint8_t *out, uint64_t stride,
                         VkQueryResultFlags flags, bool zero_unavailable);
// The bytes one query's record takes: its `values` values (and availability)
// in 4 or 8 bytes each.
uint64_t query_record_bytes(VkQueryResultFlags flags, uint32_t values = 1);
// Whether queries [first, first + count) are inside the pool and `count` > 0
// (overflow-safe).
bool queries_inside(const QueryPool &pool, uint32_t first, uint32_t count);
// Whether (count - 1) * stride + one record fits in `size` bytes from `offset`,
// the stride and the offset aligned as the result width needs; false with *why
// (overflow-safe).
bool results_fit(uint32_t count, uint64_t offset, uint64_t stride,
                 uint64_t size, VkQueryResultFlags flags, const char **why,
                 uint32_t values = 1);

// Appends `packets` (one command, using `bo`) to the queue's command stream (command_stream.h):
// they run in order with the run's draws and dispatches, a fault is logged naming `what`. The
// caller holds the device mutex.
void stream_packets(Device *device, const std::vector<uint32_t> &packets,
                    drv::BoHandle bo, const char *what);

} // namespace gsgpu::vk
