// One draw through the graphics blocks (see graphics_pipeline.h).
#include "gsgpu/emu/graphics/graphics_pipeline.h"

#include <cstdlib>
#include <cstring>
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

// GSGPU_GEOMETRY_THREAD=0 keeps fast mode's geometry engine on the draw's thread: the same pixels,
// counters and faults, one thread fewer (to compare the two on a host, or for a host without a
// spare CPU, where each hand-over waits for one). Read per draw, so that a test can set it.
bool geometry_thread_allowed() {
  const char* setting = std::getenv("GSGPU_GEOMETRY_THREAD");
  return setting == nullptr || std::strcmp(setting, "0") != 0;
}

}  // namespace

std::optional<std::string> GraphicsPipeline::map_targets(const DrawState& s, ColorTarget* color,
                                                         DepthStencilTarget* depth) {
  if (s.width == 0 || s.height == 0 || s.width > kMaxDrawTargetSize || s.height > kMaxDrawTargetSize) {
    return "render area " + std::to_string(s.width) + " x " + std::to_string(s.height) + " outside 1 .. " +
           std::to_string(kMaxDrawTargetSize);
  }
  const uint32_t samples = s.multisample.samples;
  if (samples != 1 && samples != 2 && samples != 4) return std::to_string(samples) + " samples per pixel";
  // A multisampled target is mapped, and merged into, as one `samples` times wider (multisample.h);
  // at most 4 x 4096 columns, so no product below can wrap.
  const uint32_t columns = s.width * samples;
  std::string why;
  if (s.color.enabled) {
    uint8_t* p = map_target(memory_, "colour target", s.color.va, s.color.row_pitch, columns, s.height,
                            bytes_per_pixel(s.color.format), &why);
    if (!p) return why;
    *color = ColorTarget{p, columns, s.height, s.color.row_pitch, s.color.format};
  }
  if (s.depth.enabled) {
    uint8_t* p = map_target(memory_, "depth target", s.depth.va, s.depth.row_pitch, columns, s.height,
                            bytes_per_pixel(s.depth.format), &why);
    if (!p) return why;
    *depth = DepthStencilTarget{p, columns, s.height, s.depth.row_pitch, s.depth.format};
  }
  return std::nullopt;
}

std::optional<std::string> GraphicsPipeline::add_more_targets(const DrawState& s, OutputMerger* om) {
  std::string why;
  const uint32_t columns = s.width * s.multisample.samples;  // as target 0 (map_targets checked both)
  for (uint32_t i = 0; i < s.more_color_count && i < s.more_colors.size(); ++i) {
    const MoreColorTargetState& m = s.more_colors[i];
    ColorTarget target;
    if (m.target.enabled) {
      const std::string what = "colour target " + std::to_string(i + 1);
      uint8_t* p = map_target(memory_, what.c_str(), m.target.va, m.target.row_pitch, columns, s.height,
                              bytes_per_pixel(m.target.format), &why);
      if (!p) return why;
      target = ColorTarget{p, columns, s.height, m.target.row_pitch, m.target.format};
    }
    om->add_color_target(target, m.blend);
  }
  return std::nullopt;
}

bool GraphicsPipeline::shade_triangle(const RasterTriangle& t, DrawContext& c) {
  // Without this a draw of 2^24 vertices in slivers across a large target rasterized for many
  // minutes whatever the time budget, which stopped only the shader cores.
  if (cancelled_ && cancelled_()) {
    c.fault = "draw cancelled by the embedding program (time budget or reset)";
    return false;
  }
  TriangleSetup setup;
  if (c.pe.draw_triangle(t.screen, &setup, c.quads, t.kind) != SetupResult::kAccepted) return true;
  const TriangleInterpolator interp(setup);
  if (c.program) c.program->begin_triangle(t, setup.front_facing);
  while (!c.quads.empty()) {
    const Quad q = c.quads.pop();
    c.fragments += uint64_t(quad_lanes(q.coverage));
    if (c.fragments > fragment_budget_) {
      c.fault = "draw exceeds the fragment budget of " + std::to_string(fragment_budget_) + " fragments";
      c.quads.clear();
      return false;
    }
    if (!c.program) {
      shade_fixed(q, interp, setup, t, c);
    } else if (!c.program->add_quad(q, interp, c.needs_depth, c.multisampled_depth)) {
      c.fault = c.program->fault();
      c.quads.clear();
      return false;
    }
  }
  return true;
}

bool GraphicsPipeline::uses_geometry_thread(const DrawState& s) const {
  return mode_ == DrawMode::kFast && !s.xfb.enabled && !s.draw.rasterizer_discard &&
         uint64_t{s.draw.count} * s.draw.instance_count > GeometryEngine::kVertexBatch && geometry_thread_allowed();
}

std::optional<std::string> GraphicsPipeline::draw_on_geometry_thread(const DrawState& s, GeometryEngine& ge,
                                                                     VertexStage& stage, DrawScratch& scratch,
                                                                     DrawContext& c, GeometryCounters* counted) {
  TriangleChannel& channel = scratch.triangles;
  channel.begin();
  ge.set_triangle_queue(&channel.staging());
  ge.set_stop_flag(&channel.stop_flag());
  const TriangleSink sink = [&channel, &ge](Queue<RasterTriangle>&) { return channel.take(ge); };
  scratch.geometry_worker.submit([&] {
    std::optional<std::string> fault = ge.draw(s.draw, s.input, s.viewport, stage, sink);
    channel.finish(std::move(fault), ge.counters());
  });
  bool go_on = true;
  while (TriangleBatch* batch = channel.next()) {
    go_on = shade_triangle_batch(*batch, c, counted);
    channel.release();
    if (!go_on) break;
  }
  // A stop on this side (c.fault) ends the geometry thread's draw; its work ahead is not counted.
  if (!go_on) channel.stop();
  scratch.geometry_worker.wait();
  if (!go_on) return std::nullopt;
  *counted = channel.final_counters();
  return channel.fault();
}

bool GraphicsPipeline::shade_triangle_batch(TriangleBatch& batch, DrawContext& c, GeometryCounters* counted) {
  size_t drawn = 0;
  for (const TriangleBatch::Mark& mark : batch.marks) {
    // The single-thread path stops inside a sink call with everything up to that call counted.
    *counted = mark.counters;
    for (; drawn < mark.end; ++drawn) {
      const bool go_on = shade_triangle(batch.triangles.front(), c);  // read in place, as the sink does
      batch.triangles.drop_front();
      if (!go_on) return false;
    }
  }
  return true;
}

void GraphicsPipeline::shade_fixed(const Quad& q, const TriangleInterpolator& interp, const TriangleSetup& setup,
                                   const RasterTriangle& t, DrawContext& c) {
  QuadColors colors;
  c.stage->shade(q, interp, t, &colors);
  const std::array<float, 2> slopes = c.multisampled_depth ? interp.depth_slopes() : std::array<float, 2>{};
  for (int lane = 0; lane < 4; ++lane) {
    if (!(q.coverage & (1u << lane))) continue;  // helper lanes write nothing
    Fragment f;
    f.x = q.x + (lane & 1);
    f.y = q.y + (lane >> 1);
    f.depth = c.needs_depth ? interp.depth(f.x, f.y) : 0.0f;
    f.front_facing = setup.front_facing;
    f.color = colors.color[lane];
    f.color1 = colors.color1[lane];
    f.samples = q.samples[lane];
    f.depth_dx = slopes[0];
    f.depth_dy = slopes[1];
    c.om.process(f);
  }
}

std::optional<std::string> GraphicsPipeline::check_code(const char* stage, const ShaderProgram& p) const {
  if (!runner_) return std::string(stage) + " programs need the shader cores, which this device does not give the draw";
  if (!memory_.translate(p.code_va, p.code_size, Access::kExecute))
    return std::string(stage) + " program code [" + std::to_string(p.code_va) + ", +" + std::to_string(p.code_size) +
           ") is not mapped executable";
  return std::nullopt;
}

std::optional<std::string> GraphicsPipeline::check_program(const DrawState& s, uint32_t vertex_varyings) const {
  if (auto bad = check_code("fragment", s.fragment_program)) return bad;
  if (auto bad = FragmentProgramStage::check_runner(*runner_)) return bad;
  if (s.fragment_program.varying_components > vertex_varyings)
    return "the fragment program reads " + std::to_string(s.fragment_program.varying_components) +
           " varying components; the vertex stage writes " + std::to_string(vertex_varyings);
  return std::nullopt;
}

std::optional<std::string> GraphicsPipeline::make_vertex_stage(const DrawState& s,
                                                               std::optional<PassThroughVertexStage>& fixed,
                                                               std::optional<ProgramVertexStage>& program,
                                                               VertexStage** out) {
  const uint32_t attributes = s.input.attribute_count;
  if (s.vertex == VertexMode::kProgram) {
    if (attributes > kMaxVertexAttributes)
      return "a vertex program takes at most 16 attributes, not " + std::to_string(attributes);
    if (auto bad = check_code("vertex", s.vertex_program)) return bad;
    *out = &program.emplace(s.vertex_program, attributes, *runner_);
    return std::nullopt;
  }
  if (attributes == 0 || attributes > kMaxVertexAttributes) {
    return "the pass-through vertex stage needs 1 .. 16 attributes (position first), not " +
           std::to_string(attributes);
  }
  *out = &fixed.emplace(attributes);
  return std::nullopt;
}

DrawResult GraphicsPipeline::draw(const DrawState& s) {
  DrawResult result;
  std::optional<PassThroughVertexStage> pass_through;
  std::optional<ProgramVertexStage> vertex_program;
  VertexStage* vertex_stage = nullptr;
  if ((result.fault = make_vertex_stage(s, pass_through, vertex_program, &vertex_stage))) return result;
  ColorTarget color;
  DepthStencilTarget depth;
  if ((result.fault = map_targets(s, &color, &depth))) return result;
  PrimitiveEngine pe(s.raster);
  pe.set_state(PrimitiveState{s.setup, int32_t(s.width), int32_t(s.height), s.scissor, s.multisample.samples,
                              viewport_pixels(s.viewport)});
  const bool fast = mode_ == DrawMode::kFast;
  OutputMerger om;
  om.set_count_overdraw(!fast);
  om.begin_draw(color, depth, s.depth_stencil, s.blend, s.multisample);
  if ((result.fault = add_more_targets(s, &om))) return result;
  std::unique_ptr<FragmentStage> stage;
  // The fast mode's merge worker (its thread starts on the first hand-over) and the fragment
  // batches' vectors: the caller's, kept from draw to draw, or this draw's own.
  std::optional<DrawScratch> own_scratch;
  DrawScratch& scratch = scratch_ ? *scratch_ : own_scratch.emplace();
  std::unique_ptr<FragmentProgramStage> program;  // destroyed first: it gives its vectors back
  if (s.fragment == FragmentMode::kProgram) {
    if ((result.fault = check_program(s, vertex_stage->varying_components()))) return result;
    program = std::make_unique<FragmentProgramStage>(
        s.fragment_program, *runner_, om, fast ? kFastWarpsPerBatch : FragmentProgramStage::kDefaultWarpsPerBatch,
        fast ? &scratch.merge_worker : nullptr, &scratch.fragment_batches);
  } else if (s.fragment == FragmentMode::kVaryingColor) {
    stage = std::make_unique<VaryingColorStage>(s.varying_interpolation);
  } else {
    stage = std::make_unique<ConstantColorStage>(s.constant_color, s.constant_color1);
  }
  DrawContext context{pe, om, stage.get(), program.get(), {}, 0, std::nullopt, s.depth.enabled,
                      s.depth.enabled && s.multisample.samples > 1};
  TriangleSink sink = [&](Queue<RasterTriangle>& triangles) {
    while (!triangles.empty()) {
      // Read in place (a triangle is 1 KiB): shading pushes nothing to this queue.
      const bool go_on = shade_triangle(triangles.front(), context);
      triangles.drop_front();
      if (!go_on) return false;
    }
    return true;
  };
  GeometryEngine ge(memory_);
  ge.set_vertex_limit(vertex_limit_);
  std::optional<TransformFeedback> xfb;
  if (s.xfb.enabled) {
    if ((result.fault = xfb_outputs_unwritten(s.xfb, vertex_stage->varying_components(),
                                              s.draw.clip_distances + s.draw.cull_distances)))
      return result;
    if ((result.fault = xfb.emplace(memory_, s.xfb, s.draw.provoking_vertex).begin())) return result;
    ge.set_transform_feedback(&*xfb);
  }
  std::optional<std::string> geometry_fault;
  GeometryCounters geometry_counters;
  if (uses_geometry_thread(s)) {
    geometry_fault = draw_on_geometry_thread(s, ge, *vertex_stage, scratch, context, &geometry_counters);
  } else {
    geometry_fault = ge.draw(s.draw, s.input, s.viewport, *vertex_stage, sink);
    geometry_counters = ge.counters();
  }
  if (xfb) {
    // The offsets go back even after a fault: what was written stays written, as the counters say.
    std::optional<std::string> end_fault = xfb->end();
    if (!geometry_fault) geometry_fault = end_fault;
    result.xfb = xfb->counters();
  }
  // What is still queued for the shader cores runs now (also before a geometry fault: what was
  // rasterized before it is drawn, as for the stand-ins).
  if (program && !context.fault && !program->flush()) context.fault = program->fault();
  if (program) program->wait_merges();  // the merger's counters are read below
  result.fault = context.fault ? context.fault : geometry_fault;
  result.counters = DrawCounters{geometry_counters, pe.counters(), om.counters()};
  return result;
}

}  // namespace gsgpu::graphics
