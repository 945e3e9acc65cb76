// Test harness for the compiler: builds OpenCL C with the real front end, lays out the argument
// buffer as compiler.h's ABI says, and runs kernels on gsgpu::ShaderCores over a flat GpuMemory.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gsgpu/compiler/arg_buffer.h"
#include "gsgpu/compiler/compiler.h"
#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "tests/gsgpu/flat_memory.h"

namespace gsgpu::compiler::testing {

// The shared flat memory, with 16 bytes after each upload (vload of 3- and 4-vectors).
class FlatMemory : public gsgpu::testing::FlatMemory {
 public:
  FlatMemory(uint64_t base, size_t size) : gsgpu::testing::FlatMemory(base, size, 16) {}
};

// A kernel argument as the test gives it.
struct Arg {
  enum class Kind { kBytes, kLocal } kind = Kind::kBytes;
  std::vector<uint8_t> bytes;  // kBytes: the value (a VA for buffers)
  uint32_t local_size = 0;     // kLocal
  template <typename T>
  static Arg value(T v) {
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
  static Arg buffer(uint64_t va) { return value(va); }
  static Arg local(uint32_t bytes) {
    Arg a;
    a.kind = Kind::kLocal;
    a.local_size = bytes;
    return a;
  }
};

struct NDRange {
  uint32_t dims = 1;
  uint32_t global[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1};
  uint64_t offset[3] = {0, 0, 0};  // global work offset
  static NDRange linear(uint32_t global, uint32_t local) {
    NDRange r;
    r.global[0] = global;
    r.local[0] = local;
    return r;
  }
  static NDRange grid2(uint32_t gx, uint32_t gy, uint32_t lx, uint32_t ly) {
    NDRange r;
    r.dims = 2;
    r.global[0] = gx;
    r.global[1] = gy;
    r.local[0] = lx;
    r.local[1] = ly;
    return r;
  }
};

// True when clang-14 and llvm-spirv-14 are installed; otherwise the test should skip.
inline bool have_front_end(std::string* why) {
  const Toolchain& t = toolchain();
  if (!t.clang.empty() && !t.llvm_spirv.empty()) return true;
  *why = std::string("OpenCL C front end missing:") + (t.clang.empty() ? " clang-14" : "") +
         (t.llvm_spirv.empty() ? " llvm-spirv-14" : "");
  return false;
}

#define GSGPU_REQUIRE_FRONT_END()                                          \
  do {                                                                     \
    std::string why_missing;                                               \
    if (!::gsgpu::compiler::testing::have_front_end(&why_missing)) GTEST_SKIP() << why_missing; \
  } while (0)

class ClRunner {
 public:
  explicit ClRunner(uint32_t warp_width = 32, size_t memory_bytes = 64 << 20)
      : memory(0x100000, memory_bytes), cores(make_config(warp_width)) {}

  // Builds and keeps the program; the test fails (with the log) when the build fails.
  bool build(const std::string& source, const std::string& options = "", const CompileOptions& compile = {}) {
    std::string log;
    const BuildStatus status = build_opencl_c(source, options, &program, &log, compile);
    EXPECT_EQ(status, BuildStatus::kSuccess) << build_status_name(status) << "\n" << log;
    return status == BuildStatus::kSuccess;
  }

  DispatchResult run(const std::string& name, const std::vector<Arg>& args, const NDRange& range,
                     uint64_t instruction_budget = 0) {
    const CompiledKernel* kernel = program.find(name);
    EXPECT_NE(kernel, nullptr) << "no kernel " << name;
    if (kernel == nullptr) return {};
    EXPECT_EQ(args.size(), kernel->args.size()) << "argument count";
    DispatchParams p;
    const uint64_t code = memory.upload(kernel->code);
    p.code_va = code;
    p.code_size = static_cast<uint32_t>(kernel->code.size() * 4);
    std::vector<KernelArgValue> values;
    for (const Arg& a : args) values.push_back(KernelArgValue{a.bytes, a.kind == Arg::Kind::kLocal ? a.local_size : 0});
    ArgumentBuffer buffer;
    std::string error;
    EXPECT_TRUE(build_argument_buffer(*kernel, values, range.dims, &buffer, &error)) << error;
    const std::vector<uint8_t>& arg_buffer = buffer.bytes;
    // 256-aligned, as the runtime places argument buffers (gsgpu/cl/bo_pool.h): __constant data in
    // it keeps the alignment of its widest type (128 bytes).
    p.arg_va = memory.alloc(arg_buffer.size() + 16, 256);
    std::memcpy(memory.host(p.arg_va), arg_buffer.data(), arg_buffer.size());
    p.arg_size = static_cast<uint32_t>(arg_buffer.size());
    for (int d = 0; d < 3; ++d) {
      p.group_size[d] = range.local[d];
      p.grid_size[d] = range.global[d] / range.local[d];
      p.global_offset[d] = range.offset[d];
    }
    p.local_mem_size = buffer.local_mem_size;
    p.private_mem_size = kernel->private_bytes;
    p.instruction_budget = instruction_budget;
    return cores.run(p, memory);
  }

  // Runs and expects no fault.
  void run_ok(const std::string& name, const std::vector<Arg>& args, const NDRange& range) {
    const DispatchResult r = run(name, args, range);
    EXPECT_FALSE(r.fault.has_value()) << (r.fault ? std::string(shader_fault_name(r.fault->kind)) + ": " + r.fault->message
                                                  : "")
                                      << "\n" << assembly(name);
  }

  std::string assembly(const std::string& name) const {
    const CompiledKernel* k = program.find(name);
    return k ? k->assembly : "";
  }

  FlatMemory memory;
  ShaderCores cores;
  CompiledProgram program;

 private:
  static ShaderConfig make_config(uint32_t warp_width) {
    ShaderConfig c;
    c.warp_width = warp_width;
    c.num_cores = 2;
    c.host_threads = 2;
    return c;
  }
};

// Lines of `text` (a kernel's assembly) that match the regular expression `pattern`.
inline size_t count_lines(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, re)) ++n;
  return n;
}

// Runs the built kernel `vadd(a, b, c, uint n)` with n = a.size() (pick one that is not a multiple
// of the group size of 64) and checks c = a + b and that nothing past n was written.
inline void expect_vadd_adds(ClRunner& r, const std::vector<float>& a, const std::vector<float>& b) {
  constexpr uint32_t kGuard = 40;
  constexpr float kUntouched = -5.0f;
  const uint32_t n = static_cast<uint32_t>(a.size());
  const uint64_t va = r.memory.upload(a), vb = r.memory.upload(b);
  const uint64_t vc = r.memory.upload(std::vector<float>(n + kGuard, kUntouched));
  r.run_ok("vadd", {Arg::buffer(va), Arg::buffer(vb), Arg::buffer(vc), Arg::value(n)}, NDRange::linear(1024, 64));
  const auto c = r.memory.download<float>(vc, n + kGuard);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  for (uint32_t i = n; i < n + kGuard; ++i) ASSERT_EQ(c[i], kUntouched) << "wrote past n at " << i;
}

}  // namespace gsgpu::compiler::testing
