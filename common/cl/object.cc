// Registry of live handles and the two reference counts of the shared OpenCL object base.
#include "common/cl/object.h"

#include <algorithm>

#include "common/log.h"

namespace gsvirt::cl {
namespace {

constexpr uint64_t kOneApp = uint64_t{1} << 32;
constexpr uint64_t kOneInternal = 1;
constexpr uint64_t kInternalMask = kOneApp - 1;

bool counted(const Object* object) { return object->kind != Kind::kPlatform && object->kind != Kind::kDevice; }

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kPlatform: return "platform";
    case Kind::kDevice: return "device";
    case Kind::kContext: return "context";
    case Kind::kQueue: return "command queue";
    case Kind::kMem: return "mem object";
    case Kind::kSampler: return "sampler";
    case Kind::kProgram: return "program";
    case Kind::kKernel: return "kernel";
    case Kind::kEvent: return "event";
  }
  return "object";
}

cl_int invalid_handle_error(Kind kind) {
  switch (kind) {
    case Kind::kPlatform: return CL_INVALID_PLATFORM;
    case Kind::kDevice: return CL_INVALID_DEVICE;
    case Kind::kContext: return CL_INVALID_CONTEXT;
    case Kind::kQueue: return CL_INVALID_COMMAND_QUEUE;
    case Kind::kMem: return CL_INVALID_MEM_OBJECT;
    case Kind::kSampler: return CL_INVALID_SAMPLER;
    case Kind::kProgram: return CL_INVALID_PROGRAM;
    case Kind::kKernel: return CL_INVALID_KERNEL;
    case Kind::kEvent: return CL_INVALID_EVENT;
  }
  return CL_INVALID_VALUE;
}

void Registry::add(Object* object) {
  object->registry = this;
  std::lock_guard lock(mutex_);
  live_[object] = object->kind;
}

void Registry::remove(Object* object) {
  std::lock_guard lock(mutex_);
  live_.erase(object);
}

Object* Registry::find(const void* handle, Kind kind) const {
  if (!handle) return nullptr;
  std::lock_guard lock(mutex_);
  auto it = live_.find(handle);
  if (it == live_.end() || it->second != kind) return nullptr;
  return static_cast<Object*>(const_cast<void*>(handle));
}

size_t Registry::live_count(Kind kind) const {
  std::lock_guard lock(mutex_);
  return size_t(std::count_if(live_.begin(), live_.end(), [kind](const auto& entry) { return entry.second == kind; }));
}

void Registry::retire(Object* object) {
  remove(object);
  destroy_(object);
}

void retain_app(Object* object) {
  if (counted(object)) object->refs.fetch_add(kOneApp);
}

cl_int release_app(Object* object) {
  if (!counted(object)) return CL_SUCCESS;
  uint64_t refs = object->refs.load();
  do {
    if (refs < kOneApp) return invalid_handle_error(object->kind);
  } while (!object->refs.compare_exchange_weak(refs, refs - kOneApp));
  if (refs == kOneApp && object->registry) object->registry->retire(object);
  return CL_SUCCESS;
}

void retain_internal(Object* object) {
  if (counted(object)) object->refs.fetch_add(kOneInternal);
}

void release_internal(Object* object) {
  if (!counted(object)) return;
  uint64_t refs = object->refs.load();
  do {
    if ((refs & kInternalMask) == 0) {
      log_error("OpenCL %s %p: internal reference released but none is held", kind_name(object->kind),
                static_cast<void*>(object));
      return;
    }
  } while (!object->refs.compare_exchange_weak(refs, refs - kOneInternal));
  if (refs == kOneInternal && object->registry) object->registry->retire(object);
}

}  // namespace gsvirt::cl
