#include "gsgpu/drv/va_table.h"

#include <cinttypes>
#include <cstdio>

#include "common/checked_math.h"
#include "gsgpu/drv/drv.h"
#include "common/text.h"

namespace gsgpu::drv {
namespace {

using gsvirt::hex;

}  // namespace

VaTable::VaTable(uint64_t va_base, uint64_t va_size, uint64_t page_size)
    : va_base_(va_base), va_size_(va_size), page_size_(page_size ? page_size : 4096) {}

std::string VaTable::bind(uint32_t bo, uint64_t bo_size, uint64_t bo_offset, uint64_t va, uint64_t size,
                          uint32_t perms) {
  if (!aligned(bo_offset) || !aligned(va) || !aligned(size) || size == 0)
    return "bo_offset " + hex(bo_offset) + ", va " + hex(va) + " and size " + hex(size) +
           " must be page aligned, size non-zero";
  if (perms == 0 || (perms & ~uint32_t(kVaRead | kVaWrite | kVaExecute)) != 0)
    return "perms " + hex(perms) + " must be a non-empty subset of read, write, execute";
  if (va < va_base_ || !gsvirt::range_within(va - va_base_, size, va_size_))
    return "range " + hex(va) + "+" + hex(size) + " is outside the VA window " + hex(va_base_) + "+" +
           hex(va_size_);
  if (!gsvirt::range_within(bo_offset, size, bo_size))
    return "bo_offset " + hex(bo_offset) + " + size " + hex(size) + " is outside the " + hex(bo_size) +
           "-byte object";
  // The first binding that ends after va must start at or after va + size.
  auto next = bindings_.lower_bound(va);
  if (next != bindings_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size > va)
      return "range " + hex(va) + "+" + hex(size) + " overlaps the binding at " + hex(prev->first);
  }
  if (next != bindings_.end() && next->first < va + size)
    return "range " + hex(va) + "+" + hex(size) + " overlaps the binding at " + hex(next->first);
  bindings_.emplace(va, Binding{bo, bo_offset, size});
  return "";
}

std::string VaTable::unbind(uint64_t va, uint64_t size) {
  if (!aligned(va) || !aligned(size) || size == 0 || !gsvirt::checked_add(va, size))
    return "va " + hex(va) + " and size " + hex(size) + " must be page aligned, size non-zero";
  const uint64_t end = va + size;
  uint64_t cursor = va;
  auto it = bindings_.upper_bound(va);
  if (it != bindings_.begin()) --it;
  for (; it != bindings_.end() && cursor < end; ++it) {
    if (it->first + it->second.size <= cursor) continue;
    if (it->first > cursor) break;
    cursor = it->first + it->second.size;
  }
  if (cursor < end)
    return "range " + hex(va) + "+" + hex(size) + " is not entirely bound (first gap at " + hex(cursor) + ")";
  it = bindings_.upper_bound(va);
  if (it != bindings_.begin()) --it;
  while (it != bindings_.end() && it->first < end) {
    const uint64_t b_va = it->first;
    const Binding b = it->second;
    if (b_va + b.size <= va) {
      ++it;
      continue;
    }
    it = bindings_.erase(it);
    if (b_va < va) bindings_.emplace(b_va, Binding{b.bo, b.bo_offset, va - b_va});
    if (b_va + b.size > end) {
      uint64_t cut = end - b_va;
      it = std::next(bindings_.emplace(end, Binding{b.bo, b.bo_offset + cut, b.size - cut}).first);
    }
  }
  return "";
}

std::vector<std::pair<uint64_t, uint64_t>> VaTable::drop_bo(uint32_t bo) {
  std::vector<std::pair<uint64_t, uint64_t>> dropped;
  for (auto it = bindings_.begin(); it != bindings_.end();) {
    if (it->second.bo != bo) {
      ++it;
      continue;
    }
    dropped.emplace_back(it->first, it->second.size);
    it = bindings_.erase(it);
  }
  return dropped;
}

}  // namespace gsgpu::drv
