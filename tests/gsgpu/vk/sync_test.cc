// Synchronisation through the loader: a pipeline barrier between a fill and a copy, barriers with
// bad arguments refused (a log line, nothing recorded, no crash), binary semaphores ordering two
// submissions, and semaphore misuse refused before anything runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkSync : public VkTransfer {
 protected:
  VkSemaphore make_semaphore() {
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSemaphore(device_, &info, nullptr, &semaphore), VK_SUCCESS);
    semaphores_.push_back(semaphore);
    return semaphore;
  }
  VkCommandBuffer make_command_buffer() {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
    return cb;
  }
  void TearDown() override {
    if (device_) vkDeviceWaitIdle(device_);
    for (VkSemaphore s : semaphores_) vkDestroySemaphore(device_, s, nullptr);
    VkTransfer::TearDown();
  }
  static VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size) {
    VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = buffer;
    barrier.offset = offset;
    barrier.size = size;
    return barrier;
  }
  void barrier(VkCommandBuffer cb, const VkBufferMemoryBarrier& b) {
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1, &b, 0,
                         nullptr);
  }
  static int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  std::vector<VkSemaphore> semaphores_;
};

TEST_F(VkSync, BarrierBetweenAFillAndACopyIsAcceptedAndTheCopySeesTheFill) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(8192, &a);
  VkBuffer dst = make_buffer(8192, &b);
  begin();
  vkCmdFillBuffer(cb_, src, 0, VK_WHOLE_SIZE, 0xdeadbeefu);
  testing::internal::CaptureStderr();
  VkMemoryBarrier global{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  global.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  global.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkBufferMemoryBarrier whole = buffer_barrier(src, 0, VK_WHOLE_SIZE);
  VkBufferMemoryBarrier last_byte = buffer_barrier(src, 8191, 1);
  VkBufferMemoryBarrier both[] = {whole, last_byte};
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &global, 2, both, 0,
                       nullptr);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  VkBufferCopy region{0, 0, 8192};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  submit_and_wait();
  for (int i = 0; i < 8192; i += 4) {
    uint32_t word;
    std::memcpy(&word, b + i, 4);
    ASSERT_EQ(word, 0xdeadbeefu) << i;
  }
}

// An unbound buffer, a range past the end, an offset at the end, a size that would wrap, a size
// of 0 and an image barrier naming no image: each refused with a log line when recorded; the
// command buffer's transfers still run.
TEST_F(VkSync, BarriersNamingAnUnboundBufferOrARangePastTheEndAreRefused) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  VkBuffer dst = make_buffer(4096, &b);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device_, &info, nullptr, &unbound), VK_SUCCESS);
  buffers_.push_back(unbound);
  begin();
  vkCmdFillBuffer(cb_, src, 0, VK_WHOLE_SIZE, 0x01020304u);
  testing::internal::CaptureStderr();
  barrier(cb_, buffer_barrier(unbound, 0, VK_WHOLE_SIZE));
  barrier(cb_, buffer_barrier(src, 0, 4097));
  barrier(cb_, buffer_barrier(src, 4096, VK_WHOLE_SIZE));
  barrier(cb_, buffer_barrier(src, 16, UINT64_MAX - 8));
  barrier(cb_, buffer_barrier(src, 0, 0));
  VkImageMemoryBarrier image{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       1, &image);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "buffer not bound to memory; barrier refused"), 1) << log;
  EXPECT_EQ(count(log, "outside a buffer of 4096 bytes; barrier refused"), 4) << log;
  EXPECT_EQ(count(log, "image not bound to memory; barrier refused"), 1) << log;
  VkBufferCopy region{0, 0, 4096};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  submit_and_wait();
  for (int i = 0; i < 4096; i += 4) {
    uint32_t word;
    std::memcpy(&word, b + i, 4);
    ASSERT_EQ(word, 0x01020304u) << i;
  }
}

// Submission 1 fills A and signals S; submission 2 waits on S and copies A to B. S is consumed by
// the wait: a third submission waiting on it again is refused before it runs anything.
TEST_F(VkSync, SemaphoreOrdersTwoSubmissionsAndIsConsumedByTheWait) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  VkBuffer dst = make_buffer(4096, &b);
  VkSemaphore semaphore = make_semaphore();
  VkCommandBuffer fill = make_command_buffer();
  vkCmdFillBuffer(fill, src, 0, VK_WHOLE_SIZE, 0xa5a5a5a5u);
  ASSERT_EQ(vkEndCommandBuffer(fill), VK_SUCCESS);
  VkSubmitInfo first{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  first.commandBufferCount = 1;
  first.pCommandBuffers = &fill;
  first.signalSemaphoreCount = 1;
  first.pSignalSemaphores = &semaphore;
  ASSERT_EQ(vkQueueSubmit(queue_, 1, &first, VK_NULL_HANDLE), VK_SUCCESS);

  begin();
  VkBufferCopy region{0, 0, 4096};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  ASSERT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo second{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  second.waitSemaphoreCount = 1;
  second.pWaitSemaphores = &semaphore;
  second.pWaitDstStageMask = &stage;
  second.commandBufferCount = 1;
  second.pCommandBuffers = &cb_;
  ASSERT_EQ(vkQueueSubmit(queue_, 1, &second, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(b[i], 0xa5) << i;

  std::memset(b, 0, 4096);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vkQueueSubmit(queue_, 1, &second, VK_NULL_HANDLE), VK_ERROR_UNKNOWN);
  EXPECT_EQ(count(testing::internal::GetCapturedStderr(), "waits for a semaphore nothing signals; refused"), 1);
  ASSERT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(b[i], 0) << i;
}

// Within one vkQueueSubmit a batch may wait on a semaphore an earlier batch signals. Signalling a
// semaphore whose signal is pending, or waiting on one never signalled, is refused and runs none
// of the call's batches.
TEST_F(VkSync, SemaphoreMisuseIsRefusedBeforeAnyBatchRuns) {
  uint8_t* a = nullptr;
  VkBuffer buffer = make_buffer(4096, &a);
  VkSemaphore s = make_semaphore();
  VkSemaphore never = make_semaphore();
  VkCommandBuffer fill = make_command_buffer();
  vkCmdFillBuffer(fill, buffer, 0, VK_WHOLE_SIZE, 0x11111111u);
  ASSERT_EQ(vkEndCommandBuffer(fill), VK_SUCCESS);
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo batches[2] = {{VK_STRUCTURE_TYPE_SUBMIT_INFO}, {VK_STRUCTURE_TYPE_SUBMIT_INFO}};
  batches[0].signalSemaphoreCount = 1;
  batches[0].pSignalSemaphores = &s;
  batches[1].waitSemaphoreCount = 1;
  batches[1].pWaitSemaphores = &s;
  batches[1].pWaitDstStageMask = &stage;
  batches[1].commandBufferCount = 1;
  batches[1].pCommandBuffers = &fill;
  ASSERT_EQ(vkQueueSubmit(queue_, 2, batches, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  EXPECT_EQ(a[0], 0x11);

  std::memset(a, 0, 4096);
  testing::internal::CaptureStderr();
  // Batch 0 signals s (now unsignalled: accepted), batch 1 signals it again while pending.
  VkSubmitInfo twice[2] = {{VK_STRUCTURE_TYPE_SUBMIT_INFO}, {VK_STRUCTURE_TYPE_SUBMIT_INFO}};
  twice[0].commandBufferCount = 1;
  twice[0].pCommandBuffers = &fill;
  twice[0].signalSemaphoreCount = 1;
  twice[0].pSignalSemaphores = &s;
  twice[1].signalSemaphoreCount = 1;
  twice[1].pSignalSemaphores = &s;
  EXPECT_EQ(vkQueueSubmit(queue_, 2, twice, VK_NULL_HANDLE), VK_ERROR_UNKNOWN);
  VkSubmitInfo wait_never{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  wait_never.waitSemaphoreCount = 1;
  wait_never.pWaitSemaphores = &never;
  wait_never.pWaitDstStageMask = &stage;
  wait_never.commandBufferCount = 1;
  wait_never.pCommandBuffers = &fill;
  EXPECT_EQ(vkQueueSubmit(queue_, 1, &wait_never, VK_NULL_HANDLE), VK_ERROR_UNKNOWN);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "signals a semaphore already signalled; refused"), 1) << log;
  EXPECT_EQ(count(log, "waits for a semaphore nothing signals; refused"), 1) << log;
  ASSERT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(a[i], 0) << i;
}

}  // namespace
}  // namespace gsgpu::vk::test
