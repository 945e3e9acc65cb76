// The fragment-program instructions (docs/isa.md §8c): interpolation from the rasterizer's
// barycentrics, quad permutes and derivatives over the 2x2 quad, exports and kill. They read and
// write the dispatch's FragmentWarpIO (fragment_io.h); in a compute or vertex dispatch, which has
// none, they fault with kIllegalInstruction. Also the vertex programs' export (vertex_io.h, §8d).
//
// Quads: lanes 4q .. 4q+3 of a warp are one quad, lane i at (x + (i & 1), y + (i >> 1)); the
// fragment stage only runs warps whose width is a multiple of 4 (check_params). Quad instructions
// read the source register of every lane of the quad whatever the execution mask (helper lanes
// run, so their values are there; a lane that v_kill ended keeps its last value) and write the
// running lanes.
#include <bit>

#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {
namespace {

// The dispatch's fragment I/O; nullptr (and the warp faulted) in a compute dispatch.
FragmentWarpIO* fragment_io(Warp& w, const DecodedInst& di) {
  FragmentWarpIO* io = w.dispatch->params->fragment;
  if (!io)
    raise_fault(w, di, ShaderFaultKind::kIllegalInstruction,
                std::string(isa::op_info(di.inst.opcode).mnemonic) + " is a fragment-program instruction");
  return io;
}

// Index of the warp's lane 0 in the FragmentWarpIO arrays: one warp per work-group.
size_t first_lane(const Warp& w) { return size_t{w.group->group_id[0]} * w.width; }

enum class Interp : uint8_t { kPerspective, kLinear, kFlat };

// sum_i b_i * f_i in double, rounded once (as graphics::TriangleInterpolator::interpolate does, in the
// same order, so that a program reproduces the fixed stand-ins bit for bit).
template <Interp M>
float interpolate(const FragmentLane& lane, const FragmentPrimitive& p, uint32_t k) {
  if constexpr (M == Interp::kFlat) {
    return p.flat[k];
  } else {
    const std::array<double, 3>& b = M == Interp::kPerspective ? lane.perspective : lane.linear;
    double v = 0;
    for (int i = 0; i < 3; ++i) v += b[i] * static_cast<double>(p.varyings[i][k]);
    return static_cast<float>(v);
  }
}

template <Interp M, uint32_t W>
Flow v_interp(Warp& w, const DecodedInst& di) {
  FragmentWarpIO* io = fragment_io(w, di);
  if (!io) return Flow::kYield;
  const auto k = static_cast<uint32_t>(di.inst.imm);  // 0 .. 63: decode checked the field
  if (k >= io->varying_components)
    return raise_fault(w, di, ShaderFaultKind::kIllegalInstruction,
                       std::string(isa::op_info(di.inst.opcode).mnemonic) + " reads varying component " +
                           std::to_string(k) + ", past the " + std::to_string(io->varying_components) +
                           " the fragment program declares");
  const size_t base = first_lane(w);
  const uint32_t n = lane_count<W>(w);
  alignas(64) uint32_t result[kMaxWarpWidth] = {};
  for (uint32_t l = 0; l < n; ++l) {
    if (!(w.exec >> l & 1)) continue;
    const FragmentLane& lane = io->lanes[base + l];
    if (lane.primitive >= io->primitive_count)
      return raise_fault(w, di, ShaderFaultKind::kBadDispatch, "fragment lane names no primitive");
    result[l] = std::bit_cast<uint32_t>(interpolate<M>(lane, io->primitives[lane.primitive], k));
  }
  commit32<W>(w, di.inst.dst, result);
  return Flow::kNext;
}

enum class Quad : uint8_t { kPerm, kDdxFine, kDdyFine, kDdxCoarse, kDdyCoarse };

// Lane l's result from the lanes of its quad q = l & ~3 (i = l & 3).
template <Quad Q>
uint32_t quad_result(const uint32_t* src, uint32_t l, int32_t imm) {
  const uint32_t q = l & ~3u, i = l & 3u;
  auto diff = [&](uint32_t from, uint32_t to) {  // src[to] - src[from] as binary32
    return std::bit_cast<uint32_t>(std::bit_cast<float>(src[to]) - std::bit_cast<float>(src[from]));
  };
  if constexpr (Q == Quad::kPerm) return src[q + ((static_cast<uint32_t>(imm) >> (2 * i)) & 3u)];
  if constexpr (Q == Quad::kDdxFine) return diff(q + (i & 2u), q + (i & 2u) + 1);  // along the lane's row
  if constexpr (Q == Quad::kDdyFine) return diff(q + (i & 1u), q + (i & 1u) + 2);  // along its column
  if constexpr (Q == Quad::kDdxCoarse) return diff(q, q + 1);  // the quad's top row
  return diff(q, q + 2);                                       // kDdyCoarse: its left column
}

template <Quad Q, uint32_t W>
Flow v_quad(Warp& w, const DecodedInst& di) {
  if (!fragment_io(w, di)) return Flow::kYield;
  const uint32_t* src = w.vreg(di.inst.src[0]);
  const uint32_t n = lane_count<W>(w);
  alignas(64) uint32_t result[kMaxWarpWidth];
  for (uint32_t l = 0; l < n; ++l) result[l] = quad_result<Q>(src, l, di.inst.imm);
  commit32<W>(w, di.inst.dst, result);
  return Flow::kNext;
}

template <uint32_t W>
Flow v_export(Warp& w, const DecodedInst& di) {
  FragmentWarpIO* io = fragment_io(w, di);
  if (!io) return Flow::kYield;
  const auto slot = static_cast<uint32_t>(di.inst.imm);  // 0 .. 36: decode checked the field
  const uint32_t* value = lanes32<W>(w, di.inst.src[0], di.inst.literal, w.scratch[0]);
  // The slot's row of the warp (fragment_io.h): a register row copied under the execution mask.
  const size_t row = size_t{w.group->group_id[0]} * kFragmentExportSlots + slot;
  uint32_t* out = io->output_values + row * w.width;
  const uint32_t n = lane_count<W>(w);
  if (w.all_active) {  // the usual case (every lane of the warp carries a fragment)
    for (uint32_t l = 0; l < n; ++l) out[l] = value[l];
  } else {
    const uint32_t* m = w.lane_mask;
    for (uint32_t l = 0; l < n; ++l) out[l] = (value[l] & m[l]) | (out[l] & ~m[l]);
  }
  io->output_exported[row] |= w.exec;
  return Flow::kNext;
}

// Vertex programs (docs/isa.md §8d): slot 0..3 the clip-space position, 4 + k varying component k,
// 68 the point size (marked written, so that point lists take it instead of PIPE_STATE's).
template <uint32_t W>
Flow v_export_vertex(Warp& w, const DecodedInst& di) {
  VertexWarpIO* io = w.dispatch->params->vertex;
  if (!io)
    return raise_fault(w, di, ShaderFaultKind::kIllegalInstruction, "v_export_vertex_f32 is a vertex-program instruction");
  const auto slot = static_cast<uint32_t>(di.inst.imm);  // 0 .. 76: decode checked the field
  const uint32_t* value = lanes32<W>(w, di.inst.src[0], di.inst.literal, w.scratch[0]);
  const size_t base = first_lane(w);
  const uint32_t n = lane_count<W>(w);
  for (uint32_t l = 0; l < n; ++l) {
    if (!(w.exec >> l & 1)) continue;
    VertexLaneOutput& out = io->outputs[base + l];
    out.value[slot] = std::bit_cast<float>(value[l]);
    if (slot == kVertexPointSizeSlot) out.point_size_written = true;
  }
  return Flow::kNext;
}

// Ends the running lanes as discarded (OpKill / OpTerminateInvocation): they write nothing.
Flow v_kill(Warp& w, const DecodedInst& di) {
  FragmentWarpIO* io = fragment_io(w, di);
  if (!io) return Flow::kYield;
  io->output_killed[w.group->group_id[0]] |= w.exec;
  return end_running_lanes(w);
}

template <uint32_t W>
void fill_fragment(Handler* table) {
  using isa::Opcode;
  auto set = [&](Opcode op, Handler h) { table[static_cast<size_t>(op)] = h; };
  set(Opcode::v_interp_persp_f32, &v_interp<Interp::kPerspective, W>);
  set(Opcode::v_interp_linear_f32, &v_interp<Interp::kLinear, W>);
  set(Opcode::v_interp_flat_f32, &v_interp<Interp::kFlat, W>);
  set(Opcode::v_quad_perm_b32, &v_quad<Quad::kPerm, W>);
  set(Opcode::v_ddx_fine_f32, &v_quad<Quad::kDdxFine, W>);
  set(Opcode::v_ddy_fine_f32, &v_quad<Quad::kDdyFine, W>);
  set(Opcode::v_ddx_coarse_f32, &v_quad<Quad::kDdxCoarse, W>);
  set(Opcode::v_ddy_coarse_f32, &v_quad<Quad::kDdyCoarse, W>);
  set(Opcode::v_export_f32, &v_export<W>);
  set(Opcode::v_kill, &v_kill);
  set(Opcode::v_export_vertex_f32, &v_export_vertex<W>);
}

}  // namespace

void fill_fragment_handlers(Handler* table, uint32_t width) {
  if (width == kSpecializedWidth) fill_fragment<kSpecializedWidth>(table);
  else fill_fragment<0>(table);
}

}  // namespace gsgpu::shader
