// The DRAW packet on the device: state blocks in GPU memory decoded and checked by the command
// processor, the graphics blocks rendering into a target in GPU memory, the dump, and the faults that
// every kind of hostile state gets (the device stays usable after each).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <vector>

#include "gsgpu/isa/assembler.h"
#include "protocol/gsgpu/packets.h"
#include "test_util.h"

namespace gsgpu {
namespace {

namespace blk = hw::blk;
using test::must_buffer;

uint32_t f32(float v) { return std::bit_cast<uint32_t>(v); }

// A 32 x 32 R8G8B8A8 target, a full-screen triangle strip of 4 R32G32B32A32_SFLOAT positions.
struct DrawBlocks {
  std::vector<uint32_t> draw_info = std::vector<uint32_t>(blk::DRAW_INFO::SIZE_DWORDS, 0);
  std::vector<uint32_t> binding = std::vector<uint32_t>(blk::VERTEX_BINDING::SIZE_DWORDS, 0);
  std::vector<uint32_t> attribute = std::vector<uint32_t>(blk::VERTEX_ATTRIBUTE::SIZE_DWORDS, 0);
  std::vector<uint32_t> pipe = std::vector<uint32_t>(blk::PIPE_STATE::SIZE_DWORDS, 0);
  std::vector<uint32_t> shader = std::vector<uint32_t>(blk::SHADER_STATE::SIZE_DWORDS, 0);
  std::vector<uint32_t> color_targets;  // COLOR_TARGET records, written at +1024 when present
};

// Colour targets 1.. as COLOR_TARGET records: PIPE_STATE COLOR_TARGETS.COUNT = `records`; draw()
// points COLOR_TARGETS_VA at them unless a test set it.
std::vector<uint32_t>& more_targets(DrawBlocks& b, uint32_t records) {
  namespace P = blk::PIPE_STATE;
  b.pipe[P::COLOR_TARGETS] = hw::put_field(records, P::COLOR_TARGETS_COUNT_MASK, P::COLOR_TARGETS_COUNT_SHIFT);
  b.color_targets.assign(size_t{records} * blk::COLOR_TARGET::SIZE_DWORDS, 0);
  return b.color_targets;
}

class DrawTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = test::make_device(test::small_config(CpMode::kManual));
    ring_va_ = must_buffer(*device_, 4096);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
    state_va_ = must_buffer(*device_, 4096);
    vertices_va_ = must_buffer(*device_, 4096);
    target_va_ = must_buffer(*device_, 32 * 32 * 4);
    dump_va_ = must_buffer(*device_, 16384);
    const float quad[] = {-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1};
    ASSERT_TRUE(device_->mmu().write(vertices_va_, quad, sizeof quad));
    defaults();
  }

  void defaults() {
    namespace D = blk::DRAW_INFO;
    namespace P = blk::PIPE_STATE;
    namespace S = blk::SHADER_STATE;
    b_ = DrawBlocks{};
    b_.draw_info[D::FLAGS] = hw::put_field(4, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // strip
    b_.draw_info[D::COUNT] = 4;
    b_.draw_info[D::INSTANCE_COUNT] = 1;
    b_.draw_info[D::COUNTS] = hw::put_field(1, D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                              hw::put_field(1, D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
    b_.binding[blk::VERTEX_BINDING::VA_LO] = uint32_t(vertices_va_);
    b_.binding[blk::VERTEX_BINDING::VA_HI] = uint32_t(vertices_va_ >> 32);
    b_.binding[blk::VERTEX_BINDING::SIZE_LO] = 64;
    b_.binding[blk::VERTEX_BINDING::STRIDE] = 16;
    b_.binding[blk::VERTEX_BINDING::DIVISOR] = 1;
    b_.attribute[blk::VERTEX_ATTRIBUTE::FORMAT] = 109;
    b_.pipe[P::VIEWPORT_WIDTH] = f32(32);
    b_.pipe[P::VIEWPORT_HEIGHT] = f32(32);
    b_.pipe[P::VIEWPORT_MAX_DEPTH] = f32(1);
    b_.pipe[P::SCISSOR_WIDTH] = 32;
    b_.pipe[P::SCISSOR_HEIGHT] = 32;
    b_.pipe[P::TARGET_SIZE] = hw::put_field(32, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                              hw::put_field(32, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
    b_.pipe[P::COLOR_VA_LO] = uint32_t(target_va_);
    b_.pipe[P::COLOR_VA_HI] = uint32_t(target_va_ >> 32);
    b_.pipe[P::COLOR_PITCH] = 128;
    b_.pipe[P::COLOR_FORMAT] = 37;
    b_.pipe[P::RASTER] = P::RASTER_BBOX_TEST_MASK;
    b_.pipe[P::OUTPUT] = hw::put_field(0xF, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT);
    b_.shader[S::CONSTANT_R] = f32(0.0f);
    b_.shader[S::CONSTANT_G] = f32(1.0f);
    b_.shader[S::CONSTANT_B] = f32(0.5f);
    b_.shader[S::CONSTANT_A] = f32(1.0f);
  }

  // Writes the blocks (DRAW_INFO at +0, PIPE_STATE at +256, SHADER_STATE at +512, the binding at +768,
  // the attribute at +832) and submits DRAW then DUMP; returns whether the CP ended idle.
  bool draw() {
    namespace D = blk::DRAW_INFO;
    b_.draw_info[D::BINDINGS_VA_LO] = uint32_t(state_va_ + 768);
    b_.draw_info[D::BINDINGS_VA_HI] = uint32_t((state_va_ + 768) >> 32);
    if (b_.draw_info[D::ATTRIBUTES_VA_LO] == 0) {
      b_.draw_info[D::ATTRIBUTES_VA_LO] = uint32_t(state_va_ + 832);
      b_.draw_info[D::ATTRIBUTES_VA_HI] = uint32_t((state_va_ + 832) >> 32);
    }
    auto put = [&](uint64_t off, const std::vector<uint32_t>& w) {
      EXPECT_TRUE(device_->mmu().write(state_va_ + off, w.data(), w.size() * 4));
    };
    put(0, b_.draw_info);
    put(256, b_.pipe);
    put(512, b_.shader);
    put(768, b_.binding);
    put(832, b_.attribute);
    if (!b_.color_targets.empty()) {
      namespace P = blk::PIPE_STATE;
      if (b_.pipe[P::COLOR_TARGETS_VA_LO] == 0 && b_.pipe[P::COLOR_TARGETS_VA_HI] == 0) {
        b_.pipe[P::COLOR_TARGETS_VA_LO] = uint32_t(state_va_ + 1024);
        b_.pipe[P::COLOR_TARGETS_VA_HI] = uint32_t((state_va_ + 1024) >> 32);
        put(256, b_.pipe);
      }
      put(1024, b_.color_targets);
    }
    std::string error;
    EXPECT_TRUE(ring_->write(hw::encode_draw(state_va_ + draw_info_offset_, state_va_ + 256, state_va_ + 512), &error));
    EXPECT_TRUE(ring_->write(make_dump_packet(hw::pkt::DUMP::FLAGS_TO_BUFFER_MASK, dump_va_, 16384), &error));
    ring_->kick();
    device_->run_until_idle();
    return device_->command_processor().state() == CpState::kIdle;
  }

  uint32_t pixel(uint32_t x, uint32_t y) {
    uint32_t v = 0;
    EXPECT_TRUE(device_->mmu().read(target_va_ + y * 128 + x * 4, &v, 4));
    return v;
  }
  std::string dump() {
    std::vector<char> text(16384);
    EXPECT_TRUE(device_->mmu().read(dump_va_, text.data(), text.size()));
    return std::string(text.data());
  }
  void recover() {
    device_->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
    draw_info_offset_ = 0;
    defaults();
  }

  std::unique_ptr<Device> device_;
  std::unique_ptr<RingWriter> ring_;
  uint64_t ring_va_ = 0, state_va_ = 0, vertices_va_ = 0, target_va_ = 0, dump_va_ = 0;
  uint64_t draw_info_offset_ = 0;
  DrawBlocks b_;
};

TEST_F(DrawTest, RendersIntoATargetInGpuMemoryAndDumpsTheDraw) {
  ASSERT_TRUE(draw()) << (device_->command_processor().fault() ? device_->command_processor().fault()->message : "");
  for (uint32_t y = 0; y < 32; ++y)
    for (uint32_t x = 0; x < 32; ++x) ASSERT_EQ(pixel(x, y), 0xFF80FF00u) << x << "," << y;  // A B G R bytes
  auto record = device_->command_processor().last_draw();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->result.counters.merge.fragments_written, 1024u);
  EXPECT_EQ(device_->command_processor().counters().draws, 1u);
  std::string text = dump();
  EXPECT_NE(text.find("DRAW #1"), std::string::npos) << text;
  EXPECT_NE(text.find("fragments written         1024"), std::string::npos) << text;
  EXPECT_NE(text.find("result: ok"), std::string::npos);
}

TEST_F(DrawTest, ScissorAndVaryingColoursComeFromTheBlocks) {
  namespace P = blk::PIPE_STATE;
  b_.pipe[P::SCISSOR_X] = 8;
  b_.pipe[P::SCISSOR_WIDTH] = 8;
  b_.pipe[P::SCISSOR_Y] = uint32_t(-100);    // negative offset, clamped
  b_.pipe[P::SCISSOR_HEIGHT] = 0xFFFFFFFFu;  // offset + extent beyond 2^31 does not wrap
  ASSERT_TRUE(draw());
  EXPECT_EQ(pixel(7, 5), 0u);
  EXPECT_EQ(pixel(8, 5), 0xFF80FF00u);
  EXPECT_EQ(pixel(15, 31), 0xFF80FF00u);
  EXPECT_EQ(pixel(16, 5), 0u);
}

// A point list through the ring: PIPE_STATE POINT_SIZE gives the squares' side (clamped to 64 when
// a guest asks for more), and the DUMP text carries the counters as JSON too.
TEST_F(DrawTest, PointListsTakeThePointSizeFromPipeStateAndDumpCountersAsJson) {
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  b_.draw_info[D::FLAGS] = hw::put_field(0, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // point list
  b_.draw_info[D::COUNT] = 1;  // the first vertex: clip (-1, -1), on the target's corner
  b_.pipe[P::POINT_SIZE] = f32(8);
  ASSERT_TRUE(draw()) << (device_->command_processor().fault() ? device_->command_processor().fault()->message : "");
  // The square [-4, 4) x [-4, 4) around (0, 0): its 4 x 4 pixels inside the target.
  EXPECT_EQ(pixel(3, 3), 0xFF80FF00u);
  EXPECT_EQ(pixel(4, 3), 0u);
  EXPECT_EQ(pixel(3, 4), 0u);
  std::string text = dump();
  EXPECT_NE(text.find("point size      8 (drawn 8)"), std::string::npos) << text;
  EXPECT_NE(text.find("counters json: {\"vertices\": 1, \"primitives\": 1,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"written\": 16,"), std::string::npos) << text;
  recover();
  b_.draw_info[D::FLAGS] = hw::put_field(0, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);
  b_.draw_info[D::COUNT] = 1;
  b_.pipe[P::POINT_SIZE] = f32(1e30f);  // hostile: clamped, not a 10^30-pixel square
  ASSERT_TRUE(draw());
  EXPECT_EQ(device_->command_processor().last_draw()->result.counters.merge.fragments_written, 32u * 32u);
  EXPECT_NE(dump().find("point size      1e+30 (drawn 64)"), std::string::npos) << dump();
}

// A line list through the ring: PIPE_STATE LINE_WIDTH gives the rectangle's width; a guest's 10^30
// and NaN are clamped to lineWidthRange (64 and 1) and shown in the dump, never a fault.
TEST_F(DrawTest, LineListsTakeTheWidthFromPipeStateAndClampHostileWidths) {
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  auto line_list = [&](uint32_t width_bits) {
    b_.draw_info[D::FLAGS] = hw::put_field(1, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);  // line list
    b_.draw_info[D::COUNT] = 2;  // (-1, -1) to (1, -1): along the target's top edge, y = 0
    b_.pipe[P::LINE_WIDTH] = width_bits;
  };
  auto written = [&] { return device_->command_processor().last_draw()->result.counters.merge.fragments_written; };
  line_list(f32(8));
  ASSERT_TRUE(draw()) << (device_->command_processor().fault() ? device_->command_processor().fault()->message : "");
  EXPECT_EQ(written(), 4u * 32);  // rows 0 .. 3 of the rectangle y in [-4, 4)
  EXPECT_NE(dump().find("width 8 (drawn 8)"), std::string::npos) << dump();
  recover();
  line_list(f32(1e30f));
  ASSERT_TRUE(draw());
  EXPECT_EQ(written(), 32u * 32);  // 64 wide: y in [-32, 32) covers the target
  EXPECT_NE(dump().find("width 1e+30 (drawn 64)"), std::string::npos) << dump();
  recover();
  line_list(0x7fc00000u);  // NaN
  ASSERT_TRUE(draw());
  EXPECT_LE(written(), 32u);  // 1 wide: at most row 0
  EXPECT_NE(dump().find("width nan (drawn 1)"), std::string::npos) << dump();
}

std::vector<uint32_t> assemble(const char* source) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(isa::assemble(source, &words, &error)) << error;
  return words;
}

// SHADER_STATE for a fragment program at `code_va` of `bytes` bytes (4 vector registers, no varyings).
void fragment_program(DrawBlocks& b, uint64_t code_va, uint32_t bytes) {
  namespace S = blk::SHADER_STATE;
  b.shader[S::FRAGMENT] = hw::put_field(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT);
  b.shader[S::REGISTERS] = hw::put_field(4, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
  b.shader[S::FRAGMENT_CODE_VA_LO] = uint32_t(code_va);
  b.shader[S::FRAGMENT_CODE_VA_HI] = uint32_t(code_va >> 32);
  b.shader[S::FRAGMENT_CODE_SIZE] = bytes;
  b.shader[S::FRAGMENT_ENTRY] = 0;
}

// A fragment program through the ring: the colour it exports lands in the target; an endless one
// ends in a draw fault naming the watchdog, and the device draws again after a reset.
TEST_F(DrawTest, FragmentProgramsRunOnTheShaderCoresAndAnEndlessOneFaults) {
  const uint64_t code_va = must_buffer(*device_, 4096, kPermAll);
  // The stand-in's default colour (0, 1, 0.5, 1), exported.
  const std::vector<uint32_t> code =
      assemble("v_export_f32 0.0, 0\nv_export_f32 1.0, 1\nv_export_f32 0.5, 2\nv_export_f32 1.0, 3\ns_end\n");
  ASSERT_TRUE(device_->mmu().write(code_va, code.data(), code.size() * 4));
  fragment_program(b_, code_va, uint32_t(code.size() * 4));
  ASSERT_TRUE(draw()) << device_->command_processor().fault()->message;
  EXPECT_EQ(pixel(3, 3), 0xFF80FF00u);
  EXPECT_EQ(pixel(31, 31), 0xFF80FF00u);
  EXPECT_NE(dump().find("fragment stage  program at va 0x"), std::string::npos) << dump();
  // loop: s_jump loop
  const std::vector<uint32_t> endless = assemble("loop:\ns_jump loop\n");
  ASSERT_TRUE(device_->mmu().write(code_va, endless.data(), endless.size() * 4));
  fragment_program(b_, code_va, uint32_t(endless.size() * 4));
  EXPECT_FALSE(draw());
  auto fault = device_->command_processor().fault();
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->cause, CpFaultCause::kDrawFault);
  EXPECT_NE(fault->message.find("watchdog"), std::string::npos) << fault->message;
  recover();
  ASSERT_TRUE(draw());
  EXPECT_EQ(pixel(3, 3), 0xFF80FF00u);
}

// Several colour targets: a fragment program's export slots 9..12 go to target 1 (a COLOR_TARGET
// record with its own blend state: ONE + ONE over the target's contents), target 2 is unused
// (FORMAT 0), and target 0 keeps PIPE_STATE's.
TEST_F(DrawTest, ColourTargetRecordsTakeTheirLocationsExportsWithTheirOwnBlend) {
  namespace C = blk::COLOR_TARGET;
  namespace P = blk::PIPE_STATE;
  const uint64_t code_va = must_buffer(*device_, 4096, kPermAll);
  const uint64_t target1_va = must_buffer(*device_, 32 * 32 * 4);
  const std::vector<uint32_t> fill(32 * 32, 0x20202020u);
  ASSERT_TRUE(device_->mmu().write(target1_va, fill.data(), fill.size() * 4));
  const std::vector<uint32_t> code = assemble(
      "v_export_f32 0.0, 0\nv_export_f32 1.0, 1\nv_export_f32 0.5, 2\nv_export_f32 1.0, 3\n"
      "v_export_f32 1.0, 9\nv_export_f32 0.0, 10\nv_export_f32 0.25, 11\nv_export_f32 0.5, 12\ns_end\n");
  ASSERT_TRUE(device_->mmu().write(code_va, code.data(), code.size() * 4));
  fragment_program(b_, code_va, uint32_t(code.size() * 4));
  std::vector<uint32_t>& r = more_targets(b_, 2);
  r[C::VA_LO] = uint32_t(target1_va);
  r[C::VA_HI] = uint32_t(target1_va >> 32);
  r[C::PITCH] = 128;
  r[C::FORMAT] = 37;
  r[C::BLEND] = P::BLEND_ENABLE_MASK | hw::put_field(1, P::BLEND_SRC_COLOR_MASK, P::BLEND_SRC_COLOR_SHIFT) |
                hw::put_field(1, P::BLEND_DST_COLOR_MASK, P::BLEND_DST_COLOR_SHIFT) |
                hw::put_field(1, P::BLEND_SRC_ALPHA_MASK, P::BLEND_SRC_ALPHA_SHIFT);  // alpha: ONE + ZERO
  r[C::WRITE_MASK] = 0xB;  // not blue
  ASSERT_TRUE(draw()) << device_->command_processor().fault()->message;
  EXPECT_EQ(pixel(3, 3), 0xFF80FF00u);  // target 0 as with one target
  uint32_t t1 = 0;
  ASSERT_TRUE(device_->mmu().read(target1_va + 5 * 128 + 7 * 4, &t1, 4));
  // R: 1 + 0x20 saturates; G: 0 + 0x20; B masked (0x20 kept); A: 0.5 -> 0x80.
  EXPECT_EQ(t1, 0x802020FFu);
  EXPECT_NE(dump().find("result: ok"), std::string::npos) << dump();
}

struct Hostile {
  const char* name;
  std::function<void(DrawBlocks&, uint64_t& draw_info_offset)> mutate;
  CpFaultCause cause;
  const char* message;  // part of the fault message
};

TEST_F(DrawTest, EveryHostileStateEndsInAFaultAndTheDeviceRecovers) {
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  namespace S = blk::SHADER_STATE;
  const std::vector<Hostile> cases = {
      {"topology", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::FLAGS] = 7; }, CpFaultCause::kBadField, "TOPOLOGY"},
      {"flags bits", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::FLAGS] |= 1u << 20; }, CpFaultCause::kBadField,
       "FLAGS"},
      {"reserved", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::RESERVED_15] = 1; }, CpFaultCause::kBadField,
       "RESERVED_15"},
      {"no attributes", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::COUNTS] = 1; }, CpFaultCause::kBadField,
       "ATTRIBUTE_COUNT"},
      {"too many bindings", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::COUNTS] = 0x117; }, CpFaultCause::kBadField,
       "BINDING_COUNT"},
      {"attribute binding", [](DrawBlocks& b, uint64_t&) { b.attribute[0] = 3; }, CpFaultCause::kBadField, "BINDING 3"},
      {"attribute format", [](DrawBlocks& b, uint64_t&) { b.attribute[1] = 43; }, CpFaultCause::kBadField, "FORMAT 43"},
      {"divisor", [](DrawBlocks& b, uint64_t&) { b.binding[blk::VERTEX_BINDING::DIVISOR] = 0; },
       CpFaultCause::kBadField, "DIVISOR"},
      {"attributes unmapped", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::ATTRIBUTES_VA_LO] = 0x40; },
       CpFaultCause::kMemoryFault, "not readable"},
      {"misaligned block", [](DrawBlocks&, uint64_t& off) { off = 4; }, CpFaultCause::kMemoryFault, "aligned"},
      {"target size", [](DrawBlocks& b, uint64_t&) { b.pipe[P::TARGET_SIZE] = 0; }, CpFaultCause::kBadField,
       "TARGET_SIZE"},
      {"colour format", [](DrawBlocks& b, uint64_t&) { b.pipe[P::COLOR_FORMAT] = 12345; }, CpFaultCause::kBadField,
       "COLOR_FORMAT"},
      {"viewport", [](DrawBlocks& b, uint64_t&) { b.pipe[P::VIEWPORT_WIDTH] = f32(std::nanf("")); },
       CpFaultCause::kBadField, "VIEWPORT"},
      {"blend factor", [](DrawBlocks& b, uint64_t&) { b.pipe[P::BLEND] = 19u << 1; }, CpFaultCause::kBadField, "BLEND"},
      {"vertex mode", [](DrawBlocks& b, uint64_t&) { b.shader[S::VERTEX] = 2; }, CpFaultCause::kBadField,
       "VERTEX.MODE is 2"},
      {"vertex program without code", [](DrawBlocks& b, uint64_t&) { b.shader[S::VERTEX] = 1; },
       CpFaultCause::kBadField, "VERTEX_CODE_SIZE 0"},
      {"pass-through outputs", [](DrawBlocks& b, uint64_t&) { b.shader[S::VERTEX] = 4u << 2; },
       CpFaultCause::kBadField, "VERTEX.OUTPUTS must be 0"},
      {"pass-through code", [](DrawBlocks& b, uint64_t&) { b.shader[S::VERTEX_ENTRY] = 4; }, CpFaultCause::kBadField,
       "must be 0 for the pass-through stage"},
      {"vertex outputs", [](DrawBlocks& b, uint64_t&) { b.shader[S::VERTEX] = 1 | 65u << 2; },
       CpFaultCause::kBadField, "VERTEX.OUTPUTS is 65"},
      {"vertex registers",
       [](DrawBlocks& b, uint64_t&) {
         b.shader[S::VERTEX] = 1;
         b.shader[S::VERTEX_CODE_VA_LO] = 0x40000;
         b.shader[S::VERTEX_CODE_SIZE] = 8;
       },
       CpFaultCause::kBadField, "VERTEX_REGISTERS.VECTOR 0"},
      {"vertex code unmapped",
       [](DrawBlocks& b, uint64_t&) {
         b.shader[S::VERTEX] = 1;
         b.shader[S::VERTEX_CODE_VA_LO] = 0x40;
         b.shader[S::VERTEX_CODE_SIZE] = 8;
         b.shader[S::VERTEX_REGISTERS] = 8u << 16;
       },
       CpFaultCause::kDrawFault, "vertex program code"},
      {"shader reserved", [](DrawBlocks& b, uint64_t&) { b.shader[S::RESERVED_29] = 1; }, CpFaultCause::kBadField,
       "RESERVED_29"},
      {"stand-in linear varyings", [](DrawBlocks& b, uint64_t&) { b.shader[S::LINEAR_VARYINGS_HI] = 1; },
       CpFaultCause::kBadField, "LINEAR_VARYINGS must be 0 for the fixed stand-ins"},
      {"constants size",
       [](DrawBlocks& b, uint64_t&) {
         fragment_program(b, 0x40000, 8), b.shader[S::CONSTANTS_VA_LO] = 0x40000, b.shader[S::CONSTANTS_SIZE] = 6;
       },
       CpFaultCause::kBadField, "CONSTANTS_SIZE 6"},
      {"constants too large",
       [](DrawBlocks& b, uint64_t&) {
         fragment_program(b, 0x40000, 8), b.shader[S::CONSTANTS_VA_LO] = 0x40000, b.shader[S::CONSTANTS_SIZE] = 65540;
       },
       CpFaultCause::kBadField, "CONSTANTS_SIZE 65540"},
      {"constants misaligned",
       [](DrawBlocks& b, uint64_t&) {
         fragment_program(b, 0x40000, 8), b.shader[S::CONSTANTS_VA_LO] = 0x40004, b.shader[S::CONSTANTS_SIZE] = 16;
       },
       CpFaultCause::kBadField, "16-byte aligned"},
      {"constants address without size",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::CONSTANTS_VA_LO] = 0x40000; },
       CpFaultCause::kBadField, "CONSTANTS_VA must be 0"},
      {"constants wrap",
       [](DrawBlocks& b, uint64_t&) {
         fragment_program(b, 0x40000, 8), b.shader[S::CONSTANTS_VA_LO] = 0xFFFFFFF0u;
         b.shader[S::CONSTANTS_VA_HI] = 0xFFFFFFFFu, b.shader[S::CONSTANTS_SIZE] = 32;
       },
       CpFaultCause::kBadField, "CONSTANTS_VA + CONSTANTS_SIZE overflows"},
      {"constants for the stand-ins",
       [](DrawBlocks& b, uint64_t&) { b.shader[S::CONSTANTS_VA_LO] = 0x40000, b.shader[S::CONSTANTS_SIZE] = 16; },
       CpFaultCause::kBadField, "neither stage is a program"},
      {"fragment mode", [](DrawBlocks& b, uint64_t&) { b.shader[S::FRAGMENT] = 3; }, CpFaultCause::kBadField,
       "FRAGMENT.MODE"},
      {"stand-in registers", [](DrawBlocks& b, uint64_t&) { b.shader[S::REGISTERS] = 5; }, CpFaultCause::kBadField,
       "REGISTERS must be 0"},
      {"stand-in code", [](DrawBlocks& b, uint64_t&) { b.shader[S::FRAGMENT_CODE_SIZE] = 8; },
       CpFaultCause::kBadField, "must be 0 for the fixed stand-ins"},
      {"stand-in varyings", [](DrawBlocks& b, uint64_t&) { b.shader[S::FRAGMENT] = 1u << 4; },
       CpFaultCause::kBadField, "VARYINGS must be 0"},
      {"stand-in unread FragCoord", [](DrawBlocks& b, uint64_t&) { b.shader[S::FRAGMENT] = S::FRAGMENT_NO_FRAGCOORD_MASK; },
       CpFaultCause::kBadField, "NO_FRAGCOORD and NO_FACING must be 0 for the fixed stand-ins"},
      {"stand-in unread facing", [](DrawBlocks& b, uint64_t&) { b.shader[S::FRAGMENT] = S::FRAGMENT_NO_FACING_MASK; },
       CpFaultCause::kBadField, "NO_FRAGCOORD and NO_FACING must be 0 for the fixed stand-ins"},
      {"fragment bits past NO_FACING", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::FRAGMENT] |= 1u << 13; },
       CpFaultCause::kBadField, "FRAGMENT"},
      {"no vector registers",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::REGISTERS] = 0; },
       CpFaultCause::kBadField, "REGISTERS.VECTOR 0"},
      {"too many vector registers",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::REGISTERS] = 257u << 16; },
       CpFaultCause::kBadField, "REGISTERS.VECTOR 257"},
      {"too many scalar registers",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::REGISTERS] |= 129; },
       CpFaultCause::kBadField, "REGISTERS.SCALAR"},
      {"code size", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 6); }, CpFaultCause::kBadField,
       "FRAGMENT_CODE_SIZE 6"},
      {"huge code", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 0x7FFFFFFC); },
       CpFaultCause::kBadField, "FRAGMENT_CODE_SIZE"},
      {"code misaligned", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40002, 8); }, CpFaultCause::kBadField,
       "aligned"},
      {"code wraps", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0xFFFFFFFFFFFFFFFCull, 8); },
       CpFaultCause::kBadField, "overflows"},
      {"entry outside",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::FRAGMENT_ENTRY] = 8; },
       CpFaultCause::kBadField, "FRAGMENT_ENTRY 8"},
      {"varyings", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::FRAGMENT] |= 65u << 4; },
       CpFaultCause::kBadField, "FRAGMENT.VARYINGS"},
      {"program interpolation",
       [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40000, 8), b.shader[S::FRAGMENT] |= 1u << 2; },
       CpFaultCause::kBadField, "INTERPOLATION must be 0"},
      {"code unmapped", [](DrawBlocks& b, uint64_t&) { fragment_program(b, 0x40, 8); }, CpFaultCause::kDrawFault,
       "not mapped executable"},
      {"fetch past the buffer", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::COUNT] = 5; }, CpFaultCause::kDrawFault,
       "past the buffer"},
      {"index past the buffer", [](DrawBlocks& b, uint64_t&) { b.draw_info[D::FLAGS] |= D::FLAGS_INDEXED_MASK; },
       CpFaultCause::kDrawFault, "index fetch"},
      {"target unmapped", [](DrawBlocks& b, uint64_t&) { b.pipe[P::COLOR_VA_HI] = 0x7; }, CpFaultCause::kDrawFault,
       "colour target"},
      {"colour targets bits", [](DrawBlocks& b, uint64_t&) { b.pipe[P::COLOR_TARGETS] = 8; }, CpFaultCause::kBadField,
       "COLOR_TARGETS has undefined bits"},
      {"colour targets address without count", [](DrawBlocks& b, uint64_t&) { b.pipe[P::COLOR_TARGETS_VA_LO] = 64; },
       CpFaultCause::kBadField, "COLOR_TARGETS_VA must be 0"},
      {"colour targets unmapped",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 7), b.pipe[P::COLOR_TARGETS_VA_LO] = 0x40; },
       CpFaultCause::kMemoryFault, "not readable"},
      {"colour targets misaligned",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 1), b.pipe[P::COLOR_TARGETS_VA_LO] = 0x44; },
       CpFaultCause::kMemoryFault, "aligned"},
      {"colour target format",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 2)[8 + blk::COLOR_TARGET::FORMAT] = 12345; },
       CpFaultCause::kBadField, "COLOR_TARGET: [1].FORMAT 12345"},
      {"colour target reserved", [](DrawBlocks& b, uint64_t&) { more_targets(b, 1)[blk::COLOR_TARGET::RESERVED_7] = 1; },
       CpFaultCause::kBadField, "[0].RESERVED_7"},
      {"colour target SRC1 factor",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 1)[blk::COLOR_TARGET::BLEND] = 15u << 1; },
       CpFaultCause::kBadField, "SRC1"},
      {"colour target blend op",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 1)[blk::COLOR_TARGET::BLEND] = 5u << 11; },
       CpFaultCause::kBadField, "[0].BLEND.COLOR_OP is 5"},
      {"colour target write mask",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 1)[blk::COLOR_TARGET::WRITE_MASK] = 0x10; },
       CpFaultCause::kBadField, "[0].WRITE_MASK"},
      {"unused colour target with an address",
       [](DrawBlocks& b, uint64_t&) { more_targets(b, 1)[blk::COLOR_TARGET::VA_LO] = 4096; },
       CpFaultCause::kBadField, "must be 0 for an unused target"},
      {"colour target unmapped",
       [](DrawBlocks& b, uint64_t&) {
         std::vector<uint32_t>& r = more_targets(b, 1);
         r[blk::COLOR_TARGET::VA_HI] = 0x7, r[blk::COLOR_TARGET::PITCH] = 128, r[blk::COLOR_TARGET::FORMAT] = 37;
       },
       CpFaultCause::kDrawFault, "colour target 1 is not mapped"},
      {"enormous draw",
       [](DrawBlocks& b, uint64_t&) { b.draw_info[D::COUNT] = b.draw_info[D::INSTANCE_COUNT] = 0xFFFFFFFF; },
       CpFaultCause::kDrawFault, "exceeds the limit"},
  };
  for (const Hostile& h : cases) {
    recover();
    h.mutate(b_, draw_info_offset_);
    EXPECT_FALSE(draw()) << h.name;
    auto fault = device_->command_processor().fault();
    ASSERT_TRUE(fault) << h.name;
    EXPECT_EQ(fault->cause, h.cause) << h.name << ": " << fault->message;
    EXPECT_NE(fault->message.find(h.message), std::string::npos) << h.name << ": " << fault->message;
    EXPECT_EQ(fault->opcode, hw::pkt::DRAW::OPCODE);
  }
  // Still usable: a good draw renders after a reset.
  recover();
  ASSERT_TRUE(draw());
  EXPECT_EQ(pixel(3, 3), 0xFF80FF00u);
}

// REPORT (queries): the samples that passed the output merger's tests between two REPORTs are the
// draw's written fragments; the clock only grows; availability lands after the value.
TEST_F(DrawTest, ReportWritesSamplesPassedAndTheClockThenAvailability) {
  namespace P = blk::PIPE_STATE;
  namespace R = hw::pkt::REPORT;
  const uint64_t out = must_buffer(*device_, 4096);
  auto submit = [&](const std::vector<uint32_t>& packet) {
    std::string error;
    EXPECT_TRUE(ring_->write(packet, &error)) << error;
  };
  submit(hw::encode_report(R::FLAGS_COUNTER_SAMPLES_PASSED, out + 0));
  submit(hw::encode_report(R::FLAGS_COUNTER_CLOCK, out + 8));
  b_.pipe[P::SCISSOR_WIDTH] = 8;  // 8 x 32 of the 32 x 32 quad pass
  ASSERT_TRUE(draw());
  submit(hw::encode_report(R::FLAGS_COUNTER_SAMPLES_PASSED, out + 16, true, out + 24, 0xA5));
  submit(hw::encode_report(R::FLAGS_COUNTER_CLOCK, out + 32, true, out + 40, 1));
  ring_->kick();
  device_->run_until_idle();
  ASSERT_EQ(device_->command_processor().state(), CpState::kIdle);
  uint64_t v[6] = {};
  ASSERT_TRUE(device_->mmu().read(out, v, sizeof v));
  EXPECT_EQ(v[2] - v[0], 256u);
  EXPECT_EQ(v[2] - v[0], device_->command_processor().last_draw()->result.counters.merge.fragments_written);
  EXPECT_EQ(v[3], 0xA5u);
  EXPECT_GT(v[4], v[1] + 256);  // the draw's vertices and fragments took clock cycles
  EXPECT_EQ(v[5], 1u);
  EXPECT_EQ(v[2], uint64_t{device_->read_register(hw::reg::SAMPLES_PASSED_LO)} |
                      uint64_t{device_->read_register(hw::reg::SAMPLES_PASSED_HI)} << 32);
  EXPECT_EQ(device_->command_processor().counters().reports, 4u);
  EXPECT_NE(dump().find("device counters: SAMPLES_PASSED 256"), std::string::npos) << dump();
}

// Every bad REPORT is a CP fault naming the field or address, and writes neither value nor
// availability; the device reports on after a reset.
TEST_F(DrawTest, HostileReportsFaultAndWriteNothing) {
  namespace R = hw::pkt::REPORT;
  const uint64_t out = must_buffer(*device_, 4096);
  const uint64_t read_only = must_buffer(*device_, 4096, kPermRead);
  struct Case {
    const char* name;
    std::vector<uint32_t> packet;
    CpFaultCause cause;
  };
  std::vector<uint32_t> bad_counter = hw::encode_report(0, out);
  bad_counter[R::FLAGS] = 5;
  std::vector<uint32_t> bad_bits = hw::encode_report(0, out);
  bad_bits[R::FLAGS] = 1u << 9;
  const std::vector<Case> cases = {
      {"counter 5", bad_counter, CpFaultCause::kBadField},
      {"unknown flag", bad_bits, CpFaultCause::kBadField},
      {"value unaligned", hw::encode_report(0, out + 4), CpFaultCause::kBadField},
      {"availability unaligned", hw::encode_report(0, out, true, out + 12, 1), CpFaultCause::kBadField},
      {"value unmapped", hw::encode_report(1, 0x40), CpFaultCause::kMemoryFault},
      {"value past 2^64", hw::encode_report(1, ~uint64_t{7}), CpFaultCause::kMemoryFault},
      {"value read-only", hw::encode_report(1, read_only), CpFaultCause::kMemoryFault},
      {"availability unmapped", hw::encode_report(1, out, true, 0x40, 1), CpFaultCause::kMemoryFault},
  };
  for (const Case& c : cases) {
    recover();
    std::string error;
    ASSERT_TRUE(ring_->write(c.packet, &error)) << error;
    ring_->kick();
    device_->run_until_idle();
    auto fault = device_->command_processor().fault();
    ASSERT_TRUE(fault) << c.name;
    EXPECT_EQ(fault->cause, c.cause) << c.name << ": " << fault->message;
    EXPECT_EQ(fault->opcode, R::OPCODE) << c.name;
    uint64_t v[2] = {};
    ASSERT_TRUE(device_->mmu().read(out, v, sizeof v));
    EXPECT_EQ(v[0], 0u) << c.name;  // nothing written, not even the value before a bad availability
    EXPECT_EQ(v[1], 0u) << c.name;
  }
  recover();
  std::string error;
  ASSERT_TRUE(ring_->write(hw::encode_report(1, out, true, out + 8, 7), &error));
  ring_->kick();
  device_->run_until_idle();
  uint64_t v[2] = {};
  ASSERT_TRUE(device_->mmu().read(out, v, sizeof v));
  // The clock before the REPORT retired: one cycle less than after it.
  EXPECT_EQ(v[0] + 1, uint64_t{device_->read_register(hw::reg::CLOCK_LO)} |
                          uint64_t{device_->read_register(hw::reg::CLOCK_HI)} << 32);
  EXPECT_EQ(v[1], 7u);
}

}  // namespace
}  // namespace gsgpu
