// Image formats: the pairs OpenCL defines, their pixel sizes, the device's list, and the spec's
// conversion of a host colour to a pixel (clEnqueueFillImage).
#include "gsgpu/cl/image_format.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace gsgpu::cl {
namespace {

bool is_plain_type(cl_channel_type type) {
  switch (type) {
    case CL_SNORM_INT8:
    case CL_SNORM_INT16:
    case CL_UNORM_INT8:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT8:
    case CL_SIGNED_INT16:
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT8:
    case CL_UNSIGNED_INT16:
    case CL_UNSIGNED_INT32:
    case CL_HALF_FLOAT:
    case CL_FLOAT: return true;
    default: return false;
  }
}

bool is_packed_type(cl_channel_type type) {
  return type == CL_UNORM_SHORT_565 || type == CL_UNORM_SHORT_555 || type == CL_UNORM_INT_101010;
}

bool is_srgb(cl_channel_order order) {
  return order == CL_sRGB || order == CL_sRGBx || order == CL_sRGBA || order == CL_sBGRA;
}

// The spec's table of which data types each channel order takes.
bool valid_pair(cl_channel_order order, cl_channel_type type) {
  switch (order) {
    case CL_INTENSITY:
    case CL_LUMINANCE:
      return type == CL_UNORM_INT8 || type == CL_UNORM_INT16 || type == CL_SNORM_INT8 || type == CL_SNORM_INT16 ||
             type == CL_HALF_FLOAT || type == CL_FLOAT;
    case CL_DEPTH: return type == CL_UNORM_INT16 || type == CL_FLOAT;
    case CL_RGB:
    case CL_RGBx: return is_packed_type(type);
    case CL_ARGB:
    case CL_BGRA:
    case CL_ABGR:
      return type == CL_UNORM_INT8 || type == CL_SNORM_INT8 || type == CL_SIGNED_INT8 || type == CL_UNSIGNED_INT8;
    case CL_sRGB:
    case CL_sRGBx:
    case CL_sRGBA:
    case CL_sBGRA: return type == CL_UNORM_INT8;
    case CL_RGBA: return is_plain_type(type) || type == CL_UNORM_INT_101010_2;
    case CL_R:
    case CL_A:
    case CL_RG:
    case CL_RA:
    case CL_Rx:
    case CL_RGx: return is_plain_type(type);
    default: return false;
  }
}

uint32_t type_bytes(cl_channel_type type) {
  switch (type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2;
    default: return 4;
  }
}

// The pixel's channels in memory order, as indexes into an (r, g, b, a) colour.
std::array<int, 4> memory_order(cl_channel_order order) {
  switch (order) {
    case CL_A: return {3, 0, 0, 0};
    case CL_RA: return {0, 3, 0, 0};
    case CL_BGRA:
    case CL_sBGRA: return {2, 1, 0, 3};
    case CL_ARGB: return {3, 0, 1, 2};
    case CL_ABGR: return {3, 2, 1, 0};
    default: return {0, 1, 2, 3};  // R, RG, RGBA, INTENSITY and LUMINANCE (stored as r), Rx, ...
  }
}

// OpenCL's convert_<type>_sat_rte(v): round to nearest even, saturate, NaN to 0.
int64_t saturate_rte(float v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  const double r = std::nearbyint(double(v));  // the default rounding mode is to nearest even
  return int64_t(std::clamp(r, lo, hi));
}

uint32_t unorm(float v, uint32_t max) { return uint32_t(saturate_rte(v * float(max), 0, max)); }
int32_t snorm(float v, int32_t max) { return int32_t(saturate_rte(v * float(max), -max, max)); }

// Linear to sRGB (the spec's conversion), then to an 8-bit value.
uint32_t srgb_unorm8(float v) {
  if (std::isnan(v)) return 0;
  float c = std::clamp(v, 0.0f, 1.0f);
  c = c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
  return unorm(c, 255);
}

void put(uint8_t* p, uint32_t bytes, uint64_t v) { std::memcpy(p, &v, bytes); }  // little-endian host

void pack_float_channel(cl_channel_type type, bool srgb, bool alpha, float v, uint8_t* p) {
  switch (type) {
    case CL_UNORM_INT8: put(p, 1, srgb && !alpha ? srgb_unorm8(v) : unorm(v, 255)); break;
    case CL_UNORM_INT16: put(p, 2, unorm(v, 65535)); break;
    case CL_SNORM_INT8: put(p, 1, uint8_t(snorm(v, 127))); break;
    case CL_SNORM_INT16: put(p, 2, uint16_t(snorm(v, 32767))); break;
    case CL_HALF_FLOAT: put(p, 2, float_to_half(v)); break;
    case CL_FLOAT: std::memcpy(p, &v, 4); break;
    default: break;
  }
}

void pack_int_channel(cl_channel_type type, uint32_t bits, uint8_t* p) {
  const auto s = int64_t(int32_t(bits));
  switch (type) {
    case CL_SIGNED_INT8: put(p, 1, uint8_t(std::clamp<int64_t>(s, -128, 127))); break;
    case CL_SIGNED_INT16: put(p, 2, uint16_t(std::clamp<int64_t>(s, -32768, 32767))); break;
    case CL_SIGNED_INT32: put(p, 4, bits); break;
    case CL_UNSIGNED_INT8: put(p, 1, std::min<uint32_t>(bits, 255)); break;
    case CL_UNSIGNED_INT16: put(p, 2, std::min<uint32_t>(bits, 65535)); break;
    case CL_UNSIGNED_INT32: put(p, 4, bits); break;
    default: break;
  }
}

// The packed types: every channel in one 16- or 32-bit word.
void pack_packed(cl_channel_type type, const float c[4], uint8_t* p) {
  switch (type) {
    case CL_UNORM_SHORT_565: put(p, 2, unorm(c[0], 31) << 11 | unorm(c[1], 63) << 5 | unorm(c[2], 31)); break;
    case CL_UNORM_SHORT_555: put(p, 2, unorm(c[0], 31) << 10 | unorm(c[1], 31) << 5 | unorm(c[2], 31)); break;
    case CL_UNORM_INT_101010:
      put(p, 4, unorm(c[0], 1023) << 20 | unorm(c[1], 1023) << 10 | unorm(c[2], 1023));
      break;
    case CL_UNORM_INT_101010_2:
      put(p, 4, unorm(c[0], 1023) << 22 | unorm(c[1], 1023) << 12 | unorm(c[2], 1023) << 2 | unorm(c[3], 3));
      break;
    default: break;
  }
}

std::vector<cl_image_format> make_supported() {
  std::vector<cl_image_format> out;
  // Every order the texture unit reads with every plain type, and the 8-bit BGRA of the minimum
  // list (cameras and video frames).
  for (cl_channel_order order : {CL_R, CL_RG, CL_RGBA})
    for (cl_channel_type type : {CL_SNORM_INT8, CL_SNORM_INT16, CL_UNORM_INT8, CL_UNORM_INT16, CL_SIGNED_INT8,
                                 CL_SIGNED_INT16, CL_SIGNED_INT32, CL_UNSIGNED_INT8, CL_UNSIGNED_INT16,
                                 CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT})
      out.push_back({cl_channel_order(order), cl_channel_type(type)});
  out.push_back({CL_BGRA, CL_UNORM_INT8});
  return out;
}

}  // namespace

uint32_t image_channel_count(cl_channel_order order) {
  switch (order) {
    // The x orders store what their plain order stores; they differ only in the border colour.
    case CL_R:
    case CL_A:
    case CL_Rx:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH: return 1;
    case CL_RG:
    case CL_RA:
    case CL_RGx: return 2;
    case CL_RGB:
    case CL_RGBx:
    case CL_sRGB:
    case CL_sRGBx: return 3;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
    case CL_ABGR:
    case CL_sRGBA:
    case CL_sBGRA: return 4;
    default: return 0;
  }
}

uint32_t image_pixel_bytes(const cl_image_format& f) {
  if (!valid_pair(f.image_channel_order, f.image_channel_data_type)) return 0;
  switch (f.image_channel_data_type) {
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010:
    case CL_UNORM_INT_101010_2: return 4;
    default: return image_channel_count(f.image_channel_order) * type_bytes(f.image_channel_data_type);
  }
}

const std::vector<cl_image_format>& supported_image_formats() {
  static const std::vector<cl_image_format> formats = make_supported();
  return formats;
}

bool image_format_supported(const cl_image_format& format) {
  const auto& list = supported_image_formats();
  return std::any_of(list.begin(), list.end(), [&](const cl_image_format& f) {
    return f.image_channel_order == format.image_channel_order &&
           f.image_channel_data_type == format.image_channel_data_type;
  });
}

ColorKind fill_color_kind(const cl_image_format& format) {
  switch (format.image_channel_data_type) {
    case CL_SIGNED_INT8:
    case CL_SIGNED_INT16:
    case CL_SIGNED_INT32: return ColorKind::kSigned;
    case CL_UNSIGNED_INT8:
    case CL_UNSIGNED_INT16:
    case CL_UNSIGNED_INT32: return ColorKind::kUnsigned;
    default: return ColorKind::kFloat;
  }
}

void color_to_pixel(const cl_image_format& format, const uint8_t color[16], uint8_t* pixel) {
  const cl_channel_type type = format.image_channel_data_type;
  uint32_t words[4];
  std::memcpy(words, color, sizeof words);
  float c[4];
  for (int i = 0; i < 4; ++i) c[i] = std::bit_cast<float>(words[i]);
  if (!is_plain_type(type)) {
    pack_packed(type, c, pixel);
    return;
  }
  const uint32_t channels = image_channel_count(format.image_channel_order);
  const uint32_t bytes = type_bytes(type);
  const auto order = memory_order(format.image_channel_order);
  const bool srgb = is_srgb(format.image_channel_order);
  for (uint32_t i = 0; i < channels; ++i) {
    const int from = order[i];
    if (fill_color_kind(format) == ColorKind::kFloat)
      pack_float_channel(type, srgb, from == 3, c[from], pixel + i * bytes);
    else
      pack_int_channel(type, words[from], pixel + i * bytes);
  }
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return sign | (abs > 0x7f800000 ? 0x7e00 : 0x7c00);  // NaN (quiet) or infinity
  if (abs >= 0x477ff000) return sign | 0x7c00;  // rounds past the largest half (65504)
  const int exponent = int(abs >> 23) - 127;
  if (exponent < -25) return sign;  // below half the smallest subnormal: rounds to zero
  uint32_t mantissa = (abs & 0x7fffff) | 0x800000;
  // Half keeps 11 significant bits, fewer for subnormals (exponent < -14).
  const int shift = exponent < -14 ? 13 + (-14 - exponent) : 13;
  const uint32_t kept = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half_way = 1u << (shift - 1);
  uint32_t rounded = kept + (rest > half_way || (rest == half_way && (kept & 1)));
  if (exponent < -14) return sign | uint16_t(rounded);  // subnormal (a carry makes it the smallest normal)
  // Normal: the implicit bit is in `rounded` at bit 10; a carry past bit 11 bumps the exponent.
  return sign | uint16_t((uint32_t(exponent + 15) << 10) + rounded - 0x400);
}

}  // namespace gsgpu::cl
