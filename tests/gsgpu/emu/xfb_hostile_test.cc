// Transform feedback on the device (SHADER_STATE XFB_VA; docs/graphics.md "Transform feedback"),
// through the ring and the command processor: a strip's triangles written in order, the write
// offset kept in memory, the first primitive that does not fit (and every one after it) not
// written while both counters count, separate buffers, rasterizer discard; then the hostile
// blocks (misaligned or unreadable XFB_STATE, bad strides, outputs outside their slots or stride,
// unmapped buffers and offset words, a write past the mapping), each a reported fault after which
// the device draws again and nothing else changed (the DrawHostile fixture's checks).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "draw_hostile_fixture.h"

namespace gsgpu {
namespace {

using namespace draw_hostile;
namespace blk = hw::blk;
namespace X = blk::XFB_STATE;
namespace XB = blk::XFB_BUFFER;
namespace XO = blk::XFB_OUTPUT;

// Where the transform-feedback blocks go in the context's state page (the draw's blocks use the
// first 848 bytes): XFB_STATE, its four XFB_BUFFER records, the XFB_OUTPUT words, the offset words
// and the captured bytes.
constexpr uint64_t kXfbAt = 1024, kOutputsAt = 1280, kOffsetsAt = 1536, kDataAt = 2048;

uint32_t output(uint32_t slot, uint32_t components, uint32_t buffer, uint32_t offset) {
  return hw::put_field(slot, XO::OUTPUT_SLOT_MASK, XO::OUTPUT_SLOT_SHIFT) |
         hw::put_field(components, XO::OUTPUT_COMPONENTS_MASK, XO::OUTPUT_COMPONENTS_SHIFT) |
         hw::put_field(buffer, XO::OUTPUT_BUFFER_MASK, XO::OUTPUT_BUFFER_SHIFT) |
         hw::put_field(offset, XO::OUTPUT_OFFSET_MASK, XO::OUTPUT_OFFSET_SHIFT);
}

// The transform-feedback words of a draw: XFB_STATE and its buffer records (40 dwords), outputs.
struct XfbBlocks {
  std::vector<uint32_t> state = std::vector<uint32_t>(X::SIZE_DWORDS + 4 * XB::SIZE_DWORDS, 0);
  std::vector<uint32_t> outputs;
  uint32_t* buffer(uint32_t b) { return state.data() + X::SIZE_DWORDS + b * XB::SIZE_DWORDS; }
};

// Buffer `b` at `va`, `size` bytes, `stride`, its offset word at kOffsetsAt + 4 b.
void set_buffer(const Context& c, XfbBlocks& x, uint32_t b, uint64_t va, uint32_t size, uint32_t stride) {
  uint32_t* r = x.buffer(b);
  r[XB::VA_LO] = uint32_t(va);
  r[XB::VA_HI] = uint32_t(va >> 32);
  r[XB::SIZE] = size;
  r[XB::STRIDE] = stride;
  r[XB::OFFSET_VA_LO] = uint32_t(c.state_va + kOffsetsAt + 4 * b);
}

// Positions (xyzw) into buffer 0, 16 bytes a vertex, 2048 bytes at kDataAt.
XfbBlocks positions(const Context& c) {
  XfbBlocks x;
  set_buffer(c, x, 0, c.state_va + kDataAt, 2048, 16);
  x.outputs = {output(0, 4, 0, 0)};
  return x;
}

// Writes the blocks, the offset words, 0xEE over the captured bytes, and points SHADER_STATE at
// them.
void install(Context& c, Blocks& b, XfbBlocks x, std::vector<uint32_t> offsets = {0, 0, 0, 0}) {
  x.state[X::OUTPUTS] = hw::put_field(uint32_t(x.outputs.size()), X::OUTPUTS_COUNT_MASK, X::OUTPUTS_COUNT_SHIFT);
  if (!x.outputs.empty()) x.state[X::OUTPUTS_VA_LO] = uint32_t(c.state_va + kOutputsAt);
  Mmu& m = c.device->mmu();
  EXPECT_TRUE(m.write(c.state_va + kXfbAt, x.state.data(), x.state.size() * 4));
  if (!x.outputs.empty()) {
    EXPECT_TRUE(m.write(c.state_va + kOutputsAt, x.outputs.data(), x.outputs.size() * 4));
  }
  EXPECT_TRUE(m.write(c.state_va + kOffsetsAt, offsets.data(), 16));
  const std::vector<uint8_t> fill(2048, 0xEE);
  EXPECT_TRUE(m.write(c.state_va + kDataAt, fill.data(), fill.size()));
  b.shader[blk::SHADER_STATE::XFB_VA_LO] = uint32_t(c.state_va + kXfbAt);
  b.shader[blk::SHADER_STATE::XFB_VA_HI] = uint32_t((c.state_va + kXfbAt) >> 32);
}

std::vector<float> read_floats(const Context& c, uint64_t va, size_t count) {
  std::vector<float> v(count);
  EXPECT_TRUE(c.device->mmu().read(va, v.data(), count * 4));
  return v;
}
uint32_t read_word(const Context& c, uint64_t va) {
  uint32_t w = 0;
  EXPECT_TRUE(c.device->mmu().read(va, &w, 4));
  return w;
}
uint64_t reg64(Device& d, uint32_t lo, uint32_t hi) {
  return uint64_t{d.read_register(lo)} | uint64_t{d.read_register(hi)} << 32;
}

// The strip's vertices v0 (-1,-1) v1 (1,-1) v2 (-1,1) v3 (1,1): triangles (v0, v1, v2) and, Vulkan's
// order for an odd strip triangle, (v1, v3, v2).
const std::vector<float> kStripTriangles = {-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1,
                                            1,  -1, 0, 1, 1, 1,  0, 1, -1, 1, 0, 1};

TEST_F(DrawHostile, TransformFeedbackWritesAStripsTrianglesInOrderAndKeepsTheOffset) {
  Context& c = hostile_;
  Blocks b = good_blocks(c);
  install(c, b, positions(c));
  ASSERT_TRUE(draw(c, b)) << fault_text(*c.device);
  EXPECT_EQ(read_floats(c, c.state_va + kDataAt, 24), kStripTriangles);
  EXPECT_EQ(read_word(c, c.state_va + kDataAt + 96), 0xEEEEEEEEu);  // nothing past the two triangles
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt), 96u);
  EXPECT_EQ(c.pixel(5, 5), kGreen);  // and the strip is drawn
  Device& d = *c.device;
  EXPECT_EQ(reg64(d, hw::reg::XFB_WRITTEN_LO, hw::reg::XFB_WRITTEN_HI), 2u);
  EXPECT_EQ(reg64(d, hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI), 2u);
  // A REPORT writes the counters as queries read them.
  std::string error;
  namespace R = hw::pkt::REPORT;
  ASSERT_TRUE(c.ring->write(hw::encode_report(R::FLAGS_COUNTER_XFB_WRITTEN, c.state_va + 3072), &error)) << error;
  ASSERT_TRUE(c.ring->write(hw::encode_report(R::FLAGS_COUNTER_XFB_NEEDED, c.state_va + 3080), &error)) << error;
  c.ring->kick();
  c.device->run_until_idle();
  uint64_t counters[2] = {};
  ASSERT_TRUE(c.device->mmu().read(c.state_va + 3072, counters, 16));
  EXPECT_EQ(counters[0], 2u);
  EXPECT_EQ(counters[1], 2u);
}

TEST_F(DrawHostile, TransformFeedbackStopsAtTheFirstPrimitiveThatDoesNotFitAndCountsItNeeded) {
  Context& c = hostile_;
  Blocks b = good_blocks(c);
  XfbBlocks x = positions(c);
  x.buffer(0)[XB::SIZE] = 80;  // from offset 16: room for one triangle (48 bytes), not two
  install(c, b, x, {16, 0, 0, 0});
  ASSERT_TRUE(draw(c, b)) << fault_text(*c.device);
  EXPECT_EQ(read_word(c, c.state_va + kDataAt), 0xEEEEEEEEu);  // before the offset
  const std::vector<float> first(kStripTriangles.begin(), kStripTriangles.begin() + 12);
  EXPECT_EQ(read_floats(c, c.state_va + kDataAt + 16, 12), first);
  EXPECT_EQ(read_word(c, c.state_va + kDataAt + 64), 0xEEEEEEEEu);  // the second did not fit
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt), 64u);
  EXPECT_EQ(reg64(*c.device, hw::reg::XFB_WRITTEN_LO, hw::reg::XFB_WRITTEN_HI), 1u);
  EXPECT_EQ(reg64(*c.device, hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI), 2u);
  // An offset past the size writes nothing at all (no wrap-around).
  install(c, b, x, {0xFFFFFFF0u, 0, 0, 0});
  ASSERT_TRUE(draw(c, b)) << fault_text(*c.device);
  EXPECT_EQ(read_word(c, c.state_va + kDataAt), 0xEEEEEEEEu);
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt), 0xFFFFFFF0u);
  EXPECT_EQ(reg64(*c.device, hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI), 4u);
}

TEST_F(DrawHostile, TransformFeedbackWritesSeparateBuffersAndRasterizerDiscardDrawsNothing) {
  Context& c = hostile_;
  Blocks b = good_blocks(c);
  b.pipe[blk::PIPE_STATE::RASTER] |= blk::PIPE_STATE::RASTER_DISCARD_MASK;
  XfbBlocks x;
  set_buffer(c, x, 0, c.state_va + kDataAt, 1024, 8);          // x, y
  set_buffer(c, x, 2, c.state_va + kDataAt + 1024, 1024, 12);  // z, w at byte 4 of 12
  x.outputs = {output(0, 2, 0, 0), output(2, 2, 2, 4)};
  install(c, b, x);
  const std::vector<uint32_t> clear(kSize * kSize, 0);
  ASSERT_TRUE(c.device->mmu().write(kTargetVa, clear.data(), clear.size() * 4));
  ASSERT_TRUE(draw(c, b)) << fault_text(*c.device);
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t px = 0; px < kSize; ++px) ASSERT_EQ(c.pixel(px, y), 0u) << px << "," << y;
  std::vector<float> xy, zw;
  for (size_t v = 0; v < 6; ++v) {
    xy.insert(xy.end(), {kStripTriangles[4 * v], kStripTriangles[4 * v + 1]});
    zw.insert(zw.end(), {kStripTriangles[4 * v + 2], kStripTriangles[4 * v + 3]});
  }
  EXPECT_EQ(read_floats(c, c.state_va + kDataAt, 12), xy);
  for (size_t v = 0; v < 6; ++v) {
    EXPECT_EQ(read_word(c, c.state_va + kDataAt + 1024 + 12 * v), 0xEEEEEEEEu) << v;  // bytes 0..3 untouched
    EXPECT_EQ(read_floats(c, c.state_va + kDataAt + 1024 + 12 * v + 4, 2),
              std::vector<float>(zw.begin() + 2 * v, zw.begin() + 2 * v + 2));
  }
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt), 48u);
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt + 4), 0u);  // buffer 1 is not written
  EXPECT_EQ(read_word(c, c.state_va + kOffsetsAt + 8), 72u);
}

TEST_F(DrawHostile, HostileTransformFeedbackBlocksAreReportedFaults) {
  Context& c = hostile_;
  const CpFaultCause bad = CpFaultCause::kBadField, memory = CpFaultCause::kMemoryFault,
                     drawn = CpFaultCause::kDrawFault;
  // Each case installs good blocks, then breaks one thing.
  auto with = [&c](std::function<void(XfbBlocks&)> change, uint64_t xfb_va = 0) {
    return [&c, change, xfb_va](Blocks& b) {
      XfbBlocks x = positions(c);
      change(x);
      install(c, b, x);
      if (xfb_va != 0) {
        b.shader[blk::SHADER_STATE::XFB_VA_LO] = uint32_t(xfb_va);
        b.shader[blk::SHADER_STATE::XFB_VA_HI] = uint32_t(xfb_va >> 32);
      }
    };
  };
  auto none = [](XfbBlocks&) {};
  fault_case("misaligned block", with(none, c.state_va + kXfbAt + 4), memory, "XFB_STATE: address");
  fault_case("unreadable block", with(none, 0x7fff0000000), memory, "XFB_STATE: 0x7fff0000000 (32 bytes) is not readable");
  fault_case("stride", with([](XfbBlocks& x) { x.buffer(0)[XB::STRIDE] = 6; }), bad,
             "[0].STRIDE 6 is not a multiple of 4 in 4 .. 2048");
  fault_case("stride too large", with([](XfbBlocks& x) { x.buffer(0)[XB::STRIDE] = 2052; }), bad,
             "[0].STRIDE 2052 is not a multiple of 4");
  fault_case("unused buffer with an address", with([](XfbBlocks& x) { x.buffer(3)[XB::VA_LO] = 64; }), bad,
             "[3].VA, SIZE and OFFSET_VA must be 0 when STRIDE is 0");
  fault_case("reserved", with([](XfbBlocks& x) { x.state[X::RESERVED_5] = 1; }), bad, "RESERVED_5 has undefined bits");
  fault_case("slot", with([](XfbBlocks& x) { x.outputs = {output(76, 2, 0, 0)}; }), bad,
             "SLOT 76 + COMPONENTS 2 outside slots 0 .. 76");
  fault_case("no components", with([](XfbBlocks& x) { x.outputs = {output(0, 0, 0, 0)}; }), bad, "COMPONENTS 0");
  fault_case("buffer without stride", with([](XfbBlocks& x) { x.outputs = {output(0, 4, 1, 0)}; }), bad,
             "BUFFER 1 has STRIDE 0");
  fault_case("offset past the stride", with([](XfbBlocks& x) { x.outputs = {output(0, 2, 0, 12)}; }), bad,
             "OFFSET 12 is not a multiple of 4 inside the stride 16");
  fault_case("output bits", with([](XfbBlocks& x) { x.outputs = {output(0, 4, 0, 0) | 1u << 31}; }), bad,
             "[0].OUTPUT has undefined bits set");
  // The pass-through stage of one attribute writes no varying: slot 4 holds nothing to capture.
  fault_case("unwritten varying", with([](XfbBlocks& x) { x.outputs = {output(4, 1, 0, 0)}; }), drawn,
             "transform feedback output 0 captures slot 4, a varying the vertex stage does not write (it writes 0)");
  fault_case("too many outputs", with([](XfbBlocks& x) { x.outputs.assign(65, output(0, 1, 0, 0)); }), bad,
             "OUTPUTS.COUNT is 65, above 64");
  fault_case("unmapped buffer", with([](XfbBlocks& x) { x.buffer(0)[XB::VA_LO] = 0; x.buffer(0)[XB::VA_HI] = 0x7ff; }),
             drawn, "transform feedback buffer 0: 16 bytes at 0x7ff00000000 are not mapped writable");
  fault_case("buffer at the top of the address space",
             with([](XfbBlocks& x) { x.buffer(0)[XB::VA_LO] = 0xFFFFFFF8u; x.buffer(0)[XB::VA_HI] = 0xFFFFFFFFu; }),
             drawn, "transform feedback buffer 0: 16 bytes at 0xfffffffffffffff8 are not mapped writable");
  fault_case("unmapped offset word", with([](XfbBlocks& x) { x.buffer(0)[XB::OFFSET_VA_HI] = 0x7ff; }), drawn,
             "offset word at 0x7ff");
  fault_case("misaligned offset word", with([](XfbBlocks& x) { x.buffer(0)[XB::OFFSET_VA_LO] += 2; }), bad,
             "[0].OFFSET_VA is not 4-byte aligned");
  // A buffer whose size runs past its mapping: the write that leaves the mapping faults (the
  // target's page, with an unmapped page after it; expect_survives draws the target again).
  fault_case("write past the mapping",
             with([](XfbBlocks& x) {
               x.buffer(0)[XB::VA_LO] = uint32_t(kTargetVa + 4096 - 32);
               x.buffer(0)[XB::VA_HI] = 0;
               x.buffer(0)[XB::SIZE] = 4096;
             }),
             drawn, "transform feedback buffer 0: 16 bytes at 0x801000 are not mapped writable");
}

}  // namespace
}  // namespace gsgpu
