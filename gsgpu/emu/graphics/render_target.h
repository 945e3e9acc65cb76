// Render-target formats and their conversions (Vulkan "Fixed-Point Data Conversions", sRGB transfer).
//
// A target is a view of host memory that the caller has already bounds-checked (the DRAW path maps
// the whole target through the MMU once): width x height pixels, row_pitch bytes apart.
//   - UNORM8 stores round(clamp(c, 0, 1) * 255), round half up; loads c / 255.
//   - SRGB8 stores the sRGB encoding of the linear value of R, G and B (alpha stays linear):
//     c <= 0.0031308 ? 12.92 c : 1.055 c^(1/2.4) - 0.055, then as UNORM8; loads decode the byte with
//     s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055)^2.4.
//   - B8G8R8A8 holds the same components as R8G8B8A8 with blue first in memory.
//   - R8 / R8G8 UNORM hold the first one / two components as UNORM8; loads give the missing green and
//     blue 0 and alpha 1 (Vulkan's component substitution).
//   - R32G32B32A32_SFLOAT stores floats unchanged; R32 / R32G32 SFLOAT their one / two.
//   - R16 / R16G16 / R16G16B16A16 SFLOAT store binary16 rounded to nearest even, B10G11R11_UFLOAT
//     unsigned 11- / 10-bit floats (color_encoding.h); R16* / A2B10G10R10 / R5G6B5 UNORM as UNORM8
//     with their widths. Float targets are never clamped (Vulkan's blending rules).
//   - R32G32B32A32_UINT / _SINT store the fragment's four 32-bit words unchanged: the shader's integer
//     outputs travel in Color's floats bit for bit (copied, never computed on); no blending.
//   - D32_SFLOAT: one float; D24_UNORM_S8_UINT: one 32-bit word, depth round(z * (2^24 - 1)) in bits
//     0..23 and stencil in bits 24..31; D32_SFLOAT_S8_UINT: 8 bytes, the float in bytes 0..3 and the
//     stencil in byte 4 (bytes 5..7 unused, kept). One interleaved pixel rather than a separate
//     stencil plane, so the target stays one mapped range checked with the same pitch rules.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gsgpu::graphics {

enum class ColorFormat : uint8_t {
  kR8G8B8A8Unorm,
  kR8G8B8A8Srgb,
  kB8G8R8A8Unorm,
  kB8G8R8A8Srgb,
  kR32G32B32A32Sfloat,
  kR32G32B32A32Uint,
  kR32G32B32A32Sint,
  kR8Unorm,
  kR8G8Unorm,
  kR16G16B16A16Sfloat,
  kR16Sfloat,
  kR16G16Sfloat,
  kR32Sfloat,
  kR32G32Sfloat,
  kR16G16B16A16Unorm,
  kR16Unorm,
  kR16G16Unorm,
  kA2B10G10R10Unorm,
  kR5G6B5Unorm,
  kB10G11R11Ufloat,
};
enum class DepthFormat : uint8_t { kD32Sfloat, kD24UnormS8Uint, kD16Unorm, kD32SfloatS8Uint };

using Color = std::array<float, 4>;  // R, G, B, A

// How a component is coded: UNORM (n bits), sRGB (8 bits; alpha UNORM), float (binary16 /
// binary32), unsigned 11- / 10-bit float, or a 32-bit word stored unchanged (integer targets).
enum class Coding : uint8_t { kUnorm, kSrgb, kFloat, kUfloat, kWord };

// Where R, G, B, A lie in a pixel (a little-endian value of `bytes` bytes): the first
// `components` of them are stored, at bit `shift[i]` with `bits[i]` bits; the others read as 0
// (alpha 1).
struct ColorLayout {
  uint8_t bytes;
  uint8_t components;
  Coding coding;
  uint8_t shift[4];
  uint8_t bits[4];
};

// Indexed by ColorFormat; inline because the output merger asks per fragment.
inline constexpr ColorLayout kColorLayouts[] = {
    {4, 4, Coding::kUnorm, {0, 8, 16, 24}, {8, 8, 8, 8}},          // R8G8B8A8_UNORM
    {4, 4, Coding::kSrgb, {0, 8, 16, 24}, {8, 8, 8, 8}},           // R8G8B8A8_SRGB
    {4, 4, Coding::kUnorm, {16, 8, 0, 24}, {8, 8, 8, 8}},          // B8G8R8A8_UNORM
    {4, 4, Coding::kSrgb, {16, 8, 0, 24}, {8, 8, 8, 8}},           // B8G8R8A8_SRGB
    {16, 4, Coding::kFloat, {0, 32, 64, 96}, {32, 32, 32, 32}},    // R32G32B32A32_SFLOAT
    {16, 4, Coding::kWord, {0, 32, 64, 96}, {32, 32, 32, 32}},     // R32G32B32A32_UINT
    {16, 4, Coding::kWord, {0, 32, 64, 96}, {32, 32, 32, 32}},     // R32G32B32A32_SINT
    {1, 1, Coding::kUnorm, {0}, {8}},                              // R8_UNORM
    {2, 2, Coding::kUnorm, {0, 8}, {8, 8}},                        // R8G8_UNORM
    {8, 4, Coding::kFloat, {0, 16, 32, 48}, {16, 16, 16, 16}},     // R16G16B16A16_SFLOAT
    {2, 1, Coding::kFloat, {0}, {16}},                             // R16_SFLOAT
    {4, 2, Coding::kFloat, {0, 16}, {16, 16}},                     // R16G16_SFLOAT
    {4, 1, Coding::kFloat, {0}, {32}},                             // R32_SFLOAT
    {8, 2, Coding::kFloat, {0, 32}, {32, 32}},                     // R32G32_SFLOAT
    {8, 4, Coding::kUnorm, {0, 16, 32, 48}, {16, 16, 16, 16}},     // R16G16B16A16_UNORM
    {2, 1, Coding::kUnorm, {0}, {16}},                             // R16_UNORM
    {4, 2, Coding::kUnorm, {0, 16}, {16, 16}},                     // R16G16_UNORM
    {4, 4, Coding::kUnorm, {0, 10, 20, 30}, {10, 10, 10, 2}},      // A2B10G10R10_UNORM_PACK32
    {2, 3, Coding::kUnorm, {11, 5, 0}, {5, 6, 5}},                 // R5G6B5_UNORM_PACK16
    {4, 3, Coding::kUfloat, {0, 11, 22}, {11, 11, 10}},            // B10G11R11_UFLOAT_PACK32
};
static_assert(sizeof(kColorLayouts) / sizeof(kColorLayouts[0]) == static_cast<size_t>(ColorFormat::kB10G11R11Ufloat) + 1,
              "one layout per ColorFormat");
inline const ColorLayout& color_layout(ColorFormat f) { return kColorLayouts[static_cast<int>(f)]; }

inline bool is_integer(ColorFormat f) { return color_layout(f).coding == Coding::kWord; }
inline uint32_t bytes_per_pixel(ColorFormat f) { return color_layout(f).bytes; }
// Components stored (R first; R8 1, R8G8 2, R5G6B5 3, ...).
inline int stored_components(ColorFormat f) { return color_layout(f).components; }
inline uint32_t bytes_per_pixel(DepthFormat f) {
  return f == DepthFormat::kD16Unorm ? 2 : f == DepthFormat::kD32SfloatS8Uint ? 8 : 4;
}
// Depth stored as a binary32 float (compared as floats; depth bias r from each triangle).
inline bool is_float_depth(DepthFormat f) { return f == DepthFormat::kD32Sfloat || f == DepthFormat::kD32SfloatS8Uint; }
inline bool is_srgb(ColorFormat f) { return color_layout(f).coding == Coding::kSrgb; }
// UNORM or SRGB: fixed point, blend inputs clamped to [0, 1]
inline bool is_unorm(ColorFormat f) {
  return color_layout(f).coding == Coding::kUnorm || color_layout(f).coding == Coding::kSrgb;
}
inline bool has_stencil(DepthFormat f) {
  return f == DepthFormat::kD24UnormS8Uint || f == DepthFormat::kD32SfloatS8Uint;
}
// The stencil byte's offset in a pixel: bits 24..31 of D24S8's little-endian word, byte 4 of D32S8.
inline uint32_t stencil_byte(DepthFormat f) { return f == DepthFormat::kD32SfloatS8Uint ? 4 : 3; }
const char* color_format_name(ColorFormat f);
// PIPE_STATE COLOR_FORMAT (a VkFormat value) -> the target format; false when it is none.
bool color_format_from_vk(uint32_t vk_format, ColorFormat* out);
const char* depth_format_name(DepthFormat f);

float srgb_to_linear(float s);
float linear_to_srgb(float c);
// Round to nearest as floor(x * max + 0.5); the value is positive there, so the conversion's
// truncation is that floor (a libm floor call per channel was 13 % of a flat fill's time). Inline:
// four per stored pixel.
inline uint8_t float_to_unorm8(float c) {
  // NaN becomes 0 (Vulkan leaves it undefined; a fixed choice keeps runs deterministic).
  if (!(c > 0.0f)) return 0;
  if (c >= 1.0f) return 255;
  return static_cast<uint8_t>(static_cast<double>(c) * 255.0 + 0.5);
}
uint32_t float_to_unorm24(float z);
// Component i (R, G, B, A) of a fixed-point or float format as its stored bits (logic ops take
// UNORM components this way); the all-ones mask of its width.
uint32_t encode_component(ColorFormat f, int i, float c);
uint32_t component_mask(ColorFormat f, int i);
uint32_t float_to_unorm16(float z);

struct ColorTarget {
  uint8_t* data = nullptr;
  uint32_t width = 0, height = 0;
  uint64_t row_pitch = 0;
  ColorFormat format = ColorFormat::kR8G8B8A8Unorm;

  uint8_t* pixel(uint32_t x, uint32_t y) const { return data + y * row_pitch + uint64_t{x} * bytes_per_pixel(format); }
  // Linear values (sRGB decoded).
  Color load(uint32_t x, uint32_t y) const;
  void store(uint32_t x, uint32_t y, const Color& linear) const;
  // The raw components as integers (their stored bits in R, G, B, A order), for logic ops and
  // write masks.
  std::array<uint32_t, 4> load_bits(uint32_t x, uint32_t y) const;
  void store_bits(uint32_t x, uint32_t y, const std::array<uint32_t, 4>& rgba) const;
};

struct DepthStencilTarget {
  uint8_t* data = nullptr;
  uint32_t width = 0, height = 0;
  uint64_t row_pitch = 0;
  DepthFormat format = DepthFormat::kD32Sfloat;

  uint8_t* pixel(uint32_t x, uint32_t y) const { return data + y * row_pitch + uint64_t{x} * bytes_per_pixel(format); }
  float load_depth(uint32_t x, uint32_t y) const;
  void store_depth(uint32_t x, uint32_t y, float z) const;
  uint8_t load_stencil(uint32_t x, uint32_t y) const;  // 0 for a format without stencil
  void store_stencil(uint32_t x, uint32_t y, uint8_t s) const;
};

}  // namespace gsgpu::graphics
