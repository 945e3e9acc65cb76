// Per-draw text dump (see draw_dump.h).
#include "gsgpu/emu/graphics/draw_dump.h"

#include <cinttypes>
#include <cstdio>

#include "common/text.h"
#include "gsgpu/emu/graphics/draw_counters_json.h"

namespace gsgpu::graphics {
namespace {

using gsvirt::appendf;

const char* cull_name(CullMode m) {
  static const char* names[] = {"none", "front", "back", "front and back"};
  return names[int(m) & 3];
}

void append_geometry_state(std::string* out, const DrawState& s) {
  const DrawParams& d = s.draw;
  appendf(out, "  topology        %s\n", topology_name(d.topology));
  appendf(out, "  count           %u x %u instances (first vertex %u, first instance %u)\n", d.count,
          d.instance_count, d.first_vertex, d.first_instance);
  if (d.indexed) {
    appendf(out, "  indices         va 0x%" PRIx64 ", %" PRIu64 " bytes, %s, first %u, vertex offset %d, restart %s\n",
            d.index_va, d.index_size, d.index_type == IndexType::kUint16 ? "u16" : "u32", d.first_index,
            d.vertex_offset, d.primitive_restart ? "on" : "off");
  }
  for (uint32_t a = 0; a < s.input.attribute_count && a < kMaxVertexAttributes; ++a) {
    const VertexAttribute& at = s.input.attributes[a];
    const VertexBinding& b = s.input.bindings[at.binding % kMaxVertexBindings];
    appendf(out, "  attribute %-2u    %s at +%u of binding %u (va 0x%" PRIx64 ", %" PRIu64 " bytes, stride %u, %s)\n",
            a, vertex_format_name(at.format), at.offset, at.binding, b.va, b.size, b.stride,
            b.rate == InputRate::kVertex ? "per vertex" : "per instance");
  }
  if (d.topology == Topology::kPointList) {
    appendf(out, "  point size      %g (drawn %g)\n", d.point_size, clamp_point_size(d.point_size));
  }
  const Viewport& v = s.viewport;
  appendf(out, "  viewport        (%g, %g) %g x %g, depth %g .. %g\n", v.x, v.y, v.width, v.height, v.min_depth,
          v.max_depth);
}

void append_pixel_state(std::string* out, const DrawState& s) {
  appendf(out, "  cull            %s, front face %s\n", cull_name(s.setup.cull),
          s.setup.front_face == FrontFace::kCounterClockwise ? "counter-clockwise" : "clockwise");
  appendf(out, "  scissor         [%d, %d) x [%d, %d)\n", s.scissor.x0, s.scissor.x1, s.scissor.y0, s.scissor.y1);
  appendf(out, "  rasterizer      bounding-box test %s, lines %s, width %g (drawn %g)\n",
          s.raster.bounding_box_test ? "on" : "off", s.draw.line_mode == LineMode::kBresenham ? "Bresenham" : "rectangular",
          s.draw.line_width, clamp_line_width(s.draw.line_width));
  if (s.draw.line_stipple.enabled) {
    appendf(out, "  line stipple    factor %u, pattern 0x%04x\n", s.draw.line_stipple.factor,
            unsigned(s.draw.line_stipple.pattern));
  }
  appendf(out, "  render area     %u x %u\n", s.width, s.height);
  if (s.color.enabled) {
    appendf(out, "  colour target   va 0x%" PRIx64 ", pitch %u, %s\n", s.color.va, s.color.row_pitch,
            color_format_name(s.color.format));
  }
  if (s.depth.enabled) {
    appendf(out, "  depth target    va 0x%" PRIx64 ", pitch %u, %s\n", s.depth.va, s.depth.row_pitch,
            depth_format_name(s.depth.format));
  }
  const DepthStencilState& ds = s.depth_stencil;
  appendf(out, "  depth           test %s, write %s, compare %u\n", ds.depth_test ? "on" : "off",
          ds.depth_write ? "on" : "off", unsigned(ds.depth_compare));
  appendf(out, "  stencil         %s, front ref 0x%02x, back ref 0x%02x\n", ds.stencil_test ? "on" : "off",
          ds.front.reference, ds.back.reference);
  const BlendState& b = s.blend;
  appendf(out, "  blend           %s: colour src %u dst %u op %u, alpha src %u dst %u op %u\n",
          b.enable ? "on" : "off", unsigned(b.src_color), unsigned(b.dst_color), unsigned(b.color_op),
          unsigned(b.src_alpha), unsigned(b.dst_alpha), unsigned(b.alpha_op));
  appendf(out, "  logic op        %s %u; write mask 0x%x; constant (%g, %g, %g, %g)\n",
          b.logic_op_enable ? "on" : "off", unsigned(b.logic_op), b.write_mask, b.constant[0], b.constant[1],
          b.constant[2], b.constant[3]);
  if (s.vertex == VertexMode::kProgram) {
    const ShaderProgram& p = s.vertex_program;
    appendf(out,
            "  vertex stage    program at va 0x%" PRIx64 " (%u bytes, entry +%u), %u vector / %u scalar registers, "
            "%u varying components\n",
            p.code_va, p.code_size, p.entry_offset, p.vector_regs, p.scalar_regs, p.varying_components);
  }
  if (s.fragment == FragmentMode::kProgram) {
    const ShaderProgram& p = s.fragment_program;
    appendf(out,
            "  fragment stage  program at va 0x%" PRIx64 " (%u bytes, entry +%u), %u vector / %u scalar registers, "
            "%u varying components\n",
            p.code_va, p.code_size, p.entry_offset, p.vector_regs, p.scalar_regs, p.varying_components);
  } else if (s.fragment == FragmentMode::kConstantColor) {
    appendf(out, "  fragment stage  constant colour (%g, %g, %g, %g) [fixed stand-in]\n",
            s.constant_color[0], s.constant_color[1], s.constant_color[2], s.constant_color[3]);
  } else {
    appendf(out, "  fragment stage  varyings 0..3 as colour, interpolation %u [fixed stand-in]\n",
            unsigned(s.varying_interpolation));
  }
}

}  // namespace

std::string format_draw_state(const DrawState& s) {
  std::string out = "draw state:\n";
  append_geometry_state(&out, s);
  append_pixel_state(&out, s);
  return out;
}

std::string format_draw_counters(const DrawCounters& c) {
  std::string out = "counters:\n";
  appendf(&out, "  vertices                  %" PRIu64 "\n", c.geometry.vertices);
  appendf(&out, "  primitives                %" PRIu64 "\n", c.geometry.primitives);
  appendf(&out, "  clip accepted / clipped / rejected  %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
          c.geometry.clip.trivially_accepted, c.geometry.clip.clipped, c.geometry.clip.rejected);
  appendf(&out, "  triangles culled / degenerate       %" PRIu64 " / %" PRIu64 "\n", c.primitive.culled,
          c.primitive.degenerate);
  const ClipCounters& k = c.geometry.clip;
  if (k.points_in) {
    appendf(&out, "  points in / culled / drawn          %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n", k.points_in,
            k.points_culled, k.points_out);
  }
  if (k.lines_in) {
    appendf(&out,
            "  lines in / clipped / rejected / degenerate / drawn  %" PRIu64 " / %" PRIu64 " / %" PRIu64 " / %" PRIu64
            " / %" PRIu64 "\n",
            k.lines_in, k.lines_clipped, k.lines_rejected, k.lines_degenerate, k.lines_out);
  }
  const RasterCounters& r = c.primitive.raster;
  for (int l = 0; l < kTileLevels; ++l) {
    appendf(&out, "  tiles %3dx%-3d visited %-8" PRIu64 " rejected %-8" PRIu64 " accepted %" PRIu64 "\n",
            kTopTileSize >> l, kTopTileSize >> l, r.tiles_visited[l], r.tiles_rejected[l], r.tiles_accepted[l]);
  }
  appendf(&out, "  tiles rejected by bbox    %" PRIu64 "\n", r.tiles_rejected_by_bbox);
  appendf(&out, "  4x4 blocks tested         %" PRIu64 "\n", r.blocks_tested);
  appendf(&out, "  quads                     %" PRIu64 "\n", r.quads);
  appendf(&out, "  fragments                 %" PRIu64 " (+%" PRIu64 " helper lanes)\n", r.fragments, r.helper_lanes);
  appendf(&out, "  stencil / depth failed    %" PRIu64 " / %" PRIu64 "\n", c.merge.stencil_failed,
          c.merge.depth_failed);
  appendf(&out, "  fragments written         %" PRIu64 "\n", c.merge.fragments_written);
  appendf(&out, "  overdraw                  %" PRIu64 "\n", c.merge.overdraw);
  return out;
}

std::string format_draw(const DrawState& state, const DrawResult& result) {
  std::string out = format_draw_state(state) + format_draw_counters(result.counters);
  out += "counters json: " + format_draw_counters_json(result.counters) + "\n";
  out += result.fault ? "result: fault: " + *result.fault + "\n" : "result: ok\n";
  return out;
}

}  // namespace gsgpu::graphics
