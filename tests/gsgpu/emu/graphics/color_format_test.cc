// The output merger's float, 16-bit and packed targets (render_target.h, color_encoding.h, and the
// conversions they use: texture::float_to_half_rte, common/packed_float.h): the
// conversions' rounding at chosen values, the stored bit layouts, and the COLOR_FORMAT codes a
// draw accepts (anything else is refused, so a forged code never picks a layout).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/packed_float.h"
#include "gsgpu/emu/graphics/color_encoding.h"
#include "gsgpu/emu/graphics/output_merger.h"
#include "gsgpu/emu/graphics/render_target.h"
#include "gsgpu/emu/texture/texel_format.h"

namespace gsgpu::graphics {
namespace {

TEST(ColorEncoding, HalfRoundsToNearestEven) {
  using texture::float_to_half_rte;
  EXPECT_EQ(float_to_half_rte(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_rte(0.7f), 0x399a);  // 409.6 ulps above 0.5: up
  EXPECT_EQ(float_to_half_rte(1.0f + 1.0f / 2048), 0x3c00);  // a tie: to the even 0x3c00
  EXPECT_EQ(float_to_half_rte(1.0f + 3.0f / 2048), 0x3c02);  // a tie: to the even 0x3c02
  EXPECT_EQ(float_to_half_rte(65520.0f), 0x7c00);  // rounds past the largest finite: infinity
  EXPECT_EQ(float_to_half_rte(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_rte(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 of the smallest subnormal: up
  EXPECT_EQ(float_to_half_rte(std::numeric_limits<float>::quiet_NaN()) & 0x7e00, 0x7e00);
}

TEST(ColorEncoding, UnsignedSmallFloatsClampAndRound) {
  using gsvirt::float_to_ufloat, gsvirt::ufloat_to_float;
  EXPECT_EQ(float_to_ufloat(1.0f, 6), 15u << 6);
  EXPECT_EQ(float_to_ufloat(1.0f, 5), 15u << 5);
  EXPECT_EQ(float_to_ufloat(-1.0f, 6), 0u);  // no sign bit
  EXPECT_EQ(float_to_ufloat(-0.0f, 6), 0u);
  EXPECT_EQ(float_to_ufloat(1e9f, 6), (30u << 6) | 63);  // the largest finite, 65024
  EXPECT_EQ(float_to_ufloat(1e9f, 5), (30u << 5) | 31);  // 64512
  EXPECT_EQ(float_to_ufloat(INFINITY, 6), 31u << 6);
  EXPECT_EQ(float_to_ufloat(std::numeric_limits<float>::quiet_NaN(), 5) >> 5, 31u);
  EXPECT_EQ(float_to_ufloat(1.0f + 1.0f / 128, 6), (15u << 6) | 0);  // a tie: even
  EXPECT_EQ(float_to_ufloat(1.0f + 3.0f / 128, 6), (15u << 6) | 2);  // a tie: even
  EXPECT_EQ(ufloat_to_float((30u << 6) | 63, 6), 65024.0f);
  EXPECT_EQ(ufloat_to_float(1, 5), std::ldexp(1.0f, -19));  // the smallest 10-bit subnormal
}

TEST(ColorEncoding, UnormRoundsToNearestAtEveryWidth) {
  EXPECT_EQ(float_to_unorm(0.5f, 16), 32768u);  // 32767.5: half up
  EXPECT_EQ(float_to_unorm(0.2f, 5), 6u);        // 6.2
  EXPECT_EQ(float_to_unorm(0.7f, 10), 716u);     // 716.1
  EXPECT_EQ(float_to_unorm(2.0f, 2), 3u);
  EXPECT_EQ(float_to_unorm(std::numeric_limits<float>::quiet_NaN(), 16), 0u);
}

TEST(ColorFormats, PackedAndWideTargetsStoreTheirLayouts) {
  struct Case {
    ColorFormat format;
    Color color;
    std::vector<uint8_t> bytes;
  };
  const Case cases[] = {
      {ColorFormat::kR16G16B16A16Sfloat, {1.0f, -2.0f, 0.5f, 3.0f}, {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x00, 0x42}},
      {ColorFormat::kR16Sfloat, {0.7f, 9, 9, 9}, {0x9a, 0x39}},
      {ColorFormat::kR32G32Sfloat, {1.0f, 2.5f, 9, 9}, {0, 0, 0x80, 0x3f, 0, 0, 0x20, 0x40}},
      {ColorFormat::kR16Unorm, {0.5f, 9, 9, 9}, {0x00, 0x80}},
      {ColorFormat::kR5G6B5Unorm, {1.0f, 0.0f, 1.0f, 0.0f}, {0x1f, 0xf8}},  // r in bits 15..11
      {ColorFormat::kA2B10G10R10Unorm, {1.0f, 0.0f, 0.0f, 1.0f}, {0xff, 0x03, 0x00, 0xc0}},
      {ColorFormat::kB10G11R11Ufloat, {1.0f, 0.0f, 2.0f, 0.0f}, {0xc0, 0x03, 0x00, 0x80}},  // b = 16 << 5
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> memory(bytes_per_pixel(c.format));
    ColorTarget t{memory.data(), 1, 1, memory.size(), c.format};
    t.store(0, 0, c.color);
    EXPECT_EQ(memory, c.bytes) << color_format_name(c.format);
    const Color back = t.load(0, 0);
    for (int i = 0; i < stored_components(c.format); ++i) {  // 0.7 and 0.5 are not exact in 16 bits
      EXPECT_NEAR(back[i], c.color[i], 1e-3) << color_format_name(c.format);
    }
    if (stored_components(c.format) < 4) EXPECT_EQ(back[3], 1.0f) << color_format_name(c.format);
  }
}

TEST(ColorFormats, FloatTargetsBlendWithoutClampingAndLogicOpsUseTheComponentWidth) {
  std::vector<uint8_t> memory(8);
  ColorTarget t{memory.data(), 1, 1, 8, ColorFormat::kR16G16B16A16Sfloat};
  t.store(0, 0, {1.5f, 0, 0, 1});
  BlendState add;  // ONE + ONE
  add.enable = true;
  add.src_color = add.dst_color = add.src_alpha = add.dst_alpha = BlendFactor::kOne;
  OutputMerger om;
  om.begin_draw(t, DepthStencilTarget{}, DepthStencilState{}, add);
  Fragment f;
  f.color = {2.0f, -0.5f, 0, 0};
  om.process(f);
  EXPECT_EQ(t.load(0, 0)[0], 3.5f);
  EXPECT_EQ(t.load(0, 0)[1], -0.5f);

  std::vector<uint8_t> packed(2, 0);
  ColorTarget rgb565{packed.data(), 1, 1, 2, ColorFormat::kR5G6B5Unorm};
  BlendState invert;  // COPY_INVERTED: ~source within 5 / 6 / 5 bits
  invert.logic_op_enable = true;
  invert.logic_op = LogicOp::kCopyInverted;
  om.begin_draw(rgb565, DepthStencilTarget{}, DepthStencilState{}, invert);
  f.color = {0, 1, 0, 1};
  om.process(f);
  EXPECT_EQ(packed[0] | packed[1] << 8, 0xf81f);  // red and blue all ones, green 0
}

TEST(ColorEncoding, SharedExponentFollowsTheSpecsAlgorithm) {
  using gsvirt::decode_e5b9g9r9, gsvirt::encode_e5b9g9r9;
  const float one[3] = {1.0f, 0.5f, 0.0f};
  const uint32_t word = encode_e5b9g9r9(one);
  EXPECT_EQ(word, (16u << 27) | 256u | (128u << 9));  // 1 = 256 x 2^(16 - 24)
  float back[3];
  decode_e5b9g9r9(word, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 0.5f);
  EXPECT_EQ(back[2], 0.0f);
  const float big[3] = {1e9f, -3.0f, NAN};  // clamped to 65408; negatives and NaN 0
  decode_e5b9g9r9(encode_e5b9g9r9(big), back);
  EXPECT_EQ(back[0], 65408.0f);
  EXPECT_EQ(back[1], 0.0f);
  EXPECT_EQ(back[2], 0.0f);
  const float rounds_up[3] = {511.75f, 0, 0};  // 511.75 rounds to 512 = 2^9: one exponent more
  decode_e5b9g9r9(encode_e5b9g9r9(rounds_up), back);
  EXPECT_EQ(back[0], 512.0f);
}

TEST(ColorFormats, OnlyRenderTargetCodesAreAccepted) {
  ColorFormat f;
  EXPECT_TRUE(color_format_from_vk(97, &f));
  EXPECT_EQ(f, ColorFormat::kR16G16B16A16Sfloat);
  EXPECT_TRUE(color_format_from_vk(57, &f));
  EXPECT_EQ(f, ColorFormat::kR8G8B8A8Srgb);
  for (uint32_t code : {0u, 1u, 2u, 5u, 15u, 98u, 123u, 131u, 0xffffffffu}) {
    EXPECT_FALSE(color_format_from_vk(code, &f)) << code;
  }
}

}  // namespace
}  // namespace gsgpu::graphics
