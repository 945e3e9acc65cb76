// DRAW_BYTE_COUNT (vkCmdDrawIndirectByteCountEXT on the device; docs/graphics.md "Drawing what was
// captured"): the vertex count is (counter - COUNTER_OFFSET) / VERTEX_STRIDE with the counter read
// from memory when the packet runs; a stride of 0 or over 2048, an unaligned or unmapped counter, an
// indexed DRAW_INFO and counts the device cannot draw are faults naming the reason, after which the
// device draws again and nothing else changed (the DrawHostile fixture's checks).
#include <gtest/gtest.h>

#include <vector>

#include "draw_hostile_fixture.h"

namespace gsgpu {
namespace {

using namespace draw_hostile;
namespace blk = hw::blk;

struct ByteCountDraw {
  uint32_t counter = 64;  // the good strip's four 16-byte vertices
  uint64_t counter_va = 0;  // 0: the context's state_va + 1024
  uint32_t counter_offset = 0, vertex_stride = 16;
};

// Runs the good blocks (DRAW_INFO COUNT 0: drawn only as the counter says) as a DRAW_BYTE_COUNT on a
// cleared target after `edit`; true when the CP is idle.
bool run_byte_count(Context& c, const ByteCountDraw& k, const std::function<void(Blocks&)>& edit = {}) {
  EXPECT_TRUE(c.device->mmu().write(c.state_va + 1024, &k.counter, 4));
  const std::vector<uint32_t> zero(kSize * kSize, 0);
  EXPECT_TRUE(c.device->mmu().write(kTargetVa, zero.data(), zero.size() * 4));
  Blocks b = good_blocks(c);
  b.draw_info[blk::DRAW_INFO::COUNT] = 0;
  if (edit) edit(b);
  const uint64_t va = k.counter_va != 0 ? k.counter_va : c.state_va + 1024;
  return draw_packet(c, b, [&](uint64_t info, uint64_t pipe, uint64_t shader) {
    return hw::encode_draw_byte_count(info, pipe, shader, va, k.counter_offset, k.vertex_stride);
  });
}

TEST_F(DrawHostile, DrawByteCountDrawsTheVerticesItsCounterSays) {
  Context& c = hostile_;
  ASSERT_TRUE(run_byte_count(c, {}));  // 64 / 16: the whole strip
  EXPECT_EQ(c.pixel(0, 0), kGreen);
  EXPECT_EQ(c.pixel(31, 31), kGreen);
  ASSERT_TRUE(run_byte_count(c, {.counter = 100, .counter_offset = 36}));  // (100 - 36) / 16 = 4
  EXPECT_EQ(c.pixel(31, 31), kGreen);
  ASSERT_TRUE(run_byte_count(c, {.counter = 63}));  // 3 vertices: the first triangle only
  EXPECT_EQ(c.pixel(0, 0), kGreen);
  EXPECT_EQ(c.pixel(31, 31), 0u);
  ASSERT_TRUE(run_byte_count(c, {.counter = 20, .counter_offset = 36}));  // below the offset: nothing
  EXPECT_EQ(c.pixel(0, 0), 0u);
  expect_survives();
}

TEST_F(DrawHostile, DrawByteCountRefusesStridesCountersAndCountsItCannotDraw) {
  namespace D = blk::DRAW_INFO;
  Context& c = hostile_;
  struct Case {
    const char* name;
    ByteCountDraw draw;
    std::function<void(Blocks&)> edit;
    CpFaultCause cause;
    const char* reason;
  };
  const CpFaultCause bad = CpFaultCause::kBadField;
  const Case cases[] = {
      {"stride 0", {.vertex_stride = 0}, {}, bad, "VERTEX_STRIDE outside 1-2048"},
      {"stride 2052", {.vertex_stride = 2052}, {}, bad, "VERTEX_STRIDE outside 1-2048"},
      {"unaligned", {.counter_va = c.state_va + 1026}, {}, bad, "COUNTER_VA not 4-byte aligned"},
      {"unmapped", {.counter_va = kTargetVa + 4096}, {}, CpFaultCause::kMemoryFault, "the counter is not mapped readable"},
      {"indexed", {}, [](Blocks& b) { b.draw_info[D::FLAGS] |= D::FLAGS_INDEXED_MASK; }, bad, "DRAW_INFO.INDEXED is set"},
      {"too many", {.counter = 0xFFFFFFFFu, .vertex_stride = 1}, {}, bad, "over the vertex limit"},
      {"instances", {}, [](Blocks& b) { b.draw_info[D::INSTANCE_COUNT] = 0xFFFFFFFFu; }, bad, "over the vertex limit"},
      {"vertex wrap", {}, [](Blocks& b) { b.draw_info[D::FIRST_VERTEX] = 0xFFFFFFFEu; }, bad,
       "FIRST_VERTEX + COUNT - 1 past 32 bits"},
      {"instance wrap", {}, [](Blocks& b) {
         b.draw_info[D::INSTANCE_COUNT] = 2;
         b.draw_info[D::FIRST_INSTANCE] = ~0u;
       },
       bad, "FIRST_INSTANCE + INSTANCE_COUNT - 1 past 32 bits"},
      {"fetch", {.counter = 80}, {}, CpFaultCause::kDrawFault, "vertex fetch past the buffer"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const size_t before = log_.count(k.reason);
    EXPECT_FALSE(run_byte_count(c, k.draw, k.edit));
    Device& d = *c.device;
    ASSERT_TRUE(d.cp_fault());
    EXPECT_EQ(d.cp_fault()->cause, k.cause) << d.cp_fault()->message;
    EXPECT_NE(d.cp_fault()->message.find(k.reason), std::string::npos) << d.cp_fault()->message;
    namespace F = hw::field::CP_FAULT_INFO;
    EXPECT_EQ(hw::get_field(d.read_register(hw::reg::CP_FAULT_INFO), F::OPCODE_MASK, F::OPCODE_SHIFT),
              hw::pkt::DRAW_BYTE_COUNT::OPCODE);
    EXPECT_EQ(log_.count(k.reason), before + 1) << log_.all();
    if (k.cause != CpFaultCause::kDrawFault) EXPECT_EQ(c.pixel(16, 16), 0u);  // refused before drawing
    expect_survives();
  }
}

}  // namespace
}  // namespace gsgpu
