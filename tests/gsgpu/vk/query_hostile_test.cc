// Hostile query and event calls on gsgpu (invalid usage, so no lavapipe
// reference): every index, count, size, offset and stride is checked before a
// byte moves; a refused call is an error code or a log line, writes nothing,
// and the device answers the next good query correctly.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

int lines_with(const std::string &log, const std::string &what) {
  int n = 0;
  for (size_t at = log.find(what); at != std::string::npos;
       at = log.find(what, at + 1))
    ++n;
  return n;
}

class VkQueryHostile : public BothDrivers {
protected:
  VkQueryPool pool(VkQueryType type, uint32_t count,
                   VkResult expect = VK_SUCCESS) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = type;
    info.queryCount = count;
    VkQueryPool p = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateQueryPool(gsgpu_->device(), &info, nullptr, &p), expect)
        << type << " x " << count;
    if (p)
      pools_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (VkQueryPool p : pools_)
      vkDestroyQueryPool(gsgpu_->device(), p, nullptr);
    BothDrivers::TearDown();
  }
  std::vector<VkQueryPool> pools_;
};

TEST_F(VkQueryHostile, BadPoolsAndResultRangesAreRefusedAndWriteNothing) {
  VkDevice d = gsgpu_->device();
  testing::internal::CaptureStderr();
  EXPECT_EQ(
      pool(VK_QUERY_TYPE_PIPELINE_STATISTICS, 4, VK_ERROR_FEATURE_NOT_PRESENT),
      VK_NULL_HANDLE);
  EXPECT_EQ(pool(VK_QUERY_TYPE_OCCLUSION, 0, VK_ERROR_UNKNOWN), VK_NULL_HANDLE);
  EXPECT_EQ(
      pool(VK_QUERY_TYPE_OCCLUSION, UINT32_MAX, VK_ERROR_OUT_OF_DEVICE_MEMORY),
      VK_NULL_HANDLE);
  VkQueryPool p = pool(VK_QUERY_TYPE_OCCLUSION, 4);
  std::vector<uint8_t> data(64, 0x5A);
  struct Case {
    uint32_t first, count;
    size_t size;
    VkDeviceSize stride;
    VkQueryResultFlags flags;
  };
  const Case cases[] = {
      {4, 1, 64, 8, 0},                      // first past the pool
      {2, UINT32_MAX, 64, 8, 0},             // first + count wraps
      {0, 0, 64, 8, 0},                      // no query
      {0, 2, 64, 0, 0},                      // stride 0 for two queries
      {0, 2, 64, 6, VK_QUERY_RESULT_64_BIT}, // stride not a multiple of 8
      {0, 3, 64, 1ull << 63, 0},             // (count - 1) * stride wraps
      {0, 4, 15, 4, 0},                      // 16 bytes needed
      {0, 4, 63, 16,
       VK_QUERY_RESULT_64_BIT |
           VK_QUERY_RESULT_WITH_AVAILABILITY_BIT}, // the last record past
  };
  for (const Case &c : cases) {
    EXPECT_EQ(vkGetQueryPoolResults(d, p, c.first, c.count, c.size, data.data(),
                                    c.stride, c.flags),
              VK_ERROR_UNKNOWN)
        << c.first << " " << c.count << " " << c.size << " " << c.stride;
  }
  EXPECT_EQ(vkGetQueryPoolResults(d, p, 0, 1, 8, nullptr, 8, 0),
            VK_ERROR_UNKNOWN);
  for (uint8_t b : data)
    ASSERT_EQ(b, 0x5A);
  vkResetQueryPool(d, p, 3, 2); // past the pool: refused (a log line)
  // WAIT for a query nothing will end: VK_NOT_READY instead of a hang.
  EXPECT_EQ(vkGetQueryPoolResults(d, p, 0, 1, 8, data.data(), 8,
                                  VK_QUERY_RESULT_WAIT_BIT),
            VK_NOT_READY);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(lines_with(log, "gsgpu-vk: vkCreateQueryPool"), 2) << log;
  EXPECT_EQ(lines_with(log, "gsgpu-vk: vkGetQueryPoolResults"), 10) << log;
  EXPECT_EQ(lines_with(log, "gsgpu-vk: vkResetQueryPool"), 1) << log;
}

// Commands naming queries outside the pool, the wrong pool type, or copies past
// their buffer are not recorded (or skipped); the good query around the same
// draw still counts every sample.
TEST_F(VkQueryHostile, BadQueryCommandsAreNotRecordedAndAGoodQueryStillCounts) {
  VkDevice d = gsgpu_->device();
  VkQueryPool occlusion = pool(VK_QUERY_TYPE_OCCLUSION, 2);
  VkQueryPool timestamps = pool(VK_QUERY_TYPE_TIMESTAMP, 2);
  uint8_t *bytes = nullptr;
  VkBuffer buffer =
      gsgpu_->buffer(64, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bytes);
  std::memset(bytes, 0x5A, 64);
  testing::internal::CaptureStderr();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(gsgpu_->cb(), &begin), VK_SUCCESS);
  VkCommandBuffer cb = gsgpu_->cb();
  vkCmdResetQueryPool(cb, occlusion, 0, 2);
  vkCmdResetQueryPool(cb, occlusion, 1, 2); // 1: past the pool
  vkCmdResetQueryPool(cb, timestamps, 0, 2);
  vkCmdCopyQueryPoolResults(cb, occlusion, 0, 2, buffer, 56, 8,
                            0); // 2: past the buffer
  vkCmdCopyQueryPoolResults(cb, occlusion, 0, 1, buffer, 2, 4,
                            0); // 3: offset not a multiple of 4
  vkCmdCopyQueryPoolResults(cb, occlusion, 0, 2, buffer, 0, 0,
                            0); // 4: stride 0
  vkCmdCopyQueryPoolResults(cb, occlusion, 0, 2, buffer, 0, ~0ull << 3,
                            VK_QUERY_RESULT_64_BIT); // 5: wraps
  vkCmdCopyQueryPoolResults(cb, occlusion, 1, UINT32_MAX, buffer, 0, 8,
                            0); // 6: first + count wraps
  gsgpu_->submit_and_wait();
  DrawScene s;
  s.vertices = {{-1, -1, 0.5f, {255, 255, 255, 255}},
                {3, -1, 0.5f, {255, 255, 255, 255}},
                {-1, 3, 0.5f, {255, 255, 255, 255}}};
  s.draws = {{false, 3, 0}};
  s.before_draw = [&](VkCommandBuffer c, size_t) {
    vkCmdBeginQuery(c, occlusion, 2, 0);  // 7: past the pool
    vkCmdBeginQuery(c, timestamps, 0, 0); // 8: not an occlusion pool
    vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, occlusion,
                        0); // 9: not a timestamp pool
    vkCmdWriteTimestamp(c, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps,
                        7); // 10: past the pool
    vkCmdBeginQuery(c, occlusion, 0, VK_QUERY_CONTROL_PRECISE_BIT);
  };
  s.after_draws = [&](VkCommandBuffer c) {
    vkCmdEndQuery(c, occlusion, UINT32_MAX); // 11: past the pool
    vkCmdEndQuery(c, occlusion, 0);
  };
  gsgpu_->render(s);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(lines_with(log, "not recorded"), 11) << log;
  EXPECT_EQ(lines_with(log, "lost"), 0) << log;
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(bytes[i], 0x5A) << i;
  uint64_t samples[2] = {1, 1};
  EXPECT_EQ(vkGetQueryPoolResults(d, occlusion, 0, 2, sizeof samples, samples,
                                  8, VK_QUERY_RESULT_64_BIT),
            VK_NOT_READY);          // query 1 never ran
  EXPECT_EQ(samples[0], 64u * 64u); // the full-screen triangle
  EXPECT_EQ(samples[1], 1u);        // unavailable, not written
}

} // namespace
} // namespace gsgpu::vk::test
