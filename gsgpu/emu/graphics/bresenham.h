// Bresenham lines (Vulkan "Bresenham Line Segment Rasterization", PIPE_STATE RASTER.LINE_MODE 1): the
// diamond-exit rule. Pixel (x, y) is produced when the segment from a to b (snapped to 1/256)
// intersects its diamond |px - (x + 1/2)| + |py - (y + 1/2)| < 1/2 and b does not lie inside that
// diamond (the segment exits it); a segment through a diamond's corner exactly at the pixel's
// major-axis centre counts as intersecting it. Along the major axis this gives at most one pixel
// per column (row for y-major lines), with the ends decided by where a and b lie in their pixels.
// All of it is exact integer arithmetic on the snapped endpoints.
//
// A line of width w > 1 (whole pixels: point_line_setup.h bresenham_width) follows Vulkan's rule for
// wide Bresenham lines: the segment moved by -(w - 1) / 2 along the minor axis is rasterized as
// above, and each pixel it produces is the first (smallest minor coordinate) of w pixels across.
//
// The quads go out per pair of major-axis columns, pairs in the line's order (a quad is sent once);
// interpolation uses the line's interpolation triangle (point_line_setup.h bresenham_triangle),
// i.e. the affine function of the major-axis coordinate between the endpoints.
#pragma once

#include <array>

#include "gsgpu/emu/graphics/queue.h"
#include "gsgpu/emu/graphics/rasterizer.h"
#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

// `triangle` is the interpolation triangle bresenham_triangle made; pixels outside `area` are never
// covered. Counts quads, fragments and helper lanes into *counters.
void rasterize_bresenham(const std::array<ScreenVertex, 3>& triangle, const PixelRect& area, Queue<Quad>& out,
                         RasterCounters* counters);

}  // namespace gsgpu::graphics
