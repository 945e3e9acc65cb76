// First-fit VA ranges over an ordered map of holes; freed ranges merge with their neighbours so
// the window does not fragment into pieces no allocation fits.
#include "gsgpu/drv/va_allocator.h"

namespace gsgpu::drv {

VaAllocator::VaAllocator(uint64_t base, uint64_t size, uint64_t page) : page_(page ? page : 1) {
  const uint64_t mask = page_ - 1;
  const uint64_t end = base + size < base ? UINT64_MAX : base + size;  // a window up to the top
  const uint64_t first = base > UINT64_MAX - mask ? end : (base + mask) & ~mask;
  const uint64_t last = end & ~mask;
  if (last > first) {
    holes_[first] = last - first;
    free_bytes_ = last - first;
  }
}

std::optional<uint64_t> VaAllocator::allocate(uint64_t size) {
  if (size == 0 || size > UINT64_MAX - (page_ - 1)) return std::nullopt;
  const uint64_t bytes = (size + page_ - 1) & ~(page_ - 1);
  for (auto it = holes_.begin(); it != holes_.end(); ++it) {
    if (it->second < bytes) continue;
    const uint64_t va = it->first;
    const uint64_t left = it->second - bytes;
    holes_.erase(it);
    if (left) holes_[va + bytes] = left;
    allocated_[va] = bytes;
    free_bytes_ -= bytes;
    return va;
  }
  return std::nullopt;
}

bool VaAllocator::free(uint64_t va) {
  auto used = allocated_.find(va);
  if (used == allocated_.end()) return false;
  uint64_t start = va, bytes = used->second;
  allocated_.erase(used);
  free_bytes_ += bytes;
  auto next = holes_.lower_bound(start);
  if (next != holes_.end() && next->first == start + bytes) {
    bytes += next->second;
    next = holes_.erase(next);
  }
  if (next != holes_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      bytes += prev->second;
      holes_.erase(prev);
    }
  }
  holes_[start] = bytes;
  return true;
}

}  // namespace gsgpu::drv
