// Primitive assembly: turns the stream of shaded vertices into points, lines and triangles by the
// topology (Vulkan "Primitive Topologies"), with primitive restart for strips and fans.
//   - triangle strip: triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}), so every triangle keeps the
//     winding of the first; triangle fan: (v_{i+1}, v_{i+2}, v_0); line strip: (v_i, v_{i+1}).
//   - The provoking vertex (whose flat varyings the primitive takes) is the first vertex listed
//     (Vulkan's default) or, with ProvokingVertex::kLast (VK_EXT_provoking_vertex, GL's flat
//     shading), the last vertex of the primitive in the stream: v_{2i+1} / v_{3i+2} of lists,
//     v_{i+1} of line strips, v_{i+2} of triangle strips and fans. The vertex order, and so the
//     winding, is the same in both conventions; only AssembledPrimitive::provoking changes.
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

// PIPE_STATE RASTER.PROVOKING_LAST: which vertex of a primitive gives its flat varyings.
enum class ProvokingVertex : uint8_t { kFirst, kLast };

struct AssembledPrimitive {
  uint32_t vertex_count = 0;  // 1, 2 or 3
  std::array<ShadedVertex, 3> vertices;
  uint32_t provoking = 0;  // index into vertices of the provoking vertex
  // Lines: the line stipple counter restarts here (every line of a list, the first of a strip).
  bool restarts_stipple = true;
  const Varyings& flat_varyings() const { return vertices[provoking].varyings; }
};

class PrimitiveAssembler {
 public:
  // `varyings`: the components later blocks read (carried_varying_components); the others of the
  // primitives' vertices hold no defined value.
  explicit PrimitiveAssembler(Topology topology, ProvokingVertex provoking = ProvokingVertex::kFirst,
                              uint32_t varyings = kMaxVaryingComponents)
      : topology_(topology), last_(provoking == ProvokingVertex::kLast), varyings_(varyings) {}
  void push(const ShadedVertex& v, Queue<AssembledPrimitive>& out);
  void restart();  // a restart index

 private:
  // `last`: the index of the vertex that arrived last (the provoking vertex with kLast).
  void emit(const ShadedVertex& a, const ShadedVertex& b, const ShadedVertex& c, uint32_t n, uint32_t last,
            Queue<AssembledPrimitive>& out);
  Topology topology_;
  bool last_;  // ProvokingVertex::kLast
  uint32_t varyings_;  // components copied
  // held_[i] = v, the components later blocks read.
  void hold(uint32_t i, const ShadedVertex& v) { copy_shaded_vertex(v, varyings_, &held_[i]); }
  uint32_t seen_ = 0;   // vertices since the last restart
  uint32_t slot_ = 0;   // list topologies: seen_ % vertices per primitive, kept without a division
  std::array<ShadedVertex, 3> held_;
};

}  // namespace gsgpu::graphics
