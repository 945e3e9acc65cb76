// The texture unit on hand-built descriptors: exact texels from OpenCL C 1.2 section 8.2's
// addressing and filtering formulas, writes with their conversions, mip levels, queries, and
// hostile descriptors that must fault without touching memory outside the mapping.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "gsgpu/emu/texture/cube_map.h"
#include "gsgpu/emu/texture/texture_unit.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::texture {
namespace {

namespace d = hw::blk::IMAGE_DESC;
namespace s = hw::blk::SAMPLER_STATE;
using hw::put_field;
using testing::FlatMemory;

constexpr uint64_t kBase = 0x100000;

struct DescSpec {
  uint64_t base = 0;
  uint32_t order = d::FORMAT_CHANNEL_ORDER_R;
  uint32_t type = d::FORMAT_DATA_TYPE_FLOAT;
  uint32_t image_type = d::FORMAT_TYPE_IMAGE_2D;
  uint32_t width = 1, height = 1, depth = 1, layers = 1;
  uint32_t row_pitch = 0, slice_pitch = 0;
  uint32_t levels = 1, layout = d::FORMAT_MIP_LAYOUT_SINGLE;
};

std::vector<uint32_t> words_of(const DescSpec& spec) {
  std::vector<uint32_t> w(d::SIZE_DWORDS, 0);
  w[d::BASE_VA_LO] = static_cast<uint32_t>(spec.base);
  w[d::BASE_VA_HI] = static_cast<uint32_t>(spec.base >> 32);
  w[d::FORMAT] = put_field(spec.order, d::FORMAT_CHANNEL_ORDER_MASK, d::FORMAT_CHANNEL_ORDER_SHIFT) |
                 put_field(spec.type, d::FORMAT_DATA_TYPE_MASK, d::FORMAT_DATA_TYPE_SHIFT) |
                 put_field(spec.image_type, d::FORMAT_TYPE_MASK, d::FORMAT_TYPE_SHIFT) |
                 put_field(spec.levels, d::FORMAT_MIP_LEVELS_MASK, d::FORMAT_MIP_LEVELS_SHIFT) |
                 put_field(spec.layout, d::FORMAT_MIP_LAYOUT_MASK, d::FORMAT_MIP_LAYOUT_SHIFT);
  w[d::WIDTH] = spec.width;
  w[d::HEIGHT] = spec.height;
  w[d::DEPTH] = spec.depth;
  w[d::ARRAY_SIZE] = spec.layers;
  w[d::ROW_PITCH] = spec.row_pitch;
  w[d::SLICE_PITCH] = spec.slice_pitch;
  return w;
}

uint32_t sampler_word(bool normalized, uint32_t address, bool linear, uint32_t mip_filter = 0) {
  return put_field(normalized, s::STATE_NORMALIZED_MASK, s::STATE_NORMALIZED_SHIFT) |
         put_field(address, s::STATE_ADDRESS_U_MASK, s::STATE_ADDRESS_U_SHIFT) |
         put_field(address, s::STATE_ADDRESS_V_MASK, s::STATE_ADDRESS_V_SHIFT) |
         put_field(address, s::STATE_ADDRESS_W_MASK, s::STATE_ADDRESS_W_SHIFT) |
         put_field(linear, s::STATE_MAG_FILTER_MASK, s::STATE_MAG_FILTER_SHIFT) |
         put_field(linear, s::STATE_MIN_FILTER_MASK, s::STATE_MIN_FILTER_SHIFT) |
         put_field(mip_filter, s::STATE_MIP_FILTER_MASK, s::STATE_MIP_FILTER_SHIFT);
}

Sampler sampler(bool normalized, uint32_t address, bool linear, uint32_t mip_filter = 0) {
  Sampler out;
  std::string why;
  EXPECT_TRUE(decode_sampler(sampler_word(normalized, address, linear, mip_filter), &out, &why)) << why;
  return out;
}

class TextureUnitTest : public ::testing::Test {
 protected:
  FlatMemory memory{kBase, 1 << 20};
  TextureUnit unit{memory};

  // A float image whose texels hold `values` (one float per channel of `order`), placed in memory.
  Image float_image(DescSpec spec, const std::vector<float>& values) {
    const uint64_t texels = memory.alloc(values.size() * 4 + 64, 64);
    std::memcpy(memory.host(texels), values.data(), values.size() * 4);
    spec.base = texels;
    return load(spec, ImageUse::kRead);
  }
  Image load(const DescSpec& spec, ImageUse use) {
    const uint64_t desc_va = memory.alloc(64, 64);
    const std::vector<uint32_t> w = words_of(spec);
    std::memcpy(memory.host(desc_va), w.data(), 64);
    Image image;
    EXPECT_TRUE(unit.load_image(desc_va, use, &image)) << unit.fault_reason();
    return image;
  }
  float sample_r(const Image& image, const Sampler& smp, float x, float y = 0, float z = 0, float lod = 0,
                 const TexelOffset& offset = {}) {
    const float coord[3] = {x, y, z};
    Texel t;
    EXPECT_TRUE(unit.sample(image, smp, coord, lod, &t, offset)) << unit.fault_reason();
    return t.f(0);
  }
};

DescSpec image_1d(uint32_t width) {
  DescSpec spec;
  spec.image_type = d::FORMAT_TYPE_IMAGE_1D;
  spec.width = width;
  spec.row_pitch = width * 4;
  return spec;
}

TEST_F(TextureUnitTest, FetchReadsTexelsAndTheBorderOutside) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  spec.type = d::FORMAT_DATA_TYPE_UNSIGNED_INT8;
  spec.width = 3;
  spec.height = 2;
  spec.row_pitch = 16;  // padded rows
  const uint64_t texels = memory.alloc(32);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 4; ++c) memory.host(texels)[y * 16 + x * 4 + c] = static_cast<uint8_t>(y * 100 + x * 10 + c);
  spec.base = texels;
  const Image image = load(spec, ImageUse::kRead);
  const int32_t at[3] = {2, 1, 0};
  Texel t;
  ASSERT_TRUE(unit.fetch(image, at, 0, nullptr, &t));
  EXPECT_EQ(t.v[0], 120u);
  EXPECT_EQ(t.v[3], 123u);
  const int32_t outside[3] = {3, 0, 0};
  ASSERT_TRUE(unit.fetch(image, outside, 0, nullptr, &t));
  EXPECT_EQ(t.v[0], 0u);
  EXPECT_EQ(t.v[3], 0u);  // RGBA has alpha: (0, 0, 0, 0)
  const Sampler edge = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  ASSERT_TRUE(unit.fetch(image, outside, 0, &edge, &t));
  EXPECT_EQ(t.v[0], 20u);  // clamped to x = 2
  EXPECT_TRUE(memory.faults.empty());
}

TEST_F(TextureUnitTest, NearestAddressingModesFollowTheSpec) {
  const Image image = float_image(image_1d(4), {10, 11, 12, 13});
  const Sampler edge = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  EXPECT_EQ(sample_r(image, edge, -3.5f), 10);
  EXPECT_EQ(sample_r(image, edge, 2.99f), 12);
  EXPECT_EQ(sample_r(image, edge, 100.0f), 13);
  const Sampler border = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_BORDER, false);
  EXPECT_EQ(sample_r(image, border, -0.5f), 0);
  EXPECT_EQ(sample_r(image, border, 4.0f), 0);
  EXPECT_EQ(sample_r(image, border, 3.99f), 13);
  const Sampler norm_edge = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  EXPECT_EQ(sample_r(image, norm_edge, 0.5f), 12);   // u = 2
  // repeat: u = (s - floor(s)) * 4, i = floor(u), wrapped once
  const Sampler repeat = sampler(true, s::STATE_ADDRESS_U_REPEAT, false);
  EXPECT_EQ(sample_r(image, repeat, 1.3f), 11);      // frac 0.3 -> u 1.2
  EXPECT_EQ(sample_r(image, repeat, -0.1f), 13);     // frac 0.9 -> u 3.6
  EXPECT_EQ(sample_r(image, repeat, -1e-9f), 10);    // frac rounds to 1.0 -> u 4 -> i 4 - 4
  // mirrored repeat: s' = |s - 2 rint(s / 2)|, u = s' * 4, i = min(floor(u), 3)
  const Sampler mirror = sampler(true, s::STATE_ADDRESS_U_MIRRORED_REPEAT, false);
  EXPECT_EQ(sample_r(image, mirror, 1.3f), 12);      // s' 0.7 -> u 2.8
  EXPECT_EQ(sample_r(image, mirror, -0.3f), 11);     // s' 0.3 -> u 1.2
  EXPECT_EQ(sample_r(image, mirror, 1.0f), 13);      // s' 1 -> u 4 -> 3
  EXPECT_EQ(sample_r(image, mirror, NAN), 10);       // deterministic for NaN
}

// Vulkan's mirror clamp to edge on the texel index: i for i >= 0, -(1 + i) below, clamped to the last.
TEST_F(TextureUnitTest, MirrorClampToEdgeMirrorsOnceThenClamps) {
  const Image image = float_image(image_1d(4), {10, 11, 12, 13});
  const Sampler mirror_clamp = sampler(true, s::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE, false);
  EXPECT_EQ(sample_r(image, mirror_clamp, 0.3f), 11);    // u 1.2
  EXPECT_EQ(sample_r(image, mirror_clamp, -0.3f), 11);   // u -1.2: i -2 -> 1
  EXPECT_EQ(sample_r(image, mirror_clamp, -0.1f), 10);   // i -1 -> 0
  EXPECT_EQ(sample_r(image, mirror_clamp, -5.0f), 13);   // i -20 -> 19 -> clamped to 3
  EXPECT_EQ(sample_r(image, mirror_clamp, 7.0f), 13);
  EXPECT_EQ(sample_r(image, mirror_clamp, NAN), 10);
  // Linear at u = -0.75 (s = -0.1875): i0 = -2 -> 1, i1 = -1 -> 0, weight 0.75 of i1.
  const Sampler linear = sampler(true, s::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE, true);
  EXPECT_FLOAT_EQ(sample_r(image, linear, -0.1875f), 0.25f * 11 + 0.75f * 10);
}

// Texel offsets (ConstOffset): added to the integer index in texel space at the level read, then
// wrapped as Vulkan's index is (REPEAT: i mod n; MIRRORED_REPEAT: over the period 2 n; the clamps
// and the border after the offset), for nearest and for both texels of a linear pair.
TEST_F(TextureUnitTest, TexelOffsetsAreAddedBeforeTheWrap) {
  const Image image = float_image(image_1d(4), {10, 11, 12, 13});
  const auto nearest = [&](uint32_t mode, float s, int32_t dx) {
    return sample_r(image, sampler(true, mode, false), s, 0, 0, 0, TexelOffset{{dx, 0, 0}});
  };
  const auto linear = [&](uint32_t mode, float s, int32_t dx) {
    return sample_r(image, sampler(true, mode, true), s, 0, 0, 0, TexelOffset{{dx, 0, 0}});
  };
  // s = 0.125: u = 0.5, i = 0.
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_EDGE, 0.125f, 2), 12);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_EDGE, 0.125f, -3), 10);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_EDGE, 0.125f, 7), 13);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_REPEAT, 0.125f, -1), 13);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_REPEAT, 0.125f, 5), 11);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_REPEAT, -1.875f, -8), 10);   // i 0 - 8 = -8 -> 0
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 0.125f, -1), 10);  // -1 mod 8 = 7 -> 0
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 0.125f, 4), 13);   // 4 -> 3
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 0.125f, 5), 12);   // 5 -> 2
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 1.125f, 1), 12);   // u 4.5: 4 + 1 -> 2
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 1.125f, 0), 13);   // 4 -> 3
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_BORDER, 0.125f, -1), 0);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_BORDER, 0.125f, 3), 13);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_CLAMP_TO_BORDER, 0.125f, 4), 0);
  EXPECT_EQ(nearest(s::STATE_ADDRESS_U_MIRROR_CLAMP_TO_EDGE, 0.125f, -2), 11);  // -2 -> 1
  // s = 0.25: u - 0.5 = 0.5, i0 = 0 + offset, i1 = i0 + 1, each wrapped, weight 0.5.
  EXPECT_FLOAT_EQ(linear(s::STATE_ADDRESS_U_REPEAT, 0.25f, -1), 0.5f * 13 + 0.5f * 10);
  EXPECT_FLOAT_EQ(linear(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 0.25f, -1), 10);  // -1 -> 0, 0 -> 0
  EXPECT_FLOAT_EQ(linear(s::STATE_ADDRESS_U_MIRRORED_REPEAT, 0.25f, 3), 13);   // 3 -> 3, 4 -> 3
  EXPECT_FLOAT_EQ(linear(s::STATE_ADDRESS_U_CLAMP_TO_EDGE, 0.25f, 3), 13);
  EXPECT_FLOAT_EQ(linear(s::STATE_ADDRESS_U_CLAMP_TO_BORDER, 0.25f, 3), 0.5f * 13);
  // A mipmapped 2D image: the offset is in texels of the level read (level 1 is 2 x 2: 16 17 / 18 19).
  DescSpec spec;
  spec.width = spec.height = 4;
  spec.row_pitch = 16;
  spec.levels = 2;
  spec.layout = d::FORMAT_MIP_LAYOUT_PACKED;
  const uint64_t base = memory.alloc(512, 256);
  for (int i = 0; i < 20; ++i) {  // level 0: texel i holds i; level 1 (at 256): 16 + its index
    const float v = static_cast<float>(i);
    std::memcpy(memory.host(base + (i < 16 ? 4 * i : 256 + 4 * (i - 16))), &v, 4);
  }
  spec.base = base;
  const Image mipped = load(spec, ImageUse::kRead);
  const Sampler repeat_mip = sampler(true, s::STATE_ADDRESS_U_REPEAT, false, 1);
  EXPECT_EQ(sample_r(mipped, repeat_mip, 0.25f, 0.25f, 0, 1.0f, TexelOffset{{1, 1, 0}}), 19);
  EXPECT_EQ(sample_r(mipped, repeat_mip, 0.25f, 0.25f, 0, 1.0f, TexelOffset{{-1, 0, 0}}), 17);
  EXPECT_EQ(sample_r(mipped, repeat_mip, 0.125f, 0.125f, 0, 0.0f, TexelOffset{{-1, 2, 0}}), 11);  // level 0: (3, 2)
  // Fetches add the offset to the integer coordinate (past the image: the border / transparent black).
  const int32_t at[3] = {1, 1, 0};
  Texel t;
  ASSERT_TRUE(unit.fetch(mipped, at, 0, nullptr, &t, TexelOffset{{2, -1, 0}}));
  EXPECT_EQ(t.f(0), 3.0f);
  ASSERT_TRUE(unit.fetch(mipped, at, 0, nullptr, &t, TexelOffset{{-2, 0, 0}}));
  EXPECT_EQ(t.f(0), 0.0f);
  const int32_t far[3] = {INT32_MAX, INT32_MIN, 0};  // no int32 wrap back into the image
  ASSERT_TRUE(unit.fetch(mipped, far, 0, nullptr, &t, TexelOffset{{7, -8, 0}}));
  EXPECT_EQ(t.f(0), 0.0f);
  EXPECT_TRUE(memory.faults.empty());
}

// BORDER CUSTOM: the colour comes from the SAMPLER_DESC 64 bytes after the IMAGE_DESC (a texture
// record), whose STATE must be the instruction's word; an unmapped record or another word faults.
TEST_F(TextureUnitTest, CustomBorderColourIsReadFromTheTextureRecord) {
  const uint64_t texels = memory.alloc(16, 64);
  const float values[4] = {10, 11, 12, 13};
  std::memcpy(memory.host(texels), values, sizeof values);
  DescSpec spec = image_1d(4);
  spec.base = texels;
  const uint64_t record = memory.alloc(96, 64);
  const std::vector<uint32_t> w = words_of(spec);
  std::memcpy(memory.host(record), w.data(), 64);
  const uint32_t word = sampler_word(false, s::STATE_ADDRESS_U_CLAMP_TO_BORDER, false) |
                        put_field(s::STATE_BORDER_CUSTOM, s::STATE_BORDER_MASK, s::STATE_BORDER_SHIFT);
  const float border = 42.5f;
  uint32_t desc[8] = {word, 0, 0, 0, 0, 0, 0, 0};
  std::memcpy(&desc[4], &border, 4);
  std::memcpy(memory.host(record + 64), desc, sizeof desc);
  Image image;
  ASSERT_TRUE(unit.load_image(record, ImageUse::kRead, &image)) << unit.fault_reason();
  Sampler smp;
  ASSERT_TRUE(unit.load_record_sampler(record, word, &smp)) << unit.fault_reason();
  EXPECT_EQ(sample_r(image, smp, -1.0f), 42.5f);
  EXPECT_EQ(sample_r(image, smp, 2.5f), 12);
  EXPECT_FALSE(unit.load_record_sampler(record, word ^ 1u, &smp));  // another sampler's word
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
  EXPECT_FALSE(unit.load_record_sampler(kBase + (1 << 20) - 64, word, &smp));  // the record past the mapping
  EXPECT_EQ(unit.fault(), TextureFault::kMemory);
  EXPECT_FALSE(unit.load_record_sampler(~uint64_t{0} - 63, word, &smp));  // VA + 64 wraps
}

// The border colour is a texel of the image's format, then swizzled like one: on an R FLOAT image
// the custom (42.5, 7, 8, 9) reads (42.5, 0, 0, 1); through a SWIZZLE (0, 0, 0, r) it reads
// (0, 0, 0, 42.5) (zink's ALPHA8); built-in opaque white reads (1, 0, 0, 1), then (0, 0, 0, 1).
TEST_F(TextureUnitTest, BorderColourIsATexelOfTheFormatThenSwizzled) {
  const uint64_t texels = memory.alloc(16, 64);
  DescSpec spec = image_1d(4);
  spec.base = texels;
  const uint32_t custom = sampler_word(false, s::STATE_ADDRESS_U_CLAMP_TO_BORDER, false) |
                          put_field(s::STATE_BORDER_CUSTOM, s::STATE_BORDER_MASK, s::STATE_BORDER_SHIFT);
  const float colour[4] = {42.5f, 7, 8, 9};
  const auto sample_at = [&](uint32_t swizzle_word, uint32_t word) {
    const uint64_t record = memory.alloc(96, 64);
    std::vector<uint32_t> w = words_of(spec);
    w[d::SWIZZLE] = swizzle_word;
    std::memcpy(memory.host(record), w.data(), 64);
    uint32_t desc[8] = {word, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(&desc[4], colour, sizeof colour);
    std::memcpy(memory.host(record + 64), desc, sizeof desc);
    Image image;
    Sampler smp;
    EXPECT_TRUE(unit.load_image(record, ImageUse::kRead, &image)) << unit.fault_reason();
    EXPECT_TRUE(unit.load_record_sampler(record, word, &smp)) << unit.fault_reason();
    const float coord[3] = {-1.0f, 0, 0};
    Texel t;
    EXPECT_TRUE(unit.sample(image, smp, coord, 0, &t)) << unit.fault_reason();
    return std::array<float, 4>{t.f(0), t.f(1), t.f(2), t.f(3)};
  };
  const uint32_t alpha = 4u | 4u << 3 | 4u << 6 | 0u << 9 | d::SWIZZLE_ENABLE_MASK;  // (0, 0, 0, r)
  EXPECT_EQ(sample_at(0, custom), (std::array<float, 4>{42.5f, 0, 0, 1}));
  EXPECT_EQ(sample_at(alpha, custom), (std::array<float, 4>{0, 0, 0, 42.5f}));
  const uint32_t white = sampler_word(false, s::STATE_ADDRESS_U_CLAMP_TO_BORDER, false) |
                         put_field(s::STATE_BORDER_OPAQUE_WHITE, s::STATE_BORDER_MASK, s::STATE_BORDER_SHIFT);
  EXPECT_EQ(sample_at(0, white), (std::array<float, 4>{1, 0, 0, 1}));
  EXPECT_EQ(sample_at(alpha, white), (std::array<float, 4>{0, 0, 0, 1}));
}

TEST_F(TextureUnitTest, LinearFilteringUsesTheSpecWeights) {
  const Image image = float_image(image_1d(4), {100, 200, 300, 400});
  const Sampler edge = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, true);
  EXPECT_EQ(sample_r(image, edge, 1.75f), 0.75f * 200 + 0.25f * 300);  // i0 1, a 0.25
  EXPECT_EQ(sample_r(image, edge, 0.2f), 100);                          // both clamp to 0
  const Sampler border = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_BORDER, true);
  // u - 0.5 = -0.3: i0 = -1 (border 0), i1 = 0, a = frac(-0.3) = 0.7
  const float a = -0.3f - std::floor(-0.3f);
  EXPECT_EQ(sample_r(image, border, 0.2f), (1.0f - a) * 0 + a * 100);
  const Sampler repeat = sampler(true, s::STATE_ADDRESS_U_REPEAT, true);
  EXPECT_EQ(sample_r(image, repeat, 0.0f), 0.5f * 400 + 0.5f * 100);  // i0 -1 -> 3, i1 0
  const Sampler mirror = sampler(true, s::STATE_ADDRESS_U_MIRRORED_REPEAT, true);
  EXPECT_EQ(sample_r(image, mirror, 1.0f), 400);  // u 4: i0 3, i1 4 -> 3
}

TEST_F(TextureUnitTest, BilinearAndTrilinearAreTheWeightedSums) {
  DescSpec spec2;
  spec2.width = spec2.height = 2;
  spec2.row_pitch = 8;
  const Image image2 = float_image(spec2, {0, 1, 2, 3});
  const Sampler norm = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, true);
  EXPECT_EQ(sample_r(image2, norm, 0.5f, 0.5f), 1.5f);
  // (1.2, 0.6) in texels: u - 0.5 = 0.7, v - 0.5 = 0.1 -> i0 0, j0 0, a 0.7, b 0.1
  const Sampler texel = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, true);
  const float ua = 1.2f - 0.5f, vb = 0.6f - 0.5f;
  const float expected = (1 - ua) * (1 - vb) * 0 + ua * (1 - vb) * 1 + (1 - ua) * vb * 2 + ua * vb * 3;
  EXPECT_EQ(sample_r(image2, texel, 1.2f, 0.6f), expected);
  DescSpec spec3;
  spec3.image_type = d::FORMAT_TYPE_IMAGE_3D;
  spec3.width = spec3.height = spec3.depth = 2;
  spec3.row_pitch = 8;
  spec3.slice_pitch = 16;
  std::vector<float> v3;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) v3.push_back(static_cast<float>(x + 2 * y + 4 * z));
  const Image image3 = float_image(spec3, v3);
  EXPECT_EQ(sample_r(image3, texel, 1.0f, 1.0f, 1.0f), 3.5f);
  EXPECT_EQ(sample_r(image3, texel, 1.5f, 0.5f, 1.5f), 5.0f);  // x 1, y 0, z 1: 1 + 4
}

TEST_F(TextureUnitTest, ArrayLayersAreRoundedAndClamped) {
  DescSpec spec;
  spec.image_type = d::FORMAT_TYPE_IMAGE_2D_ARRAY;
  spec.width = spec.height = 1;
  spec.layers = 3;
  spec.row_pitch = 4;
  spec.slice_pitch = 4;
  const Image image = float_image(spec, {7, 8, 9});
  const Sampler texel = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  EXPECT_EQ(sample_r(image, texel, 0, 0, 1.6f), 9);
  EXPECT_EQ(sample_r(image, texel, 0, 0, 1.4f), 8);
  EXPECT_EQ(sample_r(image, texel, 0, 0, -5.0f), 7);
  EXPECT_EQ(sample_r(image, texel, 0, 0, 99.0f), 9);
  DescSpec spec1;
  spec1.image_type = d::FORMAT_TYPE_IMAGE_1D_ARRAY;
  spec1.width = 2;
  spec1.layers = 2;
  spec1.row_pitch = 8;
  spec1.slice_pitch = 8;
  const Image array1 = float_image(spec1, {1, 2, 3, 4});
  const int32_t at[3] = {1, 1, 0};
  Texel t;
  ASSERT_TRUE(unit.fetch(array1, at, 0, nullptr, &t));
  EXPECT_EQ(t.f(0), 4.0f);
}

// Shadow samplers (SAMPLER_STATE COMPARE = 1 + VkCompareOp): each texel's depth is compared with the
// reference in coordinate channel 2, then the 0 / 1 results are filtered (Vulkan's order).
TEST_F(TextureUnitTest, DepthCompareComparesEachTexelThenFilters) {
  DescSpec spec = image_1d(4);
  spec.order = d::FORMAT_CHANNEL_ORDER_DEPTH;
  const Image depth = float_image(spec, {0.2f, 0.4f, 0.6f, 0.8f});
  const auto compare = [](uint32_t vk_op, bool linear) {
    Sampler out;
    std::string why;
    const uint32_t word = sampler_word(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, linear) |
                          put_field(vk_op + 1, s::STATE_COMPARE_MASK, s::STATE_COMPARE_SHIFT);
    EXPECT_TRUE(decode_sampler(word, &out, &why)) << why;
    return out;
  };
  // Texel 1 (0.4) against 0.5, VkCompareOp order NEVER, LESS, EQUAL, LEQUAL, GREATER, NOTEQUAL, GEQUAL, ALWAYS.
  const float expected[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (uint32_t op = 0; op < 8; ++op) EXPECT_EQ(sample_r(depth, compare(op, false), 1.5f, 0, 0.5f), expected[op]) << op;
  EXPECT_EQ(sample_r(depth, compare(2, false), 1.5f, 0, 0.4f), 1.0f);  // EQUAL
  // Linear at 1.75: texel 1 (0.4, weight 0.75) and 2 (0.6, 0.25); LESS against 0.5 gives 0 and 1.
  EXPECT_EQ(sample_r(depth, compare(1, true), 1.75f, 0, 0.5f), 0.25f);
  // The view's swizzle applies to the compare result, not to the depth compared (Vulkan's order;
  // zink's DEPTH_TEXTURE_MODE ALPHA is (0, 0, 0, r)): GREATER against texel 1 (0.4) gives (0, 0, 0, 1).
  {
    DescSpec alpha = spec;
    alpha.base = depth.base_va;
    std::vector<uint32_t> w = words_of(alpha);
    w[d::SWIZZLE] = put_field(4, d::SWIZZLE_R_MASK, d::SWIZZLE_R_SHIFT) |
                    put_field(4, d::SWIZZLE_G_MASK, d::SWIZZLE_G_SHIFT) |
                    put_field(4, d::SWIZZLE_B_MASK, d::SWIZZLE_B_SHIFT) |
                    put_field(0, d::SWIZZLE_A_MASK, d::SWIZZLE_A_SHIFT) |
                    put_field(1, d::SWIZZLE_ENABLE_MASK, d::SWIZZLE_ENABLE_SHIFT);
    const uint64_t desc_va = memory.alloc(64, 64);
    std::memcpy(memory.host(desc_va), w.data(), 64);
    Image swizzled;
    ASSERT_TRUE(unit.load_image(desc_va, ImageUse::kRead, &swizzled)) << unit.fault_reason();
    const float at[3] = {1.5f, 0, 0.5f};
    for (bool linear : {false, true}) {
      Texel t;
      ASSERT_TRUE(unit.sample(swizzled, compare(4, linear), at, 0, &t)) << unit.fault_reason();
      EXPECT_EQ(t.f(0), 0.0f);
      EXPECT_EQ(t.f(3), 1.0f);
    }
  }
  // A colour image ignores COMPARE (OpenGL's rule for non-depth textures).
  const Image colour = float_image(image_1d(4), {0.2f, 0.4f, 0.6f, 0.8f});
  EXPECT_EQ(sample_r(colour, compare(1, false), 1.5f, 0, 0.5f), 0.4f);
  // D16 (UNORM): the reference is clamped to [0, 1], so 1.5 <= 1.0 (texel 65535) passes.
  DescSpec unorm = image_1d(2);
  unorm.order = d::FORMAT_CHANNEL_ORDER_DEPTH;
  unorm.type = d::FORMAT_DATA_TYPE_UNORM_INT16;
  unorm.row_pitch = 4;
  const uint64_t texels = memory.alloc(64, 64);
  const uint16_t d16[2] = {0, 65535};
  std::memcpy(memory.host(texels), d16, sizeof d16);
  unorm.base = texels;
  const Image d16_image = load(unorm, ImageUse::kRead);
  EXPECT_EQ(sample_r(d16_image, compare(3, false), 1.5f, 0, 1.5f), 1.0f);   // LEQUAL
  EXPECT_EQ(sample_r(d16_image, compare(6, false), 0.5f, 0, -1.0f), 1.0f);  // GEQUAL: 0 >= 0
  // A 2D-array depth image has no free channel for the reference: a bad descriptor, no texel read.
  DescSpec array = spec;
  array.image_type = d::FORMAT_TYPE_IMAGE_2D_ARRAY;
  array.layers = 1;
  array.slice_pitch = 16;
  const Image layered = float_image(array, {0.2f, 0.4f, 0.6f, 0.8f});
  const float coord[3] = {0.5f, 0, 0};
  Texel t;
  EXPECT_FALSE(unit.sample(layered, compare(1, false), coord, 0, &t));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
}

// Cubes (IMAGE_CUBE): the major axis picks the face (Vulkan's table), a texel past a face edge is
// the neighbouring face's edge texel, and a linear footprint's missing corner texel is the average
// of its three others.
TEST_F(TextureUnitTest, CubeFacesAreSelectedAndFilteredSeamlessly) {
  const float faces[6][3] = {{1, 0.2f, -0.3f}, {-1, 0.1f, 0.1f}, {0.1f, 1, 0.1f},
                             {0.1f, -1, 0.1f}, {0.1f, 0.1f, 1},  {0.1f, 0.1f, -1}};
  for (uint32_t f = 0; f < 6; ++f) EXPECT_EQ(cube_face_coord(faces[f]).face, f);
  const CubeFaceCoord px = cube_face_coord(faces[0]);  // +x: s = (-rz + 1) / 2, t = (-ry + 1) / 2
  EXPECT_FLOAT_EQ(px.s, 0.65f);
  EXPECT_FLOAT_EQ(px.t, 0.4f);
  uint32_t face = 9;
  int64_t i = -9, j = -9;
  ASSERT_TRUE(cube_neighbour_texel(0, 2, 1, 2, &face, &i, &j));  // right of +x: -z's left column
  EXPECT_EQ(face, 5u);
  EXPECT_EQ(i, 0);
  EXPECT_EQ(j, 1);
  ASSERT_TRUE(cube_neighbour_texel(0, -1, 0, 2, &face, &i, &j));  // left of +x: +z's right column
  EXPECT_EQ(face, 4u);
  EXPECT_EQ(i, 1);
  EXPECT_EQ(j, 0);
  EXPECT_FALSE(cube_neighbour_texel(0, -1, -1, 2, &face, &i, &j));  // a corner
  EXPECT_FALSE(cube_neighbour_texel(0, 5, 0, 2, &face, &i, &j));    // not next to the face
  // A 2 x 2 cube whose texel (face, i, j) holds 10 face + 2 j + i.
  DescSpec spec;
  spec.image_type = d::FORMAT_TYPE_IMAGE_CUBE;
  spec.width = spec.height = 2;
  spec.layers = 6;
  spec.row_pitch = 8;
  spec.slice_pitch = 16;
  std::vector<float> texels;
  for (int f = 0; f < 6; ++f)
    for (int t = 0; t < 4; ++t) texels.push_back(static_cast<float>(10 * f + t));
  const Image cube = float_image(spec, texels);
  const Sampler nearest = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  EXPECT_EQ(sample_r(cube, nearest, 1, 0.2f, -0.3f), 1.0f);  // +x, texel (1, 0)
  EXPECT_EQ(sample_r(cube, nearest, 0.1f, 0.1f, -1), 50.0f);  // -z: s = t = 0.45, texel (0, 0)
  // Linear at s = t = 0.1 of +z: the footprint (-1, -1) .. (0, 0) has a corner (-1, -1).
  const Sampler linear = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, true);
  const auto value = [&](uint32_t f, int64_t x, int64_t y) {
    if (x < 0 || y < 0) EXPECT_TRUE(cube_neighbour_texel(f, x, y, 2, &f, &x, &y));
    return texels[f * 4 + y * 2 + x];
  };
  const float t10 = value(4, 0, -1), t01 = value(4, -1, 0), t11 = value(4, 0, 0);
  const float t00 = (t10 + t01 + t11) / 3.0f;
  const float a = 0.7f;  // u = 0.1 * 2 - 0.5 = -0.3: i0 = -1, weight of i1 0.7 (v alike)
  const float expected = (1 - a) * (1 - a) * t00 + a * (1 - a) * t10 + (1 - a) * a * t01 + a * a * t11;
  EXPECT_NEAR(sample_r(cube, linear, -0.8f, 0.8f, 1), expected, 1e-4f);
  // A forged cube whose six faces run past the mapping (a view of too few layers' memory) faults
  // when it is loaded, before any texel is read.
  DescSpec forged = spec;
  forged.width = forged.height = 128;
  forged.row_pitch = 512;
  forged.slice_pitch = 512 * 128;  // 6 x 64 KiB from the last 64 KiB of the 1 MiB mapping
  forged.base = kBase + (1u << 20) - (1u << 16);
  const uint64_t forged_va = memory.alloc(64, 64);
  const std::vector<uint32_t> fw = words_of(forged);
  std::memcpy(memory.host(forged_va), fw.data(), 64);
  Image past;
  EXPECT_FALSE(unit.load_image(forged_va, ImageUse::kRead, &past));
  EXPECT_EQ(unit.fault(), TextureFault::kMemory);
  // An unnormalised sampler cannot address a cube: a bad descriptor.
  const float coord[3] = {1, 0, 0};
  Texel t;
  EXPECT_FALSE(unit.sample(cube, sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false), coord, 0, &t));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
  // Nor does a texel offset apply to a cube (SPIR-V allows none there).
  EXPECT_FALSE(unit.sample(cube, nearest, coord, 0, &t, TexelOffset{{1, 0, 0}}));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
}

TEST_F(TextureUnitTest, StoresConvertAndIgnoreOutOfRange) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  spec.type = d::FORMAT_DATA_TYPE_UNORM_INT8;
  spec.width = spec.height = 2;
  spec.row_pitch = 8;
  spec.base = memory.alloc(16);
  const Image image = load(spec, ImageUse::kWrite);
  Texel value;
  value.set_f(0, 0.5f);
  value.set_f(1, 1.5f);
  value.set_f(2, -1.0f);
  value.set_f(3, 1.0f / 255.0f);
  const int32_t at[3] = {1, 1, 0};
  ASSERT_TRUE(unit.store(image, at, 0, value));
  const uint8_t* row1 = memory.host(spec.base + 8);
  EXPECT_EQ(row1[4], 128);
  EXPECT_EQ(row1[5], 255);
  EXPECT_EQ(row1[6], 0);
  EXPECT_EQ(row1[7], 1);
  const std::vector<uint8_t> before(memory.host(spec.base), memory.host(spec.base) + 16);
  for (const auto& c : {std::array<int32_t, 3>{2, 0, 0}, {-1, 0, 0}, {0, 2, 0}, {0, -1, 0}})
    ASSERT_TRUE(unit.store(image, c.data(), 0, value));
  EXPECT_EQ(std::memcmp(before.data(), memory.host(spec.base), 16), 0);
  EXPECT_TRUE(memory.faults.empty());
}

TEST_F(TextureUnitTest, MipLevelsArePackedAndSelectedByLod) {
  DescSpec spec;
  spec.width = spec.height = 4;
  spec.row_pitch = 16;
  spec.levels = 3;
  spec.layout = d::FORMAT_MIP_LAYOUT_PACKED;
  const uint64_t base = memory.alloc(1024, 256);
  // level 0: 4x4 at 0 (64 bytes); level 1: 2x2 at 256; level 2: 1x1 at 512
  const float values[3] = {10, 20, 40};
  const uint64_t offsets[3] = {0, 256, 512};
  const uint32_t texels[3] = {16, 4, 1};
  for (int l = 0; l < 3; ++l)
    for (uint32_t i = 0; i < texels[l]; ++i) std::memcpy(memory.host(base + offsets[l] + 4 * i), &values[l], 4);
  spec.base = base;
  const Image image = load(spec, ImageUse::kRead);
  EXPECT_EQ(image.level_offset[1], 256u);
  EXPECT_EQ(image.row_pitch[1], 8u);
  EXPECT_EQ(image.level_offset[2], 512u);
  EXPECT_EQ(image.extent_bytes, 516u);
  const Sampler nearest_mip = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false, 1);
  EXPECT_EQ(sample_r(image, nearest_mip, 0.5f, 0.5f, 0, 0.4f), 10);   // ceil(0.9) - 1 = 0
  EXPECT_EQ(sample_r(image, nearest_mip, 0.5f, 0.5f, 0, 0.6f), 20);   // ceil(1.1) - 1 = 1
  EXPECT_EQ(sample_r(image, nearest_mip, 0.5f, 0.5f, 0, 9.0f), 40);   // clamped to the last level
  const Sampler linear_mip = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, true, 2);
  EXPECT_EQ(sample_r(image, linear_mip, 0.5f, 0.5f, 0, 1.25f), 0.75f * 20 + 0.25f * 40);
  const Sampler no_mip = sampler(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false, 0);
  EXPECT_EQ(sample_r(image, no_mip, 0.5f, 0.5f, 0, 2.0f), 10);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kWidth, 1), 2u);
  // MIN_LOD / MAX_LOD clamp the LOD before the level is chosen (quarter levels: 4 = 1.0, MAX_LOD n = (n-1)/4).
  Sampler clamped = nearest_mip;
  std::string why;
  ASSERT_TRUE(decode_sampler(sampler_word(true, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false, 1) |
                                 put_field(4, s::STATE_MIN_LOD_MASK, s::STATE_MIN_LOD_SHIFT) |
                                 put_field(5, s::STATE_MAX_LOD_MASK, s::STATE_MAX_LOD_SHIFT),
                             &clamped, &why))
      << why;
  EXPECT_EQ(sample_r(image, clamped, 0.5f, 0.5f, 0, -3.0f), 20);  // raised to 1.0
  EXPECT_EQ(sample_r(image, clamped, 0.5f, 0.5f, 0, 9.0f), 20);   // lowered to 1.0
}

// PACKED_LAYERS: a descriptor of the first 2 layers of a 3-layer 4x4 array with 3 levels finds
// levels 1 and 2 after all 3 layers of the level before (as the whole array's descriptor does),
// while its extent ends with its own 2 layers.
TEST_F(TextureUnitTest, PackedLayersPlaceTheLevelsOfAFirstLayersView) {
  DescSpec spec;
  spec.image_type = d::FORMAT_TYPE_IMAGE_2D_ARRAY;
  spec.width = spec.height = 4;
  spec.layers = 3;
  spec.row_pitch = 16;
  spec.slice_pitch = 64;
  spec.levels = 3;
  spec.layout = d::FORMAT_MIP_LAYOUT_PACKED;
  spec.base = kBase;
  Image whole, first_two;
  std::string why;
  ASSERT_TRUE(decode_image(words_of(spec), &whole, &why)) << why;
  spec.layers = 2;
  std::vector<uint32_t> w = words_of(spec);
  w[d::PACKED_LAYERS] = 3;
  ASSERT_TRUE(decode_image(w, &first_two, &why)) << why;
  for (int l = 0; l < 3; ++l) EXPECT_EQ(first_two.level_offset[l], whole.level_offset[l]) << l;
  EXPECT_EQ(first_two.level_offset[1], 256u);  // 3 layers of 64 bytes, rounded up to 256
  EXPECT_EQ(first_two.level_offset[2], 512u);  // 3 layers of 16 bytes after 256
  EXPECT_EQ(first_two.extent_bytes, 512u + 4 + 4);  // level 2's second layer: 4 bytes after one of 4
}

// Hostile PACKED_LAYERS values are a bad descriptor, never a larger read.
TEST_F(TextureUnitTest, BadPackedLayersAreRefused) {
  DescSpec spec;
  spec.image_type = d::FORMAT_TYPE_IMAGE_2D_ARRAY;
  spec.width = spec.height = 4;
  spec.layers = 2;
  spec.row_pitch = 16;
  spec.slice_pitch = 64;
  spec.levels = 2;
  spec.layout = d::FORMAT_MIP_LAYOUT_PACKED;
  spec.base = kBase;
  struct Case {
    const char* what;
    DescSpec spec;
    uint32_t packed_layers;
  };
  DescSpec single = spec, volume = spec, huge = spec;
  single.levels = 1;
  single.layout = d::FORMAT_MIP_LAYOUT_SINGLE;
  volume.image_type = d::FORMAT_TYPE_IMAGE_3D;
  volume.depth = 2;
  volume.layers = 1;
  // A 2D level of 2^36 bytes (65536 x 65536 x 16 bytes) times 2^16 layers is past 2^48.
  huge.image_type = d::FORMAT_TYPE_IMAGE_2D;
  huge.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  huge.width = huge.height = 65536;
  huge.layers = 1;
  huge.row_pitch = 65536 * 16;
  huge.slice_pitch = 0;
  const Case cases[] = {
      {"ARRAY_SIZE .. 2^16", spec, 1},
      {"ARRAY_SIZE .. 2^16", spec, 65537},
      {"needs MIP_LAYOUT PACKED", single, 4},
      {"0 for 3D", volume, 4},
      {"exceeds 2^48", huge, 65536},
  };
  for (const Case& c : cases) {
    std::vector<uint32_t> w = words_of(c.spec);
    w[d::PACKED_LAYERS] = c.packed_layers;
    Image image;
    std::string why;
    EXPECT_FALSE(decode_image(w, &image, &why)) << c.what;
    EXPECT_NE(why.find(c.what), std::string::npos) << c.what << ": " << why;
  }
}

TEST_F(TextureUnitTest, QueriesReturnTheDescriptorFields) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_BGRA;
  spec.type = d::FORMAT_DATA_TYPE_UNORM_INT8;
  spec.image_type = d::FORMAT_TYPE_IMAGE_3D;
  spec.width = 5;
  spec.height = 3;
  spec.depth = 2;
  spec.row_pitch = 20;
  spec.slice_pitch = 60;
  const Image image = load(spec, ImageUse::kQuery);  // base VA 0: a query touches no texel
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kWidth), 5u);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kHeight), 3u);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kDepth), 2u);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kArraySize), 1u);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kChannelOrder), d::FORMAT_CHANNEL_ORDER_BGRA);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kDataType), d::FORMAT_DATA_TYPE_UNORM_INT8);
}

TEST_F(TextureUnitTest, SwizzleRemapsChannels) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_RG;
  spec.width = 1;
  spec.row_pitch = 8;
  std::vector<uint32_t> w = words_of(spec);
  const uint64_t texels = memory.alloc(8);
  const float rg[2] = {0.25f, 0.75f};
  std::memcpy(memory.host(texels), rg, 8);
  w[d::BASE_VA_LO] = static_cast<uint32_t>(texels);
  w[d::SWIZZLE] = put_field(1, d::SWIZZLE_R_MASK, d::SWIZZLE_R_SHIFT) |  // r <- g
                  put_field(0, d::SWIZZLE_G_MASK, d::SWIZZLE_G_SHIFT) |  // g <- r
                  put_field(4, d::SWIZZLE_B_MASK, d::SWIZZLE_B_SHIFT) |  // b <- 0
                  put_field(5, d::SWIZZLE_A_MASK, d::SWIZZLE_A_SHIFT) |  // a <- 1
                  put_field(1, d::SWIZZLE_ENABLE_MASK, d::SWIZZLE_ENABLE_SHIFT);
  Image image;
  std::string why;
  ASSERT_TRUE(decode_image(w, &image, &why)) << why;
  const int32_t at[3] = {0, 0, 0};
  Texel t;
  ASSERT_TRUE(unit.fetch(image, at, 0, nullptr, &t));
  EXPECT_EQ(t.f(0), 0.75f);
  EXPECT_EQ(t.f(1), 0.25f);
  EXPECT_EQ(t.f(2), 0.0f);
  EXPECT_EQ(t.f(3), 1.0f);
}

// Hostile descriptors: every broken field is refused by name, nothing is read past a mapping.
TEST_F(TextureUnitTest, BadDescriptorFieldsAreRefused) {
  DescSpec good;
  good.width = good.height = 2;
  good.row_pitch = 8;
  good.base = kBase;
  std::string why;
  Image image;
  ASSERT_TRUE(decode_image(words_of(good), &image, &why)) << why;
  struct Case {
    const char* what;
    void (*mutate)(std::vector<uint32_t>&);
  };
  const Case cases[] = {
      {"must be 0", [](std::vector<uint32_t>& w) { w[d::RESERVED_13] = 1; }},
      {"TYPE 0", [](std::vector<uint32_t>& w) { w[d::FORMAT] &= ~d::FORMAT_TYPE_MASK; }},
      {"a cube needs", [](std::vector<uint32_t>& w) { w[d::FORMAT] |= d::FORMAT_TYPE_MASK & (7u << d::FORMAT_TYPE_SHIFT); }},
      {"not a supported format", [](std::vector<uint32_t>& w) { w[d::FORMAT] |= d::FORMAT_CHANNEL_ORDER_MASK; }},
      {"not a supported format", [](std::vector<uint32_t>& w) { w[d::FORMAT] &= ~d::FORMAT_DATA_TYPE_MASK; }},
      {"MIP_LEVELS", [](std::vector<uint32_t>& w) { w[d::FORMAT] &= ~d::FORMAT_MIP_LEVELS_MASK; }},
      {"SINGLE needs", [](std::vector<uint32_t>& w) { w[d::FORMAT] += 1u << d::FORMAT_MIP_LEVELS_SHIFT; }},
      {"MIP_LAYOUT 3", [](std::vector<uint32_t>& w) { w[d::FORMAT] |= d::FORMAT_MIP_LAYOUT_MASK; }},
      {"SAMPLES_LOG2 3", [](std::vector<uint32_t>& w) { w[d::FORMAT] |= d::FORMAT_SAMPLES_LOG2_MASK; }},
      {"WIDTH", [](std::vector<uint32_t>& w) { w[d::WIDTH] = 0; }},
      {"WIDTH", [](std::vector<uint32_t>& w) { w[d::WIDTH] = 0xffffffffu; }},
      {"DEPTH must be 1", [](std::vector<uint32_t>& w) { w[d::DEPTH] = 2; }},
      {"ARRAY_SIZE must be 1", [](std::vector<uint32_t>& w) { w[d::ARRAY_SIZE] = 0; }},
      {"ROW_PITCH is below", [](std::vector<uint32_t>& w) { w[d::ROW_PITCH] = 4; }},
      {"ROW_PITCH is not a multiple", [](std::vector<uint32_t>& w) { w[d::ROW_PITCH] = 9; }},
      {"SLICE_PITCH is below", [](std::vector<uint32_t>& w) { w[d::SLICE_PITCH] = 4; }},
      {"BASE_VA is not aligned", [](std::vector<uint32_t>& w) { w[d::BASE_VA_LO] += 2; }},
      {"wraps around",
       [](std::vector<uint32_t>& w) {
         w[d::BASE_VA_LO] = 0xfffffffcu;
         w[d::BASE_VA_HI] = 0xffffffffu;
       }},
      {"SWIZZLE", [](std::vector<uint32_t>& w) { w[d::SWIZZLE] = 1; }},
      {"SWIZZLE code 7", [](std::vector<uint32_t>& w) { w[d::SWIZZLE] = 7 | (1u << 12); }},
  };
  for (const Case& c : cases) {
    std::vector<uint32_t> w = words_of(good);
    c.mutate(w);
    why.clear();
    EXPECT_FALSE(decode_image(w, &image, &why)) << c.what;
    EXPECT_NE(why.find(c.what), std::string::npos) << c.what << ": " << why;
  }
  EXPECT_FALSE(decode_image(std::vector<uint32_t>(15, 0), &image, &why));
}

TEST_F(TextureUnitTest, DescriptorsAndExtentsOutsideTheMappingFault) {
  Image image;
  EXPECT_FALSE(unit.load_image(kBase + 4, ImageUse::kRead, &image));  // unaligned descriptor
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
  EXPECT_FALSE(unit.load_image(0x10000000, ImageUse::kRead, &image));  // unmapped descriptor
  EXPECT_EQ(unit.fault(), TextureFault::kMemory);
  ASSERT_EQ(memory.faults.size(), 1u);
  // A 1024x1024 RGBA float image at the end of a 1 MiB mapping: the extent is checked up front.
  DescSpec big;
  big.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  big.width = big.height = 1024;
  big.row_pitch = 16 * 1024;
  big.base = kBase + 4096;
  const uint64_t desc_va = memory.alloc(64, 64);
  const std::vector<uint32_t> w = words_of(big);
  std::memcpy(memory.host(desc_va), w.data(), 64);
  EXPECT_FALSE(unit.load_image(desc_va, ImageUse::kRead, &image));
  EXPECT_EQ(unit.fault(), TextureFault::kMemory);
  ASSERT_EQ(memory.faults.size(), 2u);
  EXPECT_EQ(memory.faults[1].address, kBase + 4096);
  EXPECT_TRUE(unit.load_image(desc_va, ImageUse::kQuery, &image)) << unit.fault_reason();
  // A level the image does not have is refused, not read.
  const int32_t at[3] = {0, 0, 0};
  Texel t;
  EXPECT_FALSE(unit.fetch(image, at, 1, nullptr, &t));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
}

// A multisampled image (FORMAT.SAMPLES_LOG2): texel x's samples side by side in its row, read by
// fetch without a sampler with the sample index in place of the level.
TEST_F(TextureUnitTest, MultisampledTexelsAreReadBySampleIndex) {
  DescSpec spec;
  spec.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  spec.type = d::FORMAT_DATA_TYPE_UNSIGNED_INT8;
  spec.width = 3;
  spec.height = 2;
  spec.row_pitch = 64;  // 3 texels x 4 samples x 4 bytes = 48, padded
  const uint64_t texels = memory.alloc(128, 64);
  for (int y = 0; y < 2; ++y)
    for (int column = 0; column < 12; ++column)  // texel column / 4, sample column % 4
      memory.host(texels)[y * 64 + column * 4] = static_cast<uint8_t>(y * 100 + column);
  spec.base = texels;
  std::vector<uint32_t> w = words_of(spec);
  w[d::FORMAT] |= put_field(2, d::FORMAT_SAMPLES_LOG2_MASK, d::FORMAT_SAMPLES_LOG2_SHIFT);
  const uint64_t desc_va = memory.alloc(64, 64);
  std::memcpy(memory.host(desc_va), w.data(), 64);
  Image image;
  ASSERT_TRUE(unit.load_image(desc_va, ImageUse::kRead, &image)) << unit.fault_reason();
  EXPECT_EQ(image.extent_bytes, 64u + 48u);
  EXPECT_EQ(TextureUnit::query(image, ImageQuery::kWidth), 3u);
  Texel t;
  for (uint32_t sample = 0; sample < 4; ++sample) {
    const int32_t at[3] = {2, 1, 0};
    ASSERT_TRUE(unit.fetch(image, at, sample, nullptr, &t)) << unit.fault_reason();
    EXPECT_EQ(t.v[0], 100u + 2 * 4 + sample);
  }
  // Out of range (a texel, a sample index past 4): transparent black, nothing read.
  for (const auto& [x, y, sample] : {std::tuple{3, 0, 0u}, std::tuple{0, -1, 0u}, std::tuple{0, 0, 4u},
                                     std::tuple{0, 0, 0xffffffffu}}) {
    const int32_t at[3] = {x, y, 0};
    ASSERT_TRUE(unit.fetch(image, at, sample, nullptr, &t));
    EXPECT_EQ(t.v[0], 0u);
    EXPECT_EQ(t.v[3], 0u);
  }
  EXPECT_TRUE(memory.faults.empty());
  // Only a fetch without a sampler reads one: sampling, a sampler's fetch and a store are refused.
  const Sampler edge = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false);
  const int32_t at[3] = {0, 0, 0};
  const float coord[3] = {0.5f, 0.5f, 0};
  EXPECT_FALSE(unit.fetch(image, at, 0, &edge, &t));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
  EXPECT_FALSE(unit.sample(image, edge, coord, 0, &t));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
  EXPECT_FALSE(unit.store(image, at, 0, Texel{}));
  EXPECT_EQ(unit.fault(), TextureFault::kBadDescriptor);
}

// Forged multisampled descriptors: a sample count the unit has not, a type or level count a
// multisampled image cannot have, rows too short for their samples, and an extent past the mapping.
TEST_F(TextureUnitTest, ForgedMultisampledDescriptorsFault) {
  DescSpec good;
  good.width = good.height = 2;
  good.row_pitch = 16;  // 2 texels x 2 samples x 4 bytes
  good.base = kBase;
  const uint32_t two = put_field(1, d::FORMAT_SAMPLES_LOG2_MASK, d::FORMAT_SAMPLES_LOG2_SHIFT);
  std::vector<uint32_t> w = words_of(good);
  w[d::FORMAT] |= two;
  std::string why;
  Image image;
  ASSERT_TRUE(decode_image(w, &image, &why)) << why;
  EXPECT_EQ(image.samples_log2, 1u);
  struct Case {
    const char* what;
    DescSpec spec;
    uint32_t samples_log2;
  };
  DescSpec three_d = good, mips = good, short_rows = good, one_d = good;
  three_d.image_type = d::FORMAT_TYPE_IMAGE_3D;
  mips.levels = 2;
  mips.layout = d::FORMAT_MIP_LAYOUT_PACKED;
  short_rows.row_pitch = 12;
  one_d.image_type = d::FORMAT_TYPE_IMAGE_1D;
  one_d.height = 1;
  for (const Case& c : {Case{"SAMPLES_LOG2 3", good, 3}, Case{"IMAGE_2D or IMAGE_2D_ARRAY", three_d, 1},
                        Case{"IMAGE_2D or IMAGE_2D_ARRAY", one_d, 2}, Case{"one level", mips, 1},
                        Case{"ROW_PITCH is below", short_rows, 1}}) {
    std::vector<uint32_t> words = words_of(c.spec);
    words[d::FORMAT] |= put_field(c.samples_log2, d::FORMAT_SAMPLES_LOG2_MASK, d::FORMAT_SAMPLES_LOG2_SHIFT);
    why.clear();
    EXPECT_FALSE(decode_image(words, &image, &why)) << c.what;
    EXPECT_NE(why.find(c.what), std::string::npos) << c.what << ": " << why;
  }
  // A row of 4 RGBA float texels 128 bytes before the mapping's end: 64 bytes with one sample,
  // 256 with four, which end past it (the extent is checked before any texel is read).
  DescSpec big;
  big.order = d::FORMAT_CHANNEL_ORDER_RGBA;
  big.width = 4;
  big.row_pitch = 4 * 16 * 4;
  big.base = kBase + (1 << 20) - 128;
  std::vector<uint32_t> bw = words_of(big);
  bw[d::FORMAT] |= put_field(2, d::FORMAT_SAMPLES_LOG2_MASK, d::FORMAT_SAMPLES_LOG2_SHIFT);
  const uint64_t desc_va = memory.alloc(64, 64);
  std::memcpy(memory.host(desc_va), bw.data(), 64);
  EXPECT_FALSE(unit.load_image(desc_va, ImageUse::kRead, &image));
  EXPECT_EQ(unit.fault(), TextureFault::kMemory);
}

TEST(TextureSampler, ImplicitLodIsLog2OfTheLongerDerivativeInTexels) {
  Image image;
  std::string why;
  DescSpec spec;
  spec.base = kBase;
  spec.width = 64, spec.height = 16, spec.row_pitch = 256;
  ASSERT_TRUE(decode_image(words_of(spec), &image, &why)) << why;
  const Sampler normalized = sampler(true, s::STATE_ADDRESS_U_REPEAT, false, 1);
  // d/dx = (2/64, 0) -> 2 texels; d/dy = (0, 1/16) -> 1 texel: rho 2, lambda 1.
  const float ddx[3] = {2.0f / 64, 0, 0}, ddy[3] = {0, 1.0f / 16, 0};
  EXPECT_EQ(TextureUnit::implicit_lod(image, normalized, ddx, ddy), 1.0f);
  // (3, 4) texels along x: length 5.
  const float diag[3] = {3.0f / 64, 4.0f / 16, 0}, none[3] = {0, 0, 0};
  EXPECT_FLOAT_EQ(TextureUnit::implicit_lod(image, normalized, diag, none), std::log2(5.0f));
  // Unnormalised coordinates are texels already; no motion is -inf (clamped by sample()).
  const Sampler texels = sampler(false, s::STATE_ADDRESS_U_CLAMP_TO_EDGE, false, 1);
  const float eight[3] = {0, 8, 0};
  EXPECT_EQ(TextureUnit::implicit_lod(image, texels, none, eight), 3.0f);
  EXPECT_EQ(TextureUnit::implicit_lod(image, texels, none, none), -INFINITY);
}

TEST(TextureSampler, BadSamplerWordsAreRefused) {
  Sampler out;
  std::string why;
  EXPECT_TRUE(decode_sampler(0, &out, &why));  // unnormalised, ADDRESS_NONE, nearest
  // MIN_LOD / MAX_LOD (quarter levels; MAX_LOD 0 = no clamp): MAX_LOD below MIN_LOD is refused.
  ASSERT_TRUE(decode_sampler(put_field(6, s::STATE_MIN_LOD_MASK, s::STATE_MIN_LOD_SHIFT) |
                                 put_field(11, s::STATE_MAX_LOD_MASK, s::STATE_MAX_LOD_SHIFT),
                             &out, &why))
      << why;
  EXPECT_EQ(out.min_lod, 1.5f);
  EXPECT_EQ(out.max_lod, 2.5f);
  EXPECT_FALSE(decode_sampler(put_field(6, s::STATE_MIN_LOD_MASK, s::STATE_MIN_LOD_SHIFT) |
                                  put_field(6, s::STATE_MAX_LOD_MASK, s::STATE_MAX_LOD_SHIFT),
                              &out, &why));
  EXPECT_NE(why.find("MAX_LOD"), std::string::npos);
  EXPECT_FALSE(decode_sampler(put_field(s::STATE_ADDRESS_U_REPEAT, s::STATE_ADDRESS_U_MASK, s::STATE_ADDRESS_U_SHIFT),
                              &out, &why));
  EXPECT_NE(why.find("NORMALIZED"), std::string::npos);
  EXPECT_FALSE(decode_sampler(put_field(5, s::STATE_ADDRESS_V_MASK, s::STATE_ADDRESS_V_SHIFT), &out, &why));
  EXPECT_FALSE(decode_sampler(put_field(3, s::STATE_MIP_FILTER_MASK, s::STATE_MIP_FILTER_SHIFT), &out, &why));
  EXPECT_FALSE(decode_sampler(put_field(s::STATE_BORDER_CUSTOM, s::STATE_BORDER_MASK, s::STATE_BORDER_SHIFT), &out,
                              &why));
  EXPECT_FALSE(decode_sampler(put_field(9, s::STATE_COMPARE_MASK, s::STATE_COMPARE_SHIFT), &out, &why));  // 1..8 compare
  // The word the compiler builds for CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST.
  ASSERT_TRUE(decode_sampler(0x124, &out, &why)) << why;
  EXPECT_EQ(out.address[0], s::STATE_ADDRESS_U_CLAMP_TO_BORDER);
  EXPECT_EQ(out.address[2], s::STATE_ADDRESS_U_CLAMP_TO_BORDER);
  EXPECT_FALSE(out.normalized);
  EXPECT_FALSE(out.min_linear);
}

}  // namespace
}  // namespace gsgpu::texture
