// GPU memory as the runtime hands it out: whole buffer objects (GpuAlloc), and small per-dispatch
// pieces sub-allocated from a few larger objects (BoPool).
//
// Why a pool: every launch needs an argument buffer that lives until the launch retires. One
// buffer object each costs a bo_create + va_bind + bo_free per launch, which the local backend
// serves from memory, but which over the virtio backend is a host blob per launch (vtest: a round
// trip, a memfd, an mmap and an munmap; in-process: a memfd the host creates, seals and maps) and
// a BO import on the host. The pool keeps a few 64 KiB objects bound and places argument buffers
// in them; a slab is reused once every piece placed in it has been freed (at retirement), so a
// launch loop touches no buffer object at all. docs/performance.md (issue 9) has the figures.
//
// Not thread-safe: the runtime's mutex guards it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gsgpu/drv/drv.h"

namespace gsgpu::cl {

// A buffer object of the runtime's device, bound at a GPU VA the runtime chose (an unbound guard
// page follows it, so running off its end faults) and mapped for the CPU; or a piece of a pool
// slab (slab != 0), which is a range of such an object with neighbours instead of a guard page.
struct GpuAlloc {
  drv::BoHandle bo = 0;
  uint64_t va = 0;
  uint64_t size = 0;       // bytes usable (a page multiple for whole objects); 0 = nothing allocated
  uint8_t* cpu = nullptr;  // the CPU mapping of `va`
  uint32_t slab = 0;       // BoPool slab id the piece belongs to; 0 = a buffer object of its own
};

class BoPool {
 public:
  // Whole objects come from and go back to the runtime.
  using AllocateFn = std::function<std::optional<GpuAlloc>(uint64_t size, uint32_t perms, std::string* error)>;
  using FreeFn = std::function<void(GpuAlloc&)>;

  static constexpr uint64_t kSlabBytes = 64 << 10;
  // Pieces start and end on this boundary (the widest argument type, double16, is 128 bytes).
  static constexpr uint64_t kAlign = 256;
  // Larger requests get an object of their own.
  static constexpr uint64_t kMaxPiece = 4 << 10;
  // Empty slabs kept for reuse beyond the one being filled; more are freed.
  static constexpr size_t kKeepIdle = 4;

  BoPool(uint32_t perms, AllocateFn allocate, FreeFn free);
  ~BoPool();  // every slab must have been released (release_all)
  BoPool(const BoPool&) = delete;
  BoPool& operator=(const BoPool&) = delete;

  // A piece of `size` bytes (1..kMaxPiece) rounded up to kAlign; its bytes hold whatever the last
  // piece there held (callers write all of them). nullopt and *error when no slab can be made.
  std::optional<GpuAlloc> allocate(uint64_t size, std::string* error);
  // Gives a piece back; the caller guarantees no submission that uses it is still in flight.
  void free(const GpuAlloc& piece);
  // Frees every slab (pieces still out are forgotten); the runtime calls it before its device goes.
  void release_all();

  size_t slab_count() const { return slabs_.size(); }

 private:
  struct Slab {
    GpuAlloc whole;
    uint64_t used = 0;   // bump offset while it is the current slab
    uint32_t live = 0;   // pieces handed out and not freed
  };
  bool start_slab(std::string* error);  // makes a recycled or new slab current

  const uint32_t perms_;
  AllocateFn allocate_;
  FreeFn free_;
  std::unordered_map<uint32_t, Slab> slabs_;
  std::vector<uint32_t> idle_;  // slabs with nothing live, other than the current one
  uint32_t current_ = 0;
  uint32_t next_id_ = 1;
};

}  // namespace gsgpu::cl
