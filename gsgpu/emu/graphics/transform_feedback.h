// Transform feedback (SHADER_STATE XFB_VA; VK_EXT_transform_feedback, GL's EXT_transform_feedback):
// the geometry engine hands every assembled primitive, after the vertex stage and before clipping,
// to this unit, which writes its vertices' captured outputs into up to four buffers.
//
// Vulkan's rules: the vertices of a primitive are written one after the other, each vertex STRIDE
// bytes of its buffer; a primitive is written only when it fits in every buffer the draw writes
// (otherwise nothing of it is, and the offsets stay), and both counts are kept: primitives needed
// (every one assembled) and written. The write offsets live in GPU memory (XFB_BUFFER OFFSET_VA):
// read before the first primitive, written back after the last, so draws append to each other and
// the driver can pause and resume (counter buffers).
//
// Every address is the guest's: each write goes through the MMU with overflow-safe arithmetic; an
// unmapped buffer, offset word or a write past the mapping ends the draw with a fault string.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/primitive_assembly.h"

namespace gsgpu::graphics {

inline constexpr uint32_t kMaxXfbBuffers = 4;      // maxTransformFeedbackBuffers
inline constexpr uint32_t kMaxXfbOutputs = 64;     // XFB_STATE OUTPUTS.COUNT
inline constexpr uint32_t kMaxXfbStride = 2048;    // maxTransformFeedbackBufferDataStride
// A vertex's captured values by export slot: 0..3 position, 4 + k varying k, 68 point size, 69 + d
// distance d (the clip distances, then the cull distances: ShadedVertex::distances).
inline constexpr uint32_t kXfbPointSizeSlot = 68;
inline constexpr uint32_t kXfbDistanceSlot0 = 69;
inline constexpr uint32_t kXfbSlots = 77;

struct XfbBuffer {
  uint64_t va = 0;
  uint32_t size = 0;
  uint32_t stride = 0;  // 0: not written by this draw
  uint64_t offset_va = 0;
};

struct XfbOutput {
  uint32_t slot = 0, components = 1, buffer = 0, offset = 0;
};

struct XfbState {
  bool enabled = false;
  std::array<XfbBuffer, kMaxXfbBuffers> buffers{};
  std::vector<XfbOutput> outputs;
};

struct XfbCounters {
  uint64_t written = 0, needed = 0;  // primitives
};

// A fault string when an output captures a slot the vertex stage does not write (varying k at or
// past its `varying_components`, distance d at or past its `distances`, the clip and cull distances
// it writes): the geometry engine carries only the written components, the others hold no
// defined value.
std::optional<std::string> xfb_outputs_unwritten(const XfbState& state, uint32_t varying_components,
                                                 uint32_t distances);

class TransformFeedback {
 public:
  TransformFeedback(GpuMemory& memory, const XfbState& state, ProvokingVertex provoking)
      : memory_(memory), state_(state), provoking_(provoking) {}
  // Reads the write offsets; a fault string when an offset word cannot be read.
  std::optional<std::string> begin();
  // One assembled primitive: written when it fits every buffer; a fault when a write is unmapped.
  std::optional<std::string> capture(const AssembledPrimitive& p);
  // Writes the offsets back (also after a fault: what was written stays written).
  std::optional<std::string> end();
  const XfbCounters& counters() const { return counters_; }

 private:
  bool fits(uint32_t vertices) const;
  std::optional<std::string> write_vertex(const ShadedVertex& v, const std::array<uint64_t, kMaxXfbBuffers>& at);

  GpuMemory& memory_;
  const XfbState& state_;
  ProvokingVertex provoking_;
  std::array<uint32_t, kMaxXfbBuffers> offsets_{};
  XfbCounters counters_;
};

}  // namespace gsgpu::graphics
