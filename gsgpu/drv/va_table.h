// A client's GPU VA bindings, checked with drv.h's rules (alignment, rights, the VA window, the
// range inside the BO, no overlap; an unbind must be exactly covered). One table serves both
// backends: the local one keeps its MMU in step with it, the virtio one refuses a bad call at once,
// with the field named, before anything is sent to the host.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gsgpu::drv {

class VaTable {
 public:
  // [va_base, va_base + va_size): the client's window; page_size: the granularity.
  VaTable(uint64_t va_base, uint64_t va_size, uint64_t page_size);

  // Checks and records [va, va + size) -> [bo_offset, ...) of a BO of `bo_size` bytes. "" when
  // it was recorded, else why not.
  std::string bind(uint32_t bo, uint64_t bo_size, uint64_t bo_offset, uint64_t va, uint64_t size,
                   uint32_t perms);
  // Checks that [va, va + size) is entirely bound and removes it (splitting bindings that stick
  // out of it). "" or why not.
  std::string unbind(uint64_t va, uint64_t size);
  // Forgets every binding of `bo` (freeing a BO removes its bindings) and returns their
  // [va, size) ranges.
  std::vector<std::pair<uint64_t, uint64_t>> drop_bo(uint32_t bo);
  void clear() { bindings_.clear(); }
  size_t binding_count() const { return bindings_.size(); }

 private:
  struct Binding {
    uint32_t bo;
    uint64_t bo_offset;
    uint64_t size;
  };
  bool aligned(uint64_t value) const { return value % page_size_ == 0; }

  uint64_t va_base_, va_size_, page_size_;
  std::map<uint64_t, Binding> bindings_;  // by start VA; never overlapping
};

}  // namespace gsgpu::drv
