// DRAW_BYTE_COUNT's vertex count (Vulkan's vkCmdDrawIndirectByteCountEXT): a transform-feedback
// byte counter read through the MMU when the packet executes, so the counter the end of an earlier
// capture stored is the one used (docs/graphics.md "Transform feedback", "Drawing what was captured").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gsgpu/emu/command_processor.h"
#include "gsgpu/emu/graphics/geometry_engine.h"
#include "gsgpu/emu/gpu_memory.h"

namespace gsgpu {

// Why a DRAW_BYTE_COUNT cannot run: the CP fault it enters.
struct DrawCountFault {
  CpFaultCause cause = CpFaultCause::kBadField;
  std::string message;
};

// The packet's own words after the state-block addresses, as the CP fetched them.
struct ByteCountSource {
  uint64_t counter_va = 0;
  uint32_t counter_offset = 0;
  uint32_t vertex_stride = 0;
};

// Sets draw->count to (counter - counter_offset) / vertex_stride (0 when the counter is below the
// offset) after checking the packet's words and, from the count, the draw: the counter is memory any
// shader or client may write. The rest of `draw` (DRAW_INFO's) is kept. A fault when it cannot run.
// What a count read from memory (DRAW_INDIRECT's arguments, DRAW_BYTE_COUNT's counter) must keep,
// as a direct draw's: the vertex limit and 32-bit vertex / instance indices. Null when it does.
const char* draw_count_problem(const graphics::DrawParams& d, uint64_t vertex_limit);

std::optional<DrawCountFault> read_draw_byte_count(GpuMemory& memory, const ByteCountSource& source,
                                                   uint64_t vertex_limit, graphics::DrawParams* draw);

}  // namespace gsgpu
