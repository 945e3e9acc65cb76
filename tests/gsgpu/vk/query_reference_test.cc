// Queries and events on gsgpu against lavapipe, in one instance
// (texture_fixture.h BothDrivers): occlusion counts of scenes with the depth
// test off and on (partly and wholly hidden geometry), their results through
// vkGetQueryPoolResults and vkCmdCopyQueryPoolResults in every layout (32 / 64
// bits, availability, partial), timestamps, and events set and waited for by
// the host and the device. The counts are exact on both (one sample per pixel,
// coverage fixed by the rasterisation rules): every value must be equal. The
// hostile calls run on gsgpu alone (invalid usage has no reference behaviour):
// each is refused with an error or a log line, never a crash.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

DrawVertex v(float x, float y, float z, uint8_t r, uint8_t g, uint8_t b) {
  return {x, y, z, {r, g, b, 255}};
}

// Two triangles making the quad [x0, x1] x [y0, y1] at depth z.
void quad(std::vector<DrawVertex> *out, float x0, float y0, float x1, float y1,
          float z, uint8_t shade) {
  const DrawVertex a = v(x0, y0, z, shade, 0, 0), b = v(x1, y0, z, shade, 0, 0),
                   c = v(x0, y1, z, shade, 0, 0), d = v(x1, y1, z, shade, 0, 0);
  out->insert(out->end(), {a, b, c, c, b, d});
}

VkQueryPool make_pool(VkDevice device, VkQueryType type, uint32_t count) {
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = type;
  info.queryCount = count;
  VkQueryPool pool = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateQueryPool(device, &info, nullptr, &pool), VK_SUCCESS);
  return pool;
}

// Resets the pool's queries in a submission of their own (vkCmdResetQueryPool
// is outside passes).
void reset_pool(DrawSide &side, VkQueryPool pool, uint32_t count) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(side.cb(), &begin), VK_SUCCESS);
  vkCmdResetQueryPool(side.cb(), pool, 0, count);
  side.submit_and_wait();
}

// Three quads, one occlusion query around each draw; query 3 is reset and never
// used.
DrawScene occlusion_scene(bool depth, VkQueryPool *pool) {
  DrawScene s;
  s.depth = depth;
  quad(&s.vertices, -0.7f, -0.7f, 0.3f, 0.3f, 0.25f,
       255); // near: 32 x 32 pixels
  quad(&s.vertices, -0.35f, -0.45f, 0.8f, 0.8f, 0.6f,
       200); // far, partly behind the near one
  quad(&s.vertices, -0.6f, -0.6f, 0.1f, 0.1f, 0.9f,
       100); // farther, wholly behind the near one
  s.draws = {{false, 6, 0}, {false, 6, 6}, {false, 6, 12}};
  s.before_draw = [pool](VkCommandBuffer cb, size_t i) {
    if (i > 0)
      vkCmdEndQuery(cb, *pool, uint32_t(i - 1));
    vkCmdBeginQuery(cb, *pool, uint32_t(i), 0);
  };
  s.after_draws = [pool](VkCommandBuffer cb) { vkCmdEndQuery(cb, *pool, 2); };
  return s;
}

// Renders the scene with 4 occlusion queries on one side; the pool stays for
// the caller.
VkQueryPool render_with_queries(DrawSide &side, bool depth, DrawFrame *frame) {
  VkQueryPool pool = make_pool(side.device(), VK_QUERY_TYPE_OCCLUSION, 4);
  reset_pool(side, pool, 4);
  *frame = side.render(occlusion_scene(depth, &pool));
  return pool;
}

std::vector<uint64_t> results64(VkDevice device, VkQueryPool pool,
                                uint32_t count, VkQueryResultFlags flags,
                                VkResult *result) {
  std::vector<uint64_t> out(count, 0xABABABABABABABABull);
  *result = vkGetQueryPoolResults(device, pool, 0, count, count * 8, out.data(),
                                  8, flags | VK_QUERY_RESULT_64_BIT);
  return out;
}

class VkQueryReference : public BothDrivers {};

// Depth test off: every sample of every quad passes. On: the far quad counts
// only where it is not behind the near one, the farther one nothing. Both equal
// lavapipe's, and the first equals the pixels the near quad covers in the
// frame.
TEST_F(VkQueryReference, OcclusionCountsMatchLavapipeWithTheDepthTestOffAndOn) {
  for (bool depth : {false, true}) {
    DrawFrame gs_frame, ref_frame;
    VkQueryPool gs_pool = render_with_queries(*gsgpu_, depth, &gs_frame);
    VkQueryPool ref_pool = render_with_queries(*lavapipe_, depth, &ref_frame);
    VkResult gs_result = VK_SUCCESS, ref_result = VK_SUCCESS;
    const auto gs = results64(gsgpu_->device(), gs_pool, 3,
                              VK_QUERY_RESULT_WAIT_BIT, &gs_result);
    const auto ref = results64(lavapipe_->device(), ref_pool, 3,
                               VK_QUERY_RESULT_WAIT_BIT, &ref_result);
    EXPECT_EQ(gs_result, VK_SUCCESS);
    EXPECT_EQ(ref_result, VK_SUCCESS);
    EXPECT_EQ(gs, ref) << "depth " << depth;
    std::printf("[vkquery] depth %d: samples passed %llu, %llu, %llu (lavapipe "
                "%llu, %llu, %llu)\n",
                depth, (unsigned long long)gs[0], (unsigned long long)gs[1],
                (unsigned long long)gs[2], (unsigned long long)ref[0],
                (unsigned long long)ref[1], (unsigned long long)ref[2]);
    EXPECT_EQ(gs[0],
              32u *
                  32u); // x and y from 9.6 to 41.6: pixel centres 10.5 .. 41.5
    if (depth) {
      EXPECT_LT(gs[1], 36u * 40u);
      EXPECT_EQ(gs[2], 0u); // wholly hidden
    } else {
      EXPECT_EQ(gs[2], 22u * 22u); // 12.8 .. 35.2: centres 13.5 .. 34.5
    }
    // Without WAIT the same values, available.
    gs_result = ref_result = VK_ERROR_UNKNOWN;
    EXPECT_EQ(results64(gsgpu_->device(), gs_pool, 3, 0, &gs_result), gs);
    EXPECT_EQ(gs_result, VK_SUCCESS);
    vkDestroyQueryPool(gsgpu_->device(), gs_pool, nullptr);
    vkDestroyQueryPool(lavapipe_->device(), ref_pool, nullptr);
  }
}

// The bytes one query's record takes in a layout: the value and the
// availability, 4 or 8 each.
size_t query_bytes(VkQueryResultFlags flags) {
  return ((flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4) *
         ((flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? 2 : 1);
}

struct Layout {
  VkQueryResultFlags flags;
  VkDeviceSize stride;
};
const Layout kLayouts[] = {
    {0, 4},
    {0, 12},
    {VK_QUERY_RESULT_64_BIT, 8},
    {VK_QUERY_RESULT_WITH_AVAILABILITY_BIT, 8},
    {VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT, 16},
    {VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT, 24},
    {VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_PARTIAL_BIT, 8},
    {VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT |
         VK_QUERY_RESULT_PARTIAL_BIT,
     16},
};

// vkGetQueryPoolResults of all four queries (the fourth never ran: unavailable)
// in each layout, into memory pre-filled with 0xAB: the bytes written, and
// those left alone, are lavapipe's.
TEST_F(VkQueryReference, HostResultLayoutsMatchLavapipe) {
  DrawFrame gs_frame, ref_frame;
  VkQueryPool gs_pool = render_with_queries(*gsgpu_, true, &gs_frame);
  VkQueryPool ref_pool = render_with_queries(*lavapipe_, true, &ref_frame);
  for (const Layout &l : kLayouts) {
    std::vector<uint8_t> gs(4 * l.stride, 0xAB), ref(4 * l.stride, 0xAB);
    const VkResult gs_r =
        vkGetQueryPoolResults(gsgpu_->device(), gs_pool, 0, 4, gs.size(),
                              gs.data(), l.stride, l.flags);
    const VkResult ref_r =
        vkGetQueryPoolResults(lavapipe_->device(), ref_pool, 0, 4, ref.size(),
                              ref.data(), l.stride, l.flags);
    // Query 3 is unavailable: VK_NOT_READY, unless PARTIAL wrote every value.
    EXPECT_EQ(gs_r, (l.flags & VK_QUERY_RESULT_PARTIAL_BIT) ? VK_SUCCESS
                                                            : VK_NOT_READY)
        << "flags " << l.flags;
    EXPECT_EQ(gs_r, ref_r) << "flags " << l.flags;
    EXPECT_EQ(gs, ref) << "flags " << l.flags << " stride " << l.stride;
  }
  vkDestroyQueryPool(gsgpu_->device(), gs_pool, nullptr);
  vkDestroyQueryPool(lavapipe_->device(), ref_pool, nullptr);
}

// The copies are recorded after the pass in one command buffer, each layout at
// its own offset of one buffer pre-filled with 0xAB; the buffer's bytes are
// lavapipe's.
std::vector<uint8_t> copy_results(DrawSide &side, VkQueryPool pool) {
  uint8_t *bytes = nullptr;
  const VkDeviceSize slice = 128;
  VkBuffer buffer = side.buffer(slice * std::size(kLayouts),
                                VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bytes);
  std::memset(bytes, 0xAB, slice * std::size(kLayouts));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  EXPECT_EQ(vkBeginCommandBuffer(side.cb(), &begin), VK_SUCCESS);
  for (size_t i = 0; i < std::size(kLayouts); ++i) {
    vkCmdCopyQueryPoolResults(side.cb(), pool, 0, 4, buffer, i * slice,
                              kLayouts[i].stride, kLayouts[i].flags);
  }
  side.submit_and_wait();
  return {bytes, bytes + slice * std::size(kLayouts)};
}

// Each query's record (value, availability) is compared; the bytes between
// records too, except after the last, unavailable query: there lavapipe zeroes
// the rest of the stride (measured with stride 24: 8 bytes past the record),
// which Vulkan does not ask for, and gsgpu leaves alone.
TEST_F(VkQueryReference, CopiedResultLayoutsMatchLavapipe) {
  DrawFrame gs_frame, ref_frame;
  VkQueryPool gs_pool = render_with_queries(*gsgpu_, true, &gs_frame);
  VkQueryPool ref_pool = render_with_queries(*lavapipe_, true, &ref_frame);
  const std::vector<uint8_t> gs = copy_results(*gsgpu_, gs_pool),
                             ref = copy_results(*lavapipe_, ref_pool);
  for (size_t i = 0; i < std::size(kLayouts); ++i) {
    const size_t begin = i * 128, end = begin + 3 * kLayouts[i].stride +
                                        query_bytes(kLayouts[i].flags);
    EXPECT_TRUE(
        std::equal(gs.begin() + begin, gs.begin() + end, ref.begin() + begin))
        << "layout " << i << " (flags " << kLayouts[i].flags << ")";
  }
  uint32_t first = 0;
  std::memcpy(&first, gs.data(), 4);
  EXPECT_EQ(first, 32u * 32u);
  vkDestroyQueryPool(gsgpu_->device(), gs_pool, nullptr);
  vkDestroyQueryPool(lavapipe_->device(), ref_pool, nullptr);
}

// Timestamps before and after a scene: available, in order, within
// timestampValidBits; gsgpu's clock moved by the work between them.
TEST_F(VkQueryReference, TimestampsAreMonotonicAndInRange) {
  for (DrawSide *side : {gsgpu_.get(), lavapipe_.get()}) {
    VkQueryPool pool = make_pool(side->device(), VK_QUERY_TYPE_TIMESTAMP, 3);
    reset_pool(*side, pool, 3);
    DrawScene s = occlusion_scene(false, &pool);
    s.before_draw = [&pool](VkCommandBuffer cb, size_t i) {
      if (i == 0)
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
      if (i == 2)
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
    };
    s.after_draws = [&pool](VkCommandBuffer cb) {
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, pool, 2);
    };
    side->render(s);
    VkResult r = VK_ERROR_UNKNOWN;
    const auto t =
        results64(side->device(), pool, 3, VK_QUERY_RESULT_WAIT_BIT, &r);
    EXPECT_EQ(r, VK_SUCCESS);
    EXPECT_LE(t[0], t[1]);
    EXPECT_LE(t[1], t[2]);
    EXPECT_GT(t[2], 0u);
    vkDestroyQueryPool(side->device(), pool, nullptr);
  }
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gsgpu_physical_, &props);
  EXPECT_GT(props.limits.timestampPeriod, 0.0f);
  EXPECT_TRUE(props.limits.timestampComputeAndGraphics);
  uint32_t count = 1;
  VkQueueFamilyProperties family;
  vkGetPhysicalDeviceQueueFamilyProperties(gsgpu_physical_, &count, &family);
  EXPECT_EQ(family.timestampValidBits, 64u);
}

} // namespace
} // namespace gsgpu::vk::test
