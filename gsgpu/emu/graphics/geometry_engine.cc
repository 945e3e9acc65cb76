// The geometry engine's draw loop (see geometry_engine.h).
#include "gsgpu/emu/graphics/geometry_engine.h"

#include <bit>

#include "gsgpu/emu/graphics/user_clip.h"

namespace gsgpu::graphics {

void PassThroughVertexStage::shade(const FetchedVertex& in, ShadedVertex* out) {
  *out = ShadedVertex{};  // the geometry engine hands over vertices an earlier batch used
  for (int c = 0; c < 4; ++c) out->position[c] = std::bit_cast<float>(in.attributes[0][c]);
  for (uint32_t a = 1; a < attributes_ && a < kMaxVertexAttributes; ++a) {
    for (int c = 0; c < 4; ++c) out->varyings[(a - 1) * 4 + c] = std::bit_cast<float>(in.attributes[a][c]);
  }
}

uint32_t PassThroughVertexStage::varying_components() const {
  return attributes_ > 1 ? std::min(attributes_ - 1, kMaxVertexAttributes - 1) * 4 : 0;
}

std::optional<std::string> GeometryEngine::validate(const DrawParams& draw, const Viewport& viewport) const {
  if (uint32_t(draw.topology) > kMaxTopology) return "topology " + std::to_string(int(draw.topology)) + " is unknown";
  if (auto bad = validate_viewport(viewport)) return bad;
  if (uint64_t{draw.count} * draw.instance_count > vertex_limit_) {
    return "draw of " + std::to_string(draw.count) + " x " + std::to_string(draw.instance_count) +
           " vertices exceeds the limit of " + std::to_string(vertex_limit_) + " per draw";
  }
  return std::nullopt;
}

void GeometryEngine::clip_primitive(const AssembledPrimitive& p, StreamState& s, const Varyings* flat) {
  if (p.vertex_count == 1) {
    s.clipper.clip_point(p, s.point_size, s.triangles, flat);
  } else if (p.vertex_count == 2) {
    s.clipper.clip_line(p, s.line, s.triangles, flat);
  } else if (s.outline.mode == PolygonMode::kFill) {
    s.clipper.clip_triangle(p, s.triangles, flat);
  } else {
    s.clipper.outline_triangle(p, s.outline, s.triangles);
  }
}

bool GeometryEngine::flush_batch(VertexBatch& batch, StreamState& s, std::optional<std::string>* fault) {
  if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) return false;
  // Kept from batch to batch: the stage writes every field of its vertices a later block reads.
  if (batch.shaded.size() < batch.count) batch.shaded.resize(batch.count);
  if (auto bad = s.stage.shade_batch(batch.fetched.data(), batch.count, batch.shaded.data())) {
    if (!*fault) *fault = bad;
    return false;
  }
  bool go_on = true;
  for (int32_t item : batch.items) {
    if (item == VertexBatch::kRestart) {
      s.assembler.restart();
      continue;
    }
    counters_.vertices++;
    s.assembler.push(batch.shaded[size_t(item)], s.primitives);
    while (!s.primitives.empty()) {
      counters_.primitives++;
      const AssembledPrimitive& p = s.primitives.front();  // the clipper pushes to s.triangles only
      if (xfb_ != nullptr) {
        if (auto bad = xfb_->capture(p)) {
          if (!*fault) *fault = bad;
          s.primitives.drop_front();
          go_on = false;
          break;
        }
      }
      if (s.discard) {
        // rasterizer discard: nothing past transform feedback
      } else if (s.clip_distances + s.cull_distances == 0) {
        clip_primitive(p, s, nullptr);
      } else {
        // The pieces left by the clip distances keep the primitive's provoking vertex for flat varyings.
        s.pieces.clear();
        cut_by_distances(p, s.clip_distances, s.cull_distances, s.clipper.linear_varyings(), &s.pieces);
        for (const AssembledPrimitive& piece : s.pieces) clip_primitive(piece, s, &p.flat_varyings());
      }
      s.primitives.drop_front();
    }
    if (!go_on) break;
    if (!s.triangles.empty() && !s.sink(s.triangles)) {
      go_on = false;
      break;
    }
  }
  batch.count = 0;
  batch.items.clear();
  return go_on;
}

bool GeometryEngine::run_instance(const DrawParams& draw, uint32_t inst, VertexFetcher& fetcher, StreamState& s,
                                  std::optional<std::string>* fault) {
  const uint64_t instance_index = uint64_t{draw.first_instance} + inst;
  const uint32_t restart_index = draw.index_type == IndexType::kUint16 ? 0xFFFFu : 0xFFFFFFFFu;
  s.assembler = PrimitiveAssembler(draw.topology, draw.provoking_vertex, s.assembler_varyings);
  VertexBatch batch;
  for (uint32_t i = 0; i < draw.count && !*fault; ++i) {
    int64_t vertex_index = int64_t{draw.first_vertex} + i;
    if (draw.indexed) {
      uint32_t index = 0;
      *fault = fetcher.fetch_index(draw.index_va, draw.index_size, draw.index_type, uint64_t{draw.first_index} + i,
                                   &index);
      if (*fault) break;
      if (draw.primitive_restart && index == restart_index) {
        batch.items.push_back(VertexBatch::kRestart);
        continue;
      }
      vertex_index = int64_t{index} + draw.vertex_offset;
    }
    if (vertex_index < 0 || vertex_index > int64_t{UINT32_MAX} || instance_index > UINT32_MAX) {
      *fault = "vertex index " + std::to_string(vertex_index) + " is outside 0 .. 2^32 - 1";
      break;
    }
    // Fetched in place into an entry kept from batch to batch (a vertex is 264 bytes: zeroing one
    // per vertex cost more than its fetch); fetch writes the attributes the stage reads.
    if ((*fault = fetcher.fetch(uint32_t(vertex_index), uint32_t(instance_index), &batch.fetched[batch.count]))) break;
    batch.items.push_back(int32_t(batch.count++));
    if (batch.count == kVertexBatch && !flush_batch(batch, s, fault)) return false;
  }
  // What was fetched before a fault is still drawn, as when vertices were shaded one by one.
  return flush_batch(batch, s, fault) && !*fault;
}

std::optional<std::string> GeometryEngine::draw(const DrawParams& draw, const VertexInputState& input,
                                                const Viewport& viewport, VertexStage& stage,
                                                const TriangleSink& sink) {
  if (auto bad = validate(draw, viewport)) return bad;
  // No vertices: nothing to do, however many instances (the limit above is on their product, and a
  // loop over 2^32 - 1 empty instances held the device for minutes).
  if (draw.count == 0) return std::nullopt;
  VertexFetcher fetcher(memory_, input);
  Clipper clipper(viewport, stage.varying_components(), draw.no_depth_clip, draw.linear_varyings);
  const LineRules line{draw.line_mode, draw.line_width, draw.line_stipple};
  const OutlineState outline{draw.polygon_mode, draw.cull, draw.front_face, line, draw.point_size, draw.depth_bias};
  const uint32_t carried = carried_varying_components(stage.varying_components());
  Queue<RasterTriangle> own_triangles;
  StreamState stream{stage,     PrimitiveAssembler(draw.topology, draw.provoking_vertex, carried),
                     carried,   clipper,
                     sink,      draw.point_size,
                     line,      outline,
                     draw.clip_distances, draw.cull_distances,
                     draw.rasterizer_discard,
                     {},        triangles_ ? *triangles_ : own_triangles,
                     {}};
  clipper_ = &clipper;
  std::optional<std::string> fault;
  for (uint32_t inst = 0; inst < draw.instance_count; ++inst) {
    if (!run_instance(draw, inst, fetcher, stream, &fault)) break;
  }
  clipper_ = nullptr;
  counters_.clip.add(clipper.counters());
  return fault;
}

GeometryCounters GeometryEngine::running_counters() const {
  GeometryCounters now = counters_;
  if (clipper_ != nullptr) now.clip.add(clipper_->counters());
  return now;
}

}  // namespace gsgpu::graphics
