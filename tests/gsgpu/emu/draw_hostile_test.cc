// Hostile draws on the device, each through the ring and the command processor: out-of-range state
// words, vertex and index fetches past their buffers, an index past the vertex buffer, enormous and
// degenerate triangles, endless and illegal programs, code outside its mapping, a render target past
// the end of its memory, and the device's draw limits. Each one either ends in a reported CP fault
// (the cause in the API and in CP_FAULT_INFO, the field or reason in the log line) or, where Vulkan
// defines the result (triangles that are not finite, of zero area), draws what the rules say;
// afterwards the device draws a good triangle again, memory the draw did not name is untouched, and
// a second device (another context) is untouched and keeps drawing.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "draw_hostile_fixture.h"

namespace gsgpu {
namespace {

using namespace draw_hostile;
namespace blk = hw::blk;
using test::LogCapture;

TEST_F(DrawHostile, OutOfRangeStateWordsAreBadFieldsNamedInTheLog) {
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  namespace S = blk::SHADER_STATE;
  const CpFaultCause bad = CpFaultCause::kBadField;
  fault_case("topology", [](Blocks& b) { b.draw_info[D::FLAGS] = 6; }, bad, "FLAGS.TOPOLOGY is 6, above 5");
  fault_case("bindings", [](Blocks& b) { b.draw_info[D::COUNTS] = 0x111; }, bad, "COUNTS.BINDING_COUNT is 17");
  fault_case("stride", [](Blocks& b) { b.binding[blk::VERTEX_BINDING::STRIDE] = 65536; }, bad, "[0].STRIDE is 65536");
  fault_case("offset", [](Blocks& b) { b.attribute[blk::VERTEX_ATTRIBUTE::OFFSET] = 2048; }, bad, "[0].OFFSET is 2048");
  fault_case("target", [](Blocks& b) { b.pipe[P::TARGET_SIZE] = 4097 | 4097u << 16; }, bad,
             "TARGET_SIZE 4097 x 4097 outside 1 .. 4096");
  fault_case("depth range", [](Blocks& b) { b.pipe[P::VIEWPORT_MIN_DEPTH] = f32(2); }, bad, "VIEWPORT:");
  fault_case("viewport inf", [](Blocks& b) { b.pipe[P::VIEWPORT_X] = f32(INFINITY); }, bad, "VIEWPORT:");
  fault_case("blend op", [](Blocks& b) { b.pipe[P::BLEND] = 5u << 11; }, bad, "BLEND.COLOR_OP is 5");
  fault_case("blend constant", [](Blocks& b) { b.pipe[P::BLEND_CONSTANT_A] = f32(NAN); }, bad,
             "BLEND_CONSTANT is not finite");
  fault_case("depth format", [](Blocks& b) { b.pipe[P::DEPTH_FORMAT] = 131; }, bad, "DEPTH_FORMAT 131");
  fault_case("stencil bits", [](Blocks& b) { b.pipe[P::STENCIL_BACK_OPS] = 1u << 12; }, bad,
             "STENCIL_BACK_OPS has undefined bits set: 0x1000");
  fault_case("fragment mode", [](Blocks& b) { b.shader[S::FRAGMENT] = 3; }, bad, "FRAGMENT.MODE is 3");
  fault_case("clip distances", [](Blocks& b) { b.shader[S::VERTEX] |= 9u << S::VERTEX_CLIP_DISTANCES_SHIFT; }, bad,
             "VERTEX.CLIP_DISTANCES and CULL_DISTANCES must be 0 for the pass-through stage");
  fault_case("polygon mode", [](Blocks& b) { b.pipe[P::RASTER] |= 3u << P::RASTER_POLYGON_MODE_SHIFT; }, bad,
             "RASTER.POLYGON_MODE is 3, above 2");
  // RASTER's bits above NO_DEPTH_CLIP (bit 10) are undefined.
  fault_case("raster bits", [](Blocks& b) { b.pipe[P::RASTER] |= 1u << 31; }, bad,
             "RASTER has undefined bits set: 0x80000000");
  // Line stipple: the factor divides the counter, so 0 (and anything above Vulkan's 256) faults.
  const uint32_t stipple = P::RASTER_LINE_STIPPLE_MASK;
  fault_case("stipple factor 0", [&](Blocks& b) { b.pipe[P::RASTER] |= stipple, b.pipe[P::LINE_STIPPLE] = 0x0f0fu << 16; },
             bad, "LINE_STIPPLE.FACTOR is 0, outside 1 .. 256");
  fault_case("stipple factor 257", [&](Blocks& b) { b.pipe[P::RASTER] |= stipple, b.pipe[P::LINE_STIPPLE] = 257; }, bad,
             "LINE_STIPPLE.FACTOR is 257, outside 1 .. 256");
  fault_case("stipple bits", [&](Blocks& b) { b.pipe[P::RASTER] |= stipple, b.pipe[P::LINE_STIPPLE] = 1u << 12 | 1; }, bad,
             "LINE_STIPPLE has undefined bits set: 0x1001");
  fault_case("stipple word unused", [](Blocks& b) { b.pipe[P::LINE_STIPPLE] = 1; }, bad,
             "LINE_STIPPLE (RASTER.LINE_STIPPLE is 0) has undefined bits set: 0x1");
  fault_case("samples", [](Blocks& b) { b.pipe[P::MULTISAMPLE] = 3; }, bad, "MULTISAMPLE.SAMPLES_LOG2 is 3, above 2");
  fault_case("multisample bits", [](Blocks& b) { b.pipe[P::MULTISAMPLE] = 1u << 10; }, bad,
             "MULTISAMPLE has undefined bits set: 0x400");
}

// DRAW_INDIRECT reads its counts from memory when it runs (DRAW_INFO's own are replaced) and checks
// them as the driver checks a direct draw's: an unaligned or unmapped address, more vertices than
// the limit, vertex or instance indices past 32 bits are faults naming the reason; counts that pass
// and then fetch past the vertex buffer are the pipeline's draw fault; a count of 0 draws nothing.
TEST_F(DrawHostile, DrawIndirectReadsItsArgumentsWhenItRunsAndChecksThem) {
  namespace D = blk::DRAW_INFO;
  Context& c = hostile_;
  const uint64_t args_va = c.state_va + 1024;
  auto run = [&](std::vector<uint32_t> args, uint64_t at) {
    EXPECT_TRUE(c.device->mmu().write(c.state_va + 1024, args.data(), args.size() * 4));
    const std::vector<uint32_t> zero(kSize * kSize, 0);
    EXPECT_TRUE(c.device->mmu().write(kTargetVa, zero.data(), zero.size() * 4));
    Blocks b = good_blocks(c);
    b.draw_info[D::COUNT] = 0;  // drawn only if the packet's arguments replace it
    return draw(c, b, at);
  };
  ASSERT_TRUE(run({4, 1, 0, 0}, args_va));
  EXPECT_EQ(c.pixel(0, 0), kGreen);
  EXPECT_EQ(c.pixel(31, 31), kGreen);
  ASSERT_TRUE(run({0, 1, 0, 0}, args_va));
  EXPECT_EQ(c.pixel(16, 16), 0u);
  struct Case {
    const char* name;
    std::vector<uint32_t> args;
    uint64_t at;
    CpFaultCause cause;
    const char* reason;
  };
  const Case cases[] = {
      {"unaligned", {4, 1, 0, 0}, args_va + 2, CpFaultCause::kBadField, "not 4-byte aligned"},
      {"unmapped", {4, 1, 0, 0}, kTargetVa + 4096, CpFaultCause::kMemoryFault, "is not mapped readable"},
      {"too many", {0xFFFFFFFF, 0xFFFFFFFF, 0, 0}, args_va, CpFaultCause::kBadField, "over the vertex limit"},
      {"vertex wrap", {3, 1, 0xFFFFFFFE, 0}, args_va, CpFaultCause::kBadField, "FIRST_VERTEX + COUNT - 1 past 32 bits"},
      {"instance wrap", {3, 2, 0, 0xFFFFFFFF}, args_va, CpFaultCause::kBadField, "FIRST_INSTANCE + INSTANCE_COUNT"},
      {"fetch", {5, 1, 0, 0}, args_va, CpFaultCause::kDrawFault, "vertex fetch past the buffer"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const size_t before = log_.count(k.reason);
    EXPECT_FALSE(run(k.args, k.at));
    Device& d = *c.device;
    ASSERT_TRUE(d.cp_fault());
    EXPECT_EQ(d.cp_fault()->cause, k.cause) << d.cp_fault()->message;
    namespace F = hw::field::CP_FAULT_INFO;
    EXPECT_EQ(hw::get_field(d.read_register(hw::reg::CP_FAULT_INFO), F::OPCODE_MASK, F::OPCODE_SHIFT),
              hw::pkt::DRAW_INDIRECT::OPCODE);
    EXPECT_EQ(log_.count(k.reason), before + 1) << log_.all();
    if (k.cause != CpFaultCause::kDrawFault) EXPECT_EQ(c.pixel(16, 16), 0u);  // refused before drawing
    expect_survives();
  }
}

TEST_F(DrawHostile, VertexFetchPastTheBufferFaults) {
  fault_case("count", [](Blocks& b) { b.draw_info[blk::DRAW_INFO::COUNT] = 5; }, CpFaultCause::kDrawFault,
             "vertex fetch past the buffer: attribute 0 binding 0 element 4");
  fault_case("first vertex", [](Blocks& b) { b.draw_info[blk::DRAW_INFO::FIRST_VERTEX] = 0xFFFFFFFF; },
             CpFaultCause::kDrawFault, "vertex fetch past the buffer");
}

TEST_F(DrawHostile, IndexFetchPastTheBufferFaults) {
  namespace D = blk::DRAW_INFO;
  fault_case("index size",
             [](Blocks& b) {
               b.draw_info[D::FLAGS] |= D::FLAGS_INDEXED_MASK | D::FLAGS_INDEX_TYPE_MASK;
               b.draw_info[D::INDEX_SIZE] = 12;  // 3 of the 4 indices
               b.indices = {0, 1, 2, 3};
             },
             CpFaultCause::kDrawFault, "index fetch past the buffer: index 3 in a buffer of 12 bytes");
}

TEST_F(DrawHostile, IndexValuePastTheVertexBufferFaults) {
  namespace D = blk::DRAW_INFO;
  fault_case("index 1000",
             [](Blocks& b) {
               b.draw_info[D::FLAGS] |= D::FLAGS_INDEXED_MASK | D::FLAGS_INDEX_TYPE_MASK;
               b.indices = {0, 1, 1000, 3};
             },
             CpFaultCause::kDrawFault, "vertex fetch past the buffer: attribute 0 binding 0 element 1000");
  fault_case("vertex offset",
             [](Blocks& b) {
               b.draw_info[D::FLAGS] |= D::FLAGS_INDEXED_MASK | D::FLAGS_INDEX_TYPE_MASK;
               b.draw_info[D::VERTEX_OFFSET] = uint32_t(-5);
               b.indices = {0, 1, 2, 3};
             },
             CpFaultCause::kDrawFault, "vertex index -5 is outside 0 .. 2^32 - 1");
}

// Vulkan defines these: a triangle with a coordinate that is not finite or enormous is clipped or
// dropped, one of zero area draws nothing. The draw completes; the good triangle of the same draw
// is drawn and nothing else is.
TEST_F(DrawHostile, EnormousAndNonFiniteTrianglesAreClippedOrDroppedNotDrawnWild) {
  namespace D = blk::DRAW_INFO;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Blocks b = good_blocks(hostile_);
  b.draw_info[D::FLAGS] = hw::put_field(3, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // list
  b.vertices = {-1e30f, -1e30f, 0, 1, 1e30f, -1e30f, 0, 1, 0, 1e30f, 0, 1,  // covers the target after clipping
                -inf,   0,      0, 1, inf,   0,      0, 1, 0, 1,     0, 1,  // infinite
                nan,    0,      0, 1, 1,     nan,    0, 1, 0, 1,     0, 1,  // NaN
                0,      0,      0, nan, 1,   0,      0, inf, 0, 1,   0, 1e-30f};  // w not finite / tiny
  b.binding[blk::VERTEX_BINDING::SIZE_LO] = uint32_t(b.vertices.size() * 4);
  b.draw_info[D::COUNT] = 12;
  b.shader[blk::SHADER_STATE::CONSTANT_R] = f32(1.0f);  // white, to tell it from the good draw's green
  b.shader[blk::SHADER_STATE::CONSTANT_B] = f32(1.0f);
  ASSERT_TRUE(draw(hostile_, b)) << fault_text(*hostile_.device);
  const auto record = hostile_.device->command_processor().last_draw();
  ASSERT_TRUE(record);
  const graphics::DrawCounters& n = record->result.counters;
  EXPECT_EQ(n.geometry.clip.triangles_in, 4u);
  EXPECT_EQ(n.merge.fragments_written, kSize * kSize) << "the enormous triangle covers the target once";
  EXPECT_EQ(n.merge.overdraw, 0u) << "the triangles that are not finite draw nothing";
  EXPECT_EQ(hostile_.pixel(0, 0), 0xFFFFFFFFu);
  EXPECT_EQ(hostile_.pixel(31, 31), 0xFFFFFFFFu);
  // Triangles of 10^10 and 10^20 cover it once too; a line from x = -10^30 to 10^30 through the
  // centres of row 16 draws that row.
  for (float big : {1e10f, 1e20f}) {
    b.vertices = {-big, -big, 0, 1, big, -big, 0, 1, 0, big, 0, 1};
    b.draw_info[D::COUNT] = 3;
    ASSERT_TRUE(draw(hostile_, b)) << fault_text(*hostile_.device);
    EXPECT_EQ(hostile_.device->command_processor().last_draw()->result.counters.merge.fragments_written,
              kSize * kSize)
        << big;
  }
  b.draw_info[D::FLAGS] = hw::put_field(1, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // line list
  b.vertices = {-1e30f, 1.0f / 32, 0, 1, 1e30f, 1.0f / 32, 0, 1};
  b.draw_info[D::COUNT] = 2;
  ASSERT_TRUE(draw(hostile_, b)) << fault_text(*hostile_.device);
  EXPECT_EQ(hostile_.device->command_processor().last_draw()->result.counters.merge.fragments_written, kSize);
  expect_survives();
}

// A draw of no vertices in 2^32 - 1 instances asks for no work (the vertex limit is on the product)
// and must take none: it looped over the empty instances for minutes (found by fuzz_gsgpu_draw).
TEST_F(DrawHostile, NoVerticesInCountlessInstancesEndAtOnce) {
  Blocks b = good_blocks(hostile_);
  b.draw_info[blk::DRAW_INFO::COUNT] = 0;
  b.draw_info[blk::DRAW_INFO::INSTANCE_COUNT] = 0xFFFFFFFFu;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(draw(hostile_, b)) << fault_text(*hostile_.device);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(hostile_.device->command_processor().last_draw()->result.counters.geometry.vertices, 0u);
  expect_survives();
}

TEST_F(DrawHostile, DegenerateTrianglesDrawNothing) {
  namespace D = blk::DRAW_INFO;
  Blocks b = good_blocks(hostile_);
  b.draw_info[D::FLAGS] = hw::put_field(3, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);
  b.vertices = {0.5f, 0.5f, 0, 1, 0.5f, 0.5f, 0, 1, 0.5f, 0.5f, 0, 1,  // all vertices equal
                -1,   -1,   0, 1, 0,    0,    0, 1, 1,    1,    0, 1,  // on one line
                -1,   -1,   0, 1, -1,   -1,   0, 1, 1,    1,    0, 1};  // two equal
  b.binding[blk::VERTEX_BINDING::SIZE_LO] = uint32_t(b.vertices.size() * 4);
  b.draw_info[D::COUNT] = 9;
  ASSERT_TRUE(draw(hostile_, b));
  const auto record = hostile_.device->command_processor().last_draw();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->result.counters.primitive.degenerate, 3u);
  EXPECT_EQ(record->result.counters.merge.fragments_written, 0u);
  expect_survives();
}

TEST_F(DrawHostile, EndlessProgramsEndAtTheWatchdog) {
  const std::vector<uint32_t> endless = assemble("loop:\ns_jump loop\n");
  ASSERT_TRUE(hostile_.device->mmu().write(hostile_.code_va, endless.data(), endless.size() * 4));
  const uint32_t bytes = uint32_t(endless.size() * 4);
  fault_case("vertex", [&](Blocks& b) { vertex_program(b, hostile_, bytes); }, CpFaultCause::kDrawFault,
             "vertex program fault watchdog");
  fault_case("fragment", [&](Blocks& b) { fragment_program(b, hostile_, bytes); }, CpFaultCause::kDrawFault,
             "fragment program fault watchdog");
}

TEST_F(DrawHostile, BadShaderBinariesFault) {
  const std::vector<uint32_t> illegal = {0xFFFFFFFFu, 0xFFFFFFFFu};
  ASSERT_TRUE(hostile_.device->mmu().write(hostile_.code_va, illegal.data(), illegal.size() * 4));
  fault_case("illegal vertex word", [&](Blocks& b) { vertex_program(b, hostile_, 8); }, CpFaultCause::kDrawFault,
             "vertex program fault illegal-instruction");
  fault_case("illegal fragment word", [&](Blocks& b) { fragment_program(b, hostile_, 8); },
             CpFaultCause::kDrawFault, "fragment program fault illegal-instruction");
  // The code's last 8 bytes of its 4 KiB mapping, then 8 bytes of the next buffer (not executable).
  fault_case("code past its mapping", [&](Blocks& b) { fragment_program(b, hostile_, 16, 4096 - 8); },
             CpFaultCause::kDrawFault, "is not mapped executable");
  fault_case("code not executable",
             [&](Blocks& b) { fragment_program(b, hostile_, 8), b.shader[blk::SHADER_STATE::FRAGMENT_CODE_VA_LO] =
                                                                    uint32_t(hostile_.vertices_va); },
             CpFaultCause::kDrawFault, "is not mapped executable");
  const std::vector<uint32_t> no_end = assemble("v_export_f32 1.0, 3\n");
  ASSERT_TRUE(hostile_.device->mmu().write(hostile_.code_va, no_end.data(), no_end.size() * 4));
  fault_case("runs off its code", [&](Blocks& b) { fragment_program(b, hostile_, uint32_t(no_end.size() * 4)); },
             CpFaultCause::kDrawFault, "ran past the end of the kernel's code");
}

TEST_F(DrawHostile, RenderTargetPastTheEndOfItsMemoryFaults) {
  namespace P = blk::PIPE_STATE;
  fault_case("one row more",
             [](Blocks& b) {
               b.pipe[P::TARGET_SIZE] = hw::put_field(kSize, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                                        hw::put_field(kSize + 1, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
             },
             CpFaultCause::kDrawFault, "colour target is not mapped readable and writable in full");
  fault_case("pitch", [](Blocks& b) { b.pipe[P::COLOR_PITCH] = kSize * 4 + 4; }, CpFaultCause::kDrawFault,
             "colour target is not mapped readable and writable in full");
  fault_case("float format", [](Blocks& b) { b.pipe[P::COLOR_FORMAT] = 109; }, CpFaultCause::kDrawFault,
             "colour target row pitch 128 is less than a row of 512 bytes");
  // A forged sample count makes the target's rows 4 samples wide: the pitch, then the mapping, refuse.
  fault_case("samples for the pitch", [](Blocks& b) { b.pipe[P::MULTISAMPLE] = 2; }, CpFaultCause::kDrawFault,
             "colour target row pitch 128 is less than a row of 512 bytes");
  fault_case("samples for the mapping",
             [](Blocks& b) {
               b.pipe[P::MULTISAMPLE] = 2;
               b.pipe[P::COLOR_PITCH] = kSize * 16;
             },
             CpFaultCause::kDrawFault, "colour target is not mapped readable and writable in full");
  fault_case("depth",
             [](Blocks& b) {
               b.pipe[P::DEPTH_FORMAT] = 126;
               b.pipe[P::DEPTH_VA_LO] = uint32_t(kTargetVa + 4);
               b.pipe[P::DEPTH_PITCH] = kSize * 4;
             },
             CpFaultCause::kDrawFault, "depth target is not mapped readable and writable in full");
  // D32_SFLOAT_S8_UINT's pixels are 8 bytes: a D32 pitch is too short, and a 32 x 32 target of them
  // needs twice the 4096 bytes mapped there.
  fault_case("D32S8 pitch",
             [](Blocks& b) {
               b.pipe[P::DEPTH_FORMAT] = 130;
               b.pipe[P::DEPTH_VA_LO] = uint32_t(kTargetVa);
               b.pipe[P::DEPTH_PITCH] = kSize * 4;
             },
             CpFaultCause::kDrawFault, "depth target row pitch 128 is less than a row of 256 bytes");
  fault_case("D32S8 mapping",
             [](Blocks& b) {
               b.pipe[P::DEPTH_FORMAT] = 130;
               b.pipe[P::DEPTH_VA_LO] = uint32_t(kTargetVa);
               b.pipe[P::DEPTH_PITCH] = kSize * 8;
             },
             CpFaultCause::kDrawFault, "depth target is not mapped readable and writable in full");
}

// DeviceConfig::draw_limits bounds what one draw may cost; each limit is its own fault.
TEST_F(DrawHostile, TheDevicesDrawLimitsEndADrawThatAsksForMore) {
  DeviceConfig c = config();
  c.draw_limits.vertex_invocations = 3;
  c.draw_limits.fragments = 100;
  c.draw_limits.draw_instructions = 1000;
  Context small(c);
  Blocks b = good_blocks(small);
  EXPECT_FALSE(draw(small, b));
  EXPECT_NE(fault_text(*small.device).find("draw of 4 x 1 vertices exceeds the limit of 3 per draw"),
            std::string::npos)
      << fault_text(*small.device);
  small.device->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
  small.ring = std::make_unique<RingWriter>(*small.device, small.ring_va, 4096);
  b.draw_info[blk::DRAW_INFO::COUNT] = 3;
  EXPECT_FALSE(draw(small, b));
  EXPECT_NE(fault_text(*small.device).find("exceeds the fragment budget of 100"), std::string::npos)
      << fault_text(*small.device);
  // A counted loop of 400 iterations in every fragment warp (the corner's 3 quads make 2 warps of
  // 8 lanes): each warp stays under its own watchdog, the draw's warps together pass 1000.
  const std::vector<uint32_t> loop =
      assemble("s_mov_b32 s0, 400\nloop:\ns_sub_u32 s0, s0, 1\ns_cbranch_nz s0, loop\nv_export_f32 1.0, 0\ns_end\n");
  ASSERT_TRUE(small.device->mmu().write(small.code_va, loop.data(), loop.size() * 4));
  small.device->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
  small.ring = std::make_unique<RingWriter>(*small.device, small.ring_va, 4096);
  b.vertices = {-1, -1, 0, 1, -0.75f, -1, 0, 1, -1, -0.75f, 0, 1};  // a small corner: under 100 fragments
  fragment_program(b, small, uint32_t(loop.size() * 4));
  b.shader[blk::SHADER_STATE::REGISTERS] |= 1;  // one scalar register
  EXPECT_FALSE(draw(small, b));
  EXPECT_NE(fault_text(*small.device).find("budget of 1000 instructions"), std::string::npos)
      << fault_text(*small.device);
}

// The embedding program's cancel (its time budget or a reset: the flag the shader cores watch) stops a
// draw between triangles. Before, it stopped only programs: a draw of millions of fixed-function
// slivers across a large target ran for many minutes whatever the time budget.
TEST(DrawCancel, ACancelStopsAFixedFunctionDrawAndTheNextDrawRuns) {
  std::atomic<bool> cancel{false};
  const DeviceConfig c = config();
  Context ctx(c, make_shader_backend(ShaderCoreSettings{c.shader_cores, c.warp_width, 1, &cancel}));
  ASSERT_TRUE(draw(ctx, good_blocks(ctx)));
  cancel = true;
  EXPECT_FALSE(draw(ctx, good_blocks(ctx)));
  ASSERT_TRUE(ctx.device->cp_fault());
  EXPECT_EQ(ctx.device->cp_fault()->cause, CpFaultCause::kDrawFault);
  EXPECT_NE(fault_text(*ctx.device).find("draw cancelled by the embedding program"), std::string::npos)
      << fault_text(*ctx.device);
  EXPECT_EQ(ctx.device->command_processor().last_draw()->result.counters.merge.fragments_written, 0u);
  cancel = false;
  ctx.device->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
  ctx.ring = std::make_unique<RingWriter>(*ctx.device, ctx.ring_va, 4096);
  ASSERT_TRUE(draw(ctx, good_blocks(ctx))) << fault_text(*ctx.device);
  EXPECT_EQ(ctx.pixel(5, 5), kGreen);
}

TEST(DrawLimitsConfig, ZeroLimitsAreRefused) {
  DeviceConfig c = test::small_config();
  c.draw_limits.fragments = 0;
  std::string error;
  EXPECT_FALSE(Device::create(c, &error));
  EXPECT_NE(error.find("draw_limits must not be 0"), std::string::npos) << error;
}

}  // namespace
}  // namespace gsgpu
