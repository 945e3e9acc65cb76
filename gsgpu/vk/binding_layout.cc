// Descriptor set layouts, pipeline layouts and descriptor pool accounting (binding_model.h). Every
// count and offset comes from the application: sums are taken in 64 bits and bounded before use.
#include <algorithm>

#include "gsgpu/vk/binding_model.h"

namespace gsgpu::vk {
namespace {

bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

bool takes_sampler(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
}

// One binding of a layout, checked; its descriptors are counted into *total (bounded).
bool read_binding(const VkDescriptorSetLayoutBinding& in, const SamplerResolver& samplers, uint64_t* total,
                  LayoutBinding* out, std::string* error) {
  const std::string name = "binding " + std::to_string(in.binding);
  if (static_cast<uint32_t>(in.descriptorType) >= kDescriptorTypes) {
    return fail(error, name + ": descriptor type " + std::to_string(in.descriptorType) + " is not a Vulkan 1.0 type");
  }
  *total += in.descriptorCount;
  if (*total > kMaxDescriptorsPerLayout) {
    return fail(error, name + ": the layout would hold more than " + std::to_string(kMaxDescriptorsPerLayout) +
                           " descriptors");
  }
  out->binding = in.binding;
  out->type = in.descriptorType;
  out->count = in.descriptorCount;
  out->stages = in.stageFlags;
  if (takes_sampler(in.descriptorType) && in.pImmutableSamplers != nullptr) {
    for (uint32_t i = 0; i < in.descriptorCount; ++i) {
      if (in.pImmutableSamplers[i] == VK_NULL_HANDLE) return fail(error, name + ": an immutable sampler is null");
      out->immutable_samplers.push_back(reinterpret_cast<uint64_t>(in.pImmutableSamplers[i]));
      if (!samplers) continue;
      std::optional<std::array<uint32_t, 8>> desc = samplers(in.pImmutableSamplers[i]);
      if (!desc) return fail(error, name + ": immutable sampler " + std::to_string(i) + " is not a sampler");
      out->immutable_sampler_descs.push_back(*desc);
    }
  }
  return true;
}

}  // namespace

bool is_buffer_type(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
         is_dynamic_type(type);
}

bool is_dynamic_type(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC || type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

const LayoutBinding* SetLayout::find(uint32_t binding) const {
  auto it = std::lower_bound(bindings.begin(), bindings.end(), binding,
                             [](const LayoutBinding& b, uint32_t n) { return b.binding < n; });
  return it != bindings.end() && it->binding == binding ? &*it : nullptr;
}

bool SetLayout::same_as(const SetLayout& other) const {
  if (bindings.size() != other.bindings.size()) return false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const LayoutBinding& a = bindings[i];
    const LayoutBinding& b = other.bindings[i];
    if (a.binding != b.binding || a.type != b.type || a.count != b.count || a.stages != b.stages ||
        a.immutable_samplers != b.immutable_samplers) {
      return false;
    }
  }
  return true;
}

// LayoutBinding::slot: bindings below 16 keep their number; the others take the free entries in
// binding order.
static void assign_table_slots(SetLayout* layout) {
  std::array<bool, kTableBindings> used{};
  for (const LayoutBinding& b : layout->bindings) {
    if (b.binding < kTableBindings) used[b.binding] = true;
  }
  uint32_t next = 0;
  for (LayoutBinding& b : layout->bindings) {
    if (b.binding < kTableBindings) {
      b.slot = b.binding;
      continue;
    }
    while (next < kTableBindings && used[next]) ++next;
    b.slot = next < kTableBindings ? next++ : kNoTableSlot;
  }
}

bool build_set_layout(const VkDescriptorSetLayoutCreateInfo& info, SetLayout* out, std::string* error,
                      const SamplerResolver& samplers) {
  *out = SetLayout{};
  // Push descriptors and update-after-bind pools are extensions the device does not offer.
  if (info.flags != 0) return fail(error, "flags " + std::to_string(info.flags) + " need extensions not offered");
  if (info.bindingCount > kMaxDescriptorsPerLayout) return fail(error, "more bindings than a layout may hold");
  uint64_t total = 0;
  for (uint32_t i = 0; i < info.bindingCount; ++i) {
    LayoutBinding binding;
    if (!read_binding(info.pBindings[i], samplers, &total, &binding, error)) return false;
    out->bindings.push_back(std::move(binding));
  }
  std::sort(out->bindings.begin(), out->bindings.end(),
            [](const LayoutBinding& a, const LayoutBinding& b) { return a.binding < b.binding; });
  for (size_t i = 0; i < out->bindings.size(); ++i) {
    LayoutBinding& b = out->bindings[i];
    if (i > 0 && out->bindings[i - 1].binding == b.binding) {
      return fail(error, "binding " + std::to_string(b.binding) + " appears twice");
    }
    b.first_descriptor = out->descriptor_count;
    b.first_dynamic = out->dynamic_count;
    out->descriptor_count += b.count;  // bounded by kMaxDescriptorsPerLayout above
    if (is_dynamic_type(b.type)) out->dynamic_count += b.count;
    out->per_type[b.type] += b.count;
  }
  assign_table_slots(out);
  return true;
}

bool build_pipeline_layout(std::vector<std::shared_ptr<const SetLayout>> sets,
                           std::span<const VkPushConstantRange> ranges, PipelineLayout* out, std::string* error) {
  if (sets.size() > kMaxBoundSets) {
    return fail(error, std::to_string(sets.size()) + " set layouts, more than maxBoundDescriptorSets (" +
                           std::to_string(kMaxBoundSets) + ")");
  }
  VkShaderStageFlags seen = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const VkPushConstantRange& r = ranges[i];
    const std::string name = "push-constant range " + std::to_string(i);
    if (r.offset % 4 != 0 || r.size % 4 != 0 || r.size == 0) {
      return fail(error, name + ": offset " + std::to_string(r.offset) + " and size " + std::to_string(r.size) +
                             " must be multiples of 4, the size not 0");
    }
    if (r.offset >= kPushConstantBytes || r.size > kPushConstantBytes - r.offset) {
      return fail(error, name + ": [" + std::to_string(r.offset) + ", +" + std::to_string(r.size) +
                             ") passes maxPushConstantsSize (" + std::to_string(kPushConstantBytes) + ")");
    }
    // VK_SHADER_STAGE_ALL is valid: unknown stage bits are not refused, only an empty or repeated one.
    if (r.stageFlags == 0 || (r.stageFlags & seen) != 0) {
      return fail(error, name + ": no stage, or a stage that an earlier range names (one range per stage)");
    }
    seen |= r.stageFlags;
  }
  out->sets = std::move(sets);
  out->push_ranges.assign(ranges.begin(), ranges.end());
  return true;
}

void init_set(std::shared_ptr<const SetLayout> layout, DescriptorSetData* set) {
  set->descriptors.assign(layout->descriptor_count, Descriptor{});
  set->table = {};
  // Immutable samplers are part of the set from its allocation.
  for (const LayoutBinding& b : layout->bindings) {
    for (size_t i = 0; i < b.immutable_samplers.size(); ++i) {
      Descriptor& d = set->descriptors[b.first_descriptor + i];
      d.sampler = b.immutable_samplers[i];
      if (i < b.immutable_sampler_descs.size()) {
        d.has_sampler_desc = true;
        d.sampler_desc = b.immutable_sampler_descs[i];
      }
    }
  }
  set->layout = std::move(layout);
}

bool PoolAccounting::build(const VkDescriptorPoolCreateInfo& info, std::string* error) {
  *this = PoolAccounting{};
  if (info.maxSets == 0) return fail(error, "maxSets is 0");
  max_sets = info.maxSets;
  for (uint32_t i = 0; i < info.poolSizeCount; ++i) {
    const VkDescriptorPoolSize& size = info.pPoolSizes[i];
    if (static_cast<uint32_t>(size.type) >= kDescriptorTypes || size.descriptorCount == 0) {
      return fail(error, "pool size " + std::to_string(i) + ": type " + std::to_string(size.type) + ", count " +
                             std::to_string(size.descriptorCount) + " (a 1.0 type and a count above 0)");
    }
    capacity[size.type] += size.descriptorCount;  // ≤ 2^32 sizes of < 2^32: no 64-bit overflow
  }
  return true;
}

bool PoolAccounting::take(const SetLayout& layout) {
  if (sets >= max_sets) return false;
  for (uint32_t t = 0; t < kDescriptorTypes; ++t) {
    if (layout.per_type[t] > capacity[t] - used[t]) return false;
  }
  ++sets;
  for (uint32_t t = 0; t < kDescriptorTypes; ++t) used[t] += layout.per_type[t];
  return true;
}

void PoolAccounting::give_back(const SetLayout& layout) {
  --sets;
  for (uint32_t t = 0; t < kDescriptorTypes; ++t) used[t] -= layout.per_type[t];
}

void PoolAccounting::reset() {
  sets = 0;
  used = {};
}

}  // namespace gsgpu::vk
