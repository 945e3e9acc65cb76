// Triangle setup: the first stage of the primitive engine.
//
// Input: three vertices in framebuffer coordinates (after the geometry engine's clip, perspective
// divide and viewport: x right, y down, z in the depth range, 1/w kept for perspective-correct
// interpolation). Output: three integer edge functions, the facing, and the pixel bounding box.
//
// Precision: vertex positions are snapped to fixed point with kSubpixelBits (8) fractional bits,
// round to nearest (ties to even), as Vulkan's subPixelPrecisionBits = 8 reports. Everything the
// rasterizer decides (coverage, the fill rule, trivial accept / reject) is then exact integer
// arithmetic: coordinates inside the guard band need 24 bits, edge-function values under 2^50.
//
// Facing (Vulkan "Basic Polygon Rasterization"): a = -1/2 * sum(x_i*y_{i+1} - x_{i+1}*y_i) in
// framebuffer coordinates; a > 0 is counter-clockwise. Zero area is degenerate and draws nothing.
//
// Fill rule: top-left. A pixel centre exactly on an edge is covered only when the edge is a left
// edge (the interior lies to its right, in the +x direction) or a top edge (horizontal, with the
// interior below it, +y). Two triangles sharing an edge therefore never both cover, and never both
// miss, a centre on it — Vulkan's requirement for polygons on either side of a common edge.
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/depth_bias.h"

namespace gsgpu::graphics {

inline constexpr int kSubpixelBits = 8;
inline constexpr int64_t kSubpixelOne = int64_t{1} << kSubpixelBits;
// Framebuffer coordinates must satisfy |x|, |y| < kGuardBandPixels once clipped: the geometry engine
// clips triangles to this band, so the rasterizer's integer ranges above always hold.
inline constexpr double kGuardBandPixels = 32768.0;
// The largest render target the primitive engine accepts (Vulkan's maxFramebufferWidth / Height).
inline constexpr int32_t kMaxRenderTargetSize = 16384;

struct ScreenVertex {
  float x = 0, y = 0;  // framebuffer coordinates, pixel centres at (i + 0.5, j + 0.5)
  float z = 0;         // depth after the viewport transform
  float inv_w = 1;     // 1 / w_clip, for perspective-correct interpolation
};

enum class CullMode : uint8_t { kNone, kFront, kBack, kFrontAndBack };
enum class FrontFace : uint8_t { kCounterClockwise, kClockwise };

struct SetupState {
  CullMode cull = CullMode::kNone;
  FrontFace front_face = FrontFace::kCounterClockwise;
  DepthBias depth_bias;  // added to the depth of the vertices an accepted triangle keeps
};

// Half-open pixel rectangle [x0, x1) x [y0, y1).
struct PixelRect {
  int32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x0 >= x1 || y0 >= y1; }
};
PixelRect intersect(const PixelRect& a, const PixelRect& b);

// E(px, py) = a*px + b*py + c, px / py in subpixel units; positive inside. A sample is covered when
// E + bias >= 0: bias is 0 on a top or left edge and -1 on the others, so that E == 0 counts only there.
struct EdgeFunction {
  int64_t a = 0, b = 0, c = 0;
  int64_t bias = 0;
  int64_t at(int64_t px, int64_t py) const { return a * px + b * py + c; }
  bool covers(int64_t px, int64_t py) const { return at(px, py) + bias >= 0; }
};

// Subpixel coordinate of the centre of pixel i.
inline int64_t pixel_centre(int32_t i) { return int64_t{i} * kSubpixelOne + kSubpixelOne / 2; }

struct TriangleSetup {
  // edges[i] is the edge opposite vertex i, so edges[i].at(p) / twice_area is vertex i's
  // screen-space barycentric weight at p.
  std::array<EdgeFunction, 3> edges;
  int64_t twice_area = 0;  // > 0, in subpixel^2 units: the sum of the three edge values anywhere
  bool front_facing = true;
  PixelRect bbox;  // pixels whose centres may be covered (not yet clipped to any render area)
  std::array<ScreenVertex, 3> vertices;  // as given (depth biased), for interpolation
};

enum class SetupResult : uint8_t {
  kAccepted,
  kCulled,             // by the cull mode
  kDegenerate,         // zero area after snapping
  kOutsideGuardBand,   // a coordinate that is NaN, infinite or outside the guard band
};
const char* setup_result_name(SetupResult r);

// Snaps x to the subpixel grid, round to nearest, ties to even; false when it is not finite or lies
// outside the guard band. Inline, without std::nearbyint: that was a libm call per coordinate, six
// per triangle. Inside the band |x * 2^8| < 2^23, and adding then subtracting 1.5 * 2^52 rounds such
// a double to an integer in the default rounding mode as nearbyint does (the sum lies in
// [2^52, 2^53), where the spacing of doubles is 1; 1.5 * 2^52 is even, so ties still go to even).
inline bool snap_to_subpixel(float coordinate, int64_t* out) {
  const double scaled = static_cast<double>(coordinate) * kSubpixelOne;  // exact: a float times 2^8
  if (!(scaled < kGuardBandPixels * kSubpixelOne && scaled > -kGuardBandPixels * kSubpixelOne)) return false;  // NaN too
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  *out = static_cast<int64_t>((scaled + kRound) - kRound);
  return true;
}

SetupResult setup_triangle(const std::array<ScreenVertex, 3>& vertices, const SetupState& state, TriangleSetup* out);

}  // namespace gsgpu::graphics
