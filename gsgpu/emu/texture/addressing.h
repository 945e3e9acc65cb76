// The texture unit's addressing of one axis: from a float coordinate to the texel index (nearest) or
// the two indices and the weight (linear) at one level, through the sampler's addressing mode, with
// a texel offset (SPIR-V's ConstOffset, docs/isa.md §8b) added in texel space before the wrap, as
// Vulkan's "Texel Coordinate Offset" and "Wrapping Operation" order them.
#pragma once

#include <cstdint>

namespace gsgpu::texture {

// Nearest index of one axis (OpenCL C 1.2 section 8.2 without an offset); *border when the texel is
// outside (CLAMP_TO_BORDER: the index is then -1 or `size`).
int64_t nearest_index(float s, uint32_t size, uint32_t mode, bool normalized, int32_t offset, bool* border);

// Linear pair of one axis: indices i0, i1 (each wrapped, or -1 / `size` for a border texel) and the
// weight a of i1.
struct LinearAxis {
  int64_t i0 = 0, i1 = 0;
  float a = 0;
};
LinearAxis linear_axis(float s, uint32_t size, uint32_t mode, bool normalized, int32_t offset);

}  // namespace gsgpu::texture
