// VkImageView and VkSampler. A view is checked against its image (bound, levels and layers inside
// it, a view type of the image's type, the image's format or, with MUTABLE_FORMAT, one of the same
// texel size, aspects the format has) and keeps what the device will be given for it: the IMAGE_DESC
// words (image_layout.h) and, for one level, the render-target address and pitch. A sampler keeps
// its SAMPLER_STATE / SAMPLER_DESC words (sampler_state.h). A refused view or sampler is a log line
// and an error code (docs/vulkan-driver.md "Images").
#include <algorithm>
#include <cstdio>
#include <new>

#include "gsgpu/vk/entry_points.h"
#include "gsgpu/vk/sampler_state.h"

namespace gsgpu::vk {
namespace {

bool view_type_fits(VkImageType image, VkImageViewType view, uint32_t layers, bool slices_as_layers,
                    bool cube_compatible) {
  // VK_KHR_maintenance1: a 2D_ARRAY_COMPATIBLE 3D image has 2D and 2D-array views of one level.
  if (slices_as_layers && image == VK_IMAGE_TYPE_3D) {
    if (view == VK_IMAGE_VIEW_TYPE_2D) return layers == 1;
    if (view == VK_IMAGE_VIEW_TYPE_2D_ARRAY) return true;
  }
  switch (view) {
    case VK_IMAGE_VIEW_TYPE_1D: return image == VK_IMAGE_TYPE_1D && layers == 1;
    case VK_IMAGE_VIEW_TYPE_1D_ARRAY: return image == VK_IMAGE_TYPE_1D;
    case VK_IMAGE_VIEW_TYPE_2D: return image == VK_IMAGE_TYPE_2D && layers == 1;
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY: return image == VK_IMAGE_TYPE_2D;
    case VK_IMAGE_VIEW_TYPE_3D: return image == VK_IMAGE_TYPE_3D;
    // Six layers of a CUBE_COMPATIBLE (so square) image; no cube arrays (imageCubeArray is off).
    case VK_IMAGE_VIEW_TYPE_CUBE: return image == VK_IMAGE_TYPE_2D && cube_compatible && layers == 6;
    default: return false;
  }
}

// Why the view is invalid, or nullptr; fills *shape with the resolved level and layer counts.
const char* check_view(const Image& image, const VkImageViewCreateInfo& info, const FormatInfo* format,
                       ViewShape* shape) {
  if (image.memory == nullptr) return "image not bound to memory";
  if (format == nullptr) return "format not supported";
  if (format != image.format &&
      (!(image.flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) || format->element_bytes != image.format->element_bytes ||
       format->aspects != image.format->aspects)) {
    return "a format other than the image's (without MUTABLE_FORMAT, or of another texel size)";
  }
  const VkImageSubresourceRange& r = info.subresourceRange;
  if (r.aspectMask == 0 || (r.aspectMask & ~image.format->aspects) != 0) return "aspects the format does not have";
  const ImageShape& s = image.layout.shape;
  if (r.baseMipLevel >= s.mip_levels) return "levels or layers outside the image";
  // A 2D / 2D-array view of a 2D_ARRAY_COMPATIBLE 3D image: its layers are the level's slices.
  const bool slices_as_layers = s.type == VK_IMAGE_TYPE_3D && (image.flags & VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT) &&
                                (info.viewType == VK_IMAGE_VIEW_TYPE_2D || info.viewType == VK_IMAGE_VIEW_TYPE_2D_ARRAY);
  const uint32_t layers = slices_as_layers ? std::max(1u, s.depth >> r.baseMipLevel)
                          : s.type == VK_IMAGE_TYPE_3D ? 1
                                                       : s.array_layers;
  if (slices_as_layers && r.levelCount != 1) return "a 2D view of a 3D image with other than one level";
  if (r.baseArrayLayer >= layers) return "levels or layers outside the image";
  shape->type = info.viewType;
  shape->base_level = r.baseMipLevel;
  shape->level_count = r.levelCount == VK_REMAINING_MIP_LEVELS ? s.mip_levels - r.baseMipLevel : r.levelCount;
  shape->base_layer = r.baseArrayLayer;
  shape->layer_count = r.layerCount == VK_REMAINING_ARRAY_LAYERS ? layers - r.baseArrayLayer : r.layerCount;
  shape->components = info.components;
  if (shape->level_count == 0 || shape->level_count > s.mip_levels - r.baseMipLevel || shape->layer_count == 0 ||
      shape->layer_count > layers - r.baseArrayLayer) {
    return "levels or layers outside the image";
  }
  const bool cube_compatible = (image.flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) != 0;
  if (!view_type_fits(s.type, info.viewType, shape->layer_count, slices_as_layers, cube_compatible))
    return "a view type the image's type cannot have (a cube: 6 layers of a CUBE_COMPATIBLE image)";
  return nullptr;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateImageView(VkDevice, const VkImageViewCreateInfo* info,
                                                       const VkAllocationCallbacks*, VkImageView* out) {
  Image* image = from_handle<Image>(info->image);
  const FormatInfo* format = find_format(info->format);
  ViewShape shape;
  const char* why = image == nullptr ? "no image" : check_view(*image, *info, format, &shape);
  std::string desc_why;
  std::optional<std::array<uint32_t, 16>> desc;
  if (why == nullptr) {
    desc = image_desc_words(image->layout, image->va, *format, shape, &desc_why);
    // A swizzle the descriptor cannot hold is an invalid view; a layer sub-range of several levels
    // is valid Vulkan the descriptor cannot express: the view exists, without a descriptor.
    if (!desc && desc_why.find("swizzle") != std::string::npos) why = "an unknown component swizzle";
    // The texture unit reads D24S8 as its depth: a stencil-only view cannot be sampled (an
    // attachment view still can be made).
    if (info->subresourceRange.aspectMask == VK_IMAGE_ASPECT_STENCIL_BIT) desc.reset();
    // 2D views of a 3D image's slices (maintenance1) are render targets; the texture unit's
    // IMAGE_DESC has no 2D-array form of a 3D level, so they are not sampled.
    if (image->layout.shape.type == VK_IMAGE_TYPE_3D && info->viewType != VK_IMAGE_VIEW_TYPE_3D) desc.reset();
    // A multisampled image is read one sample at a time (IMAGE_DESC SAMPLES_LOG2, texelFetch) in
    // 2D and 2D-array views; the descriptor holds the sample count (image_desc_words).
  }
  // VK_KHR_maintenance2: a view may narrow its image's usage (never widen it).
  VkImageUsageFlags usage = image != nullptr ? image->usage : 0;
  if (const auto* u = find_in_chain<VkImageViewUsageCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO)) {
    if (why == nullptr && (u->usage == 0 || (u->usage & ~usage) != 0)) why = "a view usage outside its image's usage";
    usage = u->usage;
  }
  if (why != nullptr) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateImageView: %s; refused\n", why);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  auto* view = new (std::nothrow) ImageView;
  if (view == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  view->image = image;
  view->format = format;
  view->aspects = info->subresourceRange.aspectMask;
  view->usage = usage;
  view->shape = shape;
  view->image_desc = desc;
  const LevelLayout& level = image->layout.levels[shape.base_level];
  view->target_va = image->va + level.offset + uint64_t{shape.base_layer} * level.slice_pitch;
  view->target_pitch = level.row_pitch;
  view->layer_pitch = level.slice_pitch;
  view->width = level.width;
  view->height = level.height;
  *out = to_handle<VkImageView>(view);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyImageView(VkDevice, VkImageView view, const VkAllocationCallbacks*) {
  delete from_handle<ImageView>(view);
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateSampler(VkDevice, const VkSamplerCreateInfo* info,
                                                     const VkAllocationCallbacks*, VkSampler* out) {
  std::string why;
  std::optional<std::array<uint32_t, 8>> words = translate_sampler(*info, &why);
  if (words && find_in_chain<VkBaseInStructure>(info->pNext, VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO)) {
    why = "a Y'CbCr conversion (samplerYcbcrConversion is not offered)";
    words.reset();
  }
  if (!words) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateSampler: %s; refused\n", why.c_str());
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  auto* sampler = new (std::nothrow) Sampler;
  if (sampler == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  sampler->state = (*words)[0];
  sampler->desc = *words;
  *out = to_handle<VkSampler>(sampler);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroySampler(VkDevice, VkSampler sampler, const VkAllocationCallbacks*) {
  delete from_handle<Sampler>(sampler);
}

}  // namespace gsgpu::vk

namespace gsgpu::vk {

// Vulkan 1.1: the entry points exist (1.1 requires them), but the samplerYcbcrConversion feature is
// false, so no conversion can be created: a call is invalid usage, refused with a log line.
VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateSamplerYcbcrConversion(VkDevice, const VkSamplerYcbcrConversionCreateInfo*,
                                                                    const VkAllocationCallbacks*,
                                                                    VkSamplerYcbcrConversion* out) {
  std::fprintf(stderr, "gsgpu-vk: vkCreateSamplerYcbcrConversion: samplerYcbcrConversion is not offered; refused\n");
  *out = VK_NULL_HANDLE;
  return VK_ERROR_OUT_OF_HOST_MEMORY;  // the command's only failure codes are the out-of-memory ones
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroySamplerYcbcrConversion(VkDevice, VkSamplerYcbcrConversion,
                                                                 const VkAllocationCallbacks*) {}  // none exists

}  // namespace gsgpu::vk
