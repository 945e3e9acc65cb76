// Whole draws through the blocks over GPU memory: geometry engine -> primitive engine -> the fixed
// fragment stage -> output merger, into render targets in (flat) GPU memory; and the faults that
// hostile targets and oversized draws get.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "gsgpu/emu/graphics/draw_dump.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "gsgpu/emu/graphics/png_writer.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

struct Scene {
  FlatMemory memory{0x100000, 8 << 20};
  DrawState state;
  uint64_t color_va = 0, depth_va = 0;

  Scene(uint32_t w, uint32_t h, ColorFormat cf = ColorFormat::kR8G8B8A8Unorm) {
    state.width = w;
    state.height = h;
    state.viewport = Viewport{0, 0, float(w), float(h), 0, 1};
    color_va = memory.alloc(size_t(w) * h * bytes_per_pixel(cf));
    state.color = ColorTargetState{true, color_va, w * bytes_per_pixel(cf), cf};
  }
  void add_depth(DepthFormat f, float clear) {
    depth_va = memory.alloc(size_t(state.width) * state.height * 4);
    state.depth = DepthTargetState{true, depth_va, state.width * 4, f};
    DepthStencilTarget t = depth_target();
    for (uint32_t y = 0; y < state.height; ++y)
      for (uint32_t x = 0; x < state.width; ++x) t.store_depth(x, y, clear);
  }
  // Vertices as (x, y, z, w) clip positions followed by an RGBA varying.
  void vertices(const std::vector<float>& data, bool with_color) {
    const uint32_t stride = with_color ? 32 : 16;
    state.input.bindings[0] = VertexBinding{memory.upload(data), data.size() * 4, stride, InputRate::kVertex, 1};
    state.input.attributes[0] = VertexAttribute{0, 109, 0};
    state.input.attributes[1] = VertexAttribute{0, 109, 16};
    state.input.attribute_count = with_color ? 2 : 1;
    state.draw.count = uint32_t(data.size() * 4 / stride);
  }
  ColorTarget color_target() {
    return ColorTarget{memory.host(color_va), state.width, state.height, state.color.row_pitch, state.color.format};
  }
  DepthStencilTarget depth_target() {
    return DepthStencilTarget{memory.host(depth_va), state.width, state.height, state.depth.row_pitch,
                              state.depth.format};
  }
};

TEST(GraphicsPipeline, FullScreenQuadFillsEveryPixelOnce) {
  Scene s(64, 48);
  s.vertices({-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1}, false);
  s.state.draw.topology = Topology::kTriangleStrip;
  s.state.constant_color = {1.0f, 0.5f, 0.0f, 1.0f};
  GraphicsPipeline gp(s.memory);
  DrawResult r = gp.draw(s.state);
  ASSERT_FALSE(r.fault) << *r.fault;
  ColorTarget t = s.color_target();
  for (uint32_t y = 0; y < 48; ++y)
    for (uint32_t x = 0; x < 64; ++x) ASSERT_EQ(t.load_bits(x, y), (std::array<uint32_t, 4>{255, 128, 0, 255}));
  EXPECT_EQ(r.counters.merge.fragments_written, 64u * 48u);
  EXPECT_EQ(r.counters.merge.overdraw, 0u);
  EXPECT_EQ(r.counters.primitive.raster.fragments, 64u * 48u);
  EXPECT_EQ(r.counters.geometry.vertices, 4u);
  EXPECT_EQ(r.counters.geometry.primitives, 2u);
  // The readable dump names the state and the counters.
  std::string dump = format_draw(s.state, r);
  for (const char* line : {"topology        triangle strip", "R32G32B32A32_SFLOAT at +0 of binding 0",
                           "colour target   va 0x", "R8G8B8A8_UNORM", "fragments                 3072",
                           "overdraw                  0", "tiles 128x128 visited 2", "result: ok"}) {
    EXPECT_NE(dump.find(line), std::string::npos) << line << "\n" << dump;
  }
}

TEST(GraphicsPipeline, AdditiveBlendOverAJitteredMeshAddsOncePerPixel) {
  // Random interior vertices; every pixel gets 1/255 once: the fill rule holds end to end.
  Scene s(96, 96);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.06f, 0.06f);
  const int n = 6;
  std::vector<std::array<float, 2>> grid;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      float x = -1 + 2.0f * i / n, y = -1 + 2.0f * j / n;
      if (i > 0 && i < n) x += jitter(rng);
      if (j > 0 && j < n) y += jitter(rng);
      grid.push_back({x, y});
    }
  std::vector<float> v;
  auto put = [&](int i, int j) { v.insert(v.end(), {grid[j * (n + 1) + i][0], grid[j * (n + 1) + i][1], 0, 1}); };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      put(i, j), put(i + 1, j), put(i + 1, j + 1);
      put(i, j), put(i + 1, j + 1), put(i, j + 1);
    }
  s.vertices(v, false);
  s.state.constant_color = {1.0f / 255, 1.0f / 255, 1.0f / 255, 1.0f / 255};
  s.state.blend.enable = true;
  s.state.blend.src_color = s.state.blend.dst_color = BlendFactor::kOne;
  s.state.blend.src_alpha = s.state.blend.dst_alpha = BlendFactor::kOne;
  GraphicsPipeline gp(s.memory);
  DrawResult r = gp.draw(s.state);
  ASSERT_FALSE(r.fault);
  ColorTarget t = s.color_target();
  for (uint32_t y = 0; y < 96; ++y)
    for (uint32_t x = 0; x < 96; ++x) {
      ASSERT_EQ(t.load_bits(x, y), (std::array<uint32_t, 4>{1, 1, 1, 1})) << x << "," << y;
    }
  EXPECT_EQ(r.counters.merge.overdraw, 0u);
}

TEST(GraphicsPipeline, DepthTestKeepsTheNearerTriangleInEitherOrder) {
  // Two full-screen triangles pairs: near (z = 0.25) red, far (z = 0.75) green.
  std::vector<float> near_quad{-1, -1, 0.25f, 1, 1, -1, 0.25f, 1, -1, 1, 0.25f, 1, 1, 1, 0.25f, 1};
  std::vector<float> far_quad{-1, -1, 0.75f, 1, 1, -1, 0.75f, 1, -1, 1, 0.75f, 1, 1, 1, 0.75f, 1};
  for (DepthFormat df : {DepthFormat::kD32Sfloat, DepthFormat::kD24UnormS8Uint, DepthFormat::kD16Unorm}) {
    for (bool near_first : {false, true}) {
      Scene s(16, 16);
      s.add_depth(df, 1.0f);
      s.state.draw.topology = Topology::kTriangleStrip;
      s.state.depth_stencil.depth_test = s.state.depth_stencil.depth_write = true;
      s.state.depth_stencil.depth_compare = CompareOp::kLess;
      GraphicsPipeline gp(s.memory);
      for (int pass = 0; pass < 2; ++pass) {
        bool draw_near = (pass == 0) == near_first;
        s.vertices(draw_near ? near_quad : far_quad, false);
        s.state.constant_color = draw_near ? Color{1, 0, 0, 1} : Color{0, 1, 0, 1};
        ASSERT_FALSE(gp.draw(s.state).fault);
      }
      EXPECT_EQ(s.color_target().load_bits(7, 9), (std::array<uint32_t, 4>{255, 0, 0, 255}));
      // D16 stores 16384 / 65535 (0.25 rounded to the nearest step), D24 and D32 within 1e-6.
      EXPECT_NEAR(s.depth_target().load_depth(7, 9), 0.25f, df == DepthFormat::kD16Unorm ? 2e-5 : 1e-6);
    }
  }
}

TEST(GraphicsPipeline, VaryingColoursArePerspectiveCorrectAndFlatTakesTheProvokingVertex) {
  Scene s(32, 32, ColorFormat::kR32G32B32A32Sfloat);
  // Vertex colours red, green, blue; equal w, so the centre of the triangle is a third of each.
  s.vertices({-1, -1, 0, 1, 1, 0, 0, 1, 1, -1, 0, 1, 0, 1, 0, 1, -1, 1, 0, 1, 0, 0, 1, 1}, true);
  s.state.fragment = FragmentMode::kVaryingColor;
  GraphicsPipeline gp(s.memory);
  ASSERT_FALSE(gp.draw(s.state).fault);
  Color c = s.color_target().load(10, 10);  // centre (10.5, 10.5): b = (1 - 21/32, 10.5/32, 10.5/32)
  EXPECT_NEAR(c[0], 1 - 21.0 / 32, 1e-6);
  EXPECT_NEAR(c[1], 10.5 / 32, 1e-6);
  EXPECT_NEAR(c[2], 10.5 / 32, 1e-6);
  s.state.varying_interpolation = Interpolation::kFlat;
  ASSERT_FALSE(gp.draw(s.state).fault);
  EXPECT_EQ(s.color_target().load(10, 10), (Color{1, 0, 0, 1}));
}

TEST(GraphicsPipeline, HostileTargetsAndOversizedDrawsFaultCleanly) {
  Scene s(16, 16);
  s.vertices({-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1}, false);
  GraphicsPipeline gp(s.memory);
  DrawState bad = s.state;
  bad.color.va = 0x10;  // unmapped
  auto r = gp.draw(bad);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("colour target"), std::string::npos);
  bad = s.state;
  bad.color.row_pitch = 8;  // less than a row
  EXPECT_TRUE(gp.draw(bad).fault);
  bad = s.state;
  bad.width = 100000;
  EXPECT_TRUE(gp.draw(bad).fault);
  bad = s.state;
  bad.color.va = UINT64_MAX - 16;  // extent overflows
  EXPECT_TRUE(gp.draw(bad).fault);
  bad = s.state;
  bad.input.attribute_count = 0;
  EXPECT_TRUE(gp.draw(bad).fault);
  // A fragment budget smaller than the draw stops it with a fault; pixels drawn before stay.
  gp.set_fragment_budget(20);
  r = gp.draw(s.state);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("fragment budget"), std::string::npos);
  EXPECT_GT(r.counters.merge.fragments_written, 0u);
  EXPECT_LE(r.counters.merge.fragments_written, 20u);
}

// An independent PNG reader for the encoder's output: bitwise CRC-32, stored deflate blocks, Adler-32.
uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
uint32_t bitwise_crc(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

TEST(PngWriter, ProducesValidChunksAndTheTargetsBytesInRgbaOrder) {
  std::vector<uint8_t> bgra{0, 0, 255, 255, 0, 255, 0, 128, 255, 0, 0, 255, 1, 2, 3, 4};
  ColorTarget t{bgra.data(), 2, 2, 8, ColorFormat::kB8G8R8A8Unorm};
  std::vector<uint8_t> png = encode_png(t);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(std::memcmp(png.data(), "\x89PNG\r\n\x1a\n", 8), 0);
  size_t pos = 8;
  std::vector<uint8_t> idat;
  std::vector<std::string> types;
  while (pos + 12 <= png.size()) {
    uint32_t len = be32(&png[pos]);
    std::string type(reinterpret_cast<const char*>(&png[pos + 4]), 4);
    types.push_back(type);
    ASSERT_EQ(be32(&png[pos + 8 + len]), bitwise_crc(&png[pos + 4], len + 4)) << type;
    if (type == "IHDR") {
      EXPECT_EQ(be32(&png[pos + 8]), 2u);
      EXPECT_EQ(be32(&png[pos + 12]), 2u);
      EXPECT_EQ(png[pos + 16], 8);  // bit depth
      EXPECT_EQ(png[pos + 17], 6);  // RGBA
    }
    if (type == "IDAT") idat.insert(idat.end(), &png[pos + 8], &png[pos + 8 + len]);
    pos += 12 + len;
  }
  EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));
  ASSERT_GE(idat.size(), 2u + 5u + 4u);
  EXPECT_EQ((idat[0] * 256 + idat[1]) % 31, 0);  // zlib header check bits
  EXPECT_EQ(idat[2], 1);                         // final stored block
  uint32_t n = idat[3] | idat[4] << 8;
  EXPECT_EQ(n, 18u);  // 2 rows of (filter byte + 8)
  EXPECT_EQ(uint16_t(idat[5] | idat[6] << 8), uint16_t(~n));
  std::vector<uint8_t> raw(idat.begin() + 7, idat.begin() + 7 + n);
  EXPECT_EQ(raw, (std::vector<uint8_t>{0, 255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 0, 255, 255, 3, 2, 1, 4}));
  uint32_t a = 1, b = 0;
  for (uint8_t byte : raw) a = (a + byte) % 65521, b = (b + a) % 65521;
  EXPECT_EQ(be32(&idat[7 + n]), (b << 16) | a);
}

}  // namespace
}  // namespace gsgpu::graphics
