#include "gsgpu/emu/draw_byte_count.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gsgpu {
namespace {

// The largest VERTEX_STRIDE: the transform-feedback unit's largest XFB_BUFFER STRIDE, which the
// driver offers as maxTransformFeedbackBufferDataStride.
constexpr uint32_t kMaxVertexStride = 2048;

DrawCountFault fault(CpFaultCause cause, const char* why, const ByteCountSource& s, uint32_t counter) {
  char text[256];
  std::snprintf(text, sizeof text,
                "DRAW_BYTE_COUNT: counter %u at 0x%" PRIx64 ", COUNTER_OFFSET %u, VERTEX_STRIDE %u: %s", counter,
                s.counter_va, s.counter_offset, s.vertex_stride, why);
  return {cause, text};
}

}  // namespace

const char* draw_count_problem(const graphics::DrawParams& d, uint64_t vertex_limit) {
  if (d.count == 0 || d.instance_count == 0) return nullptr;  // draws nothing
  if (uint64_t{d.count} * d.instance_count > vertex_limit) return "vertices x instances over the vertex limit";
  if (!d.indexed && uint64_t{d.first_vertex} + d.count - 1 > UINT32_MAX) return "FIRST_VERTEX + COUNT - 1 past 32 bits";
  if (uint64_t{d.first_instance} + d.instance_count - 1 > UINT32_MAX)
    return "FIRST_INSTANCE + INSTANCE_COUNT - 1 past 32 bits";
  return nullptr;
}

std::optional<DrawCountFault> read_draw_byte_count(GpuMemory& memory, const ByteCountSource& source,
                                                   uint64_t vertex_limit, graphics::DrawParams* draw) {
  // What does not depend on memory first: a stride of 0 would divide by zero.
  if (draw->indexed) return fault(CpFaultCause::kBadField, "DRAW_INFO.INDEXED is set", source, 0);
  if (source.vertex_stride == 0 || source.vertex_stride > kMaxVertexStride)
    return fault(CpFaultCause::kBadField, "VERTEX_STRIDE outside 1-2048", source, 0);
  if (source.counter_va % 4 != 0) return fault(CpFaultCause::kBadField, "COUNTER_VA not 4-byte aligned", source, 0);
  const uint8_t* bytes = memory.translate(source.counter_va, 4, Access::kRead);
  if (bytes == nullptr) return fault(CpFaultCause::kMemoryFault, "the counter is not mapped readable", source, 0);
  uint32_t counter = 0;
  std::memcpy(&counter, bytes, 4);
  // Below the offset (a counter the application wrote, or an offset past what was captured) is no
  // vertex rather than a wrapped count of billions.
  draw->count = counter > source.counter_offset ? (counter - source.counter_offset) / source.vertex_stride : 0;
  if (const char* bad = draw_count_problem(*draw, vertex_limit)) return fault(CpFaultCause::kBadField, bad, source, counter);
  return std::nullopt;
}

}  // namespace gsgpu
