// DrawCounters as one line of JSON (issue 11 point 4: counters per draw as JSON), next to the text
// form of draw_dump.h; the DUMP packet's text carries it as "counters json: {...}". Every value is
// an unsigned integer; the keys (docs/graphics.md "Debug output"):
//   {"vertices", "primitives",
//    "clip": {"triangles_in", "trivially_accepted", "clipped", "rejected", "triangles_out",
//             "points_in", "points_culled", "points_out",
//             "lines_in", "lines_clipped", "lines_rejected", "lines_degenerate", "lines_out", "outside_guard_band"},
//    "setup": {"triangles_in", "culled", "degenerate", "outside_guard_band", "point_triangles", "line_triangles", "bresenham_lines"},
//    "raster": {"triangles", "tiles": [{"size", "visited", "rejected", "accepted"} x 6, 128 .. 4],
//               "tiles_rejected_by_bbox", "blocks_tested", "quads", "fragments", "helper_lanes"},
//    "merge": {"fragments_in", "stencil_failed", "depth_failed", "written", "overdraw"}}
#pragma once

#include <string>

#include "gsgpu/emu/graphics/graphics_pipeline.h"

namespace gsgpu::graphics {

std::string format_draw_counters_json(const DrawCounters& counters);

}  // namespace gsgpu::graphics
