// The graphics pipeline of one draw: geometry engine -> primitive engine -> fragment stage -> output
// merger, connected by Queues, over GPU memory.
//
// DrawState is the whole of a draw as the state blocks describe it (the command processor decodes
// the blocks into it). draw() validates what the blocks cannot express (the targets: a size inside
// 1 .. kMaxDrawTargetSize, a row pitch that holds a row, the whole target mapped readable and
// writable through the MMU), then runs the blocks. A draw that faults (any check here or in the
// geometry engine, or more fragments than the budget) stops with the reason; what it drew before
// stays drawn, as on hardware. Depth is tested late (after shading); early depth needs no shader
// side effects to be legal and comes with real fragment shaders.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/draw_scratch.h"
#include "gsgpu/emu/graphics/fragment_program.h"
#include "gsgpu/emu/graphics/fragment_stage.h"
#include "gsgpu/emu/graphics/geometry_engine.h"
#include "gsgpu/emu/graphics/multisample.h"
#include "gsgpu/emu/graphics/output_merger.h"
#include "gsgpu/emu/graphics/primitive_engine.h"
#include "gsgpu/emu/graphics/vertex_program.h"

namespace gsgpu::graphics {

// How draws are computed (docs/graphics.md "Reference and fast modes"). Both are deterministic and
// give the same pixels, depth and stencil bit for bit. Fast keeps no overdraw map (the overdraw
// counter stays 0) and runs fragment programs in batches of kFastWarpsPerBatch warps (fewer
// dispatches: a draw whose program faults may have merged fewer of its quads before the fault).
enum class DrawMode : uint8_t { kReference, kFast };
inline constexpr uint32_t kFastWarpsPerBatch = 256;

// Render targets the draw path accepts (Vulkan requires at least 4096 for maxFramebufferWidth).
inline constexpr uint32_t kMaxDrawTargetSize = 4096;

struct ColorTargetState {
  bool enabled = false;
  uint64_t va = 0;
  uint32_t row_pitch = 0;
  ColorFormat format = ColorFormat::kR8G8B8A8Unorm;
};

// Colour target 1 + i (PIPE_STATE COLOR_TARGETS' record i): fed by the fragment outputs at
// Location 1 + i; its blend state's enable, factors, ops and write mask are its own.
struct MoreColorTargetState {
  ColorTargetState target;
  BlendState blend;
};

struct DepthTargetState {
  bool enabled = false;
  uint64_t va = 0;
  uint32_t row_pitch = 0;
  DepthFormat format = DepthFormat::kD32Sfloat;
};

// The fixed stand-ins (fragment_stage.h) or a program on the shader cores (fragment_program.h).
enum class FragmentMode : uint8_t { kConstantColor, kVaryingColor, kProgram };
// PassThroughVertexStage or a program on the shader cores (vertex_program.h).
enum class VertexMode : uint8_t { kPassThrough, kProgram };

struct DrawState {
  DrawParams draw;
  VertexInputState input;
  Viewport viewport;
  SetupState setup;
  PixelRect scissor{0, 0, int32_t(kMaxDrawTargetSize), int32_t(kMaxDrawTargetSize)};
  RasterSettings raster;
  uint32_t width = 0, height = 0;  // of the render area's targets
  ColorTargetState color;
  std::array<MoreColorTargetState, kMaxColorTargets - 1> more_colors{};
  uint32_t more_color_count = 0;  // targets 1 .. more_color_count
  DepthTargetState depth;
  DepthStencilState depth_stencil;
  BlendState blend;
  MultisampleState multisample;  // samples of both targets, sample mask, alpha to coverage / one
  FragmentMode fragment = FragmentMode::kConstantColor;
  Interpolation varying_interpolation = Interpolation::kPerspective;
  Color constant_color{1, 1, 1, 1}, constant_color1{0, 0, 0, 0};
  ShaderProgram fragment_program;  // FragmentMode::kProgram
  VertexMode vertex = VertexMode::kPassThrough;
  ShaderProgram vertex_program;  // VertexMode::kProgram
  XfbState xfb;                  // SHADER_STATE XFB_VA (transform_feedback.h)
};

struct DrawCounters {
  GeometryCounters geometry;
  PrimitiveCounters primitive;
  MergeCounters merge;
};

struct DrawResult {
  std::optional<std::string> fault;
  DrawCounters counters;
  XfbCounters xfb;  // primitives transform feedback wrote / needed (the XFB_* registers)
};

class GraphicsPipeline {
 public:
  static constexpr uint64_t kDefaultFragmentBudget = uint64_t{1} << 27;

  explicit GraphicsPipeline(GpuMemory& memory) : memory_(memory) {}
  void set_fragment_budget(uint64_t budget) { fragment_budget_ = budget; }
  // Vertex invocations (count x instances) a draw may ask for (GeometryEngine::set_vertex_limit).
  void set_vertex_limit(uint64_t limit) { vertex_limit_ = limit; }
  // Asked before each triangle is rasterized: true stops the draw with a fault (the embedding
  // program's time budget or reset; DispatchBackend::cancel_requested).
  void set_cancel_check(std::function<bool()> cancelled) { cancelled_ = std::move(cancelled); }
  // Where vertex and fragment programs run; without one such a draw faults. Must outlive the draws.
  void set_program_runner(ShaderProgramRunner* runner) { runner_ = runner; }
  void set_mode(DrawMode mode) { mode_ = mode; }
  // Storage the draws reuse (draw_scratch.h); without it each draw allocates its own. Must outlive
  // the draws and serve one at a time.
  void set_scratch(DrawScratch* scratch) { scratch_ = scratch; }
  DrawResult draw(const DrawState& state);

 private:
  struct DrawContext {
    PrimitiveEngine& pe;
    OutputMerger& om;
    FragmentStage* stage;            // the fixed stand-in, or
    FragmentProgramStage* program;   // the program on the shader cores
    Queue<Quad> quads;
    uint64_t fragments;
    std::optional<std::string> fault;
    bool needs_depth;  // a depth target exists (otherwise the fragment depth is never read)
    bool multisampled_depth;  // and has several samples: fragments carry the depth plane's slopes
  };
  // Whether the draw's geometry engine runs on the geometry thread (fast mode; not with transform
  // feedback, whose writes the single-thread order fixes; not for draws of one vertex batch; not
  // with GSGPU_GEOMETRY_THREAD=0).
  bool uses_geometry_thread(const DrawState& s) const;
  // The geometry engine on the geometry thread while this thread sets up, rasterizes and shades
  // its batches (geometry_thread.h); returns the engine's fault and sets the geometry counters the
  // single-thread path would report.
  std::optional<std::string> draw_on_geometry_thread(const DrawState& s, GeometryEngine& ge, VertexStage& stage,
                                                     DrawScratch& scratch, DrawContext& c, GeometryCounters* counted);
  // One batch of the geometry thread's triangles; false when the draw must stop (c.fault).
  bool shade_triangle_batch(TriangleBatch& batch, DrawContext& c, GeometryCounters* counted);
  std::optional<std::string> map_targets(const DrawState& state, ColorTarget* color, DepthStencilTarget* depth);
  // Maps targets 1.. and hands them to the output merger (after begin_draw).
  std::optional<std::string> add_more_targets(const DrawState& state, OutputMerger* om);
  // Sets up, rasterizes, shades and merges one triangle; false when the draw must stop (c.fault).
  bool shade_triangle(const RasterTriangle& triangle, DrawContext& c);
  void shade_fixed(const Quad& q, const TriangleInterpolator& interp, const TriangleSetup& setup,
                   const RasterTriangle& t, DrawContext& c);
  // The program stages' checks that the state blocks cannot make (a runner with quads, code mapped
  // executable, the varyings).
  std::optional<std::string> check_program(const DrawState& s, uint32_t vertex_varyings) const;
  std::optional<std::string> check_code(const char* stage, const ShaderProgram& p) const;
  // The vertex stage of the draw (into one of the two holders), or a fault.
  std::optional<std::string> make_vertex_stage(const DrawState& s, std::optional<PassThroughVertexStage>& fixed,
                                               std::optional<ProgramVertexStage>& program, VertexStage** out);

  GpuMemory& memory_;
  uint64_t fragment_budget_ = kDefaultFragmentBudget;
  uint64_t vertex_limit_ = GeometryEngine::kDefaultVertexLimit;
  std::function<bool()> cancelled_;
  ShaderProgramRunner* runner_ = nullptr;
  DrawMode mode_ = DrawMode::kReference;
  DrawScratch* scratch_ = nullptr;
};

}  // namespace gsgpu::graphics
