// vkUpdateDescriptorSets on the binding model (binding_model.h): one write or copy at a time,
// validated whole before anything changes, then the set's table of buffer VAs refreshed.
#include <cstdint>
#include <cstring>

#include "gsgpu/vk/binding_model.h"

namespace gsgpu::vk {
namespace {

bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

bool is_image_type(VkDescriptorType type) {
  return type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ||
         type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE || type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ||
         type == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
}

// The flat indices of `count` descriptors from (binding, element), rolling over into the bindings
// after it as vkUpdateDescriptorSets does (bindings of count 0 skipped); every binding crossed
// must have the first one's type and stages. *first is the binding the update starts in.
bool walk_slots(const SetLayout& layout, uint32_t binding, uint32_t element, uint32_t count,
                std::vector<uint32_t>* slots, const LayoutBinding** first, std::string* error) {
  const LayoutBinding* b = layout.find(binding);
  if (b == nullptr) return fail(error, "binding " + std::to_string(binding) + " is not in the set's layout");
  if (count > layout.descriptor_count) {
    return fail(error, std::to_string(count) + " descriptors, more than the set's " +
                           std::to_string(layout.descriptor_count));
  }
  *first = b;
  uint64_t e = element;
  while (slots->size() < count) {
    if (e < b->count) {
      slots->push_back(b->first_descriptor + static_cast<uint32_t>(e++));
      continue;
    }
    e -= b->count;
    const LayoutBinding* next = b->binding == UINT32_MAX ? nullptr : layout.find(b->binding + 1);
    if (next == nullptr || (next->count != 0 && (next->type != (*first)->type || next->stages != (*first)->stages))) {
      return fail(error, "element " + std::to_string(element) + " + " + std::to_string(count) +
                             " descriptors pass the end of binding " + std::to_string(b->binding) +
                             " and of the consecutive bindings of its type");
    }
    b = next;
  }
  return true;
}

bool read_buffer(const VkDescriptorBufferInfo& info, VkDescriptorType type, const BufferResolver& buffers,
                 Descriptor* out, std::string* error) {
  std::optional<BufferFacts> facts = buffers(info.buffer);
  if (!facts) return fail(error, "the buffer is not a buffer");
  if (!facts->bound) return fail(error, "the buffer is not bound to memory");
  if (info.offset % kBufferOffsetAlignment != 0) {
    return fail(error, "offset " + std::to_string(info.offset) + " is not a multiple of " +
                           std::to_string(kBufferOffsetAlignment));
  }
  if (info.offset >= facts->size) {
    return fail(error, "offset " + std::to_string(info.offset) + " is not inside a buffer of " +
                           std::to_string(facts->size) + " bytes");
  }
  const uint64_t range = info.range == VK_WHOLE_SIZE ? facts->size - info.offset : info.range;
  if (range == 0 || range > facts->size - info.offset) {
    return fail(error, "range [" + std::to_string(info.offset) + ", +" + std::to_string(range) +
                           ") is empty or outside a buffer of " + std::to_string(facts->size) + " bytes");
  }
  const bool uniform = type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  const uint64_t max_range = uniform ? kMaxUniformBufferRange : kMaxStorageBufferRange;
  if (range > max_range) {
    return fail(error, "range " + std::to_string(range) + " is over the limit of " + std::to_string(max_range));
  }
  *out = Descriptor{true, facts->va, facts->size, info.offset, range};
  return true;
}

// The image usage a view needs for a descriptor of `type` (VkWriteDescriptorSet's rules).
VkImageUsageFlags needed_usage(VkDescriptorType type) {
  if (type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE) return VK_IMAGE_USAGE_STORAGE_BIT;
  if (type == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT) return VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
  return VK_IMAGE_USAGE_SAMPLED_BIT;
}

// An image, sampler or combined descriptor. With resolvers the view's IMAGE_DESC and the
// sampler's SAMPLER_DESC are captured; a sampled view the texture unit cannot describe is refused.
bool read_image(const VkDescriptorImageInfo& info, VkDescriptorType type, const HandleResolver& handles,
                bool immutable, Descriptor* out, std::string* error) {
  const bool wants_sampler = type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  out->has_image_desc = false;  // what an earlier write left is replaced; an immutable sampler stays
  out->image_desc = {};
  out->image_view = 0;
  if (!immutable) {
    out->sampler = 0;
    out->has_sampler_desc = false;
    out->sampler_desc = {};
  }
  if (wants_sampler && !immutable) {
    if (info.sampler == VK_NULL_HANDLE) return fail(error, "the sampler is null");
    out->sampler = reinterpret_cast<uint64_t>(info.sampler);
    if (handles.samplers) {
      std::optional<std::array<uint32_t, 8>> desc = handles.samplers(info.sampler);
      if (!desc) return fail(error, "the sampler is not a sampler");
      out->has_sampler_desc = true;
      out->sampler_desc = *desc;
    }
  }
  if (type != VK_DESCRIPTOR_TYPE_SAMPLER) {
    if (info.imageView == VK_NULL_HANDLE) return fail(error, "the image view is null");
    out->image_view = reinterpret_cast<uint64_t>(info.imageView);
    if (handles.image_views) {
      std::optional<ImageViewFacts> view = handles.image_views(info.imageView);
      if (!view) return fail(error, "the image view is not an image view");
      if ((view->usage & needed_usage(type)) == 0) {
        return fail(error, "the view's image lacks usage " + std::to_string(needed_usage(type)) +
                               " for descriptor type " + std::to_string(type));
      }
      const bool sampled =
          type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      if (sampled && !view->image_desc) return fail(error, "the texture unit cannot describe the view (no IMAGE_DESC)");
      out->has_image_desc = view->image_desc.has_value();
      if (view->image_desc) out->image_desc = *view->image_desc;
    }
  }
  out->written = true;
  out->image_layout = info.imageLayout;
  return true;
}

// A write's i-th descriptor, read from the array its type uses. `immutable` keeps the layout's sampler.
bool read_descriptor(const VkWriteDescriptorSet& write, uint32_t i, const HandleResolver& handles, bool immutable,
                     Descriptor* out, std::string* error) {
  const VkDescriptorType type = write.descriptorType;
  if (is_buffer_type(type)) {
    if (write.pBufferInfo == nullptr) return fail(error, "pBufferInfo is null");
    return read_buffer(write.pBufferInfo[i], type, handles.buffers, out, error);
  }
  if (is_image_type(type)) {
    if (write.pImageInfo == nullptr) return fail(error, "pImageInfo is null");
    return read_image(write.pImageInfo[i], type, handles, immutable, out, error);
  }
  if (write.pTexelBufferView == nullptr || write.pTexelBufferView[i] == VK_NULL_HANDLE) {
    return fail(error, "the texel buffer view is null");
  }
  *out = Descriptor{};
  out->written = true;
  out->texel_buffer_view = reinterpret_cast<uint64_t>(write.pTexelBufferView[i]);
  return true;
}

// Bindings 0-15 of buffer types: element 0's VA + offset, what a draw's shaders read (0: none).
void refresh_table(DescriptorSetData* set) {
  set->table = {};
  for (const LayoutBinding& b : set->layout->bindings) {
    if (b.slot == kNoTableSlot || b.count == 0 || !is_buffer_type(b.type)) continue;
    const Descriptor& d = set->descriptors[b.first_descriptor];
    if (d.written) set->table[b.slot] = d.buffer_va + d.offset;
  }
}

}  // namespace

bool apply_write(const VkWriteDescriptorSet& write, const HandleResolver& handles, DescriptorSetData* dst,
                 std::string* error) {
  std::vector<uint32_t> slots;
  const LayoutBinding* first = nullptr;
  const SetLayout& layout = *dst->layout;
  if (!walk_slots(layout, write.dstBinding, write.dstArrayElement, write.descriptorCount, &slots, &first, error)) {
    return false;
  }
  if (write.descriptorType != first->type) {
    return fail(error, "type " + std::to_string(write.descriptorType) + " is not binding " +
                           std::to_string(first->binding) + "'s type " + std::to_string(first->type));
  }
  const bool immutable = !first->immutable_samplers.empty();
  std::vector<Descriptor> values(slots.size());
  for (uint32_t i = 0; i < slots.size(); ++i) {
    values[i] = dst->descriptors[slots[i]];
    if (!read_descriptor(write, i, handles, immutable, &values[i], error)) {
      *error = "descriptor " + std::to_string(i) + ": " + *error;
      return false;
    }
  }
  for (uint32_t i = 0; i < slots.size(); ++i) dst->descriptors[slots[i]] = values[i];
  refresh_table(dst);
  return true;
}

bool apply_template_entry(const VkDescriptorUpdateTemplateEntry& entry, const void* data,
                          const HandleResolver& handles, DescriptorSetData* dst, std::string* error) {
  if (static_cast<uint32_t>(entry.descriptorType) >= kDescriptorTypes) {
    return fail(error, "descriptor type " + std::to_string(entry.descriptorType) + " is not a Vulkan 1.0 type");
  }
  if (entry.descriptorCount > dst->layout->descriptor_count) {
    return fail(error, std::to_string(entry.descriptorCount) + " descriptors, more than the set's " +
                           std::to_string(dst->layout->descriptor_count));
  }
  if (entry.descriptorCount != 0 && data == nullptr) return fail(error, "pData is null");
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::vector<VkDescriptorBufferInfo> buffer_infos(entry.descriptorCount);
  std::vector<VkDescriptorImageInfo> image_infos(entry.descriptorCount);
  std::vector<VkBufferView> views(entry.descriptorCount);
  const VkDescriptorType type = entry.descriptorType;
  for (uint32_t i = 0; i < entry.descriptorCount; ++i) {
    const uint8_t* record = bytes + entry.offset + uint64_t{i} * entry.stride;  // copied: may be unaligned
    if (is_buffer_type(type)) {
      std::memcpy(&buffer_infos[i], record, sizeof buffer_infos[i]);
    } else if (is_image_type(type)) {
      std::memcpy(&image_infos[i], record, sizeof image_infos[i]);
    } else {
      std::memcpy(&views[i], record, sizeof views[i]);
    }
  }
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstBinding = entry.dstBinding;
  write.dstArrayElement = entry.dstArrayElement;
  write.descriptorCount = entry.descriptorCount;
  write.descriptorType = type;
  write.pBufferInfo = buffer_infos.data();
  write.pImageInfo = image_infos.data();
  write.pTexelBufferView = views.data();
  return apply_write(write, handles, dst, error);
}

bool apply_copy(const VkCopyDescriptorSet& copy, const DescriptorSetData& src, DescriptorSetData* dst,
                std::string* error) {
  std::vector<uint32_t> from, to;
  const LayoutBinding* src_first = nullptr;
  const LayoutBinding* dst_first = nullptr;
  if (!walk_slots(*src.layout, copy.srcBinding, copy.srcArrayElement, copy.descriptorCount, &from, &src_first, error) ||
      !walk_slots(*dst->layout, copy.dstBinding, copy.dstArrayElement, copy.descriptorCount, &to, &dst_first, error)) {
    return false;
  }
  if (src_first->type != dst_first->type) {
    return fail(error, "source type " + std::to_string(src_first->type) + " and destination type " +
                           std::to_string(dst_first->type) + " differ");
  }
  std::vector<Descriptor> values;  // read first: a copy within one set may overlap
  for (uint32_t slot : from) values.push_back(src.descriptors[slot]);
  const bool immutable = !dst_first->immutable_samplers.empty();
  for (size_t i = 0; i < to.size(); ++i) {
    Descriptor& d = dst->descriptors[to[i]];
    const Descriptor kept = d;
    d = values[i];
    if (immutable) {  // the layout's samplers are never replaced
      d.sampler = kept.sampler;
      d.has_sampler_desc = kept.has_sampler_desc;
      d.sampler_desc = kept.sampler_desc;
    }
  }
  refresh_table(dst);
  return true;
}

}  // namespace gsgpu::vk
