// One draw through the graphics blocks (see graphics_pipeline.h).
#include "gsgpu/emu/graphics/graphics_pipeline.h"

#include <memory>

#include "common/checked_math.h"

namespace gsgpu::graphics {
namespace {

// The host view of a target [va, va + row_pitch * (height - 1) + width * bpp), mapped readable and
// writable as one range; nullptr (and a reason) otherwise.
uint8_t* map_target(GpuMemory& memory, const char* what, uint64_t va, uint32_t row_pitch, uint32_t width,
                    uint32_t height, uint32_t bpp, std::string* why) {
  const uint64_t row_bytes = uint64_t{width} * bpp;
  if (row_pitch < row_bytes) {
    *why = std::string(what) + " row pitch " + std::to_string(row_pitch) + " is less than a row of " +
           std::to_string(row_bytes) + " bytes";
    return nullptr;
  }
  auto size = gsvirt::checked_mul<uint64_t>(row_pitch, height - 1);
  if (size) size = gsvirt::checked_add<uint64_t>(*size, row_bytes);
  if (!size || !gsvirt::checked_add<uint64_t>(va, *size)) {
    *why = std::string(what) + " extent overflows";
    return nullptr;
  }
  uint8_t* readable = memory.translate(va, *size, Access::kRead);
  uint8_t* writable = readable ? memory.translate(va, *size, Access::kWrite) : nullptr;
  if (!writable) *why = std::string(what) + " is not mapped readable and writable in full";
  return writable;
}

}  // namespace

std::optional<std::string> GraphicsPipeline::map_targets(const DrawState& s, ColorTarget* color,
                                                         DepthStencilTarget* depth) {
  if (s.width == 0 || s.height == 0 || s.width > kMaxDrawTargetSize || s.height > kMaxDrawTargetSize) {
    return "render area " + std::to_string(s.width) + " x " + std::to_string(s.height) + " outside 1 .. " +
           std::to_string(kMaxDrawTargetSize);
  }
  std::string why;
  if (s.color.enabled) {
    uint8_t* p = map_target(memory_, "colour target", s.color.va, s.color.row_pitch, s.width, s.height,
                            bytes_per_pixel(s.color.format), &why);
    if (!p) return why;
    *color = ColorTarget{p, s.width, s.height, s.color.row_pitch, s.color.format};
  }
  if (s.depth.enabled) {
    uint8_t* p = map_target(memory_, "depth target", s.depth.va, s.depth.row_pitch, s.width, s.height,
                            bytes_per_pixel(s.depth.format), &why);
    if (!p) return why;
    *depth = DepthStencilTarget{p, s.width, s.height, s.depth.row_pitch, s.depth.format};
  }
  return std::nullopt;
}

bool GraphicsPipeline::shade_triangle(const RasterTriangle& t, DrawContext& c) {
  TriangleSetup setup;
  if (c.pe.draw_triangle(t.screen, &setup, c.quads) != SetupResult::kAccepted) return true;
  const TriangleInterpolator interp(setup);
  while (!c.quads.empty()) {
    const Quad q = c.quads.pop();
    c.fragments += uint64_t(__builtin_popcount(q.coverage));
    if (c.fragments > fragment_budget_) {
      c.fault = "draw exceeds the fragment budget of " + std::to_string(fragment_budget_) + " fragments";
      c.quads.clear();
      return false;
    }
    QuadColors colors;
    c.stage.shade(q, interp, t, &colors);
    for (int lane = 0; lane < 4; ++lane) {
      if (!(q.coverage & (1u << lane))) continue;  // helper lanes write nothing
      Fragment f;
      f.x = q.x + (lane & 1);
      f.y = q.y + (lane >> 1);
      f.depth = c.needs_depth ? interp.depth(f.x, f.y) : 0.0f;
      f.front_facing = setup.front_facing;
      f.color = colors.color[lane];
      f.color1 = colors.color1[lane];
      c.om.process(f);
    }
  }
  return true;
}

DrawResult GraphicsPipeline::draw(const DrawState& s) {
  DrawResult result;
  const uint32_t attributes = s.input.attribute_count;
  if (attributes == 0 || attributes > kMaxVertexAttributes) {
    result.fault = "the pass-through vertex stage needs 1 .. 16 attributes (position first), not " +
                   std::to_string(attributes);
    return result;
  }
  ColorTarget color;
  DepthStencilTarget depth;
  if ((result.fault = map_targets(s, &color, &depth))) return result;
  PrimitiveEngine pe(s.raster);
  pe.set_state(PrimitiveState{s.setup, int32_t(s.width), int32_t(s.height), s.scissor});
  OutputMerger om;
  om.begin_draw(color, depth, s.depth_stencil, s.blend);
  std::unique_ptr<FragmentStage> stage;
  if (s.fragment == FragmentMode::kVaryingColor) {
    stage = std::make_unique<VaryingColorStage>(s.varying_interpolation);
  } else {
    stage = std::make_unique<ConstantColorStage>(s.constant_color, s.constant_color1);
  }
  DrawContext context{pe, om, *stage, {}, 0, std::nullopt, s.depth.enabled};
  TriangleSink sink = [&](Queue<RasterTriangle>& triangles) {
    while (!triangles.empty()) {
      if (!shade_triangle(triangles.pop(), context)) return false;
    }
    return true;
  };
  GeometryEngine ge(memory_);
  PassThroughVertexStage vertex_stage(attributes);
  std::optional<std::string> geometry_fault = ge.draw(s.draw, s.input, s.viewport, vertex_stage, sink);
  result.fault = context.fault ? context.fault : geometry_fault;
  result.counters = DrawCounters{ge.counters(), pe.counters(), om.counters()};
  return result;
}

}  // namespace gsgpu::graphics
