// A command buffer's binding state (binding_model.h): descriptor sets bound with their dynamic
// offsets and push constants, kept as what the next draw's constant buffer will hold.
#include <algorithm>
#include <bit>
#include <cstring>

#include "gsgpu/vk/binding_model.h"

namespace gsgpu::vk {
namespace {

bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

// Each dynamic descriptor of `set` with its offset: aligned, and offset + dynamic offset + range
// inside the buffer (descriptors never written are not checked: a draw must not use them).
bool check_dynamic_offsets(const DescriptorSetData& set, std::span<const uint32_t> offsets, std::string* error) {
  for (const LayoutBinding& b : set.layout->bindings) {
    if (!is_dynamic_type(b.type)) continue;
    for (uint32_t i = 0; i < b.count; ++i) {
      const uint64_t dynamic = offsets[b.first_dynamic + i];
      const Descriptor& d = set.descriptors[b.first_descriptor + i];
      const std::string name = "binding " + std::to_string(b.binding) + "[" + std::to_string(i) + "]";
      if (dynamic % kBufferOffsetAlignment != 0) {
        return fail(error, name + ": dynamic offset " + std::to_string(dynamic) + " is not a multiple of " +
                               std::to_string(kBufferOffsetAlignment));
      }
      if (!d.written) continue;
      // d.offset < size and d.range <= size - d.offset hold (checked when written).
      if (dynamic > d.buffer_size - d.offset - d.range) {
        return fail(error, name + ": offset " + std::to_string(d.offset) + " + dynamic offset " +
                               std::to_string(dynamic) + " + range " + std::to_string(d.range) +
                               " passes the end of a buffer of " + std::to_string(d.buffer_size) + " bytes");
      }
    }
  }
  return true;
}

// The set's table as bound: each dynamic binding's VA moved by its dynamic offset.
std::array<uint64_t, kTableBindings> bound_table(const DescriptorSetData& set, std::span<const uint32_t> offsets) {
  std::array<uint64_t, kTableBindings> table = set.table;
  for (const LayoutBinding& b : set.layout->bindings) {
    if (b.slot != kNoTableSlot && b.count != 0 && is_dynamic_type(b.type) && table[b.slot] != 0) {
      table[b.slot] += offsets[b.first_dynamic];
    }
  }
  return table;
}

// The set's texture bindings (bindings with a table entry, their first kMaxTextureElements
// elements) as records.
std::array<std::vector<TextureRecord>, kTableBindings> bound_textures(const DescriptorSetData& set) {
  std::array<std::vector<TextureRecord>, kTableBindings> textures;
  for (const LayoutBinding& b : set.layout->bindings) {
    if (b.slot != kNoTableSlot && b.count != 0 && is_texture_type(b.type)) {
      for (uint32_t e = 0; e < std::min(b.count, kMaxTextureElements); ++e)
        textures[b.slot].push_back(texture_record(set.descriptors[b.first_descriptor + e]));
    }
  }
  return textures;
}

int bind_point_index(VkPipelineBindPoint point) {
  if (point == VK_PIPELINE_BIND_POINT_GRAPHICS) return 0;
  if (point == VK_PIPELINE_BIND_POINT_COMPUTE) return 1;
  return -1;
}

}  // namespace

bool bind_descriptor_sets(const PipelineLayout& layout, VkPipelineBindPoint point, uint32_t first_set,
                          std::span<const DescriptorSetData* const> sets, std::span<const uint32_t> dynamic_offsets,
                          BindingState* state, std::string* error) {
  const int index = bind_point_index(point);
  if (index < 0) return fail(error, "bind point " + std::to_string(point) + " is neither graphics nor compute");
  if (first_set > layout.sets.size() || sets.size() > layout.sets.size() - first_set) {
    return fail(error, "sets [" + std::to_string(first_set) + ", +" + std::to_string(sets.size()) +
                           ") pass the layout's " + std::to_string(layout.sets.size()));
  }
  uint64_t dynamic_needed = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (sets[i] == nullptr) return fail(error, "set " + std::to_string(first_set + i) + " is null");
    if (!sets[i]->layout->same_as(*layout.sets[first_set + i])) {
      return fail(error, "set " + std::to_string(first_set + i) + " was allocated with a layout that differs "
                         "from the pipeline layout's");
    }
    dynamic_needed += sets[i]->layout->dynamic_count;
  }
  if (dynamic_offsets.size() != dynamic_needed) {
    return fail(error, std::to_string(dynamic_offsets.size()) + " dynamic offsets for " +
                           std::to_string(dynamic_needed) + " dynamic descriptors");
  }
  size_t next = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!check_dynamic_offsets(*sets[i], dynamic_offsets.subspan(next, sets[i]->layout->dynamic_count), error)) {
      *error = "set " + std::to_string(first_set + i) + ", " + *error;
      return false;
    }
    next += sets[i]->layout->dynamic_count;
  }
  BoundSets& bound = state->bind_points[index];
  next = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    bound.tables[first_set + i] = bound_table(*sets[i], dynamic_offsets.subspan(next, sets[i]->layout->dynamic_count));
    bound.textures[first_set + i] = bound_textures(*sets[i]);
    bound.layouts[first_set + i] = layout.sets[first_set + i];
    next += sets[i]->layout->dynamic_count;
  }
  return true;
}

bool sets_ready_for_draw(const BindingState& state, VkPipelineBindPoint point, const PipelineLayout& layout,
                         uint32_t used_sets, std::string* error) {
  const int index = bind_point_index(point);
  if (index < 0) return fail(error, "bind point " + std::to_string(point) + " is neither graphics nor compute");
  for (uint32_t set = 0; set < kMaxBoundSets; ++set) {
    if ((used_sets & (1u << set)) == 0) continue;
    if (set >= layout.sets.size()) {
      return fail(error, "set " + std::to_string(set) + " is read but not in the pipeline layout");
    }
    const std::shared_ptr<const SetLayout>& bound = state.bind_points[index].layouts[set];
    if (bound == nullptr) return fail(error, "set " + std::to_string(set) + " is read but was never bound");
    if (!bound->same_as(*layout.sets[set])) {
      return fail(error, "set " + std::to_string(set) + " was bound with a set layout that differs from the "
                         "pipeline layout's");
    }
  }
  if ((used_sets >> kMaxBoundSets) != 0) return fail(error, "sets above 3 are read");
  return true;
}

bool push_constants(const PipelineLayout& layout, VkShaderStageFlags stages, uint32_t offset, uint32_t size,
                    const void* data, BindingState* state, std::string* error) {
  if (offset % 4 != 0 || size % 4 != 0 || size == 0 || stages == 0) {
    return fail(error, "offset " + std::to_string(offset) + " and size " + std::to_string(size) +
                           " must be multiples of 4, the size and the stages not 0");
  }
  if (offset >= kPushConstantBytes || size > kPushConstantBytes - offset) {
    return fail(error, "[" + std::to_string(offset) + ", +" + std::to_string(size) + ") passes maxPushConstantsSize (" +
                           std::to_string(kPushConstantBytes) + ")");
  }
  // Vulkan's two rules, per 4-byte word: a range of each named stage holds it, and every range
  // that holds it has its stages named.
  for (uint32_t word = offset; word < offset + size; word += 4) {
    VkShaderStageFlags covered = 0;
    for (const VkPushConstantRange& r : layout.push_ranges) {
      if (word < r.offset || word - r.offset >= r.size) continue;
      covered |= r.stageFlags;
      if ((r.stageFlags & ~stages) != 0) {
        return fail(error, "byte " + std::to_string(word) + " is in a range whose stages (" +
                               std::to_string(r.stageFlags) + ") the call does not all name (" +
                               std::to_string(stages) + ")");
      }
    }
    if ((stages & ~covered) != 0) {
      return fail(error, "byte " + std::to_string(word) + " is outside the layout's ranges for stages " +
                             std::to_string(stages & ~covered));
    }
  }
  std::memcpy(state->push_constants.data() + offset, data, size);
  return true;
}

std::array<uint8_t, kConstantBufferBytes> BindingState::constant_buffer(VkPipelineBindPoint point) const {
  std::array<uint8_t, kConstantBufferBytes> bytes{};
  std::memcpy(bytes.data(), push_constants.data(), kPushConstantBytes);
  const int index = bind_point_index(point);
  if (index < 0) return bytes;
  for (uint32_t set = 0; set < kMaxBoundSets; ++set) {
    for (uint32_t b = 0; b < kTableBindings; ++b) {
      const uint64_t va = bind_points[index].tables[set][b];
      for (int k = 0; k < 8; ++k) bytes[table_entry_offset(set, b) + k] = static_cast<uint8_t>(va >> (8 * k));
    }
  }
  return bytes;
}

bool is_texture_type(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ||
         type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
}

TextureRecord texture_record(const Descriptor& d) {
  TextureRecord record{};
  if (d.has_image_desc) std::copy(d.image_desc.begin(), d.image_desc.end(), record.begin());
  if (d.has_sampler_desc) {
    std::copy(d.sampler_desc.begin(), d.sampler_desc.end(), record.begin() + kTextureSamplerWord);
    // SAMPLER_DESC word 3 (LOD_BIAS): Vulkan clamps the bias to maxSamplerLodBias; NaN becomes 0.
    const float bias = std::bit_cast<float>(d.sampler_desc[3]);
    const float clamped = bias == bias ? std::clamp(bias, -kMaxSamplerLodBias, kMaxSamplerLodBias) : 0.0f;
    record[kTextureSamplerWord + 3] = std::bit_cast<uint32_t>(clamped);
  }
  return record;
}

std::vector<std::pair<uint32_t, TextureRecord>> BindingState::texture_records(VkPipelineBindPoint point,
                                                                              const TextureElements& elements) const {
  std::vector<std::pair<uint32_t, TextureRecord>> records;
  const int index = bind_point_index(point);
  if (index < 0) return records;
  for (uint32_t set = 0; set < kMaxBoundSets; ++set) {
    for (uint32_t b = 0; b < kTableBindings; ++b) {
      const std::vector<TextureRecord>& t = bind_points[index].textures[set][b];
      if (t.empty()) continue;
      const uint32_t slot = kTableBindings * set + b;
      const uint32_t n = std::clamp(elements[slot], 1u, kMaxTextureElements);
      for (uint32_t e = 0; e < n; ++e) records.emplace_back(slot, e < t.size() ? t[e] : TextureRecord{});
    }
  }
  return records;
}

}  // namespace gsgpu::vk
