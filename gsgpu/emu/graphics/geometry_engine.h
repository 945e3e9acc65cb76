// The geometry engine (seed 001's GE): index fetch, vertex fetch, the vertex stage, primitive
// assembly, clipping and the viewport, feeding the primitive engine with screen-space triangles
// (points and lines as two triangles each, clipper.h / point_line_setup.h).
//
// Per instance, the vertex stream is first_vertex + i (non-indexed) or index[first_index + i] +
// vertex_offset (indexed, u16 or u32; with primitive restart on, the all-ones index of the type ends the
// current strip or fan). Each element is fetched and shaded once, assembled by topology, clipped and
// mapped to the framebuffer. Every guest-supplied count, offset and address is checked: a draw that
// reads past a buffer, from unmapped memory, has an unsupported topology or format, a bad viewport or
// more vertex invocations than the limit ends with a fault string; nothing is read unchecked and the
// engine always returns.
//
// The vertex stage is an interface, called with batches of fetched vertices: PassThroughVertexStage is
// the fixed stand-in (the position is attribute 0 as floats, the varyings are attributes 1 .. n-1,
// four components each); ProgramVertexStage (vertex_program.h) runs a vertex program.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>
#include <optional>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/clipper.h"
#include "gsgpu/emu/graphics/primitive_assembly.h"
#include "gsgpu/emu/graphics/transform_feedback.h"
#include "gsgpu/emu/graphics/vertex_fetch.h"

namespace gsgpu::graphics {

struct DrawParams {
  Topology topology = Topology::kTriangleList;
  uint32_t count = 0;  // vertices, or indices when indexed
  uint32_t instance_count = 1;
  uint32_t first_vertex = 0, first_instance = 0;
  bool indexed = false;
  uint64_t index_va = 0, index_size = 0;
  IndexType index_type = IndexType::kUint32;
  uint32_t first_index = 0;
  int32_t vertex_offset = 0;
  bool primitive_restart = false;
  // Point size of point lists (PIPE_STATE POINT_SIZE), clamped to [kMinPointSize, kMaxPointSize].
  float point_size = 1.0f;
  LineMode line_mode = LineMode::kRectangular;  // PIPE_STATE RASTER.LINE_MODE
  float line_width = 1.0f;  // PIPE_STATE LINE_WIDTH, clamped to [kMinLineWidth, kMaxLineWidth]
  LineStipple line_stipple;  // PIPE_STATE RASTER.LINE_STIPPLE and LINE_STIPPLE
  // PIPE_STATE RASTER.POLYGON_MODE, and the cull state it needs (a filled triangle is culled by
  // triangle setup instead).
  PolygonMode polygon_mode = PolygonMode::kFill;
  ProvokingVertex provoking_vertex = ProvokingVertex::kFirst;  // PIPE_STATE RASTER.PROVOKING_LAST
  DepthBias depth_bias;  // of outlined triangles (filled ones: SetupState::depth_bias)
  // SHADER_STATE VERTEX.CLIP_DISTANCES / CULL_DISTANCES: ShadedVertex::distances in use.
  uint32_t clip_distances = 0, cull_distances = 0;
  // PIPE_STATE RASTER.NO_DEPTH_CLIP: no near / far clipping (the output merger clamps the depth,
  // to the viewport's range under RASTER.DEPTH_CLAMP, else to [0, 1]).
  bool no_depth_clip = false;
  // SHADER_STATE LINEAR_VARYINGS: the components the fragment stage interpolates without
  // perspective, which clipping must cut in screen space (clipper.h lerp_varyings).
  uint64_t linear_varyings = 0;
  // PIPE_STATE RASTER.DISCARD (rasterizerDiscardEnable, GL_RASTERIZER_DISCARD): primitives are
  // assembled (and captured by transform feedback) but nothing is clipped or rasterized.
  bool rasterizer_discard = false;
  CullMode cull = CullMode::kNone;
  FrontFace front_face = FrontFace::kCounterClockwise;
};

struct GeometryCounters {
  uint64_t vertices = 0;    // fetched and shaded
  uint64_t primitives = 0;  // assembled
  ClipCounters clip;
};

class PassThroughVertexStage final : public VertexStage {
 public:
  explicit PassThroughVertexStage(uint32_t attribute_count) : attributes_(attribute_count) {}
  void shade(const FetchedVertex& in, ShadedVertex* out) override;
  uint32_t varying_components() const override;

 private:
  uint32_t attributes_;
};

// Called after each vertex whose primitives left triangles in the queue; returns false to stop the
// draw (the next stage met a fault of its own). It takes the triangles it has seen, or leaves them
// for a later call (the fast mode's geometry thread collects a batch in the queue, which the
// engine then only appends to; geometry_thread.h).
using TriangleSink = std::function<bool(Queue<RasterTriangle>&)>;

class GeometryEngine {
 public:
  // Vertex invocations one draw may run (instances x count): beyond it the draw faults, so that no
  // draw runs for hours.
  static constexpr uint64_t kDefaultVertexLimit = uint64_t{1} << 24;
  // Vertices fetched before the vertex stage shades them together (a vertex program runs a batch
  // as one dispatch of the shader cores).
  static constexpr size_t kVertexBatch = 256;

  explicit GeometryEngine(GpuMemory& memory) : memory_(memory) {}
  void set_vertex_limit(uint64_t limit) { vertex_limit_ = limit; }
  // Transform feedback for the next draw (nullptr: none); it sees every assembled primitive.
  void set_transform_feedback(TransformFeedback* xfb) { xfb_ = xfb; }
  // The queue the next draw's triangles go to before the sink sees them (nullptr: a queue of the
  // draw's own). The geometry thread's is kept from draw to draw and swapped out whole.
  void set_triangle_queue(Queue<RasterTriangle>* triangles) { triangles_ = triangles; }
  // Asked before each batch of vertices is shaded: true ends the draw without a fault of its own
  // (the primitive engine stopped; its draw thread reports why). nullptr: never.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

  // Runs the draw; `sink` is called whenever triangles are ready and must drain the queue. Returns
  // the fault that stopped the draw, if any (triangles already sunk stay drawn); a draw the sink
  // stopped returns no fault of the geometry engine's.
  std::optional<std::string> draw(const DrawParams& draw, const VertexInputState& input, const Viewport& viewport,
                                  VertexStage& stage, const TriangleSink& sink);
  const GeometryCounters& counters() const { return counters_; }
  // During a draw (from the sink): the counters a draw stopped now would report, the clipper's
  // included (counters() adds those when the draw ends).
  GeometryCounters running_counters() const;
  void reset_counters() { counters_ = {}; }

 private:
  std::optional<std::string> validate(const DrawParams& draw, const Viewport& viewport) const;

  // One instance's vertex stream between two shadings: fetched vertices, and the order of those
  // and of primitive restarts (kRestart).
  struct VertexBatch {
    static constexpr int32_t kRestart = -1;
    std::vector<FetchedVertex> fetched = std::vector<FetchedVertex>(kVertexBatch);  // the first `count` are queued
    size_t count = 0;
    std::vector<int32_t> items;
    std::vector<ShadedVertex> shaded;
  };
  struct StreamState {
    VertexStage& stage;
    PrimitiveAssembler assembler;
    uint32_t assembler_varyings;  // carried_varying_components of the stage
    Clipper& clipper;
    const TriangleSink& sink;
    float point_size;
    LineRules line;
    OutlineState outline;  // polygon mode LINE / POINT
    uint32_t clip_distances, cull_distances;
    bool discard;  // DrawParams::rasterizer_discard
    Queue<AssembledPrimitive> primitives;
    Queue<RasterTriangle>& triangles;
    std::vector<AssembledPrimitive> pieces;  // what the clip distances left of a primitive
  };
  // One primitive (or a piece of one) through the clipper; `flat`: its flat varyings when they are
  // not its first vertex's.
  void clip_primitive(const AssembledPrimitive& p, StreamState& s, const Varyings* flat);
  // Shades the batch and streams it through assembly and clipping into the sink; false when the
  // draw must stop (*fault set by a vertex-stage fault, or the sink stopped it).
  bool flush_batch(VertexBatch& batch, StreamState& s, std::optional<std::string>* fault);
  // Fetches one instance's vertices batch by batch; false when the draw must stop.
  bool run_instance(const DrawParams& draw, uint32_t inst, VertexFetcher& fetcher, StreamState& s,
                    std::optional<std::string>* fault);

  GpuMemory& memory_;
  uint64_t vertex_limit_ = kDefaultVertexLimit;
  TransformFeedback* xfb_ = nullptr;
  Queue<RasterTriangle>* triangles_ = nullptr;
  const std::atomic<bool>* stop_ = nullptr;
  const Clipper* clipper_ = nullptr;  // the running draw's
  GeometryCounters counters_;
};

}  // namespace gsgpu::graphics
