// Commands of features the device does not offer, each answering what the spec leaves it
// (docs/vulkan-driver.md "Resolve, sparse binding and lazy memory"):
// - vkQueueBindSparse: no sparse features and no SPARSE_BINDING queue: a bind is refused whole; a
//   call without binds still waits for and signals its semaphores and fence, as vkQueueSubmit of
//   empty batches does.
// - vkGetDeviceMemoryCommitment: no memory type is LAZILY_ALLOCATED; every allocation is committed
//   when it is made (a zero-filled BO), so the answer is its whole size.
#include <vector>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetDeviceMemoryCommitment(VkDevice, VkDeviceMemory memory, VkDeviceSize* committed) {
  const DeviceMemory* m = from_handle<DeviceMemory>(memory);
  *committed = m != nullptr ? m->size : 0;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkQueueBindSparse(VkQueue queue, uint32_t count, const VkBindSparseInfo* infos,
                                                       VkFence fence) {
  for (uint32_t i = 0; i < count; ++i) {
    if (infos[i].bufferBindCount != 0 || infos[i].imageOpaqueBindCount != 0 || infos[i].imageBindCount != 0) {
      log_refusal("vkQueueBindSparse", "bind info " + std::to_string(i) + " binds memory; the device has no sparse "
                                       "resources (no sparse feature, no SPARSE_BINDING queue)");
      return VK_ERROR_UNKNOWN;
    }
  }
  // Only semaphores and a fence: the same batches as vkQueueSubmit without command buffers (a
  // timeline's values in VkTimelineSemaphoreSubmitInfo, which both commands chain).
  std::vector<VkSubmitInfo> submits(count, VkSubmitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO});
  size_t waits = 0;
  for (uint32_t i = 0; i < count; ++i) waits += infos[i].waitSemaphoreCount;
  const std::vector<VkPipelineStageFlags> stages(waits, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  for (uint32_t i = 0; i < count; ++i) {
    submits[i].pNext = find_in_chain<VkTimelineSemaphoreSubmitInfo>(infos[i].pNext,
                                                                    VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
    submits[i].waitSemaphoreCount = infos[i].waitSemaphoreCount;
    submits[i].pWaitSemaphores = infos[i].pWaitSemaphores;
    submits[i].pWaitDstStageMask = stages.data();
    submits[i].signalSemaphoreCount = infos[i].signalSemaphoreCount;
    submits[i].pSignalSemaphores = infos[i].pSignalSemaphores;
  }
  return gsgpu_vkQueueSubmit(queue, count, submits.data(), fence);
}

}  // namespace gsgpu::vk
