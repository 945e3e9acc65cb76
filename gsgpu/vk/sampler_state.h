// A VkSamplerCreateInfo as gsgpu's texture unit reads a sampler: the SAMPLER_STATE word and the
// SAMPLER_DESC (protocol/gsgpu/gsgpu.xml <blocks>). The texture unit reads the word, and for a
// custom border colour (BORDER CUSTOM) the descriptor's BORDER_R..A from the texture record; the
// compiled shader reads the mipLodBias from it.
#pragma once

#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace gsgpu::vk {

// The 8 SAMPLER_DESC words (word 0 is the SAMPLER_STATE word), or nullopt with *why for what the
// texture unit cannot do: depth compare, anisotropy, repeat or mirror addressing with unnormalised
// coordinates, maxLod below minLod, a custom border colour without its create info.
std::optional<std::array<uint32_t, 8>> translate_sampler(const VkSamplerCreateInfo& info, std::string* why);

}  // namespace gsgpu::vk
