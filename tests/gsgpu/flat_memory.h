// A flat GpuMemory for gsgpu tests: one std::vector-backed mapping at a base VA, a bump allocator,
// and every fault recorded. Shared by the ISA/shader-core tests and the compiler tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"

namespace gsgpu::testing {

class FlatMemory : public GpuMemory {
 public:
  // `upload_slack`: bytes left after each uploaded array, so kernels that read a little past the
  // end of their data (vector loads) stay inside the mapping.
  FlatMemory(uint64_t base, size_t size, size_t upload_slack = 8)
      : base_(base), bytes_(size, 0), upload_slack_(upload_slack) {}

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
  uint8_t* host(uint64_t va) { return &bytes_[va - base_]; }
  template <typename T>
  T* at(uint64_t va) { return reinterpret_cast<T*>(host(va)); }
  template <typename T>
  uint64_t upload(const std::vector<T>& data) {
    const uint64_t va = alloc(data.size() * sizeof(T) + upload_slack_);
    std::memcpy(host(va), data.data(), data.size() * sizeof(T));
    return va;
  }
  template <typename T>
  std::vector<T> download(uint64_t va, size_t count) {
    std::vector<T> out(count);
    std::memcpy(out.data(), host(va), count * sizeof(T));
    return out;
  }
  uint64_t base() const { return base_; }
  uint64_t end() const { return base_ + bytes_.size(); }

  std::vector<MemoryFault> faults;

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  size_t upload_slack_;
  size_t next_ = 0;
  std::mutex mutex_;
};

}  // namespace gsgpu::testing
