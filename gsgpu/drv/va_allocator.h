// A client's GPU virtual address space, managed in userspace. The driver interface (drv.h) lets
// the client choose where each binding goes, as DRM drivers with userspace VA management do
// (libdrm_amdgpu keeps such a manager beside its uAPI wrapper): this hands out page-aligned ranges
// of the client's VA window first-fit and takes them back. Shared by the userspace drivers over
// gsgpu/drv (the OpenCL runtime, later the Vulkan driver).
//
// Not thread-safe: the driver that owns the address space serialises calls.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace gsgpu::drv {

class VaAllocator {
 public:
  // The window [base, base + size); base and size are rounded inwards to `page` (a power of two).
  VaAllocator(uint64_t base, uint64_t size, uint64_t page);

  // A free range of `size` bytes rounded up to whole pages; nullopt when size is 0 or no hole is
  // large enough.
  std::optional<uint64_t> allocate(uint64_t size);
  // Gives back a range allocate returned; false (nothing changed) for any other address.
  bool free(uint64_t va);

  uint64_t page() const { return page_; }
  uint64_t free_bytes() const { return free_bytes_; }

 private:
  uint64_t page_;
  uint64_t free_bytes_ = 0;
  std::map<uint64_t, uint64_t> holes_;      // start -> size, disjoint and never adjacent
  std::map<uint64_t, uint64_t> allocated_;  // start -> size
};

}  // namespace gsgpu::drv
