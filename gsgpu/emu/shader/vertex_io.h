// What a vertex program's warps read and write (docs/isa.md §8d, docs/graphics.md "Vertex
// programs"): the geometry engine fetches a batch of vertices, the vertex stage lays their
// attributes out here, runs the program on the shader cores (DispatchParams::vertex) and reads
// the clip-space positions and varyings back. Host memory of the emulator; warp g is work-group g
// and its lane l is vertex g * width + l.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gsgpu {

// Position x, y, z, w, then 64 varying components, then PointSize (slot 68), then the clip and
// cull distances (slots 69..76: SHADER_STATE VERTEX.CLIP_DISTANCES of them, then CULL_DISTANCES).
inline constexpr uint32_t kVertexPointSizeSlot = 4 + 64;
inline constexpr uint32_t kVertexDistanceSlot = kVertexPointSizeSlot + 1;
inline constexpr uint32_t kVertexDistances = 8;
inline constexpr uint32_t kVertexExportSlots = kVertexDistanceSlot + kVertexDistances;

struct VertexLaneOutput {
  std::array<float, kVertexExportSlots> value{};  // unexported slots read 0
  bool point_size_written = false;  // the lane exported slot 68: its points take that size
};

struct VertexWarpIO {
  uint32_t input_regs = 0;          // registers preloaded per lane: v0 .. v(input_regs - 1)
  const uint32_t* inputs = nullptr;  // lane-major: lane_count * input_regs words
  const uint64_t* lane_masks = nullptr;  // per warp: the lanes that hold a vertex
  VertexLaneOutput* outputs = nullptr;
  size_t lane_count = 0;
};

}  // namespace gsgpu
