// Clipping, perspective divide and the viewport transform (Vulkan "Primitive Clipping", "Coordinate
// Transformations").
//
// The view volume is -w <= x, y <= w and 0 <= z <= w. Triangles are clipped against the near and far
// planes (z = 0, z = w) exactly, and against x and y only at the guard band: planes far outside the
// viewport chosen so that every framebuffer coordinate stays within +-kGuardBandClip pixels, inside the
// rasterizer's integer range. Parts of a triangle outside the viewport but inside the band are left to
// the rasterizer's scissor. A plane w >= kMinClipW keeps the divide finite. Clipping is Sutherland-
// Hodgman in double precision; a new vertex's position and varyings are interpolated linearly in clip
// space (which keeps perspective-correct interpolation exact), and the clipped polygon is cut into a fan
// with its first vertex. Flat varyings keep the provoking vertex of the original triangle.
// Points and lines (point_line_setup.h): a point is culled when its vertex lies outside the view
// volume (-w <= x, y <= w, 0 <= z <= w, w >= kMinClipW: Vulkan's VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES)
// or is not finite; a line is clipped parametrically against the same planes as triangles (near,
// far, the guard band, w >= kMinClipW), new endpoints interpolated in clip space; a line with a
// coordinate that is not finite is dropped. Both become two triangles in framebuffer coordinates
// (kind kPoint / kLine) with the primitive's provoking vertex as the flat varyings.
// Viewport: x_f = x + width / 2 * (1 + x_d), y_f = y + height / 2 * (1 + y_d) (y down; a negative
// height flips), z_f = min_depth + (max_depth - min_depth) * z_d.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/graphics/point_line_setup.h"
#include "gsgpu/emu/graphics/primitive_assembly.h"
#include "gsgpu/emu/graphics/queue.h"
#include "gsgpu/emu/graphics/triangle_setup.h"
#include "gsgpu/emu/graphics/vertex.h"

namespace gsgpu::graphics {

inline constexpr double kGuardBandClip = 32000.0;  // pixels; below kGuardBandPixels for rounding room
inline constexpr double kMinClipW = 1e-6;
inline constexpr float kMaxViewportBound = 32768.0f;  // Vulkan's viewportBoundsRange is [-32768, 32767]

struct Viewport {
  float x = 0, y = 0, width = 1, height = 1;
  float min_depth = 0, max_depth = 1;
};
// Describes what is wrong with a viewport (non-finite, empty, out of bounds, depth outside [0, 1]).
std::optional<std::string> validate_viewport(const Viewport& v);

// What a RasterTriangle rasterizes: a triangle, or half of a point's square or a line's rectangle
// (always front-facing, never culled).
// kBresenhamLine: one triangle per line, its interpolation triangle (bresenham.h), whose coverage the
// primitive engine computes by the diamond-exit rule.
enum class PrimitiveKind : uint8_t { kTriangle, kPoint, kLine, kBresenhamLine };

// VkPolygonMode (PIPE_STATE RASTER.POLYGON_MODE): how a triangle is rasterized.
enum class PolygonMode : uint8_t { kFill, kLine, kPoint };

// fillModeNonSolid: what an outlined triangle needs besides the clipper's viewport. Culling happens
// here, on the clipped polygon's facing, since points and lines are never culled later.
struct OutlineState {
  PolygonMode mode = PolygonMode::kFill;
  CullMode cull = CullMode::kNone;
  FrontFace front_face = FrontFace::kCounterClockwise;
  LineRules line;
  float point_size = 1.0f;
  DepthBias depth_bias;  // the triangle's, added to its edges' and vertices' depth
};

// Triangles the clipper emits carry the varyings a later stage can read: the vertex stage's
// components, at least kStandInVaryingComponents; the rest hold no defined value.
struct RasterTriangle {
  PrimitiveKind kind = PrimitiveKind::kTriangle;
  std::array<ScreenVertex, 3> screen;
  std::array<Varyings, 3> varyings;
  Varyings flat;  // the provoking vertex's varyings
};

struct ClipCounters {
  uint64_t triangles_in = 0;
  uint64_t trivially_accepted = 0;
  uint64_t clipped = 0;   // crossed a plane and were cut
  uint64_t rejected = 0;  // wholly outside a plane
  uint64_t triangles_out = 0;
  uint64_t points_in = 0;
  uint64_t points_culled = 0;     // vertex outside the view volume or not finite
  uint64_t lines_in = 0;
  uint64_t lines_clipped = 0;     // crossed a plane and were cut
  uint64_t lines_rejected = 0;    // wholly outside a plane, or not finite
  uint64_t lines_degenerate = 0;  // zero length in framebuffer coordinates
  uint64_t points_out = 0, lines_out = 0;  // each sent on as two triangles (a stippled line: each drawn piece)
  uint64_t outside_guard_band = 0;  // points / lines whose setup found a coordinate past the band
  void add(const ClipCounters& other);
};

// Puts a clipped vertex exactly on the plane that made it (clipper.cc).
void snap_to_plane(const std::array<double, 5>& plane, std::array<double, 4>& v);

// Noperspective varyings (SHADER_STATE LINEAR_VARYINGS, bit k for component k) are linear in screen
// space, not in clip space: at the clip-space parameter t of the edge a -> b the screen-space
// parameter is t w_b / ((1 - t) w_a + t w_b). Sets out's first `count` components at t, each
// perspective one in clip space and each noperspective one in screen space (t where the edge meets
// w <= 0, which no drawn point has).
void lerp_varyings(const Varyings& a, const Varyings& b, double t, double wa, double wb, uint32_t count,
                   uint64_t linear_varyings, Varyings* out);

class Clipper {
 public:
  // The viewport must have passed validate_viewport. With no_depth_clip (Vulkan's depthClipEnable
  // false) nothing is clipped or culled at z = 0 or z = w; the output merger clamps the depth.
  // linear_varyings: the noperspective components (lerp_varyings).
  Clipper(const Viewport& viewport, uint32_t varying_components, bool no_depth_clip = false,
          uint64_t linear_varyings = 0);
  void clip_triangle(const AssembledPrimitive& triangle, Queue<RasterTriangle>& out, const Varyings* flat = nullptr);
  // point_size: PIPE_STATE POINT_SIZE, used unless the vertex stage wrote one (both clamped).
  // `flat`: the flat varyings, when not the primitive's own first vertex's (a polygon's edges).
  void clip_point(const AssembledPrimitive& point, float point_size, Queue<RasterTriangle>& out,
                  const Varyings* flat = nullptr);
  void clip_line(const AssembledPrimitive& line, const LineRules& rules, Queue<RasterTriangle>& out,
                 const Varyings* flat = nullptr);
  // A triangle in polygon mode LINE or POINT (polygon_outline.cc): clipped, culled by its facing,
  // then its edges drawn as lines (not the edges clipping made) or its vertices as points.
  void outline_triangle(const AssembledPrimitive& triangle, const OutlineState& state, Queue<RasterTriangle>& out);
  const ClipCounters& counters() const { return counters_; }
  uint64_t linear_varyings() const { return linear_varyings_; }

 private:
  struct Vertex {  // a vertex in clip space, in double while it is being clipped
    std::array<double, 4> position;
    Varyings varyings;
  };
  enum class Extent : uint8_t { kInside, kCrossing, kOutside };  // against every plane
  Extent classify(const AssembledPrimitive& triangle) const;
  // Bit p set: the vertex is outside planes_[p] (or a distance is NaN).
  uint32_t outcode(const ShadedVertex& vertex) const;
  void clip_polygon(const AssembledPrimitive& triangle, const Varyings& flat, Queue<RasterTriangle>& out);
  void emit(const Vertex& a, const Vertex& b, const Vertex& c, const Varyings& flat, Queue<RasterTriangle>& out);
  // The components a later stage may read (copied_), not all 64.
  void copy_varyings(const std::array<const Varyings*, 3>& vertices, const Varyings& flat, RasterTriangle* t) const;
  ScreenVertex to_screen(const std::array<double, 4>& clip) const;
  bool clip_with_edge_flags(const AssembledPrimitive& tri, std::vector<Vertex>* polygon, std::vector<bool>* edges);
  bool culled(const std::vector<Vertex>& polygon, const OutlineState& state) const;
  // A clipped line's end in framebuffer coordinates, its varyings and its clip-space w.
  struct LineEnd {
    ScreenVertex screen;
    const Varyings* varyings;
    double w;
  };
  // A clipped line (or a stippled line's piece) set up by the rules' mode and width.
  void set_up_line(const ScreenVertex& sa, const ScreenVertex& sb, const Varyings& va, const Varyings& vb,
                   const LineRules& rules, const Varyings& flat, Queue<RasterTriangle>& out);
  // A clipped line cut into its drawn pieces by the line stipple (line_stipple.h).
  void stipple_line(const LineEnd& a, const LineEnd& b, const LineRules& rules, const Varyings& flat,
                    Queue<RasterTriangle>& out);
  void emit_expanded(PrimitiveKind kind, const ExpandedPrimitive& e, const std::array<const Varyings*, 2>& ends,
                     const Varyings& flat, Queue<RasterTriangle>& out);

  Viewport viewport_;
  // to_screen()'s terms of the viewport transform, in double as it computes them (once, not per vertex).
  struct ViewportTerms {
    double x, y, half_width, half_height, min_depth, depth_range;
  };
  ViewportTerms viewport_terms_;
  float depth_offset_ = 0;  // to_screen's depth bias: an outlined triangle's, 0 otherwise
  uint32_t varyings_;  // the vertex stage's components: those clipping interpolates
  uint32_t copied_;    // max(varyings_, kStandInVaryingComponents): those a triangle carries on
  bool no_depth_clip_ = false;
  uint64_t linear_varyings_ = 0;
  std::vector<Vertex> polygon_, next_polygon_;  // clip_polygon's, kept between triangles
  LineStippler stippler_;  // the stipple counter, carried along a strip
  std::vector<StippleRun> stipple_runs_;  // stipple_line's, kept between lines
  // dist = a x + b y + c z + d w + e >= 0 inside; each plane bounds at most one of x, y, z (in the
  // order near, far, x, x, y, y, w alone: outcode() relies on it).
  std::array<std::array<double, 5>, 7> planes_;
  // outcode()'s planes_ for finite vertices, two at a time: pair k holds planes 2k and 2k + 1 (the
  // last pair the w plane and one every vertex is inside): each distance's axis coefficient, w
  // coefficient and constant, and which coordinate the axis is (0, 1, 2).
  using DoublePair = double __attribute__((vector_size(16)));
  struct PlanePairs {
    std::array<DoublePair, 4> axis, w, constant;
  };
  PlanePairs plane_pairs_;
  ClipCounters counters_;
};

}  // namespace gsgpu::graphics
