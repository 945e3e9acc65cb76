// A VkSamplerCreateInfo as gsgpu's texture unit reads a sampler: the SAMPLER_STATE word and the
// SAMPLER_DESC (protocol/gsgpu/gsgpu.xml <blocks>). The emulator reads only the word so far
// (gsgpu/emu/texture decode_sampler); the descriptor also carries the exact LOD clamps, the
// mipLodBias and the border colour for when it does.
#pragma once

#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace gsgpu::vk {

// The 8 SAMPLER_DESC words (word 0 is the SAMPLER_STATE word), or nullopt with *why for what the
// texture unit cannot do: depth compare, anisotropy, MIRROR_CLAMP_TO_EDGE, repeat addressing with
// unnormalised coordinates, maxLod below minLod, a custom border colour.
std::optional<std::array<uint32_t, 8>> translate_sampler(const VkSamplerCreateInfo& info, std::string* why);

}  // namespace gsgpu::vk
