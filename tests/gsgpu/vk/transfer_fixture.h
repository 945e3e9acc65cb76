// The fixture of the transfer and synchronisation tests: a command pool with one command buffer,
// buffers bound to memory of their own and mapped, and a submission that waits for its fence.
#pragma once

#include <cstring>
#include <vector>

#include "tests/gsgpu/vk/vk_test_util.h"

namespace gsgpu::vk::test {

class VkTransfer : public VkFixture {
 protected:
  void SetUp() override {
    VkFixture::SetUp();
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    ASSERT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    ASSERT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb_), VK_SUCCESS);
  }
  void TearDown() override {
    for (VkBuffer b : buffers_) vkDestroyBuffer(device_, b, nullptr);
    for (VkDeviceMemory m : memories_) vkFreeMemory(device_, m, nullptr);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    VkFixture::TearDown();
  }

  // A buffer of `size` bytes bound to memory of its own, mapped at *bytes.
  VkBuffer make_buffer(VkDeviceSize size, uint8_t** bytes) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
    buffers_.push_back(buffer);
    VkMemoryRequirements reqs;
    vkGetBufferMemoryRequirements(device_, buffer, &reqs);
    EXPECT_EQ(reqs.memoryTypeBits, 1u);
    EXPECT_GE(reqs.size, size);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = reqs.size;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    memories_.push_back(memory);
    EXPECT_EQ(vkBindBufferMemory(device_, buffer, memory, 0), VK_SUCCESS);
    void* map = nullptr;
    EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    *bytes = static_cast<uint8_t*>(map);
    return buffer;
  }

  void begin() {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ASSERT_EQ(vkBeginCommandBuffer(cb_, &begin), VK_SUCCESS);
  }
  // Ends the command buffer, submits it with a fence and waits for the fence.
  void submit_and_wait() {
    ASSERT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateFence(device_, &fence_info, nullptr, &fence), VK_SUCCESS);
    EXPECT_EQ(vkGetFenceStatus(device_, fence), VK_NOT_READY);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    ASSERT_EQ(vkQueueSubmit(queue_, 1, &submit, fence), VK_SUCCESS);
    EXPECT_EQ(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);
    EXPECT_EQ(vkGetFenceStatus(device_, fence), VK_SUCCESS);
    EXPECT_EQ(vkResetFences(device_, 1, &fence), VK_SUCCESS);
    EXPECT_EQ(vkGetFenceStatus(device_, fence), VK_NOT_READY);
    vkDestroyFence(device_, fence, nullptr);
  }

  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  std::vector<VkBuffer> buffers_;
  std::vector<VkDeviceMemory> memories_;
};

}  // namespace gsgpu::vk::test
