// Guest-controlled transfer arguments at random (a fixed seed): copies, clears and blits whose
// offsets, extents, levels, layers, aspects, buffer offsets and row lengths come from edge values
// (0, 1, the level's size and one past it, INT32_MAX, UINT32_MAX, negatives) and small random ones.
// Every image and buffer lies one page into memory of its own with guard bytes around it: after the
// submission the guards are unchanged (nothing was written outside an image's range or a buffer's
// bytes) and the driver did not crash. Also image barriers: valid ones accepted, bad ones refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/image_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint8_t kGuard = 0xAA;
constexpr VkDeviceSize kPage = 4096;

class VkImageHostile : public VkImageTest {
 protected:
  struct Guarded {
    uint8_t* bytes;         // the whole mapping
    VkDeviceSize inside;    // [kPage, kPage + inside) may change
    VkDeviceSize size;      // the mapping's size
  };

  VkDeviceMemory guarded_memory(VkDeviceSize inside) {
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = kPage + (inside + kPage - 1) / kPage * kPage + kPage;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    memories_.push_back(memory);
    void* map = nullptr;
    EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    std::memset(map, kGuard, alloc.allocationSize);
    guarded_.push_back({static_cast<uint8_t*>(map), inside, alloc.allocationSize});
    return memory;
  }
  VkImage guarded_image(const VkImageCreateInfo& info) {
    VkImage image = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &image), VK_SUCCESS);
    images_.push_back(image);
    VkMemoryRequirements reqs;
    vkGetImageMemoryRequirements(device_, image, &reqs);
    EXPECT_EQ(vkBindImageMemory(device_, image, guarded_memory(reqs.size), kPage), VK_SUCCESS);
    return image;
  }
  VkBuffer guarded_buffer(VkDeviceSize size) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
    buffers_.push_back(buffer);
    EXPECT_EQ(vkBindBufferMemory(device_, buffer, guarded_memory(size), kPage), VK_SUCCESS);
    return buffer;
  }
  // Bytes outside every object's range that changed.
  size_t changed_guard_bytes() const {
    size_t changed = 0;
    for (const Guarded& g : guarded_) {
      for (VkDeviceSize i = 0; i < g.size; ++i) {
        if ((i < kPage || i >= kPage + g.inside) && g.bytes[i] != kGuard) ++changed;
      }
    }
    return changed;
  }

  std::vector<Guarded> guarded_;
};

// Edge values and small random ones, for every field a guest controls.
class Hostile {
 public:
  explicit Hostile(uint32_t seed) : random_(seed) {}
  // Mostly in [0, size] (so that many commands are valid and write), otherwise an edge value.
  uint32_t u32(uint32_t size) {
    if (calm_) return random_() % (size + 1);
    switch (random_() % 16) {
      case 0: return 0;
      case 1: return size;
      case 2: return size + 1;
      case 3: return 0x7fffffffu;
      case 4: return 0xfffffffeu;
      default: return random_() % (size + 1);
    }
  }
  int32_t i32(uint32_t size) {
    if (calm_) return static_cast<int32_t>(random_() % (size + 1));
    switch (random_() % 6) {
      case 0: return -1;
      case 1: return INT32_MIN;
      default: return static_cast<int32_t>(u32(size));
    }
  }
  // Mostly the image's own aspect (`natural`), otherwise any.
  VkImageAspectFlags aspect(VkImageAspectFlags natural) {
    const VkImageAspectFlags aspects[] = {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                                          VK_IMAGE_ASPECT_STENCIL_BIT,
                                          VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0x7fffffffu};
    return calm_ || random_() % 4 ? natural : aspects[random_() % 6];
  }
  // What an image is: its aspect, levels, layers and level-0 extent, to aim near its bounds.
  struct Shape {
    VkImageAspectFlags aspect;
    uint32_t levels, layers, width, height, depth;
  };
  VkImageSubresourceLayers layers(const Shape& s) {
    return {aspect(s.aspect), calm_ ? 0 : small(s.levels), small(s.layers), calm_ || random_() % 4 ? 1 : u32(s.layers)};
  }
  VkOffset3D offset(const Shape& s) { return {i32(s.width / 2), i32(s.height / 2), i32(s.depth / 2)}; }
  VkExtent3D extent(const Shape& s) { return {u32(s.width / 2), u32(s.height / 2), u32(s.depth / 2)}; }
  // An index below n most of the time, otherwise an edge value.
  uint32_t small(uint32_t n) { return calm_ || random_() % 8 ? random_() % n : u32(n); }
  // Calm: values inside the objects (level 0, offsets and extents within half the extent), so that
  // many commands are valid and write next to the guards; otherwise edge values as well.
  void set_calm(bool calm) { calm_ = calm; }
  uint32_t pick(uint32_t n) { return random_() % n; }

 private:
  std::mt19937 random_;
  bool calm_ = false;
};

TEST_F(VkImageHostile, RandomTransferArgumentsNeverWriteOutsideTheirObjects) {
  VkImage images[] = {
      guarded_image(image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {16, 8, 1}, 3, 3)),
      guarded_image(image_info(VK_FORMAT_R32_SFLOAT, VK_IMAGE_TYPE_3D, {8, 8, 4}, 1, 2)),
      guarded_image(image_info(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_TYPE_2D, {8, 8, 1}, 1, 1)),
      guarded_image(image_info(VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_TYPE_1D, {16, 1, 1}, 2, 4)),
      guarded_image(image_info(VK_FORMAT_B8G8R8A8_SRGB, VK_IMAGE_TYPE_2D, {16, 8, 1}, 2, 2)),
      guarded_image(image_info(VK_FORMAT_D32_SFLOAT_S8_UINT, VK_IMAGE_TYPE_2D, {8, 8, 1}, 1, 1)),  // 8-byte texels
  };
  const VkImageAspectFlags c = VK_IMAGE_ASPECT_COLOR_BIT;
  const Hostile::Shape shapes[] = {{c, 3, 3, 16, 8, 1},
                                   {c, 2, 1, 8, 8, 4},
                                   {VK_IMAGE_ASPECT_DEPTH_BIT, 1, 1, 8, 8, 1},
                                   {c, 4, 2, 16, 1, 1},
                                   {c, 2, 2, 16, 8, 1},
                                   {VK_IMAGE_ASPECT_STENCIL_BIT, 1, 1, 8, 8, 1}};
  VkBuffer buffers[] = {guarded_buffer(100), guarded_buffer(3000), guarded_buffer(4096)};
  Hostile h(20261128);
  begin();
  for (int n = 0; n < 3000; ++n) {
    h.set_calm(h.pick(2) == 0);
    const uint32_t ia = h.pick(6), ib = h.pick(6);
    VkImage a = images[ia], b = images[ib];
    VkBuffer buffer = buffers[h.pick(3)];
    const VkDeviceSize buffer_offset = h.pick(8) ? VkDeviceSize{h.u32(1024)} & ~VkDeviceSize{3}
                                                 : ~VkDeviceSize{0} - h.pick(64);
    const Hostile::Shape& sa = shapes[ia];
    const Hostile::Shape& sb = shapes[ib];
    VkBufferImageCopy bic{buffer_offset, h.pick(2) ? 0 : h.u32(20), h.pick(2) ? 0 : h.u32(10), h.layers(sa),
                          h.offset(sa), h.extent(sa)};
    VkImageCopy ic{h.layers(sa), h.offset(sa), h.layers(sb), h.offset(sb), h.extent(sa)};
    VkImageBlit blit{h.layers(sa), {h.offset(sa), h.offset(sa)}, h.layers(sb), {h.offset(sb), h.offset(sb)}};
    VkImageSubresourceRange range{h.aspect(sa.aspect), h.small(sa.levels),
                                  h.pick(2) ? VK_REMAINING_MIP_LEVELS : h.u32(sa.levels), h.small(sa.layers),
                                  h.pick(2) ? VK_REMAINING_ARRAY_LAYERS : h.u32(sa.layers)};
    VkClearColorValue colour{};
    colour.uint32[0] = h.u32(0xffff);
    VkClearDepthStencilValue depth{static_cast<float>(h.i32(2)), h.u32(255)};
    switch (h.pick(7)) {
      case 0: vkCmdCopyBufferToImage(cb_, buffer, a, VK_IMAGE_LAYOUT_GENERAL, 1, &bic); break;
      case 1: vkCmdCopyImageToBuffer(cb_, a, VK_IMAGE_LAYOUT_GENERAL, buffer, 1, &bic); break;
      case 2: vkCmdCopyImage(cb_, a, VK_IMAGE_LAYOUT_GENERAL, b, VK_IMAGE_LAYOUT_GENERAL, 1, &ic); break;
      case 3: vkCmdClearColorImage(cb_, a, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &range); break;
      case 4: vkCmdClearDepthStencilImage(cb_, a, VK_IMAGE_LAYOUT_GENERAL, &depth, 1, &range); break;
      default:
        vkCmdBlitImage(cb_, a, VK_IMAGE_LAYOUT_GENERAL, b, VK_IMAGE_LAYOUT_GENERAL, 1, &blit,
                       h.pick(2) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST);
    }
  }
  testing::internal::CaptureStderr();
  submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(changed_guard_bytes(), 0u);
  std::printf("3000 random transfers: %d regions or ranges skipped with a log line\n", count(log, "skipped"));
  // Many random commands break a rule; hundreds are valid and write.
  EXPECT_GT(count(log, "skipped"), 1000) << log.substr(0, 2000);
  EXPECT_LT(count(log, "skipped"), 2600);
}

TEST_F(VkImageHostile, ImageBarriersAreCheckedAgainstTheirImage) {
  VkImage image = make_image(image_info(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_TYPE_2D, {8, 8, 1}, 2, 2));
  VkImageCreateInfo unbound_info = image_info(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, {8, 8, 1}, 1, 1);
  VkImage unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateImage(device_, &unbound_info, nullptr, &unbound), VK_SUCCESS);
  images_.push_back(unbound);
  const VkImageAspectFlags ds = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
  auto barrier = [&](VkImage target, VkImageSubresourceRange range) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    b.image = target;
    b.subresourceRange = range;
    vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
  };
  begin();
  testing::internal::CaptureStderr();
  barrier(image, {ds, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS});
  barrier(image, {VK_IMAGE_ASPECT_STENCIL_BIT, 1, 1, 1, 1});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  barrier(image, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1});                 // an aspect it lacks
  barrier(image, {ds, 2, VK_REMAINING_MIP_LEVELS, 0, 1});                  // no level 2
  barrier(image, {ds, 1, 2, 0, 1});                                        // levels 1..2 of 2
  barrier(image, {ds, 0, 1, 1, 0xfffffffeu});                              // layers that wrap
  barrier(image, {ds, 0, 0, 0, 1});                                        // no level at all
  barrier(unbound, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1});               // no memory
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "levels, layers or aspects outside the image; barrier refused"), 5) << log;
  EXPECT_EQ(count(log, "image not bound to memory; barrier refused"), 1) << log;
  submit_and_wait();
}

}  // namespace
}  // namespace gsgpu::vk::test
