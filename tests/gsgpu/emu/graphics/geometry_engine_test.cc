// The geometry engine: vertex formats and fetch (strides, offsets, instance rate, checked reads),
// index fetch with primitive restart, assembly orders for every topology, clipping with the guard
// band, the viewport transform, and the faults a hostile draw gets.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "gsgpu/emu/graphics/geometry_engine.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::graphics {
namespace {

using gsgpu::testing::FlatMemory;

float f(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }

TEST(VertexFormat, DecodesWithVulkansConversions) {
  const uint8_t unorm8[] = {0, 255, 51, 128};
  auto v = decode_vertex_format(37, unorm8);  // R8G8B8A8_UNORM
  EXPECT_EQ(f(v[0]), 0.0f);
  EXPECT_EQ(f(v[1]), 1.0f);
  EXPECT_EQ(f(v[2]), 0.2f);
  EXPECT_EQ(f(v[3]), float(128.0 / 255.0));
  const uint8_t snorm8[] = {0x81, 0x80, 127, 0};  // -127, -128 (clamps to -1), 127, 0
  v = decode_vertex_format(38, snorm8);
  EXPECT_EQ(f(v[0]), -1.0f);
  EXPECT_EQ(f(v[1]), -1.0f);
  EXPECT_EQ(f(v[2]), 1.0f);
  EXPECT_EQ(f(v[3]), 0.0f);
  const uint8_t int8[] = {0xFF, 2, 3, 250};
  v = decode_vertex_format(42, int8);  // R8G8B8A8_SINT
  EXPECT_EQ(int32_t(v[0]), -1);
  EXPECT_EQ(int32_t(v[3]), -6);
  v = decode_vertex_format(41, int8);  // UINT
  EXPECT_EQ(v[0], 255u);
  EXPECT_EQ(v[3], 250u);
  const uint16_t half2[] = {0x3C00, 0xC000};  // 1.0, -2.0
  v = decode_vertex_format(83, reinterpret_cast<const uint8_t*>(half2));  // R16G16_SFLOAT
  EXPECT_EQ(f(v[0]), 1.0f);
  EXPECT_EQ(f(v[1]), -2.0f);
  EXPECT_EQ(f(v[2]), 0.0f);
  EXPECT_EQ(f(v[3]), 1.0f);  // missing alpha of a float format is 1.0
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  const uint16_t unorm16[] = {65535, 0};
  v = decode_vertex_format(77, reinterpret_cast<const uint8_t*>(unorm16));
  EXPECT_EQ(f(v[0]), 1.0f);
  const uint16_t snorm16[] = {0x8000, 0x4000};
  v = decode_vertex_format(78, reinterpret_cast<const uint8_t*>(snorm16));
  EXPECT_EQ(f(v[0]), -1.0f);
  EXPECT_EQ(f(v[1]), float(16384.0 / 32767.0));
  const float xyz[] = {1.5f, -2.0f, 3.25f};
  v = decode_vertex_format(106, reinterpret_cast<const uint8_t*>(xyz));  // R32G32B32_SFLOAT
  EXPECT_EQ(v, (std::array<uint32_t, 4>{bits(1.5f), bits(-2.0f), bits(3.25f), bits(1.0f)}));
  const uint32_t u = 77;
  v = decode_vertex_format(98, reinterpret_cast<const uint8_t*>(&u));  // R32_UINT: integer 1 for alpha
  EXPECT_EQ(v, (std::array<uint32_t, 4>{77, 0, 0, 1}));
  EXPECT_EQ(vertex_format_size(109), 16u);
  EXPECT_EQ(vertex_format_size(37), 4u);
  EXPECT_EQ(vertex_format_size(43), 0u);  // R8G8B8A8_SRGB is not a vertex format here
}

struct Fixture {
  FlatMemory memory{0x100000, 1 << 20};
};

TEST(VertexFetch, StridesOffsetsAndInstanceRate) {
  Fixture fx;
  // Binding 0: per vertex, stride 20: {float x, float y, u8 rgba at offset 16}.
  std::vector<uint8_t> vb(20 * 4);
  for (int i = 0; i < 4; ++i) {
    float xy[2] = {float(i), float(10 * i)};
    std::memcpy(&vb[size_t(i) * 20], xy, 8);
    vb[size_t(i) * 20 + 16] = uint8_t(i * 50);
  }
  // Binding 1: per instance with divisor 2, stride 4: R32_UINT.
  std::vector<uint32_t> ib{100, 101, 102};
  VertexInputState in;
  in.bindings[0] = VertexBinding{fx.memory.upload(vb), vb.size(), 20, InputRate::kVertex, 1};
  in.bindings[1] = VertexBinding{fx.memory.upload(ib), 12, 4, InputRate::kInstance, 2};
  in.attributes[0] = VertexAttribute{0, 103, 0};   // R32G32_SFLOAT
  in.attributes[1] = VertexAttribute{0, 37, 16};   // R8G8B8A8_UNORM
  in.attributes[2] = VertexAttribute{1, 98, 0};    // R32_UINT
  in.attribute_count = 3;
  VertexFetcher fetch(fx.memory, in);
  FetchedVertex v;
  ASSERT_FALSE(fetch.fetch(3, 5, &v));
  EXPECT_EQ(f(v.attributes[0][0]), 3.0f);
  EXPECT_EQ(f(v.attributes[0][1]), 30.0f);
  EXPECT_EQ(f(v.attributes[1][0]), 150.0f / 255.0f);
  EXPECT_EQ(v.attributes[2][0], 102u);  // instance 5 / divisor 2 = element 2
  EXPECT_TRUE(fx.memory.faults.empty());
}

TEST(VertexFetch, ReadsPastTheBufferOrUnmappedAreFaultsNotReads) {
  Fixture fx;
  std::vector<float> data(8, 1.0f);
  VertexInputState in;
  in.bindings[0] = VertexBinding{fx.memory.upload(data), 32, 16, InputRate::kVertex, 1};
  in.attributes[0] = VertexAttribute{0, 109, 0};  // 16 bytes
  in.attribute_count = 1;
  VertexFetcher fetch(fx.memory, in);
  FetchedVertex v;
  EXPECT_FALSE(fetch.fetch(1, 0, &v));
  auto fault = fetch.fetch(2, 0, &v);  // bytes 32..48 of a 32-byte buffer
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("past the buffer"), std::string::npos) << *fault;
  // A fetcher plans its attributes when made (vertex_fetch.h): each state below gets its own.
  // va + stride * index + offset past 2^64 is caught, not wrapped onto a low address.
  in.bindings[0] = VertexBinding{UINT64_MAX - 100, UINT64_MAX, 0xFFFFFFFFu, InputRate::kVertex, 1};
  in.attributes[0].offset = 0xFFFFFFFFu;
  EXPECT_FALSE(VertexFetcher(fx.memory, in).fetch(0xFFFFFFFFu, 0, &v) == std::nullopt);
  // A binding that claims a large size over unmapped memory: the MMU refuses.
  in.bindings[0] = VertexBinding{0x10, 1 << 20, 16, InputRate::kVertex, 1};
  in.attributes[0].offset = 0;
  fault = VertexFetcher(fx.memory, in).fetch(0, 0, &v);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("unmapped"), std::string::npos);
  EXPECT_EQ(fx.memory.faults.size(), 1u);
  // Bad format or binding number.
  in.attributes[0] = VertexAttribute{0, 43, 0};
  EXPECT_TRUE(VertexFetcher(fx.memory, in).fetch(0, 0, &v));
  in.attributes[0] = VertexAttribute{99, 109, 0};
  EXPECT_TRUE(VertexFetcher(fx.memory, in).fetch(0, 0, &v));
}

// The range check worked out once per draw faults at the same element as the per-vertex one did:
// the last element that fits is read, the next is a fault naming it, with offsets and strides
// that leave a partial element at the end; a stride of 0 reads element 0's bytes for any vertex.
TEST(VertexFetch, TheLastElementThatFitsIsReadAndTheNextIsAFault) {
  Fixture fx;
  std::vector<uint32_t> data(16);
  for (uint32_t i = 0; i < data.size(); ++i) data[i] = 1000 + i;
  VertexInputState in;
  // 60 bytes, stride 12, an R32G32_UINT at offset 4: element e reads [12e + 4, 12e + 12), so 4 fits.
  in.bindings[0] = VertexBinding{fx.memory.upload(data), 60, 12, InputRate::kVertex, 1};
  in.attributes[0] = VertexAttribute{0, 101, 4};
  // Stride 0: every vertex reads the same word.
  in.bindings[1] = VertexBinding{in.bindings[0].va, 4, 0, InputRate::kVertex, 1};
  in.attributes[1] = VertexAttribute{1, 98, 0};
  in.attribute_count = 2;
  VertexFetcher fetch(fx.memory, in);
  FetchedVertex v;
  ASSERT_FALSE(fetch.fetch(4, 0, &v));
  EXPECT_EQ(v.attributes[0], (std::array<uint32_t, 4>{1013, 1014, 0, 1}));
  EXPECT_EQ(v.attributes[1], (std::array<uint32_t, 4>{1000, 0, 0, 1}));
  auto fault = fetch.fetch(5, 0, &v);
  ASSERT_TRUE(fault);
  EXPECT_EQ(*fault, "vertex fetch past the buffer: attribute 0 binding 0 element 5 (stride 12, offset 4) in a buffer "
                    "of 60 bytes");
  ASSERT_FALSE(fetch.fetch(0xFFFFFFFFu, 0, &v) == std::nullopt);  // and far past it
  // An attribute larger than its whole binding: no element fits, not even element 0.
  in.bindings[1].size = 3;
  fault = VertexFetcher(fx.memory, in).fetch(0, 0, &v);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("attribute 1 binding 1 element 0"), std::string::npos) << *fault;
  EXPECT_TRUE(fx.memory.faults.empty());  // range faults never reach the MMU
}

// A binding whose range is not wholly inside one mapping is read vertex by vertex through the MMU:
// the elements inside the mapping are read, the first outside it is an unmapped-address fault.
TEST(VertexFetch, ABindingPartlyOutsideItsMappingFaultsAtTheFirstUnmappedVertex) {
  FlatMemory memory{0x100000, 256};
  std::vector<float> data(16);
  for (size_t i = 0; i < data.size(); ++i) data[i] = float(i);
  const uint64_t va = memory.upload(data);
  VertexInputState in;
  // 512 bytes claimed from va, 256 mapped: elements 0..31 of stride 8 are mapped.
  in.bindings[0] = VertexBinding{va, 512, 8, InputRate::kVertex, 1};
  in.attributes[0] = VertexAttribute{0, 103, 0};  // R32G32_SFLOAT
  in.attribute_count = 1;
  VertexFetcher fetch(memory, in);
  FetchedVertex v;
  ASSERT_FALSE(fetch.fetch(3, 0, &v));
  EXPECT_EQ(f(v.attributes[0][0]), 6.0f);
  EXPECT_EQ(f(v.attributes[0][1]), 7.0f);
  ASSERT_FALSE(fetch.fetch(31, 0, &v));
  auto fault = fetch.fetch(32, 0, &v);
  ASSERT_TRUE(fault);
  EXPECT_EQ(*fault, "vertex fetch from an unmapped address: attribute 0");
  ASSERT_EQ(memory.faults.size(), 1u);
  EXPECT_EQ(memory.faults[0].address, va + 256);
}

TEST(IndexFetch, Uint16Uint32AndBounds) {
  Fixture fx;
  std::vector<uint16_t> i16{7, 0xFFFF, 9};
  std::vector<uint32_t> i32{70000, 0xFFFFFFFF};
  uint64_t va16 = fx.memory.upload(i16), va32 = fx.memory.upload(i32);
  VertexInputState in;
  VertexFetcher fetch(fx.memory, in);
  uint32_t out = 0;
  ASSERT_FALSE(fetch.fetch_index(va16, 6, IndexType::kUint16, 2, &out));
  EXPECT_EQ(out, 9u);
  ASSERT_FALSE(fetch.fetch_index(va32, 8, IndexType::kUint32, 0, &out));
  EXPECT_EQ(out, 70000u);
  EXPECT_TRUE(fetch.fetch_index(va16, 6, IndexType::kUint16, 3, &out));
  EXPECT_TRUE(fetch.fetch_index(va32, 8, IndexType::kUint32, UINT64_MAX / 2, &out));
}

// Each primitive's vertex ids; with `provoking`, the provoking vertex's id appended last.
std::vector<std::vector<int>> assemble(Topology t, const std::vector<int>& ids,
                                       ProvokingVertex provoking = ProvokingVertex::kFirst, bool with_provoking = false) {
  PrimitiveAssembler a(t, provoking);
  Queue<AssembledPrimitive> q;
  for (int id : ids) {
    if (id < 0) {
      a.restart();
      continue;
    }
    ShadedVertex v;
    v.position[0] = float(id);
    a.push(v, q);
  }
  std::vector<std::vector<int>> out;
  while (!q.empty()) {
    AssembledPrimitive p = q.pop();
    std::vector<int> prim;
    for (uint32_t i = 0; i < p.vertex_count; ++i) prim.push_back(int(p.vertices[i].position[0]));
    if (with_provoking) prim.push_back(int(p.vertices[p.provoking].position[0]));
    out.push_back(prim);
  }
  return out;
}

TEST(PrimitiveAssembly, EveryTopologyInVulkansOrder) {
  using V = std::vector<std::vector<int>>;
  EXPECT_EQ(assemble(Topology::kPointList, {0, 1, 2}), (V{{0}, {1}, {2}}));
  EXPECT_EQ(assemble(Topology::kLineList, {0, 1, 2, 3, 4}), (V{{0, 1}, {2, 3}}));
  EXPECT_EQ(assemble(Topology::kLineStrip, {0, 1, 2, 3}), (V{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(assemble(Topology::kTriangleList, {0, 1, 2, 3, 4, 5, 6}), (V{{0, 1, 2}, {3, 4, 5}}));
  // Strip: (v_i, v_{i+1+i%2}, v_{i+2-i%2}).
  EXPECT_EQ(assemble(Topology::kTriangleStrip, {0, 1, 2, 3, 4, 5}), (V{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {3, 5, 4}}));
  // Fan: (v_{i+1}, v_{i+2}, v_0).
  EXPECT_EQ(assemble(Topology::kTriangleFan, {0, 1, 2, 3, 4}), (V{{1, 2, 0}, {2, 3, 0}, {3, 4, 0}}));
  // Restart ends a strip and a fan; an unfinished list primitive is dropped.
  EXPECT_EQ(assemble(Topology::kTriangleStrip, {0, 1, 2, 3, -1, 4, 5, 6}), (V{{0, 1, 2}, {1, 3, 2}, {4, 5, 6}}));
  EXPECT_EQ(assemble(Topology::kTriangleFan, {0, 1, 2, -1, 3, 4, 5, 6}), (V{{1, 2, 0}, {4, 5, 3}, {5, 6, 3}}));
  EXPECT_EQ(assemble(Topology::kTriangleList, {0, 1, -1, 2, 3, 4}), (V{{2, 3, 4}}));
}

// VK_EXT_provoking_vertex's table: with the last vertex provoking, the same primitives in the same
// vertex order (so the same winding), provoked by v_{2i+1}, v_{i+1}, v_{3i+2}, v_{i+2} (strips, fans).
TEST(PrimitiveAssembly, LastVertexProvokesInTheSameOrder) {
  using V = std::vector<std::vector<int>>;
  const ProvokingVertex last = ProvokingVertex::kLast, first = ProvokingVertex::kFirst;
  EXPECT_EQ(assemble(Topology::kPointList, {0, 1}, last, true), (V{{0, 0}, {1, 1}}));
  EXPECT_EQ(assemble(Topology::kLineList, {0, 1, 2, 3}, last, true), (V{{0, 1, 1}, {2, 3, 3}}));
  EXPECT_EQ(assemble(Topology::kLineStrip, {0, 1, 2}, last, true), (V{{0, 1, 1}, {1, 2, 2}}));
  EXPECT_EQ(assemble(Topology::kTriangleList, {0, 1, 2, 3, 4, 5}, last, true), (V{{0, 1, 2, 2}, {3, 4, 5, 5}}));
  EXPECT_EQ(assemble(Topology::kTriangleStrip, {0, 1, 2, 3, 4}, last, true),
            (V{{0, 1, 2, 2}, {1, 3, 2, 3}, {2, 3, 4, 4}}));
  EXPECT_EQ(assemble(Topology::kTriangleFan, {0, 1, 2, 3}, last, true), (V{{1, 2, 0, 2}, {2, 3, 0, 3}}));
  EXPECT_EQ(assemble(Topology::kTriangleStrip, {0, 1, 2, 3}, first, true), (V{{0, 1, 2, 0}, {1, 3, 2, 1}}));
  EXPECT_EQ(assemble(Topology::kTriangleFan, {0, 1, 2, 3}, first, true), (V{{1, 2, 0, 1}, {2, 3, 0, 2}}));
}

AssembledPrimitive clip_tri(std::array<std::array<float, 4>, 3> p) {
  AssembledPrimitive t;
  t.vertex_count = 3;
  for (int i = 0; i < 3; ++i) {
    t.vertices[i].position = p[i];
    t.vertices[i].varyings[0] = float(i);  // a varying that is 0, 1, 2 at the vertices
  }
  return t;
}

TEST(Clipper, ViewportTransformIsVulkans) {
  Viewport vp{10, 20, 200, -100, 0.25f, 0.75f};  // negative height: y up
  ASSERT_FALSE(validate_viewport(vp));
  Clipper c(vp, 1);
  Queue<RasterTriangle> out;
  c.clip_triangle(clip_tri({{{-1, -1, 0, 1}, {2, 2, 2, 2}, {0, 0, 0.5f, 1}}}), out);
  ASSERT_EQ(out.size(), 1u);
  RasterTriangle t = out.pop();
  EXPECT_EQ(t.screen[0].x, 10.0f);   // x_d = -1 -> x
  EXPECT_EQ(t.screen[0].y, 20.0f);   // y_d = -1 -> y, whatever the sign of the height
  EXPECT_EQ(t.screen[1].x, 210.0f);
  EXPECT_EQ(t.screen[1].y, 20.0f - 100.0f);
  EXPECT_EQ(t.screen[1].z, 0.75f);
  EXPECT_EQ(t.screen[1].inv_w, 0.5f);
  EXPECT_EQ(t.screen[2].x, 110.0f);
  EXPECT_EQ(t.screen[2].y, -30.0f);
  EXPECT_EQ(t.screen[2].z, 0.5f);
  EXPECT_EQ(c.counters().trivially_accepted, 1u);
}

TEST(Clipper, NearPlaneCutsAndBehindTheEyeIsRejected) {
  Viewport vp{0, 0, 100, 100, 0, 1};
  Clipper c(vp, 1);
  Queue<RasterTriangle> out;
  // One vertex behind the near plane (z < 0): a quadrilateral, two triangles.
  c.clip_triangle(clip_tri({{{0, 0, -1, 1}, {0.5f, 0, 1, 1}, {0, 0.5f, 1, 1}}}), out);
  EXPECT_EQ(out.size(), 2u);
  while (!out.empty()) {
    RasterTriangle t = out.pop();
    for (int i = 0; i < 3; ++i) {
      EXPECT_GE(t.screen[i].z, 0.0f);
      EXPECT_GE(t.varyings[i][0], 0.5f - 1e-6f);  // the cut is halfway along edges from vertex 0
    }
    EXPECT_EQ(t.flat[0], 0.0f);  // the provoking vertex's varying survives the cut
  }
  // The last vertex provoking: every piece keeps its varying (2), not a new vertex's.
  AssembledPrimitive last = clip_tri({{{0, 0.5f, 1, 1}, {0.5f, 0, 1, 1}, {0, 0, -1, 1}}});
  last.provoking = 2;
  c.clip_triangle(last, out);
  EXPECT_EQ(out.size(), 2u);
  while (!out.empty()) EXPECT_EQ(out.pop().flat[0], 2.0f);
  // Every vertex has w < 0: wholly outside.
  c.clip_triangle(clip_tri({{{0, 0, -0.5f, -1}, {1, 0, -0.5f, -1}, {0, 1, -0.5f, -1}}}), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c.counters().rejected, 1u);
  EXPECT_EQ(c.counters().clipped, 2u);
}

// The clipper's classification (accepted whole, cut, rejected) on the planes themselves, at -0,
// with infinities and NaN: a vertex on a plane is inside it; a coordinate that is not finite puts
// its vertex outside every plane whose distance it makes NaN (0 * inf), and a NaN one outside all.
TEST(Clipper, VerticesOnThePlanesAndNotFiniteAreClassifiedAsTheDistancesSay) {
  const float inf = INFINITY, nan = NAN;
  const struct {
    std::array<std::array<float, 4>, 3> v;
    bool depth_clamp;
    uint64_t accepted, clipped, rejected;
  } cases[] = {
      {{{{0, 0, 0, 1}, {0.5f, 0, 1, 1}, {0, 0.5f, -0.0f, 1}}}, false, 1, 0, 0},  // z = 0, z = w, z = -0
      {{{{0, 0, 0.5f, 1}, {0.5f, 0, 0.5f, 1}, {0, 0.5f, 0.5f, 1e-6f}}}, false, 0, 1, 0},  // float 1e-6 < kMinClipW
      {{{{0, 0, -1, 1}, {0.5f, 0, -2, 1}, {0, 0.5f, 2, 1}}}, true, 1, 0, 0},  // depth clamp: no near / far
      {{{{0, 0, -1, 1}, {0.5f, 0, -2, 1}, {0, 0.5f, -0.5f, 1}}}, false, 0, 0, 1},  // all behind the near plane
      {{{{0, inf, 0.5f, 1}, {0.5f, 0, 0.5f, 1}, {0, 0.5f, 0.5f, 1}}}, false, 0, 1, 0},
      {{{{0, inf, 0.5f, 1}, {inf, 0, 0.5f, 1}, {0, 0, 0.5f, inf}}}, false, 0, 0, 1},
      {{{{nan, 0, 0.5f, 1}, {0.5f, 0, 0.5f, 1}, {0, 0.5f, 0.5f, 1}}}, false, 0, 1, 0},
      {{{{0, 0, inf, 1}, {0.5f, 0, 0.5f, 1}, {0, 0.5f, 0.5f, 1}}}, true, 0, 1, 0},  // 0 * inf in the clamp planes
      {{{{1e30f, 0, 0.5f, 1}, {1e30f, 1, 0.5f, 1}, {1e30f, 0, 0.5f, 2}}}, false, 0, 0, 1},  // past the guard band
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE(i);
    Clipper c(Viewport{0, 0, 100, 100, 0, 1}, 1, cases[i].depth_clamp);
    Queue<RasterTriangle> out;
    c.clip_triangle(clip_tri(cases[i].v), out);
    EXPECT_EQ(c.counters().trivially_accepted, cases[i].accepted);
    EXPECT_EQ(c.counters().clipped, cases[i].clipped);
    EXPECT_EQ(c.counters().rejected, cases[i].rejected);
  }
}

TEST(Clipper, HugeTrianglesAreClippedToTheGuardBandAndStillCoverTheViewport) {
  Viewport vp{0, 0, 256, 256, 0, 1};
  Clipper c(vp, 0);
  Queue<RasterTriangle> out;
  c.clip_triangle(clip_tri({{{-1e6f, -1e6f, 0.5f, 1}, {-1e6f, 3e6f, 0.5f, 1}, {3e6f, -1e6f, 0.5f, 1}}}), out);
  ASSERT_FALSE(out.empty());
  while (!out.empty()) {
    RasterTriangle t = out.pop();
    for (const ScreenVertex& v : t.screen) {
      EXPECT_LE(std::fabs(v.x), kGuardBandClip + 1);
      EXPECT_LE(std::fabs(v.y), kGuardBandClip + 1);
      TriangleSetup setup;
      EXPECT_NE(setup_triangle(t.screen, SetupState{}, &setup), SetupResult::kOutsideGuardBand);
    }
  }
  EXPECT_EQ(c.counters().clipped, 1u);
}

TEST(Clipper, RejectsBadViewports) {
  EXPECT_TRUE(validate_viewport(Viewport{0, 0, 0, 10, 0, 1}));
  EXPECT_TRUE(validate_viewport(Viewport{0, 0, 10, 10, 0, 2}));
  EXPECT_TRUE(validate_viewport(Viewport{0, 0, std::nanf(""), 10, 0, 1}));
  EXPECT_TRUE(validate_viewport(Viewport{40000, 0, 10, 10, 0, 1}));
  EXPECT_FALSE(validate_viewport(Viewport{-100, -100, 300, 300, 0, 1}));
}

struct DrawFixture {
  FlatMemory memory{0x100000, 1 << 20};
  VertexInputState input;
  std::vector<RasterTriangle> triangles;
  TriangleSink sink = [this](Queue<RasterTriangle>& q) {
    while (!q.empty()) triangles.push_back(q.pop());
    return true;
  };
  void positions(const std::vector<float>& xyzw) {
    input.bindings[0] = VertexBinding{memory.upload(xyzw), xyzw.size() * 4, 16, InputRate::kVertex, 1};
    input.attributes[0] = VertexAttribute{0, 109, 0};
    input.attribute_count = 1;
  }
};

TEST(GeometryEngine, NonIndexedAndIndexedDrawsWithRestartAndInstances) {
  DrawFixture fx;
  fx.positions({-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1});
  GeometryEngine ge(fx.memory);
  PassThroughVertexStage stage(1);
  Viewport vp{0, 0, 64, 64, 0, 1};
  DrawParams d;
  d.topology = Topology::kTriangleStrip;
  d.count = 4;
  d.instance_count = 3;
  ASSERT_FALSE(ge.draw(d, fx.input, vp, stage, fx.sink));
  EXPECT_EQ(fx.triangles.size(), 6u);
  EXPECT_EQ(fx.triangles[0].screen[1].x, 64.0f);
  EXPECT_EQ(ge.counters().vertices, 12u);
  fx.triangles.clear();
  std::vector<uint16_t> idx{0, 1, 2, 0xFFFF, 1, 3, 2};
  d.indexed = true;
  d.index_type = IndexType::kUint16;
  d.index_va = fx.memory.upload(idx);
  d.index_size = idx.size() * 2;
  d.count = 7;
  d.instance_count = 1;
  d.primitive_restart = true;
  ASSERT_FALSE(ge.draw(d, fx.input, vp, stage, fx.sink));
  EXPECT_EQ(fx.triangles.size(), 2u);
  EXPECT_EQ(fx.triangles[1].screen[0].x, 64.0f);  // vertex 1
  EXPECT_EQ(fx.triangles[1].screen[1].y, 64.0f);  // vertex 3
}

TEST(GeometryEngine, HostileDrawsEndInFaults) {
  DrawFixture fx;
  fx.positions({0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1});
  GeometryEngine ge(fx.memory);
  PassThroughVertexStage stage(1);
  Viewport vp{0, 0, 64, 64, 0, 1};
  DrawParams d;
  d.count = 6;  // three vertices in the buffer
  auto fault = ge.draw(d, fx.input, vp, stage, fx.sink);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("past the buffer"), std::string::npos);
  EXPECT_EQ(fx.triangles.size(), 1u);  // the first triangle was already drawn
  d.count = 3;
  d.indexed = true;
  d.index_va = 0x100000;
  d.index_size = 2;  // one u32 index does not fit
  EXPECT_TRUE(ge.draw(d, fx.input, vp, stage, fx.sink));
  std::vector<uint32_t> idx{0, 1, 2};
  d.index_va = fx.memory.upload(idx);
  d.index_size = 12;
  d.vertex_offset = -5;  // negative vertex index
  fault = ge.draw(d, fx.input, vp, stage, fx.sink);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("vertex index -5"), std::string::npos);
  d = DrawParams{};
  d.count = 0xFFFFFFFFu;
  d.instance_count = 0xFFFFFFFFu;
  fault = ge.draw(d, fx.input, vp, stage, fx.sink);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("exceeds the limit"), std::string::npos);
  d.count = 3;
  d.instance_count = 1;
  d.topology = Topology(kMaxTopology + 1);
  fault = ge.draw(d, fx.input, vp, stage, fx.sink);
  ASSERT_TRUE(fault);
  EXPECT_NE(fault->find("unknown"), std::string::npos);
  d.topology = Topology::kTriangleList;
  EXPECT_TRUE(ge.draw(d, fx.input, Viewport{0, 0, -5, 10, 0, 1}, stage, fx.sink));
}

}  // namespace
}  // namespace gsgpu::graphics
