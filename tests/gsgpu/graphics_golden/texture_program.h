// The gsgpu side of the textured golden scenes (docs/graphics.md "Texturing"): a Scene's Texture as
// an IMAGE_DESC with its texels in the texture unit's PACKED mip layout, its TextureSampler as a
// SAMPLER_STATE word, and the fragment program that samples it with v_image_sample_implicit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/gsgpu/graphics_golden/scene.h"

namespace gsgpu::golden {

// The IMAGE_DESC words (BASE_VA 0: the caller sets BASE_VA_LO / HI) and the texels laid out as the
// texture unit reads them; false with *error for a texture the scene got wrong.
bool texture_image(const Texture& texture, std::vector<uint32_t>* desc_words, std::vector<uint8_t>* texels,
                   std::string* error);
void set_image_base(std::vector<uint32_t>* desc_words, uint64_t base_va);

uint32_t sampler_state_word(const TextureSampler& sampler);

// Interpolates varyings 0, 1 (the colour's x, y) perspective-correct, samples the image at desc_va
// with the implicit LOD and exports the texel as colour 0. Registers: 20 vector.
// `lod_bias` (the sampler's mipLodBias) goes in the coordinates' fourth channel.
std::string textured_fragment_program(uint64_t desc_va, uint32_t sampler_word, float lod_bias);
inline constexpr uint32_t kTexturedProgramVectorRegisters = 20;

}  // namespace gsgpu::golden
