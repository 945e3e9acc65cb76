// Timeline semaphores on gsgpu against lavapipe (mesa-vulkan-drivers), both in one instance: the
// same valid sequence (host signals and waits, timeouts, a wait-before-signal submission held until
// the host signals, batches that signal and wait within one submission, wait-any) gives the same
// observations on both drivers. Invalid usage is not compared (the spec leaves it undefined);
// timeline_test.cc checks gsgpu's refusals.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/vk_test_util.h"

namespace gsgpu::vk::test {
namespace {

// A device with VK_KHR_timeline_semaphore, its queue, a command pool and a 4 KiB host-visible buffer.
class TimelineSide {
 public:
  explicit TimelineSide(VkPhysicalDevice physical) {
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceTimelineSemaphoreFeatures features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    features.timelineSemaphore = VK_TRUE;
    const char* extension = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
    EXPECT_EQ(vkCreateDevice(physical, &info, nullptr, &device_), VK_SUCCESS);
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    EXPECT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), VK_SUCCESS);
    wait_ = reinterpret_cast<PFN_vkWaitSemaphoresKHR>(vkGetDeviceProcAddr(device_, "vkWaitSemaphoresKHR"));
    signal_ = reinterpret_cast<PFN_vkSignalSemaphoreKHR>(vkGetDeviceProcAddr(device_, "vkSignalSemaphoreKHR"));
    value_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValueKHR>(
        vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValueKHR"));
    make_buffer(physical);
  }
  ~TimelineSide() {
    vkDeviceWaitIdle(device_);
    for (VkSemaphore s : semaphores_) vkDestroySemaphore(device_, s, nullptr);
    for (VkFence f : fences_) vkDestroyFence(device_, f, nullptr);
    vkDestroyBuffer(device_, buffer_, nullptr);
    vkFreeMemory(device_, memory_, nullptr);
    vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  bool ready() const { return wait_ && signal_ && value_ && bytes_ != nullptr; }

  VkSemaphore timeline(uint64_t initial) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = initial;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore s = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSemaphore(device_, &info, nullptr, &s), VK_SUCCESS);
    semaphores_.push_back(s);
    return s;
  }
  VkFence fence() {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateFence(device_, &info, nullptr, &f), VK_SUCCESS);
    fences_.push_back(f);
    return f;
  }
  // A recorded command buffer filling the buffer with `word`.
  VkCommandBuffer fill(uint32_t word) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
    vkCmdFillBuffer(cb, buffer_, 0, VK_WHOLE_SIZE, word);
    EXPECT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
    return cb;
  }
  VkResult submit(VkCommandBuffer cb, VkSemaphore wait, uint64_t wait_value, VkSemaphore signal,
                  uint64_t signal_value, VkFence fence) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = 1;
    values.pWaitSemaphoreValues = &wait_value;
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &signal_value;
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &wait;
    info.pWaitDstStageMask = &stage;
    info.commandBufferCount = 1;
    info.pCommandBuffers = &cb;
    info.signalSemaphoreCount = 1;
    info.pSignalSemaphores = &signal;
    return vkQueueSubmit(queue_, 1, &info, fence);
  }
  int64_t value(VkSemaphore s) {
    uint64_t v = 0;
    return value_(device_, s, &v) == VK_SUCCESS ? int64_t(v) : -1;
  }
  VkResult wait(uint32_t count, const VkSemaphore* s, const uint64_t* values, bool any, uint64_t timeout_ns) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.flags = any ? VK_SEMAPHORE_WAIT_ANY_BIT : 0;
    info.semaphoreCount = count;
    info.pSemaphores = s;
    info.pValues = values;
    return wait_(device_, &info, timeout_ns);
  }
  VkResult signal(VkSemaphore s, uint64_t v) {
    VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    info.semaphore = s;
    info.value = v;
    return signal_(device_, &info);
  }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint8_t first_byte() const { return bytes_[0]; }

 private:
  void make_buffer(VkPhysicalDevice physical) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 4096;
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer_), VK_SUCCESS);
    VkMemoryRequirements reqs;
    vkGetBufferMemoryRequirements(device_, buffer_, &reqs);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = reqs.size;
    alloc.memoryTypeIndex = UINT32_MAX;
    for (uint32_t i = 0; i < props.memoryTypeCount && alloc.memoryTypeIndex == UINT32_MAX; ++i) {
      if ((reqs.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) {
        alloc.memoryTypeIndex = i;
      }
    }
    ASSERT_NE(alloc.memoryTypeIndex, UINT32_MAX);
    ASSERT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory_), VK_SUCCESS);
    ASSERT_EQ(vkBindBufferMemory(device_, buffer_, memory_, 0), VK_SUCCESS);
    void* map = nullptr;
    ASSERT_EQ(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
    bytes_ = static_cast<uint8_t*>(map);
    std::memset(bytes_, 0, 4096);
  }

  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint8_t* bytes_ = nullptr;
  PFN_vkWaitSemaphoresKHR wait_ = nullptr;
  PFN_vkSignalSemaphoreKHR signal_ = nullptr;
  PFN_vkGetSemaphoreCounterValueKHR value_ = nullptr;
  std::vector<VkSemaphore> semaphores_;
  std::vector<VkFence> fences_;
};

// The observations of one valid sequence, in order (results as integers, values, bytes).
std::vector<int64_t> observe(TimelineSide& side) {
  std::vector<int64_t> seen;
  VkSemaphore t = side.timeline(2);
  const uint64_t two = 2, three = 3, four = 4;
  seen.push_back(side.value(t));
  seen.push_back(side.wait(1, &t, &three, false, 0));
  seen.push_back(side.wait(1, &t, &two, false, 0));
  // Wait-before-signal: the fill waits for 3, which only the host signals later.
  VkFence fence = side.fence();
  seen.push_back(side.submit(side.fill(0x11111111u), t, 3, t, 4, fence));
  seen.push_back(side.value(t));
  seen.push_back(vkGetFenceStatus(side.device(), fence));
  seen.push_back(side.wait(1, &t, &four, false, 10'000'000));
  seen.push_back(side.first_byte());
  seen.push_back(side.signal(t, 3));
  seen.push_back(side.wait(1, &t, &four, false, UINT64_MAX));
  seen.push_back(vkWaitForFences(side.device(), 1, &fence, VK_TRUE, UINT64_MAX));
  seen.push_back(side.value(t));
  seen.push_back(side.first_byte());
  // Two submissions: the second waits for the first one's signal.
  seen.push_back(side.submit(side.fill(0x22222222u), t, 4, t, 5, VK_NULL_HANDLE));
  seen.push_back(side.submit(side.fill(0x33333333u), t, 5, t, 6, VK_NULL_HANDLE));
  seen.push_back(vkQueueWaitIdle(side.queue()));
  seen.push_back(side.value(t));
  seen.push_back(side.first_byte());
  // Wait-any across a reached and an unreached timeline; wait-all times out.
  VkSemaphore u = side.timeline(0);
  const VkSemaphore both[] = {t, u};
  const uint64_t values[] = {6, 1};
  seen.push_back(side.wait(2, both, values, true, 0));
  seen.push_back(side.wait(2, both, values, false, 1'000'000));
  seen.push_back(side.signal(u, 1));
  seen.push_back(side.wait(2, both, values, false, 0));
  return seen;
}

TEST(VkTimelineReference, TheSameSequenceGivesTheSameObservationsAsLavapipe) {
  VkInstance instance = VK_NULL_HANDLE;
  TestDevices found;
  ASSERT_TRUE(create_reference_instance(VK_API_VERSION_1_0, &instance, &found));
  const VkPhysicalDevice gsgpu = found.gsgpu[0], lavapipe = found.lavapipe;
  std::vector<int64_t> on_gsgpu, on_lavapipe;
  {
    TimelineSide side(gsgpu);
    ASSERT_TRUE(side.ready());
    on_gsgpu = observe(side);
  }
  {
    TimelineSide side(lavapipe);
    ASSERT_TRUE(side.ready());
    on_lavapipe = observe(side);
  }
  EXPECT_EQ(on_gsgpu, on_lavapipe);
  const std::vector<int64_t> expected = {2, VK_TIMEOUT, VK_SUCCESS, VK_SUCCESS, 2, VK_NOT_READY, VK_TIMEOUT, 0,
                                         VK_SUCCESS, VK_SUCCESS, VK_SUCCESS, 4, 0x11, VK_SUCCESS, VK_SUCCESS,
                                         VK_SUCCESS, 6, 0x33, VK_SUCCESS, VK_TIMEOUT, VK_SUCCESS, VK_SUCCESS};
  EXPECT_EQ(on_gsgpu, expected);
  vkDestroyInstance(instance, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
