// Rectangular transfers. The wire carries a rectangle packed (row pitch = region[0] bytes, slice
// pitch = region[0] * region[1]); the guest gathers it from / scatters it to the app's memory
// with the app's origin and pitches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gsvirt::icd {

// Where a rectangle sits in a block of memory. origin[0] and region[0] are in bytes.
struct RectLayout {
  size_t origin[3] = {0, 0, 0};
  size_t row_pitch = 0;    // 0: region[0]
  size_t slice_pitch = 0;  // 0: row_pitch * region[1]
};

// Fills in the default pitches for `region`.
RectLayout resolve_pitches(RectLayout layout, const size_t region[3]);
// One past the last byte the rectangle touches (0 for an empty region).
size_t rect_end_offset(const RectLayout& resolved, const size_t region[3]);
size_t packed_size(const size_t region[3]);

void gather_rect(const uint8_t* base, const RectLayout& resolved, const size_t region[3], uint8_t* packed);
void scatter_rect(const uint8_t* packed, const size_t region[3], uint8_t* base, const RectLayout& resolved);

}  // namespace gsvirt::icd
