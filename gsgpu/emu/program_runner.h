// The command processor's bridge from a draw's vertex and fragment stages to the shader cores: a
// program's batch of warps becomes one DispatchRequest on the device's DispatchBackend (the same
// cores that run DISPATCH), with the vertex or fragment I/O attached. A shader fault becomes the draw's fault
// text (kind, pc, message); the CP reports it as a draw fault and the device recovers with
// CP_CONTROL.RESET, as after any draw fault.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/graphics/fragment_program.h"

namespace gsgpu {

class BackendProgramRunner final : public graphics::ShaderProgramRunner {
 public:
  // Watchdog per vertex or fragment warp: a program that runs longer is treated as endless.
  static constexpr uint64_t kDefaultWarpInstructionBudget = uint64_t{1} << 20;
  // Watchdog for the vertex program batches of one draw, and another for its fragment program
  // batches (the runner lives for one draw): many warps each just under their own budget must not
  // occupy the cores for hours either. Checked between warps of a batch and between batches.
  static constexpr uint64_t kDefaultDrawInstructionBudget = uint64_t{1} << 32;

  BackendProgramRunner(DispatchBackend& backend, GpuMemory& memory,
                       uint64_t warp_instruction_budget = kDefaultWarpInstructionBudget,
                       uint64_t draw_instruction_budget = kDefaultDrawInstructionBudget)
      : backend_(backend), memory_(memory), budget_(warp_instruction_budget), draw_budget_(draw_instruction_budget) {}

  uint32_t warp_width() const override { return backend_.warp_width(); }
  std::optional<std::string> run(const graphics::ShaderProgram& program, FragmentWarpIO& io,
                                 uint32_t warps) override;
  std::optional<std::string> run(const graphics::ShaderProgram& program, VertexWarpIO& io, uint32_t warps) override;

 private:
  std::optional<std::string> run(const graphics::ShaderProgram& program, FragmentWarpIO* fragment,
                                 VertexWarpIO* vertex, uint32_t warps);
  // One kind of program's batches: fast mode runs vertex batches on its geometry thread while its
  // merge worker runs fragment batches, each kind in order, one batch at a time. A lock and a
  // budget per kind let the two kinds run at once, and make where a budget runs out depend only
  // on that kind's batches (which the single-thread path runs in the same order), not on how the
  // threads interleave.
  struct Stage {
    const char* name;
    std::mutex mutex;
    uint64_t instructions = 0;  // warp instructions of this draw's batches of this kind so far
  };
  std::string draw_budget_fault(const Stage& stage) const;
  DispatchBackend& backend_;
  GpuMemory& memory_;
  uint64_t budget_;
  uint64_t draw_budget_;
  Stage vertex_{"vertex"}, fragment_{"fragment"};
};

}  // namespace gsgpu
