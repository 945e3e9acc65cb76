// Internal state of the shader-core interpreter: the pre-decoded program, a warp's registers and
// SIMT stack, and the handlers that execute one instruction each. Not part of the public API.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/isa.h"

namespace gsgpu::shader {

struct Warp;
struct DecodedInst;

// What the warp loop does after a handler: go to DecodedInst::next, continue at the pc the handler
// set, or return to the group scheduler (barrier, end of the warp, fault).
enum class Flow : uint8_t { kNext, kJumped, kYield };
using Handler = Flow (*)(Warp&, const DecodedInst&);

// Instruction indices with a meaning of their own (branch targets that are not instructions).
constexpr uint32_t kNoReconvergence = UINT32_MAX;     // bottom of the SIMT stack
constexpr uint32_t kTargetOutOfRange = UINT32_MAX - 1;  // outside [code_va, code_va + code_size)
constexpr uint32_t kTargetMidInstruction = UINT32_MAX - 2;  // inside the code, not on a boundary

struct DecodedInst {
  Handler handler = nullptr;
  isa::Instruction inst;
  uint32_t next = 0;        // index of the following instruction (the end sentinel at the end)
  uint32_t target = 0;      // branches: instruction index or one of the constants above
  uint32_t reconverge = 0;  // v_branch_*: instruction index or one of the constants above
  uint16_t scalar_base = isa::kNoScalarBase;  // global/constant accesses: isa::scalar_base(inst)
  uint64_t pc = 0;          // GPU virtual address
  std::string decode_error; // illegal words: why they did not decode
};

struct Program {
  std::vector<DecodedInst> code;  // the last entry is the sentinel reached by falling off the end
  uint32_t entry = 0;
  uint32_t vector_regs = 1;  // registers the code names (pairs included), so warps allocate no more
  uint32_t scalar_regs = 1;
};

// Decodes the code once per dispatch. Words that do not decode become instructions that fault
// with kIllegalInstruction when (and only if) executed.
Program predecode(const uint32_t* words, size_t count, uint64_t code_va, uint32_t width);

struct DispatchState {
  const DispatchParams* params = nullptr;
  GpuMemory* memory = nullptr;
  const Program* program = nullptr;
  uint32_t width = 32;
  uint64_t budget = 0;
  const std::atomic<bool>* stop = nullptr;    // another core faulted
  const std::atomic<bool>* cancel = nullptr;  // ShaderConfig::cancel, or a flag that stays false
};

struct GroupState {
  uint32_t group_id[3] = {};
  uint8_t* local_mem = nullptr;
  uint32_t local_size = 0;
};

struct Frame {  // one entry of the SIMT reconvergence stack
  uint32_t pc;
  uint32_t rpc;
  uint64_t mask;
};

enum class WarpState : uint8_t { kRunning, kBarrier, kDone, kFaulted };

// A GpuMemory range a warp has looked up, so that most accesses skip lookup_range (and its lock).
struct CachedRange {
  uint64_t begin = 1;
  uint64_t span = 0;  // va_end - va_begin; empty until the first lookup
  uint8_t* host = nullptr;
};

// The ranges a warp used last for one access type. Several, because a kernel alternates between
// separately mapped buffers (arguments, each input, the output: one MMU segment each, with guard
// pages between); with one entry nearly every load missed. Searched in order rather than indexed
// by instruction: the search runs once per instruction (for its first active lane), not per lane,
// so a few compares are cheap, and an instruction whose lanes or iterations move between buffers
// still finds all of them. Four entries cover the common kernels (arguments + up to three buffers
// per access type). A hit leaves the order alone (vector add's loads alternate between two
// buffers, and moving the hit entry to the front cost more than the search it saved); a miss
// replaces the entries in turn.
struct RangeCache {
  static constexpr uint32_t kEntries = 4;
  CachedRange entry[kEntries];
  uint32_t next_victim = 0;
};

struct Warp {
  // Registers, structure of arrays: v[reg * width + lane].
  uint32_t* v = nullptr;
  uint32_t s[isa::kNumScalarRegs] = {};
  uint32_t width = 32;

  // SIMT state: the running frame is (pc, exec, rpc); the frames below wait on the stack.
  uint32_t pc = 0;
  uint32_t rpc = kNoReconvergence;
  uint64_t exec = 0;
  uint64_t exited = 0;
  uint64_t initial_exec = 0;  // lanes that hold a work-item of the group
  bool all_active = false;  // exec covers every lane of the warp: commits need no blend
  uint32_t active_lanes = 0;  // popcount of exec, counted once per mask change
  std::vector<Frame> stack;
  alignas(64) uint32_t lane_mask[kMaxWarpWidth] = {};  // ~0u for active lanes, for blends

  // Identity.
  uint32_t warp_id = 0;
  uint32_t local_id[3][kMaxWarpWidth] = {};
  uint8_t* private_mem = nullptr;  // width * private_size bytes, lane l at l * private_size
  uint32_t private_size = 0;
  const GroupState* group = nullptr;
  const DispatchState* dispatch = nullptr;

  RangeCache read_ranges, write_ranges, atomic_ranges;

  WarpState state = WarpState::kRunning;
  ShaderFault fault;
  uint64_t instructions = 0;
  uint64_t active_lane_instructions = 0;

  alignas(64) uint32_t scratch[3][kMaxWarpWidth];  // broadcast scalar/literal sources

  uint32_t* vreg(uint16_t code) { return v + static_cast<size_t>(code) * width; }
  uint64_t full_mask() const { return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
  void set_exec(uint64_t mask) {
    exec = mask;
    all_active = mask == full_mask();
    active_lanes = static_cast<uint32_t>(std::popcount(mask & full_mask()));
    for (uint32_t l = 0; l < width; ++l) lane_mask[l] = (mask >> l & 1) ? ~0u : 0u;
  }
};

// ---- operand access shared by the handlers ----
inline uint64_t literal64(uint32_t literal) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(literal)));
}

inline uint32_t scalar32(const Warp& w, uint16_t code, uint32_t literal) {
  return code == isa::kLiteralOperand ? literal : w.s[code - isa::kScalarOperandBase];
}
inline uint64_t scalar64(const Warp& w, uint16_t code, uint32_t literal) {
  if (code == isa::kLiteralOperand) return literal64(literal);
  const unsigned i = code - isa::kScalarOperandBase;
  return uint64_t{w.s[i]} | (uint64_t{w.s[i + 1]} << 32);
}

// Handlers are instantiated for the default warp width (W = 32, every per-lane loop has a trip count
// the host compiler knows: unrolled, no remainder) and for any width (W = 0, the warp's own width).
constexpr uint32_t kSpecializedWidth = 32;
template <uint32_t W>
inline uint32_t lane_count(const Warp& w) {
  if constexpr (W != 0) return W;
  else return w.width;
}

// Bit l set when lane l of a 32-bit register row is non-zero (branch conditions, ballots). Host
// compilers do not turn the bit-packing loop into a vector compare and mask move, so the SIMD builds
// (backend.h) say it with intrinsics; every form gives the same bits.
template <uint32_t W>
inline uint64_t nonzero_lanes(const Warp& w, const uint32_t* row) {
  const uint32_t n = lane_count<W>(w);
  uint32_t l = 0;
  uint64_t mask = 0;
#if defined(__AVX512F__)
  for (; l + 16 <= n; l += 16) {
    const __m512i v = _mm512_loadu_si512(row + l);
    mask |= uint64_t{_mm512_test_epi32_mask(v, v)} << l;
  }
#elif defined(__AVX2__)
  for (; l + 8 <= n; l += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + l));
    const __m256i zero = _mm256_cmpeq_epi32(v, _mm256_setzero_si256());
    mask |= uint64_t{static_cast<uint32_t>(~_mm256_movemask_ps(_mm256_castsi256_ps(zero)) & 0xff)} << l;
  }
#elif defined(__SSE2__)
  for (; l + 4 <= n; l += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + l));
    const __m128i zero = _mm_cmpeq_epi32(v, _mm_setzero_si128());
    mask |= uint64_t{static_cast<uint32_t>(~_mm_movemask_ps(_mm_castsi128_ps(zero)) & 0xf)} << l;
  }
#endif
  for (; l < n; ++l) mask |= uint64_t{row[l] != 0} << l;
  return mask;
}

// Lanes of a 32-bit source: the register row itself, or a broadcast of a scalar or literal.
template <uint32_t W>
inline const uint32_t* lanes32(Warp& w, uint16_t code, uint32_t literal, uint32_t* scratch) {
  if (isa::is_vreg(code)) return w.vreg(code);
  const uint32_t value = scalar32(w, code, literal);
  const uint32_t n = lane_count<W>(w);
  for (uint32_t l = 0; l < n; ++l) scratch[l] = value;
  return scratch;
}

// Lanes of a 64-bit source, assembled from the register pair.
template <uint32_t W>
inline void lanes64(Warp& w, uint16_t code, uint32_t literal, uint64_t* out) {
  const uint32_t n = lane_count<W>(w);
  if (isa::is_vreg(code)) {
    const uint32_t* lo = w.vreg(code);
    const uint32_t* hi = w.vreg(code + 1);
    for (uint32_t l = 0; l < n; ++l) out[l] = uint64_t{lo[l]} | (uint64_t{hi[l]} << 32);
    return;
  }
  const uint64_t value = scalar64(w, code, literal);
  for (uint32_t l = 0; l < n; ++l) out[l] = value;
}

// Writes lanes of a result to a vector register (pair) under the execution mask.
template <uint32_t W>
inline void commit32(Warp& w, uint16_t dst, const uint32_t* result) {
  uint32_t* d = w.vreg(dst);
  const uint32_t n = lane_count<W>(w);
  if (w.all_active) {
    for (uint32_t l = 0; l < n; ++l) d[l] = result[l];
  } else {
    const uint32_t* m = w.lane_mask;
    for (uint32_t l = 0; l < n; ++l) d[l] = (result[l] & m[l]) | (d[l] & ~m[l]);
  }
}

template <uint32_t W>
inline void commit64(Warp& w, uint16_t dst, const uint64_t* result) {
  uint32_t* lo = w.vreg(dst);
  uint32_t* hi = w.vreg(dst + 1);
  const uint32_t n = lane_count<W>(w);
  if (w.all_active) {
    for (uint32_t l = 0; l < n; ++l) {
      lo[l] = static_cast<uint32_t>(result[l]);
      hi[l] = static_cast<uint32_t>(result[l] >> 32);
    }
    return;
  }
  const uint32_t* m = w.lane_mask;
  for (uint32_t l = 0; l < n; ++l) {
    lo[l] = (static_cast<uint32_t>(result[l]) & m[l]) | (lo[l] & ~m[l]);
    hi[l] = (static_cast<uint32_t>(result[l] >> 32) & m[l]) | (hi[l] & ~m[l]);
  }
}

// Stops the warp with a fault at the current instruction.
Flow raise_fault(Warp& w, const DecodedInst& di, ShaderFaultKind kind, std::string message);

// Ends the running lanes (s_end, v_kill): they leave every frame of the SIMT stack.
Flow end_running_lanes(Warp& w);

// Runs the warp until it reaches a barrier, ends, faults or exhausts its budget.
void run_warp(Warp& w);

// Handler tables per instruction class, filled from opcodes.def, for warps of `width` lanes
// (handlers specialized for kSpecializedWidth, generic ones otherwise).
void fill_alu_handlers(Handler* table, uint32_t width);
void fill_memory_handlers(Handler* table, uint32_t width);
void fill_control_handlers(Handler* table, uint32_t width);
void fill_fragment_handlers(Handler* table, uint32_t width);
void fill_image_handlers(Handler* table, uint32_t width);
Handler handler_for(isa::Opcode op, uint32_t width);
Handler illegal_instruction_handler();
Handler end_of_code_handler();

}  // namespace gsgpu::shader
