#include "gsgpu/cl/bo_pool.h"

#include "common/log.h"

namespace gsgpu::cl {

BoPool::BoPool(uint32_t perms, AllocateFn allocate, FreeFn free)
    : perms_(perms), allocate_(std::move(allocate)), free_(std::move(free)) {}

BoPool::~BoPool() {
  if (!slabs_.empty()) gsvirt::log_error("gsgpu runtime: BoPool destroyed with %zu slab(s) not released", slabs_.size());
}

bool BoPool::start_slab(std::string* error) {
  if (!idle_.empty()) {
    current_ = idle_.back();
    idle_.pop_back();
    slabs_.at(current_).used = 0;
    return true;
  }
  auto whole = allocate_(kSlabBytes, perms_, error);
  if (!whole) return false;
  while (next_id_ == 0 || slabs_.count(next_id_)) ++next_id_;
  current_ = next_id_++;
  slabs_[current_].whole = *whole;
  return true;
}

std::optional<GpuAlloc> BoPool::allocate(uint64_t size, std::string* error) {
  if (size == 0 || size > kMaxPiece) {
    *error = "pool piece of " + std::to_string(size) + " bytes outside 1.." + std::to_string(kMaxPiece);
    return std::nullopt;
  }
  const uint64_t rounded = (size + kAlign - 1) / kAlign * kAlign;
  auto it = slabs_.find(current_);
  if (it == slabs_.end() || it->second.used + rounded > it->second.whole.size) {
    // The current slab is full: it is reused once its last piece comes back (free()).
    const uint32_t full = current_;
    current_ = 0;
    if (it != slabs_.end() && it->second.live == 0) idle_.push_back(full);
    if (!start_slab(error)) return std::nullopt;
    it = slabs_.find(current_);
  }
  Slab& slab = it->second;
  GpuAlloc piece;
  piece.bo = slab.whole.bo;
  piece.va = slab.whole.va + slab.used;
  piece.cpu = slab.whole.cpu + slab.used;
  piece.size = rounded;
  piece.slab = current_;
  slab.used += rounded;
  ++slab.live;
  return piece;
}

void BoPool::free(const GpuAlloc& piece) {
  auto it = slabs_.find(piece.slab);
  if (it == slabs_.end() || it->second.live == 0) {
    gsvirt::log_error("gsgpu runtime: BoPool: piece of unknown slab %u freed", piece.slab);
    return;
  }
  Slab& slab = it->second;
  if (--slab.live) return;
  if (piece.slab == current_) {
    slab.used = 0;  // nothing left in it: fill it again from the start
    return;
  }
  if (idle_.size() < kKeepIdle) {
    idle_.push_back(piece.slab);
    return;
  }
  free_(slab.whole);
  slabs_.erase(it);
}

void BoPool::release_all() {
  for (auto& [id, slab] : slabs_) free_(slab.whole);
  slabs_.clear();
  idle_.clear();
  current_ = 0;
}

}  // namespace gsgpu::cl
