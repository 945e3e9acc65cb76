// Rectangle packing: the wire form of every rect and image transfer.
#include "guest/cl/rect.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gsvirt::icd {
namespace {

TEST(Rect, DefaultPitchesAreTight) {
  size_t region[3] = {4, 3, 2};
  RectLayout l = resolve_pitches({}, region);
  EXPECT_EQ(l.row_pitch, 4u);
  EXPECT_EQ(l.slice_pitch, 12u);
  EXPECT_EQ(packed_size(region), 24u);
  EXPECT_EQ(rect_end_offset(l, region), 24u);
}

TEST(Rect, EndOffsetCountsOriginAndPitches) {
  size_t region[3] = {4, 3, 1};
  RectLayout l;
  l.origin[0] = 2;
  l.origin[1] = 1;
  l.row_pitch = 16;
  l = resolve_pitches(l, region);
  // last row starts at (1 + 2) * 16 + 2 and holds 4 bytes
  EXPECT_EQ(rect_end_offset(l, region), 3u * 16 + 2 + 4);
  size_t empty[3] = {4, 0, 1};
  EXPECT_EQ(rect_end_offset(l, empty), 0u);
}

TEST(Rect, GatherThenScatterRoundTrips) {
  std::vector<uint8_t> src(10 * 6 * 2);
  std::iota(src.begin(), src.end(), uint8_t(0));
  size_t region[3] = {3, 2, 2};
  RectLayout l;
  l.origin[0] = 1;
  l.origin[1] = 2;
  l.row_pitch = 10;
  l.slice_pitch = 60;
  std::vector<uint8_t> packed(packed_size(region));
  gather_rect(src.data(), l, region, packed.data());
  EXPECT_EQ(packed[0], src[2 * 10 + 1]);
  EXPECT_EQ(packed[3], src[3 * 10 + 1]);
  EXPECT_EQ(packed[6], src[60 + 2 * 10 + 1]);
  std::vector<uint8_t> dst(src.size(), 0xee);
  scatter_rect(packed.data(), region, dst.data(), l);
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 2; ++y)
      for (size_t x = 0; x < 3; ++x) {
        size_t at = z * 60 + (y + 2) * 10 + x + 1;
        EXPECT_EQ(dst[at], src[at]);
      }
  EXPECT_EQ(dst[0], 0xee);  // bytes outside the rectangle are untouched
}

}  // namespace
}  // namespace gsvirt::icd
