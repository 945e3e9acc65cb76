// Descriptor pools and sets, and vkUpdateDescriptorSets, over binding_model.h. A pool only counts
// (sets and descriptors of each type, as its create info declared): each set's records live in the
// set, so a pool never fragments. Exhaustion is VK_ERROR_OUT_OF_POOL_MEMORY (VK_KHR_maintenance1);
// invalid usage is refused with a
// log line.
#include <new>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// VK_KHR_maintenance1 (offered) makes allocating past a pool's sizes a valid call answered with
// VK_ERROR_OUT_OF_POOL_MEMORY, which tells the application to allocate from another pool.
constexpr VkResult kPoolExhausted = VK_ERROR_OUT_OF_POOL_MEMORY;

void free_set(DescriptorSet* set) {
  set->pool->accounting.give_back(*set->data.layout);
  set->pool->sets.erase(set);
  delete set;
}

}  // namespace

SamplerResolver sampler_resolver() {
  return [](VkSampler handle) -> std::optional<std::array<uint32_t, 8>> {
    const Sampler* sampler = from_handle<Sampler>(handle);
    if (sampler == nullptr) return std::nullopt;
    return sampler->desc;
  };
}

HandleResolver handle_resolver() {
  BufferResolver buffers = [](VkBuffer handle) -> std::optional<BufferFacts> {
    const Buffer* buffer = from_handle<Buffer>(handle);
    if (buffer == nullptr) return std::nullopt;
    return BufferFacts{buffer->memory != nullptr, buffer->va, buffer->size};
  };
  ImageViewResolver views = [](VkImageView handle) -> std::optional<ImageViewFacts> {
    const ImageView* view = from_handle<ImageView>(handle);
    if (view == nullptr || view->image == nullptr) return std::nullopt;
    return ImageViewFacts{view->image->usage, view->image_desc};
  };
  return HandleResolver(std::move(buffers), std::move(views), sampler_resolver());
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateDescriptorPool(VkDevice, const VkDescriptorPoolCreateInfo* info,
                                                            const VkAllocationCallbacks*, VkDescriptorPool* out) {
  if ((info->flags & ~VkDescriptorPoolCreateFlags{VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT}) != 0) {
    log_refusal("vkCreateDescriptorPool", "flags " + std::to_string(info->flags) + " need extensions not offered");
    return VK_ERROR_UNKNOWN;
  }
  auto* pool = new (std::nothrow) DescriptorPool;
  if (pool == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  std::string error;
  if (!pool->accounting.build(*info, &error)) {
    delete pool;
    log_refusal("vkCreateDescriptorPool", error);
    return VK_ERROR_UNKNOWN;
  }
  pool->free_allowed = (info->flags & VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT) != 0;
  *out = to_handle<VkDescriptorPool>(pool);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyDescriptorPool(VkDevice, VkDescriptorPool handle,
                                                         const VkAllocationCallbacks*) {
  DescriptorPool* pool = from_handle<DescriptorPool>(handle);
  if (pool == nullptr) return;
  for (DescriptorSet* set : pool->sets) delete set;  // destroying a pool frees its sets
  delete pool;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkResetDescriptorPool(VkDevice, VkDescriptorPool handle,
                                                           VkDescriptorPoolResetFlags) {
  DescriptorPool* pool = from_handle<DescriptorPool>(handle);
  for (DescriptorSet* set : pool->sets) delete set;
  pool->sets.clear();
  pool->accounting.reset();
  return VK_SUCCESS;
}

// All or nothing: a set that does not fit frees the ones this call allocated, and every output is null.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkAllocateDescriptorSets(VkDevice, const VkDescriptorSetAllocateInfo* info,
                                                              VkDescriptorSet* out) {
  DescriptorPool* pool = from_handle<DescriptorPool>(info->descriptorPool);
  VkResult result = VK_SUCCESS;
  uint32_t made = 0;
  for (; made < info->descriptorSetCount; ++made) {
    const auto* layout = from_handle<DescriptorSetLayoutObject>(info->pSetLayouts[made]);
    if (layout == nullptr) {
      log_refusal("vkAllocateDescriptorSets", "set layout " + std::to_string(made) + " is null");
      result = VK_ERROR_UNKNOWN;
      break;
    }
    if (!pool->accounting.take(*layout->layout)) {
      result = kPoolExhausted;
      break;
    }
    auto* set = new (std::nothrow) DescriptorSet;
    if (set == nullptr) {
      pool->accounting.give_back(*layout->layout);
      result = VK_ERROR_OUT_OF_HOST_MEMORY;
      break;
    }
    set->pool = pool;
    init_set(layout->layout, &set->data);
    pool->sets.insert(set);
    out[made] = to_handle<VkDescriptorSet>(set);
  }
  if (result == VK_SUCCESS) return VK_SUCCESS;
  for (uint32_t i = 0; i < made; ++i) free_set(from_handle<DescriptorSet>(out[i]));
  for (uint32_t i = 0; i < info->descriptorSetCount; ++i) out[i] = VK_NULL_HANDLE;
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkFreeDescriptorSets(VkDevice, VkDescriptorPool handle, uint32_t count,
                                                          const VkDescriptorSet* sets) {
  DescriptorPool* pool = from_handle<DescriptorPool>(handle);
  if (!pool->free_allowed) {
    log_refusal("vkFreeDescriptorSets", "the pool was created without FREE_DESCRIPTOR_SET_BIT", "nothing freed");
    return VK_ERROR_UNKNOWN;
  }
  for (uint32_t i = 0; i < count; ++i) {
    auto* set = from_handle<DescriptorSet>(sets[i]);
    if (set == nullptr) continue;  // null handles are ignored (the spec)
    if (pool->sets.count(set) == 0) {
      log_refusal("vkFreeDescriptorSets", "set " + std::to_string(i) + " is not a live set of this pool", "skipped");
      continue;
    }
    free_set(set);
  }
  return VK_SUCCESS;
}

// Writes then copies, in order; each refused one (a log line) leaves its set unchanged and the
// others still apply. Buffers are read under the device's lock (their memory binding).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkUpdateDescriptorSets(VkDevice handle, uint32_t write_count,
                                                        const VkWriteDescriptorSet* writes, uint32_t copy_count,
                                                        const VkCopyDescriptorSet* copies) {
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  const HandleResolver handles = handle_resolver();
  std::string error;
  for (uint32_t i = 0; i < write_count; ++i) {
    auto* set = from_handle<DescriptorSet>(writes[i].dstSet);
    if (set == nullptr) error = "dstSet is null";
    if (set == nullptr || !apply_write(writes[i], handles, &set->data, &error)) {
      log_refusal("vkUpdateDescriptorSets", "write " + std::to_string(i) + ": " + error, "skipped");
    }
  }
  for (uint32_t i = 0; i < copy_count; ++i) {
    const auto* src = from_handle<DescriptorSet>(copies[i].srcSet);
    auto* dst = from_handle<DescriptorSet>(copies[i].dstSet);
    if (src == nullptr || dst == nullptr) error = "srcSet or dstSet is null";
    if (src == nullptr || dst == nullptr || !apply_copy(copies[i], src->data, &dst->data, &error)) {
      log_refusal("vkUpdateDescriptorSets", "copy " + std::to_string(i) + ": " + error, "skipped");
    }
  }
}

}  // namespace gsgpu::vk
