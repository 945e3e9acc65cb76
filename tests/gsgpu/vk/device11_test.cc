// The Vulkan 1.1 device commands the driver answers with today's objects, reached through the
// loader from an instance created for 1.1: vkGetDeviceQueue2, vkBindBufferMemory2 (a bad binding
// refused), vkGetBufferMemoryRequirements2 with VkMemoryDedicatedRequirements, vkTrimCommandPool,
// the one-device group answers, and the external-handle queries (none offered).
#include <gtest/gtest.h>

#include <cstring>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkDevice11 : public VkTransfer {
 protected:
  VkDevice11() { api_version_ = VK_API_VERSION_1_1; }
  template <typename T>
  T device_proc(const char* name) {
    auto proc = reinterpret_cast<T>(vkGetDeviceProcAddr(device_, name));
    EXPECT_NE(proc, nullptr) << name;
    return proc;
  }
  VkBuffer unbound_buffer(VkDeviceSize size) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
    buffers_.push_back(buffer);
    return buffer;
  }
  VkDeviceMemory allocate(VkDeviceSize size) {
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = size;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    memories_.push_back(memory);
    return memory;
  }
};

TEST_F(VkDevice11, GetDeviceQueue2ReturnsTheQueueAndNoProtectedQueue) {
  auto get_queue2 = device_proc<PFN_vkGetDeviceQueue2>("vkGetDeviceQueue2");
  ASSERT_NE(get_queue2, nullptr);
  VkDeviceQueueInfo2 info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2};
  VkQueue queue = VK_NULL_HANDLE;
  get_queue2(device_, &info, &queue);
  EXPECT_EQ(queue, queue_);
  info.flags = VK_DEVICE_QUEUE_CREATE_PROTECTED_BIT;
  get_queue2(device_, &info, &queue);
  EXPECT_EQ(queue, VK_NULL_HANDLE);
}

// Two buffers bound by one call at offsets 0 and 4096 of one allocation, then used by a copy; a
// binding past the memory's end is refused.
TEST_F(VkDevice11, BindBufferMemory2BindsEachBufferAndRefusesOnePastTheEnd) {
  auto bind2 = device_proc<PFN_vkBindBufferMemory2>("vkBindBufferMemory2");
  auto reqs2 = device_proc<PFN_vkGetBufferMemoryRequirements2>("vkGetBufferMemoryRequirements2");
  ASSERT_NE(bind2, nullptr);
  ASSERT_NE(reqs2, nullptr);
  VkBuffer src = unbound_buffer(4096);
  VkBuffer dst = unbound_buffer(4096);
  VkMemoryRequirements reqs;
  vkGetBufferMemoryRequirements(device_, src, &reqs);
  VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  dedicated.prefersDedicatedAllocation = dedicated.requiresDedicatedAllocation = VK_TRUE;
  VkBufferMemoryRequirementsInfo2 info{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  info.buffer = src;
  VkMemoryRequirements2 reqs_2{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated};
  reqs2(device_, &info, &reqs_2);
  EXPECT_EQ(reqs_2.memoryRequirements.size, reqs.size);  // field by field: the struct has padding
  EXPECT_EQ(reqs_2.memoryRequirements.alignment, reqs.alignment);
  EXPECT_EQ(reqs_2.memoryRequirements.memoryTypeBits, reqs.memoryTypeBits);
  EXPECT_FALSE(dedicated.prefersDedicatedAllocation);
  EXPECT_FALSE(dedicated.requiresDedicatedAllocation);

  VkDeviceMemory memory = allocate(2 * reqs.size);
  VkBindBufferMemoryInfo binds[2] = {{VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, nullptr, src, memory, 0},
                                     {VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, nullptr, dst, memory, reqs.size}};
  ASSERT_EQ(bind2(device_, 2, binds), VK_SUCCESS);
  void* map = nullptr;
  ASSERT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
  auto* bytes = static_cast<uint8_t*>(map);
  std::memset(bytes, 0x42, 4096);
  begin();
  VkBufferCopy region{0, 0, 4096};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  submit_and_wait();
  for (VkDeviceSize i = 0; i < 4096; ++i) ASSERT_EQ(bytes[reqs.size + i], 0x42) << i;

  VkBuffer late = unbound_buffer(4096);
  VkBindBufferMemoryInfo past{VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, nullptr, late, memory, 2 * reqs.size};
  EXPECT_EQ(bind2(device_, 1, &past), VK_ERROR_OUT_OF_DEVICE_MEMORY);
}

TEST_F(VkDevice11, TrimPoolDeviceGroupAndExternalQueriesAnswerForOneDevice) {
  auto trim = device_proc<PFN_vkTrimCommandPool>("vkTrimCommandPool");
  auto peer = device_proc<PFN_vkGetDeviceGroupPeerMemoryFeatures>("vkGetDeviceGroupPeerMemoryFeatures");
  ASSERT_NE(trim, nullptr);
  ASSERT_NE(peer, nullptr);
  trim(device_, pool_, 0);  // the pool's command buffer stays usable
  uint8_t* a = nullptr;
  VkBuffer buffer = make_buffer(4096, &a);
  begin();
  vkCmdFillBuffer(cb_, buffer, 0, VK_WHOLE_SIZE, 0x07070707u);
  submit_and_wait();
  EXPECT_EQ(a[4095], 0x07);

  VkPeerMemoryFeatureFlags features = 0;
  peer(device_, 0, 0, 0, &features);
  EXPECT_NE(features & VK_PEER_MEMORY_FEATURE_GENERIC_DST_BIT, 0u);
  uint32_t groups = 0;
  ASSERT_EQ(vkEnumeratePhysicalDeviceGroups(instance_, &groups, nullptr), VK_SUCCESS);
  EXPECT_EQ(groups, 1u);  // the loader's answer for a driver without the command: one group of one

  VkPhysicalDeviceExternalBufferInfo buffer_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffer_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties buffer_props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  std::memset(&buffer_props.externalMemoryProperties, 0xff, sizeof buffer_props.externalMemoryProperties);
  vkGetPhysicalDeviceExternalBufferProperties(physical_, &buffer_info, &buffer_props);
  EXPECT_EQ(buffer_props.externalMemoryProperties.externalMemoryFeatures, 0u);
  EXPECT_EQ(buffer_props.externalMemoryProperties.compatibleHandleTypes, 0u);
  VkPhysicalDeviceExternalSemaphoreInfo semaphore_info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
  semaphore_info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties semaphore_props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  semaphore_props.externalSemaphoreFeatures = 0xff;
  vkGetPhysicalDeviceExternalSemaphoreProperties(physical_, &semaphore_info, &semaphore_props);
  EXPECT_EQ(semaphore_props.externalSemaphoreFeatures, 0u);
}

}  // namespace
}  // namespace gsgpu::vk::test
