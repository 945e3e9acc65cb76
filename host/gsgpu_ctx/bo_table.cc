#include "host/gsgpu_ctx/bo_table.h"

#include "common/checked_math.h"

namespace gsvirt::gsgpu_ctx {

const BoEntry* BoTable::find(uint32_t bo_id) const {
  auto it = bos_.find(bo_id);
  return it == bos_.end() ? nullptr : &it->second;
}

bool BoTable::can_insert(uint32_t bo_id, uint64_t size, std::string* why, bool* quota) const {
  *quota = false;
  if (bo_id == 0) {
    *why = "0 is not a BO id";
    return false;
  }
  if (bos_.count(bo_id)) {
    *why = "id " + std::to_string(bo_id) + " is already bound in this context";
    return false;
  }
  *quota = true;
  if (bos_.size() >= max_bos_) {
    *why = "the context already has " + std::to_string(bos_.size()) + " BOs (quota " +
           std::to_string(max_bos_) + ")";
    return false;
  }
  auto total = checked_add(bytes_, size);
  if (!total || *total > max_bytes_) {
    *why = std::to_string(size) + " more bytes exceed the context's BO byte quota of " +
           std::to_string(max_bytes_) + " (" + std::to_string(bytes_) + " in use)";
    return false;
  }
  return true;
}

void BoTable::insert(uint32_t bo_id, const BoEntry& entry) {
  bos_.emplace(bo_id, entry);
  bytes_ += entry.size;
}

void BoTable::erase(uint32_t bo_id) {
  auto it = bos_.find(bo_id);
  if (it == bos_.end()) return;
  bytes_ -= it->second.size;
  bos_.erase(it);
}

std::vector<uint32_t> BoTable::backed_by(uint32_t res_id) const {
  std::vector<uint32_t> ids;
  for (const auto& [id, bo] : bos_)
    if (bo.res_id == res_id) ids.push_back(id);
  return ids;
}

}  // namespace gsvirt::gsgpu_ctx
