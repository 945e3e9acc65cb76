// Guest id -> typed host object, per vcomp context.
//
// Ids are chosen by the guest (non-zero u64) and scoped to one context: a guest can name only what
// it created. Every lookup checks the type; a create with an id already in use is rejected.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "host/vcomp/objects.h"

namespace gsvirt::vcomp {

class ObjectTable {
 public:
  // Largest number of live objects one context may hold (a quota against memory exhaustion).
  static constexpr size_t kMaxObjects = 1u << 20;

  // Typed lookup; nullptr when the id is unknown or names an object of another type. `why` (if
  // non-null) receives the reason for the log line.
  template <typename T>
  T* get(uint64_t id, std::string* why = nullptr) const {
    HostObject* o = find(id);
    if (!o) {
      if (why) *why = "unknown id " + std::to_string(id);
      return nullptr;
    }
    if (o->type != T::kObjectType) {
      if (why)
        *why = "id " + std::to_string(id) + " is a " + proto::object_type_name(o->type) +
               ", not a " + proto::object_type_name(T::kObjectType);
      return nullptr;
    }
    return static_cast<T*>(o);
  }

  // Checks that `id` may be bound to a new object (non-zero, unused, under quota).
  bool can_insert(uint64_t id, std::string* why) const;
  void insert(uint64_t id, std::unique_ptr<HostObject> object);
  // Releases the host reference of one object; false if the id is unknown.
  bool erase(uint64_t id);
  size_t size() const { return objects_.size(); }
  void clear();

 private:
  HostObject* find(uint64_t id) const {
    auto it = objects_.find(id);
    return it == objects_.end() ? nullptr : it->second.get();
  }
  std::unordered_map<uint64_t, std::unique_ptr<HostObject>> objects_;
};

}  // namespace gsvirt::vcomp
