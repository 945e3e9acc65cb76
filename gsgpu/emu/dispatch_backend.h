// What executes a DISPATCH packet: the command processor decodes and validates the packet, then
// hands a DispatchRequest to a DispatchBackend.
//
// The default backend (make_shader_backend) runs the kernel on the SIMT shader cores of
// gsgpu/emu/shader and disassembles with gsgpu/isa; keeping the command processor behind this
// small interface lets it be built, tested and fuzzed on its own, and lets tests inject a backend
// that records requests or returns chosen faults.
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

struct DispatchRequest {
  uint64_t code_va = 0;
  uint32_t code_size = 0;  // bytes
  uint32_t entry_offset = 0;
  uint64_t arg_va = 0;
  uint32_t arg_size = 0;
  uint32_t grid_size[3] = {1, 1, 1};   // work-groups
  uint32_t group_size[3] = {1, 1, 1};  // work-items per group
  uint64_t global_offset[3] = {0, 0, 0};
  uint32_t local_mem_size = 0;
  uint32_t private_mem_size = 0;
  uint64_t instruction_budget = 0;  // watchdog, per warp; 0 = the backend default
  uint64_t dispatch_instruction_budget = 0;  // watchdog for the whole dispatch (checked between groups); 0 = none
  // A fragment program of a draw (gsgpu/emu/shader/fragment_io.h); null for DISPATCH.
  FragmentWarpIO* fragment = nullptr;
  VertexWarpIO* vertex = nullptr;  // a vertex program of a draw (gsgpu/emu/shader/vertex_io.h)
  uint32_t declared_vector_regs = 0, declared_scalar_regs = 0;  // 0 = not declared
};

// Same values as the shader core's ShaderFaultKind and the SHADER_FAULT_INFO.KIND register field.
enum class DispatchFaultKind : uint32_t {
  kNone = 0,
  kMemory = 1,
  kWatchdog = 2,
  kIllegalInstruction = 3,
  kPcOutOfRange = 4,
  kBadDispatch = 5,
  kNotSupported = 6,  // no shader core in this build
  kCancelled = 7,     // ShaderCoreSettings::cancel was set
  kBadDescriptor = 8, // an image instruction met a descriptor or sampler the texture unit refuses
};

const char* dispatch_fault_name(DispatchFaultKind kind);

struct DispatchFault {
  DispatchFaultKind kind = DispatchFaultKind::kNone;
  uint64_t pc = 0;  // GPU virtual address of the faulting instruction
  uint32_t group_id[3] = {0, 0, 0};
  MemoryFault memory;  // for kMemory
  std::string message;
};

struct DispatchCounterValues {
  uint64_t instructions_issued = 0;       // warp instructions
  uint64_t active_lane_instructions = 0;  // sum of active lanes over issued instructions
  uint64_t cycles = 0;                    // functional: one instruction per cycle per core
  uint64_t work_groups = 0;
  uint32_t faults = 0;
};

struct DispatchOutcome {
  DispatchCounterValues counters;
  std::optional<DispatchFault> fault;
};

class DispatchBackend {
 public:
  virtual ~DispatchBackend() = default;
  virtual const char* name() const = 0;
  // Runs the whole dispatch to completion (or to its first fault) on `memory`.
  virtual DispatchOutcome dispatch(const DispatchRequest& request, GpuMemory& memory) = 0;
  // Readable disassembly of `count` instruction words, one instruction per line.
  virtual std::string disassemble(const uint32_t* words, size_t count) = 0;
  // Lanes per warp of the shader cores; 0 when this backend has none.
  virtual uint32_t warp_width() const { return 0; }
  // The embedding program asked to stop the running work (ShaderCoreSettings::cancel: a time
  // budget, a reset). Dispatches stop between warps; a draw's fixed-function blocks ask this
  // between triangles, so a draw of millions of triangles stops too.
  virtual bool cancel_requested() const { return false; }
};

struct ShaderCoreSettings {
  uint32_t num_cores = 4;
  uint32_t warp_width = 32;
  uint32_t host_threads = 0;  // 0 = one per core, bounded by the host's hardware threads
  // ShaderConfig::cancel: storing true ends the running dispatch with kCancelled (between
  // work-groups, or within 4096 instructions of each warp). Must outlive the backend.
  const std::atomic<bool>* cancel = nullptr;
};

// The shader-core backend when the build has one, else a backend whose every dispatch fails with
// kNotSupported and whose disassembly says so.
std::unique_ptr<DispatchBackend> make_shader_backend(const ShaderCoreSettings& settings);

}  // namespace gsgpu
