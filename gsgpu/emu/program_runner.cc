// Fragment warps as a dispatch on the device's backend (see program_runner.h).
#include "gsgpu/emu/program_runner.h"

#include <cinttypes>
#include <cstdio>

namespace gsgpu {

std::optional<std::string> BackendProgramRunner::run(const graphics::ShaderProgram& program, FragmentWarpIO& io,
                                                     uint32_t warps) {
  return run(program, &io, nullptr, warps);
}

std::optional<std::string> BackendProgramRunner::run(const graphics::ShaderProgram& program, VertexWarpIO& io,
                                                     uint32_t warps) {
  return run(program, nullptr, &io, warps);
}

std::optional<std::string> BackendProgramRunner::run(const graphics::ShaderProgram& program, FragmentWarpIO* fragment,
                                                     VertexWarpIO* vertex, uint32_t warps) {
  Stage& stage = fragment ? fragment_ : vertex_;
  std::lock_guard serialize(stage.mutex);
  if (stage.instructions >= draw_budget_) return draw_budget_fault(stage);
  DispatchRequest request;
  request.code_va = program.code_va;
  request.code_size = program.code_size;
  request.entry_offset = program.entry_offset;
  request.arg_va = program.constants_va;  // the draw's constant buffer (push constants)
  request.arg_size = program.constants_size;
  request.grid_size[0] = warps;
  request.group_size[0] = backend_.warp_width();
  request.instruction_budget = budget_;
  request.dispatch_instruction_budget = draw_budget_ - stage.instructions;
  request.fragment = fragment;
  request.vertex = vertex;
  request.declared_vector_regs = program.vector_regs;
  request.declared_scalar_regs = program.scalar_regs;
  const DispatchOutcome outcome = backend_.dispatch(request, memory_);
  stage.instructions += outcome.counters.instructions_issued;
  if (!outcome.fault) {
    if (stage.instructions > draw_budget_) return draw_budget_fault(stage);
    return std::nullopt;
  }
  char pc[32];
  std::snprintf(pc, sizeof pc, "0x%" PRIx64, outcome.fault->pc);
  return std::string(fragment ? "fragment" : "vertex") + " program fault " + dispatch_fault_name(outcome.fault->kind) +
         " at pc " + pc + ": " + outcome.fault->message;
}

std::string BackendProgramRunner::draw_budget_fault(const Stage& stage) const {
  return std::string("watchdog: the draw's ") + stage.name + " programs exceeded their budget of " +
         std::to_string(draw_budget_) + " instructions (" + std::to_string(stage.instructions) + " issued)";
}

}  // namespace gsgpu
