// The image layout of the Vulkan driver against the emulator's texture unit: every supported format
// is a channel order / data type pair the unit decodes with the same element size, and the
// IMAGE_DESC of a view, decoded by the unit (gsgpu::texture::decode_image), addresses every level
// and layer where the layout stores it. Also the layout's limits (bad shapes refused, not computed).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gsgpu/emu/texture/texel_format.h"
#include "gsgpu/emu/texture/texture_unit.h"
#include "gsgpu/vk/format.h"
#include "gsgpu/vk/image_layout.h"
#include "gsgpu/vk/sampler_state.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

TEST(ImageLayout, EveryFormatIsOneTheTextureUnitDecodes) {
  uint32_t count = 0;
  const FormatInfo* formats = supported_formats(&count);
  ASSERT_GE(count, 7u);
  for (uint32_t i = 0; i < count; ++i) {
    texture::TexelFormat texel;
    ASSERT_TRUE(texture::make_texel_format(formats[i].channel_order, formats[i].data_type, &texel))
        << "VkFormat " << formats[i].format;
    EXPECT_EQ(texel.element_bytes, formats[i].element_bytes) << "VkFormat " << formats[i].format;
  }
  for (VkFormat f : {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM,
                     VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_UINT,
                     VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM}) {
    ASSERT_NE(find_format(f), nullptr);
    EXPECT_TRUE(find_format(f)->color_target) << f;  // PIPE_STATE COLOR_FORMAT's nine
  }
  EXPECT_TRUE(find_format(VK_FORMAT_D32_SFLOAT)->depth_target);
  EXPECT_TRUE(find_format(VK_FORMAT_D24_UNORM_S8_UINT)->depth_target);
  EXPECT_EQ(find_format(VK_FORMAT_R8G8B8_UNORM), nullptr);  // 3-byte texels: no texture-unit format
  EXPECT_EQ(find_format(VK_FORMAT_BC1_RGB_UNORM_BLOCK), nullptr);
  EXPECT_EQ(format_features(nullptr), 0u);
}

TEST(ImageLayout, PitchesAndLevelOffsetsFollowThePackedRule) {
  ImageShape shape;
  shape.width = 100;
  shape.height = 30;
  shape.array_layers = 3;
  shape.mip_levels = 7;
  shape.element_bytes = 4;
  std::string why;
  auto layout = compute_image_layout(shape, &why);
  ASSERT_TRUE(layout) << why;
  const LevelLayout& l0 = layout->levels[0];
  EXPECT_EQ(l0.row_pitch, 448u);  // 400 rounded up to 64
  EXPECT_EQ(l0.slice_pitch, 448u * 30);
  EXPECT_EQ(l0.offset, 0u);
  const LevelLayout& l1 = layout->levels[1];
  EXPECT_EQ(l1.width, 50u);
  EXPECT_EQ(l1.height, 15u);
  EXPECT_EQ(l1.row_pitch, 256u);  // 200 -> 256
  EXPECT_EQ(l1.offset, (3u * 448 * 30 + 255) / 256 * 256);
  const LevelLayout& l6 = layout->levels[6];
  EXPECT_EQ(l6.width, 1u);
  EXPECT_EQ(l6.height, 1u);
  EXPECT_EQ(l6.row_pitch, 64u);
  EXPECT_EQ(layout->size, l6.offset + 256);  // 3 layers x 64 bytes, rounded up to 256
  EXPECT_EQ(layout->texel_offset(1, 2, 3, 4, 0), l1.offset + 2 * l1.slice_pitch + 4 * 256 + 12);
}

TEST(ImageLayout, BadShapesAreRefusedWithAReason) {
  std::string why;
  ImageShape s;
  s.width = 4097;
  EXPECT_FALSE(compute_image_layout(s, &why));
  EXPECT_NE(why.find("maxImageDimension2D"), std::string::npos) << why;
  s = ImageShape{};
  s.width = 0xffffffffu;
  s.height = 0xffffffffu;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s = ImageShape{};
  s.width = 16;
  s.height = 16;
  s.mip_levels = 6;  // 16 has 5 levels
  EXPECT_FALSE(compute_image_layout(s, &why));
  EXPECT_NE(why.find("mip"), std::string::npos) << why;
  s.mip_levels = 5;
  EXPECT_TRUE(compute_image_layout(s, &why)) << why;
  s.mip_levels = 0;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s = ImageShape{};
  s.type = VK_IMAGE_TYPE_3D;
  s.depth = 4;
  s.array_layers = 2;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s.array_layers = 1;
  s.depth = 2049;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s = ImageShape{};
  s.type = VK_IMAGE_TYPE_1D;
  s.height = 2;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s = ImageShape{};
  s.array_layers = kMaxArrayLayers + 1;
  EXPECT_FALSE(compute_image_layout(s, &why));
  s = ImageShape{};
  s.type = static_cast<VkImageType>(7);
  EXPECT_FALSE(compute_image_layout(s, &why));
  EXPECT_EQ(max_mip_levels(4096, 1, 1), 13u);
  EXPECT_EQ(max_mip_levels(1, 1, 1), 1u);
}

// Decodes a view's descriptor with the texture unit and checks each level it shows against the
// layout: offset from the image's start, row pitch, slice pitch and extent.
void expect_unit_reads_layout(const ImageShape& shape, VkFormat vk_format, const ViewShape& view) {
  std::string why;
  auto layout = compute_image_layout(shape, &why);
  ASSERT_TRUE(layout) << why;
  const uint64_t va = 0x100000000ull;
  auto words = image_desc_words(*layout, va, *find_format(vk_format), view, &why);
  ASSERT_TRUE(words) << why;
  texture::Image image;
  ASSERT_TRUE(texture::decode_image(*words, &image, &why)) << why;
  ASSERT_EQ(image.mip_levels, view.level_count);
  for (uint32_t k = 0; k < view.level_count; ++k) {
    const LevelLayout& l = layout->levels[view.base_level + k];
    SCOPED_TRACE("view level " + std::to_string(k));
    EXPECT_EQ(image.base_va + image.level_offset[k] - va, l.offset + uint64_t{view.base_layer} * l.slice_pitch);
    EXPECT_EQ(image.row_pitch[k], l.row_pitch);
    if (image.slices(k) > 1) {
      EXPECT_EQ(image.slice_pitch[k], l.slice_pitch);
    }
    EXPECT_EQ(image.level_size(k).width, l.width);
    EXPECT_EQ(image.level_size(k).height, l.height);
  }
  EXPECT_LE(image.base_va - va + image.extent_bytes, layout->size);
}

TEST(ImageLayout, DescriptorDecodedByTheTextureUnitMatchesTheLayout) {
  ImageShape array2d{VK_IMAGE_TYPE_2D, 100, 30, 1, 3, 7, 4};
  expect_unit_reads_layout(array2d, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 7, 0, 3, {}});
  expect_unit_reads_layout(array2d, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 2, 5, 0, 3, {}});
  expect_unit_reads_layout(array2d, VK_FORMAT_B8G8R8A8_SRGB, {VK_IMAGE_VIEW_TYPE_2D, 3, 1, 2, 1, {}});
  // The first layers over several levels (IMAGE_DESC PACKED_LAYERS): zink's 2D-array views of a
  // cube's six faces in a 36-layer image, a 2D view of layer 0.
  expect_unit_reads_layout(array2d, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 7, 0, 2, {}});
  expect_unit_reads_layout(array2d, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_2D, 1, 4, 0, 1, {}});
  ImageShape cubes{VK_IMAGE_TYPE_2D, 16, 16, 1, 36, 5, 4};
  expect_unit_reads_layout(cubes, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 4, 0, 6, {}});
  expect_unit_reads_layout(cubes, VK_FORMAT_R8G8B8A8_UNORM, {VK_IMAGE_VIEW_TYPE_CUBE, 0, 5, 0, 6, {}});
  ImageShape volume{VK_IMAGE_TYPE_3D, 33, 17, 9, 1, 6, 16};
  expect_unit_reads_layout(volume, VK_FORMAT_R32G32B32A32_SFLOAT, {VK_IMAGE_VIEW_TYPE_3D, 0, 6, 0, 1, {}});
  expect_unit_reads_layout(volume, VK_FORMAT_R32G32B32A32_SFLOAT, {VK_IMAGE_VIEW_TYPE_3D, 1, 2, 0, 1, {}});
  ImageShape line{VK_IMAGE_TYPE_1D, 4096, 1, 1, 5, 13, 1};
  expect_unit_reads_layout(line, VK_FORMAT_R8_UNORM, {VK_IMAGE_VIEW_TYPE_1D_ARRAY, 0, 13, 0, 5, {}});
  expect_unit_reads_layout(line, VK_FORMAT_R8_UNORM, {VK_IMAGE_VIEW_TYPE_1D, 12, 1, 4, 1, {}});
  ImageShape depth{VK_IMAGE_TYPE_2D, 640, 480, 1, 1, 1, 4};
  expect_unit_reads_layout(depth, VK_FORMAT_D24_UNORM_S8_UINT, {VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1, {}});
  expect_unit_reads_layout(depth, VK_FORMAT_D32_SFLOAT, {VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1, {}});
}

TEST(ImageLayout, ViewsTheDescriptorCannotExpressAreRefused) {
  std::string why;
  ImageShape shape{VK_IMAGE_TYPE_2D, 64, 64, 1, 6, 4, 4};
  auto layout = compute_image_layout(shape, &why);
  ASSERT_TRUE(layout);
  const FormatInfo& f = *find_format(VK_FORMAT_R8G8B8A8_UNORM);
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, 0, 1, 0, 6, {}}, &why));
  EXPECT_NE(why.find("cube"), std::string::npos);
  // A cube view is IMAGE_CUBE with its six layers, which the texture unit accepts.
  const auto cube = image_desc_words(*layout, 0x10000, f, {VK_IMAGE_VIEW_TYPE_CUBE, 0, 1, 0, 6, {}}, &why);
  ASSERT_TRUE(cube) << why;
  texture::Image decoded;
  ASSERT_TRUE(texture::decode_image(*cube, &decoded, &why)) << why;
  EXPECT_EQ(decoded.type, uint32_t{hw::blk::IMAGE_DESC::FORMAT_TYPE_IMAGE_CUBE});
  EXPECT_EQ(decoded.array_size, 6u);
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 2, 1, 2, {}}, &why));
  EXPECT_NE(why.find("a later layer than 0"), std::string::npos) << why;  // several levels from a later layer
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_2D, 4, 1, 0, 1, {}}, &why));
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 1, 5, 2, {}}, &why));
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_2D, 0, 0xffffffffu, 0, 1, {}}, &why));
  VkComponentMapping bad{static_cast<VkComponentSwizzle>(9), {}, {}, {}};
  EXPECT_FALSE(image_desc_words(*layout, 0, f, {VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1, bad}, &why));
}

TEST(ImageLayout, SwizzleReachesTheTextureUnit) {
  std::string why;
  auto layout = compute_image_layout({VK_IMAGE_TYPE_2D, 8, 8, 1, 1, 1, 4}, &why);
  ASSERT_TRUE(layout);
  VkComponentMapping bgr1{VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_R,
                          VK_COMPONENT_SWIZZLE_ONE};
  auto words = image_desc_words(*layout, 0x10000, *find_format(VK_FORMAT_R8G8B8A8_UNORM),
                                {VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1, bgr1}, &why);
  ASSERT_TRUE(words) << why;
  texture::Image image;
  ASSERT_TRUE(texture::decode_image(*words, &image, &why)) << why;
  EXPECT_TRUE(image.swizzle);
  EXPECT_EQ(image.swizzle_source[0], 2);
  EXPECT_EQ(image.swizzle_source[1], 1);
  EXPECT_EQ(image.swizzle_source[2], 0);
  EXPECT_EQ(image.swizzle_source[3], 5);
  VkComponentMapping identity{VK_COMPONENT_SWIZZLE_R, VK_COMPONENT_SWIZZLE_G, VK_COMPONENT_SWIZZLE_B,
                              VK_COMPONENT_SWIZZLE_A};
  words = image_desc_words(*layout, 0x10000, *find_format(VK_FORMAT_R8G8B8A8_UNORM),
                           {VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1, identity}, &why);
  ASSERT_TRUE(words);
  EXPECT_EQ((*words)[9], 0u);  // SWIZZLE: identity needs no ENABLE
}

TEST(ImageLayout, ClearColoursAreEncodedPerFormat) {
  uint8_t out[16];
  VkClearColorValue v{};
  v.float32[0] = 1.0f;
  v.float32[1] = 0.5f;
  v.float32[2] = -3.0f;
  v.float32[3] = 0.25f;
  encode_clear_color(*find_format(VK_FORMAT_R8G8B8A8_UNORM), v, out);
  EXPECT_EQ(out[0], 255);
  EXPECT_EQ(out[1], 128);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], 64);
  encode_clear_color(*find_format(VK_FORMAT_B8G8R8A8_UNORM), v, out);
  EXPECT_EQ(out[0], 0);  // blue first
  EXPECT_EQ(out[2], 255);
  encode_clear_color(*find_format(VK_FORMAT_R8G8B8A8_SRGB), v, out);
  EXPECT_EQ(out[1], 188);  // sRGB(0.5) = 0.7354
  EXPECT_EQ(out[3], 64);   // alpha stays linear
  encode_clear_color(*find_format(VK_FORMAT_R16G16B16A16_SFLOAT), v, out);
  EXPECT_EQ(out[0] | out[1] << 8, 0x3c00);  // 1.0
  EXPECT_EQ(out[4] | out[5] << 8, 0xc200);  // -3.0
  encode_clear_color(*find_format(VK_FORMAT_R5G6B5_UNORM_PACK16), v, out);
  EXPECT_EQ(out[0] | out[1] << 8, (31 << 11) | (32 << 5) | 0);
  VkClearColorValue i{};
  i.int32[0] = -2;
  encode_clear_color(*find_format(VK_FORMAT_R16_SINT), i, out);
  EXPECT_EQ(out[0] | out[1] << 8, 0xfffe);
  // The texture unit reads what the clear wrote (its decode is the OpenCL conversion).
  texture::TexelFormat texel;
  const FormatInfo& f = *find_format(VK_FORMAT_A2B10G10R10_UNORM_PACK32);
  ASSERT_TRUE(texture::make_texel_format(f.channel_order, f.data_type, &texel));
  encode_clear_color(f, v, out);
  const texture::Texel t = texel.decode(out);
  EXPECT_FLOAT_EQ(t.f(0), 1.0f);
  EXPECT_NEAR(t.f(1), 0.5f, 1.0f / 1023);
  EXPECT_FLOAT_EQ(t.f(2), 0.0f);
  EXPECT_NEAR(t.f(3), 0.333f, 0.01f);  // 0.25 of 2 bits rounds to 1 of 3
}

// decode_color is the inverse of encode_clear_color: a value encoded, decoded and encoded again
// gives the same bytes, for every colour format; the decoded floats are the texture unit's.
TEST(ImageLayout, DecodedColoursEncodeToTheSameTexel) {
  uint32_t count = 0;
  const FormatInfo* formats = supported_formats(&count);
  VkClearColorValue values[3]{};
  for (int c = 0; c < 4; ++c) {
    values[0].float32[c] = 0.1f + 0.27f * c;
    values[1].float32[c] = -0.6f + 0.5f * c;
    values[2].int32[c] = c % 2 ? -(c * 13 + 1) : c * 21 + 3;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const FormatInfo& f = formats[i];
    if (!(f.aspects & VK_IMAGE_ASPECT_COLOR_BIT)) continue;
    texture::TexelFormat texel;
    ASSERT_TRUE(texture::make_texel_format(f.channel_order, f.data_type, &texel));
    const bool integer = f.kind == NumericKind::kUint || f.kind == NumericKind::kSint;
    for (int v = integer ? 2 : 0; v < (integer ? 3 : 2); ++v) {
      uint8_t first[16], second[16];
      encode_clear_color(f, values[v], first);
      const VkClearColorValue decoded = decode_color(f, first);
      encode_clear_color(f, decoded, second);
      EXPECT_EQ(std::memcmp(first, second, f.element_bytes), 0) << "VkFormat " << f.format << " value " << v;
      const texture::Texel unit = texel.decode(first);
      for (int c = 0; c < 4; ++c) {
        if (integer) {
          EXPECT_EQ(unit.v[c], decoded.uint32[c]) << "VkFormat " << f.format << " channel " << c;
        } else {
          EXPECT_NEAR(unit.f(c), decoded.float32[c], 1e-6) << "VkFormat " << f.format << " channel " << c;
        }
      }
    }
  }
}

VkSamplerCreateInfo sampler_info() {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = VK_FILTER_LINEAR;
  info.minFilter = VK_FILTER_NEAREST;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
  info.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.addressModeV = VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
  info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.minLod = 1.3f;
  info.maxLod = 4.6f;
  info.mipLodBias = 0.5f;
  return info;
}

TEST(SamplerState, TheTextureUnitDecodesTheTranslatedWord) {
  std::string why;
  auto words = translate_sampler(sampler_info(), &why);
  ASSERT_TRUE(words) << why;
  texture::Sampler s;
  ASSERT_TRUE(texture::decode_sampler((*words)[0], &s, &why)) << why;
  EXPECT_TRUE(s.normalized);
  EXPECT_EQ(s.address[0], 3u);  // REPEAT
  EXPECT_EQ(s.address[1], 4u);  // MIRRORED_REPEAT
  EXPECT_EQ(s.address[2], 2u);  // CLAMP_TO_BORDER
  EXPECT_TRUE(s.mag_linear);
  EXPECT_FALSE(s.min_linear);
  EXPECT_EQ(s.mip_filter, 2u);
  EXPECT_EQ(s.border, 2u);      // OPAQUE_WHITE
  EXPECT_FLOAT_EQ(s.min_lod, 1.25f);
  EXPECT_FLOAT_EQ(s.max_lod, 4.5f);
  EXPECT_EQ((*words)[3], 0x3f000000u);  // SAMPLER_DESC LOD_BIAS 0.5
  VkSamplerCreateInfo info = sampler_info();
  info.maxLod = VK_LOD_CLAMP_NONE;
  info.minLod = -2.0f;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.unnormalizedCoordinates = VK_TRUE;
  info.addressModeU = info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  words = translate_sampler(info, &why);
  ASSERT_TRUE(words) << why;
  ASSERT_TRUE(texture::decode_sampler((*words)[0], &s, &why)) << why;
  EXPECT_FALSE(s.normalized);
  EXPECT_EQ(s.mip_filter, 1u);
  EXPECT_FLOAT_EQ(s.min_lod, 0.0f);
  EXPECT_GT(s.max_lod, 100.0f);  // no clamp
  info.minLod = info.maxLod = 0.0f;  // maxLod 0: only the base level
  words = translate_sampler(info, &why);
  ASSERT_TRUE(words && texture::decode_sampler((*words)[0], &s, &why)) << why;
  EXPECT_FLOAT_EQ(s.max_lod, 0.0f);
  // Depth compare: COMPARE = 1 + VkCompareOp, every op; off without compareEnable.
  EXPECT_EQ(s.compare, 0u);
  info.compareEnable = VK_TRUE;
  for (uint32_t op = VK_COMPARE_OP_NEVER; op <= VK_COMPARE_OP_ALWAYS; ++op) {
    info.compareOp = static_cast<VkCompareOp>(op);
    words = translate_sampler(info, &why);
    ASSERT_TRUE(words && texture::decode_sampler((*words)[0], &s, &why)) << why;
    EXPECT_EQ(s.compare, op + 1);
  }
}

TEST(SamplerState, WhatTheUnitCannotDoIsRefused) {
  std::string why;
  VkSamplerCreateInfo info = sampler_info();
  info.compareEnable = VK_TRUE;
  info.compareOp = static_cast<VkCompareOp>(8);  // past ALWAYS
  EXPECT_FALSE(translate_sampler(info, &why));
  info = sampler_info();
  info.anisotropyEnable = VK_TRUE;
  EXPECT_FALSE(translate_sampler(info, &why));
  info = sampler_info();
  info.unnormalizedCoordinates = VK_TRUE;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.addressModeV = VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;  // unnormalised
  EXPECT_FALSE(translate_sampler(info, &why));
  info = sampler_info();
  info.unnormalizedCoordinates = VK_TRUE;  // with REPEAT
  EXPECT_FALSE(translate_sampler(info, &why));
  info = sampler_info();
  info.maxLod = 1.0f;  // below minLod 1.3
  EXPECT_FALSE(translate_sampler(info, &why));
  info = sampler_info();
  info.borderColor = VK_BORDER_COLOR_FLOAT_CUSTOM_EXT;  // without its create info
  EXPECT_FALSE(translate_sampler(info, &why));
  info.borderColor = static_cast<VkBorderColor>(7);  // not a border colour
  EXPECT_FALSE(translate_sampler(info, &why));
}

// VK_EXT_custom_border_color: BORDER CUSTOM with the colour's words in SAMPLER_DESC BORDER_R..A,
// which the texture unit decodes from the descriptor (and refuses in the word alone);
// MIRROR_CLAMP_TO_EDGE is ADDRESS code 5.
TEST(SamplerState, CustomBorderColourAndMirrorClampReachTheDescriptor) {
  std::string why;
  VkSamplerCustomBorderColorCreateInfoEXT custom{VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT};
  custom.customBorderColor.int32[0] = -5;
  custom.customBorderColor.int32[1] = 7;
  custom.customBorderColor.int32[2] = 0;
  custom.customBorderColor.int32[3] = 255;
  VkSamplerCreateInfo info = sampler_info();
  info.pNext = &custom;
  info.borderColor = VK_BORDER_COLOR_INT_CUSTOM_EXT;
  info.addressModeU = VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;
  auto words = translate_sampler(info, &why);
  ASSERT_TRUE(words) << why;
  texture::Sampler s;
  EXPECT_FALSE(texture::decode_sampler((*words)[0], &s, &why));
  ASSERT_TRUE(texture::decode_sampler_desc(*words, &s, &why)) << why;
  EXPECT_EQ(s.border, 3u);
  EXPECT_EQ(s.address[0], 5u);
  EXPECT_EQ(s.custom_border.v[0], uint32_t(-5));
  EXPECT_EQ(s.custom_border.v[1], 7u);
  EXPECT_EQ(s.custom_border.v[3], 255u);
}

}  // namespace
}  // namespace gsgpu::vk
