// vkCmdBindDescriptorSets and vkCmdPushConstants: recorded into the command buffer's binding state
// (binding_model.h), which the next draw or dispatch turns into its constant buffer. A refused call
// (a log line) leaves the state as it was.
#include <vector>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBindDescriptorSets(VkCommandBuffer handle, VkPipelineBindPoint point,
                                                         VkPipelineLayout layout_handle, uint32_t first_set,
                                                         uint32_t set_count, const VkDescriptorSet* set_handles,
                                                         uint32_t dynamic_count, const uint32_t* dynamic_offsets) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const auto* layout = from_handle<PipelineLayoutObject>(layout_handle);
  std::string error;
  if (cb->state != CommandBuffer::State::kRecording) {
    error = "the command buffer is not recording";
  } else if (layout == nullptr) {
    error = "the pipeline layout is null";
  } else if (set_count > kMaxBoundSets) {
    error = std::to_string(set_count) + " sets, more than maxBoundDescriptorSets (4)";
  } else {
    std::vector<const DescriptorSetData*> sets;
    for (uint32_t i = 0; i < set_count; ++i) {
      const auto* set = from_handle<DescriptorSet>(set_handles[i]);
      sets.push_back(set == nullptr ? nullptr : &set->data);
    }
    std::span<const uint32_t> offsets(dynamic_offsets, dynamic_offsets == nullptr ? 0 : dynamic_count);
    if (bind_descriptor_sets(*layout->layout, point, first_set, sets, offsets, &cb->bindings, &error)) return;
  }
  log_refusal("vkCmdBindDescriptorSets", error, "not bound");
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdPushConstants(VkCommandBuffer handle, VkPipelineLayout layout_handle,
                                                    VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                                                    const void* data) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const auto* layout = from_handle<PipelineLayoutObject>(layout_handle);
  std::string error;
  if (cb->state != CommandBuffer::State::kRecording) {
    error = "the command buffer is not recording";
  } else if (layout == nullptr || data == nullptr) {
    error = "the pipeline layout or the data is null";
  } else if (push_constants(*layout->layout, stages, offset, size, data, &cb->bindings, &error)) {
    return;
  }
  log_refusal("vkCmdPushConstants", error, "not recorded");
}

}  // namespace gsgpu::vk
