// Where an image's texels lie in its memory: the one linear layout of the gsgpu Vulkan driver,
// shared by OPTIMAL and LINEAR tiling, chosen to be what the texture unit reads from an IMAGE_DESC
// with MIP_LAYOUT PACKED (protocol/gsgpu/gsgpu.xml) and what a render target is (a base address
// and a row pitch, PIPE_STATE COLOR_* / DEPTH_*):
//   - level n is max(1, extent >> n) per axis; its rows are width x element bytes (x samples) rounded up to
//     kRowAlign (64) bytes, its slices (3D) or layers (arrays) row pitch x height apart;
//   - level 0 starts at offset 0, level n + 1 at the end of level n's slices or layers rounded up
//     to 256 bytes (the texture unit's rule);
//   - the image's size is the end of the last level rounded up to 256 bytes.
// So an IMAGE_DESC with BASE_VA = the image's address, ROW_PITCH / SLICE_PITCH of level 0 and
// MIP_ROW_ALIGN_LOG2 6 addresses every level the way this layout stores it
// (test ImageLayout.DescriptorDecodedByTheTextureUnitMatchesTheLayout).
#pragma once

#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "gsgpu/vk/format.h"

namespace gsgpu::vk {

inline constexpr uint32_t kRowAlignLog2 = 6;
inline constexpr uint64_t kRowAlign = uint64_t{1} << kRowAlignLog2;
inline constexpr uint64_t kMipLevelAlign = 256;
inline constexpr uint32_t kMaxMipLevels = 15;  // IMAGE_DESC FORMAT.MIP_LEVELS

// The device's image limits (VkPhysicalDeviceLimits, vkGetPhysicalDeviceImageFormatProperties):
// 4096 is the output merger's largest target (PIPE_STATE TARGET_SIZE); 3D images and layer
// counts are kept at 2048 so that no image's size computation comes near 2^64.
inline constexpr uint32_t kMaxImageDimension = 4096;
inline constexpr uint32_t kMaxImageDimension3D = 2048;
inline constexpr uint32_t kMaxArrayLayers = 2048;

struct ImageShape {
  VkImageType type = VK_IMAGE_TYPE_2D;
  uint32_t width = 1, height = 1, depth = 1;
  uint32_t array_layers = 1;
  uint32_t mip_levels = 1;
  uint32_t element_bytes = 4;
  // 1, 2 or 4 (one level, 2D): a multisampled image holds a pixel's samples side by side, so its rows
  // are width x samples x element bytes (docs/graphics.md "Multisampling").
  uint32_t samples = 1;
};

struct LevelLayout {
  uint32_t width = 1, height = 1, depth = 1;
  uint64_t offset = 0;       // bytes from the image's start to texel (0, 0, 0) of layer 0
  uint64_t row_pitch = 0;
  uint64_t slice_pitch = 0;  // between slices of a 3D level and between layers of an array
};

struct ImageLayout {
  ImageShape shape;
  std::array<LevelLayout, kMaxMipLevels> levels{};
  uint64_t size = 0;  // the end of the last level, rounded up to kMipLevelAlign

  // Slices (3D: the level's depth) or layers (arrays) level `level` stores.
  uint32_t slices(uint32_t level) const;
  // The byte of texel (x, y, z) of `layer` in `level` (of its sample 0 when multisampled); the caller
  // keeps them inside the level.
  uint64_t texel_offset(uint32_t level, uint32_t layer, uint32_t x, uint32_t y, uint32_t z) const;
};

// The largest mip count an image of this extent may have: floor(log2(max dimension)) + 1.
uint32_t max_mip_levels(uint32_t width, uint32_t height, uint32_t depth);

// Checks a shape against the device's limits (each dimension 1 .. its maximum, 1D height = depth
// = 1, 2D depth 1, 3D one layer, mips 1 .. max_mip_levels) and lays it out; nullopt with the
// reason in *why when it breaks one.
std::optional<ImageLayout> compute_image_layout(const ImageShape& shape, std::string* why);

// What an image view shows: a view type, levels and layers of an image, a component mapping.
struct ViewShape {
  VkImageViewType type = VK_IMAGE_VIEW_TYPE_2D;
  uint32_t base_level = 0, level_count = 1;
  uint32_t base_layer = 0, layer_count = 1;
  VkComponentMapping components{};  // IDENTITY everywhere: no swizzle
};

// The IMAGE_DESC words (16) the texture unit reads for `view` of an image laid out as `layout`
// at GPU address `va`, in format `format`; nullopt (with *why) for a view the descriptor cannot
// express: a cube view (IMAGE_CUBE is reserved), or several levels of a layer sub-range (the
// PACKED rule puts level n + 1 after all the layers of level n).
std::optional<std::array<uint32_t, 16>> image_desc_words(const ImageLayout& layout, uint64_t va,
                                                         const FormatInfo& format, const ViewShape& view,
                                                         std::string* why);

}  // namespace gsgpu::vk
