// Line stipple (Vulkan "Line Stipple", VK_EXT_line_rasterization's stippledLineEnable; PIPE_STATE
// RASTER.LINE_STIPPLE and LINE_STIPPLE): a stippled line is drawn as the pieces of it whose stipple
// counter s selects a set bit of the pattern, bit (s / factor) mod 16.
//
// The counter counts pixels along the line in framebuffer coordinates, after clipping: a Bresenham
// line's length l is max(|dx|, |dy|) (the pixels it produces at width 1), a rectangular line's its
// Euclidean length; pixel i of it has s = counter + i for i in [0, ceil(l)). Each run of drawn
// pixels becomes one piece, the segment between the parameters i0 / l and i1 / l (the last one
// ends at the endpoint), rasterized by the line's own mode; the counter then moves on by ceil(l).
// It restarts at 0 for every line of a line list, at the start of each line strip (and after a
// primitive restart), and for each triangle drawn in polygon mode LINE, whose edges continue it.
// That is the way lavapipe (Mesa 22.3's draw module) stipples, so that gsgpu's frames equal its
// frames (tests/gsgpu/vk/line_stipple_test.cc); for Bresenham lines it is the spec's rule (s counts
// the fragments along the major axis), for rectangular ones the spec leaves the measure to the
// implementation.
#pragma once

#include <cstdint>
#include <vector>

namespace gsgpu::graphics {

inline constexpr uint32_t kMinLineStippleFactor = 1;
inline constexpr uint32_t kMaxLineStippleFactor = 256;  // Vulkan's lineStippleFactor range [1, 256]

struct LineStipple {
  bool enabled = false;
  uint32_t factor = 1;       // kMinLineStippleFactor .. kMaxLineStippleFactor (checked by the decoder)
  uint16_t pattern = 0xFFFF;
};

// A drawn piece of a stippled line: from parameter u0 to u1 (0 <= u0 < u1 <= 1) along a -> b.
struct StippleRun {
  float u0 = 0, u1 = 1;
};

class LineStippler {
 public:
  void restart() { counter_ = 0; }
  // The drawn pieces of the segment (x0, y0) -> (x1, y1), in framebuffer coordinates, into *runs
  // (cleared first), measured as a rectangular or a Bresenham line; advances the counter past it. A segment whose length is not finite
  // draws nothing and leaves the counter (the clipper drops such lines before).
  void split(float x0, float y0, float x1, float y1, const LineStipple& stipple, bool rectangular,
             std::vector<StippleRun>* runs);
  uint32_t counter() const { return counter_; }

 private:
  // Wraps modulo 2^32 on a strip of more than 2^32 pixels: defined, and the same on every run.
  uint32_t counter_ = 0;
};

}  // namespace gsgpu::graphics
