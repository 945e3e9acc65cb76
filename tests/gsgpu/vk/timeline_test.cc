// Timeline semaphores (VK_KHR_timeline_semaphore) through the loader: the extension, feature and
// property; host signals and waits (timeouts, another thread's signal); submissions that signal
// and wait; a submission that waits for a value nothing has signalled yet (wait-before-signal)
// holding back itself and the submissions after it until the host signals; misuse refused with an
// error and a log line, never a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

using Clock = std::chrono::steady_clock;

class VkTimeline : public VkTransfer {
 protected:
  VkTimeline() { api_version_ = VK_API_VERSION_1_1; }  // for vkGetPhysicalDevice*2
  void SetUp() override {
    device_extensions_ = {VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME};
    features_.timelineSemaphore = VK_TRUE;
    device_features_ = &features_;
    VkTransfer::SetUp();
    if (HasFatalFailure()) return;
    wait_ = reinterpret_cast<PFN_vkWaitSemaphoresKHR>(vkGetDeviceProcAddr(device_, "vkWaitSemaphoresKHR"));
    signal_ = reinterpret_cast<PFN_vkSignalSemaphoreKHR>(vkGetDeviceProcAddr(device_, "vkSignalSemaphoreKHR"));
    value_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValueKHR>(
        vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValueKHR"));
    ASSERT_TRUE(wait_ && signal_ && value_);
  }
  void TearDown() override {
    if (device_) vkDeviceWaitIdle(device_);
    for (VkSemaphore s : semaphores_) vkDestroySemaphore(device_, s, nullptr);
    for (VkFence f : fences_) vkDestroyFence(device_, f, nullptr);
    VkTransfer::TearDown();
  }

  VkSemaphore make_timeline(uint64_t initial) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = initial;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateSemaphore(device_, &info, nullptr, &semaphore), VK_SUCCESS);
    semaphores_.push_back(semaphore);
    return semaphore;
  }
  VkFence make_fence() {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateFence(device_, &info, nullptr, &fence), VK_SUCCESS);
    fences_.push_back(fence);
    return fence;
  }
  // A command buffer of its own holding one fill of `buffer` with `word`.
  VkCommandBuffer fill_command(VkBuffer buffer, uint32_t word) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
    vkCmdFillBuffer(cb, buffer, 0, VK_WHOLE_SIZE, word);
    EXPECT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
    return cb;
  }
  // Submits `cb` (may be null) waiting for `wait` >= wait_value and signalling `signal` = signal_value
  // (either semaphore may be null).
  VkResult submit(VkCommandBuffer cb, VkSemaphore wait, uint64_t wait_value, VkSemaphore signal,
                  uint64_t signal_value, VkFence fence = VK_NULL_HANDLE) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = wait ? 1 : 0;
    values.pWaitSemaphoreValues = &wait_value;
    values.signalSemaphoreValueCount = signal ? 1 : 0;
    values.pSignalSemaphoreValues = &signal_value;
    VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
    info.waitSemaphoreCount = wait ? 1 : 0;
    info.pWaitSemaphores = &wait;
    info.pWaitDstStageMask = &stage;
    info.commandBufferCount = cb ? 1 : 0;
    info.pCommandBuffers = &cb;
    info.signalSemaphoreCount = signal ? 1 : 0;
    info.pSignalSemaphores = &signal;
    return vkQueueSubmit(queue_, 1, &info, fence);
  }
  uint64_t value(VkSemaphore s) {
    uint64_t v = ~uint64_t{0};
    EXPECT_EQ(value_(device_, s, &v), VK_SUCCESS);
    return v;
  }
  VkResult wait(VkSemaphore s, uint64_t v, uint64_t timeout_ns) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &s;
    info.pValues = &v;
    return wait_(device_, &info, timeout_ns);
  }
  VkResult signal(VkSemaphore s, uint64_t v) {
    VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    info.semaphore = s;
    info.value = v;
    return signal_(device_, &info);
  }
  static bool all_bytes(const uint8_t* bytes, size_t size, uint8_t expected) {
    for (size_t i = 0; i < size; ++i) {
      if (bytes[i] != expected) return false;
    }
    return true;
  }

  VkPhysicalDeviceTimelineSemaphoreFeatures features_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  PFN_vkWaitSemaphoresKHR wait_ = nullptr;
  PFN_vkSignalSemaphoreKHR signal_ = nullptr;
  PFN_vkGetSemaphoreCounterValueKHR value_ = nullptr;
  std::vector<VkSemaphore> semaphores_;
  std::vector<VkFence> fences_;
};

TEST_F(VkTimeline, ExtensionFeatureAndPropertyAreReported) {
  uint32_t count = 0;
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count, nullptr), VK_SUCCESS);
  std::vector<VkExtensionProperties> extensions(count);
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count, extensions.data()), VK_SUCCESS);
  bool listed = false;
  for (const VkExtensionProperties& e : extensions) listed |= std::strcmp(e.extensionName, "VK_KHR_timeline_semaphore") == 0;
  EXPECT_TRUE(listed);
  // A short array: VK_INCOMPLETE with what fits.
  uint32_t one = 1;
  VkExtensionProperties first{};
  EXPECT_EQ(vkEnumerateDeviceExtensionProperties(physical_, nullptr, &one, &first), VK_INCOMPLETE);
  EXPECT_EQ(one, 1u);

  VkPhysicalDeviceTimelineSemaphoreFeatures features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &features};
  vkGetPhysicalDeviceFeatures2(physical_, &features2);
  EXPECT_EQ(features.timelineSemaphore, VK_TRUE);
  VkPhysicalDeviceTimelineSemaphoreProperties properties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES};
  VkPhysicalDeviceProperties2 properties2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &properties};
  vkGetPhysicalDeviceProperties2(physical_, &properties2);
  EXPECT_EQ(properties.maxTimelineSemaphoreValueDifference, UINT64_MAX);
  // The core names answer too.
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkWaitSemaphores"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkSignalSemaphore"), nullptr);
  EXPECT_NE(vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValue"), nullptr);
}

TEST_F(VkTimeline, HostSignalsAndWaitsWithTimeouts) {
  VkSemaphore t = make_timeline(5);
  EXPECT_EQ(value(t), 5u);
  EXPECT_EQ(wait(t, 5, 0), VK_SUCCESS);
  EXPECT_EQ(wait(t, 6, 0), VK_TIMEOUT);
  const auto start = Clock::now();
  EXPECT_EQ(wait(t, 6, 20'000'000), VK_TIMEOUT);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_EQ(signal(t, 7), VK_SUCCESS);
  EXPECT_EQ(value(t), 7u);
  EXPECT_EQ(wait(t, 6, 0), VK_SUCCESS);
  EXPECT_EQ(wait(t, 7, UINT64_MAX), VK_SUCCESS);

  // Another thread's signal ends an endless wait.
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_EQ(signal(t, 10), VK_SUCCESS);
  });
  const auto before = Clock::now();
  EXPECT_EQ(wait(t, 10, UINT64_MAX), VK_SUCCESS);
  EXPECT_GE(Clock::now() - before, std::chrono::milliseconds(25));
  signaller.join();
  EXPECT_EQ(value(t), 10u);
}

TEST_F(VkTimeline, WaitAllAndWaitAny) {
  VkSemaphore a = make_timeline(1);
  VkSemaphore b = make_timeline(0);
  VkSemaphore both[] = {a, b};
  uint64_t values[] = {1, 1};
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 2;
  info.pSemaphores = both;
  info.pValues = values;
  EXPECT_EQ(wait_(device_, &info, 1'000'000), VK_TIMEOUT);
  info.flags = VK_SEMAPHORE_WAIT_ANY_BIT;
  EXPECT_EQ(wait_(device_, &info, 0), VK_SUCCESS);
  info.flags = 0;
  EXPECT_EQ(signal(b, 1), VK_SUCCESS);
  EXPECT_EQ(wait_(device_, &info, 0), VK_SUCCESS);
}

TEST_F(VkTimeline, SubmissionSignalsAndALaterSubmissionWaits) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer src = make_buffer(4096, &a);
  VkBuffer dst = make_buffer(4096, &b);
  VkSemaphore t = make_timeline(0);
  ASSERT_EQ(submit(fill_command(src, 0x5a5a5a5au), nullptr, 0, t, 3), VK_SUCCESS);
  EXPECT_EQ(wait(t, 3, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(value(t), 3u);
  EXPECT_TRUE(all_bytes(a, 4096, 0x5a));

  begin();
  VkBufferCopy region{0, 0, 4096};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
  ASSERT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
  VkFence fence = make_fence();
  ASSERT_EQ(submit(cb_, t, 3, t, 4, fence), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(wait(t, 4, UINT64_MAX), VK_SUCCESS);
  EXPECT_TRUE(all_bytes(b, 4096, 0x5a));
}

// A submission waiting for a value nothing has signalled stays queued with the submissions after
// it (its fence not ready, its work not done); the host signal runs them, in order.
TEST_F(VkTimeline, WaitBeforeSignalHoldsTheQueueUntilTheHostSignals) {
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  VkBuffer first = make_buffer(4096, &a);
  VkBuffer second = make_buffer(4096, &b);
  VkSemaphore gate = make_timeline(0);
  VkSemaphore done = make_timeline(0);
  VkFence held = make_fence();
  VkFence behind = make_fence();
  ASSERT_EQ(submit(fill_command(first, 0x11111111u), gate, 1, done, 1, held), VK_SUCCESS);
  ASSERT_EQ(submit(fill_command(second, 0x22222222u), nullptr, 0, done, 2, behind), VK_SUCCESS);
  EXPECT_EQ(vkGetFenceStatus(device_, held), VK_NOT_READY);
  EXPECT_EQ(vkGetFenceStatus(device_, behind), VK_NOT_READY);
  EXPECT_EQ(vkWaitForFences(device_, 1, &behind, VK_TRUE, 5'000'000), VK_TIMEOUT);
  EXPECT_EQ(wait(done, 1, 5'000'000), VK_TIMEOUT);
  EXPECT_EQ(value(done), 0u);
  EXPECT_TRUE(all_bytes(a, 4096, 0));
  EXPECT_TRUE(all_bytes(b, 4096, 0));
  // A host signal may not pass a signal still queued: done's 1 is.
  testing::internal::CaptureStderr();
  EXPECT_EQ(signal(done, 5), VK_ERROR_UNKNOWN);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("not below a pending signal"), std::string::npos);

  // A waiter in another thread is woken by the signal that releases the queue.
  std::thread waiter([&] { EXPECT_EQ(vkWaitForFences(device_, 1, &behind, VK_TRUE, UINT64_MAX), VK_SUCCESS); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(signal(gate, 1), VK_SUCCESS);
  waiter.join();
  EXPECT_EQ(wait(done, 2, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device_, 1, &held, VK_TRUE, UINT64_MAX), VK_SUCCESS);
  EXPECT_TRUE(all_bytes(a, 4096, 0x11));
  EXPECT_TRUE(all_bytes(b, 4096, 0x22));
  EXPECT_EQ(value(done), 2u);
  EXPECT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
}

// Within one submission a batch may wait for a value an earlier batch signals: it runs at once.
TEST_F(VkTimeline, ABatchWaitsForAnEarlierBatchOfTheSameSubmission) {
  VkSemaphore t = make_timeline(0);
  uint64_t one = 1;
  uint64_t two = 2;
  VkTimelineSemaphoreSubmitInfo v1{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  v1.signalSemaphoreValueCount = 1;
  v1.pSignalSemaphoreValues = &one;
  VkTimelineSemaphoreSubmitInfo v2{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  v2.waitSemaphoreValueCount = 1;
  v2.pWaitSemaphoreValues = &one;
  v2.signalSemaphoreValueCount = 1;
  v2.pSignalSemaphoreValues = &two;
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo batches[2] = {{VK_STRUCTURE_TYPE_SUBMIT_INFO, &v1}, {VK_STRUCTURE_TYPE_SUBMIT_INFO, &v2}};
  batches[0].signalSemaphoreCount = 1;
  batches[0].pSignalSemaphores = &t;
  batches[1].waitSemaphoreCount = 1;
  batches[1].pWaitSemaphores = &t;
  batches[1].pWaitDstStageMask = &stage;
  batches[1].signalSemaphoreCount = 1;
  batches[1].pSignalSemaphores = &t;
  VkFence fence = make_fence();
  ASSERT_EQ(vkQueueSubmit(queue_, 2, batches, fence), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);
  EXPECT_EQ(value(t), 2u);
}

TEST_F(VkTimeline, BadValuesAndMisuseAreErrorsNotHangs) {
  uint8_t* a = nullptr;
  VkBuffer buffer = make_buffer(4096, &a);
  VkSemaphore t = make_timeline(4);
  testing::internal::CaptureStderr();
  EXPECT_EQ(signal(t, 4), VK_ERROR_UNKNOWN);  // not above the current value
  EXPECT_EQ(signal(t, 3), VK_ERROR_UNKNOWN);
  EXPECT_EQ(submit(fill_command(buffer, 1), nullptr, 0, t, 4), VK_ERROR_UNKNOWN);  // signal not above 4
  // A timeline semaphore without its value in VkTimelineSemaphoreSubmitInfo.
  VkSubmitInfo bare{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  bare.signalSemaphoreCount = 1;
  bare.pSignalSemaphores = &t;
  EXPECT_EQ(vkQueueSubmit(queue_, 1, &bare, VK_NULL_HANDLE), VK_ERROR_UNKNOWN);
  // Timeline commands on a binary semaphore.
  VkSemaphoreCreateInfo binary_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore binary = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(device_, &binary_info, nullptr, &binary), VK_SUCCESS);
  semaphores_.push_back(binary);
  uint64_t v = 0;
  EXPECT_EQ(value_(device_, binary, &v), VK_ERROR_UNKNOWN);
  EXPECT_EQ(signal(binary, 1), VK_ERROR_UNKNOWN);
  EXPECT_EQ(wait(binary, 1, UINT64_MAX), VK_ERROR_UNKNOWN);
  // A binary semaphore with an initial value.
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_BINARY;
  type.initialValue = 1;
  VkSemaphoreCreateInfo with_value{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore refused = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSemaphore(device_, &with_value, nullptr, &refused), VK_ERROR_UNKNOWN);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("vkSignalSemaphore: value 4 not above the current 4"), std::string::npos) << log;
  EXPECT_NE(log.find("timeline signal value 4 not above the semaphore's 4"), std::string::npos) << log;
  EXPECT_NE(log.find("without its value in VkTimelineSemaphoreSubmitInfo"), std::string::npos) << log;
  EXPECT_NE(log.find("vkWaitSemaphores: not a timeline semaphore"), std::string::npos) << log;
  EXPECT_NE(log.find("a binary semaphore with initial value 1"), std::string::npos) << log;
  // Nothing ran, the value stands, and the queue is idle.
  EXPECT_EQ(value(t), 4u);
  EXPECT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  EXPECT_TRUE(all_bytes(a, 4096, 0));
}

}  // namespace
}  // namespace gsgpu::vk::test
