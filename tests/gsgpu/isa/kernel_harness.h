// Test harness: helpers that assemble a kernel, place it and its arguments in that memory and dispatch it.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"
#include "tests/gsgpu/flat_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/assembler.h"

namespace gsgpu::testing {

// Assembles `source` into memory and fills code_va/code_size; the test fails on assembler errors.
inline void load_kernel(FlatMemory& memory, const std::string& source, DispatchParams* params) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(isa::assemble(source, &words, &error)) << error << "\n" << source;
  params->code_va = memory.upload(words);
  params->code_size = static_cast<uint32_t>(words.size() * 4);
}

// Writes 64-bit argument slots and points the dispatch at them.
inline void set_args(FlatMemory& memory, const std::vector<uint64_t>& args, DispatchParams* params) {
  params->arg_va = memory.upload(args);
  params->arg_size = static_cast<uint32_t>(args.size() * 8);
}

inline DispatchParams linear_dispatch(uint32_t groups, uint32_t group_size) {
  DispatchParams p;
  p.grid_size[0] = groups;
  p.group_size[0] = group_size;
  return p;
}

// Runs and expects no fault.
inline DispatchResult run_ok(ShaderCores& cores, FlatMemory& memory, const DispatchParams& params) {
  DispatchResult r = cores.run(params, memory);
  EXPECT_FALSE(r.fault.has_value()) << (r.fault ? std::string(shader_fault_name(r.fault->kind)) + ": " +
                                                      r.fault->message
                                                : "");
  return r;
}

}  // namespace gsgpu::testing
