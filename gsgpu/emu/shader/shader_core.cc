#include "gsgpu/emu/shader/shader_core.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/checked_math.h"
#include "gsgpu/emu/shader/backend.h"
#include "gsgpu/emu/shader/program_cache.h"
#include "gsgpu/emu/shader/warp.h"

namespace gsgpu {

namespace {

using shader::DispatchState;
using shader::GroupState;
using shader::Warp;
using shader::WarpState;

// Host threads created once; run() offers every worker the same job and waits for those that took
// it (a job must do all of the work when the caller runs it alone). The calling thread is worker 0
// (it would only wait otherwise), so a pool of one starts no thread: a one-core device costs no
// thread beyond its command processor's.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned count) : size_(std::max(1u, count)) {
    for (unsigned i = 1; i < size_; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      shutting_down_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned size() const { return size_; }

  void run(const std::function<void(unsigned)>& job) {
    if (threads_.empty()) {
      job(0);
      return;
    }
    std::unique_lock lock(mutex_);
    job_ = &job;
    open_ = true;
    ++generation_;
    lock.unlock();
    wake_.notify_all();
    job(0);
    lock.lock();
    // The job takes work until none is left, so the caller has done whatever a worker did not start:
    // close it to late workers and wait only for those that joined. (Waiting for every worker cost a
    // scheduler wake-up per dispatch, milliseconds on a loaded host, for a batch of 64 warps.)
    open_ = false;
    done_.wait(lock, [this] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop(unsigned index) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(unsigned)>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return shutting_down_ || (generation_ != seen && open_); });
        if (shutting_down_) return;
        seen = generation_;
        job = job_;
        ++busy_;
      }
      (*job)(index);
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  const unsigned size_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned busy_ = 0;      // workers running the current job
  bool open_ = false;      // the current job still takes workers
  uint64_t generation_ = 0;
  bool shutting_down_ = false;
};

ShaderFault bad_dispatch(std::string message) {
  ShaderFault fault;
  fault.kind = ShaderFaultKind::kBadDispatch;
  fault.message = std::move(message);
  return fault;
}

// Work-groups are dealt in chunks of consecutive groups: chunk k belongs to core k % num_cores (its
// counters), and the host threads take chunks in order as they become free. Consecutive groups touch
// consecutive memory, so a thread streams through each buffer (the host's prefetchers work within
// a 4 KiB page: dealing single groups round-robin left each page after its first kilobyte), and
// taking chunks as threads free up keeps both busy when one of them is slowed (another program on
// the host, or groups of uneven length). The chunk size depends on the dispatch and the core count
// only, so the counters do not depend on the host: about 8 chunks per core, at most 16 groups.
// Dispatches of fewer work-items than this run on the calling thread alone: for a vertex program's
// batch of 256 vertices, waking the pool cost more than the work. Only the host thread differs, so
// the results and counters are the same.
bool small_dispatch(const DispatchParams& p) {
  constexpr uint64_t kSmallDispatchItems = 1024;
  uint64_t items = 1;
  for (uint32_t n : {p.grid_size[0], p.grid_size[1], p.grid_size[2], p.group_size[0], p.group_size[1],
                     p.group_size[2]}) {
    if (__builtin_mul_overflow(items, uint64_t{n}, &items)) return false;
  }
  return items < kSmallDispatchItems;
}

uint64_t chunk_groups(uint64_t groups, uint32_t cores) {
  return std::clamp<uint64_t>(groups / (uint64_t{cores} * 8), 1, 16);
}

// Host threads for a dispatch engine: the asked-for count (0: the host's hardware threads), never
// more than the shader cores, since a thread past the last core would have no chunk to run.
unsigned host_thread_count(const ShaderConfig& config) {
  const unsigned asked = config.host_threads != 0 ? config.host_threads : std::thread::hardware_concurrency();
  return std::clamp<unsigned>(std::min({asked, kMaxHostThreads, config.num_cores}), 1, kMaxHostThreads);
}

// What the host threads of one dispatch share: its stop flag, its instructions so far and its
// faults. Per dispatch, not in Cores, so that a small dispatch (fast mode's vertex batch on its
// geometry thread, run on the calling thread) can run while another dispatch (a fragment batch on
// the merge worker) has the pool, each with its own faults and watchdog.
struct DispatchControl {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> instructions{0};
  std::mutex fault_mutex;
  std::optional<ShaderFault> first_fault;
  uint32_t fault_count = 0;
};

struct CoreTotals {
  uint64_t instructions = 0;
  uint64_t active_lane_instructions = 0;
  uint64_t work_groups = 0;
};

// The shader cores of one dispatch engine: the worker pool and the per-dispatch state.
class Cores final : public shader::Backend {
 public:
  explicit Cores(const ShaderConfig& config)
      : config_(config), pool_(host_thread_count(config)) {}

  DispatchResult run(const DispatchParams& params, GpuMemory& memory) override {
    DispatchResult result;
    if (auto fault = check_params(params)) {
      result.fault = std::move(fault);
      result.counters.faults = 1;
      return result;
    }
    // Held for the dispatch: a concurrent dispatch may replace the cache's entry meanwhile.
    const std::shared_ptr<const shader::Program> program = load_program(params, memory, &result);
    if (!program) return result;

    DispatchState state;
    state.params = &params;
    state.memory = &memory;
    state.program = program.get();
    state.width = config_.warp_width;
    state.budget = params.instruction_budget != 0 ? params.instruction_budget : kDefaultInstructionBudget;
    DispatchControl control;
    state.stop = &control.stop;
    static const std::atomic<bool> kNeverCancelled{false};
    state.cancel = config_.cancel ? config_.cancel : &kNeverCancelled;

    // Per host thread, per core: merged after the pool finishes, so no counter is shared.
    std::vector<std::vector<CoreTotals>> totals(pool_.size(), std::vector<CoreTotals>(config_.num_cores));
    std::atomic<uint64_t> next_chunk{0};
    if (small_dispatch(params)) {
      run_chunks(state, control, next_chunk, &totals[0]);
    } else {
      // No more threads than cores (host_thread_count), so a one-core device runs its groups one
      // at a time. (With several cores two chunks of one core may run at once on two threads: cores
      // only say where a chunk's counts go, which keeps the counters independent of the host.)
      // The pool runs one dispatch at a time.
      std::lock_guard serialize(pool_mutex_);
      pool_.run([&](unsigned thread) { run_chunks(state, control, next_chunk, &totals[thread]); });
    }

    std::vector<CoreTotals> cores(config_.num_cores);
    for (const std::vector<CoreTotals>& per_thread : totals) {
      for (uint32_t c = 0; c < config_.num_cores; ++c) {
        cores[c].instructions += per_thread[c].instructions;
        cores[c].active_lane_instructions += per_thread[c].active_lane_instructions;
        cores[c].work_groups += per_thread[c].work_groups;
      }
    }
    for (const CoreTotals& core : cores) {
      result.counters.instructions_issued += core.instructions;
      result.counters.active_lane_instructions += core.active_lane_instructions;
      result.counters.work_groups += core.work_groups;
      result.counters.cycles = std::max(result.counters.cycles, core.instructions);
    }
    result.counters.faults = control.fault_count;
    result.fault = control.first_fault;
    // A cancel stops the warps without a fault of their own: the dispatch did not finish.
    if (!result.fault && state.cancel->load()) {
      result.fault = cancelled_fault(params);
      result.counters.faults += 1;
    }
    return result;
  }

 private:
  std::optional<ShaderFault> check_params(const DispatchParams& p) const {
    if (config_.num_cores == 0 || config_.num_cores > kMaxShaderCores)
      return bad_dispatch("shader core count " + std::to_string(config_.num_cores) + " is not in 1.." +
                          std::to_string(kMaxShaderCores));
    if (config_.warp_width == 0 || config_.warp_width > kMaxWarpWidth)
      return bad_dispatch("warp width " + std::to_string(config_.warp_width) + " is not in 1.." +
                          std::to_string(kMaxWarpWidth));
    uint64_t group_items = 1;
    for (int d = 0; d < 3; ++d) {
      if (p.grid_size[d] == 0 || p.group_size[d] == 0)
        return bad_dispatch("grid and group sizes must be non-zero (dimension " + std::to_string(d) + ")");
      group_items *= p.group_size[d];
    }
    if (group_items > kMaxWorkGroupSize)
      return bad_dispatch("work-group of " + std::to_string(group_items) + " work-items exceeds " +
                          std::to_string(kMaxWorkGroupSize));
    if (!gsvirt::checked_mul<uint64_t>(uint64_t{p.grid_size[0]} * p.grid_size[1], p.grid_size[2]))
      return bad_dispatch("grid too large");
    if (p.local_mem_size > kMaxLocalMemSize)
      return bad_dispatch("local memory of " + std::to_string(p.local_mem_size) + " bytes exceeds " +
                          std::to_string(kMaxLocalMemSize));
    if (p.private_mem_size > kMaxPrivateMemSize)
      return bad_dispatch("private memory of " + std::to_string(p.private_mem_size) + " bytes per work-item exceeds " +
                          std::to_string(kMaxPrivateMemSize));
    if (p.code_size == 0 || p.code_size % 4 != 0)
      return bad_dispatch("code size " + std::to_string(p.code_size) + " is not a non-zero multiple of 4");
    if (p.entry_offset % 4 != 0)
      return bad_dispatch("entry offset " + std::to_string(p.entry_offset) + " is not a multiple of 4");
    if (p.fragment && p.vertex) return bad_dispatch("a dispatch is a fragment or a vertex program, not both");
    if (p.fragment) return check_fragment(p);
    if (p.vertex) return check_vertex(p);
    return std::nullopt;
  }

  // One warp per group; every warp's lanes and preloaded registers inside the I/O arrays.
  std::optional<ShaderFault> check_vertex(const DispatchParams& p) const {
    const VertexWarpIO& io = *p.vertex;
    const uint32_t width = config_.warp_width;
    if (p.group_size[0] != width || p.group_size[1] != 1 || p.group_size[2] != 1 || p.grid_size[1] != 1 ||
        p.grid_size[2] != 1)
      return bad_dispatch("a vertex dispatch is {warps, 1, 1} groups of {warp width, 1, 1}");
    if (!io.outputs || !io.lane_masks || (io.input_regs != 0 && !io.inputs) || io.input_regs > isa::kNumVectorRegs ||
        uint64_t{p.grid_size[0]} * width > io.lane_count)
      return bad_dispatch("vertex warps outside their lane arrays");
    return std::nullopt;
  }

  // A fragment dispatch: one warp per group, whole quads, every warp's lanes inside the I/O arrays.
  std::optional<ShaderFault> check_fragment(const DispatchParams& p) const {
    const FragmentWarpIO& io = *p.fragment;
    const uint32_t width = config_.warp_width;
    if (width % 4 != 0)
      return bad_dispatch("fragment programs need a warp width that holds whole 2x2 quads, not " +
                          std::to_string(width));
    if (p.group_size[0] != width || p.group_size[1] != 1 || p.group_size[2] != 1 || p.grid_size[1] != 1 ||
        p.grid_size[2] != 1)
      return bad_dispatch("a fragment dispatch is {warps, 1, 1} groups of {warp width, 1, 1}");
    if (!io.lanes || !io.preload || !io.output_values || !io.output_exported || !io.output_killed || !io.lane_masks ||
        uint64_t{p.grid_size[0]} * width > io.lane_count)
      return bad_dispatch("fragment warps outside their lane arrays");
    if (io.varying_components > kMaxFragmentVaryings)
      return bad_dispatch("more than " + std::to_string(kMaxFragmentVaryings) + " varying components");
    return std::nullopt;
  }

  // Fetches the whole code range once (one translate) and pre-decodes it, or takes the program
  // decoded before from the same words at the same address (program_cache.h). The check against
  // this dispatch's declared registers is made either way. The cache is shared by dispatches that
  // may run at once (fast mode's vertex and fragment batches): it is used under programs_mutex_
  // and its programs are shared, so an entry replaced during a dispatch lives until it ends.
  std::shared_ptr<const shader::Program> load_program(const DispatchParams& p, GpuMemory& memory,
                                                      DispatchResult* result) {
    auto fail = [&](ShaderFaultKind kind, std::string message,
                    MemoryFault mf = {}) -> std::shared_ptr<const shader::Program> {
      ShaderFault fault;
      fault.kind = kind;
      fault.pc = p.code_va + p.entry_offset;
      fault.memory = mf;
      fault.message = std::move(message);
      result->fault = fault;
      result->counters.faults = 1;
      return nullptr;
    };
    const uint8_t* bytes = memory.translate(p.code_va, p.code_size, Access::kExecute);
    if (!bytes)
      return fail(ShaderFaultKind::kMemory, "kernel code [" + std::to_string(p.code_va) + ", +" +
                                                std::to_string(p.code_size) + ") is not mapped executable",
                  MemoryFault{p.code_va, p.code_size, Access::kExecute});
    std::shared_ptr<const shader::Program> program;
    {
      std::lock_guard lock(programs_mutex_);
      program = programs_.find(p.code_va, bytes, p.code_size, p.entry_offset);
    }
    if (!program) {
      std::vector<uint32_t> words(p.code_size / 4);
      std::memcpy(words.data(), bytes, p.code_size);
      auto decoded =
          std::make_shared<shader::Program>(shader::predecode(words.data(), words.size(), p.code_va, config_.warp_width));
      if (p.entry_offset >= p.code_size)
        return fail(ShaderFaultKind::kPcOutOfRange, "entry offset " + std::to_string(p.entry_offset) +
                                                        " is outside the " + std::to_string(p.code_size) + "-byte code");
      const uint64_t entry_pc = p.code_va + p.entry_offset;
      auto it = std::find_if(decoded->code.begin(), decoded->code.end(),
                             [&](const shader::DecodedInst& di) { return di.pc == entry_pc; });
      if (it == decoded->code.end())
        return fail(ShaderFaultKind::kIllegalInstruction, "entry offset " + std::to_string(p.entry_offset) +
                                                              " is not the start of an instruction");
      decoded->entry = static_cast<uint32_t>(it - decoded->code.begin());
      std::lock_guard lock(programs_mutex_);
      program = programs_.insert(p.code_va, bytes, p.code_size, p.entry_offset, std::move(decoded));
    }
    if ((p.declared_vector_regs != 0 && program->vector_regs > p.declared_vector_regs) ||
        (p.declared_scalar_regs != 0 && program->scalar_regs > p.declared_scalar_regs))
      return fail(ShaderFaultKind::kBadDispatch,
                  "the program names " + std::to_string(program->vector_regs) + " vector and " +
                      std::to_string(program->scalar_regs) + " scalar registers, more than the declared " +
                      std::to_string(p.declared_vector_regs) + " / " + std::to_string(p.declared_scalar_regs));
    return program;
  }

  static ShaderFault cancelled_fault(const DispatchParams& p) {
    ShaderFault fault;
    fault.kind = ShaderFaultKind::kCancelled;
    fault.pc = p.code_va + p.entry_offset;
    fault.message = "cancelled by the embedding program (time budget or reset)";
    return fault;
  }

  static void record_fault(DispatchControl& control, const ShaderFault& fault) {
    std::lock_guard lock(control.fault_mutex);
    ++control.fault_count;
    if (!control.first_fault) control.first_fault = fault;
    control.stop.store(true);
  }

  // One host thread: takes chunks of work-groups until none is left, a fault or a stop.
  void run_chunks(const DispatchState& state, DispatchControl& control, std::atomic<uint64_t>& next_chunk,
                  std::vector<CoreTotals>* core_totals) {
    const DispatchParams& p = *state.params;
    const uint64_t groups = uint64_t{p.grid_size[0]} * p.grid_size[1] * p.grid_size[2];
    const uint32_t width = state.width;
    const uint64_t items = uint64_t{p.group_size[0]} * p.group_size[1] * p.group_size[2];
    const uint32_t warps_per_group = static_cast<uint32_t>((items + width - 1) / width);
    const size_t vregs = state.program->vector_regs;

    // Storage reused by every group this thread runs.
    std::vector<Warp> warps(warps_per_group);
    std::vector<uint32_t> registers(static_cast<size_t>(warps_per_group) * vregs * width);
    std::vector<uint8_t> local(p.local_mem_size);
    std::vector<uint8_t> private_mem(static_cast<size_t>(warps_per_group) * width * p.private_mem_size);
    GroupState group;
    group.local_mem = local.data();
    group.local_size = p.local_mem_size;

    for (uint32_t i = 0; i < warps_per_group; ++i)
      init_warp_identity(state, group, i, items, registers.data() + static_cast<size_t>(i) * vregs * width,
                         private_mem.data() + static_cast<size_t>(i) * width * p.private_mem_size, &warps[i]);

    const uint64_t chunk_size = chunk_groups(groups, config_.num_cores);
    const uint64_t chunks = groups / chunk_size + (groups % chunk_size != 0 ? 1 : 0);
    for (uint64_t chunk = next_chunk++; chunk < chunks; chunk = next_chunk++) {
      CoreTotals* totals = &(*core_totals)[chunk % config_.num_cores];
      const uint64_t first = chunk * chunk_size;  // < groups, as chunk < chunks
      const uint64_t end = groups - first <= chunk_size ? groups : first + chunk_size;
      for (uint64_t g = first; g < end; ++g) {
        if (!run_one_group(state, control, g, warps, registers, local, private_mem, group, totals)) return;
      }
    }
  }

  // Runs work-group g on the thread's storage; false on a fault or a stop (another core faulted,
  // or the dispatch's watchdog).
  bool run_one_group(const DispatchState& state, DispatchControl& control, uint64_t g, std::vector<Warp>& warps,
                     std::vector<uint32_t>& registers,
                     std::vector<uint8_t>& local, std::vector<uint8_t>& private_mem, GroupState& group,
                     CoreTotals* totals) {
    const DispatchParams& p = *state.params;
    if (control.stop.load(std::memory_order_relaxed) || state.cancel->load(std::memory_order_relaxed)) return false;
    if (p.dispatch_instruction_budget != 0 &&
        control.instructions.load(std::memory_order_relaxed) >= p.dispatch_instruction_budget) {
      ShaderFault fault;
      fault.kind = ShaderFaultKind::kWatchdog;
      fault.pc = p.code_va + p.entry_offset;
      fault.group_id[0] = static_cast<uint32_t>(g % p.grid_size[0]);
      fault.group_id[1] = static_cast<uint32_t>(g / p.grid_size[0] % p.grid_size[1]);
      fault.group_id[2] = static_cast<uint32_t>(g / (uint64_t{p.grid_size[0]} * p.grid_size[1]));
      fault.message = "watchdog: the dispatch exceeded its budget of " +
                      std::to_string(p.dispatch_instruction_budget) + " instructions before this work-group";
      record_fault(control, fault);
      return false;
    }
    group.group_id[0] = static_cast<uint32_t>(g % p.grid_size[0]);
    group.group_id[1] = static_cast<uint32_t>(g / p.grid_size[0] % p.grid_size[1]);
    group.group_id[2] = static_cast<uint32_t>(g / (uint64_t{p.grid_size[0]} * p.grid_size[1]));
    // Zeroed per group so that results never depend on which group ran here before.
    std::fill(registers.begin(), registers.end(), 0u);
    std::fill(local.begin(), local.end(), uint8_t{0});
    std::fill(private_mem.begin(), private_mem.end(), uint8_t{0});
    for (Warp& w : warps) reset_warp(state, &w);
    if (p.fragment) {
      start_fragment_warp(p.fragment->lane_masks[g], &warps[0]);
      preload_fragment_warp(*p.fragment, g, state.program->vector_regs, &warps[0]);
    }
    if (p.vertex) start_vertex_warp(*p.vertex, g, state.program->vector_regs, &warps[0]);
    const bool ok = run_group(control, warps);
    uint64_t group_instructions = 0;
    for (const Warp& w : warps) {
      group_instructions += w.instructions;
      totals->active_lane_instructions += w.active_lane_instructions;
    }
    totals->instructions += group_instructions;
    control.instructions.fetch_add(group_instructions, std::memory_order_relaxed);
    if (!ok) return false;
    ++totals->work_groups;
    return true;
  }

  // What a warp keeps for the whole dispatch: its storage and its work-items' local ids, which are
  // the same in every group.
  static void init_warp_identity(const DispatchState& state, const GroupState& group, uint32_t index,
                                 uint64_t items, uint32_t* registers, uint8_t* private_mem, Warp* w) {
    const DispatchParams& p = *state.params;
    w->v = registers;
    w->width = state.width;
    w->warp_id = index;
    w->private_mem = private_mem;
    w->private_size = p.private_mem_size;
    w->group = &group;
    w->dispatch = &state;
    uint64_t mask = 0;
    for (uint32_t l = 0; l < state.width; ++l) {
      const uint64_t item = uint64_t{index} * state.width + l;
      if (item < items) mask |= uint64_t{1} << l;
      w->local_id[0][l] = static_cast<uint32_t>(item % p.group_size[0]);
      w->local_id[1][l] = static_cast<uint32_t>(item / p.group_size[0] % p.group_size[1]);
      w->local_id[2][l] = static_cast<uint32_t>(item / (uint64_t{p.group_size[0]} * p.group_size[1]));
    }
    w->set_exec(mask);
    w->initial_exec = mask;
  }

  // Per-group start: entry pc, full initial mask, empty stack, zeroed scalars.
  static void reset_warp(const DispatchState& state, Warp* w) {
    // Only the scalar registers the code names: the rest are never read.
    std::memset(w->s, 0, sizeof(uint32_t) * state.program->scalar_regs);
    w->pc = state.program->entry;
    w->rpc = shader::kNoReconvergence;
    w->stack.clear();
    w->exited = 0;
    w->state = WarpState::kRunning;
    w->fault = ShaderFault{};
    w->instructions = 0;
    w->active_lane_instructions = 0;
    if (w->exec != w->initial_exec) w->set_exec(w->initial_exec);
  }

  // A fragment warp runs the lanes that carry a fragment (covered or helper); none: nothing to run.
  static void start_fragment_warp(uint64_t lanes, Warp* w) {
    w->initial_exec = lanes & w->full_mask();
    w->set_exec(w->initial_exec);
    if (w->initial_exec == 0) w->state = WarpState::kDone;
  }

  // A fragment lane's FragCoord and facing (FragmentWarpIO::preload), into the registers the program
  // names; lanes without a fragment, and rows not in preload_rows, keep their zeros.
  static void preload_fragment_warp(const FragmentWarpIO& io, uint64_t g, uint32_t program_regs, Warp* w) {
    const uint32_t regs = std::min(kFragmentPreloadRegs, program_regs);
    const size_t width = w->width;
    const uint32_t* rows = io.preload + g * kFragmentPreloadRegs * width;
    if (w->all_active && io.preload_rows == kAllPreloadRows) {  // the usual case: a row per register
      std::memcpy(w->v, rows, sizeof(uint32_t) * regs * width);
      return;
    }
    for (uint32_t r = 0; r < regs; ++r) {
      if (!(io.preload_rows >> r & 1)) continue;
      for (uint32_t l = 0; l < width; ++l) w->v[r * width + l] = rows[r * width + l] & w->lane_mask[l];
    }
  }

  // A vertex warp runs the lanes that hold a vertex, with its attributes in the first registers
  // (those the program names; it cannot read the others).
  static void start_vertex_warp(const VertexWarpIO& io, uint64_t g, uint32_t program_regs, Warp* w) {
    start_fragment_warp(io.lane_masks[g], w);
    const uint32_t regs = std::min(io.input_regs, program_regs);
    for (uint32_t l = 0; l < w->width; ++l) {
      if (!(w->initial_exec >> l & 1)) continue;
      const uint32_t* in = io.inputs + (g * w->width + l) * io.input_regs;
      for (uint32_t r = 0; r < regs; ++r) w->v[static_cast<size_t>(r) * w->width + l] = in[r];
    }
  }

  // Runs the warps of one group round-robin, each until its next barrier or its end; a barrier
  // releases once every warp still running has reached it. False on a fault or a stop.
  static bool run_group(DispatchControl& control, std::vector<Warp>& warps) {
    for (;;) {
      bool any_waiting = false;
      for (Warp& w : warps) {
        if (w.state != WarpState::kRunning) continue;
        shader::run_warp(w);
        if (w.state == WarpState::kFaulted) {
          record_fault(control, w.fault);
          return false;
        }
        if (w.state == WarpState::kRunning) return false;  // stopped because another core faulted
      }
      for (Warp& w : warps) {
        if (w.state == WarpState::kBarrier) {
          w.state = WarpState::kRunning;
          any_waiting = true;
        }
      }
      if (!any_waiting) return true;
    }
  }

  ShaderConfig config_;
  WorkerPool pool_;
  std::mutex pool_mutex_;  // the pool's dispatch (small ones run on their caller's thread)
  std::mutex programs_mutex_;
  shader::ProgramCache programs_;  // under programs_mutex_
};

}  // namespace

std::unique_ptr<shader::Backend> shader::make_backend(const ShaderConfig& config) {
  return std::make_unique<Cores>(config);
}

}  // namespace gsgpu
