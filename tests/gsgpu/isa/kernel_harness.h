// Test harness: a flat GpuMemory (one std::vector-backed mapping at a base VA) and helpers that
// assemble a kernel, place it and its arguments in that memory and dispatch it.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/isa/assembler.h"

namespace gsgpu::testing {

class FlatMemory : public GpuMemory {
 public:
  FlatMemory(uint64_t base, size_t size) : base_(base), bytes_(size, 0) {}

  uint8_t* translate(uint64_t va, uint64_t size, Access access) override {
    if (va >= base_ && size <= bytes_.size() && va - base_ <= bytes_.size() - size) return &bytes_[va - base_];
    report_fault(MemoryFault{va, size, access});
    return nullptr;
  }
  bool lookup_range(uint64_t va, Access, Range* out) override {
    if (va < base_ || va - base_ >= bytes_.size()) return false;
    *out = Range{base_, base_ + bytes_.size(), bytes_.data()};
    return true;
  }
  void report_fault(const MemoryFault& fault) override {
    std::lock_guard lock(mutex_);
    faults.push_back(fault);
  }

  // Bump allocation of zeroed memory; returns the VA.
  uint64_t alloc(size_t size, size_t align = 64) {
    next_ = (next_ + align - 1) / align * align;
    const uint64_t va = base_ + next_;
    next_ += size;
    EXPECT_LE(next_, bytes_.size()) << "test memory exhausted";
    return va;
  }
  template <typename T>
  T* at(uint64_t va) { return reinterpret_cast<T*>(&bytes_[va - base_]); }
  template <typename T>
  uint64_t upload(const std::vector<T>& data) {
    const uint64_t va = alloc(data.size() * sizeof(T) + 8);
    std::memcpy(at<uint8_t>(va), data.data(), data.size() * sizeof(T));
    return va;
  }
  template <typename T>
  std::vector<T> download(uint64_t va, size_t count) {
    std::vector<T> out(count);
    std::memcpy(out.data(), at<uint8_t>(va), count * sizeof(T));
    return out;
  }
  uint64_t base() const { return base_; }
  uint64_t end() const { return base_ + bytes_.size(); }

  std::vector<MemoryFault> faults;

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  size_t next_ = 0;
  std::mutex mutex_;
};

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
