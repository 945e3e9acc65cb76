// The DrawHostile fixture (draw_hostile_test.cc, xfb_hostile_test.cc): a device with a ring,
// state blocks, vertices, a target with an unmapped page behind it and a buffer no draw names, a
// good draw's blocks, and the checks that a hostile draw faulted as expected and that the device,
// its neighbour buffer and a second device (another context) are fine afterwards.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/isa/assembler.h"
#include "protocol/gsgpu/packets.h"
#include "test_util.h"

namespace gsgpu {
namespace draw_hostile {

namespace blk = hw::blk;
using test::LogCapture;

inline uint32_t f32(float v) { return std::bit_cast<uint32_t>(v); }
inline constexpr uint32_t kSize = 32;           // the target: 32 x 32 R8G8B8A8
inline constexpr uint32_t kGreen = 0xFF80FF00;  // the constant colour (0, 1, 0.5, 1) as stored
inline constexpr uint64_t kTargetVa = 0x800000;  // its own mapping, an unmapped page after it

// One device (one context's GPU) with a ring, state blocks, vertices, indices, code, a target with
// an unmapped page behind it and a buffer of bytes no draw names.
struct Context {
  explicit Context(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend = nullptr)
      : device(test::make_device(config, std::move(backend))) {
    ring_va = test::must_buffer(*device, 4096);
    state_va = test::must_buffer(*device, 4096);
    vertices_va = test::must_buffer(*device, 4096);
    indices_va = test::must_buffer(*device, 4096);
    code_va = test::must_buffer(*device, 4096, kPermAll);
    neighbour_va = test::must_buffer(*device, 4096);
    std::string error;
    const auto phys = device->vram_allocator().allocate(4096);
    EXPECT_TRUE(phys && device->mmu().map(kTargetVa, 4096, *phys, kPermReadWrite, &error)) << error;
    ring = std::make_unique<RingWriter>(*device, ring_va, 4096);
    std::vector<uint8_t> pattern(4096);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(i * 7 + 3);
    EXPECT_TRUE(device->mmu().write(neighbour_va, pattern.data(), pattern.size()));
  }
  std::vector<uint8_t> vram() const {
    return std::vector<uint8_t>(device->mmu().vram(), device->mmu().vram() + device->properties().config.vram_size);
  }
  uint32_t pixel(uint32_t x, uint32_t y) const {
    uint32_t v = 0;
    EXPECT_TRUE(device->mmu().read(kTargetVa + (y * kSize + x) * 4, &v, 4));
    return v;
  }

  std::unique_ptr<Device> device;
  std::unique_ptr<RingWriter> ring;
  uint64_t ring_va = 0, state_va = 0, vertices_va = 0, indices_va = 0, code_va = 0, neighbour_va = 0;
};

// The state blocks of a good draw: a full-target strip of 4 R32G32B32A32 positions, constant colour.
struct Blocks {
  std::vector<uint32_t> draw_info = std::vector<uint32_t>(blk::DRAW_INFO::SIZE_DWORDS, 0);
  std::vector<uint32_t> binding = std::vector<uint32_t>(blk::VERTEX_BINDING::SIZE_DWORDS, 0);
  std::vector<uint32_t> attribute = std::vector<uint32_t>(blk::VERTEX_ATTRIBUTE::SIZE_DWORDS, 0);
  std::vector<uint32_t> pipe = std::vector<uint32_t>(blk::PIPE_STATE::SIZE_DWORDS, 0);
  std::vector<uint32_t> shader = std::vector<uint32_t>(blk::SHADER_STATE::SIZE_DWORDS, 0);
  std::vector<float> vertices = {-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1};
  std::vector<uint32_t> indices;
};

inline Blocks good_blocks(const Context& c) {
  namespace D = blk::DRAW_INFO;
  namespace P = blk::PIPE_STATE;
  namespace S = blk::SHADER_STATE;
  namespace VB = blk::VERTEX_BINDING;
  Blocks b;
  b.draw_info[D::FLAGS] = hw::put_field(4, D::FLAGS_TOPOLOGY_MASK, D::FLAGS_TOPOLOGY_SHIFT);
  b.draw_info[D::COUNT] = 4;
  b.draw_info[D::INSTANCE_COUNT] = 1;
  b.draw_info[D::COUNTS] = hw::put_field(1, D::COUNTS_BINDING_COUNT_MASK, D::COUNTS_BINDING_COUNT_SHIFT) |
                           hw::put_field(1, D::COUNTS_ATTRIBUTE_COUNT_MASK, D::COUNTS_ATTRIBUTE_COUNT_SHIFT);
  b.draw_info[D::INDEX_VA_LO] = uint32_t(c.indices_va);
  b.draw_info[D::INDEX_SIZE] = 4096;
  b.binding[VB::VA_LO] = uint32_t(c.vertices_va);
  b.binding[VB::SIZE_LO] = 64;
  b.binding[VB::STRIDE] = 16;
  b.binding[VB::DIVISOR] = 1;
  b.attribute[blk::VERTEX_ATTRIBUTE::FORMAT] = 109;
  b.pipe[P::VIEWPORT_WIDTH] = f32(kSize);
  b.pipe[P::VIEWPORT_HEIGHT] = f32(kSize);
  b.pipe[P::VIEWPORT_MAX_DEPTH] = f32(1);
  b.pipe[P::SCISSOR_WIDTH] = kSize;
  b.pipe[P::SCISSOR_HEIGHT] = kSize;
  b.pipe[P::TARGET_SIZE] = hw::put_field(kSize, P::TARGET_SIZE_WIDTH_MASK, P::TARGET_SIZE_WIDTH_SHIFT) |
                           hw::put_field(kSize, P::TARGET_SIZE_HEIGHT_MASK, P::TARGET_SIZE_HEIGHT_SHIFT);
  b.pipe[P::COLOR_VA_LO] = uint32_t(kTargetVa);
  b.pipe[P::COLOR_PITCH] = kSize * 4;
  b.pipe[P::COLOR_FORMAT] = 37;
  b.pipe[P::OUTPUT] = hw::put_field(0xF, P::OUTPUT_WRITE_MASK_MASK, P::OUTPUT_WRITE_MASK_SHIFT);
  b.shader[S::CONSTANT_G] = f32(1.0f);
  b.shader[S::CONSTANT_B] = f32(0.5f);
  b.shader[S::CONSTANT_A] = f32(1.0f);
  return b;
}

// SHADER_STATE of a program stage at the context's code VA (8 vector registers).
inline void vertex_program(Blocks& b, const Context& c, uint32_t bytes) {
  namespace S = blk::SHADER_STATE;
  b.shader[S::VERTEX] = hw::put_field(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT);
  b.shader[S::VERTEX_CODE_VA_LO] = uint32_t(c.code_va);
  b.shader[S::VERTEX_CODE_SIZE] = bytes;
  b.shader[S::VERTEX_REGISTERS] = hw::put_field(8, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
}
inline void fragment_program(Blocks& b, const Context& c, uint32_t bytes, uint64_t offset = 0) {
  namespace S = blk::SHADER_STATE;
  b.shader[S::FRAGMENT] = hw::put_field(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT);
  b.shader[S::FRAGMENT_CODE_VA_LO] = uint32_t(c.code_va + offset);
  b.shader[S::FRAGMENT_CODE_SIZE] = bytes;
  b.shader[S::REGISTERS] = hw::put_field(8, S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT);
}

// Writes the blocks at state_va (DRAW_INFO +0, PIPE_STATE +256, SHADER_STATE +512, the binding
// +768, the attribute +832), the vertices and indices, and runs the draw packet `encode` makes from
// the three block addresses; true when the CP is idle.
using DrawEncoder = std::function<std::vector<uint32_t>(uint64_t draw_info, uint64_t pipe, uint64_t shader)>;
inline bool draw_packet(Context& c, Blocks b, const DrawEncoder& encode) {
  namespace D = blk::DRAW_INFO;
  b.draw_info[D::BINDINGS_VA_LO] = uint32_t(c.state_va + 768);
  b.draw_info[D::ATTRIBUTES_VA_LO] = uint32_t(c.state_va + 832);
  Mmu& m = c.device->mmu();
  EXPECT_TRUE(m.write(c.state_va, b.draw_info.data(), b.draw_info.size() * 4));
  EXPECT_TRUE(m.write(c.state_va + 256, b.pipe.data(), b.pipe.size() * 4));
  EXPECT_TRUE(m.write(c.state_va + 512, b.shader.data(), b.shader.size() * 4));
  EXPECT_TRUE(m.write(c.state_va + 768, b.binding.data(), b.binding.size() * 4));
  EXPECT_TRUE(m.write(c.state_va + 832, b.attribute.data(), b.attribute.size() * 4));
  EXPECT_TRUE(m.write(c.vertices_va, b.vertices.data(), b.vertices.size() * 4));
  if (!b.indices.empty()) {
    EXPECT_TRUE(m.write(c.indices_va, b.indices.data(), b.indices.size() * 4));
  }
  std::string error;
  EXPECT_TRUE(c.ring->write(encode(c.state_va, c.state_va + 256, c.state_va + 512), &error)) << error;
  c.ring->kick();
  c.device->run_until_idle();
  return c.device->cp_state() == CpState::kIdle;
}

// One DRAW of the blocks (a DRAW_INDIRECT reading its counts at `args_va` when that is not 0).
inline bool draw(Context& c, Blocks b, uint64_t args_va = 0) {
  return draw_packet(c, std::move(b), [&](uint64_t info, uint64_t pipe, uint64_t shader) {
    return args_va == 0 ? hw::encode_draw(info, pipe, shader) : hw::encode_draw_indirect(info, pipe, shader, args_va);
  });
}

inline std::string fault_text(const Device& d) { return d.cp_fault() ? d.cp_fault()->message : "no fault"; }

inline std::vector<uint32_t> assemble(const char* source) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(isa::assemble(source, &words, &error)) << error;
  return words;
}

inline DeviceConfig config() {
  DeviceConfig c = test::small_config(CpMode::kManual);
  // Endless programs stop after 2^16 instructions a warp: the same fault as the default 2^20, sooner.
  c.draw_limits.warp_instructions = uint64_t{1} << 16;
  return c;
}

class DrawHostile : public ::testing::Test {
 protected:
  DrawHostile() : hostile_(config()), other_(config()) {}
  void SetUp() override {
    ASSERT_TRUE(draw(other_, good_blocks(other_)));
    other_vram_ = other_.vram();
  }

  // The last draw faulted with `cause`, CP_FAULT_INFO says so, and the log line names `reason`;
  // then the device recovers and draws, and nothing else changed.
  void expect_fault(CpFaultCause cause, const std::string& reason, size_t lines_before) {
    Device& d = *hostile_.device;
    ASSERT_EQ(d.cp_state(), CpState::kFaulted);
    ASSERT_TRUE(d.cp_fault());
    EXPECT_EQ(d.cp_fault()->cause, cause) << d.cp_fault()->message;
    const uint32_t info = d.read_register(hw::reg::CP_FAULT_INFO);
    namespace F = hw::field::CP_FAULT_INFO;
    EXPECT_EQ(hw::get_field(info, F::CAUSE_MASK, F::CAUSE_SHIFT), uint32_t(cause));
    EXPECT_EQ(hw::get_field(info, F::OPCODE_MASK, F::OPCODE_SHIFT), hw::pkt::DRAW::OPCODE);
    EXPECT_NE(d.cp_fault()->message.find(reason), std::string::npos) << d.cp_fault()->message;
    EXPECT_EQ(log_.count(reason), lines_before + 1) << log_.all();
    expect_survives();
  }

  // A good draw renders after CP_CONTROL.RESET; the neighbour buffer and the other device are as
  // they were, and the other device draws too.
  void expect_survives() {
    Device& d = *hostile_.device;
    if (d.cp_state() == CpState::kFaulted) {
      d.write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
      hostile_.ring = std::make_unique<RingWriter>(d, hostile_.ring_va, 4096);
    }
    ASSERT_TRUE(draw(hostile_, good_blocks(hostile_)));
    EXPECT_EQ(hostile_.pixel(0, 0), kGreen);
    EXPECT_EQ(hostile_.pixel(31, 31), kGreen);
    std::vector<uint8_t> neighbour(4096);
    ASSERT_TRUE(d.mmu().read(hostile_.neighbour_va, neighbour.data(), neighbour.size()));
    for (size_t i = 0; i < neighbour.size(); ++i) ASSERT_EQ(neighbour[i], uint8_t(i * 7 + 3)) << i;
    EXPECT_TRUE(other_.vram() == other_vram_) << "the other device's memory changed";
    ASSERT_TRUE(draw(other_, good_blocks(other_)));
    EXPECT_EQ(other_.pixel(16, 16), kGreen);
    other_vram_ = other_.vram();  // its ring moved on
  }

  void fault_case(const char* name, const std::function<void(Blocks&)>& mutate, CpFaultCause cause,
                  const std::string& reason) {
    SCOPED_TRACE(name);
    Blocks b = good_blocks(hostile_);
    mutate(b);
    const size_t lines_before = log_.count(reason);
    EXPECT_FALSE(draw(hostile_, b));
    expect_fault(cause, reason, lines_before);
  }

  LogCapture log_;
  Context hostile_, other_;
  std::vector<uint8_t> other_vram_;
};

}  // namespace draw_hostile
}  // namespace gsgpu
