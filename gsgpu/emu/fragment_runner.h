// The command processor's bridge from a draw's fragment stage to the shader cores: a fragment
// program's batch of warps becomes one DispatchRequest on the device's DispatchBackend (the same
// cores that run DISPATCH), with the fragment I/O attached. A shader fault becomes the draw's fault
// text (kind, pc, message); the CP reports it as a draw fault and the device recovers with
// CP_CONTROL.RESET, as after any draw fault.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/fragment_program.h"

namespace gsgpu {

class BackendFragmentRunner final : public graphics::FragmentProgramRunner {
 public:
  // Watchdog per fragment warp: a fragment program that runs longer is treated as endless.
  static constexpr uint64_t kDefaultWarpInstructionBudget = uint64_t{1} << 20;

  BackendFragmentRunner(DispatchBackend& backend, GpuMemory& memory,
                        uint64_t warp_instruction_budget = kDefaultWarpInstructionBudget)
      : backend_(backend), memory_(memory), budget_(warp_instruction_budget) {}

  uint32_t warp_width() const override { return backend_.warp_width(); }
  std::optional<std::string> run(const graphics::FragmentProgram& program, FragmentWarpIO& io,
                                 uint32_t warps) override;

 private:
  DispatchBackend& backend_;
  GpuMemory& memory_;
  uint64_t budget_;
};

}  // namespace gsgpu
