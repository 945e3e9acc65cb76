#include "host/vcomp/object_table.h"

#include <algorithm>
#include <vector>

namespace gsvirt::vcomp {

bool ObjectTable::can_insert(uint64_t id, std::string* why) const {
  if (id == 0) {
    *why = "id 0 is reserved";
    return false;
  }
  if (HostObject* o = find(id)) {
    *why = "id " + std::to_string(id) + " already names a " + proto::object_type_name(o->type);
    return false;
  }
  if (objects_.size() >= kMaxObjects) {
    *why = "object quota of " + std::to_string(kMaxObjects) + " reached";
    return false;
  }
  return true;
}

void ObjectTable::insert(uint64_t id, std::unique_ptr<HostObject> object) {
  objects_.emplace(id, std::move(object));
}

bool ObjectTable::erase(uint64_t id) { return objects_.erase(id) != 0; }

void ObjectTable::clear() {
  // Release dependents before what they depend on (events and kernels before queues, programs,
  // memory and contexts), so that an executor never sees a release of a context that still has
  // live children it did not retain.
  static constexpr ObjectType kOrder[] = {ObjectType::kEvent,   ObjectType::kKernel,
                                          ObjectType::kProgram, ObjectType::kSampler,
                                          ObjectType::kMem,     ObjectType::kQueue,
                                          ObjectType::kContext, ObjectType::kDevice};
  for (ObjectType t : kOrder) {
    std::vector<uint64_t> ids;
    for (auto& [id, o] : objects_)
      if (o->type == t) ids.push_back(id);
    // Sub-buffers have larger ids than their parents (ids are monotonic per guest), so release
    // newest first.
    std::sort(ids.rbegin(), ids.rend());
    for (uint64_t id : ids) objects_.erase(id);
  }
  objects_.clear();
}

}  // namespace gsvirt::vcomp
