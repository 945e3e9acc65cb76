// Point and line setup: each point or line segment, already clipped and in framebuffer coordinates,
// becomes the region Vulkan rasterizes ("Basic Point Rasterization", "Basic Line Segment
// Rasterization"), given to the rasterizer as two triangles with the top-left rule, so that the
// hierarchical rasterizer, the interpolator and both fragment stages serve them unchanged.
//
// - A point is a square of side `size` centred on the vertex, sampled at pixel centres. In 1/256
//   sub-pixels its left / top edge is snap(centre) - floor(snap(size) / 2) and its side snap(size);
//   the top-left rule makes the left and top edges inclusive, the right and bottom ones exclusive (the
//   square lavapipe / llvmpipe draw with point_quad_rasterization). Size is clamped to
//   [kMinPointSize, kMaxPointSize] (pointSizeRange); NaN is 1.
// - A line is the rectangle of width w centred on the segment from a to b, ending at the endpoints
//   (Vulkan's rectangular lines, lavapipe's default when no line mode is given): corners snap(a) -+ t
//   and snap(b) -+ t with t = snap(w n / 2) and n the unit normal (-dy, dx) / |d| of the unsnapped
//   segment. A pixel centre on an edge is covered by the top-left rule. w is the line width clamped
//   to [kMinLineWidth, kMaxLineWidth] (lineWidthRange); NaN is 1.
// The two triangles of a line carry endpoint a's attributes at a's corners and b's at b's, so the
// barycentric interpolation inside them is the affine function along the segment:
// t = (p - a).(b - a) / |b - a|^2 and depth (1 - t) z_a + t z_b, perspective-correct varyings by the
// endpoints' 1 / w (Vulkan's line formulas). A point's triangles carry its vertex everywhere.
// Points and lines are always front-facing and never culled by the cull mode.
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/line_stipple.h"
#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

inline constexpr float kMinPointSize = 1.0f;
inline constexpr float kMaxPointSize = 64.0f;  // pointSizeRange [1, 64], granularity 1/256
inline constexpr float kMinLineWidth = 1.0f;
// lineWidthRange [1, 64] (wideLines): a line's corners lie at most 32 pixels beyond its clipped
// endpoints, inside the 768 pixels between the clipper's band and the setup's (kGuardBandClip).
inline constexpr float kMaxLineWidth = 64.0f;

// Which endpoint each corner of an expanded primitive takes its attributes from (0: a, 1: b).
struct ExpandedPrimitive {
  std::array<std::array<ScreenVertex, 3>, 2> triangles;
  std::array<std::array<uint8_t, 3>, 2> endpoint;
};

enum class ExpandResult : uint8_t {
  kOk,
  kDegenerate,        // a line of zero length
  kOutsideGuardBand,  // a coordinate that is not finite or beyond the guard band
};

enum class LineMode : uint8_t { kRectangular, kBresenham };

// How a draw's lines are rasterized: PIPE_STATE RASTER.LINE_MODE, LINE_WIDTH and LINE_STIPPLE.
struct LineRules {
  LineMode mode = LineMode::kRectangular;
  float width = 1.0f;  // clamped where a line is set up (clamp_line_width)
  LineStipple stipple;
};

float clamp_point_size(float size);
// lineWidthRange: NaN draws 1, anything else is clamped to [kMinLineWidth, kMaxLineWidth].
float clamp_line_width(float width);
// Bresenham lines draw whole pixels across: the clamped width rounded to the nearest integer
// (halves away from zero), as OpenGL defines aliased line widths.
int32_t bresenham_width(float width);
ExpandResult expand_point(const ScreenVertex& centre, float size, ExpandedPrimitive* out);
ExpandResult expand_line(const ScreenVertex& a, const ScreenVertex& b, float width, ExpandedPrimitive* out);
// A Bresenham line's interpolation triangle (triangles[0]): snap(a) - m, snap(b) - m, snap(b) + m with
// m half the line's bresenham_width along the minor axis, so that barycentric interpolation is the
// affine function of the major-axis coordinate between the endpoints; bresenham.h recovers a, b and
// the width from it.
ExpandResult bresenham_triangle(const ScreenVertex& a, const ScreenVertex& b, float width, ExpandedPrimitive* out);

}  // namespace gsgpu::graphics
