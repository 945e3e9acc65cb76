// VkSamplerCreateInfo -> SAMPLER_STATE / SAMPLER_DESC (sampler_state.h). The LOD clamps go into the
// word in quarter levels: minLod rounded down (0 .. 15.75), maxLod rounded down plus one
// (1 .. 63 = 0 .. 15.5), or 0 (no clamp) from 15.5 on, which with at most 15 levels (LOD 14) clamps
// nothing. Rounding both down keeps MAX_LOD - 1 >= MIN_LOD whenever maxLod >= minLod.
#include "gsgpu/vk/sampler_state.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

namespace smp = hw::blk::SAMPLER_STATE;

std::nullopt_t refuse(std::string* why, const char* reason) {
  if (why != nullptr) *why = reason;
  return std::nullopt;
}

// ADDRESS_U code of a Vulkan addressing mode; 0 for one the texture unit does not have.
uint32_t address_code(VkSamplerAddressMode mode) {
  switch (mode) {
    case VK_SAMPLER_ADDRESS_MODE_REPEAT: return smp::STATE_ADDRESS_U_REPEAT;
    case VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT: return smp::STATE_ADDRESS_U_MIRRORED_REPEAT;
    case VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE: return smp::STATE_ADDRESS_U_CLAMP_TO_EDGE;
    case VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER: return smp::STATE_ADDRESS_U_CLAMP_TO_BORDER;
    case VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE: return smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE;
    default: return 0;  // unknown values
  }
}

// BORDER code of a built-in border colour; the float and integer forms are the same values.
bool border_code(VkBorderColor colour, uint32_t* code) {
  switch (colour) {
    case VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK:
    case VK_BORDER_COLOR_INT_TRANSPARENT_BLACK: *code = smp::STATE_BORDER_TRANSPARENT_BLACK; return true;
    case VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK:
    case VK_BORDER_COLOR_INT_OPAQUE_BLACK: *code = smp::STATE_BORDER_OPAQUE_BLACK; return true;
    case VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE:
    case VK_BORDER_COLOR_INT_OPAQUE_WHITE: *code = smp::STATE_BORDER_OPAQUE_WHITE; return true;
    // VK_EXT_custom_border_color: the colour's words go into SAMPLER_DESC BORDER_R..A.
    case VK_BORDER_COLOR_FLOAT_CUSTOM_EXT:
    case VK_BORDER_COLOR_INT_CUSTOM_EXT: *code = smp::STATE_BORDER_CUSTOM; return true;
    default: return false;
  }
}

const VkSamplerCustomBorderColorCreateInfoEXT* find_custom_border(const void* next) {
  for (auto* s = static_cast<const VkBaseInStructure*>(next); s != nullptr; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT) {
      return reinterpret_cast<const VkSamplerCustomBorderColorCreateInfoEXT*>(s);
    }
  }
  return nullptr;
}

uint32_t quarters(float lod) {
  if (!(lod > 0.0f)) return 0;  // negative and NaN
  return lod >= 15.75f ? 63u : static_cast<uint32_t>(std::floor(lod * 4.0f));
}

}  // namespace

std::optional<std::array<uint32_t, 8>> translate_sampler(const VkSamplerCreateInfo& info, std::string* why) {
  // Depth compare: COMPARE is 1 + VkCompareOp (0 is "off"); the unit applies it to depth views.
  uint32_t compare = 0;
  if (info.compareEnable) {
    if (static_cast<uint32_t>(info.compareOp) > VK_COMPARE_OP_ALWAYS) return refuse(why, "an unknown compareOp");
    compare = static_cast<uint32_t>(info.compareOp) + 1;
  }
  if (info.anisotropyEnable) return refuse(why, "anisotropic filtering (samplerAnisotropy is not offered)");
  if (info.flags != 0) return refuse(why, "sampler create flags");
  const uint32_t modes[3] = {address_code(info.addressModeU), address_code(info.addressModeV),
                             address_code(info.addressModeW)};
  const bool normalized = !info.unnormalizedCoordinates;
  for (uint32_t mode : modes) {
    if (mode == 0) return refuse(why, "an unknown addressing mode");
    if (!normalized && (mode == smp::STATE_ADDRESS_U_REPEAT || mode == smp::STATE_ADDRESS_U_MIRRORED_REPEAT ||
                        mode == smp::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE)) {
      return refuse(why, "repeat or mirror addressing with unnormalised coordinates");
    }
  }
  uint32_t border = 0;
  if (!border_code(info.borderColor, &border)) return refuse(why, "an unknown border colour");
  uint32_t border_words[4] = {0, 0, 0, 0};
  if (border == smp::STATE_BORDER_CUSTOM) {
    const auto* custom = find_custom_border(info.pNext);
    if (custom == nullptr) return refuse(why, "a custom border colour without VkSamplerCustomBorderColorCreateInfoEXT");
    // Kept as given (float or integer bits) whatever the format: customBorderColorWithoutFormat.
    std::memcpy(border_words, custom->customBorderColor.uint32, sizeof border_words);
  }
  if (info.maxLod < info.minLod) return refuse(why, "maxLod below minLod");
  const uint32_t min_lod = quarters(info.minLod);
  const uint32_t max_lod = info.maxLod >= 15.5f ? 0u : quarters(info.maxLod) + 1;
  uint32_t state = (normalized ? smp::STATE_NORMALIZED_MASK : 0u) | (modes[0] << smp::STATE_ADDRESS_U_SHIFT) |
                   (modes[1] << smp::STATE_ADDRESS_V_SHIFT) | (modes[2] << smp::STATE_ADDRESS_W_SHIFT) |
                   (border << smp::STATE_BORDER_SHIFT) | (min_lod << smp::STATE_MIN_LOD_SHIFT) |
                   (max_lod << smp::STATE_MAX_LOD_SHIFT) | (compare << smp::STATE_COMPARE_SHIFT);
  if (info.magFilter == VK_FILTER_LINEAR) state |= smp::STATE_MAG_FILTER_MASK;
  if (info.minFilter == VK_FILTER_LINEAR) state |= smp::STATE_MIN_FILTER_MASK;
  // Vulkan always selects a level: NEAREST is the unit's "nearest level" (1), LINEAR its 2.
  state |= (info.mipmapMode == VK_SAMPLER_MIPMAP_MODE_LINEAR ? 2u : 1u) << smp::STATE_MIP_FILTER_SHIFT;
  return std::array<uint32_t, 8>{state,
                                 std::bit_cast<uint32_t>(info.minLod),
                                 std::bit_cast<uint32_t>(info.maxLod),
                                 std::bit_cast<uint32_t>(info.mipLodBias),
                                 border_words[0], border_words[1], border_words[2], border_words[3]};
}

}  // namespace gsgpu::vk
