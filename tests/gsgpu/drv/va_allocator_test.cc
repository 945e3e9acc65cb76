// The userspace VA manager: page-rounded first-fit ranges inside the window, refusal when full,
// freed ranges merged with their neighbours, unknown addresses refused.
#include <gtest/gtest.h>

#include "gsgpu/drv/va_allocator.h"

namespace gsgpu::drv {
namespace {

constexpr uint64_t kPage = 4096;

TEST(VaAllocator, RangesArePageRoundedInsideTheWindow) {
  VaAllocator va(0x100000 + 1, 16 * kPage, kPage);  // base rounded up to the next page
  auto a = va.allocate(1);
  auto b = va.allocate(kPage + 1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 0x101000u);
  EXPECT_EQ(*b, *a + kPage);
  EXPECT_EQ(va.free_bytes(), 15 * kPage - 3 * kPage);
  EXPECT_FALSE(va.allocate(0));
  EXPECT_FALSE(va.allocate(UINT64_MAX));
  EXPECT_FALSE(va.allocate(13 * kPage));
  EXPECT_TRUE(va.allocate(12 * kPage));
  EXPECT_FALSE(va.allocate(1));  // full
}

TEST(VaAllocator, FreedNeighboursMergeAndUnknownAddressesAreRefused) {
  VaAllocator va(0, 4 * kPage, kPage);
  auto a = va.allocate(kPage), b = va.allocate(kPage), c = va.allocate(2 * kPage);
  ASSERT_TRUE(a && b && c);
  EXPECT_FALSE(va.free(*a + 1));
  EXPECT_TRUE(va.free(*a));
  EXPECT_FALSE(va.free(*a));  // twice
  EXPECT_TRUE(va.free(*c));
  EXPECT_FALSE(va.allocate(3 * kPage));  // two holes of 1 and 2 pages
  EXPECT_TRUE(va.free(*b));              // joins both
  auto all = va.allocate(4 * kPage);
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, 0u);
}

TEST(VaAllocator, AWindowNearTheTopOfTheAddressSpaceDoesNotWrap) {
  const uint64_t base = UINT64_MAX - 9 * kPage + 1;  // ends one page below 2^64
  VaAllocator va(base, 8 * kPage, kPage);
  EXPECT_FALSE(va.allocate(9 * kPage));
  auto a = va.allocate(8 * kPage);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, base);
  // A size that would wrap when rounded up is refused.
  VaAllocator top(base, UINT64_MAX - base, kPage);
  EXPECT_FALSE(top.allocate(UINT64_MAX - kPage + 2));
}

}  // namespace
}  // namespace gsgpu::drv
