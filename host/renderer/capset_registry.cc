#include "host/renderer/capset_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "common/log.h"

namespace gsvirt::renderer {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<uint32_t, CapsetInfo> capsets;
};

// Function-local static: registration may happen from other static initialisers.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool register_capset(const CapsetInfo& info) {
  if (info.capset_id == 0 || info.capset_id > kMaxCapsetId || !info.create || !info.fill_caps) {
    log_error("register_capset: capset %u rejected (id must be 1..%u, create and fill_caps set)",
              info.capset_id, kMaxCapsetId);
    return false;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, inserted] = r.capsets.emplace(info.capset_id, info);
  if (inserted) log_debug(kDebugResources, "register_capset: capset %u registered", info.capset_id);
  return inserted;
}

std::optional<CapsetInfo> find_capset(uint32_t capset_id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.capsets.find(capset_id);
  if (it == r.capsets.end()) return std::nullopt;
  return it->second;
}

std::vector<uint32_t> registered_capset_ids() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<uint32_t> ids;
  for (const auto& [id, info] : r.capsets) ids.push_back(id);
  return ids;
}

}  // namespace gsvirt::renderer
