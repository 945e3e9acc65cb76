// VK_EXT_host_query_reset through the loader: the extension, its feature,
// vkResetQueryPoolEXT (the same function as vkResetQueryPool), and a host reset
// making written timestamps unavailable again.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkHostQueryReset : public VkTransfer {
protected:
  VkHostQueryReset() {
    api_version_ = VK_API_VERSION_1_1;
  } // for vkGetPhysicalDeviceFeatures2
  void SetUp() override {
    device_extensions_ = {VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME};
    features_.hostQueryReset = VK_TRUE;
    device_features_ = &features_;
    VkTransfer::SetUp();
  }
  VkPhysicalDeviceHostQueryResetFeatures features_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
};

TEST_F(VkHostQueryReset, FeatureAndCommandResetWrittenTimestamps) {
  VkPhysicalDeviceHostQueryResetFeatures feature{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES};
  VkPhysicalDeviceFeatures2 features2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &feature};
  vkGetPhysicalDeviceFeatures2(physical_, &features2);
  EXPECT_TRUE(feature.hostQueryReset);
  auto reset = reinterpret_cast<PFN_vkResetQueryPoolEXT>(
      vkGetDeviceProcAddr(device_, "vkResetQueryPoolEXT"));
  ASSERT_NE(reset, nullptr);
  EXPECT_EQ(reinterpret_cast<PFN_vkVoidFunction>(reset),
            vkGetDeviceProcAddr(device_, "vkResetQueryPool"));
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2;
  VkQueryPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateQueryPool(device_, &info, nullptr, &pool), VK_SUCCESS);
  reset(device_, pool, 0, 2);
  begin();
  vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
  vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
  submit_and_wait();
  uint64_t t[2] = {};
  ASSERT_EQ(vkGetQueryPoolResults(device_, pool, 0, 2, sizeof t, t, 8,
                                  VK_QUERY_RESULT_64_BIT),
            VK_SUCCESS);
  EXPECT_LT(t[0], t[1]); // the first REPORT took a cycle of the device clock
  reset(device_, pool, 1, 1);
  uint64_t after[4] = {7, 7, 7, 7};
  EXPECT_EQ(vkGetQueryPoolResults(device_, pool, 0, 2, sizeof after, after, 16,
                                  VK_QUERY_RESULT_64_BIT |
                                      VK_QUERY_RESULT_WITH_AVAILABILITY_BIT),
            VK_NOT_READY);
  EXPECT_EQ(after[0], t[0]);
  EXPECT_EQ(after[1], 1u); // query 0 still available
  EXPECT_EQ(after[2], 7u); // query 1's value not written
  EXPECT_EQ(after[3], 0u); // and unavailable
  vkDestroyQueryPool(device_, pool, nullptr);
}

// The queue's command stream takes a submission's REPORTs in one device submission up to a bound
// (docs/vulkan-driver.md "Batching": the drv backends take 65536 dwords per submission): 6000
// timestamps in one command buffer, 13 dwords each with their progress SYNC, are split into several
// submissions, and every one is written, available, in order.
TEST_F(VkHostQueryReset, ALongRunOfTimestampsIsSplitAndEveryOneIsWritten) {
  constexpr uint32_t kCount = 6000;
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = kCount;
  VkQueryPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateQueryPool(device_, &info, nullptr, &pool), VK_SUCCESS);
  begin();
  vkCmdResetQueryPool(cb_, pool, 0, kCount);
  for (uint32_t i = 0; i < kCount; ++i) vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, i);
  testing::internal::CaptureStderr();
  submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.find("gsgpu-vk:"), std::string::npos) << log;
  std::vector<uint64_t> t(2 * kCount, 0);
  ASSERT_EQ(vkGetQueryPoolResults(device_, pool, 0, kCount, t.size() * 8, t.data(), 16,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT),
            VK_SUCCESS);
  for (uint32_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(t[2 * i + 1], 1u) << i;
    if (i > 0) ASSERT_LT(t[2 * (i - 1)], t[2 * i]) << i;
  }
  vkDestroyQueryPool(device_, pool, nullptr);
}

} // namespace
} // namespace gsgpu::vk::test
