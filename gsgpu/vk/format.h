// The image formats of the gsgpu Vulkan driver: the VkFormats gsgpu's texture unit can read (an
// IMAGE_DESC channel order and data type, protocol/gsgpu/gsgpu.xml) and which of them its output
// merger can render to (PIPE_STATE COLOR_FORMAT / DEPTH_FORMAT). Every other VkFormat is
// unsupported. Also how a texel's components lie in its bytes, for the host-side clears
// (docs/vulkan-driver.md "Images").
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>

namespace gsgpu::vk {

// How a format's components are stored.
// kUfloat: unsigned 11- / 10-bit floats (B10G11R11); kSharedExponent: E5B9G9R9's mantissas, whose
// texel is converted whole.
enum class NumericKind : uint8_t { kUnorm, kSnorm, kUint, kSint, kSfloat, kSrgb, kUfloat, kSharedExponent };

// One stored component: which of r, g, b, a (0..3) it holds, at which bit of the texel, how wide.
struct Component {
  uint8_t channel;
  uint8_t bit_offset;
  uint8_t bits;
};

struct FormatInfo {
  VkFormat format;
  uint32_t element_bytes;    // one texel
  uint32_t channel_order;    // IMAGE_DESC FORMAT.CHANNEL_ORDER the texture unit reads it as
  uint32_t data_type;        // IMAGE_DESC FORMAT.DATA_TYPE
  NumericKind kind;          // colour formats: every component (sRGB: r, g, b; alpha is UNORM)
  uint8_t component_count;   // colour components in `components`
  Component components[4];
  bool color_target;         // PIPE_STATE COLOR_FORMAT accepts it
  bool depth_target;         // PIPE_STATE DEPTH_FORMAT accepts it
  VkImageAspectFlags aspects;
};

// The format's entry, or nullptr when the device does not support it.
const FormatInfo* find_format(VkFormat format);

// Every supported format (the tests walk it).
const FormatInfo* supported_formats(uint32_t* count);

// The optimal- and linear-tiling features of a supported format (the same: both tilings share one
// linear layout); 0 for an unsupported one.
VkFormatFeatureFlags format_features(const FormatInfo* info);

// Where one aspect lies in a stored texel (`bytes` bytes from `offset`) and the bytes it takes in a
// buffer copy: the whole texel for colour and single-aspect formats; D24S8's depth bytes 0..2 (a
// 4-byte word in a buffer, top byte 0), its stencil byte 3; D32S8's depth bytes 0..3 (a float),
// its stencil byte 4 (1 byte in a buffer). All zero for an aspect the format lacks or several bits.
struct AspectPlacement {
  uint32_t offset = 0, bytes = 0, buffer_bytes = 0;
};
AspectPlacement aspect_placement(const FormatInfo& info, VkImageAspectFlags aspect);

// Bytes one texel of `aspect` takes in a buffer copy (aspect_placement's buffer_bytes); 0 for an
// aspect the format lacks.
uint32_t copy_texel_bytes(const FormatInfo& info, VkImageAspectFlags aspect);

// A clear colour written as one stored texel of a colour format (element_bytes bytes at `out`),
// with Vulkan's conversions: UNORM / SNORM rounded to nearest and clamped, sRGB encoded for r, g, b,
// integers truncated to the component's width, floats as binary16 / binary32.
void encode_clear_color(const FormatInfo& info, const VkClearColorValue& value, uint8_t* out);

// The inverse for colour formats: a stored texel as the values a shader would read (floats for
// UNORM / SNORM / sRGB (decoded to linear) / SFLOAT, integers for UINT / SINT); channels the format
// lacks read as 0, alpha as 1. vkCmdBlitImage converts and filters through it.
VkClearColorValue decode_color(const FormatInfo& info, const uint8_t* texel);

}  // namespace gsgpu::vk
