// Recording dispatches (docs/vulkan-driver.md "Compute"): vkCmdDispatch, vkCmdDispatchBase (1.1)
// and vkCmdDispatchIndirect snapshot the bound compute pipeline and the compute bind point's constant
// buffer into a DispatchCommand that vkQueueSubmit runs (dispatch_execute.cc). A dispatch without a
// pipeline, with a set the program reads not bound with the pipeline layout's set layout, or with
// group counts past maxComputeWorkGroupCount is not recorded, with a log line.
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// The command buffer when it records and has a compute pipeline whose sets are bound; the
// dispatch's pipeline and constant buffer filled in. Null with a log line otherwise.
CommandBuffer* snapshot_dispatch(VkCommandBuffer handle, const char* command, DispatchCommand* d) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  std::string why;
  if (cb->state != CommandBuffer::State::kRecording) {
    why = "the command buffer is not recording";
  } else if (cb->compute_pipeline == nullptr) {
    why = "no compute pipeline bound";
  } else {
    const ComputePipeline& p = *cb->compute_pipeline;
    if (p.used_sets == 0 ||
        sets_ready_for_draw(cb->bindings, VK_PIPELINE_BIND_POINT_COMPUTE, *p.layout, p.used_sets, &why)) {
      d->pipeline = &p;
      d->constants = cb->bindings.constant_buffer(VK_PIPELINE_BIND_POINT_COMPUTE);
      return cb;
    }
  }
  log_refusal(command, why, "not recorded");
  return nullptr;
}

void record_direct(VkCommandBuffer handle, const char* command, std::array<uint32_t, 3> base,
                   std::array<uint32_t, 3> count) {
  DispatchCommand d;
  CommandBuffer* cb = snapshot_dispatch(handle, command, &d);
  if (cb == nullptr) return;
  for (int i = 0; i < 3; ++i) {
    // Vulkan: base + count <= maxComputeWorkGroupCount, per dimension (64-bit: no wrap).
    if (uint64_t{base[i]} + count[i] > kMaxComputeGroupCount) {
      log_refusal(command, "base + group count " + std::to_string(uint64_t{base[i]} + count[i]) + " in dimension " +
                               std::to_string(i) + ", over maxComputeWorkGroupCount (65535)",
                  "not recorded");
      return;
    }
  }
  if (count[0] == 0 || count[1] == 0 || count[2] == 0) return;  // dispatches nothing
  d.base = base;
  d.count = count;
  cb->commands.emplace_back(std::move(d));
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDispatch(VkCommandBuffer handle, uint32_t x, uint32_t y, uint32_t z) {
  record_direct(handle, "vkCmdDispatch", {0, 0, 0}, {x, y, z});
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDispatchBase(VkCommandBuffer handle, uint32_t base_x, uint32_t base_y,
                                                   uint32_t base_z, uint32_t x, uint32_t y, uint32_t z) {
  record_direct(handle, "vkCmdDispatchBase", {base_x, base_y, base_z}, {x, y, z});
}

// The counts are read when the queue reaches the command (an earlier command of the same
// submission may write them); the buffer range is checked then too, since memory can be freed or
// rebound between recording and submission.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDispatchIndirect(VkCommandBuffer handle, VkBuffer buffer, VkDeviceSize offset) {
  DispatchCommand d;
  CommandBuffer* cb = snapshot_dispatch(handle, "vkCmdDispatchIndirect", &d);
  if (cb == nullptr) return;
  d.indirect = from_handle<Buffer>(buffer);
  d.indirect_offset = offset;
  if (d.indirect == nullptr) return log_refusal("vkCmdDispatchIndirect", "no buffer", "not recorded");
  cb->commands.emplace_back(std::move(d));
}

}  // namespace gsgpu::vk
