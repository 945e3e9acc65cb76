// Vulkan 1.1's descriptor commands over the binding model: descriptor update templates (each entry
// becomes one write, apply_template_entry) and vkGetDescriptorSetLayoutSupport. Only
// DESCRIPTOR_SET templates: push descriptors are an extension the device does not offer.
#include <new>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateDescriptorUpdateTemplate(VkDevice,
                                                                      const VkDescriptorUpdateTemplateCreateInfo* info,
                                                                      const VkAllocationCallbacks*,
                                                                      VkDescriptorUpdateTemplate* out) {
  const char* command = "vkCreateDescriptorUpdateTemplate";
  if (info->templateType != VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET) {
    log_refusal(command, "template type " + std::to_string(info->templateType) + " needs push descriptors");
    return VK_ERROR_UNKNOWN;
  }
  const auto* layout = from_handle<DescriptorSetLayoutObject>(info->descriptorSetLayout);
  if (layout == nullptr) {
    log_refusal(command, "the descriptor set layout is null");
    return VK_ERROR_UNKNOWN;
  }
  if (info->descriptorUpdateEntryCount > kMaxDescriptorsPerLayout) {
    log_refusal(command, std::to_string(info->descriptorUpdateEntryCount) + " entries, more than a set can hold");
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  auto* update_template = new (std::nothrow) DescriptorUpdateTemplate;
  if (update_template == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  update_template->layout = layout->layout;
  update_template->entries.assign(info->pDescriptorUpdateEntries,
                                  info->pDescriptorUpdateEntries + info->descriptorUpdateEntryCount);
  *out = to_handle<VkDescriptorUpdateTemplate>(update_template);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyDescriptorUpdateTemplate(VkDevice, VkDescriptorUpdateTemplate handle,
                                                                   const VkAllocationCallbacks*) {
  delete from_handle<DescriptorUpdateTemplate>(handle);
}

// Each entry validated and applied as one write; a refused one (a log line) changes nothing and the
// others apply, as vkUpdateDescriptorSets's writes.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkUpdateDescriptorSetWithTemplate(VkDevice handle, VkDescriptorSet set_handle,
                                                                   VkDescriptorUpdateTemplate template_handle,
                                                                   const void* data) {
  const char* command = "vkUpdateDescriptorSetWithTemplate";
  auto* set = from_handle<DescriptorSet>(set_handle);
  const auto* update_template = from_handle<DescriptorUpdateTemplate>(template_handle);
  if (set == nullptr || update_template == nullptr) {
    log_refusal(command, "the set or the template is null", "skipped");
    return;
  }
  if (!set->data.layout->same_as(*update_template->layout)) {
    log_refusal(command, "the set's layout is not the template's", "skipped");
    return;
  }
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  const HandleResolver handles = handle_resolver();
  std::string error;
  for (size_t i = 0; i < update_template->entries.size(); ++i) {
    if (!apply_template_entry(update_template->entries[i], data, handles, &set->data, &error)) {
      log_refusal(command, "entry " + std::to_string(i) + ": " + error, "skipped");
    }
  }
}

// Supported when the driver would create the layout (binding_model.h's rules, at most 65,536
// descriptors); only bindings 0-15, element 0, of buffer types reach shaders through the table.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetDescriptorSetLayoutSupport(VkDevice, const VkDescriptorSetLayoutCreateInfo* info,
                                                                 VkDescriptorSetLayoutSupport* support) {
  uint64_t descriptors = 0;
  for (uint32_t i = 0; i < info->bindingCount && descriptors <= kMaxDescriptorsPerLayout; ++i) {
    descriptors += info->pBindings[i].descriptorCount;
  }
  SetLayout layout;
  std::string error;
  const bool fits = descriptors <= kMaxDescriptorsPerLayout && info->bindingCount <= kMaxDescriptorsPerLayout;
  support->supported = fits && build_set_layout(*info, &layout, &error, sampler_resolver()) ? VK_TRUE : VK_FALSE;
  // VkDescriptorSetVariableDescriptorCountLayoutSupport (1.2) and others in the chain: not written.
}

}  // namespace gsgpu::vk
