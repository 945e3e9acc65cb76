#include "gsgpu/emu/mmu.h"

#include <cinttypes>
#include <cstring>
#include <new>

#include <sys/mman.h>

#include "common/checked_math.h"
#include "common/log.h"
#include "common/text.h"

namespace gsgpu {
namespace {

using gsvirt::hex;

bool page_aligned(uint64_t v) { return v % Mmu::kPageSize == 0; }

// Which permission bits an access needs; atomics read and write.
uint32_t required_perms(Access access) {
  switch (access) {
    case Access::kRead: return kPermRead;
    case Access::kWrite: return kPermWrite;
    case Access::kExecute: return kPermExecute;
    case Access::kAtomic: return kPermRead | kPermWrite;
  }
  return kPermAll;
}

}  // namespace

std::string permission_string(uint32_t perms) {
  std::string s = "---";
  if (perms & kPermRead) s[0] = 'r';
  if (perms & kPermWrite) s[1] = 'w';
  if (perms & kPermExecute) s[2] = 'x';
  return s;
}

std::string Mmu::validate_config(const MmuConfig& c) {
  if (c.va_size == 0 || !page_aligned(c.va_base) || !page_aligned(c.va_size))
    return "VA base " + hex(c.va_base) + " and size " + hex(c.va_size) +
           " must be non-empty and multiples of the page size " + hex(kPageSize);
  if (!gsvirt::checked_add(c.va_base, c.va_size))
    return "VA space " + hex(c.va_base) + " + " + hex(c.va_size) + " overflows 64 bits";
  if (c.vram_size == 0 || !page_aligned(c.vram_size))
    return "VRAM size " + hex(c.vram_size) + " must be a non-zero multiple of " + hex(kPageSize);
  // Bound what one device may take from the host (the guest can ask for a device).
  constexpr uint64_t kMaxVram = uint64_t{16} << 30;
  if (c.vram_size > kMaxVram) return "VRAM size " + hex(c.vram_size) + " above the limit " + hex(kMaxVram);
  return {};
}

namespace {
uint8_t* map_vram(uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Advice only: without transparent huge pages the mapping works the same, just slower.
  (void)madvise(p, size, MADV_HUGEPAGE);
  return static_cast<uint8_t*>(p);
}
}  // namespace

void Mmu::VramUnmap::operator()(uint8_t* p) const { munmap(p, size); }

Mmu::Mmu(const MmuConfig& config)
    : config_(config), vram_(map_vram(config.vram_size), VramUnmap{config.vram_size}) {
  fault_log_.reserve(kFaultLogCapacity);
}

Mmu::~Mmu() = default;

std::string Mmu::check_new_segment(const Segment& segment) const {
  const uint64_t va = segment.va, size = segment.size, phys = segment.phys;
  const uint32_t perms = segment.perms;
  if (size == 0) return "empty segment";
  if (!page_aligned(va) || !page_aligned(size) || !page_aligned(phys))
    return "va " + hex(va) + ", size " + hex(size) + " and phys " + hex(phys) +
           " must be multiples of the page size " + hex(kPageSize);
  if (perms == 0 || (perms & ~uint32_t{kPermAll}) != 0)
    return "permissions " + hex(perms) + " must be a non-empty subset of rwx";
  if (va < config_.va_base || !gsvirt::range_within(va - config_.va_base, size, config_.va_size))
    return "va range " + hex(va) + "+" + hex(size) + " outside the VA space " + hex(config_.va_base) +
           "+" + hex(config_.va_size);
  if (segment.host != nullptr) {
    if (reinterpret_cast<uintptr_t>(segment.host) % kPageSize != 0) return "host memory must be page aligned";
    if (!gsvirt::checked_add(uint64_t(reinterpret_cast<uintptr_t>(segment.host)), size))
      return "host range wraps around the address space";
  } else if (!gsvirt::range_within(phys, size, config_.vram_size))
    return "physical range " + hex(phys) + "+" + hex(size) + " outside VRAM of " + hex(config_.vram_size) +
           " bytes";
  auto next = segments_.lower_bound(va);
  if (next != segments_.end() && next->first < va + size)
    return "va range " + hex(va) + "+" + hex(size) + " overlaps the segment at " + hex(next->first);
  if (next != segments_.begin()) {
    const Segment& prev = std::prev(next)->second;
    if (prev.end_va() > va)
      return "va range " + hex(va) + "+" + hex(size) + " overlaps the segment at " + hex(prev.va);
  }
  return {};
}

bool Mmu::map(uint64_t va, uint64_t size, uint64_t phys, uint32_t perms, std::string* error) {
  return add_segment(Segment{va, size, phys, perms, nullptr}, error);
}

bool Mmu::map_host(uint64_t va, uint64_t size, uint8_t* host, uint32_t perms, std::string* error) {
  if (host == nullptr) {
    if (error) *error = "mmu map_host: null host memory";
    return false;
  }
  return add_segment(Segment{va, size, 0, perms, host}, error);
}

bool Mmu::add_segment(const Segment& segment, std::string* error) {
  std::unique_lock lock(segments_mutex_);
  std::string problem = check_new_segment(segment);
  if (!problem.empty()) {
    if (error) *error = "mmu map: " + problem;
    gsvirt::log_debug(gsvirt::kDebugGsgpu, "gsgpu mmu: map rejected: %s", problem.c_str());
    return false;
  }
  auto [it, inserted] = segments_.emplace(segment.va, segment);
  merge_with_neighbours(it);
  return true;
}

// Seed 000: an added segment that continues an existing one modifies it (new start or size)
// instead of standing alone.
void Mmu::merge_with_neighbours(SegmentMap::iterator it) {
  auto mergeable = [](const Segment& a, const Segment& b) {
    if (a.end_va() != b.va || a.perms != b.perms) return false;
    if (a.host || b.host) return a.host && b.host && a.host + a.size == b.host;  // never VRAM with host
    return a.end_phys() == b.phys;
  };
  auto next = std::next(it);
  if (next != segments_.end() && mergeable(it->second, next->second)) {
    it->second.size += next->second.size;
    segments_.erase(next);
  }
  if (it != segments_.begin()) {
    auto prev = std::prev(it);
    if (mergeable(prev->second, it->second)) {
      prev->second.size += it->second.size;
      segments_.erase(it);
    }
  }
}

bool Mmu::range_fully_mapped(uint64_t va, uint64_t size) const {
  uint64_t cursor = va;
  const uint64_t end = va + size;
  while (cursor < end) {
    auto it = find_segment(cursor);
    if (it == segments_.end()) return false;
    cursor = it->second.end_va();
  }
  return true;
}

bool Mmu::unmap(uint64_t va, uint64_t size, std::string* error) {
  std::unique_lock lock(segments_mutex_);
  std::string problem;
  if (size == 0 || !page_aligned(va) || !page_aligned(size)) {
    problem = "range " + hex(va) + "+" + hex(size) + " must be non-empty and page aligned";
  } else if (!gsvirt::checked_add(va, size)) {
    problem = "range " + hex(va) + "+" + hex(size) + " overflows";
  } else if (!range_fully_mapped(va, size)) {
    problem = "range " + hex(va) + "+" + hex(size) + " is not entirely mapped";
  }
  if (!problem.empty()) {
    if (error) *error = "mmu unmap: " + problem;
    return false;
  }
  const uint64_t end = va + size;
  auto it = find_segment(va);
  while (it != segments_.end() && it->second.va < end) {
    Segment old = it->second;
    it = segments_.erase(it);
    if (old.va < va) segments_.emplace(old.va, Segment{old.va, va - old.va, old.phys, old.perms, old.host});
    if (old.end_va() > end) {
      uint64_t cut = end - old.va;
      segments_.emplace(end, Segment{end, old.size - cut, old.host ? 0 : old.phys + cut, old.perms,
                                     old.host ? old.host + cut : nullptr});
      break;
    }
  }
  return true;
}

void Mmu::unmap_all() {
  std::unique_lock lock(segments_mutex_);
  segments_.clear();
}

Mmu::SegmentMap::const_iterator Mmu::find_segment(uint64_t va) const {
  auto it = segments_.upper_bound(va);
  if (it == segments_.begin()) return segments_.end();
  --it;
  return va < it->second.end_va() ? it : segments_.end();
}

std::optional<SegmentLookup> Mmu::lookup(uint64_t va) const {
  std::shared_lock lock(segments_mutex_);
  auto it = find_segment(va);
  if (it == segments_.end()) return std::nullopt;
  const Segment& s = it->second;
  return SegmentLookup{s, va - s.va, host_of(s) + (va - s.va)};
}

std::vector<Segment> Mmu::segments() const {
  std::shared_lock lock(segments_mutex_);
  std::vector<Segment> out;
  out.reserve(segments_.size());
  for (const auto& [va, s] : segments_) out.push_back(s);
  return out;
}

uint8_t* Mmu::translate(uint64_t va, uint64_t size, Access access) {
  {
    std::shared_lock lock(segments_mutex_);
    auto it = find_segment(va);
    if (it != segments_.end()) {
      const Segment& s = it->second;
      uint32_t need = required_perms(access);
      if ((s.perms & need) == need && gsvirt::range_within(va - s.va, size, s.size))
        return host_of(s) + (va - s.va);
    }
  }
  record_fault(MemoryFault{va, size, access});
  return nullptr;
}

bool Mmu::lookup_range(uint64_t va, Access access, Range* out) {
  std::shared_lock lock(segments_mutex_);
  auto it = find_segment(va);
  if (it == segments_.end()) return false;
  const Segment& s = it->second;
  uint32_t need = required_perms(access);
  if ((s.perms & need) != need) return false;
  if (out) *out = Range{s.va, s.end_va(), host_of(s)};
  return true;
}

void Mmu::report_fault(const MemoryFault& fault) { record_fault(fault); }

void Mmu::record_fault(const MemoryFault& fault) {
  FaultHandler handler;
  uint64_t count;
  {
    std::lock_guard lock(fault_mutex_);
    if (fault_log_.size() < kFaultLogCapacity) {
      fault_log_.push_back(fault);
    } else {
      fault_log_[fault_log_next_] = fault;
    }
    fault_log_next_ = (fault_log_next_ + 1) % kFaultLogCapacity;
    count = ++fault_count_;
    handler = fault_handler_;
  }
  // Only the first faults are logged: a faulting kernel may fault once per lane.
  if (count <= 8)
    gsvirt::log_error("gsgpu mmu: %s fault at va 0x%" PRIx64 " size %" PRIu64 " (%s)",
                      access_name(fault.access), fault.address, fault.size,
                      count == 8 ? "further faults counted, not logged" : "unmapped, out of bounds or not permitted");
  if (handler) handler(fault);
}

bool Mmu::write(uint64_t va, const void* data, uint64_t size) {
  std::shared_lock lock(segments_mutex_);
  if (size == 0) return true;
  if (!gsvirt::checked_add(va, size) || !range_fully_mapped(va, size)) return false;
  const uint8_t* src = static_cast<const uint8_t*>(data);
  uint64_t done = 0;
  while (done < size) {
    const Segment& s = find_segment(va + done)->second;
    uint64_t offset = va + done - s.va;
    uint64_t chunk = std::min(size - done, s.size - offset);
    std::memcpy(host_of(s) + offset, src + done, chunk);
    done += chunk;
  }
  return true;
}

bool Mmu::read(uint64_t va, void* out, uint64_t size) const {
  std::shared_lock lock(segments_mutex_);
  if (size == 0) return true;
  if (!gsvirt::checked_add(va, size) || !range_fully_mapped(va, size)) return false;
  uint8_t* dst = static_cast<uint8_t*>(out);
  uint64_t done = 0;
  while (done < size) {
    const Segment& s = find_segment(va + done)->second;
    uint64_t offset = va + done - s.va;
    uint64_t chunk = std::min(size - done, s.size - offset);
    std::memcpy(dst + done, host_of(s) + offset, chunk);
    done += chunk;
  }
  return true;
}

void Mmu::set_fault_handler(FaultHandler handler) {
  std::lock_guard lock(fault_mutex_);
  fault_handler_ = std::move(handler);
}

std::vector<MemoryFault> Mmu::fault_log() const {
  std::lock_guard lock(fault_mutex_);
  if (fault_log_.size() < kFaultLogCapacity) return fault_log_;
  std::vector<MemoryFault> ordered;
  ordered.reserve(fault_log_.size());
  for (size_t i = 0; i < fault_log_.size(); ++i)
    ordered.push_back(fault_log_[(fault_log_next_ + i) % kFaultLogCapacity]);
  return ordered;
}

uint64_t Mmu::fault_count() const {
  std::lock_guard lock(fault_mutex_);
  return fault_count_;
}

void Mmu::clear_faults() {
  std::lock_guard lock(fault_mutex_);
  fault_log_.clear();
  fault_log_next_ = 0;
  fault_count_ = 0;
}

// ---------------------------------------------------------------------------------------------

VramAllocator::VramAllocator(uint64_t vram_size, uint64_t granularity)
    : vram_size_(vram_size), granularity_(granularity) {
  reset();
}

void VramAllocator::reset() {
  std::lock_guard lock(mutex_);
  free_.clear();
  allocated_.clear();
  if (vram_size_ != 0) free_.emplace(0, vram_size_);
}

std::optional<uint64_t> VramAllocator::allocate(uint64_t size, uint64_t alignment) {
  if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return std::nullopt;
  alignment = std::max(alignment, granularity_);
  auto rounded = gsvirt::checked_add(size, granularity_ - 1);
  if (!rounded) return std::nullopt;
  size = *rounded / granularity_ * granularity_;
  std::lock_guard lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    auto [start, length] = *it;
    uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
    if (aligned < start || aligned - start > length || length - (aligned - start) < size) continue;
    free_.erase(it);
    if (aligned > start) free_.emplace(start, aligned - start);
    uint64_t tail = start + length - (aligned + size);
    if (tail > 0) free_.emplace(aligned + size, tail);
    allocated_.emplace(aligned, size);
    return aligned;
  }
  return std::nullopt;
}

bool VramAllocator::free(uint64_t phys) {
  std::lock_guard lock(mutex_);
  auto it = allocated_.find(phys);
  if (it == allocated_.end()) return false;
  uint64_t start = it->first, length = it->second;
  allocated_.erase(it);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_.emplace(start, length);
  return true;
}

uint64_t VramAllocator::bytes_free() const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (const auto& [start, length] : free_) total += length;
  return total;
}

}  // namespace gsgpu
