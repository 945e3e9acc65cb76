// The readable per-draw text dump (seed 001's readable interface): the draw's state, as the blocks
// decoded it, and its counters, in the layout of the DUMP packet's dispatch dump.
#pragma once

#include <string>

#include "gsgpu/emu/graphics/graphics_pipeline.h"

namespace gsgpu::graphics {

std::string format_draw_state(const DrawState& state);
std::string format_draw_counters(const DrawCounters& counters);
// State, counters, the counters as JSON ("counters json: {...}", draw_counters_json.h) and the
// result line ("result: ok" or "result: fault: ...").
std::string format_draw(const DrawState& state, const DrawResult& result);

}  // namespace gsgpu::graphics
