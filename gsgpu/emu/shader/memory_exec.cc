// Loads, stores and atomics. Global and constant memory go through GpuMemory with a small per-warp
// cache of ranges per access type (RangeCache in warp.h; lookup_range only when an address is in
// none of them; report_fault on a miss), so no host byte outside a mapping is ever touched. Local
// and private memory are the core's own bounds-checked windows. Every active lane's address is
// checked before any lane of the instruction touches memory, and the fault reported is the first
// faulting lane's in lane order.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {
namespace {

using isa::AtomicOp;
using isa::MemSpace;

RangeCache& ranges_for(Warp& w, Access access) {
  if (access == Access::kWrite) return w.write_ranges;
  if (access == Access::kAtomic) return w.atomic_ranges;
  return w.read_ranges;
}

inline uint8_t* in_range(const CachedRange& r, uint64_t va, uint32_t bytes) {
  const uint64_t offset = va - r.begin;
  if (offset < r.span && r.span - offset >= bytes) return r.host + offset;
  return nullptr;
}

Flow memory_fault(Warp& w, const DecodedInst& di, uint64_t address, uint32_t bytes, Access access,
                  const char* space, uint64_t limit) {
  w.fault.memory = MemoryFault{address, bytes, access};
  std::string message = std::string(isa::op_info(di.inst.opcode).mnemonic) + ": " + std::to_string(bytes) +
                        "-byte " + space + " access at " + std::to_string(address);
  if (limit != UINT64_MAX) message += " outside the " + std::to_string(limit) + "-byte window";
  else message += " is not mapped for this access";
  return raise_fault(w, di, ShaderFaultKind::kMemory, message);
}

// The cached range that holds a whole global access: found in the cache or, on a miss, looked up
// and cached. nullptr when no mapping holds the whole access.
const CachedRange* global_range(Warp& w, uint64_t va, uint32_t bytes, Access access) {
  RangeCache& cache = ranges_for(w, access);
  for (const CachedRange& r : cache.entry)
    if (in_range(r, va, bytes)) return &r;
  GpuMemory::Range range;
  if (!w.dispatch->memory->lookup_range(va, access, &range) || range.va_end <= range.va_begin) return nullptr;
  CachedRange& victim = cache.entry[cache.next_victim];
  cache.next_victim = (cache.next_victim + 1) % RangeCache::kEntries;
  victim = CachedRange{range.va_begin, range.va_end - range.va_begin, range.host};
  return in_range(victim, va, bytes) ? &victim : nullptr;
}

// Host pointer for a global access; nullptr when no mapping holds all of it.
uint8_t* global_pointer(Warp& w, uint64_t va, uint32_t bytes, Access access) {
  const CachedRange* r = global_range(w, va, bytes, access);
  return r ? in_range(*r, va, bytes) : nullptr;
}

// What lane_pointers found: a fault (raised), or a pointer per lane, which for kUniform is the same
// pointer in every lane (kernel arguments, which compiled code reads in every lane), so a load can
// read once and broadcast. kCoalesced (every lane active, lane l at ptrs[0] + l * size) fills only
// ptrs[0] for loads and stores, which copy the whole block, and every lane for atomics.
enum class Lanes : uint8_t { kFault, kEach, kUniform, kCoalesced };

// A coalesced access: every lane active and lane l at lane 0's address + l * bytes (`p[i]` with i
// the work-item's id), the pattern GPU memory systems merge into whole-line transactions. The block
// is translated and bounds-checked once, at both ends; false (and nothing translated) otherwise, or
// when the block leaves one mapping — the lane-by-lane path then reports the exact faulting lane.
template <uint32_t W>
bool coalesced(Warp& w, const uint32_t* lo, const uint32_t* hi, uint64_t offset, uint32_t bytes, Access access,
               uint8_t** ptrs) {
  const uint32_t n = lane_count<W>(w);
  // The low words step by `bytes` without wrapping and the high words are equal: addresses contiguous.
  if (uint64_t{lo[0]} + uint64_t{n} * bytes > (uint64_t{1} << 32)) return false;
  uint32_t stray = 0;
  for (uint32_t l = 0; l < n; ++l) stray |= (lo[l] - lo[0] - l * bytes) | (hi[l] ^ hi[0]);
  if (stray) return false;
  const uint64_t va = ((uint64_t{hi[0]} << 32) | lo[0]) + offset;
  uint8_t* block = global_pointer(w, va, n * bytes, access);
  if (!block) return false;
  ptrs[0] = block;
  if (access == Access::kAtomic)
    for (uint32_t l = 1; l < n; ++l) ptrs[l] = block + size_t{l} * bytes;
  return true;
}

// Reports a global or constant access that no mapping holds.
Lanes global_fault(Warp& w, const DecodedInst& di, uint64_t va, uint32_t bytes, Access access, MemSpace space) {
  w.dispatch->memory->report_fault(MemoryFault{va, bytes, access});
  memory_fault(w, di, va, bytes, access, space == MemSpace::kGlobal ? "global" : "constant", UINT64_MAX);
  return Lanes::kFault;
}

// Pointers for every active lane of a vector access, checked before any lane touches memory.
template <MemSpace Space, uint32_t W>
Lanes lane_pointers(Warp& w, const DecodedInst& di, uint32_t bytes, Access access, uint8_t** ptrs) {
  const isa::Instruction& in = di.inst;
  const uint32_t n = lane_count<W>(w);
  const uint64_t exec = w.exec;
  if (exec == 0) return Lanes::kEach;
  if constexpr (Space == MemSpace::kGlobal || Space == MemSpace::kConstant) {
    // address = vector address + scalar base + imm19, modulo 2^64; base and immediate are the
    // same for every lane, so they form one offset and every check below sees the full address.
    const uint16_t base = di.scalar_base;
    const uint64_t offset = static_cast<uint64_t>(static_cast<int64_t>(in.imm)) +
                            (base != isa::kNoScalarBase ? scalar64(w, base, 0) : 0);
    // A scalar or literal address is the same in every lane: one translation serves the warp.
    if (!isa::is_vreg(in.src[0])) {
      const uint64_t va = scalar64(w, in.src[0], in.literal) + offset;
      uint8_t* p = global_pointer(w, va, bytes, access);
      if (!p) return global_fault(w, di, va, bytes, access, Space);
      for (uint32_t l = 0; l < n; ++l) ptrs[l] = p;
      return Lanes::kUniform;
    }
    const uint32_t* lo = w.vreg(in.src[0]);
    const uint32_t* hi = w.vreg(in.src[0] + 1);
    if (w.all_active && coalesced<W>(w, lo, hi, offset, bytes, access, ptrs)) return Lanes::kCoalesced;
    // Fast path: the lanes of one instruction nearly always fall in one mapping, so the first
    // active lane's range (the first lane in lane order: its fault is the one to report) is
    // translated once and every lane is checked against it in one vectorizable pass.
    const uint32_t first = static_cast<uint32_t>(std::countr_zero(exec));
    const uint64_t first_va = ((uint64_t{hi[first]} << 32) | lo[first]) + offset;
    const CachedRange* first_range = global_range(w, first_va, bytes, access);
    if (!first_range) return global_fault(w, di, first_va, bytes, access, Space);
    uint8_t* const first_ptr = in_range(*first_range, first_va, bytes);
    // Every active lane at the first lane's address: nothing more to check (32-bit rows, cheap).
    uint32_t differ = 0;
    for (uint32_t l = 0; l < n; ++l) differ |= ((lo[l] ^ lo[first]) | (hi[l] ^ hi[first])) & w.lane_mask[l];
    if (!differ) {
      for (uint32_t l = 0; l < n; ++l) ptrs[l] = first_ptr;
      return Lanes::kUniform;
    }
    const CachedRange& r = *first_range;
    const uint64_t last = r.span - bytes;  // r.span >= bytes: the first lane's access fits
    const uint64_t bias = offset - r.begin;
    uint64_t outside = 0;
    alignas(64) uint64_t rel[kMaxWarpWidth];
    for (uint32_t l = 0; l < n; ++l) {
      // Inactive lanes get offset 0: a pointer into the range that is never dereferenced.
      const uint64_t active = uint64_t{w.lane_mask[l]} << 32 | w.lane_mask[l];
      rel[l] = (((uint64_t{hi[l]} << 32) | lo[l]) + bias) & active;
      // Bit 63 is set when last < rel, unsigned: the borrow of last - rel (Hacker's Delight 2-12),
      // written with the and/or/sub that SSE2 has for 64-bit lanes (it has no 64-bit compare).
      outside |= (~last & rel[l]) | ((~last | rel[l]) & (last - rel[l]));
    }
    if (!(outside >> 63)) {
      for (uint32_t l = 0; l < n; ++l) ptrs[l] = r.host + rel[l];
      return Lanes::kEach;
    }
    // Lanes in several mappings, or a fault: lane by lane, so the first faulting lane is reported.
    for (uint32_t l = 0; l < n; ++l) {
      if (!(exec >> l & 1)) continue;
      const uint64_t va = ((uint64_t{hi[l]} << 32) | lo[l]) + offset;
      uint8_t* p = global_pointer(w, va, bytes, access);
      if (!p) return global_fault(w, di, va, bytes, access, Space);
      ptrs[l] = p;
    }
  } else {
    const uint32_t* base = lanes32<W>(w, in.src[0], in.literal, w.scratch[0]);
    const bool local = Space == MemSpace::kLocal;
    const uint64_t limit = local ? w.group->local_size : w.private_size;
    for (uint32_t l = 0; l < n; ++l) {
      if (!(exec >> l & 1)) continue;
      const uint64_t offset = uint64_t{base[l]} + static_cast<uint64_t>(static_cast<int64_t>(in.imm));
      if (offset > limit || limit - offset < bytes) {
        memory_fault(w, di, offset, bytes, access, local ? "local" : "private", limit);
        return Lanes::kFault;
      }
      ptrs[l] = local ? w.group->local_mem + offset
                      : w.private_mem + static_cast<size_t>(l) * w.private_size + offset;
    }
  }
  return Lanes::kEach;
}

template <uint32_t Bytes, bool Sign>
uint64_t read_value(const uint8_t* p) {
  if constexpr (Bytes == 1) return Sign ? uint32_t(int32_t(int8_t(*p))) : *p;
  if constexpr (Bytes == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return Sign ? uint32_t(int32_t(int16_t(v))) : v;
  }
  if constexpr (Bytes == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

template <MemSpace Space, uint32_t Bytes, bool Sign, uint32_t W>
Flow vector_load(Warp& w, const DecodedInst& di) {
  uint8_t* ptrs[kMaxWarpWidth];
  const Lanes lanes = lane_pointers<Space, W>(w, di, Bytes, Access::kRead, ptrs);
  if (lanes == Lanes::kFault) return Flow::kYield;
  const uint32_t n = lane_count<W>(w);
  const uint64_t exec = w.exec;
  uint32_t* lo = w.vreg(di.inst.dst);
  if (lanes == Lanes::kCoalesced) {
    const uint8_t* block = ptrs[0];
    if constexpr (Bytes == 4) {
      std::memcpy(lo, block, size_t{n} * 4);
    } else if constexpr (Bytes == 8) {
      uint32_t* hi = w.vreg(di.inst.dst + 1);
      for (uint32_t l = 0; l < n; ++l) {
        const uint64_t v = read_value<8, false>(block + size_t{l} * 8);
        lo[l] = static_cast<uint32_t>(v);
        hi[l] = static_cast<uint32_t>(v >> 32);
      }
    } else {
      for (uint32_t l = 0; l < n; ++l) lo[l] = static_cast<uint32_t>(read_value<Bytes, Sign>(block + size_t{l} * Bytes));
    }
  } else if (lanes == Lanes::kUniform) {
    // One read broadcast (push constants, kernel arguments): a blend under the lane masks rather
    // than a test per lane, so the loops vectorize (a fragment warp's 4 constant loads were about
    // 8 % of a flat fill's host instructions).
    const uint64_t v = read_value<Bytes, Sign>(ptrs[0]);
    const auto v_lo = static_cast<uint32_t>(v), v_hi = static_cast<uint32_t>(v >> 32);
    uint32_t* hi = Bytes == 8 ? w.vreg(di.inst.dst + 1) : nullptr;
    if (w.all_active) {
      std::fill_n(lo, n, v_lo);
      if constexpr (Bytes == 8) std::fill_n(hi, n, v_hi);
    } else {
      const uint32_t* m = w.lane_mask;
      for (uint32_t l = 0; l < n; ++l) lo[l] = (lo[l] & ~m[l]) | (v_lo & m[l]);
      if constexpr (Bytes == 8)
        for (uint32_t l = 0; l < n; ++l) hi[l] = (hi[l] & ~m[l]) | (v_hi & m[l]);
    }
  } else if constexpr (Bytes == 8) {
    uint32_t* hi = w.vreg(di.inst.dst + 1);
    for (uint32_t l = 0; l < n; ++l) {
      if (!(exec >> l & 1)) continue;
      const uint64_t v = read_value<8, false>(ptrs[l]);
      lo[l] = static_cast<uint32_t>(v);
      hi[l] = static_cast<uint32_t>(v >> 32);
    }
  } else if (w.all_active) {
    for (uint32_t l = 0; l < n; ++l) lo[l] = static_cast<uint32_t>(read_value<Bytes, Sign>(ptrs[l]));
  } else {
    for (uint32_t l = 0; l < n; ++l)
      if (exec >> l & 1) lo[l] = static_cast<uint32_t>(read_value<Bytes, Sign>(ptrs[l]));
  }
  return Flow::kNext;
}

template <MemSpace Space, uint32_t Bytes, uint32_t W>
Flow vector_store(Warp& w, const DecodedInst& di) {
  uint8_t* ptrs[kMaxWarpWidth];
  const Lanes lanes = lane_pointers<Space, W>(w, di, Bytes, Access::kWrite, ptrs);
  if (lanes == Lanes::kFault) return Flow::kYield;
  const uint32_t n = lane_count<W>(w);
  const uint64_t exec = w.exec;
  if constexpr (Bytes == 8) {
    alignas(64) uint64_t data[kMaxWarpWidth];
    lanes64<W>(w, di.inst.src[1], di.inst.literal, data);
    if (lanes == Lanes::kCoalesced) {
      std::memcpy(ptrs[0], data, size_t{n} * 8);  // little-endian: lane order is memory order
      return Flow::kNext;
    }
    for (uint32_t l = 0; l < n; ++l)
      if (exec >> l & 1) std::memcpy(ptrs[l], &data[l], 8);
  } else {
    const uint32_t* data = lanes32<W>(w, di.inst.src[1], di.inst.literal, w.scratch[1]);
    if (lanes == Lanes::kCoalesced) {
      if constexpr (Bytes == 4) std::memcpy(ptrs[0], data, size_t{n} * 4);
      else for (uint32_t l = 0; l < n; ++l) std::memcpy(ptrs[0] + size_t{l} * Bytes, &data[l], Bytes);
    } else if (w.all_active) {
      for (uint32_t l = 0; l < n; ++l) std::memcpy(ptrs[l], &data[l], Bytes);
    } else {
      for (uint32_t l = 0; l < n; ++l)
        if (exec >> l & 1) std::memcpy(ptrs[l], &data[l], Bytes);  // little-endian: the low bytes
    }
  }
  return Flow::kNext;
}

template <AtomicOp Op, typename T>
T atomic_apply(T* p, T data, T compare) {
  std::atomic_ref<T> ref(*p);
  using S = std::make_signed_t<T>;
  switch (Op) {
    case AtomicOp::kAdd: return ref.fetch_add(data);
    case AtomicOp::kSub: return ref.fetch_sub(data);
    case AtomicOp::kAnd: return ref.fetch_and(data);
    case AtomicOp::kOr: return ref.fetch_or(data);
    case AtomicOp::kXor: return ref.fetch_xor(data);
    case AtomicOp::kXchg: return ref.exchange(data);
    case AtomicOp::kCmpxchg: {
      T expected = compare;
      ref.compare_exchange_strong(expected, data);
      return expected;  // the old value whether or not the exchange happened
    }
    default: {  // min / max: a compare-exchange loop
      T old = ref.load();
      for (;;) {
        T wanted = old;
        if (Op == AtomicOp::kMinS) wanted = S(data) < S(old) ? data : old;
        if (Op == AtomicOp::kMaxS) wanted = S(data) > S(old) ? data : old;
        if (Op == AtomicOp::kMinU) wanted = data < old ? data : old;
        if (Op == AtomicOp::kMaxU) wanted = data > old ? data : old;
        if (wanted == old || ref.compare_exchange_weak(old, wanted)) return old;
      }
    }
  }
}

// Atomics are real host atomics even on local memory (whose group runs on one thread) so that one
// code path serves both; they need natural alignment, as std::atomic_ref does.
template <MemSpace Space, AtomicOp Op, uint32_t Bits, uint32_t W>
Flow vector_atomic(Warp& w, const DecodedInst& di) {
  using T = std::conditional_t<Bits == 64, uint64_t, uint32_t>;
  constexpr uint32_t bytes = Bits / 8;
  uint8_t* ptrs[kMaxWarpWidth];
  if (lane_pointers<Space, W>(w, di, bytes, Access::kAtomic, ptrs) == Lanes::kFault) return Flow::kYield;
  const uint32_t n = lane_count<W>(w);
  const uint64_t exec = w.exec;
  for (uint32_t l = 0; l < n; ++l) {
    if ((exec >> l & 1) && reinterpret_cast<uintptr_t>(ptrs[l]) % bytes != 0) {
      w.fault.memory = MemoryFault{0, bytes, Access::kAtomic};
      return raise_fault(w, di, ShaderFaultKind::kMemory,
                         std::string(isa::op_info(di.inst.opcode).mnemonic) + ": lane " + std::to_string(l) +
                             " address is not " + std::to_string(bytes) + "-byte aligned");
    }
  }
  alignas(64) uint64_t data[kMaxWarpWidth];
  alignas(64) uint64_t compare[kMaxWarpWidth] = {};
  alignas(64) uint64_t old[kMaxWarpWidth] = {};
  if constexpr (Bits == 64) {
    lanes64<W>(w, di.inst.src[1], di.inst.literal, data);
    if (Op == AtomicOp::kCmpxchg) lanes64<W>(w, di.inst.src[2], di.inst.literal, compare);
  } else {
    const uint32_t* d = lanes32<W>(w, di.inst.src[1], di.inst.literal, w.scratch[1]);
    for (uint32_t l = 0; l < n; ++l) data[l] = d[l];
    if (Op == AtomicOp::kCmpxchg) {
      const uint32_t* c = lanes32<W>(w, di.inst.src[2], di.inst.literal, w.scratch[2]);
      for (uint32_t l = 0; l < n; ++l) compare[l] = c[l];
    }
  }
  for (uint32_t l = 0; l < n; ++l) {
    if (!(exec >> l & 1)) continue;
    old[l] = atomic_apply<Op, T>(reinterpret_cast<T*>(ptrs[l]), static_cast<T>(data[l]), static_cast<T>(compare[l]));
  }
  if constexpr (Bits == 64) {
    commit64<W>(w, di.inst.dst, old);
  } else {
    alignas(64) uint32_t narrow[kMaxWarpWidth];
    for (uint32_t l = 0; l < n; ++l) narrow[l] = static_cast<uint32_t>(old[l]);
    commit32<W>(w, di.inst.dst, narrow);
  }
  return Flow::kNext;
}

template <uint32_t Bytes>
Flow scalar_load(Warp& w, const DecodedInst& di) {
  const uint64_t va = scalar64(w, di.inst.src[0], di.inst.literal) + static_cast<uint64_t>(static_cast<int64_t>(di.inst.imm));
  const uint8_t* p = global_pointer(w, va, Bytes, Access::kRead);
  if (!p) {
    w.dispatch->memory->report_fault(MemoryFault{va, Bytes, Access::kRead});
    return memory_fault(w, di, va, Bytes, Access::kRead, "scalar", UINT64_MAX);
  }
  const unsigned d = di.inst.dst - isa::kScalarOperandBase;
  std::memcpy(&w.s[d], p, Bytes);
  return Flow::kNext;
}

template <uint32_t W>
void fill_memory(Handler* table) {
  using isa::Opcode;
#define GSGPU_SPACE_global MemSpace::kGlobal
#define GSGPU_SPACE_const MemSpace::kConstant
#define GSGPU_SPACE_local MemSpace::kLocal
#define GSGPU_SPACE_private MemSpace::kPrivate
#define GSGPU_ALU(name, D, A, B, C)
#define GSGPU_LOAD(space, type, bytes, sign) \
  table[static_cast<size_t>(Opcode::space##_load_##type)] = &vector_load<GSGPU_SPACE_##space, bytes, sign, W>;
#define GSGPU_STORE(space, type, bytes) \
  table[static_cast<size_t>(Opcode::space##_store_##type)] = &vector_store<GSGPU_SPACE_##space, bytes, W>;
#define GSGPU_ATOMIC(space, op_type, kind, bits) \
  table[static_cast<size_t>(Opcode::space##_atomic_##op_type)] = &vector_atomic<GSGPU_SPACE_##space, AtomicOp::kind, bits, W>;
#define GSGPU_OTHER(name, format, dst, src0, src1, src2, imm)
#include "gsgpu/isa/opcodes.def"
  table[static_cast<size_t>(Opcode::s_load_b32)] = &scalar_load<4>;
  table[static_cast<size_t>(Opcode::s_load_b64)] = &scalar_load<8>;
}

}  // namespace

void fill_memory_handlers(Handler* table, uint32_t width) {
  if (width == kSpecializedWidth) fill_memory<kSpecializedWidth>(table);
  else fill_memory<0>(table);
}

}  // namespace gsgpu::shader
