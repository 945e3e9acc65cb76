// The output merger against Vulkan's fragment-operation rules: every compare function and stencil
// op, front / back stencil state, depth formats, every blend factor and equation (dual source,
// constant colour, min / max), logic ops, write masks and the colour formats' conversions.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "gsgpu/emu/graphics/output_merger.h"

namespace gsgpu::graphics {
namespace {

struct Targets {
  std::vector<uint8_t> color_bytes, depth_bytes;
  ColorTarget color;
  DepthStencilTarget depth;
  Targets(ColorFormat cf, DepthFormat df, uint32_t w = 4, uint32_t h = 4)
      : color_bytes(size_t(w) * h * bytes_per_pixel(cf)), depth_bytes(size_t(w) * h * bytes_per_pixel(df)) {
    color = ColorTarget{color_bytes.data(), w, h, uint64_t(w) * bytes_per_pixel(cf), cf};
    depth = DepthStencilTarget{depth_bytes.data(), w, h, uint64_t(w) * bytes_per_pixel(df), df};
  }
};

Fragment frag(float depth, Color c = {1, 1, 1, 1}, bool front = true) {
  Fragment f;
  f.depth = depth;
  f.color = c;
  f.front_facing = front;
  return f;
}

TEST(CompareOp, EveryFunctionOnLessEqualAndGreater) {
  // Rows: fragment < stored, ==, >. Columns in VkCompareOp order.
  const bool expected[3][8] = {{false, true, false, true, false, true, false, true},
                               {false, false, true, true, false, false, true, true},
                               {false, false, false, false, true, true, true, true}};
  const uint32_t frag_values[3] = {1, 2, 3};
  for (int row = 0; row < 3; ++row) {
    for (uint32_t op = 0; op <= kMaxCompareOp; ++op) {
      EXPECT_EQ(compare(CompareOp(op), frag_values[row], 2u), expected[row][op]) << "op " << op << " row " << row;
      EXPECT_EQ(compare(CompareOp(op), float(frag_values[row]) / 4, 0.5f), expected[row][op]) << "op " << op;
    }
  }
}

TEST(StencilOp, EveryOperationIncludingClampAndWrap) {
  const uint8_t ref = 7;
  struct Row { StencilOp op; uint8_t from, to; };
  const Row rows[] = {
      {StencilOp::kKeep, 5, 5},           {StencilOp::kZero, 5, 0},
      {StencilOp::kReplace, 5, 7},        {StencilOp::kIncrementAndClamp, 5, 6},
      {StencilOp::kIncrementAndClamp, 255, 255}, {StencilOp::kDecrementAndClamp, 5, 4},
      {StencilOp::kDecrementAndClamp, 0, 0}, {StencilOp::kInvert, 5, 250},
      {StencilOp::kIncrementAndWrap, 255, 0}, {StencilOp::kDecrementAndWrap, 0, 255},
  };
  for (const Row& r : rows) EXPECT_EQ(apply_stencil_op(r.op, r.from, ref), r.to) << int(r.op) << " " << int(r.from);
}

TEST(OutputMerger, StencilPicksFailDepthFailOrPassAndHonoursMasksAndFacing) {
  Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD24UnormS8Uint);
  DepthStencilState ds;
  ds.depth_test = true;
  ds.depth_write = true;
  ds.depth_compare = CompareOp::kLess;
  ds.stencil_test = true;
  ds.front = StencilFaceState{StencilOp::kZero, StencilOp::kIncrementAndClamp, StencilOp::kInvert, CompareOp::kEqual,
                              0x0F, 0xFF, 0x13};  // (0x13 & 0x0F) == 3
  ds.back = StencilFaceState{StencilOp::kReplace, StencilOp::kReplace, StencilOp::kReplace, CompareOp::kAlways, 0xFF,
                             0xF0, 0xAB};
  OutputMerger om;
  for (uint32_t x = 0; x < 4; ++x) {
    t.depth.store_depth(x, 0, 0.5f);
    t.depth.store_stencil(x, 0, x == 0 ? 0x93 : 0x44);  // 0x93 & 0x0F == 3 passes; 0x44 fails
  }
  om.begin_draw(t.color, t.depth, ds, BlendState{});
  Fragment f = frag(0.25f);
  f.x = 0;
  om.process(f);  // stencil and depth pass: IncrementAndClamp
  EXPECT_EQ(t.depth.load_stencil(0, 0), 0x94);
  EXPECT_EQ(t.depth.load_depth(0, 0), float(float_to_unorm24(0.25f)) / 16777215.0f);
  f.x = 1;
  om.process(f);  // stencil fails: Zero, depth untouched
  EXPECT_EQ(t.depth.load_stencil(1, 0), 0);
  EXPECT_EQ(float_to_unorm24(t.depth.load_depth(1, 0)), float_to_unorm24(0.5f));
  t.depth.store_stencil(2, 0, 0x03);
  f = frag(0.75f);
  f.x = 2;
  om.process(f);  // stencil passes, depth fails: Invert
  EXPECT_EQ(t.depth.load_stencil(2, 0), 0xFC);
  Fragment back = frag(0.25f, {1, 1, 1, 1}, false);
  back.x = 3;
  om.process(back);  // back state: Replace 0xAB through write mask 0xF0 over 0x44
  EXPECT_EQ(t.depth.load_stencil(3, 0), 0xA4);
  EXPECT_EQ(om.counters().fragments_in, 4u);
  EXPECT_EQ(om.counters().stencil_failed, 1u);
  EXPECT_EQ(om.counters().depth_failed, 1u);
  EXPECT_EQ(om.counters().fragments_written, 2u);
  // Colour written only for the passing fragments.
  EXPECT_EQ(t.color.load_bits(0, 0)[0], 255u);
  EXPECT_EQ(t.color.load_bits(1, 0)[0], 0u);
  EXPECT_EQ(t.color.load_bits(2, 0)[0], 0u);
  EXPECT_EQ(t.color.load_bits(3, 0)[0], 255u);
}

TEST(OutputMerger, DepthFormatsStoreTheirBitsAndClampTheFragmentDepth) {
  Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD24UnormS8Uint);
  t.depth.store_stencil(0, 0, 0x5A);
  t.depth.store_depth(0, 0, 0.5f);
  uint32_t word;
  std::memcpy(&word, t.depth.pixel(0, 0), 4);
  EXPECT_EQ(word, 0x5A000000u | 8388608u);  // round(0.5 * (2^24 - 1)) = 8388607.5 rounded up
  DepthStencilState ds;
  ds.depth_test = ds.depth_write = true;
  ds.depth_compare = CompareOp::kAlways;
  OutputMerger om;
  om.begin_draw(t.color, t.depth, ds, BlendState{});
  Fragment f = frag(1.5f);
  om.process(f);
  std::memcpy(&word, t.depth.pixel(0, 0), 4);
  EXPECT_EQ(word, 0x5AFFFFFFu);  // clamped to 1; stencil kept
  Targets d32(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD32Sfloat);
  om.begin_draw(d32.color, d32.depth, ds, BlendState{});
  om.process(frag(-0.5f));
  EXPECT_EQ(d32.depth.load_depth(0, 0), 0.0f);
  om.process(frag(0.3f));
  EXPECT_EQ(d32.depth.load_depth(0, 0), 0.3f);
  // D24 compares at 24-bit precision: two depths that round to the same value are equal.
  ds.depth_compare = CompareOp::kEqual;
  om.begin_draw(t.color, t.depth, ds, BlendState{});
  t.depth.store_depth(1, 0, 0.5f);
  Fragment near_half = frag(0.5f + 1e-8f);
  near_half.x = 1;
  om.process(near_half);
  EXPECT_EQ(om.counters().depth_failed, 0u);
}

// D32_SFLOAT_S8_UINT: 8 bytes a pixel, the float in bytes 0..3 and the stencil in byte 4 (bytes
// 5..7 untouched); depth compared as floats (no rounding to a fixed-point width), stencil as D24S8's.
TEST(OutputMerger, D32S8StoresAFloatAndAStencilByteAndComparesAsFloats) {
  Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD32SfloatS8Uint);
  EXPECT_EQ(bytes_per_pixel(DepthFormat::kD32SfloatS8Uint), 8u);
  std::memset(t.depth_bytes.data(), 0xEE, t.depth_bytes.size());
  t.depth.store_depth(1, 0, 0.5f);
  t.depth.store_stencil(1, 0, 0x5A);
  const uint8_t* p = t.depth.pixel(1, 0);
  EXPECT_EQ(p - t.depth_bytes.data(), 8);
  float z;
  std::memcpy(&z, p, 4);
  EXPECT_EQ(z, 0.5f);
  EXPECT_EQ(p[4], 0x5A);
  EXPECT_EQ(p[5], 0xEE);
  EXPECT_EQ(p[7], 0xEE);
  EXPECT_EQ(t.depth.load_stencil(1, 0), 0x5A);
  DepthStencilState ds;
  ds.depth_test = ds.depth_write = true;
  ds.depth_compare = CompareOp::kLess;
  ds.stencil_test = true;
  ds.front = StencilFaceState{StencilOp::kZero, StencilOp::kIncrementAndClamp, StencilOp::kDecrementAndClamp,
                              CompareOp::kEqual, 0xFF, 0xFF, 0x5A};
  OutputMerger om;
  om.begin_draw(t.color, t.depth, ds, BlendState{});
  Fragment nearer = frag(std::nextafter(0.5f, 0.0f));  // one float ulp nearer: D24 would call it equal
  nearer.x = 1;
  om.process(nearer);
  EXPECT_EQ(t.depth.load_depth(1, 0), std::nextafter(0.5f, 0.0f));
  EXPECT_EQ(t.depth.load_stencil(1, 0), 0x5B);  // both tests pass: IncrementAndClamp
  Fragment farther = frag(0.75f);
  farther.x = 1;
  om.process(farther);  // 0x5B is not EQUAL to 0x5A: Zero
  EXPECT_EQ(t.depth.load_stencil(1, 0), 0);
  EXPECT_EQ(om.counters().stencil_failed, 1u);
  t.depth.store_stencil(1, 0, 0x5A);
  om.process(farther);  // stencil passes, depth fails: DecrementAndClamp, depth kept
  EXPECT_EQ(t.depth.load_stencil(1, 0), 0x59);
  EXPECT_EQ(t.depth.load_depth(1, 0), std::nextafter(0.5f, 0.0f));
  EXPECT_EQ(om.counters().depth_failed, 1u);
  EXPECT_EQ(p[5], 0xEE);
  EXPECT_EQ(p[7], 0xEE);
}

TEST(Blend, EveryFactorAsSourceFactor) {
  const Color s{0.2f, 0.4f, 0.6f, 0.8f}, s1{0.1f, 0.3f, 0.5f, 0.7f}, d{0.5f, 0.25f, 0.75f, 0.5f};
  const Color k{0.3f, 0.6f, 0.9f, 0.2f};
  // The factor each enumerant gives for components R, G, B, A.
  const std::array<std::array<double, 4>, 19> factors{{
      {0, 0, 0, 0}, {1, 1, 1, 1}, {0.2, 0.4, 0.6, 0.8}, {0.8, 0.6, 0.4, 0.2}, {0.5, 0.25, 0.75, 0.5},
      {0.5, 0.75, 0.25, 0.5}, {0.8, 0.8, 0.8, 0.8}, {0.2, 0.2, 0.2, 0.2}, {0.5, 0.5, 0.5, 0.5}, {0.5, 0.5, 0.5, 0.5},
      {0.3, 0.6, 0.9, 0.2}, {0.7, 0.4, 0.1, 0.8}, {0.2, 0.2, 0.2, 0.2}, {0.8, 0.8, 0.8, 0.8},
      {0.5, 0.5, 0.5, 1},  // SRC_ALPHA_SATURATE: min(0.8, 1 - 0.5)
      {0.1, 0.3, 0.5, 0.7}, {0.9, 0.7, 0.5, 0.3}, {0.7, 0.7, 0.7, 0.7}, {0.3, 0.3, 0.3, 0.3},
  }};
  for (uint32_t f = 0; f <= kMaxBlendFactor; ++f) {
    BlendState st;
    st.enable = true;
    st.src_color = st.src_alpha = BlendFactor(f);
    st.dst_color = st.dst_alpha = BlendFactor::kZero;
    st.constant = k;
    Color out = blend(st, s, s1, d);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], s[i] * factors[f][i], 1e-6) << "factor " << f << " comp " << i;
    // The same factor on the destination side.
    st.src_color = st.src_alpha = BlendFactor::kZero;
    st.dst_color = st.dst_alpha = BlendFactor(f);
    out = blend(st, s, s1, d);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], d[i] * factors[f][i], 1e-6) << "dst factor " << f << " comp " << i;
  }
}

TEST(Blend, EveryEquationAndSeparateAlpha) {
  const Color s{0.2f, 0.9f, 0.6f, 0.8f}, d{0.5f, 0.25f, 0.75f, 0.5f};
  BlendState st;
  st.enable = true;
  st.src_color = BlendFactor::kSrcAlpha;          // 0.8
  st.dst_color = BlendFactor::kOneMinusSrcAlpha;  // 0.2
  st.src_alpha = BlendFactor::kOne;
  st.dst_alpha = BlendFactor::kOne;
  struct Row { BlendOp op; Color expected; };
  const Row rows[] = {
      {BlendOp::kAdd, {0.16f + 0.1f, 0.72f + 0.05f, 0.48f + 0.15f, 1.3f}},
      {BlendOp::kSubtract, {0.16f - 0.1f, 0.72f - 0.05f, 0.48f - 0.15f, 0.3f}},
      {BlendOp::kReverseSubtract, {0.1f - 0.16f, 0.05f - 0.72f, 0.15f - 0.48f, -0.3f}},
      {BlendOp::kMin, {0.2f, 0.25f, 0.6f, 0.5f}},  // factors ignored
      {BlendOp::kMax, {0.5f, 0.9f, 0.75f, 0.8f}},
  };
  for (const Row& r : rows) {
    st.color_op = st.alpha_op = r.op;
    Color out = blend(st, s, s, d);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], r.expected[i], 1e-6) << int(r.op) << " " << i;
  }
}

TEST(OutputMerger, UnormTargetsClampInputsAndRoundToNearest) {
  Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD32Sfloat);
  t.color.store_bits(0, 0, {64, 64, 64, 64});
  BlendState st;
  st.enable = true;
  st.src_color = st.src_alpha = st.dst_color = st.dst_alpha = BlendFactor::kOne;
  OutputMerger om;
  om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, st);
  Fragment f = frag(0, {0.6f, 1.5f, -1.0f, 0.1f});
  om.process(f);
  // 0.6 + 64/255 = 217/255; 1.5 clamps to 1 first -> 255; -1 clamps to 0 -> 64; 0.1f (just above 0.1)
  // gives 89.5000004 -> 90: round to nearest.
  EXPECT_EQ(t.color.load_bits(0, 0), (std::array<uint32_t, 4>{217, 255, 64, 90}));
  // On a float target nothing is clamped.
  Targets ft(ColorFormat::kR32G32B32A32Sfloat, DepthFormat::kD32Sfloat);
  ft.color.store(0, 0, {0.25f, 0.25f, 0.25f, 0.25f});
  om.begin_draw(ft.color, DepthStencilTarget{}, DepthStencilState{}, st);
  om.process(f);
  EXPECT_EQ(ft.color.load(0, 0), (Color{0.85f, 1.75f, -0.75f, 0.35f}));
}

TEST(RenderTarget, SrgbEncodesOnStoreDecodesOnLoadAndKeepsAlphaLinear) {
  EXPECT_EQ(float_to_unorm8(linear_to_srgb(0.5f)), 188);  // 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354 -> 187.5..
  EXPECT_EQ(float_to_unorm8(linear_to_srgb(0.002f)), 7);  // linear segment: 12.92 * 0.002 * 255 = 6.59
  EXPECT_NEAR(srgb_to_linear(188.0f / 255.0f), 0.5029, 1e-4);
  for (ColorFormat f : {ColorFormat::kR8G8B8A8Srgb, ColorFormat::kB8G8R8A8Srgb}) {
    Targets t(f, DepthFormat::kD32Sfloat);
    t.color.store(1, 1, {0.5f, 0.0f, 1.0f, 0.5f});
    EXPECT_EQ(t.color.load_bits(1, 1), (std::array<uint32_t, 4>{188, 0, 255, 128}));
    // Blending ONE / ONE with a zero source is done in linear space: the stored value is unchanged.
    BlendState st;
    st.enable = true;
    st.src_color = st.src_alpha = st.dst_color = st.dst_alpha = BlendFactor::kOne;
    OutputMerger om;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, st);
    Fragment fr = frag(0, {0, 0, 0, 0});
    fr.x = fr.y = 1;
    om.process(fr);
    EXPECT_EQ(t.color.load_bits(1, 1), (std::array<uint32_t, 4>{188, 0, 255, 128}));
  }
}

TEST(RenderTarget, BgraStoresBlueFirst) {
  Targets t(ColorFormat::kB8G8R8A8Unorm, DepthFormat::kD32Sfloat);
  t.color.store(0, 0, {1.0f, 0.5f, 0.0f, 1.0f});
  EXPECT_EQ(t.color_bytes[0], 0);
  EXPECT_EQ(t.color_bytes[1], 128);
  EXPECT_EQ(t.color_bytes[2], 255);
  EXPECT_EQ(t.color_bytes[3], 255);
}

TEST(OutputMerger, EveryLogicOpOnUnormAndNoneOnFloatOrSrgb) {
  const uint32_t s = 0xCC, d = 0xAA;
  const uint32_t expected[16] = {0x00, 0x88, 0x44, 0xCC, 0x22, 0xAA, 0x66, 0xEE,
                                 0x11, 0x99, 0x55, 0xDD, 0x33, 0xBB, 0x77, 0xFF};
  for (uint32_t op = 0; op <= kMaxLogicOp; ++op) {
    EXPECT_EQ(apply_logic_op(LogicOp(op), s, d) & 0xFF, expected[op]) << op;
    Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD32Sfloat);
    t.color.store_bits(0, 0, {d, d, d, d});
    BlendState st;
    st.enable = true;  // ignored: a logic op disables blending
    st.src_color = BlendFactor::kZero;
    st.logic_op_enable = true;
    st.logic_op = LogicOp(op);
    st.write_mask = 0b0111;
    OutputMerger om;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, st);
    om.process(frag(0, {float(s) / 255, float(s) / 255, float(s) / 255, float(s) / 255}));
    EXPECT_EQ(t.color.load_bits(0, 0), (std::array<uint32_t, 4>{expected[op], expected[op], expected[op], d})) << op;
  }
  Targets ft(ColorFormat::kR32G32B32A32Sfloat, DepthFormat::kD32Sfloat);
  BlendState st;
  st.logic_op_enable = true;
  st.logic_op = LogicOp::kClear;
  OutputMerger om;
  om.begin_draw(ft.color, DepthStencilTarget{}, DepthStencilState{}, st);
  om.process(frag(0, {0.5f, 2.0f, 3.0f, 4.0f}));
  EXPECT_EQ(ft.color.load(0, 0), (Color{0.5f, 2.0f, 3.0f, 4.0f}));
}

TEST(OutputMerger, WriteMaskKeepsUnmaskedComponentsInEveryFormat) {
  for (ColorFormat f : {ColorFormat::kR8G8B8A8Unorm, ColorFormat::kB8G8R8A8Unorm, ColorFormat::kR8G8B8A8Srgb,
                        ColorFormat::kR32G32B32A32Sfloat}) {
    Targets t(f, DepthFormat::kD32Sfloat);
    t.color.store(0, 0, {0, 0, 0, 0});
    BlendState st;
    st.write_mask = 0b1010;  // G and A
    OutputMerger om;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, st);
    om.process(frag(0, {1, 1, 1, 1}));
    EXPECT_EQ(t.color.load(0, 0), (Color{0, 1, 0, 1})) << color_format_name(f);
  }
}

// RGBA32 UINT / SINT: the fragment's four words stored as they are (NaN patterns included), blending
// ignored, a logic op on all 32 bits, the write mask per word.
TEST(OutputMerger, IntegerTargetsStoreWordsUnchangedNeverBlendAndApplyLogicOps) {
  auto words = [](std::array<uint32_t, 4> w) {
    Color c;
    std::memcpy(c.data(), w.data(), 16);
    return c;
  };
  const std::array<uint32_t, 4> source{0xFFFFFFF0u, 0x7FC00001u, 0x80000000u, 7u};  // two NaN patterns
  for (ColorFormat f : {ColorFormat::kR32G32B32A32Uint, ColorFormat::kR32G32B32A32Sint}) {
    Targets t(f, DepthFormat::kD32Sfloat);
    EXPECT_EQ(bytes_per_pixel(f), 16u);
    EXPECT_FALSE(is_unorm(f));
    BlendState add;  // ONE + ONE would double a float target; an integer one ignores it
    add.enable = true;
    add.dst_color = add.dst_alpha = BlendFactor::kOne;
    t.color.store_bits(0, 0, {1, 2, 3, 4});
    OutputMerger om;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, add);
    om.process(frag(0, words(source)));
    EXPECT_EQ(t.color.load_bits(0, 0), source) << color_format_name(f);
    BlendState x;
    x.logic_op_enable = true;
    x.logic_op = LogicOp::kXor;
    x.write_mask = 0b1011;  // B kept
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, x);
    om.process(frag(0, words({0x0F0F0F0Fu, 0xFFFFFFFFu, 0x12345678u, 0x80000001u})));
    EXPECT_EQ(t.color.load_bits(0, 0), (std::array<uint32_t, 4>{0xF0F0F0FFu, 0x803FFFFEu, 0x80000000u, 0x80000006u}))
        << color_format_name(f);
  }
}

// R8 / R8G8 UNORM: the stored components only; loads give green and blue 0 and alpha 1, so a blend
// with DST_ALPHA reads 1.
TEST(OutputMerger, R8AndR8G8StoreTheirComponentsAndReadAlphaOne) {
  for (ColorFormat f : {ColorFormat::kR8Unorm, ColorFormat::kR8G8Unorm}) {
    Targets t(f, DepthFormat::kD32Sfloat, 4, 1);
    EXPECT_EQ(bytes_per_pixel(f), f == ColorFormat::kR8Unorm ? 1u : 2u);
    OutputMerger om;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, BlendState{});
    om.process(frag(0, {0.2f, 0.6f, 1.0f, 0.0f}));
    EXPECT_EQ(t.color_bytes[0], 51);
    if (f == ColorFormat::kR8G8Unorm) EXPECT_EQ(t.color_bytes[1], 153);
    EXPECT_EQ(t.color_bytes[bytes_per_pixel(f)], 0);  // the next pixel untouched
    const Color c = t.color.load(0, 0);
    EXPECT_EQ(c[2], 0.0f);
    EXPECT_EQ(c[3], 1.0f);
    BlendState dst_alpha;  // src * DST_ALPHA (1) + dst * ZERO
    dst_alpha.enable = true;
    dst_alpha.src_color = BlendFactor::kDstAlpha;
    om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, dst_alpha);
    om.process(frag(0, {0.4f, 0.4f, 0.4f, 0.4f}));
    EXPECT_EQ(t.color_bytes[0], 102) << color_format_name(f);
  }
}

TEST(OutputMerger, CountsOverdrawPerDraw) {
  Targets t(ColorFormat::kR8G8B8A8Unorm, DepthFormat::kD32Sfloat);
  OutputMerger om;
  om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, BlendState{});
  for (int i = 0; i < 3; ++i) om.process(frag(0));
  Fragment other = frag(0);
  other.x = 2;
  om.process(other);
  EXPECT_EQ(om.counters().fragments_written, 4u);
  EXPECT_EQ(om.counters().overdraw, 2u);
  om.begin_draw(t.color, DepthStencilTarget{}, DepthStencilState{}, BlendState{});
  om.process(frag(0));
  EXPECT_EQ(om.counters().overdraw, 2u);  // a new draw starts a new map
}

}  // namespace
}  // namespace gsgpu::graphics
