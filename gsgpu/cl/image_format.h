// OpenCL image formats on gsgpu: which channel order / data type pairs OpenCL defines, how many
// bytes a pixel takes, which pairs the device supports, and how a colour given by the host becomes
// a pixel in memory (the spec's conversion rules, for clEnqueueFillImage).
#pragma once

#include <cstdint>
#include <vector>

#include "gsgpu/cl/runtime.h"

namespace gsgpu::cl {

// Bytes of one pixel; 0 when the pair is not an OpenCL image format (an unknown order or type, or
// a combination the spec excludes, such as CL_UNORM_SHORT_565 with CL_RGBA).
uint32_t image_pixel_bytes(const cl_image_format& format);

// Channels a pixel of `order` stores (CL_RGBx stores 4, CL_RGB 3); 0 for an unknown order.
uint32_t image_channel_count(cl_channel_order order);

// The formats clGetSupportedImageFormats lists for an image type and flags: the same for every
// image type and access (the texture unit reads and writes each of them).
const std::vector<cl_image_format>& supported_image_formats();
bool image_format_supported(const cl_image_format& format);

// What a fill colour is for a format (the spec): four signed integers for the unnormalised signed
// types, four unsigned integers for the unsigned ones, otherwise four floats (one for CL_DEPTH,
// read as the first of four here).
enum class ColorKind { kFloat, kSigned, kUnsigned };
ColorKind fill_color_kind(const cl_image_format& format);

// Converts `color` (16 bytes: float[4], int32[4] or uint32[4] as fill_color_kind says) to one pixel
// of `format` at `pixel` (image_pixel_bytes(format) bytes): normalised types round to nearest even
// and saturate, NaN becomes 0; integer types saturate; half rounds to nearest even; sRGB orders
// convert from linear first.
void color_to_pixel(const cl_image_format& format, const uint8_t color[16], uint8_t* pixel);

// IEEE binary16 of `f`, rounded to nearest even (overflow to infinity, NaN kept quiet).
uint16_t float_to_half(float f);

}  // namespace gsgpu::cl
