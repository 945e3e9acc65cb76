// Transform feedback's writes (see transform_feedback.h).
#include "gsgpu/emu/graphics/transform_feedback.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <tuple>

#include "common/checked_math.h"
#include "common/text.h"

namespace gsgpu::graphics {
namespace {

using gsvirt::hex;

// The value of export slot `slot` of a shaded vertex.
float slot_value(const ShadedVertex& v, uint32_t slot) {
  if (slot < 4) return v.position[slot];
  if (slot < 4 + kMaxVaryingComponents) return v.varyings[slot - 4];
  if (slot == kXfbPointSizeSlot) return v.point_size;
  return v.distances[slot - kXfbDistanceSlot0];  // decode_xfb_output bounds it by kXfbSlots
}

}  // namespace

std::optional<std::string> xfb_outputs_unwritten(const XfbState& state, uint32_t varying_components,
                                                 uint32_t distances) {
  static_assert(kXfbPointSizeSlot == 4 + kMaxVaryingComponents &&
                kXfbSlots == kXfbDistanceSlot0 + std::tuple_size_v<decltype(ShadedVertex::distances)>);
  for (size_t i = 0; i < state.outputs.size(); ++i) {
    const XfbOutput& o = state.outputs[i];
    for (uint32_t slot = o.slot; slot < o.slot + o.components; ++slot) {
      if (slot < 4 || slot == kXfbPointSizeSlot) continue;
      if (slot < kXfbPointSizeSlot && slot - 4 < varying_components) continue;
      if (slot >= kXfbDistanceSlot0 && slot - kXfbDistanceSlot0 < distances) continue;
      const bool varying = slot < kXfbPointSizeSlot;
      return "transform feedback output " + std::to_string(i) + " captures slot " + std::to_string(slot) + ", a " +
             (varying ? "varying" : "clip or cull distance") + " the vertex stage does not write (it writes " +
             std::to_string(varying ? varying_components : distances) + ")";
    }
  }
  return std::nullopt;
}

std::optional<std::string> TransformFeedback::begin() {
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    const XfbBuffer& buf = state_.buffers[b];
    if (buf.stride == 0) continue;
    const uint8_t* p = memory_.translate(buf.offset_va, 4, Access::kRead);
    if (p == nullptr) {
      return "transform feedback buffer " + std::to_string(b) + ": offset word at " + hex(buf.offset_va) +
             " is not readable";
    }
    std::memcpy(&offsets_[b], p, 4);
  }
  return std::nullopt;
}

bool TransformFeedback::fits(uint32_t vertices) const {
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    const XfbBuffer& buf = state_.buffers[b];
    if (buf.stride == 0) continue;
    // 64-bit sums of 32-bit values: no overflow.
    if (uint64_t{offsets_[b]} + uint64_t{vertices} * buf.stride > buf.size) return false;
  }
  return true;
}

std::optional<std::string> TransformFeedback::write_vertex(const ShadedVertex& v,
                                                           const std::array<uint64_t, kMaxXfbBuffers>& at) {
  for (const XfbOutput& o : state_.outputs) {
    const auto va = gsvirt::checked_add<uint64_t>(state_.buffers[o.buffer].va, at[o.buffer] + o.offset);
    const uint32_t bytes = 4 * o.components;
    uint8_t* p = va && gsvirt::checked_add<uint64_t>(*va, bytes) ? memory_.translate(*va, bytes, Access::kWrite)
                                                                 : nullptr;
    if (p == nullptr) {
      return "transform feedback buffer " + std::to_string(o.buffer) + ": " + std::to_string(bytes) +
             " bytes at " + (va ? hex(*va) : std::string("an address past 2^64")) + " are not mapped writable";
    }
    for (uint32_t c = 0; c < o.components; ++c) {
      const float f = slot_value(v, o.slot + c);
      std::memcpy(p + 4 * c, &f, 4);
    }
  }
  return std::nullopt;
}

std::optional<std::string> TransformFeedback::capture(const AssembledPrimitive& p) {
  counters_.needed++;
  const uint32_t n = p.vertex_count;
  if (!fits(n)) return std::nullopt;
  // GL's order of a strip's or fan's triangles: the assembler keeps the first vertex's winding
  // order; with the last vertex provoking, GL lists the provoking vertex last (a rotation, which
  // keeps the winding): strip triangle i odd is (v_{i+1}, v_i, v_{i+2}), fan triangle (v_0, v_{i+1}, v_{i+2}).
  const uint32_t first = provoking_ == ProvokingVertex::kLast ? (p.provoking + 1) % n : 0;
  for (uint32_t i = 0; i < n; ++i) {
    std::array<uint64_t, kMaxXfbBuffers> at{};
    for (uint32_t b = 0; b < kMaxXfbBuffers; ++b)
      at[b] = uint64_t{offsets_[b]} + uint64_t{i} * state_.buffers[b].stride;
    if (auto bad = write_vertex(p.vertices[(first + i) % n], at)) return bad;
  }
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) offsets_[b] += n * state_.buffers[b].stride;  // fits(): no wrap
  counters_.written++;
  return std::nullopt;
}

std::optional<std::string> TransformFeedback::end() {
  for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
    const XfbBuffer& buf = state_.buffers[b];
    if (buf.stride == 0) continue;
    uint8_t* p = memory_.translate(buf.offset_va, 4, Access::kWrite);
    if (p == nullptr) {
      return "transform feedback buffer " + std::to_string(b) + ": offset word at " + hex(buf.offset_va) +
             " is not writable";
    }
    std::memcpy(p, &offsets_[b], 4);
  }
  return std::nullopt;
}

}  // namespace gsgpu::graphics
