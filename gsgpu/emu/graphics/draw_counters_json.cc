// DrawCounters as JSON (keys in draw_counters_json.h). Hand-written: only unsigned integers, fixed
// ASCII keys, so nothing needs escaping.
#include "gsgpu/emu/graphics/draw_counters_json.h"

#include <cinttypes>
#include <initializer_list>
#include <utility>

#include "common/text.h"

namespace gsgpu::graphics {
namespace {

using Field = std::pair<const char*, uint64_t>;

// {"k": v, ...} for integer fields.
std::string object(std::initializer_list<Field> fields) {
  std::string out = "{";
  const char* comma = "";
  for (const Field& f : fields) {
    gsvirt::appendf(&out, "%s\"%s\": %" PRIu64, comma, f.first, f.second);
    comma = ", ";
  }
  return out + "}";
}

std::string clip_json(const ClipCounters& k) {
  return object({{"triangles_in", k.triangles_in},
                 {"trivially_accepted", k.trivially_accepted},
                 {"clipped", k.clipped},
                 {"rejected", k.rejected},
                 {"triangles_out", k.triangles_out},
                 {"points_in", k.points_in},
                 {"points_culled", k.points_culled},
                 {"points_out", k.points_out},
                 {"lines_in", k.lines_in},
                 {"lines_clipped", k.lines_clipped},
                 {"lines_rejected", k.lines_rejected},
                 {"lines_degenerate", k.lines_degenerate},
                 {"lines_out", k.lines_out},
                 {"outside_guard_band", k.outside_guard_band}});
}

std::string raster_json(const RasterCounters& r) {
  std::string tiles = "[";
  for (int l = 0; l < kTileLevels; ++l) {
    if (l) tiles += ", ";
    tiles += object({{"size", uint64_t(kTopTileSize >> l)},
                     {"visited", r.tiles_visited[l]},
                     {"rejected", r.tiles_rejected[l]},
                     {"accepted", r.tiles_accepted[l]}});
  }
  tiles += "]";
  std::string out = "{\"triangles\": " + std::to_string(r.triangles) + ", \"tiles\": " + tiles + ", ";
  const std::string rest = object({{"tiles_rejected_by_bbox", r.tiles_rejected_by_bbox},
                                   {"blocks_tested", r.blocks_tested},
                                   {"quads", r.quads},
                                   {"fragments", r.fragments},
                                   {"helper_lanes", r.helper_lanes}});
  return out + rest.substr(1);  // the fields of `rest` without its "{"
}

}  // namespace

std::string format_draw_counters_json(const DrawCounters& c) {
  const PrimitiveCounters& p = c.primitive;
  const MergeCounters& m = c.merge;
  std::string out = "{\"vertices\": " + std::to_string(c.geometry.vertices) +
                    ", \"primitives\": " + std::to_string(c.geometry.primitives);
  out += ", \"clip\": " + clip_json(c.geometry.clip);
  out += ", \"setup\": " + object({{"triangles_in", p.triangles_in},
                                   {"culled", p.culled},
                                   {"degenerate", p.degenerate},
                                   {"outside_guard_band", p.outside_guard_band},
                                   {"point_triangles", p.point_triangles},
                                   {"line_triangles", p.line_triangles},
                                   {"bresenham_lines", p.bresenham_lines}});
  out += ", \"raster\": " + raster_json(p.raster);
  out += ", \"merge\": " + object({{"fragments_in", m.fragments_in},
                                   {"stencil_failed", m.stencil_failed},
                                   {"depth_failed", m.depth_failed},
                                   {"written", m.fragments_written},
                                   {"overdraw", m.overdraw}});
  return out + "}";
}

}  // namespace gsgpu::graphics
