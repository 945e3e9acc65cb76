// The buffer objects of one native context: guest-chosen ids -> the device's handles.
//
// Ids are scoped to the context (another context's ids are simply unknown here), 0 is never an
// id, and a live id cannot be bound again. The table also keeps the context's BO quotas.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "host/renderer/context.h"

namespace gsvirt::gsgpu_ctx {

struct BoEntry {
  gsgpu::drv::BoHandle handle = 0;
  uint64_t size = 0;
  uint32_t res_id = 0;  // the blob that backs it (0: device memory)
};

class BoTable {
 public:
  BoTable(uint32_t max_bos, uint64_t max_bytes) : max_bos_(max_bos), max_bytes_(max_bytes) {}

  // nullptr for 0 and unknown ids.
  const BoEntry* find(uint32_t bo_id) const;
  // Whether a new object of `size` bytes may be bound to `bo_id`; *why says what stands in the way
  // and *quota tells a quota refusal (out of memory) from a bad id (invalid argument).
  bool can_insert(uint32_t bo_id, uint64_t size, std::string* why, bool* quota) const;
  void insert(uint32_t bo_id, const BoEntry& entry);
  void erase(uint32_t bo_id);
  // Ids of the objects a resource backs (for detach_resource).
  std::vector<uint32_t> backed_by(uint32_t res_id) const;

  size_t count() const { return bos_.size(); }
  uint64_t bytes() const { return bytes_; }

 private:
  const uint32_t max_bos_;
  const uint64_t max_bytes_;
  std::unordered_map<uint32_t, BoEntry> bos_;
  uint64_t bytes_ = 0;
};

}  // namespace gsvirt::gsgpu_ctx
