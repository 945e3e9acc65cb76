// The OpenCL object base shared by every OpenCL implementation in the tree (the guest ICD, the gsgpu
// runtime): the dispatch pointer, the kind, the reference counts, and a registry of live handles.
//
// cl_khr_icd: the loader reads the first word of every handle as the implementation's dispatch table,
// so `dispatch` is the first member and Object has no virtual functions (a vtable pointer would sit
// there instead). Each implementation derives its object structs from Object and keeps its own
// Registry: two implementations can share a process (the in-process transport links the host
// renderer into the ICD), and a handle of one must be foreign to the other.
#pragma once

#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace gsvirt::cl {

enum class Kind : uint8_t { kPlatform, kDevice, kContext, kQueue, kMem, kSampler, kProgram, kKernel, kEvent };

// "context", "command queue", ... (log lines).
const char* kind_name(Kind kind);
// What an entry point answers for a handle that is not a live object of `kind` (CL_INVALID_CONTEXT, ...).
cl_int invalid_handle_error(Kind kind);

template <class Handle> struct KindOf;
template <> struct KindOf<cl_platform_id> { static constexpr Kind value = Kind::kPlatform; };
template <> struct KindOf<cl_device_id> { static constexpr Kind value = Kind::kDevice; };
template <> struct KindOf<cl_context> { static constexpr Kind value = Kind::kContext; };
template <> struct KindOf<cl_command_queue> { static constexpr Kind value = Kind::kQueue; };
template <> struct KindOf<cl_mem> { static constexpr Kind value = Kind::kMem; };
template <> struct KindOf<cl_sampler> { static constexpr Kind value = Kind::kSampler; };
template <> struct KindOf<cl_program> { static constexpr Kind value = Kind::kProgram; };
template <> struct KindOf<cl_kernel> { static constexpr Kind value = Kind::kKernel; };
template <> struct KindOf<cl_event> { static constexpr Kind value = Kind::kEvent; };

class Registry;

// Two reference counts, because OpenCL keeps objects alive for two reasons: the application's
// clRetain*/clRelease* (what CL_*_REFERENCE_COUNT reports, and what a release past zero refuses) and
// the implementation's own holds (a kernel on its program, an event on its queue, a pending command
// on its arguments). The object is destroyed when both reach zero. Both live in one atomic word, so
// the thread that drops the last reference of either kind is the one that destroys.
//
// Platforms and root devices are not counted (OpenCL 1.2: retaining a root device does nothing);
// they live until their implementation removes them.
struct Object {
  Object(const cl_icd_dispatch* dispatch_table, Kind object_kind) : dispatch(dispatch_table), kind(object_kind) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  uint32_t app_refs() const { return uint32_t(refs.load() >> 32); }
  uint32_t internal_refs() const { return uint32_t(refs.load()); }

  const cl_icd_dispatch* dispatch;  // must stay the first member (cl_khr_icd)
  const Kind kind;
  Registry* registry = nullptr;     // set by Registry::add: where the object is live, and who destroys it
  std::atomic<uint64_t> refs{uint64_t{1} << 32};  // app count (high half) : internal count (low half)
};
static_assert(offsetof(Object, dispatch) == 0, "cl_khr_icd: the dispatch table comes first");

// The live handles of one implementation. A lookup never dereferences the handle, so a stale handle
// (released), a foreign one (another implementation's, freed memory, garbage) or one of another
// kind is answered with nullptr. Thread-safe; the destroy hook runs outside the registry's lock.
class Registry {
 public:
  // Tears down an object of this implementation whose last reference is gone; it has already left
  // the registry. Runs the implementation's last rites (destructor callbacks, telling the host) and
  // releases the internal references the object held.
  using Destroy = void (*)(Object* object);
  explicit Registry(Destroy destroy) : destroy_(destroy) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  void add(Object* object);
  // For objects destroyed outside reference counting (platforms, root devices).
  void remove(Object* object);

  // The object behind `handle` when it is live here and of `kind`, else nullptr.
  Object* find(const void* handle, Kind kind) const;
  // `handle` when it names a live object of its type here, else nullptr.
  template <class Handle>
  Handle live(Handle handle) const {
    return find(handle, KindOf<Handle>::value) ? handle : nullptr;
  }
  size_t live_count(Kind kind) const;

 private:
  friend cl_int release_app(Object* object);
  friend void release_internal(Object* object);
  // Removes an object whose last reference is gone and runs the destroy hook.
  void retire(Object* object);

  Destroy destroy_;
  mutable std::mutex mutex_;
  std::unordered_map<const void*, Kind> live_;
};

// Reference counting (see Object). retain/release of an uncounted object do nothing.
void retain_app(Object* object);
// CL_SUCCESS, or the kind's invalid-handle error when the application holds no reference any more.
cl_int release_app(Object* object);
void retain_internal(Object* object);
// Dropping an internal reference that is not held is ignored (and logged): it is a bug of ours, and
// destroying an object the application still uses would be worse.
void release_internal(Object* object);

}  // namespace gsvirt::cl
