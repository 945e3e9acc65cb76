// VkImage: a format, one linear layout (image_layout.h, the same for OPTIMAL and LINEAR tiling) and,
// once bound, a range of a memory object mapped at a GPU VA as a buffer's (page-aligned offset,
// page-rounded size: a VA binding is page granular). What may be created is what
// vkGetPhysicalDeviceImageFormatProperties answers (image_format_properties); anything else is
// refused with a log line (docs/vulkan-driver.md "Images").
#include <bit>
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {


// The format features each usage needs; a usage no format supports (storage) needs a feature no
// format has. An input attachment needs an attachment format (the spec's rule); the usage may be
// declared (zink declares it on every render target), while a subpass that reads an input
// attachment is refused by vkCreateRenderPass.
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

bool input_attachment_format(const FormatInfo& info) { return info.color_target || info.depth_target;
}

constexpr VkImageUsageFlags kKnownUsage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
    VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
constexpr VkImageCreateFlags kKnownFlags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT |
                                          VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT | VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT |
                                          VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
constexpr VkImageUsageFlags kAttachmentUsage =
    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;

// Why this combination is not supported, or nullptr when it is.
const char* unsupported(const FormatInfo* info, VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
                        VkImageCreateFlags flags) {
  if (info == nullptr) return "format not supported";
  if (tiling != VK_IMAGE_TILING_OPTIMAL && tiling != VK_IMAGE_TILING_LINEAR) return "tiling not supported";
  if (type != VK_IMAGE_TYPE_1D && type != VK_IMAGE_TYPE_2D && type != VK_IMAGE_TYPE_3D) return "unknown image type";
  // MUTABLE_FORMAT: views in another format of the same texel size (the layout does not change).
  // 2D_ARRAY_COMPATIBLE (VK_KHR_maintenance1): a 3D level's slices viewed as 2D layers, which the
  // linear layout already places a slice pitch apart. EXTENDED_USAGE (VK_KHR_maintenance2): a usage
  // that a view format, not the image's, supports.
  if ((flags & ~kKnownFlags) != 0)
    return "create flags other than MUTABLE_FORMAT, 2D_ARRAY_COMPATIBLE, CUBE_COMPATIBLE, EXTENDED_USAGE";
  // CUBE_COMPATIBLE: cube views of six layers of a square 2D image (the shape: vkCreateImage).
  if ((flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) && type != VK_IMAGE_TYPE_2D) return "CUBE_COMPATIBLE on an image that is not 2D";
  if ((flags & VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT) && type != VK_IMAGE_TYPE_3D) {
    return "2D_ARRAY_COMPATIBLE on an image that is not 3D";
  }
  if ((flags & VK_IMAGE_CREATE_EXTENDED_USAGE_BIT) && !(flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT)) {
    return "EXTENDED_USAGE without MUTABLE_FORMAT";
  }
  // ATTACHMENT_FEEDBACK_LOOP (VK_EXT_attachment_feedback_loop_layout, not offered): Mesa 22.3's zink
  // sets it on its render targets whatever the device offers (measured: its first context's dummy
  // surface asks for usage 0x80097). It asks that an attachment be sampled while it is rendered to,
  // which the device's linear images already allow: the bit is accepted and changes nothing.
  usage &= ~VkImageUsageFlags{VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT};
  if (usage == 0 || (usage & ~kKnownUsage) != 0) return "usage with an unknown bit";
  if ((usage & VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT) && !input_attachment_format(*info)) {
    return "input attachment usage on a format that is no attachment format";
  }
  if ((usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) && !(usage & kAttachmentUsage)) {
    return "transient without an attachment usage";
  }
  const VkFormatFeatureFlags needed = features_for(usage);
  if (!(flags & VK_IMAGE_CREATE_EXTENDED_USAGE_BIT) && (format_features(info) & needed) != needed) {
    return "a usage the format does not support";
  }
  // A 1D level is a render target one row high (zink gives every colour-renderable texture, 1D ones
  // included, colour-attachment usage; GL 1.1's 1D textures failed with GL_OUT_OF_MEMORY without it).
  const bool slices_as_layers = type == VK_IMAGE_TYPE_3D && (flags & VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT);
  const bool one_row_target = type == VK_IMAGE_TYPE_1D && !(usage & VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT);
  if ((usage & kAttachmentUsage) && type != VK_IMAGE_TYPE_2D && !slices_as_layers && !one_row_target) {
    return "attachments are 2D, 1D colour, or 2D views of a 2D_ARRAY_COMPATIBLE 3D image";
  }
  if ((info->aspects & VK_IMAGE_ASPECT_COLOR_BIT) == 0 && type != VK_IMAGE_TYPE_2D) return "depth images are 2D";
  return nullptr;
}

// VK_KHR_image_format_list: the formats the image's views will have. Informational for a linear
// layout, but each must be one a view could have: the image's own, or with MUTABLE_FORMAT a
// supported format of the same texel size and aspects.
const char* check_format_list(const VkImageCreateInfo& info, const FormatInfo& format) {
  const auto* list = find_in_chain<VkImageFormatListCreateInfo>(info.pNext, VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO);
  if (list == nullptr || list->viewFormatCount == 0) return nullptr;
  if (list->pViewFormats == nullptr) return "a view format list with a null pViewFormats";
  const bool mutable_format = (info.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) != 0;
  if (!mutable_format && (list->viewFormatCount != 1 || list->pViewFormats[0] != info.format)) {
    return "a view format list other than the image's format without MUTABLE_FORMAT";
  }
  for (uint32_t i = 0; i < list->viewFormatCount; ++i) {
    const FormatInfo* view = find_format(list->pViewFormats[i]);
    if (view == nullptr || view->element_bytes != format.element_bytes || view->aspects != format.aspects) {
      return "a view format that is unsupported or of another texel size";
    }
  }
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
  props->sampleCounts = image_sample_counts(*find_format(format), type, tiling, usage, flags);
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
  if (const char* why = check_format_list(*info, *format)) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: %s; refused\n", why);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  if ((info->flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) &&
      (info->extent.width != info->extent.height || info->arrayLayers < 6)) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: CUBE_COMPATIBLE needs a square image of at least 6 layers; refused\n");
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  const VkSampleCountFlags counts =
      image_sample_counts(*format, info->imageType, info->tiling, info->usage, info->flags);
  if (!std::has_single_bit(uint32_t(info->samples)) || (info->samples & counts) == 0) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImage: %d samples; this image may have 0x%x; refused\n", info->samples,
                 counts);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  ImageShape shape{info->imageType,   info->extent.width, info->extent.height, info->extent.depth,
                   info->arrayLayers, info->mipLevels,    format->element_bytes, uint32_t(info->samples)};
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
