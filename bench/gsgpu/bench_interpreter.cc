// Interpreter throughput on hand-written gsgpu kernels (vadd.s, vadd_vargs.s, mandelbrot.s, sgemm.s;
// vector add also over separately mapped buffers, through the MMU):
// lane-instructions per second (active lanes summed over issued instructions) on one host thread
// running one shader core, plus the same with every host thread. Results are verified once per
// benchmark so a fast wrong interpreter cannot pass. docs/perf/gsgpu-interpreter.md has figures.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gsgpu/emu/mmu.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/assembler.h"

namespace {

using namespace gsgpu;

class FlatMemory : public GpuMemory {
 public:
  explicit FlatMemory(size_t size) : bytes_(size) {}
  uint8_t* translate(uint64_t va, uint64_t size, Access) override {
    if (va < kBase || size > bytes_.size() || va - kBase > bytes_.size() - size) return nullptr;
    return &bytes_[va - kBase];
  }
  bool lookup_range(uint64_t va, Access, Range* out) override {
    if (va < kBase || va - kBase >= bytes_.size()) return false;
    *out = Range{kBase, kBase + bytes_.size(), bytes_.data()};
    return true;
  }
  void report_fault(const MemoryFault&) override {}
  uint64_t alloc(size_t size) {
    next_ = (next_ + 255) & ~size_t{255};
    const uint64_t va = kBase + next_;
    next_ += size;
    if (next_ > bytes_.size()) throw std::runtime_error("bench memory exhausted");
    return va;
  }
  template <typename T>
  T* at(uint64_t va) { return reinterpret_cast<T*>(&bytes_[va - kBase]); }

 private:
  static constexpr uint64_t kBase = 0x100000000ull;
  std::vector<uint8_t> bytes_;
  size_t next_ = 0;
};

// The device's layout: every buffer its own MMU segment with an unmapped guard page after it, so a
// kernel that reads two buffers and writes a third touches three separate ranges (plus the argument
// buffer), as it does under the gsgpu executor.
class MappedMemory : public GpuMemory {
 public:
  explicit MappedMemory(size_t vram) : mmu_(MmuConfig{0x10000, uint64_t{1} << 32, vram}) {}
  uint8_t* translate(uint64_t va, uint64_t size, Access access) override { return mmu_.translate(va, size, access); }
  bool lookup_range(uint64_t va, Access access, Range* out) override { return mmu_.lookup_range(va, access, out); }
  void report_fault(const MemoryFault& fault) override { mmu_.report_fault(fault); }
  uint64_t alloc(size_t size) {
    const uint64_t bytes = (size + Mmu::kPageSize - 1) / Mmu::kPageSize * Mmu::kPageSize;
    const uint64_t va = next_va_;
    std::string error;
    if (!mmu_.map(va, bytes, next_phys_, kPermAll, &error)) throw std::runtime_error("bench map: " + error);
    next_va_ += bytes + Mmu::kPageSize;  // guard page
    next_phys_ += bytes;
    return va;
  }
  template <typename T>
  T* at(uint64_t va) { return reinterpret_cast<T*>(mmu_.lookup(va)->host); }

 private:
  Mmu mmu_;
  uint64_t next_va_ = 0x100000;
  uint64_t next_phys_ = 0;
};

std::string read_kernel(const char* name) {
  const std::string path = std::string(GSGPU_BENCH_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

template <typename Memory>
void load(Memory& memory, const char* name, DispatchParams* p) {
  std::vector<uint32_t> words;
  std::string error;
  if (!isa::assemble(read_kernel(name), &words, &error)) throw std::runtime_error(std::string(name) + ": " + error);
  p->code_va = memory.alloc(words.size() * 4);
  std::memcpy(memory.template at<uint8_t>(p->code_va), words.data(), words.size() * 4);
  p->code_size = static_cast<uint32_t>(words.size() * 4);
}

template <typename Memory>
void set_args(Memory& memory, const std::vector<uint64_t>& slots, DispatchParams* p) {
  p->arg_va = memory.alloc(slots.size() * 8);
  std::memcpy(memory.template at<uint8_t>(p->arg_va), slots.data(), slots.size() * 8);
  p->arg_size = static_cast<uint32_t>(slots.size() * 8);
}

ShaderConfig config_for(const benchmark::State& state) {
  ShaderConfig config;
  config.host_threads = static_cast<uint32_t>(state.range(0));
  config.num_cores = config.host_threads;
  config.warp_width = 32;
  return config;
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs the dispatch in the timing loop and reports rates: per wall-clock second, and per CPU-second
// the process spent (the per-host-core figure, which stays meaningful when other programs share
// the machine; the waiting dispatcher thread uses no CPU).
void run_dispatches(benchmark::State& state, ShaderCores& cores, GpuMemory& memory, const DispatchParams& p) {
  uint64_t lane_instructions = 0, warp_instructions = 0;
  const double cpu_start = process_cpu_seconds();
  for (auto _ : state) {
    DispatchResult r = cores.run(p, memory);
    if (r.fault) {
      state.SkipWithError(r.fault->message.c_str());
      return;
    }
    lane_instructions += r.counters.active_lane_instructions;
    warp_instructions += r.counters.instructions_issued;
  }
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  state.counters["lane_instr/cpu_s"] = static_cast<double>(lane_instructions) / cpu_seconds;
  state.counters["lane_instr/s"] = benchmark::Counter(static_cast<double>(lane_instructions), benchmark::Counter::kIsRate);
  state.counters["warp_instr/s"] = benchmark::Counter(static_cast<double>(warp_instructions), benchmark::Counter::kIsRate);
}

// Kernel: "vadd.s" (arguments by scalar loads), "vadd_vargs.s" (arguments by vector loads from
// the same address in every lane, as the OpenCL compiler once emitted them) or "vadd_sbase.s"
// (scalar-base addressing).
template <typename Memory>
void vector_add(benchmark::State& state, const char* kernel) {
  const uint32_t n = 1 << 20;
  Memory memory(64 << 20);
  ShaderCores cores(config_for(state));
  DispatchParams p;
  load(memory, kernel, &p);
  p.grid_size[0] = n / 256;
  p.group_size[0] = 256;
  const uint64_t a = memory.alloc(n * 4), b = memory.alloc(n * 4), c = memory.alloc(n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    memory.template at<float>(a)[i] = static_cast<float>(i);
    memory.template at<float>(b)[i] = 0.5f * static_cast<float>(i);
  }
  set_args(memory, {a, b, c}, &p);
  run_dispatches(state, cores, memory, p);
  for (uint32_t i = 0; i < n; i += 4099)
    if (memory.template at<float>(c)[i] != 1.5f * static_cast<float>(i)) state.SkipWithError("vadd result wrong");
}
void BM_VectorAdd(benchmark::State& state) { vector_add<FlatMemory>(state, "vadd.s"); }
// The same on separately mapped buffers (MMU segments with guard pages), as under the executor.
void BM_VectorAddMapped(benchmark::State& state) { vector_add<MappedMemory>(state, "vadd.s"); }
void BM_VectorAddMappedVectorArgs(benchmark::State& state) { vector_add<MappedMemory>(state, "vadd_vargs.s"); }
// Addressed as the OpenCL compiler now emits it: one byte offset, a scalar base per array.
void BM_VectorAddMappedScalarBase(benchmark::State& state) { vector_add<MappedMemory>(state, "vadd_sbase.s"); }

void BM_Mandelbrot(benchmark::State& state) {
  const uint32_t width = 512, height = 512;
  FlatMemory memory(8 << 20);
  ShaderCores cores(config_for(state));
  DispatchParams p;
  load(memory, "mandelbrot.s", &p);
  p.grid_size[0] = width / 32;
  p.grid_size[1] = height / 4;
  p.group_size[0] = 32;
  p.group_size[1] = 4;
  const uint64_t out = memory.alloc(width * height * 4);
  const float sx = 3.0f / width, sy = 3.0f / height;
  uint32_t sx_bits, sy_bits;
  std::memcpy(&sx_bits, &sx, 4);
  std::memcpy(&sy_bits, &sy, 4);
  set_args(memory, {out, sx_bits | (uint64_t{sy_bits} << 32)}, &p);
  run_dispatches(state, cores, memory, p);
  // Check a few pixels against a host computation with the same float operations.
  for (uint32_t y = 0; y < height; y += 37)
    for (uint32_t x = 0; x < width; x += 41) {
      const float cr = static_cast<float>(x) * sx + -2.0f, ci = static_cast<float>(y) * sy + -1.5f;
      float zr = 0, zi = 0;
      uint32_t it = 0;
      for (; it < 256; ++it) {
        const float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f) break;
        const float t = zr * zi;
        zr = zr2 - zi2 + cr;
        zi = t * 2.0f + ci;
      }
      if (memory.at<uint32_t>(out)[y * width + x] != it) state.SkipWithError("mandelbrot result wrong");
    }
}

void BM_Sgemm(benchmark::State& state) {
  const uint32_t n = 256;
  FlatMemory memory(8 << 20);
  ShaderCores cores(config_for(state));
  DispatchParams p;
  load(memory, "sgemm.s", &p);
  p.grid_size[0] = n / 32;
  p.grid_size[1] = n / 4;
  p.group_size[0] = 32;
  p.group_size[1] = 4;
  const uint64_t a = memory.alloc(n * n * 4), b = memory.alloc(n * n * 4), c = memory.alloc(n * n * 4);
  for (uint32_t i = 0; i < n * n; ++i) {
    memory.at<float>(a)[i] = static_cast<float>(i % 7) - 3.0f;
    memory.at<float>(b)[i] = static_cast<float>(i % 5) * 0.25f;
  }
  set_args(memory, {a, b, c, n}, &p);
  run_dispatches(state, cores, memory, p);
  for (uint32_t row = 0; row < n; row += 51)
    for (uint32_t col = 0; col < n; col += 13) {
      float acc = 0;
      for (uint32_t k = 0; k < n; ++k) {
        const float prod = memory.at<float>(a)[row * n + k] * memory.at<float>(b)[k * n + col];
        acc = prod + acc;
      }
      if (memory.at<float>(c)[row * n + col] != acc) state.SkipWithError("sgemm result wrong");
    }
}

}  // namespace

// Argument: host threads (= shader cores). 1 gives the per-host-core figure.
BENCHMARK(BM_VectorAdd)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VectorAddMapped)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VectorAddMappedVectorArgs)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VectorAddMappedScalarBase)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Mandelbrot)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sgemm)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
