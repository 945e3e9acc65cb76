// Control flow and the warp loop.
//
// SIMT divergence uses a per-warp reconvergence stack (docs/isa.md, "Divergence"). The running
// frame is (pc, exec, rpc). A divergent v_branch_* names its reconvergence point R, which must be
// the branch's immediate post-dominator (or any post-dominator of it that the enclosing R
// post-dominates). If R differs from the running rpc, a waiting frame (R, exec, old rpc) is pushed;
// then one side runs and the other side is pushed as a frame with rpc R; a side that starts at R is
// not run at all (its lanes are already waiting there). Whenever the running pc equals rpc, the
// frame below is popped and its lanes, minus those that ended, resume.
#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {
namespace {

constexpr size_t kMaxStackDepth = 4096;

Flow pop_frame(Warp& w) {
  const Frame frame = w.stack.back();
  w.stack.pop_back();
  w.pc = frame.pc;
  w.rpc = frame.rpc;
  w.set_exec(frame.mask & ~w.exited);
  return Flow::kJumped;
}

// Lanes that ended leave every frame; a frame left without lanes is skipped.
Flow finish_lanes(Warp& w) {
  w.exited |= w.exec;
  while (!w.stack.empty()) {
    pop_frame(w);
    if (w.exec != 0) return Flow::kJumped;
  }
  w.state = WarpState::kDone;
  return Flow::kYield;
}

// `index` is the resolved instruction index of a branch operand whose byte offset is `offset`.
bool check_target(Warp& w, const DecodedInst& di, uint32_t index, int32_t offset, const char* what) {
  if (index == kTargetOutOfRange) {
    raise_fault(w, di, ShaderFaultKind::kPcOutOfRange,
                std::string(isa::op_info(di.inst.opcode).mnemonic) + ": " + what + " " +
                    std::to_string(di.pc + static_cast<uint64_t>(static_cast<int64_t>(offset))) +
                    " is outside the kernel's code");
    return false;
  }
  if (index == kTargetMidInstruction) {
    raise_fault(w, di, ShaderFaultKind::kIllegalInstruction,
                std::string(isa::op_info(di.inst.opcode).mnemonic) + ": " + what +
                    " is not the start of an instruction");
    return false;
  }
  return true;
}

// Pops frames while the running frame has reached its reconvergence point; frames whose lanes all
// ended are skipped. False when no lane is left (the warp is done).
bool reconverge(Warp& w) {
  while (w.pc == w.rpc || w.exec == 0) {
    if (w.stack.empty()) {
      w.state = WarpState::kDone;
      return false;
    }
    pop_frame(w);
  }
  return true;
}

Flow jump(Warp& w, const DecodedInst& di) {
  if (!check_target(w, di, di.target, di.inst.target, "target")) return Flow::kYield;
  w.pc = di.target;
  return Flow::kJumped;
}

Flow s_jump(Warp& w, const DecodedInst& di) { return jump(w, di); }

template <bool JumpIfNonZero>
Flow s_cbranch(Warp& w, const DecodedInst& di) {
  const bool nonzero = w.s[di.inst.src[0] - isa::kScalarOperandBase] != 0;
  if (nonzero == JumpIfNonZero) return jump(w, di);
  return Flow::kNext;
}

Flow diverge(Warp& w, const DecodedInst& di, uint64_t taken, uint64_t not_taken) {
  if (!check_target(w, di, di.reconverge, di.inst.reconverge, "reconvergence point")) return Flow::kYield;
  const uint32_t r = di.reconverge;
  if (w.stack.size() + 2 > kMaxStackDepth)
    return raise_fault(w, di, ShaderFaultKind::kIllegalInstruction,
                       "reconvergence stack overflow: divergent branches never reach their reconvergence points");
  if (r != w.rpc) {
    w.stack.push_back(Frame{r, w.rpc, w.exec});
    w.rpc = r;
  }
  const bool run_taken = di.target != r;
  const bool run_not_taken = di.next != r;
  if (run_taken && run_not_taken) {
    w.stack.push_back(Frame{di.next, r, not_taken});
    w.pc = di.target;
    w.set_exec(taken);
  } else if (run_taken) {
    w.pc = di.target;
    w.set_exec(taken);
  } else if (run_not_taken) {
    w.pc = di.next;
    w.set_exec(not_taken);
  } else {
    w.pc = r;
  }
  return Flow::kJumped;
}

template <bool TakeIfNonZero, uint32_t W>
Flow v_branch(Warp& w, const DecodedInst& di) {
  const uint64_t nonzero = nonzero_lanes<W>(w, w.vreg(di.inst.src[0]));
  const uint64_t taken = w.exec & (TakeIfNonZero ? nonzero : ~nonzero);
  const uint64_t not_taken = w.exec & ~taken;
  if (not_taken == 0) return jump(w, di);  // uniform: no stack traffic
  if (taken == 0) return Flow::kNext;
  if (!check_target(w, di, di.target, di.inst.target, "target")) return Flow::kYield;
  return diverge(w, di, taken, not_taken);
}

Flow s_barrier(Warp& w, const DecodedInst& di) {
  w.state = WarpState::kBarrier;
  w.pc = di.next;
  return Flow::kYield;
}

Flow s_end(Warp& w, const DecodedInst&) { return finish_lanes(w); }
Flow s_nop(Warp&, const DecodedInst&) { return Flow::kNext; }

template <uint32_t W>
Flow s_ballot(Warp& w, const DecodedInst& di) {
  const uint64_t mask = nonzero_lanes<W>(w, w.vreg(di.inst.src[0])) & w.exec;
  const unsigned d = di.inst.dst - isa::kScalarOperandBase;
  w.s[d] = static_cast<uint32_t>(mask);
  w.s[d + 1] = static_cast<uint32_t>(mask >> 32);
  return Flow::kNext;
}

Flow s_readfirstlane(Warp& w, const DecodedInst& di) {
  const uint32_t lane = w.exec == 0 ? 0 : static_cast<uint32_t>(std::countr_zero(w.exec));
  w.s[di.inst.dst - isa::kScalarOperandBase] = w.vreg(di.inst.src[0])[lane];
  return Flow::kNext;
}

// Value of a special register that is the same for every lane.
uint64_t uniform_special(const Warp& w, isa::SpecialReg reg) {
  using S = isa::SpecialReg;
  const DispatchParams& p = *w.dispatch->params;
  const auto index = static_cast<unsigned>(reg);
  switch (reg) {
    case S::kGroupIdX: case S::kGroupIdY: case S::kGroupIdZ:
      return w.group->group_id[index - static_cast<unsigned>(S::kGroupIdX)];
    case S::kLocalSizeX: case S::kLocalSizeY: case S::kLocalSizeZ:
      return p.group_size[index - static_cast<unsigned>(S::kLocalSizeX)];
    case S::kNumGroupsX: case S::kNumGroupsY: case S::kNumGroupsZ:
      return p.grid_size[index - static_cast<unsigned>(S::kNumGroupsX)];
    case S::kGlobalSizeX: case S::kGlobalSizeY: case S::kGlobalSizeZ: {
      const unsigned d = index - static_cast<unsigned>(S::kGlobalSizeX);
      return uint64_t{p.grid_size[d]} * p.group_size[d];
    }
    case S::kGlobalOffsetX: case S::kGlobalOffsetY: case S::kGlobalOffsetZ:
      return p.global_offset[index - static_cast<unsigned>(S::kGlobalOffsetX)];
    case S::kArgPtr: return p.arg_va;
    case S::kArgSize: return p.arg_size;
    case S::kLocalMemBase: return 0;  // local memory is its own address space starting at 0
    case S::kLocalMemSize: return p.local_mem_size;
    case S::kPrivateMemBase: return 0;  // likewise private memory
    case S::kPrivateMemSize: return p.private_mem_size;
    case S::kWarpId: return w.warp_id;
    case S::kWarpWidth: return w.width;
    default: return 0;
  }
}

Flow s_special(Warp& w, const DecodedInst& di) {
  const auto reg = static_cast<isa::SpecialReg>(di.inst.imm);
  const uint64_t value = uniform_special(w, reg);
  const unsigned d = di.inst.dst - isa::kScalarOperandBase;
  w.s[d] = static_cast<uint32_t>(value);
  if (isa::special_info(reg).wide) w.s[d + 1] = static_cast<uint32_t>(value >> 32);
  return Flow::kNext;
}

template <uint32_t W>
Flow v_special(Warp& w, const DecodedInst& di) {
  using S = isa::SpecialReg;
  const auto reg = static_cast<S>(di.inst.imm);
  const uint32_t n = lane_count<W>(w);
  alignas(64) uint64_t value[kMaxWarpWidth];
  const auto index = static_cast<unsigned>(reg);
  if (reg == S::kLocalIdX || reg == S::kLocalIdY || reg == S::kLocalIdZ) {
    const uint32_t* id = w.local_id[index - static_cast<unsigned>(S::kLocalIdX)];
    for (uint32_t l = 0; l < n; ++l) value[l] = id[l];
  } else if (reg == S::kGlobalIdX || reg == S::kGlobalIdY || reg == S::kGlobalIdZ) {
    const unsigned d = index - static_cast<unsigned>(S::kGlobalIdX);
    const DispatchParams& p = *w.dispatch->params;
    const uint64_t base = uint64_t{w.group->group_id[d]} * p.group_size[d] + p.global_offset[d];
    for (uint32_t l = 0; l < n; ++l) value[l] = base + w.local_id[d][l];
  } else if (reg == S::kLaneId) {
    for (uint32_t l = 0; l < n; ++l) value[l] = l;
  } else {
    const uint64_t uniform = uniform_special(w, reg);
    for (uint32_t l = 0; l < n; ++l) value[l] = uniform;
  }
  if (isa::special_info(reg).wide) {
    commit64<W>(w, di.inst.dst, value);
  } else {
    alignas(64) uint32_t narrow[kMaxWarpWidth];
    for (uint32_t l = 0; l < n; ++l) narrow[l] = static_cast<uint32_t>(value[l]);
    commit32<W>(w, di.inst.dst, narrow);
  }
  return Flow::kNext;
}

// Handlers for code positions that hold no executable instruction.
Flow illegal_instruction(Warp& w, const DecodedInst& di) {
  return raise_fault(w, di, ShaderFaultKind::kIllegalInstruction, "illegal instruction: " + di.decode_error);
}

Flow fell_off_end(Warp& w, const DecodedInst& di) {
  return raise_fault(w, di, ShaderFaultKind::kPcOutOfRange,
                     "execution ran past the end of the kernel's code without s_end");
}

Flow watchdog(Warp& w, const DecodedInst& di) {
  return raise_fault(w, di, ShaderFaultKind::kWatchdog,
                     "watchdog: warp " + std::to_string(w.warp_id) + " exceeded its budget of " +
                         std::to_string(w.dispatch->budget) + " instructions");
}

}  // namespace

Flow end_running_lanes(Warp& w) { return finish_lanes(w); }

Flow raise_fault(Warp& w, const DecodedInst& di, ShaderFaultKind kind, std::string message) {
  w.state = WarpState::kFaulted;
  w.fault.kind = kind;
  w.fault.pc = di.pc;
  for (int d = 0; d < 3; ++d) w.fault.group_id[d] = w.group->group_id[d];
  w.fault.message = std::move(message);
  return Flow::kYield;
}

namespace {
template <uint32_t W>
void fill_control(Handler* table) {
  using isa::Opcode;
  auto set = [&](Opcode op, Handler h) { table[static_cast<size_t>(op)] = h; };
  set(Opcode::s_jump, &s_jump);
  set(Opcode::s_cbranch_nz, &s_cbranch<true>);
  set(Opcode::s_cbranch_z, &s_cbranch<false>);
  set(Opcode::v_branch_nz, &v_branch<true, W>);
  set(Opcode::v_branch_z, &v_branch<false, W>);
  set(Opcode::s_barrier, &s_barrier);
  set(Opcode::s_end, &s_end);
  set(Opcode::s_nop, &s_nop);
  set(Opcode::s_ballot_b64, &s_ballot<W>);
  set(Opcode::s_readfirstlane_b32, &s_readfirstlane);
  set(Opcode::s_special, &s_special);
  set(Opcode::v_special, &v_special<W>);
}
}  // namespace

void fill_control_handlers(Handler* table, uint32_t width) {
  if (width == kSpecializedWidth) fill_control<kSpecializedWidth>(table);
  else fill_control<0>(table);
}

Handler illegal_instruction_handler() { return &illegal_instruction; }
Handler end_of_code_handler() { return &fell_off_end; }

void run_warp(Warp& w) {
  const DecodedInst* code = w.dispatch->program->code.data();
  const uint64_t budget = w.dispatch->budget;
  const std::atomic<bool>& stop = *w.dispatch->stop;
  const std::atomic<bool>& cancel = *w.dispatch->cancel;
  while (w.state == WarpState::kRunning) {
    if (w.pc == w.rpc && !reconverge(w)) return;
    const DecodedInst& di = code[w.pc];
    if (w.instructions >= budget) {
      watchdog(w, di);
      return;
    }
    // Another core's fault or a cancel ends the dispatch; look now and then, not every instruction.
    if ((w.instructions & 4095) == 0 &&
        (stop.load(std::memory_order_relaxed) || cancel.load(std::memory_order_relaxed)))
      return;
    ++w.instructions;
    w.active_lane_instructions += w.active_lanes;
    const Flow flow = di.handler(w, di);
    if (flow == Flow::kNext) w.pc = di.next;
    else if (flow == Flow::kYield) return;
  }
}

}  // namespace gsgpu::shader
