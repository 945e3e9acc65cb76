// Query pools (docs/vulkan-driver.md "Queries and events"): creation, host
// reset (VK_EXT_host_query_reset), vkGetQueryPoolResults, and the result layout
// that vkCmdCopyQueryPoolResults (query_commands.cc) writes too. A pool is a BO
// of QuerySlots that the device writes with REPORT packets and the host reads
// through the BO's mapping. Every range the application gives (first query,
// count, data size, stride) is checked overflow-safe before a byte is read or
// written: a refused call is VK_ERROR_UNKNOWN (the driver's answer to invalid
// usage it catches) with a log line, and writes nothing.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>

#include "common/checked_math.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// The device writes slots from its own thread; the host reads whole 64-bit
// words (the device's availability lands after its value: gsgpu.xml REPORT).
uint64_t load(const uint64_t &word) {
  return std::atomic_ref<const uint64_t>(word).load(std::memory_order_acquire);
}

void zero_slots(const QueryPool &pool, uint32_t first, uint32_t count) {
  std::memset(pool.slot(first), 0,
              uint64_t{count} * pool.values() * sizeof(QuerySlot));
}

// A pool's value of one available query: samples between begin and end (the
// counter wraps at 2^64, so the difference is right across a wrap), or the
// timestamp.
uint64_t query_value(const QueryPool &pool, const QuerySlot &slot) {
  const uint64_t end = load(slot.end);
  return pool.type == VK_QUERY_TYPE_TIMESTAMP ? end : end - load(slot.begin);
}

void put(uint8_t *out, uint64_t value, bool wide) {
  if (wide) {
    std::memcpy(out, &value, 8);
  } else {
    const uint32_t narrow =
        uint32_t(value); // the low 32 bits, as Vulkan allows for 32-bit results
    std::memcpy(out, &narrow, 4);
  }
}

} // namespace

uint64_t query_record_bytes(VkQueryResultFlags flags, uint32_t values) {
  const uint64_t width = (flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4;
  return width * (uint64_t{values} +
                  ((flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? 1 : 0));
}

bool queries_inside(const QueryPool &pool, uint32_t first, uint32_t count) {
  return count != 0 && first < pool.count && count <= pool.count - first;
}

bool results_fit(uint32_t count, uint64_t offset, uint64_t stride,
                 uint64_t size, VkQueryResultFlags flags, const char **why,
                 uint32_t values) {
  const uint64_t width = (flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4;
  if (offset % width != 0 || stride % width != 0)
    return *why = "offset or stride not a multiple of the result width", false;
  if (count > 1 && stride == 0)
    return *why = "stride 0 for more than one query", false;
  auto end = gsvirt::checked_mul<uint64_t>(count - 1, stride);
  if (end)
    end = gsvirt::checked_add<uint64_t>(*end,
                                        query_record_bytes(flags, values));
  if (!end || !gsvirt::range_within(offset, *end, size))
    return *why = "results past the end of the destination", false;
  return true;
}

bool write_query_results(const QueryPool &pool, uint32_t first, uint32_t count,
                         uint8_t *out, uint64_t stride,
                         VkQueryResultFlags flags, bool zero_unavailable) {
  const bool wide = flags & VK_QUERY_RESULT_64_BIT;
  const uint64_t width = wide ? 8 : 4;
  bool all = true;
  for (uint32_t i = 0; i < count; ++i, out += stride) {
    const bool available = load(pool.slot(first + i)->available) != 0;
    all &= available;
    // PARTIAL: an unavailable query's value is 0, which lies between 0 and its
    // final value.
    for (uint32_t v = 0; v < pool.values(); ++v) {
      if (available) {
        put(out + v * width, query_value(pool, *pool.slot(first + i, v)), wide);
      } else if ((flags & VK_QUERY_RESULT_PARTIAL_BIT) || zero_unavailable) {
        put(out + v * width, 0, wide);
      }
    }
    if (flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT)
      put(out + pool.values() * width, available ? 1 : 0, wide);
  }
  return all;
}

VKAPI_ATTR VkResult VKAPI_CALL
gsgpu_vkCreateQueryPool(VkDevice handle, const VkQueryPoolCreateInfo *info,
                        const VkAllocationCallbacks *, VkQueryPool *out) {
  *out = VK_NULL_HANDLE;
  Device *device = from_handle<Device>(handle);
  if (info->queryType != VK_QUERY_TYPE_OCCLUSION &&
      info->queryType != VK_QUERY_TYPE_TIMESTAMP &&
      info->queryType != VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT) {
    // Pipeline statistics need counters the device does not have (the feature
    // is off).
    log_refusal("vkCreateQueryPool", "query type " +
                                         std::to_string(info->queryType) +
                                         " is not supported");
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  if (info->queryCount == 0) {
    log_refusal("vkCreateQueryPool", "queryCount 0");
    return VK_ERROR_UNKNOWN;
  }
  const uint64_t values =
      info->queryType == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT ? 2 : 1;
  const uint64_t bytes = uint64_t{info->queryCount} * values *
                         sizeof(QuerySlot); // below 2^38: no overflow
  if (bytes > device->drv->caps().max_bo_size)
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  auto *pool = new (std::nothrow) QueryPool;
  if (pool == nullptr)
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  pool->device = device;
  pool->type = info->queryType;
  pool->count = info->queryCount;
  std::lock_guard lock(device->mutex);
  if (device->drv->bo_create(bytes, 0, &pool->bo) != drv::Status::kOk) {
    delete pool;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  pool->va_size = round_up(bytes, device->drv->caps().page_size);
  std::optional<uint64_t> va = device->va->allocate(pool->va_size);
  if (!va ||
      device->drv->va_bind(pool->bo, 0, *va, pool->va_size,
                           drv::kVaRead | drv::kVaWrite) != drv::Status::kOk) {
    if (va)
      device->va->free(*va);
    device->drv->bo_free(pool->bo);
    delete pool;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  }
  pool->va = *va;
  pool->map = static_cast<uint8_t *>(
      device->drv->bo_map(pool->bo)); // zero-filled: every query unavailable
  *out = to_handle<VkQueryPool>(pool);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyQueryPool(
    VkDevice handle, VkQueryPool pool_handle, const VkAllocationCallbacks *) {
  QueryPool *pool = from_handle<QueryPool>(pool_handle);
  if (pool == nullptr)
    return;
  Device *device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  device->drv->va_unbind(pool->va, pool->va_size);
  device->va->free(pool->va);
  device->drv->bo_free(pool->bo); // a submission still using it keeps the BO
                                  // until it retires (drv)
  delete pool;
}

// VK_EXT_host_query_reset / Vulkan 1.2: the host zeroes the slots
// (unavailable).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkResetQueryPool(VkDevice,
                                                  VkQueryPool pool_handle,
                                                  uint32_t first,
                                                  uint32_t count) {
  const QueryPool *pool = from_handle<QueryPool>(pool_handle);
  if (pool == nullptr || !queries_inside(*pool, first, count)) {
    log_refusal("vkResetQueryPool", "queries outside the pool (or no pool)");
    return;
  }
  zero_slots(*pool, first, count);
}

void run(const ResetQueriesCommand &command) {
  if (!queries_inside(*command.pool, command.first, command.count)) {
    log_refusal("vkCmdResetQueryPool", "queries outside the pool", "skipped");
    return;
  }
  zero_slots(*command.pool, command.first, command.count);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkGetQueryPoolResults(
    VkDevice handle, VkQueryPool pool_handle, uint32_t first, uint32_t count,
    size_t data_size, void *data, VkDeviceSize stride,
    VkQueryResultFlags flags) {
  const QueryPool *pool = from_handle<QueryPool>(pool_handle);
  const char *why = nullptr;
  if (pool == nullptr || data == nullptr ||
      !queries_inside(*pool, first, count)) {
    why = "queries outside the pool (or no pool or data)";
  } else {
    results_fit(count, 0, stride, data_size, flags, &why, pool->values());
  }
  if (why != nullptr) {
    log_refusal("vkGetQueryPoolResults", why);
    return VK_ERROR_UNKNOWN;
  }
  Device *device = from_handle<Device>(handle);
  if (flags & VK_QUERY_RESULT_WAIT_BIT) {
    // Work that has run has retired when vkQueueSubmit returned (every device
    // command is waited for); what can still make a query available is a
    // submission held in the queue.
    std::unique_lock lock(device->mutex);
    auto done = [&] {
      for (uint32_t i = 0; i < count; ++i) {
        if (load(pool->slot(first + i)->available) == 0)
          return false;
      }
      return true;
    };
    device->progress.wait(
        lock, [&] { return done() || device->queue.waiting.empty(); });
    if (!done()) {
      log_refusal("vkGetQueryPoolResults",
                  "WAIT for a query that no submitted work makes available",
                  "VK_NOT_READY instead of waiting for ever");
    }
  }
  const bool all = write_query_results(
      *pool, first, count, static_cast<uint8_t *>(data), stride, flags, false);
  // With PARTIAL every value is written, so the call succeeded (lavapipe
  // answers the same).
  return all || (flags & VK_QUERY_RESULT_PARTIAL_BIT) ? VK_SUCCESS
                                                      : VK_NOT_READY;
}

} // namespace gsgpu::vk
