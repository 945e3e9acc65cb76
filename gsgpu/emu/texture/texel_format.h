// Texel formats of the texture unit: which channels an IMAGE_DESC format stores, in what order and
// size, and the conversions between stored bits and the values shaders see, following the OpenCL
// C 1.2 spec section 8.3 ("Conversion rules"): normalised integers <-> float with round to nearest
// even and saturation on write, saturating integer conversions, half floats, sRGB.
#pragma once

#include <cstdint>

namespace gsgpu::texture {

// What a read returns and a write takes: floats for normalised / half / float types, 32-bit
// integers for the integer types.
enum class ValueClass : uint8_t { kFloat, kSigned, kUnsigned };

// Four channels (r, g, b, a) as 32-bit patterns: float bits for kFloat, integers otherwise.
struct Texel {
  uint32_t v[4] = {0, 0, 0, 0};
  float f(int c) const;
  void set_f(int c, float x);
};

// Channel slots in memory order: which of r, g, b, a (or padding) each stored component is.
enum Slot : uint8_t { kR = 0, kG = 1, kB = 2, kA = 3, kPad = 4, kLuminance = 5, kIntensity = 6 };

struct TexelFormat {
  uint32_t channel_order = 0;  // IMAGE_DESC FORMAT.CHANNEL_ORDER
  uint32_t data_type = 0;      // IMAGE_DESC FORMAT.DATA_TYPE
  uint32_t element_bytes = 0;  // one texel
  uint32_t channel_bytes = 0;  // the alignment unit: one channel, or the whole texel for packed types
  uint8_t components = 0;      // stored components
  Slot slots[4] = {kPad, kPad, kPad, kPad};
  ValueClass value_class = ValueClass::kFloat;
  bool srgb = false;
  bool has_alpha = false;

  // Stored bytes -> (r, g, b, a), channels the format lacks filled with 0 (alpha 1).
  Texel decode(const uint8_t* bytes) const;
  // (r, g, b, a) -> stored bytes, with the write conversions (saturation, rounding).
  void encode(const Texel& value, uint8_t* bytes) const;
  // The value a missing texel reads as: transparent black, alpha 1 when the format has no alpha.
  Texel transparent_black() const;
};

// The format for a channel order and data type, or false when the pair is unknown or not a valid
// combination (e.g. sRGB with a 16-bit type, a packed type with RGBA).
bool make_texel_format(uint32_t channel_order, uint32_t data_type, TexelFormat* out);

// Conversions, exposed for the tests.
float half_to_float(uint16_t h);
uint16_t float_to_half_rte(float f);
float srgb_to_linear(float c);
float linear_to_srgb(float c);
// convert_<int>_sat_rte(x * scale) clamped to [lo, hi]; NaN gives 0.
int32_t float_to_int_sat_rte(float x, int32_t lo, int32_t hi);

}  // namespace gsgpu::texture
