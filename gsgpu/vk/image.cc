// VkImage: a format, one linear layout (image_layout.h, the same for OPTIMAL and LINEAR tiling) and,
// once bound, a range of a memory object mapped at a GPU VA as a buffer's (page-aligned offset,
// page-rounded size: a VA binding is page granular). What may be created is what
// vkGetPhysicalDeviceImageFormatProperties answers (image_format_properties); anything else is
// refused with a log line (docs/vulkan-driver.md "Images").
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {


// The format features each usage needs; usages no format supports (storage, input attachments)
// need a feature no format has.
VkFormatFeatureFlags features_for(VkImageUsageFlags usage) {
  VkFormatFeatureFlags needed = 0;
  if (usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) needed |= VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
  if (usage & VK_IMAGE_USAGE_TRANSFER_DST_BIT) needed |= VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if (usage & VK_IMAGE_USAGE_SAMPLED_BIT) needed |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if (usage & VK_IMAGE_USAGE_STORAGE_BIT) needed |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
  if (usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) needed |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
  if (usage & VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT) needed |= VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
  return needed;
}

constexpr VkImageUsageFlags kKnownUsage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
    VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
constexpr VkImageUsageFlags kAttachmentUsage =
    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;

// Why this combination is not supported, or nullptr when it is.
const char* unsupported(const FormatInfo* info, VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
                        VkImageCreateFlags flags) {
  if (info == nullptr) return "format not supported";
  if (tiling != VK_IMAGE_TILING_OPTIMAL && tiling != VK_IMAGE_TILING_LINEAR) return "tiling not supported";
  if (type != VK_IMAGE_TYPE_1D && type != VK_IMAGE_TYPE_2D && type != VK_IMAGE_TYPE_3D) return "unknown image type";
  // MUTABLE_FORMAT: views in another format of the same texel size (the layout does not change).
  if ((flags & ~VkImageCreateFlags{VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT}) != 0) {
    return "create flags other than MUTABLE_FORMAT (sparse, cube, 2D-array views of 3D, ...)";
  }
  if (usage == 0 || (usage & ~kKnownUsage) != 0) return "usage with input attachment or an unknown bit";
  if ((usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) && !(usage & kAttachmentUsage)) {
    return "transient without an attachment usage";
  }
  const VkFormatFeatureFlags needed = features_for(usage);
  if ((format_features(info) & needed) != needed) return "a usage the format does not support";
  if ((usage & kAttachmentUsage) && type != VK_IMAGE_TYPE_2D) return "attachments are 2D";
  if ((info->aspects & VK_IMAGE_ASPECT_COLOR_BIT) == 0 && type != VK_IMAGE_TYPE_2D) return "depth images are 2D";
  return nullptr;
}

}  // namespace

VkResult image_format_properties(const drv::Caps& caps, VkFormat format, VkImageType type, VkImageTiling tiling,
                                 VkImageUsageFlags usage, VkImageCreateFlags flags, VkImageFormatProperties* props) {
  *props = {};
  if (unsupported(find_format(format), type, tiling, usage, flags) != nullptr) return VK_ERROR_FORMAT_NOT_SUPPORTED;
  const uint32_t d = type == VK_IMAGE_TYPE_3D ? kMaxImageDimension3D : kMaxImageDimension;
  props->maxExtent = {d, type == VK_IMAGE_TYPE_1D ? 1 : d, type == VK_IMAGE_TYPE_3D ? d : 1};
  props->maxMipLevels = max_mip_levels(props->maxExtent.width, props->maxExtent.height, props->maxExtent.depth);
  props->maxArrayLayers = type == VK_IMAGE_TYPE_3D ? 1 : kMaxArrayLayers;
  props->sampleCounts = VK_SAMPLE_COUNT_1_BIT;
  props->maxResourceSize = caps.max_bo_size;
  return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateImage(VkDevice handle, const VkImageCreateInfo* info,
                                                   const VkAllocationCallbacks*, VkImage* out) {
  Device* device = from_handle<Device>(handle);
  const FormatInfo* format = find_format(info->format);
  if (const char* why = unsupported(format, info->imageType, info->tiling, info->usage, info->flags)) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: %s (VkFormat %d); refused\n", why, info->format);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  if (info->samples != VK_SAMPLE_COUNT_1_BIT) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: %d samples; only 1 is supported; refused\n", info->samples);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  ImageShape shape{info->imageType,      info->extent.width, info->extent.height, info->extent.depth,
                   info->arrayLayers,    info->mipLevels,    format->element_bytes};
  std::string why;
  std::optional<ImageLayout> layout = compute_image_layout(shape, &why);
  if (!layout) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: %s; refused\n", why.c_str());
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  // An image no allocation could hold (the layout is below 2^41 bytes, so rounding cannot wrap).
  if (layout->size > device->drv->caps().max_bo_size) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  auto* image = new (std::nothrow) Image;
  if (image == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  image->format = format;
  image->usage = info->usage;
  image->flags = info->flags;
  image->layout = *layout;
  *out = to_handle<VkImage>(image);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyImage(VkDevice handle, VkImage image_handle, const VkAllocationCallbacks*) {
  Image* image = from_handle<Image>(image_handle);
  if (image == nullptr) return;
  Device* device = from_handle<Device>(handle);
  std::lock_guard lock(device->mutex);
  if (image->memory != nullptr) {
    device->drv->va_unbind(image->va, image->va_size);
    device->va->free(image->va);
    image->memory->bound_images.erase(image);
  }
  delete image;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetImageMemoryRequirements(VkDevice handle, VkImage image_handle,
                                                              VkMemoryRequirements* reqs) {
  const uint64_t page = from_handle<Device>(handle)->drv->caps().page_size;
  reqs->size = round_up(from_handle<Image>(image_handle)->layout.size, page);
  reqs->alignment = page;
  reqs->memoryTypeBits = 1u << kMemoryTypeIndex;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkBindImageMemory(VkDevice handle, VkImage image_handle,
                                                       VkDeviceMemory memory_handle, VkDeviceSize offset) {
  Device* device = from_handle<Device>(handle);
  Image* image = from_handle<Image>(image_handle);
  DeviceMemory* memory = from_handle<DeviceMemory>(memory_handle);
  std::lock_guard lock(device->mutex);
  if (image->memory != nullptr) return VK_ERROR_OUT_OF_DEVICE_MEMORY;  // bound already: invalid usage
  const VkResult bound = bind_memory_range(device, memory, offset, image->layout.size, "vkBindImageMemory",
                                           &image->va, &image->va_size);
  if (bound != VK_SUCCESS) return bound;
  image->memory = memory;
  memory->bound_images.insert(image);
  image->memory_offset = offset;
  return VK_SUCCESS;
}

// Vulkan 1.1: each binding as vkBindImageMemory, in order, stopping at the first refused one.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkBindImageMemory2(VkDevice device, uint32_t count,
                                                        const VkBindImageMemoryInfo* infos) {
  for (uint32_t i = 0; i < count; ++i) {
    VkResult r = gsgpu_vkBindImageMemory(device, infos[i].image, infos[i].memory, infos[i].memoryOffset);
    if (r != VK_SUCCESS) return r;
  }
  return VK_SUCCESS;
}

// Vulkan 1.1: the 1.0 requirements; a dedicated allocation is neither preferred nor required.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetImageMemoryRequirements2(VkDevice device,
                                                               const VkImageMemoryRequirementsInfo2* info,
                                                               VkMemoryRequirements2* reqs) {
  gsgpu_vkGetImageMemoryRequirements(device, info->image, &reqs->memoryRequirements);
  answer_no_dedicated_allocation(reqs);
}

// No sparse images: no requirements.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetImageSparseMemoryRequirements(VkDevice, VkImage, uint32_t* count,
                                                                    VkSparseImageMemoryRequirements*) {
  *count = 0;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetImageSparseMemoryRequirements2(VkDevice,
                                                                     const VkImageSparseMemoryRequirementsInfo2*,
                                                                     uint32_t* count,
                                                                     VkSparseImageMemoryRequirements2*) {
  *count = 0;
}

// The layout of one level and layer (any aspect: D24S8 interleaves depth and stencil in one
// texel). A level or layer outside the image is invalid usage: answered with zeros.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetImageSubresourceLayout(VkDevice, VkImage image_handle,
                                                             const VkImageSubresource* subresource,
                                                             VkSubresourceLayout* out) {
  const ImageLayout& layout = from_handle<Image>(image_handle)->layout;
  *out = {};
  const uint32_t layers = layout.shape.type == VK_IMAGE_TYPE_3D ? 1 : layout.shape.array_layers;
  if (subresource->mipLevel >= layout.shape.mip_levels || subresource->arrayLayer >= layers) {
    std::fprintf(stderr, "gsgpu-vk: vkGetImageSubresourceLayout: level %u layer %u outside the image\n",
                 subresource->mipLevel, subresource->arrayLayer);
    return;
  }
  const LevelLayout& level = layout.levels[subresource->mipLevel];
  out->offset = level.offset + uint64_t{subresource->arrayLayer} * level.slice_pitch;
  out->size = level.slice_pitch * (layout.shape.type == VK_IMAGE_TYPE_3D ? level.depth : 1);
  out->rowPitch = level.row_pitch;
  out->arrayPitch = level.slice_pitch;
  out->depthPitch = level.slice_pitch;
}

}  // namespace gsgpu::vk
