// The Vulkan objects of the resource-binding model (docs/vulkan-driver.md "Resource binding"):
// shader modules, descriptor set layouts, pipeline layouts, descriptor pools and sets. The model
// itself (layouts, descriptor records, the constant buffer's bytes) is binding_model.h.
#pragma once

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gsgpu/vk/binding_model.h"
#include "gsgpu/vk/objects.h"

namespace gsgpu::vk {

// SPIR-V checked by the compiler's reader at creation; compiled when a pipeline is created.
struct ShaderModule {
  std::vector<uint32_t> code;
};

// Layouts are shared: a set or a pipeline layout keeps what it was made from after the
// application destroys the VkDescriptorSetLayout (the spec allows that).
struct DescriptorSetLayoutObject {
  std::shared_ptr<const SetLayout> layout;
};
struct PipelineLayoutObject {
  std::shared_ptr<const PipelineLayout> layout;
};

struct DescriptorSet;

struct DescriptorPool {
  PoolAccounting accounting;
  bool free_allowed = false;         // VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT
  std::set<DescriptorSet*> sets;     // allocated and not freed (externally synchronised: the pool)
};

struct DescriptorSet {
  DescriptorPool* pool = nullptr;
  DescriptorSetData data;
};

// Vulkan 1.1 descriptor update templates: the entries, and the set layout they were made for.
struct DescriptorUpdateTemplate {
  std::shared_ptr<const SetLayout> layout;
  std::vector<VkDescriptorUpdateTemplateEntry> entries;
};

// What updates learn of the application's handles (descriptor_set.cc): a VkBuffer's VA, size and
// whether it is bound (call under Device::mutex, which guards memory bindings), a VkImageView's
// image usage and IMAGE_DESC words, a VkSampler's SAMPLER_DESC words (objects.h).
HandleResolver handle_resolver();
SamplerResolver sampler_resolver();

// Invalid usage the driver refuses: one line on stderr, as the transfers' refusals.
inline void log_refusal(const char* command, const std::string& what, const char* outcome = "refused") {
  std::fprintf(stderr, "gsgpu-vk: %s: %s; %s\n", command, what.c_str(), outcome);
}

}  // namespace gsgpu::vk
