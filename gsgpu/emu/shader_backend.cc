// The DISPATCH backend of a full build: the SIMT shader cores (gsgpu/emu/shader) run the kernel,
// the gsgpu/isa disassembler renders it for dumps.
#include <memory>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/disassembler.h"

namespace gsgpu {
namespace {

DispatchFaultKind to_fault_kind(ShaderFaultKind k) {
  switch (k) {
    case ShaderFaultKind::kNone: return DispatchFaultKind::kNone;
    case ShaderFaultKind::kMemory: return DispatchFaultKind::kMemory;
    case ShaderFaultKind::kWatchdog: return DispatchFaultKind::kWatchdog;
    case ShaderFaultKind::kIllegalInstruction: return DispatchFaultKind::kIllegalInstruction;
    case ShaderFaultKind::kPcOutOfRange: return DispatchFaultKind::kPcOutOfRange;
    case ShaderFaultKind::kBadDispatch: return DispatchFaultKind::kBadDispatch;
    case ShaderFaultKind::kCancelled: return DispatchFaultKind::kCancelled;
    case ShaderFaultKind::kBadDescriptor: return DispatchFaultKind::kBadDescriptor;
  }
  return DispatchFaultKind::kBadDispatch;
}

DispatchParams to_params(const DispatchRequest& q) {
  DispatchParams p;
  p.code_va = q.code_va;
  p.code_size = q.code_size;
  p.entry_offset = q.entry_offset;
  p.arg_va = q.arg_va;
  p.arg_size = q.arg_size;
  for (int i = 0; i < 3; ++i) {
    p.grid_size[i] = q.grid_size[i];
    p.group_size[i] = q.group_size[i];
    p.global_offset[i] = q.global_offset[i];
  }
  p.local_mem_size = q.local_mem_size;
  p.private_mem_size = q.private_mem_size;
  p.instruction_budget = q.instruction_budget;
  p.dispatch_instruction_budget = q.dispatch_instruction_budget;
  p.fragment = q.fragment;
  p.vertex = q.vertex;
  p.declared_vector_regs = q.declared_vector_regs;
  p.declared_scalar_regs = q.declared_scalar_regs;
  return p;
}

class ShaderCoreBackend final : public DispatchBackend {
 public:
  explicit ShaderCoreBackend(const ShaderCoreSettings& s)
      : cores_(ShaderConfig{s.num_cores, s.warp_width, s.host_threads, HostSimd::kAuto, s.cancel}), cancel_(s.cancel) {}

  const char* name() const override { return "gsgpu shader cores"; }

  DispatchOutcome dispatch(const DispatchRequest& request, GpuMemory& memory) override {
    DispatchResult result = cores_.run(to_params(request), memory);
    DispatchOutcome out;
    out.counters = DispatchCounterValues{result.counters.instructions_issued, result.counters.active_lane_instructions,
                                         result.counters.cycles, result.counters.work_groups, result.counters.faults};
    if (result.fault && result.fault->kind != ShaderFaultKind::kNone) {
      const ShaderFault& f = *result.fault;
      DispatchFault fault;
      fault.kind = to_fault_kind(f.kind);
      fault.pc = f.pc;
      for (int i = 0; i < 3; ++i) fault.group_id[i] = f.group_id[i];
      fault.memory = f.memory;
      fault.message = f.message;
      out.fault = std::move(fault);
    }
    return out;
  }

  std::string disassemble(const uint32_t* words, size_t count) override { return isa::disassemble(words, count); }
  uint32_t warp_width() const override { return cores_.config().warp_width; }
  bool cancel_requested() const override { return cancel_ && cancel_->load(std::memory_order_relaxed); }

 private:
  ShaderCores cores_;
  const std::atomic<bool>* cancel_;
};

}  // namespace

std::unique_ptr<DispatchBackend> make_shader_backend(const ShaderCoreSettings& settings) {
  return std::make_unique<ShaderCoreBackend>(settings);
}

}  // namespace gsgpu
