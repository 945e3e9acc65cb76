// Primitive assembly: turns the stream of shaded vertices into points, lines and triangles by the
// topology (Vulkan "Primitive Topologies"), with primitive restart for strips and fans.
//   - triangle strip: triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}), so every triangle keeps the
//     winding of the first; triangle fan: (v_{i+1}, v_{i+2}, v_0); line strip: (v_i, v_{i+1}).
//   - The first vertex listed is the provoking vertex (Vulkan's default).
//   - A restart index ends the current strip / fan (and drops an unfinished list primitive).
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/queue.h"
#include "gsgpu/emu/graphics/vertex.h"

namespace gsgpu::graphics {

// VkPrimitiveTopology values (the list / strip / fan subset without adjacency or patches).
enum class Topology : uint8_t { kPointList, kLineList, kLineStrip, kTriangleList, kTriangleStrip, kTriangleFan };
inline constexpr uint32_t kMaxTopology = 5;
const char* topology_name(Topology t);
uint32_t vertices_per_primitive(Topology t);

struct AssembledPrimitive {
  uint32_t vertex_count = 0;  // 1, 2 or 3
  std::array<ShadedVertex, 3> vertices;  // vertices[0] is the provoking vertex
};

class PrimitiveAssembler {
 public:
  explicit PrimitiveAssembler(Topology topology) : topology_(topology) {}
  void push(const ShadedVertex& v, Queue<AssembledPrimitive>& out);
  void restart();  // a restart index

 private:
  void emit(const ShadedVertex& a, const ShadedVertex& b, const ShadedVertex& c, uint32_t n,
            Queue<AssembledPrimitive>& out);
  Topology topology_;
  uint32_t seen_ = 0;   // vertices since the last restart
  uint32_t slot_ = 0;   // list topologies: seen_ % vertices per primitive, kept without a division
  std::array<ShadedVertex, 3> held_;
};

}  // namespace gsgpu::graphics
