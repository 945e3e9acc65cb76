// Query commands (docs/vulkan-driver.md "Queries and events"). Begin, end and
// timestamps are REPORT packets on the queue's ring: the device writes its
// SAMPLES_PASSED counter (samples that passed the output merger's stencil and
// depth tests) at begin and end, or its clock, into the query's slot, and
// availability after the value; an occlusion result is end - begin. Resets and
// copies of results run on the host in queue order, as the other transfers do
// ("Transfers"): every device command before them has retired when they run.
// Ranges are checked when recorded (a bad one is not recorded, with a log line)
// and again when run.
#include <cstddef>
#include <cstdio>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::vk {
namespace {

namespace R = hw::pkt::REPORT;

// Records `command` when the command buffer is recording and `ok`; otherwise a
// log line.
template <typename T>
void record_if(VkCommandBuffer handle, bool ok, const char *name,
               const char *why, T &&command) {
  CommandBuffer *cb = from_handle<CommandBuffer>(handle);
  if (cb->state != CommandBuffer::State::kRecording)
    return;
  if (!ok) {
    log_refusal(name, why, "not recorded");
    return;
  }
  cb->commands.emplace_back(std::forward<T>(command));
}

bool one_query_inside(VkQueryPool pool, uint32_t query) {
  const QueryPool *p = from_handle<QueryPool>(pool);
  return p != nullptr && queries_inside(*p, query, 1);
}

// A transform-feedback stream query's begin or end: the device's XFB_WRITTEN
// into slot 0 and XFB_NEEDED into slot 1, the availability (slot 0's) after
// both at the end.
void append_xfb_reports(std::vector<uint32_t> *packets, const QueryPool &pool,
                        uint32_t query, bool end) {
  const size_t at = end ? offsetof(QuerySlot, end) : offsetof(QuerySlot, begin);
  hw::append_report(packets, R::FLAGS_COUNTER_XFB_WRITTEN,
                    pool.slot_va(query, 0) + at);
  hw::append_report(packets, R::FLAGS_COUNTER_XFB_NEEDED,
                    pool.slot_va(query, 1) + at, end,
                    pool.slot_va(query, 0) + offsetof(QuerySlot, available), 1);
}

// Begin and end take an occlusion pool, or a transform-feedback one (stream 0).
bool begin_end_pool(VkQueryPool pool, uint32_t query, uint32_t index) {
  const QueryPool *p = from_handle<QueryPool>(pool);
  if (!one_query_inside(pool, query)) return false;
  if (p->type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT) return index == 0;
  return p->type == VK_QUERY_TYPE_OCCLUSION && index == 0;
}

} // namespace

void stream_packets(Device *device, const std::vector<uint32_t> &packets,
                    drv::BoHandle bo, const char *what) {
  device->stream.begin_command();
  device->stream.append(device, packets, {bo}, what, false);
}

void run(Device *device, const QueryCommand &c) {
  static constexpr const char *kNames[] = {"vkCmdBeginQuery", "vkCmdEndQuery",
                                           "vkCmdWriteTimestamp"};
  const char *name = kNames[int(c.kind)];
  if (!queries_inside(*c.pool, c.query, 1)) {
    log_refusal(name, "query outside the pool", "skipped");
    return;
  }
  const uint64_t slot = c.pool->slot_va(c.query);
  std::vector<uint32_t> packets;
  if (c.pool->type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT) {
    append_xfb_reports(&packets, *c.pool, c.query, c.kind == QueryCommand::Kind::kEnd);
    return stream_packets(device, packets, c.pool->bo, name);
  }
  switch (c.kind) {
  case QueryCommand::Kind::kBegin:
    hw::append_report(&packets, R::FLAGS_COUNTER_SAMPLES_PASSED,
                      slot + offsetof(QuerySlot, begin));
    break;
  case QueryCommand::Kind::kEnd:
    hw::append_report(&packets, R::FLAGS_COUNTER_SAMPLES_PASSED,
                      slot + offsetof(QuerySlot, end), true,
                      slot + offsetof(QuerySlot, available), 1);
    break;
  case QueryCommand::Kind::kTimestamp:
    hw::append_report(&packets, R::FLAGS_COUNTER_CLOCK,
                      slot + offsetof(QuerySlot, end), true,
                      slot + offsetof(QuerySlot, available), 1);
    break;
  }
  stream_packets(device, packets, c.pool->bo, name);
}

void run(const CopyQueryResultsCommand &c) {
  const char *why = nullptr;
  if (!queries_inside(*c.pool, c.first, c.count)) {
    why = "queries outside the pool";
  } else if (c.dst->memory == nullptr) {
    why = "destination buffer not bound to memory (or its memory was freed)";
  } else {
    results_fit(c.count, c.offset, c.stride, c.dst->size, c.flags, &why,
                c.pool->values());
  }
  if (why != nullptr) {
    log_refusal("vkCmdCopyQueryPoolResults", why, "skipped");
    return;
  }
  // WAIT needs nothing more: the queue ran every earlier command to completion,
  // so a query still unavailable here was not ended before the copy. Its value
  // is then undefined for Vulkan when availability is copied beside it: 0, as
  // lavapipe writes (the copied buffers compare equal).
  write_query_results(*c.pool, c.first, c.count,
                      c.dst->memory->map + c.dst->memory_offset + c.offset,
                      c.stride, c.flags,
                      (c.flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) != 0);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdResetQueryPool(VkCommandBuffer cb,
                                                     VkQueryPool pool,
                                                     uint32_t first,
                                                     uint32_t count) {
  const QueryPool *p = from_handle<QueryPool>(pool);
  record_if(cb, p != nullptr && queries_inside(*p, first, count),
            "vkCmdResetQueryPool", "queries outside the pool",
            ResetQueriesCommand{from_handle<QueryPool>(pool), first, count});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginQuery(VkCommandBuffer cb,
                                                 VkQueryPool pool,
                                                 uint32_t query,
                                                 VkQueryControlFlags) {
  // PRECISE or not, the count is exact (occlusionQueryPrecise).
  record_if(cb, begin_end_pool(pool, query, 0), "vkCmdBeginQuery",
            "query outside the pool, or not an occlusion or transform "
            "feedback pool",
            QueryCommand{QueryCommand::Kind::kBegin,
                         from_handle<QueryPool>(pool), query});
}

// VK_EXT_transform_feedback: stream 0 is the only one
// (maxTransformFeedbackStreams 1).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginQueryIndexedEXT(
    VkCommandBuffer cb, VkQueryPool pool, uint32_t query, VkQueryControlFlags,
    uint32_t index) {
  record_if(cb, begin_end_pool(pool, query, index), "vkCmdBeginQueryIndexedEXT",
            "query outside the pool, a pool of another type, or a stream "
            "other than 0",
            QueryCommand{QueryCommand::Kind::kBegin,
                         from_handle<QueryPool>(pool), query});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdEndQueryIndexedEXT(VkCommandBuffer cb,
                                                         VkQueryPool pool,
                                                         uint32_t query,
                                                         uint32_t index) {
  record_if(cb, begin_end_pool(pool, query, index), "vkCmdEndQueryIndexedEXT",
            "query outside the pool, a pool of another type, or a stream "
            "other than 0",
            QueryCommand{QueryCommand::Kind::kEnd,
                         from_handle<QueryPool>(pool), query});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdEndQuery(VkCommandBuffer cb,
                                               VkQueryPool pool,
                                               uint32_t query) {
  record_if(cb, begin_end_pool(pool, query, 0), "vkCmdEndQuery",
            "query outside the pool, or not an occlusion or transform "
            "feedback pool",
            QueryCommand{QueryCommand::Kind::kEnd, from_handle<QueryPool>(pool),
                         query});
}

// Every stage has finished when the REPORT runs (the command processor runs
// packets to completion in order), so any stage's timestamp is the same one.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdWriteTimestamp(VkCommandBuffer cb,
                                                     VkPipelineStageFlagBits,
                                                     VkQueryPool pool,
                                                     uint32_t query) {
  const QueryPool *p = from_handle<QueryPool>(pool);
  const bool ok =
      one_query_inside(pool, query) && p->type == VK_QUERY_TYPE_TIMESTAMP;
  record_if(cb, ok, "vkCmdWriteTimestamp",
            "query outside the pool, or not a timestamp pool",
            QueryCommand{QueryCommand::Kind::kTimestamp,
                         from_handle<QueryPool>(pool), query});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdCopyQueryPoolResults(
    VkCommandBuffer cb, VkQueryPool pool, uint32_t first, uint32_t count,
    VkBuffer dst, VkDeviceSize offset, VkDeviceSize stride,
    VkQueryResultFlags flags) {
  const QueryPool *p = from_handle<QueryPool>(pool);
  const Buffer *b = from_handle<Buffer>(dst);
  const char *why = "queries outside the pool, or no buffer";
  const bool ok = p != nullptr && b != nullptr &&
                  queries_inside(*p, first, count) &&
                  results_fit(count, offset, stride, b->size, flags, &why,
                              p->values());
  record_if(cb, ok, "vkCmdCopyQueryPoolResults", why,
            CopyQueryResultsCommand{from_handle<QueryPool>(pool), first, count,
                                    from_handle<Buffer>(dst), offset, stride,
                                    flags});
}

} // namespace gsgpu::vk
