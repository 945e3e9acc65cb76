// Image formats (gsgpu/cl/image_format.cc): pixel sizes of the spec's pairs, and the conversions
// clEnqueueFillImage uses, checked against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gsgpu/cl/image_format.h"

namespace gsgpu::cl {
namespace {

TEST(ImageFormat, PixelSizesFollowTheSpecsTable) {
  EXPECT_EQ(image_pixel_bytes({CL_RGBA, CL_UNORM_INT8}), 4u);
  EXPECT_EQ(image_pixel_bytes({CL_RGBA, CL_FLOAT}), 16u);
  EXPECT_EQ(image_pixel_bytes({CL_RG, CL_HALF_FLOAT}), 4u);
  EXPECT_EQ(image_pixel_bytes({CL_R, CL_SIGNED_INT32}), 4u);
  EXPECT_EQ(image_pixel_bytes({CL_BGRA, CL_UNORM_INT8}), 4u);
  EXPECT_EQ(image_pixel_bytes({CL_RGB, CL_UNORM_SHORT_565}), 2u);
  EXPECT_EQ(image_pixel_bytes({CL_RGBx, CL_UNORM_INT_101010}), 4u);
  EXPECT_EQ(image_pixel_bytes({CL_Rx, CL_UNORM_INT16}), 2u);  // x orders store what their plain order does
  EXPECT_EQ(image_pixel_bytes({CL_INTENSITY, CL_FLOAT}), 4u);
  // Pairs the spec does not define.
  EXPECT_EQ(image_pixel_bytes({CL_RGBA, CL_UNORM_SHORT_565}), 0u);
  EXPECT_EQ(image_pixel_bytes({CL_RGB, CL_UNORM_INT8}), 0u);
  EXPECT_EQ(image_pixel_bytes({CL_BGRA, CL_FLOAT}), 0u);
  EXPECT_EQ(image_pixel_bytes({CL_INTENSITY, CL_SIGNED_INT8}), 0u);
  EXPECT_EQ(image_pixel_bytes({CL_sRGBA, CL_UNORM_INT16}), 0u);
  EXPECT_EQ(image_pixel_bytes({0, CL_FLOAT}), 0u);
  EXPECT_EQ(image_pixel_bytes({CL_RGBA, 0}), 0u);
}

TEST(ImageFormat, EverySupportedFormatIsAValidPair) {
  for (const auto& f : supported_image_formats()) EXPECT_NE(image_pixel_bytes(f), 0u);
}

TEST(ImageFormat, FloatToHalfRoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the midpoint rounds to even: infinity
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half(std::nanf("")) & 0x7e00, 0x7e00);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);          // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);          // half way to it: even (zero)
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);          // 1.5 subnormal steps: even
  EXPECT_EQ(float_to_half(std::ldexp(1023.5f, -24)), 0x0400);       // rounds up into the normals
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);   // tie: even
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02);   // tie: even (up)
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -30)), 0x0000);
}

uint32_t pack(const cl_image_format& f, float r, float g, float b, float a) {
  uint8_t color[16];
  const float c[4] = {r, g, b, a};
  std::memcpy(color, c, 16);
  uint8_t px[16] = {};
  color_to_pixel(f, color, px);
  uint32_t v = 0;
  std::memcpy(&v, px, 4);
  return v;
}

TEST(ImageFormat, PackedAndSrgbColours) {
  // 565: 31, 63, 31 steps; 1.0, 0.5 (31.5 -> 32), 0.
  EXPECT_EQ(pack({CL_RGB, CL_UNORM_SHORT_565}, 1.0f, 0.5f, 0.0f, 0), (31u << 11) | (32u << 5));
  EXPECT_EQ(pack({CL_RGB, CL_UNORM_SHORT_555}, 1.0f, 0.0f, 1.0f, 0), (31u << 10) | 31u);
  EXPECT_EQ(pack({CL_RGB, CL_UNORM_INT_101010}, 0.0f, 1.0f, 0.0f, 0), 1023u << 10);
  // sRGB: 0.5 linear is 0.7354 encoded (188 of 255); alpha stays linear (128).
  EXPECT_EQ(pack({CL_sRGBA, CL_UNORM_INT8}, 0.5f, 0.0f, 1.0f, 0.5f), 188u | (0u << 8) | (255u << 16) | (128u << 24));
  // Intensity and luminance keep the red component.
  EXPECT_EQ(pack({CL_INTENSITY, CL_UNORM_INT8}, 1.0f, 0, 0, 0) & 0xff, 255u);
  EXPECT_EQ(pack({CL_A, CL_UNORM_INT8}, 0, 0, 0, 1.0f) & 0xff, 255u);
}

}  // namespace
}  // namespace gsgpu::cl
