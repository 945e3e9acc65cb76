// R32G32B32A32_UINT / _SINT colour attachments against lavapipe (the formats Mesa's zink must
// render to before OpenGL exposes EXT_texture_integer). Two overlapping flat quads drawn by a
// fragment shader with an integer output (shaders/int_color_*.frag: words from the pixel position
// and the colour's bytes, NaN patterns and sign bits among them) over a cleared target, once
// plainly, once with blending enabled (which Vulkan ignores on integer formats) and once with a
// logic op (XOR, applied to all 32 bits): the frames must be equal bit for bit, and the words of
// one pixel equal what the shader computes here.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "shader_int_color_sint_frag.h"
#include "shader_int_color_uint_frag.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkIntegerTargets : public BothDrivers {
 protected:
  VkIntegerTargets() { device_request_.features.logicOp = VK_TRUE; }
};

enum class Mode { kPlain, kBlend, kXor };

// The scene on `format` (R32G32B32A32_UINT or _SINT); `blend` and `attachment` are kept alive by
// the caller.
DrawScene integer_scene(VkFormat format, Mode mode, VkPipelineColorBlendStateCreateInfo* blend,
                        VkPipelineColorBlendAttachmentState* attachment) {
  DrawScene s;
  s.color_format = format;
  const bool uint = format == VK_FORMAT_R32G32B32A32_UINT;
  s.fragment_spirv = uint ? shader_int_color_uint_frag : shader_int_color_sint_frag;
  s.fragment_spirv_bytes = uint ? sizeof shader_int_color_uint_frag : sizeof shader_int_color_sint_frag;
  const float clear[4] = {0.25f, -3.0f, 1e9f, 1.0f};  // their float bits
  std::memcpy(s.clear, clear, sizeof clear);
  const uint8_t a[4] = {0xf0, 0x3c, 0xa5, 0x5a}, b[4] = {0xcc, 0x0f, 0x69, 0xff};
  add_pixel_quad(&s, 8, 8, 40, 40, a);
  add_pixel_quad(&s, 24, 20, 56, 60, b);
  *attachment = {};
  attachment->colorWriteMask = 0xf;
  attachment->blendEnable = mode == Mode::kBlend;  // ONE + ONE, ignored on integer formats
  attachment->srcColorBlendFactor = attachment->dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
  attachment->srcAlphaBlendFactor = attachment->dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
  *blend = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend->logicOpEnable = mode == Mode::kXor;
  blend->logicOp = VK_LOGIC_OP_XOR;
  blend->attachmentCount = 1;
  blend->pAttachments = attachment;
  s.edit = [blend](VkGraphicsPipelineCreateInfo& info) { info.pColorBlendState = blend; };
  return s;
}

std::array<uint32_t, 4> words_at(const DrawFrame& f, uint32_t x, uint32_t y) {
  std::array<uint32_t, 4> w;
  std::memcpy(w.data(), &f.color[(size_t(y) * 64 + x) * 16], 16);
  return w;
}

// What shaders/int_color_uint.frag (or _sint.frag) writes at pixel (x, y) for colour bytes c.
std::array<uint32_t, 4> shader_words(bool uint, uint32_t x, uint32_t y, const uint8_t c[4]) {
  if (uint) {
    return {(x << 24) | (y << 16) | (uint32_t{c[0]} << 8) | c[1], 0xFFFFFF00u | c[2], 0x7FC00000u + x * 977u + y,
            0x80000000u | (uint32_t{c[3]} << 20) | (x * y)};
  }
  const int32_t ix = int32_t(x), iy = int32_t(y);
  return {uint32_t(-1 - ix * 65536 - iy), uint32_t(c[0] - 256), uint32_t(-2147483647 + c[1] * ix),
          (uint32_t{c[2]} << 24) | (uint32_t{c[3]} << 8) | y};
}

std::array<uint32_t, 4> xor_words(std::array<uint32_t, 4> x, const std::array<uint32_t, 4>& y) {
  for (int i = 0; i < 4; ++i) x[i] ^= y[i];
  return x;
}

TEST_F(VkIntegerTargets, FormatsAreColourAttachmentsWithoutBlending) {
  for (VkFormat f : {VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT}) {
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(gsgpu_physical_, f, &p);
    EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) << f;
    EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) << f;
    EXPECT_FALSE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT) << f;
    EXPECT_FALSE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) << f;
  }
}

TEST_F(VkIntegerTargets, DrawsMatchLavapipeBitForBit) {
  for (VkFormat format : {VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT}) {
    for (Mode mode : {Mode::kPlain, Mode::kBlend, Mode::kXor}) {
      VkPipelineColorBlendStateCreateInfo blend;
      VkPipelineColorBlendAttachmentState attachment;
      const DrawScene s = integer_scene(format, mode, &blend, &attachment);
      const DrawFrame gs = gsgpu_->render(s);
      const DrawFrame ref = lavapipe_->render(s);
      ASSERT_EQ(gs.color.size(), size_t{64} * 64 * 16);
      ASSERT_EQ(gs.color.size(), ref.color.size());
      const uint32_t differing = differing_pixels(gs, ref, 16);
      std::printf("[vkinteger] format %d mode %d: %u of 4096 pixels differ\n", format, int(mode), differing);
      EXPECT_EQ(differing, 0u) << "format " << format << " mode " << int(mode);
      const std::array<uint32_t, 4> clear{0x3e800000u, 0xc0400000u, 0x4e6e6b28u, 0x3f800000u};
      EXPECT_EQ(words_at(gs, 0, 0), clear);  // the clear's float bits
      // The shader's words by hand: (30, 30) is quad B over quad A, (50, 50) quad B alone.
      const uint8_t a[4] = {0xf0, 0x3c, 0xa5, 0x5a}, b[4] = {0xcc, 0x0f, 0x69, 0xff};
      const bool uint = format == VK_FORMAT_R32G32B32A32_UINT;
      if (mode != Mode::kXor) {  // blending left the words alone
        EXPECT_EQ(words_at(gs, 30, 30), shader_words(uint, 30, 30, b)) << "format " << format;
        EXPECT_EQ(words_at(gs, 50, 50), shader_words(uint, 50, 50, b)) << "format " << format;
      } else {
        EXPECT_EQ(words_at(gs, 50, 50), xor_words(shader_words(uint, 50, 50, b), clear)) << "format " << format;
        EXPECT_EQ(words_at(gs, 30, 30), xor_words(shader_words(uint, 30, 30, b),
                                                  xor_words(shader_words(uint, 30, 30, a), clear)))
            << "format " << format;
      }
    }
  }
}

// R8_UNORM and R8G8_UNORM targets (Mesa's ARB_texture_rg asks for both): draw_color.frag's colour
// stored in one / two bytes, plainly and with XOR, equal to lavapipe's byte for byte.
TEST_F(VkIntegerTargets, R8AndR8G8UnormTargetsMatchLavapipe) {
  for (VkFormat format : {VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM}) {
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(gsgpu_physical_, format, &p);
    EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) << format;
    EXPECT_TRUE(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT) << format;
    const uint32_t texel = format == VK_FORMAT_R8_UNORM ? 1 : 2;
    for (Mode mode : {Mode::kPlain, Mode::kXor}) {
      VkPipelineColorBlendStateCreateInfo blend;
      VkPipelineColorBlendAttachmentState attachment;
      DrawScene s = integer_scene(VK_FORMAT_R32G32B32A32_UINT, mode, &blend, &attachment);
      s.color_format = format;
      s.fragment_spirv = nullptr;  // draw_color.frag
      const float clear[4] = {0x33 / 255.0f, 0x99 / 255.0f, 0, 1};
      std::memcpy(s.clear, clear, sizeof clear);
      const DrawFrame gs = gsgpu_->render(s);
      const DrawFrame ref = lavapipe_->render(s);
      ASSERT_EQ(gs.color.size(), size_t{64} * 64 * texel);
      EXPECT_EQ(gs.color, ref.color) << "format " << format << " mode " << int(mode);
      const uint8_t* at = &gs.color[(size_t{30} * 64 + 30) * texel];  // quad B over quad A
      EXPECT_EQ(at[0], mode == Mode::kPlain ? 0xcc : 0xcc ^ 0xf0 ^ 0x33) << format;
      if (texel == 2) {
        EXPECT_EQ(at[1], mode == Mode::kPlain ? 0x0f : 0x0f ^ 0x3c ^ 0x99) << format;
      }
    }
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
