// ALU instructions: the vector form computes every lane into a temporary (inactive lanes too, which
// is why every operation in alu_ops.h is total) and commits under the execution mask; the loops are
// plain structure-of-arrays loops so the host compiler vectorizes them.
#include <type_traits>

#include "gsgpu/emu/shader/alu_ops.h"
#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {
namespace {

template <int Bits>
using Word = std::conditional_t<Bits == 64, uint64_t, uint32_t>;

template <int Bits, uint32_t W>
struct Source {
  alignas(64) std::conditional_t<Bits == 64, uint64_t[kMaxWarpWidth], uint64_t[1]> wide;
  const Word<Bits>* lanes = nullptr;
  void load(Warp& w, uint16_t code, uint32_t literal, uint32_t* scratch) {
    if constexpr (Bits == 64) {
      lanes64<W>(w, code, literal, wide);
      lanes = wide;
    } else if constexpr (Bits == 32) {
      lanes = lanes32<W>(w, code, literal, scratch);
    }
  }
};

}  // namespace

namespace {

template <class Op, int D, int A, int B, int C, uint32_t W>
Flow vector_alu(Warp& w, const DecodedInst& di) {
  const isa::Instruction& in = di.inst;
  Source<A, W> a;
  Source<B, W> b;
  Source<C, W> c;
  a.load(w, in.src[0], in.literal, w.scratch[0]);
  if constexpr (B != 0) b.load(w, in.src[1], in.literal, w.scratch[1]);
  if constexpr (C != 0) c.load(w, in.src[2], in.literal, w.scratch[2]);
  alignas(64) Word<D> result[kMaxWarpWidth];
  const uint32_t n = lane_count<W>(w);
  const Word<A>* __restrict pa = a.lanes;
  const Word<B>* __restrict pb = b.lanes;
  const Word<C>* __restrict pc = c.lanes;
  for (uint32_t l = 0; l < n; ++l) {
    if constexpr (B == 0) result[l] = Op::apply(pa[l]);
    else if constexpr (C == 0) result[l] = Op::apply(pa[l], pb[l]);
    else result[l] = Op::apply(pa[l], pb[l], pc[l]);
  }
  if constexpr (D == 64) commit64<W>(w, in.dst, result);
  else commit32<W>(w, in.dst, result);
  return Flow::kNext;
}

template <int Bits>
Word<Bits> scalar_source(const Warp& w, uint16_t code, uint32_t literal) {
  if constexpr (Bits == 64) return scalar64(w, code, literal);
  else return scalar32(w, code, literal);
}

template <class Op, int D, int A, int B, int C>
Flow scalar_alu(Warp& w, const DecodedInst& di) {
  const isa::Instruction& in = di.inst;
  Word<D> result;
  const auto a = scalar_source<A>(w, in.src[0], in.literal);
  if constexpr (B == 0) {
    result = Op::apply(a);
  } else if constexpr (C == 0) {
    result = Op::apply(a, scalar_source<B>(w, in.src[1], in.literal));
  } else {
    result = Op::apply(a, scalar_source<B>(w, in.src[1], in.literal), scalar_source<C>(w, in.src[2], in.literal));
  }
  const unsigned d = in.dst - isa::kScalarOperandBase;
  w.s[d] = static_cast<uint32_t>(result);
  if constexpr (D == 64) w.s[d + 1] = static_cast<uint32_t>(static_cast<uint64_t>(result) >> 32);
  return Flow::kNext;
}

}  // namespace

namespace {
template <uint32_t W>
void fill_alu(Handler* table) {
  using isa::Opcode;
#define GSGPU_ALU(name, D, A, B, C)                                                         \
  table[static_cast<size_t>(Opcode::v_##name)] = &vector_alu<alu::name, D, A, B, C, W>;   \
  table[static_cast<size_t>(Opcode::s_##name)] = &scalar_alu<alu::name, D, A, B, C>;
#define GSGPU_LOAD(space, type, bytes, sign)
#define GSGPU_STORE(space, type, bytes)
#define GSGPU_ATOMIC(space, op_type, kind, bits)
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm)
#include "gsgpu/isa/opcodes.def"
}
}  // namespace

void fill_alu_handlers(Handler* table, uint32_t width) {
  if (width == kSpecializedWidth) fill_alu<kSpecializedWidth>(table);
  else fill_alu<0>(table);
}

}  // namespace gsgpu::shader
