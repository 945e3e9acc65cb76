#include "gsgpu/emu/texture/texel_format.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "common/packed_float.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::texture {
namespace {

namespace fmt = hw::blk::IMAGE_DESC;

// Channel slots in memory order per channel order; components 0 = not a known order.
struct OrderLayout {
  uint32_t order;
  uint8_t components;
  Slot slots[4];
  bool has_alpha;
  bool srgb;
};

constexpr OrderLayout kOrders[] = {
    {fmt::FORMAT_CHANNEL_ORDER_R, 1, {kR}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_A, 1, {kA}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_RG, 2, {kR, kG}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_RA, 2, {kR, kA}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_RGB, 3, {kR, kG, kB}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_RGBA, 4, {kR, kG, kB, kA}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_BGRA, 4, {kB, kG, kR, kA}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_ARGB, 4, {kA, kR, kG, kB}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_INTENSITY, 1, {kIntensity}, true, false},
    {fmt::FORMAT_CHANNEL_ORDER_LUMINANCE, 1, {kLuminance}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_RX, 2, {kR, kPad}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_RGX, 3, {kR, kG, kPad}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_RGBX, 4, {kR, kG, kB, kPad}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_DEPTH, 1, {kR}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL, 2, {kR, kPad}, false, false},
    {fmt::FORMAT_CHANNEL_ORDER_SRGB, 3, {kR, kG, kB}, false, true},
    {fmt::FORMAT_CHANNEL_ORDER_SRGBX, 4, {kR, kG, kB, kPad}, false, true},
    {fmt::FORMAT_CHANNEL_ORDER_SRGBA, 4, {kR, kG, kB, kA}, true, true},
    {fmt::FORMAT_CHANNEL_ORDER_SBGRA, 4, {kB, kG, kR, kA}, true, true},
    {fmt::FORMAT_CHANNEL_ORDER_ABGR, 4, {kA, kB, kG, kR}, true, false},
};

// Packed types whose components are floats (packed_float.h), not UNORM fields.
bool is_packed_float(uint32_t type) {
  return type == fmt::FORMAT_DATA_TYPE_UFLOAT_11_11_10 || type == fmt::FORMAT_DATA_TYPE_SHARED_EXP_9_9_9_5;
}

bool is_packed(uint32_t type) {
  return type == fmt::FORMAT_DATA_TYPE_UNORM_SHORT_565 || type == fmt::FORMAT_DATA_TYPE_UNORM_SHORT_555 ||
         type == fmt::FORMAT_DATA_TYPE_UNORM_INT_101010 || type == fmt::FORMAT_DATA_TYPE_UNORM_INT_101010_2 ||
         type == fmt::FORMAT_DATA_TYPE_UNORM_INT24 || is_packed_float(type);
}

// Bytes per channel of an unpacked type (0 for packed or unknown ones).
uint32_t channel_bytes_of(uint32_t type) {
  switch (type) {
    case fmt::FORMAT_DATA_TYPE_SNORM_INT8: case fmt::FORMAT_DATA_TYPE_UNORM_INT8:
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT8: case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT8: return 1;
    case fmt::FORMAT_DATA_TYPE_SNORM_INT16: case fmt::FORMAT_DATA_TYPE_UNORM_INT16:
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT16: case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT16:
    case fmt::FORMAT_DATA_TYPE_HALF_FLOAT: return 2;
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT32: case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT32:
    case fmt::FORMAT_DATA_TYPE_FLOAT: return 4;
    default: return 0;
  }
}

ValueClass value_class_of(uint32_t type) {
  switch (type) {
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT8: case fmt::FORMAT_DATA_TYPE_SIGNED_INT16:
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT32: return ValueClass::kSigned;
    case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT8: case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT16:
    case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT32: return ValueClass::kUnsigned;
    default: return ValueClass::kFloat;
  }
}

// Which orders a packed type may take.
bool packed_order_ok(uint32_t order, uint32_t type) {
  if (type == fmt::FORMAT_DATA_TYPE_UNORM_INT24) return order == fmt::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL;
  if (type == fmt::FORMAT_DATA_TYPE_UNORM_INT_101010_2) return order == fmt::FORMAT_CHANNEL_ORDER_RGBA;
  if (is_packed_float(type)) return order == fmt::FORMAT_CHANNEL_ORDER_RGB;
  return order == fmt::FORMAT_CHANNEL_ORDER_RGB || order == fmt::FORMAT_CHANNEL_ORDER_RGBX;
}

uint32_t load_le(const uint8_t* p, uint32_t bytes) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < bytes; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}

void store_le(uint8_t* p, uint32_t bytes, uint32_t v) {
  for (uint32_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// One stored channel -> its value (float bits or integer), for the unpacked types.
uint32_t decode_channel(uint32_t type, uint32_t raw) {
  const auto fbits = [](float f) { return std::bit_cast<uint32_t>(f); };
  switch (type) {
    // c * (1 / 255) rather than c / 255: both are within OpenCL's 1.5 ulp (0 and the maximum
    // give 0 and 1 exactly) and the product is what PoCL and CPU implementations compute, so
    // applications see the same floats as on the host (ffmpeg's filters give identical frames).
    case fmt::FORMAT_DATA_TYPE_UNORM_INT8: return fbits(static_cast<float>(raw) * (1.0f / 255.0f));
    case fmt::FORMAT_DATA_TYPE_UNORM_INT16: return fbits(static_cast<float>(raw) * (1.0f / 65535.0f));
    case fmt::FORMAT_DATA_TYPE_SNORM_INT8:
      return fbits(std::fmax(-1.0f, static_cast<float>(static_cast<int8_t>(raw)) / 127.0f));
    case fmt::FORMAT_DATA_TYPE_SNORM_INT16:
      return fbits(std::fmax(-1.0f, static_cast<float>(static_cast<int16_t>(raw)) / 32767.0f));
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT8: return static_cast<uint32_t>(int32_t{static_cast<int8_t>(raw)});
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT16: return static_cast<uint32_t>(int32_t{static_cast<int16_t>(raw)});
    case fmt::FORMAT_DATA_TYPE_HALF_FLOAT: return fbits(half_to_float(static_cast<uint16_t>(raw)));
    default: return raw;  // 32-bit integers, float, unsigned 8/16
  }
}

// One value -> its stored channel, with OpenCL's write conversions.
uint32_t encode_channel(uint32_t type, uint32_t value) {
  const float f = std::bit_cast<float>(value);
  const auto sat_signed = [&](int32_t lo, int32_t hi) {
    const int32_t v = static_cast<int32_t>(value);
    return static_cast<uint32_t>(v < lo ? lo : v > hi ? hi : v);
  };
  switch (type) {
    case fmt::FORMAT_DATA_TYPE_UNORM_INT8: return static_cast<uint32_t>(float_to_int_sat_rte(f * 255.0f, 0, 255));
    case fmt::FORMAT_DATA_TYPE_UNORM_INT16:
      return static_cast<uint32_t>(float_to_int_sat_rte(f * 65535.0f, 0, 65535));
    case fmt::FORMAT_DATA_TYPE_SNORM_INT8:
      return static_cast<uint32_t>(float_to_int_sat_rte(f * 127.0f, -128, 127)) & 0xffu;
    case fmt::FORMAT_DATA_TYPE_SNORM_INT16:
      return static_cast<uint32_t>(float_to_int_sat_rte(f * 32767.0f, -32768, 32767)) & 0xffffu;
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT8: return sat_signed(-128, 127) & 0xffu;
    case fmt::FORMAT_DATA_TYPE_SIGNED_INT16: return sat_signed(-32768, 32767) & 0xffffu;
    case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT8: return value > 255u ? 255u : value;
    case fmt::FORMAT_DATA_TYPE_UNSIGNED_INT16: return value > 65535u ? 65535u : value;
    case fmt::FORMAT_DATA_TYPE_HALF_FLOAT: return float_to_half_rte(f);
    default: return value;  // 32-bit integers and float are stored as given
  }
}

float unorm(uint32_t raw, uint32_t max) { return static_cast<float>(raw) / static_cast<float>(max); }
uint32_t to_unorm(float f, uint32_t max) {
  return static_cast<uint32_t>(float_to_int_sat_rte(f * static_cast<float>(max), 0, static_cast<int32_t>(max)));
}

// Packed types: (shift, bits) of r, g, b, a in the element; bits 0 = absent.
struct PackedField { uint8_t shift, bits; };
void packed_layout(uint32_t type, PackedField out[4]) {
  for (int c = 0; c < 4; ++c) out[c] = {0, 0};
  switch (type) {
    case fmt::FORMAT_DATA_TYPE_UNORM_SHORT_565: out[0] = {11, 5}; out[1] = {5, 6}; out[2] = {0, 5}; break;
    case fmt::FORMAT_DATA_TYPE_UNORM_SHORT_555: out[0] = {10, 5}; out[1] = {5, 5}; out[2] = {0, 5}; break;
    case fmt::FORMAT_DATA_TYPE_UNORM_INT_101010: out[0] = {20, 10}; out[1] = {10, 10}; out[2] = {0, 10}; break;
    case fmt::FORMAT_DATA_TYPE_UNORM_INT_101010_2:
      out[0] = {0, 10}; out[1] = {10, 10}; out[2] = {20, 10}; out[3] = {30, 2}; break;
    case fmt::FORMAT_DATA_TYPE_UNORM_INT24: out[0] = {0, 24}; break;  // depth; stencil in 31:24
    default: break;
  }
}

}  // namespace

float Texel::f(int c) const { return std::bit_cast<float>(v[c]); }
void Texel::set_f(int c, float x) { v[c] = std::bit_cast<uint32_t>(x); }

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t float_to_half_rte(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00 | ((abs >> 13) & 0x3ff));  // NaN stays NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to infinity (>= 65520)
  if (abs < 0x38800000u) {  // below the smallest normal half: a subnormal multiple of 2^-24
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact: a power-of-two scale
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: drop 13 mantissa bits with round to nearest even (a carry into the exponent is right).
  const uint32_t rebiased = abs - (112u << 23);
  const uint32_t rounded = rebiased + 0xfffu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float srgb_to_linear(float c) {
  if (c <= 0.04045f) return c / 12.92f;
  return static_cast<float>(std::pow((static_cast<double>(c) + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float c) {
  if (!(c > 0.0f)) return 0.0f;  // NaN and negatives
  if (c >= 1.0f) return 1.0f;
  if (c <= 0.0031308f) return c * 12.92f;
  return static_cast<float>(1.055 * std::pow(static_cast<double>(c), 1.0 / 2.4) - 0.055);
}

int32_t float_to_int_sat_rte(float x, int32_t lo, int32_t hi) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<float>(lo)) return lo;
  if (x >= static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(std::nearbyint(x));  // the default rounding mode: to nearest even
}

bool make_texel_format(uint32_t order, uint32_t type, TexelFormat* out) {
  const OrderLayout* layout = nullptr;
  for (const OrderLayout& o : kOrders)
    if (o.order == order) layout = &o;
  if (layout == nullptr) return false;
  TexelFormat f;
  f.channel_order = order;
  f.data_type = type;
  f.has_alpha = layout->has_alpha;
  f.srgb = layout->srgb;
  f.value_class = value_class_of(type);
  if (is_packed(type)) {
    if (!packed_order_ok(order, type)) return false;
    f.element_bytes = f.channel_bytes = type == fmt::FORMAT_DATA_TYPE_UNORM_SHORT_565 ||
                                                type == fmt::FORMAT_DATA_TYPE_UNORM_SHORT_555 ? 2 : 4;
    f.components = 0;  // the packed layout applies instead of slots
  } else {
    const uint32_t channel = channel_bytes_of(type);
    if (channel == 0) return false;
    if (order == fmt::FORMAT_CHANNEL_ORDER_RGB || order == fmt::FORMAT_CHANNEL_ORDER_RGBX)
      return false;  // only with packed types
    // DEPTH_STENCIL with FLOAT is D32_SFLOAT_S8_UINT: the float, then a 4-byte pad slot whose
    // first byte is the stencil (the output merger's 8-byte layout); the unit reads the depth.
    if (order == fmt::FORMAT_CHANNEL_ORDER_DEPTH_STENCIL && type != fmt::FORMAT_DATA_TYPE_FLOAT) return false;
    if (f.srgb && type != fmt::FORMAT_DATA_TYPE_UNORM_INT8) return false;
    if (order == fmt::FORMAT_CHANNEL_ORDER_DEPTH && type != fmt::FORMAT_DATA_TYPE_FLOAT &&
        type != fmt::FORMAT_DATA_TYPE_UNORM_INT16)
      return false;
    if ((order == fmt::FORMAT_CHANNEL_ORDER_INTENSITY || order == fmt::FORMAT_CHANNEL_ORDER_LUMINANCE) &&
        f.value_class != ValueClass::kFloat)
      return false;  // OpenCL allows them with normalised, half and float types only
    f.components = layout->components;
    for (int i = 0; i < 4; ++i) f.slots[i] = layout->slots[i];
    f.channel_bytes = channel;
    f.element_bytes = channel * f.components;
  }
  *out = f;
  return true;
}

Texel TexelFormat::transparent_black() const {
  Texel t;
  if (!has_alpha) {
    if (value_class == ValueClass::kFloat) t.set_f(3, 1.0f);
    else t.v[3] = 1;
  }
  return t;
}

Texel TexelFormat::decode(const uint8_t* bytes) const {
  Texel t = transparent_black();
  if (components == 0) {  // packed
    PackedField fields[4];
    packed_layout(data_type, fields);
    const uint32_t word = load_le(bytes, element_bytes);
    if (is_packed_float(data_type)) {
      float rgb[3];
      if (data_type == fmt::FORMAT_DATA_TYPE_UFLOAT_11_11_10) gsvirt::decode_b10g11r11(word, rgb);
      else gsvirt::decode_e5b9g9r9(word, rgb);
      for (int c = 0; c < 3; ++c) t.set_f(c, rgb[c]);
      return t;
    }
    for (int c = 0; c < 4; ++c)
      if (fields[c].bits) t.set_f(c, unorm((word >> fields[c].shift) & ((1u << fields[c].bits) - 1),
                                           (1u << fields[c].bits) - 1));
    return t;
  }
  for (uint32_t i = 0; i < components; ++i) {
    const uint32_t value = decode_channel(data_type, load_le(bytes + i * channel_bytes, channel_bytes));
    switch (slots[i]) {
      case kPad: break;
      case kIntensity: t.v[0] = t.v[1] = t.v[2] = t.v[3] = value; break;
      case kLuminance: t.v[0] = t.v[1] = t.v[2] = value; break;
      default: t.v[slots[i]] = value; break;
    }
  }
  if (srgb)
    for (int c = 0; c < 3; ++c) t.set_f(c, srgb_to_linear(t.f(c)));
  return t;
}

void TexelFormat::encode(const Texel& value, uint8_t* bytes) const {
  if (components == 0) {  // packed
    if (is_packed_float(data_type)) {
      const float rgb[3] = {value.f(0), value.f(1), value.f(2)};
      store_le(bytes, element_bytes,
               data_type == fmt::FORMAT_DATA_TYPE_UFLOAT_11_11_10 ? gsvirt::encode_b10g11r11(rgb) : gsvirt::encode_e5b9g9r9(rgb));
      return;
    }
    PackedField fields[4];
    packed_layout(data_type, fields);
    uint32_t word = 0;
    for (int c = 0; c < 4; ++c)
      if (fields[c].bits) word |= to_unorm(value.f(c), (1u << fields[c].bits) - 1) << fields[c].shift;
    store_le(bytes, element_bytes, word);
    return;
  }
  for (uint32_t i = 0; i < components; ++i) {
    const Slot slot = slots[i];
    uint32_t v = 0;
    if (slot != kPad) {
      const int c = slot == kIntensity || slot == kLuminance ? 0 : slot;
      v = value.v[c];
      if (srgb && c < 3) v = std::bit_cast<uint32_t>(linear_to_srgb(value.f(c)));
      v = encode_channel(data_type, v);
    }
    store_le(bytes + i * channel_bytes, channel_bytes, v);
  }
}

}  // namespace gsgpu::texture
