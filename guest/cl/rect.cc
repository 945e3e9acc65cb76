#include "guest/cl/rect.h"

#include <cstring>

namespace gsvirt::icd {
namespace {

size_t row_offset(const RectLayout& l, size_t y, size_t z) {
  return (l.origin[2] + z) * l.slice_pitch + (l.origin[1] + y) * l.row_pitch + l.origin[0];
}

}  // namespace

RectLayout resolve_pitches(RectLayout layout, const size_t region[3]) {
  if (layout.row_pitch == 0) layout.row_pitch = region[0];
  if (layout.slice_pitch == 0) layout.slice_pitch = layout.row_pitch * region[1];
  return layout;
}

size_t rect_end_offset(const RectLayout& l, const size_t region[3]) {
  if (region[0] == 0 || region[1] == 0 || region[2] == 0) return 0;
  return row_offset(l, region[1] - 1, region[2] - 1) + region[0];
}

size_t packed_size(const size_t region[3]) { return region[0] * region[1] * region[2]; }

void gather_rect(const uint8_t* base, const RectLayout& l, const size_t region[3], uint8_t* packed) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y, packed += region[0])
      std::memcpy(packed, base + row_offset(l, y, z), region[0]);
}

void scatter_rect(const uint8_t* packed, const size_t region[3], uint8_t* base, const RectLayout& l) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y, packed += region[0])
      std::memcpy(base + row_offset(l, y, z), packed, region[0]);
}

}  // namespace gsvirt::icd
