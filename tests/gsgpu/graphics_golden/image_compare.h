// The golden-image metric (docs/graphics.md "Golden images").
//
// Per pixel, the difference is the largest over R, G, B, A of |gsgpu - reference| in 1/255 steps:
// the stored bytes for UNORM / SRGB targets (sRGB bytes as stored: the encoding is part of what is
// compared), ceil(|a - b| x 255) for float targets. Reported: the fraction of pixels over 16/255 and the
// maximum difference. Edges legitimately differ between rasterizers (sub-pixel snapping, interpolation
// precision); interiors do not: a pixel whose 3 x 3 neighbourhood in the reference is one uniform
// value lies at least a pixel from any edge of the reference, and where Vulkan's rules fix the value
// (a constant colour, a depth / stencil test whose outcome is not within rounding) gsgpu must store the
// same bytes there.
#pragma once

#include <cstdint>
#include <string>

#include "tests/gsgpu/graphics_golden/scene.h"

namespace gsgpu::golden {

inline constexpr uint32_t kEdgeThreshold = 16;  // in 1/255 steps

struct Comparison {
  uint64_t pixels = 0;
  uint64_t over_threshold = 0;      // pixels whose difference exceeds kEdgeThreshold
  uint32_t max_difference = 0;      // in 1/255 steps
  double max_exact_difference = 0;  // the same before rounding up (float targets: 1 ulp is about 1e-5)
  uint64_t differing = 0;           // pixels with any difference
  uint64_t interior = 0;            // pixels with a uniform 3 x 3 neighbourhood in the reference
  uint64_t interior_mismatches = 0;
  int32_t first_interior_x = -1, first_interior_y = -1;
  // Stencil (D24S8 scenes): interior pixels of the reference's stencil whose value differs.
  uint64_t stencil_interior_mismatches = 0;
  // Depth: the largest |gsgpu - reference| over interior pixels of the reference's depth.
  double max_interior_depth_difference = 0;

  double fraction_over_threshold() const { return pixels ? double(over_threshold) / double(pixels) : 0; }
  std::string summary() const;
};

Comparison compare_frames(const Frame& gsgpu, const Frame& reference);

// Writes NAME-gsgpu.png, NAME-lavapipe.png and NAME-diff.png (red: over the threshold, green: the
// difference x 8) into `dir`; returns the paths written, or an error line.
std::string write_comparison_pngs(const std::string& dir, const std::string& name, const Frame& gsgpu,
                                  const Frame& reference);

}  // namespace gsgpu::golden
