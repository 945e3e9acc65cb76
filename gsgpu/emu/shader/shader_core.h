// The SIMT shader cores of gsgpu: runs a compute dispatch of gsgpu ISA code (gsgpu/isa) over a grid of
// work-groups, functionally (one instruction per cycle per core).
//
// Model: a work-group is split into warps of `warp_width` lanes (work-item i of the group is lane
// i % W of warp i / W, items numbered x-fastest). Work-groups are dealt in chunks of consecutive
// groups (about 8 chunks per core, at most 16 groups each): chunk k is core k % num_cores's. A pool
// of host threads created once per ShaderCores (no more of them than cores) takes the chunks in
// order as threads free up. The warps of one group run cooperatively on one host thread and switch at
// barriers. Every global/constant access goes through GpuMemory; local memory (per group) and private
// memory (per work-item) are bounds-checked windows owned by the core.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/fragment_io.h"
#include "gsgpu/emu/shader/vertex_io.h"

namespace gsgpu {

namespace shader {
class Backend;
}

// Which build of the interpreter runs the cores (gsgpu/emu/shader/backend.h). kAuto: GSGPU_SIMD
// (baseline, avx2, avx512) if set, else the widest the host supports. All give identical results.
enum class HostSimd : uint8_t { kAuto, kBaseline, kAvx2, kAvx512 };
const char* host_simd_name(HostSimd simd);
bool host_supports(HostSimd simd);

struct ShaderConfig {
  uint32_t num_cores = 4;
  uint32_t warp_width = 32;   // 1..64 lanes
  uint32_t host_threads = 0;  // 0 = the host's hardware threads; never more than num_cores
  HostSimd simd = HostSimd::kAuto;
  // When set, the embedding program may end a running dispatch by storing true here: the cores
  // look at it between work-groups and every 4096 instructions of a warp (as they look for another
  // core's fault), and the dispatch ends with kCancelled. It stays set until its owner clears it
  // (a dispatch that starts while it is set is cancelled at once).
  const std::atomic<bool>* cancel = nullptr;
};

// Limits checked by run(); a dispatch beyond them ends with kBadDispatch.
constexpr uint32_t kMaxWarpWidth = 64;
constexpr uint32_t kMaxShaderCores = 4096;
constexpr uint32_t kMaxHostThreads = 256;  // more requested host threads are clamped to this
constexpr uint64_t kMaxWorkGroupSize = 1024;            // work-items per group
constexpr uint32_t kMaxLocalMemSize = 1u << 20;         // bytes per group
constexpr uint32_t kMaxPrivateMemSize = 64u << 10;      // bytes per work-item
constexpr uint64_t kDefaultInstructionBudget = 1ull << 27;  // per warp, when the dispatch gives 0

struct DispatchParams {
  uint64_t code_va = 0;
  uint32_t code_size = 0;  // the kernel's code in GPU memory; a PC outside [code_va, code_va+code_size) is a fault
  uint32_t entry_offset = 0;
  uint64_t arg_va = 0;
  uint32_t arg_size = 0;   // argument buffer (read through constant/scalar loads)
  uint32_t grid_size[3] = {1, 1, 1};   // number of work-groups per dimension
  uint32_t group_size[3] = {1, 1, 1};  // work-items per group per dimension
  uint64_t global_offset[3] = {0, 0, 0};
  uint32_t local_mem_size = 0;    // bytes per work-group
  uint32_t private_mem_size = 0;  // bytes per work-item
  uint64_t instruction_budget = 0;  // watchdog: max instructions per warp; 0 = kDefaultInstructionBudget
  // Watchdog for the whole dispatch (warp instructions summed over all groups), checked between
  // work-groups, so a huge grid of short kernels cannot occupy the cores for hours; 0 = no limit.
  uint64_t dispatch_instruction_budget = 0;
  // Register counts the program was declared with (SHADER_STATE.REGISTERS); a program that names a
  // register at or past them ends with kBadDispatch before it runs. 0 = not declared (compute).
  uint32_t declared_vector_regs = 0;
  uint32_t declared_scalar_regs = 0;
  // A fragment program (fragment_io.h): the grid is {warps, 1, 1} of groups {warp_width, 1, 1},
  // one warp per group, and the fragment instructions (v_interp_*, v_export_f32, ...) read and
  // write this. Null for a compute dispatch, where those instructions fault.
  FragmentWarpIO* fragment = nullptr;
  // A vertex program (vertex_io.h): the same grid, registers v0 .. v(input_regs - 1) preloaded per
  // lane, v_export_vertex_f32 writes the outputs. At most one of fragment / vertex is set.
  VertexWarpIO* vertex = nullptr;
};

enum class ShaderFaultKind {
  kNone,
  kMemory,
  kWatchdog,
  kIllegalInstruction,
  kPcOutOfRange,
  kBadDispatch,  // e.g. zero sizes, too many lanes
  kCancelled,    // ShaderConfig::cancel was set
  kBadDescriptor,  // an image instruction met an IMAGE_DESC or SAMPLER_STATE the texture unit refuses
};

struct ShaderFault {
  ShaderFaultKind kind = ShaderFaultKind::kNone;
  uint64_t pc = 0;  // GPU virtual address of the faulting instruction
  uint32_t group_id[3] = {};
  MemoryFault memory;  // kMemory: address (VA, or offset for local/private), size, access
  std::string message;
};

struct DispatchCounters {
  uint64_t instructions_issued = 0;       // warp instructions
  uint64_t active_lane_instructions = 0;  // sum of active lanes over issued instructions
  uint64_t cycles = 0;  // functional: one instruction per cycle per core; the busiest core's count
  uint64_t work_groups = 0;  // completed work-groups
  uint32_t faults = 0;
};

struct DispatchResult {
  DispatchCounters counters;
  std::optional<ShaderFault> fault;
};

class ShaderCores {
 public:
  explicit ShaderCores(const ShaderConfig& config);
  ~ShaderCores();
  ShaderCores(const ShaderCores&) = delete;
  ShaderCores& operator=(const ShaderCores&) = delete;

  // Blocks until the dispatch finishes or faults. Dispatches from several threads may overlap:
  // each keeps its own faults and watchdog; those large enough for the host thread pool take it one
  // at a time, the small ones run on their caller's thread.
  DispatchResult run(const DispatchParams& params, GpuMemory& memory);
  const ShaderConfig& config() const { return config_; }
  HostSimd simd() const { return simd_; }  // the build chosen, never kAuto

 private:
  ShaderConfig config_;
  HostSimd simd_;
  std::unique_ptr<shader::Backend> impl_;
};

const char* shader_fault_name(ShaderFaultKind k);

}  // namespace gsgpu
