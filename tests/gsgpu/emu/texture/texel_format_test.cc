// Texel formats: OpenCL C 1.2 section 8.3's conversions, checked value by value.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "gsgpu/emu/texture/texel_format.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::texture {
namespace {

namespace d = hw::blk::IMAGE_DESC;

TexelFormat format(uint32_t order, uint32_t type) {
  TexelFormat f;
  EXPECT_TRUE(make_texel_format(order, type, &f)) << order << " " << type;
  return f;
}

TEST(TexelFormat, ElementSizesFollowOrderAndType) {
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_UNORM_INT8).element_bytes, 4u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_FLOAT).element_bytes, 16u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_RG, d::FORMAT_DATA_TYPE_HALF_FLOAT).element_bytes, 4u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_SIGNED_INT16).element_bytes, 2u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_RGB, d::FORMAT_DATA_TYPE_UNORM_SHORT_565).element_bytes, 2u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_RGBX, d::FORMAT_DATA_TYPE_UNORM_INT_101010).element_bytes, 4u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL, d::FORMAT_DATA_TYPE_UNORM_INT24).element_bytes, 4u);
  // D32_SFLOAT_S8_UINT: the float, then a pad slot holding the stencil byte.
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL, d::FORMAT_DATA_TYPE_FLOAT).element_bytes, 8u);
  EXPECT_EQ(format(d::FORMAT_CHANNEL_ORDER_SRGBA, d::FORMAT_DATA_TYPE_UNORM_INT8).element_bytes, 4u);
}

TEST(TexelFormat, InvalidCombinationsAreRefused) {
  TexelFormat f;
  EXPECT_FALSE(make_texel_format(0, d::FORMAT_DATA_TYPE_UNORM_INT8, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBA, 0, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBA, 200, &f));
  EXPECT_FALSE(make_texel_format(99, d::FORMAT_DATA_TYPE_FLOAT, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_SRGBA, d::FORMAT_DATA_TYPE_FLOAT, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGB, d::FORMAT_DATA_TYPE_UNORM_INT8, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_UNORM_SHORT_565, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_INTENSITY, d::FORMAT_DATA_TYPE_SIGNED_INT8, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_DEPTH, d::FORMAT_DATA_TYPE_UNORM_INT8, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_UNORM_INT24, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL, d::FORMAT_DATA_TYPE_HALF_FLOAT, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL, d::FORMAT_DATA_TYPE_UNSIGNED_INT32, &f));
  // The packed floats only as RGB (a forged RGBA or RGBX descriptor is refused, not misread).
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_UFLOAT_11_11_10, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_RGBX, d::FORMAT_DATA_TYPE_SHARED_EXP_9_9_9_5, &f));
  EXPECT_FALSE(make_texel_format(d::FORMAT_CHANNEL_ORDER_SRGB, d::FORMAT_DATA_TYPE_UFLOAT_11_11_10, &f));
}

// B10G11R11_UFLOAT and E5B9G9R9_UFLOAT: 4-byte RGB texels, alpha 1, floats through
// packed_float.h both ways.
TEST(TexelFormat, PackedFloatsDecodeAndEncode) {
  const TexelFormat f11 = format(d::FORMAT_CHANNEL_ORDER_RGB, d::FORMAT_DATA_TYPE_UFLOAT_11_11_10);
  const TexelFormat e5 = format(d::FORMAT_CHANNEL_ORDER_RGB, d::FORMAT_DATA_TYPE_SHARED_EXP_9_9_9_5);
  EXPECT_EQ(f11.element_bytes, 4u);
  EXPECT_EQ(e5.element_bytes, 4u);
  const uint32_t f11_word = (15u << 6) | (16u << 6 | 32u) << 11 | (14u << 5) << 22;  // 1, 3, 0.5
  uint8_t bytes[4];
  std::memcpy(bytes, &f11_word, 4);
  Texel t = f11.decode(bytes);
  EXPECT_EQ(t.f(0), 1.0f);
  EXPECT_EQ(t.f(1), 3.0f);
  EXPECT_EQ(t.f(2), 0.5f);
  EXPECT_EQ(t.f(3), 1.0f);
  uint8_t back[4];
  f11.encode(t, back);
  EXPECT_EQ(std::memcmp(back, bytes, 4), 0);
  const uint32_t e5_word = 256u | 128u << 9 | 511u << 18 | 16u << 27;  // 1, 0.5, 511/256
  std::memcpy(bytes, &e5_word, 4);
  t = e5.decode(bytes);
  EXPECT_EQ(t.f(0), 1.0f);
  EXPECT_EQ(t.f(1), 0.5f);
  EXPECT_EQ(t.f(2), 511.0f / 256.0f);
  EXPECT_EQ(t.f(3), 1.0f);
  e5.encode(t, back);
  EXPECT_EQ(std::memcmp(back, bytes, 4), 0);
}

// Unorm reads are c * (1 / 255): within OpenCL's 1.5 ulp of c / 255, exact at 0 and 255, and what
// PoCL computes (texel_format.cc).
float unorm8(uint32_t c) { return static_cast<float>(c) * (1.0f / 255.0f); }

TEST(TexelFormat, Unorm8ReadsAsCOver255AndWritesWithRoundToNearestEven) {
  const TexelFormat f = format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_UNORM_INT8);
  for (uint32_t c = 0; c < 256; ++c) {
    const uint8_t byte = static_cast<uint8_t>(c);
    const Texel t = f.decode(&byte);
    EXPECT_EQ(t.f(0), unorm8(c)) << c;
    EXPECT_NEAR(t.f(0), static_cast<float>(c) / 255.0f, 1e-7f) << c;
    EXPECT_EQ(t.f(1), 0.0f);
    EXPECT_EQ(t.f(3), 1.0f);  // no alpha channel: alpha reads 1
    uint8_t back = 0;
    f.encode(t, &back);
    EXPECT_EQ(back, byte) << c;
  }
  const auto write = [&](float x) {
    Texel t;
    t.set_f(0, x);
    uint8_t b = 0xaa;
    f.encode(t, &b);
    return b;
  };
  EXPECT_EQ(write(0.5f), 128);                       // 127.5 rounds to even
  EXPECT_EQ(write(2.5f / 255.0f), 2);                // 2.5 (to float precision) rounds to even
  EXPECT_EQ(write(2.0f), 255);                       // saturates
  EXPECT_EQ(write(-1.0f), 0);
  EXPECT_EQ(write(std::nanf("")), 0);
  EXPECT_EQ(write(INFINITY), 255);
}

TEST(TexelFormat, SnormReadsClampAtMinusOneAndWritesSaturate) {
  const TexelFormat f8 = format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_SNORM_INT8);
  const uint8_t min = 0x80, max = 0x7f, minus_one = 0xff;
  EXPECT_EQ(f8.decode(&min).f(0), -1.0f);  // -128 / 127 clamps to -1
  EXPECT_EQ(f8.decode(&max).f(0), 1.0f);
  EXPECT_EQ(f8.decode(&minus_one).f(0), -1.0f / 127.0f);
  Texel t;
  t.set_f(0, -3.0f);
  uint8_t b = 0;
  f8.encode(t, &b);
  EXPECT_EQ(b, 0x80);  // convert_char_sat_rte(-381) = -128
  t.set_f(0, -1.0f);
  f8.encode(t, &b);
  EXPECT_EQ(b, 0x81);  // -127
  const TexelFormat f16 = format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_SNORM_INT16);
  const uint16_t v = 0x4000;  // 16384
  uint8_t bytes[2];
  std::memcpy(bytes, &v, 2);
  EXPECT_EQ(f16.decode(bytes).f(0), 16384.0f / 32767.0f);
}

TEST(TexelFormat, IntegerWritesSaturateAndReadsExtend) {
  const TexelFormat s8 = format(d::FORMAT_CHANNEL_ORDER_RG, d::FORMAT_DATA_TYPE_SIGNED_INT8);
  Texel t;
  t.v[0] = 300;
  t.v[1] = static_cast<uint32_t>(-300);
  uint8_t b[2];
  s8.encode(t, b);
  EXPECT_EQ(b[0], 127);
  EXPECT_EQ(b[1], 0x80);
  const Texel r = s8.decode(b);
  EXPECT_EQ(static_cast<int32_t>(r.v[0]), 127);
  EXPECT_EQ(static_cast<int32_t>(r.v[1]), -128);
  EXPECT_EQ(r.v[3], 1u);  // integer alpha 1
  const TexelFormat u16 = format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_UNSIGNED_INT16);
  t.v[0] = 70000;
  uint8_t h[2];
  u16.encode(t, h);
  EXPECT_EQ(h[0] | h[1] << 8, 65535);
  const TexelFormat s32 = format(d::FORMAT_CHANNEL_ORDER_R, d::FORMAT_DATA_TYPE_SIGNED_INT32);
  t.v[0] = 0x80000001u;
  uint8_t w[4];
  s32.encode(t, w);
  EXPECT_EQ(s32.decode(w).v[0], 0x80000001u);
}

TEST(TexelFormat, HalfConversionsAreExactAndRoundToNearestEven) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_EQ(float_to_half_rte(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half_rte(65520.0f), 0x7c00);           // the tie rounds to even: infinity
  EXPECT_EQ(float_to_half_rte(std::ldexp(1.0f, -25)), 0);   // half the smallest subnormal: even 0
  EXPECT_EQ(float_to_half_rte(std::ldexp(3.0f, -25)), 2);   // 1.5 ulp: even 2
  EXPECT_EQ(float_to_half_rte(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half_rte(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half_rte(-0.0f), 0x8000);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaNs
    ASSERT_EQ(float_to_half_rte(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(TexelFormat, ChannelOrdersPlaceChannels) {
  const uint8_t bytes[4] = {10, 20, 30, 40};
  const TexelFormat bgra = format(d::FORMAT_CHANNEL_ORDER_BGRA, d::FORMAT_DATA_TYPE_UNSIGNED_INT8);
  const Texel t = bgra.decode(bytes);
  EXPECT_EQ(t.v[0], 30u);
  EXPECT_EQ(t.v[1], 20u);
  EXPECT_EQ(t.v[2], 10u);
  EXPECT_EQ(t.v[3], 40u);
  uint8_t back[4];
  bgra.encode(t, back);
  EXPECT_EQ(std::memcmp(back, bytes, 4), 0);
  const TexelFormat argb = format(d::FORMAT_CHANNEL_ORDER_ARGB, d::FORMAT_DATA_TYPE_UNSIGNED_INT8);
  EXPECT_EQ(argb.decode(bytes).v[3], 10u);
  EXPECT_EQ(argb.decode(bytes).v[0], 20u);
  const TexelFormat intensity = format(d::FORMAT_CHANNEL_ORDER_INTENSITY, d::FORMAT_DATA_TYPE_UNORM_INT8);
  const Texel i = intensity.decode(bytes);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(i.f(c), unorm8(10));
  const TexelFormat luminance = format(d::FORMAT_CHANNEL_ORDER_LUMINANCE, d::FORMAT_DATA_TYPE_UNORM_INT8);
  const Texel l = luminance.decode(bytes);
  EXPECT_EQ(l.f(2), unorm8(10));
  EXPECT_EQ(l.f(3), 1.0f);
  const TexelFormat a = format(d::FORMAT_CHANNEL_ORDER_A, d::FORMAT_DATA_TYPE_UNORM_INT8);
  EXPECT_EQ(a.decode(bytes).f(0), 0.0f);
  EXPECT_EQ(a.transparent_black().f(3), 0.0f);  // has alpha: the border's alpha is 0
}

TEST(TexelFormat, PackedTypesUnpackTheirFields) {
  const TexelFormat f565 = format(d::FORMAT_CHANNEL_ORDER_RGB, d::FORMAT_DATA_TYPE_UNORM_SHORT_565);
  const uint16_t word = (31u << 11) | (32u << 5) | 1u;
  uint8_t b[2];
  std::memcpy(b, &word, 2);
  const Texel t = f565.decode(b);
  EXPECT_EQ(t.f(0), 1.0f);
  EXPECT_EQ(t.f(1), 32.0f / 63.0f);
  EXPECT_EQ(t.f(2), 1.0f / 31.0f);
  EXPECT_EQ(t.f(3), 1.0f);
  uint8_t back[2];
  f565.encode(t, back);
  EXPECT_EQ(std::memcmp(back, b, 2), 0);
  const TexelFormat f1010102 = format(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_DATA_TYPE_UNORM_INT_101010_2);
  const uint32_t w = 1023u | (512u << 10) | (0u << 20) | (2u << 30);
  uint8_t wb[4];
  std::memcpy(wb, &w, 4);
  const Texel p = f1010102.decode(wb);
  EXPECT_EQ(p.f(0), 1.0f);
  EXPECT_EQ(p.f(1), 512.0f / 1023.0f);
  EXPECT_EQ(p.f(3), 2.0f / 3.0f);
}

TEST(TexelFormat, SrgbDecodesWithTheSpecCurveAndRoundTrips) {
  const TexelFormat f = format(d::FORMAT_CHANNEL_ORDER_SRGBA, d::FORMAT_DATA_TYPE_UNORM_INT8);
  for (uint32_t c = 0; c < 256; ++c) {
    const uint8_t bytes[4] = {static_cast<uint8_t>(c), 0, 255, static_cast<uint8_t>(c)};
    const Texel t = f.decode(bytes);
    const float s = unorm8(c);
    const float expected = s <= 0.04045f ? s / 12.92f
                                         : static_cast<float>(std::pow((double{s} + 0.055) / 1.055, 2.4));
    EXPECT_EQ(t.f(0), expected) << c;
    EXPECT_EQ(t.f(2), 1.0f);
    EXPECT_EQ(t.f(3), s);  // alpha stays linear
    uint8_t back[4];
    f.encode(t, back);
    EXPECT_EQ(back[0], c) << c;
    EXPECT_EQ(back[3], c) << c;
  }
}

}  // namespace
}  // namespace gsgpu::texture
