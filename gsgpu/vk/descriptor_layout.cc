// vkCreate/DestroyDescriptorSetLayout and vkCreate/DestroyPipelineLayout over binding_model.h.
// Invalid usage in a create info (a repeated binding, a push-constant range past 128 bytes, …) is
// refused with a log line and VK_ERROR_UNKNOWN; a layout of more descriptors than the driver keeps
// records for is VK_ERROR_OUT_OF_HOST_MEMORY.
#include <new>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateDescriptorSetLayout(VkDevice, const VkDescriptorSetLayoutCreateInfo* info,
                                                                 const VkAllocationCallbacks*,
                                                                 VkDescriptorSetLayout* out) {
  uint64_t descriptors = 0;
  for (uint32_t i = 0; i < info->bindingCount && descriptors <= kMaxDescriptorsPerLayout; ++i) {
    descriptors += info->pBindings[i].descriptorCount;
  }
  if (descriptors > kMaxDescriptorsPerLayout || info->bindingCount > kMaxDescriptorsPerLayout) {
    log_refusal("vkCreateDescriptorSetLayout", "more than the driver's " + std::to_string(kMaxDescriptorsPerLayout) +
                                                   " descriptors (or bindings) in one layout");
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  auto layout = std::make_shared<SetLayout>();
  std::string error;
  if (!build_set_layout(*info, layout.get(), &error, sampler_resolver())) {
    log_refusal("vkCreateDescriptorSetLayout", error);
    return VK_ERROR_UNKNOWN;
  }
  auto* object = new (std::nothrow) DescriptorSetLayoutObject{std::move(layout)};
  if (object == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  *out = to_handle<VkDescriptorSetLayout>(object);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyDescriptorSetLayout(VkDevice, VkDescriptorSetLayout handle,
                                                              const VkAllocationCallbacks*) {
  delete from_handle<DescriptorSetLayoutObject>(handle);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreatePipelineLayout(VkDevice, const VkPipelineLayoutCreateInfo* info,
                                                            const VkAllocationCallbacks*, VkPipelineLayout* out) {
  if (info->setLayoutCount > kMaxBoundSets) {
    log_refusal("vkCreatePipelineLayout", std::to_string(info->setLayoutCount) +
                                              " set layouts, more than maxBoundDescriptorSets (4)");
    return VK_ERROR_UNKNOWN;
  }
  std::vector<std::shared_ptr<const SetLayout>> sets;
  for (uint32_t i = 0; i < info->setLayoutCount; ++i) {
    const auto* set = from_handle<DescriptorSetLayoutObject>(info->pSetLayouts[i]);
    if (set == nullptr) {
      log_refusal("vkCreatePipelineLayout", "set layout " + std::to_string(i) + " is null");
      return VK_ERROR_UNKNOWN;
    }
    sets.push_back(set->layout);
  }
  auto layout = std::make_shared<PipelineLayout>();
  std::string error;
  std::span<const VkPushConstantRange> ranges(info->pPushConstantRanges, info->pushConstantRangeCount);
  if (!build_pipeline_layout(std::move(sets), ranges, layout.get(), &error)) {
    log_refusal("vkCreatePipelineLayout", error);
    return VK_ERROR_UNKNOWN;
  }
  auto* object = new (std::nothrow) PipelineLayoutObject{std::move(layout)};
  if (object == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  *out = to_handle<VkPipelineLayout>(object);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyPipelineLayout(VkDevice, VkPipelineLayout handle,
                                                         const VkAllocationCallbacks*) {
  delete from_handle<PipelineLayoutObject>(handle);
}

}  // namespace gsgpu::vk
