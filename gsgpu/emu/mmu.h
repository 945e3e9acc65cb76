// The gsgpu MMU: a GPU virtual address space mapped onto the device's VRAM.
//
// Seed 000's software MMU: a base address and a size for the virtual space; segments (VA range ->
// physical VRAM range + permissions) are added with validation, merged with neighbours, removed
// (a removal from the middle splits a segment in two) and looked up at any offset inside them.
// Every emulator access to GPU memory goes through translate()/lookup_range(); an access that is
// not entirely inside one mapping with the needed permission is a fault (address, size, access
// type) that is logged, kept in a bounded fault log and handed to the fault handler (the device
// turns it into registers + an MMU_FAULT interrupt). Host memory outside VRAM is never touched,
// except memory the embedding program explicitly maps with map_host (imported buffer objects: a
// blob the guest shares with the host); the same checks and faults apply to those segments.
//
// Threading: translate/lookup_range/report_fault may be called from many shader-core threads at
// once; map/unmap take an exclusive lock. The command processor never changes mappings; a driver
// that does so while a dispatch runs (gsgpu/drv lets a client unbind at any time) must keep the
// memory behind the old mapping alive until the dispatch ends, because a shader core may still
// hold a Range from lookup_range over it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "gsgpu/emu/gpu_memory.h"

namespace gsgpu {

// Segment permissions, a bit set.
enum Permission : uint32_t {
  kPermRead = 1u << 0,
  kPermWrite = 1u << 1,
  kPermExecute = 1u << 2,
  kPermReadWrite = kPermRead | kPermWrite,
  kPermAll = kPermRead | kPermWrite | kPermExecute,
};

// "rwx"-style text for logs and dumps.
std::string permission_string(uint32_t perms);

struct MmuConfig {
  uint64_t va_base = 0x1000;                      // first mappable GPU virtual address
  uint64_t va_size = (uint64_t{4} << 30) - 0x1000;  // seed 000's example: 4 KiB .. 4 GiB
  uint64_t vram_size = uint64_t{64} << 20;         // bytes of device memory
};

struct Segment {
  uint64_t va = 0;
  uint64_t size = 0;
  uint64_t phys = 0;  // offset inside VRAM (0 for a host-backed segment)
  uint32_t perms = 0;
  // Non-null: the segment is backed by host memory the embedding program owns (map_host), not by
  // VRAM; this is the host address of `va`.
  uint8_t* host = nullptr;
  uint64_t end_va() const { return va + size; }
  uint64_t end_phys() const { return phys + size; }
  bool operator==(const Segment&) const = default;
};

// A lookup at an arbitrary address: the segment that holds it and where inside it the address is.
struct SegmentLookup {
  Segment segment;
  uint64_t offset = 0;     // va - segment.va
  uint8_t* host = nullptr;  // host address of va
};

class Mmu final : public GpuMemory {
 public:
  // Mapping granularity: VA, physical offset and size of every segment are multiples of it.
  static constexpr uint64_t kPageSize = 4096;
  // How many faults the fault log keeps (the newest ones); fault_count() counts all of them.
  static constexpr size_t kFaultLogCapacity = 64;

  // Empty string when `config` is usable, else what is wrong with it.
  static std::string validate_config(const MmuConfig& config);

  // `config` must pass validate_config. Allocates and zeroes VRAM.
  explicit Mmu(const MmuConfig& config);
  ~Mmu() override;

  const MmuConfig& config() const { return config_; }

  // Adds a segment. Fails (returns false, *error says why, nothing changes) when the range is
  // empty, unaligned, outside the VA space, outside VRAM, without permissions, or overlaps an
  // existing segment. A new segment that continues a neighbour both virtually and physically with
  // the same permissions is merged into it.
  bool map(uint64_t va, uint64_t size, uint64_t phys, uint32_t perms, std::string* error);

  // Adds a segment backed by `size` bytes of host memory at `host` (page aligned, non-null) that
  // the caller owns and keeps valid until the segment is unmapped and no dispatch that could have
  // looked it up is running. Same checks as map() otherwise; merged only with a neighbour that
  // continues it in host memory.
  bool map_host(uint64_t va, uint64_t size, uint8_t* host, uint32_t perms, std::string* error);

  // Removes [va, va + size), which must be page aligned and entirely mapped (it may span several
  // adjacent segments). Removing from the middle of a segment leaves two segments.
  bool unmap(uint64_t va, uint64_t size, std::string* error);

  void unmap_all();

  // The segment holding `va` and the offset inside it; nullopt when `va` is unmapped. Records no
  // fault: this is the driver-side query, not an emulated access.
  std::optional<SegmentLookup> lookup(uint64_t va) const;

  std::vector<Segment> segments() const;

  // GpuMemory: the emulated hardware's accesses.
  uint8_t* translate(uint64_t va, uint64_t size, Access access) override;
  bool lookup_range(uint64_t va, Access access, Range* out) override;
  void report_fault(const MemoryFault& fault) override;

  // Host-side (driver/tool) copies through the mappings, ignoring permissions (a driver writes
  // code into execute-only memory through its CPU mapping); they may cross adjacent segments.
  // False when any byte is unmapped; nothing is copied then and no fault is recorded.
  bool write(uint64_t va, const void* data, uint64_t size);
  bool read(uint64_t va, void* out, uint64_t size) const;

  // Faults. The handler runs on the thread that made the faulting access, after the fault is
  // logged; it must be thread-safe.
  using FaultHandler = std::function<void(const MemoryFault&)>;
  void set_fault_handler(FaultHandler handler);
  std::vector<MemoryFault> fault_log() const;
  uint64_t fault_count() const;
  void clear_faults();

  // Physical VRAM, for tools and tests that place data by physical offset.
  uint8_t* vram() { return vram_.get(); }
  uint64_t vram_size() const { return config_.vram_size; }

 private:
  using SegmentMap = std::map<uint64_t, Segment>;  // keyed by va

  std::string check_new_segment(const Segment& segment) const;
  bool add_segment(const Segment& segment, std::string* error);
  uint8_t* host_of(const Segment& s) const { return s.host ? s.host : vram_.get() + s.phys; }
  SegmentMap::const_iterator find_segment(uint64_t va) const;
  bool range_fully_mapped(uint64_t va, uint64_t size) const;
  void merge_with_neighbours(SegmentMap::iterator it);
  void record_fault(const MemoryFault& fault);

  // Anonymous mapping, zero-filled by the kernel on first touch, backed by transparent huge pages
  // where the host allows: kernels stream through buffers of many MiB, and with 4 KiB pages every
  // page is a TLB miss (a two-level walk under a hypervisor).
  struct VramUnmap {
    size_t size;
    void operator()(uint8_t* p) const;
  };
  MmuConfig config_;
  std::unique_ptr<uint8_t[], VramUnmap> vram_;
  mutable std::shared_mutex segments_mutex_;
  SegmentMap segments_;

  mutable std::mutex fault_mutex_;
  std::vector<MemoryFault> fault_log_;  // ring of kFaultLogCapacity, oldest first after rotation
  size_t fault_log_next_ = 0;
  uint64_t fault_count_ = 0;
  FaultHandler fault_handler_;
};

// Allocates physical VRAM ranges (first fit, page granular, coalescing on free). Used by tools,
// tests and the future driver model; the MMU itself does not care who owns which bytes.
class VramAllocator {
 public:
  explicit VramAllocator(uint64_t vram_size, uint64_t granularity = Mmu::kPageSize);

  // Physical offset of a new range of at least `size` bytes aligned to `alignment` (a power of two,
  // rounded up to the granularity); nullopt when no free range fits.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment = Mmu::kPageSize);
  // Frees a range returned by allocate; false for an offset that is not an allocation.
  bool free(uint64_t phys);
  uint64_t bytes_free() const;
  void reset();

 private:
  uint64_t vram_size_;
  uint64_t granularity_;
  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> free_;       // offset -> size
  std::map<uint64_t, uint64_t> allocated_;  // offset -> size
};

}  // namespace gsgpu
