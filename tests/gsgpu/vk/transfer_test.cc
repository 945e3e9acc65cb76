// Memory, buffers and transfers on the queue: allocate and map drv-backed memory, fill and copy
// through a submitted command buffer, read back after the fence; bad arguments refused.
#include <cstring>
#include <vector>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

TEST_F(VkTransfer, FillThenCopyOnTheQueueIsReadBackAfterTheFence) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096 + 100, &a);
  VkBuffer dst = make_buffer(8192, &b);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b[i], 0) << "memory is zero-filled";
  begin();
  vkCmdFillBuffer(cb_, src, 0, 4096, 0xA5A5A5A5u);
  const uint32_t words[2] = {0x11223344u, 0x55667788u};
  vkCmdUpdateBuffer(cb_, src, 4096, sizeof(words), words);
  VkBufferCopy region{};
  region.srcOffset = 4000;
  region.dstOffset = 16;
  region.size = 104;  // 96 filled bytes, then the updated words
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  submit_and_wait();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(b[i], 0) << i;
  for (int i = 16; i < 16 + 96; ++i) EXPECT_EQ(b[i], 0xA5) << i;
  uint32_t tail[2];
  std::memcpy(tail, b + 16 + 96, sizeof(tail));
  EXPECT_EQ(tail[0], words[0]);
  EXPECT_EQ(tail[1], words[1]);
  EXPECT_EQ(b[16 + 104], 0);
  EXPECT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  EXPECT_EQ(vkDeviceWaitIdle(device_), VK_SUCCESS);
}

TEST_F(VkTransfer, FillWholeSizeAndHostWritesAreSeenByTheQueue) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(256, &a);
  VkBuffer dst = make_buffer(256, &b);
  for (int i = 0; i < 256; ++i) a[i] = static_cast<uint8_t>(i);
  begin();
  vkCmdFillBuffer(cb_, dst, 128, VK_WHOLE_SIZE, 0x01020304u);
  VkBufferCopy region{0, 0, 128};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  submit_and_wait();
  for (int i = 0; i < 128; ++i) EXPECT_EQ(b[i], i) << i;
  uint32_t word;
  std::memcpy(&word, b + 252, 4);
  EXPECT_EQ(word, 0x01020304u);
}

TEST_F(VkTransfer, OversizedAllocationIsOutOfDeviceMemory) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical_, &props);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  VkDeviceMemory memory = VK_NULL_HANDLE;
  alloc.allocationSize = props.memoryHeaps[0].size + 4096;
  EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  alloc.allocationSize = UINT64_MAX;
  EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  alloc.allocationSize = 4096;
  alloc.memoryTypeIndex = 1;  // no such type
  EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

// Invalid usage that must not reach past a buffer: the driver checks each region when the
// command buffer runs, skips the bad ones (with a log line) and runs the good ones.
TEST_F(VkTransfer, CopyRegionsOutOfRangeAreRefusedByTheDriverAndTheRestRuns) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  VkBuffer dst = make_buffer(4096, &b);
  std::memset(a, 0x5A, 4096);
  begin();
  const VkBufferCopy regions[] = {
      {4000, 0, 200},              // source past the end
      {0, 4000, 200},              // destination past the end
      {UINT64_MAX - 8, 0, 16},     // offset + size overflows
      {0, 0, UINT64_MAX},          // enormous
      {0, 1024, 8},                // the good one
  };
  vkCmdCopyBuffer(cb_, src, dst, 5, regions);
  vkCmdFillBuffer(cb_, dst, 4092, 8, 0xFFFFFFFFu);  // past the end
  vkCmdFillBuffer(cb_, dst, 2, 4, 0xFFFFFFFFu);     // unaligned
  submit_and_wait();
  for (int i = 0; i < 4096; ++i) {
    ASSERT_EQ(b[i], (i >= 1024 && i < 1032) ? 0x5A : 0) << i;
  }
}

TEST_F(VkTransfer, BindingPastTheMemoryIsRefused) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 8192;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
  buffers_.push_back(buffer);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = 8192;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
  memories_.push_back(memory);
  EXPECT_EQ(vkBindBufferMemory(device_, buffer, memory, 4096), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(vkBindBufferMemory(device_, buffer, memory, 0), VK_SUCCESS);
}

// Two submissions on the one queue run in order; fences: wait-any returns when one submitted
// fence is done, wait-all including a never-submitted fence times out, an empty submission
// signals its fence.
TEST_F(VkTransfer, SubmissionsRunInOrderAndFencesFollowTheRing) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  VkBuffer dst = make_buffer(4096, &b);
  VkCommandBuffer cbs[2] = {cb_, VK_NULL_HANDLE};
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool_;
  alloc.commandBufferCount = 1;
  ASSERT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cbs[1]), VK_SUCCESS);
  VkCommandBufferBeginInfo begin_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cbs[0], &begin_info), VK_SUCCESS);
  vkCmdFillBuffer(cbs[0], src, 0, 64, 0x77777777u);
  ASSERT_EQ(vkEndCommandBuffer(cbs[0]), VK_SUCCESS);
  ASSERT_EQ(vkBeginCommandBuffer(cbs[1], &begin_info), VK_SUCCESS);
  VkBufferCopy region{0, 0, 64};
  vkCmdCopyBuffer(cbs[1], src, dst, 1, &region);
  ASSERT_EQ(vkEndCommandBuffer(cbs[1]), VK_SUCCESS);
  VkFence fences[4];
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  for (VkFence& f : fences) ASSERT_EQ(vkCreateFence(device_, &fence_info, nullptr, &f), VK_SUCCESS);
  for (int i = 0; i < 2; ++i) {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cbs[i];
    ASSERT_EQ(vkQueueSubmit(queue_, 1, &submit, fences[i]), VK_SUCCESS);
  }
  ASSERT_EQ(vkQueueSubmit(queue_, 0, nullptr, fences[3]), VK_SUCCESS);
  const VkFence second_and_unsubmitted[2] = {fences[1], fences[2]};
  EXPECT_EQ(vkWaitForFences(device_, 2, second_and_unsubmitted, VK_FALSE, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device_, 2, second_and_unsubmitted, VK_TRUE, 0), VK_TIMEOUT);
  EXPECT_EQ(vkWaitForFences(device_, 1, &fences[3], VK_TRUE, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(vkGetFenceStatus(device_, fences[0]), VK_SUCCESS);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(b[i], 0x77) << i;
  EXPECT_EQ(b[64], 0);
  for (VkFence f : fences) vkDestroyFence(device_, f, nullptr);
  vkFreeCommandBuffers(device_, pool_, 1, &cbs[1]);
}

// The spec lets a buffer outlive its memory, unusable: freeing the memory unbinds it, so a
// transfer recorded on it afterwards is skipped (a log line), not a write through a freed mapping.
// Binding a buffer twice is refused.
TEST_F(VkTransfer, BufferWhoseMemoryWasFreedIsUnboundAndNotWritten) {
  uint8_t* a = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  std::memset(a, 0x33, 4096);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer orphan = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device_, &info, nullptr, &orphan), VK_SUCCESS);
  buffers_.push_back(orphan);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = 4096;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
  ASSERT_EQ(vkBindBufferMemory(device_, orphan, memory, 0), VK_SUCCESS);
  EXPECT_EQ(vkBindBufferMemory(device_, orphan, memory, 0), VK_ERROR_OUT_OF_DEVICE_MEMORY);
  vkFreeMemory(device_, memory, nullptr);
  begin();
  VkBufferCopy region{0, 0, 4096};
  vkCmdCopyBuffer(cb_, src, orphan, 1, &region);
  vkCmdFillBuffer(cb_, orphan, 0, VK_WHOLE_SIZE, 0u);
  submit_and_wait();
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(a[i], 0x33) << i;
}

}  // namespace
}  // namespace gsgpu::vk::test
