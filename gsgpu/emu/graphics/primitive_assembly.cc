// Primitive assembly by topology (orders in primitive_assembly.h).
#include "gsgpu/emu/graphics/primitive_assembly.h"

namespace gsgpu::graphics {

const char* topology_name(Topology t) {
  switch (t) {
    case Topology::kPointList: return "point list";
    case Topology::kLineList: return "line list";
    case Topology::kLineStrip: return "line strip";
    case Topology::kTriangleList: return "triangle list";
    case Topology::kTriangleStrip: return "triangle strip";
    case Topology::kTriangleFan: return "triangle fan";
  }
  return "?";
}

uint32_t vertices_per_primitive(Topology t) {
  switch (t) {
    case Topology::kPointList: return 1;
    case Topology::kLineList:
    case Topology::kLineStrip: return 2;
    default: return 3;
  }
}

void PrimitiveAssembler::restart() { seen_ = 0, slot_ = 0; }

void PrimitiveAssembler::emit(const ShadedVertex& a, const ShadedVertex& b, const ShadedVertex& c, uint32_t n,
                              uint32_t last, Queue<AssembledPrimitive>& out) {
  // Written in place, only what later blocks read: a primitive is 950 bytes.
  AssembledPrimitive& p = out.push_slot();
  p.vertex_count = n;
  copy_shaded_vertex(a, varyings_, &p.vertices[0]);
  copy_shaded_vertex(b, varyings_, &p.vertices[1]);
  copy_shaded_vertex(c, varyings_, &p.vertices[2]);
  p.provoking = last_ ? last : 0;
  p.restarts_stipple = topology_ != Topology::kLineStrip || seen_ == 2;  // seen_ counts the vertex just pushed
}

void PrimitiveAssembler::push(const ShadedVertex& v, Queue<AssembledPrimitive>& out) {
  const uint32_t i = seen_++;
  switch (topology_) {
    case Topology::kPointList:
      emit(v, v, v, 1, 0, out);
      return;
    case Topology::kLineList:
    case Topology::kTriangleList: {
      const uint32_t n = topology_ == Topology::kTriangleList ? 3 : 2;  // not a call per vertex
      if (slot_ + 1 < n) {
        hold(slot_++, v);
        return;
      }
      // The last vertex goes straight into the primitive, not through held_ (a copy less).
      slot_ = 0;
      emit(held_[0], n == 3 ? held_[1] : v, v, n, n - 1, out);
      return;
    }
    case Topology::kLineStrip:
      if (i >= 1) emit(held_[0], v, v, 2, 1, out);
      hold(0, v);
      return;
    case Topology::kTriangleStrip:
      // held_[0] = v_{k-2}, held_[1] = v_{k-1}; triangle j = k - 2.
      if (i >= 2) {
        if ((i - 2) % 2 == 0) {
          emit(held_[0], held_[1], v, 3, 2, out);
        } else {
          emit(held_[0], v, held_[1], 3, 1, out);
        }
      }
      if (i >= 1) hold(0, held_[1]);
      hold(1, v);
      if (i == 0) hold(0, v);
      return;
    case Topology::kTriangleFan:
      // held_[0] = v_0, held_[1] = the previous vertex.
      if (i == 0) hold(0, v);
      if (i >= 2) emit(held_[1], v, held_[0], 3, 1, out);
      hold(1, v);
      return;
  }
}

}  // namespace gsgpu::graphics
