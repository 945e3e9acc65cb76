// Hostile draws through the gsgpu native context, as a guest submits them: a draw that faults is
// reported to its own context (the fence's faulted seqno, READ_FAULTS naming the reason), another
// context's memory stays as it was and both contexts draw afterwards; a draw that would rasterize
// for minutes is stopped by the submission time budget like a long kernel.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/gsgpu/gsgpu_hw.h"
#include "tests/host/gsgpu_ctx/ctx_harness.h"

namespace gsvirt::gsgpu_ctx::test {
namespace {

namespace blk = gsgpu::hw::blk;
using gsgpu::drv::kVaRead;
using gsgpu::drv::kVaWrite;

uint32_t f32(float v) { return std::bit_cast<uint32_t>(v); }
constexpr uint32_t kGreen = 0xFF80FF00;  // constant colour (0, 1, 0.5, 1) as R8G8B8A8 bytes

// One context's draw: state blocks, vertices and a size x size R8G8B8A8 target, each its own BO.
struct DrawSetup {
  DrawSetup(Guest& g, uint32_t size) : size(size) {
    state = g.buffer(4096, kVaRead);
    vertices = g.buffer(4096, kVaRead);
    target = g.buffer(uint64_t{size} * size * 4);
  }
  std::vector<uint32_t> bos() const { return {state.bo_id, vertices.bo_id, target.bo_id}; }
  uint32_t pixel(uint32_t x, uint32_t y) const {
    uint32_t v;
    std::memcpy(&v, target.blob.map + (uint64_t{y} * size + x) * 4, 4);
    return v;
  }
  // Writes the blocks of a triangle list of `count` vertices in `instances` instances (the binding
  // holds `vertex_bytes`) and returns the DRAW packet.
  std::vector<uint32_t> draw(const std::vector<float>& positions, uint32_t count, uint32_t instances,
                             uint32_t vertex_bytes) const {
    namespace D = blk::DRAW_INFO;
    namespace P = blk::PIPE_STATE;
    namespace S = blk::SHADER_STATE;
    namespace VB = blk::VERTEX_BINDING;
    std::vector<uint32_t> di(D::SIZE_DWORDS), pipe(P::SIZE_DWORDS), shader(S::SIZE_DWORDS),
        binding(VB::SIZE_DWORDS), attribute(blk::VERTEX_ATTRIBUTE::SIZE_DWORDS);
    di[D::FLAGS] = 3;  // triangle list
    di[D::COUNT] = count;
    di[D::INSTANCE_COUNT] = instances;
    di[D::COUNTS] = 1 | 1u << 8;  // one binding, one attribute
    di[D::BINDINGS_VA_LO] = uint32_t(state.va + 768), di[D::BINDINGS_VA_HI] = uint32_t((state.va + 768) >> 32);
    di[D::ATTRIBUTES_VA_LO] = uint32_t(state.va + 832), di[D::ATTRIBUTES_VA_HI] = uint32_t((state.va + 832) >> 32);
    binding[VB::VA_LO] = uint32_t(vertices.va), binding[VB::VA_HI] = uint32_t(vertices.va >> 32);
    binding[VB::SIZE_LO] = vertex_bytes;
    binding[VB::STRIDE] = 16;
    binding[VB::DIVISOR] = 1;
    attribute[blk::VERTEX_ATTRIBUTE::FORMAT] = 109;  // R32G32B32A32_SFLOAT
    pipe[P::VIEWPORT_WIDTH] = pipe[P::VIEWPORT_HEIGHT] = f32(float(size));
    pipe[P::VIEWPORT_MAX_DEPTH] = f32(1);
    pipe[P::SCISSOR_WIDTH] = pipe[P::SCISSOR_HEIGHT] = size;
    pipe[P::TARGET_SIZE] = size | size << 16;
    pipe[P::COLOR_VA_LO] = uint32_t(target.va), pipe[P::COLOR_VA_HI] = uint32_t(target.va >> 32);
    pipe[P::COLOR_PITCH] = size * 4;
    pipe[P::COLOR_FORMAT] = 37;
    pipe[P::OUTPUT] = 0xF;  // write mask
    shader[S::CONSTANT_G] = shader[S::CONSTANT_A] = f32(1.0f);
    shader[S::CONSTANT_B] = f32(0.5f);
    auto put = [&](uint64_t offset, const std::vector<uint32_t>& words) {
      std::memcpy(state.blob.map + offset, words.data(), words.size() * 4);
    };
    put(0, di), put(256, pipe), put(512, shader), put(768, binding), put(832, attribute);
    std::memcpy(vertices.blob.map, positions.data(), positions.size() * 4);
    return gsgpu::hw::encode_draw(state.va, state.va + 256, state.va + 512);
  }

  uint32_t size;
  GpuBuffer state, vertices, target;
};

// One triangle over the whole target (its other corners past it).
const std::vector<float> kFullScreen = {-1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1};

TEST(GsgpuCtxDraw, AFaultingDrawIsItsContextsAloneAndBothContextsDrawAfterwards) {
  Host host;
  Guest bad(host, 1), good(host, 2);
  DrawSetup a(bad, 32), b(good, 32);
  ASSERT_EQ(good.submit(0, 1, b.bos(), b.draw(kFullScreen, 3, 1, 48)), Status::kOk);
  ASSERT_TRUE(good.wait_retired(0, 1));
  ASSERT_EQ(b.pixel(31, 31), kGreen);
  const std::vector<uint8_t> good_target(b.target.blob.map, b.target.blob.map + b.target.blob.size);
  const std::vector<uint8_t> good_state(b.state.blob.map, b.state.blob.map + b.state.blob.size);

  // Four vertices from a binding of three: the fetch past the buffer faults the draw.
  ASSERT_EQ(bad.submit(0, 7, a.bos(), a.draw(kFullScreen, 4, 1, 48)), Status::kOk);
  ASSERT_TRUE(bad.wait_retired(0, 7));
  EXPECT_EQ(bad.fence(0).faulted_seqno, 7u);
  ReadFaultsRsp f = bad.read_faults();
  ASSERT_GE(f.count, 1u);
  EXPECT_EQ(f.faults[0].seqno, 7u);
  EXPECT_NE(std::string(f.faults[0].message).find("vertex fetch past the buffer"), std::string::npos)
      << f.faults[0].message;

  // The other context saw nothing of it: no fault, its memory as it was, and it draws on.
  EXPECT_EQ(good.fence(0).faulted_seqno, 0u);
  EXPECT_EQ(good.read_faults().count, 0u);
  EXPECT_TRUE(std::equal(good_target.begin(), good_target.end(), b.target.blob.map));
  EXPECT_TRUE(std::equal(good_state.begin(), good_state.end(), b.state.blob.map));
  std::memset(b.target.blob.map, 0, b.target.blob.size);
  ASSERT_EQ(good.submit(0, 2, b.bos(), b.draw(kFullScreen, 3, 1, 48)), Status::kOk);
  ASSERT_TRUE(good.wait_retired(0, 2));
  EXPECT_EQ(b.pixel(0, 0), kGreen);
  EXPECT_EQ(good.fence(0).faulted_seqno, 0u);

  // And the faulting context draws too.
  ASSERT_EQ(bad.submit(0, 8, a.bos(), a.draw(kFullScreen, 3, 1, 48)), Status::kOk);
  ASSERT_TRUE(bad.wait_retired(0, 8));
  EXPECT_EQ(bad.fence(0).faulted_seqno, 7u);
  EXPECT_EQ(a.pixel(16, 16), kGreen);
}

// 2^24 - 1 vertex invocations (inside the draw's vertex limit) as slivers across a 1024 x 1024
// target rasterize for minutes; the submission time budget stops the draw as it stops a kernel.
TEST(GsgpuCtxDraw, ADrawPastTheSubmissionTimeBudgetIsStopped) {
  ContextConfig config = test_config();
  config.submit_time_budget_ns = 100'000'000;
  Host host(config);
  Guest g(host, 1);
  DrawSetup s(g, 1024);
  const std::vector<float> sliver = {-1, -0.999f, 0, 1, 1, 1, 0, 1, 1, 1.002f, 0, 1};
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(g.submit(0, 1, s.bos(), s.draw(sliver, 3, (1u << 24) / 3, 48)), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 1, 60000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
  ReadFaultsRsp f = g.read_faults();
  ASSERT_GE(f.count, 1u);
  EXPECT_EQ(f.faults[0].kind, uint32_t(gsgpu::drv::FaultKind::kTimeout)) << f.faults[0].message;
  // The ring goes on, and draws.
  ASSERT_EQ(g.submit(0, 2, s.bos(), s.draw(kFullScreen, 3, 1, 48)), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 2));
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
  EXPECT_EQ(s.pixel(1023, 1023), kGreen);
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::test
