// Events on gsgpu against lavapipe (texture_fixture.h BothDrivers): one valid
// sequence of host and device sets, resets and waits gives the same
// observations on both drivers, equal to the expected list. The wait that the
// host releases later holds the queue without blocking the submitting thread;
// fills and copies after a vkCmdWaitEvents run only once the event is set, in
// order.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkEventReference : public BothDrivers {};

// Records into the side's command buffer and submits with `fence` (no wait).
template <typename Record>
void submit(DrawSide &side, VkFence fence, Record record) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(side.cb(), &begin), VK_SUCCESS);
  record(side.cb());
  ASSERT_EQ(vkEndCommandBuffer(side.cb()), VK_SUCCESS);
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(side.device(), 0, 0, &queue);
  VkCommandBuffer cb = side.cb();
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.commandBufferCount = 1;
  info.pCommandBuffers = &cb;
  ASSERT_EQ(vkQueueSubmit(queue, 1, &info, fence), VK_SUCCESS);
}

const char *status(VkResult r) {
  return r == VK_EVENT_SET ? "set" : r == VK_EVENT_RESET ? "reset" : "error";
}

// The sequence; each observation is a short string.
std::vector<std::string> run_sequence(DrawSide &side) {
  VkDevice d = side.device();
  std::vector<std::string> seen;
  VkEventCreateInfo event_info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkEvent e = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateEvent(d, &event_info, nullptr, &e), VK_SUCCESS);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateFence(d, &fence_info, nullptr, &fence), VK_SUCCESS);
  uint8_t *bytes = nullptr;
  VkBuffer buffer = side.buffer(
      256, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
      &bytes);
  std::memset(bytes, 0, 256);
  auto word = [&](size_t i) {
    uint32_t w = 0;
    std::memcpy(&w, bytes + 4 * i, 4);
    return std::to_string(w);
  };
  // Host set and reset.
  seen.push_back(std::string("created ") + status(vkGetEventStatus(d, e)));
  vkSetEvent(d, e);
  seen.push_back(std::string("host set ") + status(vkGetEventStatus(d, e)));
  vkResetEvent(d, e);
  seen.push_back(std::string("host reset ") + status(vkGetEventStatus(d, e)));
  // The device sets it; the host sees it. The device resets it after a fill.
  submit(side, fence, [&](VkCommandBuffer cb) {
    vkCmdSetEvent(cb, e, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  });
  vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX);
  seen.push_back(std::string("device set ") + status(vkGetEventStatus(d, e)));
  vkResetFences(d, 1, &fence);
  submit(side, fence, [&](VkCommandBuffer cb) {
    vkCmdFillBuffer(cb, buffer, 0, 4, 7);
    vkCmdResetEvent(cb, e, VK_PIPELINE_STAGE_TRANSFER_BIT);
  });
  vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX);
  seen.push_back(std::string("device reset ") + status(vkGetEventStatus(d, e)) +
                 " after fill " + word(0));
  vkResetFences(d, 1, &fence);
  // A wait the host releases later: nothing after it runs until then, the
  // submitting thread goes on.
  submit(side, fence, [&](VkCommandBuffer cb) {
    vkCmdFillBuffer(cb, buffer, 4, 4, 1);
    vkCmdWaitEvents(cb, 1, &e, VK_PIPELINE_STAGE_HOST_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, 0, nullptr, 0,
                    nullptr);
    vkCmdFillBuffer(cb, buffer, 8, 4, 2);
    vkCmdCopyBuffer(cb, buffer, buffer, 1,
                    std::array<VkBufferCopy, 1>{{{4, 12, 8}}}.data());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  seen.push_back(
      std::string("held: fence ") +
      (vkGetFenceStatus(d, fence) == VK_SUCCESS ? "signalled" : "not ready") +
      ", words " + word(2) + " " + word(3));
  vkSetEvent(d, e);
  EXPECT_EQ(vkWaitForFences(d, 1, &fence, VK_TRUE, 5'000'000'000ull),
            VK_SUCCESS);
  seen.push_back("released: words " + word(1) + " " + word(2) + " " + word(3) +
                 " " + word(4));
  vkResetFences(d, 1, &fence);
  // Set and waited within one command buffer: in order, no host help.
  vkResetEvent(d, e);
  submit(side, fence, [&](VkCommandBuffer cb) {
    vkCmdFillBuffer(cb, buffer, 20, 4, 9);
    vkCmdSetEvent(cb, e, VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdWaitEvents(cb, 1, &e, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0, nullptr, 0, nullptr, 0,
                    nullptr);
    vkCmdCopyBuffer(cb, buffer, buffer, 1,
                    std::array<VkBufferCopy, 1>{{{20, 24, 4}}}.data());
  });
  EXPECT_EQ(vkWaitForFences(d, 1, &fence, VK_TRUE, 5'000'000'000ull),
            VK_SUCCESS);
  seen.push_back("in order: " + word(6) + " " +
                 std::string(status(vkGetEventStatus(d, e))));
  vkDestroyFence(d, fence, nullptr);
  vkDestroyEvent(d, e, nullptr);
  return seen;
}

TEST_F(VkEventReference, TheSameSequenceGivesTheSameObservationsAsLavapipe) {
  const std::vector<std::string> expected = {
      "created reset",
      "host set set",
      "host reset reset",
      "device set set",
      "device reset reset after fill 7",
      "held: fence not ready, words 0 0",
      "released: words 1 2 1 2",
      "in order: 9 set",
  };
  EXPECT_EQ(run_sequence(*gsgpu_), expected);
  EXPECT_EQ(run_sequence(*lavapipe_), expected);
}

} // namespace
} // namespace gsgpu::vk::test
