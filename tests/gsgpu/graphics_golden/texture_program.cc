#include "tests/gsgpu/graphics_golden/texture_program.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "gsgpu/emu/texture/texture_unit.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::golden {

namespace desc = hw::blk::IMAGE_DESC;
namespace smp = hw::blk::SAMPLER_STATE;
using hw::put_field;

bool texture_image(const Texture& t, std::vector<uint32_t>* words, std::vector<uint8_t>* texels, std::string* error) {
  const uint32_t order = t.format == kR8G8B8A8Srgb ? desc::FORMAT_CHANNEL_ORDER_SRGBA : desc::FORMAT_CHANNEL_ORDER_RGBA;
  const auto levels = uint32_t(t.levels.size());
  std::vector<uint32_t>& w = *words;
  w.assign(desc::SIZE_DWORDS, 0);
  const uint32_t unorm8 = desc::FORMAT_DATA_TYPE_UNORM_INT8;
  w[desc::FORMAT] = put_field(order, desc::FORMAT_CHANNEL_ORDER_MASK, desc::FORMAT_CHANNEL_ORDER_SHIFT) |
                    put_field(unorm8, desc::FORMAT_DATA_TYPE_MASK, desc::FORMAT_DATA_TYPE_SHIFT) |
                    put_field(desc::FORMAT_TYPE_IMAGE_2D, desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT) |
                    put_field(levels, desc::FORMAT_MIP_LEVELS_MASK, desc::FORMAT_MIP_LEVELS_SHIFT) |
                    put_field(levels > 1 ? desc::FORMAT_MIP_LAYOUT_PACKED : desc::FORMAT_MIP_LAYOUT_SINGLE,
                              desc::FORMAT_MIP_LAYOUT_MASK, desc::FORMAT_MIP_LAYOUT_SHIFT);
  w[desc::WIDTH] = t.width;
  w[desc::HEIGHT] = t.height;
  w[desc::DEPTH] = w[desc::ARRAY_SIZE] = 1;
  w[desc::ROW_PITCH] = t.width * 4;
  texture::Image image;
  if (!texture::decode_image(w, &image, error)) return false;
  texels->assign(image.extent_bytes, 0);
  for (uint32_t level = 0; level < levels; ++level) {
    const texture::Extent e = image.level_size(level);
    if (t.levels[level].size() != size_t{e.width} * e.height * 4) {
      *error = "texture level " + std::to_string(level) + " has the wrong size";
      return false;
    }
    for (uint32_t y = 0; y < e.height; ++y)
      std::memcpy(texels->data() + image.level_offset[level] + y * image.row_pitch[level],
                  t.levels[level].data() + size_t{y} * e.width * 4, size_t{e.width} * 4);
  }
  return true;
}

void set_image_base(std::vector<uint32_t>* words, uint64_t base_va) {
  (*words)[desc::BASE_VA_LO] = uint32_t(base_va);
  (*words)[desc::BASE_VA_HI] = uint32_t(base_va >> 32);
}

uint32_t sampler_state_word(const TextureSampler& s) {
  // VkSamplerAddressMode 0 repeat, 1 mirrored repeat, 2 clamp to edge, 3 clamp to border.
  const uint32_t address[4] = {smp::STATE_ADDRESS_U_REPEAT, smp::STATE_ADDRESS_U_MIRRORED_REPEAT,
                               smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, smp::STATE_ADDRESS_U_CLAMP_TO_BORDER};
  const uint32_t border = s.border == 4 ? smp::STATE_BORDER_OPAQUE_WHITE
                          : s.border == 2 ? smp::STATE_BORDER_OPAQUE_BLACK
                                          : smp::STATE_BORDER_TRANSPARENT_BLACK;
  // MAX_LOD in quarter levels plus one; past the 15 levels an image may have: no clamp.
  const uint32_t min_lod = std::min<uint32_t>(63, uint32_t(std::lround(std::max(0.0f, s.min_lod) * 4)));
  const uint32_t max_lod = s.max_lod >= 15.5f ? 0 : uint32_t(std::lround(std::max(0.0f, s.max_lod) * 4)) + 1;
  return put_field(1, smp::STATE_NORMALIZED_MASK, smp::STATE_NORMALIZED_SHIFT) |
         put_field(address[s.address_u & 3], smp::STATE_ADDRESS_U_MASK, smp::STATE_ADDRESS_U_SHIFT) |
         put_field(address[s.address_v & 3], smp::STATE_ADDRESS_V_MASK, smp::STATE_ADDRESS_V_SHIFT) |
         put_field(smp::STATE_ADDRESS_U_CLAMP_TO_EDGE, smp::STATE_ADDRESS_W_MASK, smp::STATE_ADDRESS_W_SHIFT) |
         put_field(s.mag_linear, smp::STATE_MAG_FILTER_MASK, smp::STATE_MAG_FILTER_SHIFT) |
         put_field(s.min_linear, smp::STATE_MIN_FILTER_MASK, smp::STATE_MIN_FILTER_SHIFT) |
         put_field(s.mipmap_linear ? 2 : 1, smp::STATE_MIP_FILTER_MASK, smp::STATE_MIP_FILTER_SHIFT) |
         put_field(border, smp::STATE_BORDER_MASK, smp::STATE_BORDER_SHIFT) |
         put_field(min_lod, smp::STATE_MIN_LOD_MASK, smp::STATE_MIN_LOD_SHIFT) |
         put_field(max_lod, smp::STATE_MAX_LOD_MASK, smp::STATE_MAX_LOD_SHIFT);
}

std::string textured_fragment_program(uint64_t desc_va, uint32_t sampler_word, float lod_bias) {
  return "v_interp_persp_f32 v12, 0\nv_interp_persp_f32 v13, 1\nv_mov_b32 v14, 0\nv_mov_b32 v15, " +
         std::to_string(std::bit_cast<uint32_t>(lod_bias)) + "\n"
         "v_mov_b32 v8, " + std::to_string(uint32_t(desc_va)) + "\nv_mov_b32 v9, " +
         std::to_string(uint32_t(desc_va >> 32)) + "\n"
         "v_image_sample_implicit v[16:19], v[8:9], v[12:15], " + std::to_string(sampler_word) + "\n"
         "v_export_f32 v16, 0\nv_export_f32 v17, 1\nv_export_f32 v18, 2\nv_export_f32 v19, 3\ns_end\n";
}

}  // namespace gsgpu::golden
