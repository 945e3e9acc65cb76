// Image transfers on the queue with real data: buffer -> image -> buffer round trips over levels,
// layers, 3D slices and D24S8 aspects, image -> image copies, colour and depth / stencil clears, the
// texels checked where vkGetImageSubresourceLayout says they are, and hostile regions skipped with
// a log line while the good ones run.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/image_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkImageTransfer : public VkImageTest {
 protected:
  // The byte of texel (x, y) of a level / layer of an image, found through the subresource layout.
  const uint8_t* texel(VkImage image, const uint8_t* memory, uint32_t level, uint32_t layer, uint32_t x, uint32_t y,
                       uint32_t bytes) {
    VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, level, layer};
    VkSubresourceLayout l;
    vkGetImageSubresourceLayout(device_, image, &sub, &l);
    return memory + l.offset + y * l.rowPitch + uint64_t{x} * bytes;
  }
};

uint8_t pattern(uint32_t level, uint32_t layer, uint32_t i) { return static_cast<uint8_t>(level * 61 + layer * 17 + i * 7 + 1); }

TEST_F(VkImageTransfer, BufferToImageToBufferRoundTripsEveryLevelAndLayer) {
  const uint32_t w = 37, h = 19, layers = 3, levels = 4;
  uint8_t* image_memory = nullptr;
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {w, h, 1}, layers, levels),
                             &image_memory);
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(64 * 1024, &up);
  VkBuffer readback = make_buffer(256 * 1024, &down);
  std::vector<VkBufferImageCopy> ups, downs;
  VkDeviceSize at = 0, back = 0;
  for (uint32_t n = 0; n < levels; ++n) {
    const uint32_t lw = std::max(1u, w >> n), lh = std::max(1u, h >> n);
    for (uint32_t layer = 0; layer < layers; ++layer) {
      for (uint32_t i = 0; i < lw * lh * 4; ++i) up[at + i] = pattern(n, layer, i);
      ups.push_back(region(VK_IMAGE_ASPECT_COLOR_BIT, n, layer, 1, {0, 0, 0}, {lw, lh, 1}, at));
      at += lw * lh * 4;
    }
    // Read each level back in one region of all layers, rows padded to lw + 3 texels.
    VkBufferImageCopy r = region(VK_IMAGE_ASPECT_COLOR_BIT, n, 0, layers, {0, 0, 0}, {lw, lh, 1}, back);
    r.bufferRowLength = lw + 3;
    downs.push_back(r);
    back += uint64_t{lw + 3} * lh * layers * 4;
  }
  begin();
  vkCmdCopyBufferToImage(cb_, upload, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, ups.size(), ups.data());
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, downs.size(), downs.data());
  testing::internal::CaptureStderr();
  submit_and_wait();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  back = 0;
  for (uint32_t n = 0; n < levels; ++n) {
    const uint32_t lw = std::max(1u, w >> n), lh = std::max(1u, h >> n);
    for (uint32_t layer = 0; layer < layers; ++layer) {
      for (uint32_t y = 0; y < lh; ++y) {
        for (uint32_t x = 0; x < lw * 4; ++x) {
          const uint32_t i = y * lw * 4 + x;
          ASSERT_EQ(down[back + (uint64_t{layer} * lh + y) * (lw + 3) * 4 + x], pattern(n, layer, i))
              << "level " << n << " layer " << layer << " y " << y << " byte " << x;
          ASSERT_EQ(texel(image, image_memory, n, layer, 0, y, 4)[x], pattern(n, layer, i));
        }
      }
    }
    back += uint64_t{lw + 3} * lh * layers * 4;
  }
}

TEST_F(VkImageTransfer, ThreeDimensionalSubRegionRoundTripsAndTheRestStaysZero) {
  VkImage image = make_image(image_info(VK_FORMAT_R32_SFLOAT, VK_IMAGE_TYPE_3D, {8, 8, 4}, 1, 2));
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(4096, &up);
  VkBuffer readback = make_buffer(4096, &down);
  for (int i = 0; i < 3 * 2 * 2 * 4; ++i) up[i] = static_cast<uint8_t>(i + 1);
  std::memset(down, 0xee, 4096);
  // Level 1 is 4 x 4 x 2: write 3 x 2 texels of both slices at (1, 2, 0), read the whole level.
  VkBufferImageCopy in = region(VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1, {1, 2, 0}, {3, 2, 2});
  VkBufferImageCopy out = region(VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1, {0, 0, 0}, {4, 4, 2});
  begin();
  vkCmdCopyBufferToImage(cb_, upload, image, VK_IMAGE_LAYOUT_GENERAL, 1, &in);
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &out);
  submit_and_wait();
  for (uint32_t z = 0; z < 2; ++z) {
    for (uint32_t y = 0; y < 4; ++y) {
      for (uint32_t x = 0; x < 4; ++x) {
        const bool inside = x >= 1 && y >= 2;
        for (uint32_t b = 0; b < 4; ++b) {
          const uint8_t expected = inside ? up[((z * 2 + (y - 2)) * 3 + (x - 1)) * 4 + b] : 0;
          ASSERT_EQ(down[((z * 4 + y) * 4 + x) * 4 + b], expected) << x << "," << y << "," << z;
        }
      }
    }
  }
  EXPECT_EQ(down[4 * 4 * 2 * 4], 0xee);  // nothing past the region
}

TEST_F(VkImageTransfer, CopyImageMovesASubRegionBetweenLevelsAndLayers) {
  VkImage src = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 2, 1));
  VkImage dst = make_image(image_info(VK_FORMAT_B8G8R8A8_SRGB, VK_IMAGE_TYPE_2D, {32, 32, 1}, 1, 2));
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(16 * 16 * 4, &up);
  VkBuffer readback = make_buffer(16 * 16 * 4, &down);
  for (int i = 0; i < 16 * 16 * 4; ++i) up[i] = static_cast<uint8_t>(i * 3 + 5);
  VkBufferImageCopy in = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1, {0, 0, 0}, {16, 16, 1});
  VkImageCopy copy{};
  copy.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1};
  copy.srcOffset = {4, 2, 0};
  copy.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1};  // level 1: 16 x 16
  copy.dstOffset = {9, 11, 0};
  copy.extent = {7, 5, 1};
  VkBufferImageCopy out = region(VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1, {0, 0, 0}, {16, 16, 1});
  begin();
  vkCmdCopyBufferToImage(cb_, upload, src, VK_IMAGE_LAYOUT_GENERAL, 1, &in);
  vkCmdCopyImage(cb_, src, VK_IMAGE_LAYOUT_GENERAL, dst, VK_IMAGE_LAYOUT_GENERAL, 1, &copy);
  vkCmdCopyImageToBuffer(cb_, dst, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &out);
  submit_and_wait();
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) {
      const bool inside = x >= 9 && x < 16 && y >= 11 && y < 16;
      for (int b = 0; b < 4; ++b) {
        const uint8_t expected = inside ? up[((y - 11 + 2) * 16 + (x - 9 + 4)) * 4 + b] : 0;
        ASSERT_EQ(down[(y * 16 + x) * 4 + b], expected) << x << "," << y;
      }
    }
  }
}

TEST_F(VkImageTransfer, ClearColorWritesOnlyItsRangesInTheFormatsEncoding) {
  uint8_t* memory = nullptr;
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_SRGB, VK_IMAGE_TYPE_2D, {20, 10, 1}, 3, 2), &memory);
  VkImage floats = make_image(image_info(VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_TYPE_1D, {5, 1, 1}, 1, 1));
  uint8_t* down = nullptr;
  VkBuffer readback = make_buffer(4096, &down);
  VkClearColorValue colour{};
  colour.float32[0] = 1.0f;
  colour.float32[1] = 0.5f;
  colour.float32[2] = 0.0f;
  colour.float32[3] = 0.25f;
  const VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 1, VK_REMAINING_MIP_LEVELS, 1, 2};
  VkBufferImageCopy out = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {5, 1, 1});
  begin();
  vkCmdClearColorImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &range);
  const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  colour.float32[2] = -7.5f;
  vkCmdClearColorImage(cb_, floats, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &all);
  vkCmdCopyImageToBuffer(cb_, floats, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &out);
  submit_and_wait();
  const uint8_t cleared[4] = {255, 188, 0, 64};  // sRGB(0.5) = 188; alpha linear
  for (uint32_t layer = 0; layer < 3; ++layer) {
    for (uint32_t level = 0; level < 2; ++level) {
      const bool in_range = level == 1 && layer >= 1;
      const uint32_t lw = 20 >> level, lh = 10 >> level;
      for (uint32_t y = 0; y < lh; ++y) {
        for (uint32_t x = 0; x < lw; ++x) {
          const uint8_t* t = texel(image, memory, level, layer, x, y, 4);
          for (int b = 0; b < 4; ++b) ASSERT_EQ(t[b], in_range ? cleared[b] : 0) << level << " " << layer;
        }
      }
    }
  }
  for (int x = 0; x < 5; ++x) {
    float rgba[4];
    std::memcpy(rgba, down + x * 16, 16);
    EXPECT_EQ(rgba[0], 1.0f);
    EXPECT_EQ(rgba[1], 0.5f);
    EXPECT_EQ(rgba[2], -7.5f);
    EXPECT_EQ(rgba[3], 0.25f);
  }
}

TEST_F(VkImageTransfer, DepthAndStencilAspectsOfD24S8AreClearedAndCopiedApart) {
  VkImageCreateInfo info = image_info(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_TYPE_2D, {8, 4, 1}, 1, 1);
  info.usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  VkImage image = make_image(info);
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(4096, &up);
  VkBuffer readback = make_buffer(4096, &down);
  for (int i = 0; i < 32; ++i) up[i] = static_cast<uint8_t>(0x40 + i);  // 32 stencil values
  const VkClearDepthStencilValue value{0.5f, 0x17};
  const VkImageSubresourceRange both{VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1, 0, 1};
  const VkImageSubresourceRange depth{VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
  const VkClearDepthStencilValue one{1.0f, 0xff};
  VkBufferImageCopy stencil_in = region(VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1, {0, 0, 0}, {8, 4, 1});
  VkBufferImageCopy depth_out = region(VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1, {0, 0, 0}, {8, 4, 1});
  VkBufferImageCopy stencil_out = region(VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1, {0, 0, 0}, {8, 4, 1}, 1024);
  begin();
  vkCmdClearDepthStencilImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, &value, 1, &both);
  vkCmdCopyBufferToImage(cb_, upload, image, VK_IMAGE_LAYOUT_GENERAL, 1, &stencil_in);  // keeps the depth
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &depth_out);
  vkCmdClearDepthStencilImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, &one, 1, &depth);  // keeps the stencil
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &stencil_out);
  submit_and_wait();
  for (int i = 0; i < 32; ++i) {
    uint32_t d;
    std::memcpy(&d, down + 4 * i, 4);
    EXPECT_EQ(d, 0x800000u) << i;  // round(0.5 x (2^24 - 1)), top byte 0
    EXPECT_EQ(down[1024 + i], 0x40 + i) << i;
  }
}

VkImageBlit blit_region(uint32_t src_level, VkOffset3D s0, VkOffset3D s1, uint32_t dst_level, VkOffset3D d0,
                        VkOffset3D d1) {
  VkImageBlit b{};
  b.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, src_level, 0, 1};
  b.srcOffsets[0] = s0;
  b.srcOffsets[1] = s1;
  b.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, dst_level, 0, 1};
  b.dstOffsets[0] = d0;
  b.dstOffsets[1] = d1;
  return b;
}

// LINEAR halves a level (each destination texel the mean of a 2 x 2 block: a mip chain), NEAREST
// mirrors a row (reversed destination offsets) and converts RGBA8 to RGBA32F (byte x 1/255, as the unit).
TEST_F(VkImageTransfer, BlitFiltersMirrorsAndConverts) {
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {4, 4, 1}, 1, 2));
  VkImage floats = make_image(image_info(VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_TYPE_2D, {4, 1, 1}, 1, 1));
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(64, &up);
  VkBuffer readback = make_buffer(4096, &down);
  for (int i = 0; i < 64; ++i) up[i] = static_cast<uint8_t>(i * 4);  // even: 2 x 2 means are exact
  VkBufferImageCopy in = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {4, 4, 1});
  const VkImageBlit halve = blit_region(0, {0, 0, 0}, {4, 4, 1}, 1, {0, 0, 0}, {2, 2, 1});
  const VkImageBlit mirror = blit_region(0, {0, 1, 0}, {4, 2, 1}, 0, {4, 0, 0}, {0, 1, 1});
  VkBufferImageCopy level1 = region(VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1, {0, 0, 0}, {2, 2, 1});
  VkBufferImageCopy row = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {4, 1, 1}, 64);
  begin();
  vkCmdCopyBufferToImage(cb_, upload, image, VK_IMAGE_LAYOUT_GENERAL, 1, &in);
  vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, image, VK_IMAGE_LAYOUT_GENERAL, 1, &halve, VK_FILTER_LINEAR);
  vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, floats, VK_IMAGE_LAYOUT_GENERAL, 1, &mirror, VK_FILTER_NEAREST);
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &level1);
  vkCmdCopyImageToBuffer(cb_, floats, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &row);
  testing::internal::CaptureStderr();
  submit_and_wait();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 2; ++x) {
      for (int c = 0; c < 4; ++c) {
        const auto at = [&](int xx, int yy) { return up[(yy * 4 + xx) * 4 + c]; };
        const int mean = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1)) / 4;
        EXPECT_EQ(down[(y * 2 + x) * 4 + c], mean) << x << "," << y << " channel " << c;
      }
    }
  }
  for (int x = 0; x < 4; ++x) {
    float rgba[4];
    std::memcpy(rgba, down + 64 + x * 16, 16);
    // byte x (1 / 255), as the texture unit decodes UNORM8
    for (int c = 0; c < 4; ++c) EXPECT_EQ(rgba[c], up[(4 + 3 - x) * 4 + c] * (1.0f / 255.0f)) << x << " channel " << c;
  }
}

TEST_F(VkImageTransfer, BlitsBreakingTheRulesAreSkipped) {
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {8, 8, 1}, 2, 1));
  VkImage ints = make_image(image_info(VK_FORMAT_R8G8B8A8_UINT, VK_IMAGE_TYPE_2D, {8, 8, 1}, 1, 1));
  VkImageCreateInfo depth_info = image_info(VK_FORMAT_D32_SFLOAT, VK_IMAGE_TYPE_2D, {8, 8, 1}, 1, 1);
  VkImage depth = make_image(depth_info);
  std::vector<VkImageBlit> bad = {
      blit_region(0, {0, 0, 0}, {9, 8, 1}, 0, {0, 0, 0}, {8, 8, 1}),   // past the source
      blit_region(0, {0, 0, 0}, {8, 8, 1}, 0, {-1, 0, 0}, {8, 8, 1}),  // negative destination
      blit_region(1, {0, 0, 0}, {1, 1, 1}, 0, {0, 0, 0}, {1, 1, 1}),   // no level 1
      blit_region(0, {0, 0, 0}, {8, 8, 2}, 0, {0, 0, 0}, {8, 8, 1}),   // z past a 2D level
  };
  bad.push_back(bad[0]);
  bad.back().srcOffsets[1].x = 8;
  bad.back().srcSubresource.layerCount = 2;  // 2 layers into 1
  begin();
  vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, image, VK_IMAGE_LAYOUT_GENERAL, bad.size(), bad.data(),
                 VK_FILTER_NEAREST);
  VkImageBlit whole = blit_region(0, {0, 0, 0}, {8, 8, 1}, 0, {0, 0, 0}, {8, 8, 1});
  vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, ints, VK_IMAGE_LAYOUT_GENERAL, 1, &whole, VK_FILTER_NEAREST);
  vkCmdBlitImage(cb_, ints, VK_IMAGE_LAYOUT_GENERAL, ints, VK_IMAGE_LAYOUT_GENERAL, 1, &whole, VK_FILTER_LINEAR);
  VkImageBlit depth_blit = whole;
  depth_blit.srcSubresource.aspectMask = depth_blit.dstSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
  vkCmdBlitImage(cb_, depth, VK_IMAGE_LAYOUT_GENERAL, depth, VK_IMAGE_LAYOUT_GENERAL, 1, &depth_blit,
                 VK_FILTER_LINEAR);
  testing::internal::CaptureStderr();
  submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCmdBlitImage: "), 8) << log;
  EXPECT_EQ(count(log, "integer and other formats mixed"), 1) << log;
  EXPECT_EQ(count(log, "LINEAR on an integer format"), 1) << log;
  EXPECT_EQ(count(log, "depth / stencil blits need one format and NEAREST"), 1) << log;
}

// vkFreeMemory unbinds the images bound to it: a later transfer or view finds the image unbound
// (skipped, refused), nothing is written through the freed mapping, and the image can be destroyed.
TEST_F(VkImageTransfer, ImageWhoseMemoryWasFreedIsUnboundAndNotWritten) {
  VkImageCreateInfo info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  VkImage orphan = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImage(device_, &info, nullptr, &orphan), VK_SUCCESS);
  images_.push_back(orphan);
  VkMemoryRequirements reqs;
  vkGetImageMemoryRequirements(device_, orphan, &reqs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = reqs.size;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
  ASSERT_EQ(vkBindImageMemory(device_, orphan, memory, 0), VK_SUCCESS);
  vkFreeMemory(device_, memory, nullptr);
  uint8_t* a = nullptr;
  VkBuffer buffer = make_buffer(1024, &a);
  std::memset(a, 0x33, 1024);
  VkBufferImageCopy r = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {16, 16, 1});
  const VkClearColorValue colour{};
  const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  begin();
  vkCmdCopyBufferToImage(cb_, buffer, orphan, VK_IMAGE_LAYOUT_GENERAL, 1, &r);
  vkCmdClearColorImage(cb_, orphan, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &all);
  vkCmdCopyImageToBuffer(cb_, orphan, VK_IMAGE_LAYOUT_GENERAL, buffer, 1, &r);
  testing::internal::CaptureStderr();
  submit_and_wait();
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = orphan;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = info.format;
  view_info.subresourceRange = all;
  VkImageView view = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateImageView(device_, &view_info, nullptr, &view), VK_ERROR_FORMAT_NOT_SUPPORTED);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "image not bound to memory"), 4) << log;
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(a[i], 0x33) << i;
}

// Host-side transfer speed on a 4096 x 4096 RGBA8 image (64 MiB), one submission per command.
// Not part of the suite (disabled): run with --gtest_also_run_disabled_tests --gtest_filter=*Timing*.
TEST_F(VkImageTransfer, DISABLED_LargeTransferTiming) {
  const uint32_t n = 4096;
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {n, n, 1}, 1, 2));
  uint8_t* bytes = nullptr;
  VkBuffer buffer = make_buffer(uint64_t{n} * n * 4, &bytes);
  for (uint64_t i = 0; i < uint64_t{n} * n * 4; ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  const VkClearColorValue colour{};
  const VkImageSubresourceRange level0{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkBufferImageCopy r = region(VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1, {0, 0, 0}, {n, n, 1});
  VkImageBlit halve{};
  halve.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  halve.srcOffsets[1] = {static_cast<int32_t>(n), static_cast<int32_t>(n), 1};
  halve.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 1, 0, 1};
  halve.dstOffsets[1] = {static_cast<int32_t>(n / 2), static_cast<int32_t>(n / 2), 1};
  const auto timed = [&](const char* what, auto record) {
    begin();
    record();
    const auto start = std::chrono::steady_clock::now();
    submit_and_wait();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-40s %8.1f ms\n", what, ms);
  };
  timed("clear 4096x4096 RGBA8", [&] { vkCmdClearColorImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &level0); });
  timed("copy buffer -> image 64 MiB", [&] { vkCmdCopyBufferToImage(cb_, buffer, image, VK_IMAGE_LAYOUT_GENERAL, 1, &r); });
  timed("copy image -> buffer 64 MiB", [&] { vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, buffer, 1, &r); });
  timed("blit LINEAR 4096^2 -> 2048^2", [&] {
    vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, image, VK_IMAGE_LAYOUT_GENERAL, 1, &halve, VK_FILTER_LINEAR);
  });
  timed("blit NEAREST 4096^2 -> 2048^2", [&] {
    vkCmdBlitImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, image, VK_IMAGE_LAYOUT_GENERAL, 1, &halve, VK_FILTER_NEAREST);
  });
}

// Regions that break the rules are skipped with a log line, never written past an image or buffer;
// the good region of the same command still runs.
TEST_F(VkImageTransfer, HostileRegionsAreSkippedAndTheGoodOnesRun) {
  VkImage image = make_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 2, 2));
  VkImage wide = make_image(image_info(VK_FORMAT_R32G32_SFLOAT, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1));
  VkImageCreateInfo unbound_info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 16, 1}, 1, 1);
  VkImage unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImage(device_, &unbound_info, nullptr, &unbound), VK_SUCCESS);
  images_.push_back(unbound);
  uint8_t* up = nullptr;
  uint8_t* down = nullptr;
  VkBuffer upload = make_buffer(16 * 16 * 4, &up);
  VkBuffer readback = make_buffer(16 * 16 * 4, &down);
  std::memset(up, 0x5a, 16 * 16 * 4);
  std::memset(down, 0xee, 16 * 16 * 4);
  const VkImageAspectFlags c = VK_IMAGE_ASPECT_COLOR_BIT;
  std::vector<VkBufferImageCopy> bad = {
      region(c, 99, 0, 1, {0, 0, 0}, {1, 1, 1}),                    // no level 99
      region(c, 0, 1, 2, {0, 0, 0}, {1, 1, 1}),                     // layers 1..2 of 2
      region(c, 0, 0xffffffffu, 2, {0, 0, 0}, {1, 1, 1}),           // layer index that wraps
      region(c, 0, 0, 1, {-1, 0, 0}, {1, 1, 1}),                    // negative offset
      region(c, 0, 0, 1, {8, 0, 0}, {9, 1, 1}),                     // past the level's width
      region(c, 1, 0, 1, {0, 0, 0}, {9, 8, 1}),                     // level 1 is 8 x 8
      region(c, 0, 0, 1, {0x7fffffff, 0, 0}, {0xffffffffu, 1, 1}),  // sums that wrap
      region(c, 0, 0, 1, {0, 0, 0}, {0, 1, 1}),                     // empty extent
      region(c, 0, 0, 1, {0, 0, 0}, {16, 16, 1}, 4),                // buffer bytes past the end
      region(c, 0, 0, 1, {0, 0, 0}, {1, 1, 1}, UINT64_MAX - 2),     // a buffer offset that wraps
      region(VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1, {0, 0, 0}, {1, 1, 1}),  // an aspect it lacks
  };
  VkBufferImageCopy huge_rows = region(c, 0, 0, 2, {0, 0, 0}, {16, 16, 1});
  huge_rows.bufferRowLength = 0xffffffffu;  // row bytes x image height overflows 64 bits
  huge_rows.bufferImageHeight = 0xffffffffu;
  bad.push_back(huge_rows);
  VkBufferImageCopy short_rows = region(c, 0, 0, 1, {0, 0, 0}, {16, 16, 1});
  short_rows.bufferRowLength = 15;
  bad.push_back(short_rows);
  const size_t bad_regions = bad.size();
  bad.push_back(region(c, 1, 1, 1, {2, 3, 0}, {4, 4, 1}));  // good: level 1, layer 1
  VkImageCopy copies[2]{};
  copies[0].srcSubresource = copies[0].dstSubresource = {c, 0, 0, 1};
  copies[0].extent = {4, 4, 1};  // RGBA8 into RG32F: different texel sizes
  copies[1] = copies[0];
  copies[1].dstOffset = {14, 0, 0};  // past the destination
  const VkImageSubresourceRange ranges[] = {{c, 2, 1, 0, 1}, {c, 0, 1, 0, 3}, {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1}};
  const VkClearColorValue colour{};
  VkBufferImageCopy out = region(c, 1, 1, 1, {0, 0, 0}, {8, 8, 1});
  VkBufferImageCopy to_unbound = region(c, 0, 0, 1, {0, 0, 0}, {1, 1, 1});
  begin();
  vkCmdCopyBufferToImage(cb_, upload, image, VK_IMAGE_LAYOUT_GENERAL, bad.size(), bad.data());
  vkCmdCopyBufferToImage(cb_, upload, unbound, VK_IMAGE_LAYOUT_GENERAL, 1, &to_unbound);
  vkCmdCopyImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, wide, VK_IMAGE_LAYOUT_GENERAL, 1, &copies[0]);
  vkCmdCopyImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, image, VK_IMAGE_LAYOUT_GENERAL, 1, &copies[1]);
  vkCmdClearColorImage(cb_, image, VK_IMAGE_LAYOUT_GENERAL, &colour, 3, ranges);
  vkCmdCopyImageToBuffer(cb_, image, VK_IMAGE_LAYOUT_GENERAL, readback, 1, &out);
  testing::internal::CaptureStderr();
  submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCmdCopyBufferToImage: "), static_cast<int>(bad_regions) + 1) << log;
  EXPECT_EQ(count(log, "vkCmdCopyImage: "), 2) << log;
  EXPECT_EQ(count(log, "vkCmdClearColorImage: "), 3) << log;
  EXPECT_EQ(count(log, "vkCmdCopyImageToBuffer: "), 0) << log;
  for (uint32_t y = 0; y < 8; ++y) {
    for (uint32_t x = 0; x < 8; ++x) {
      const bool inside = x >= 2 && x < 6 && y >= 3 && y < 7;
      for (int b = 0; b < 4; ++b) ASSERT_EQ(down[(y * 8 + x) * 4 + b], inside ? 0x5a : 0) << x << "," << y;
    }
  }
  EXPECT_EQ(down[8 * 8 * 4], 0xee);
}

}  // namespace
}  // namespace gsgpu::vk::test
