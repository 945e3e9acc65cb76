// Live-object registry, reference counting and validation helpers shared by every object family.
#pragma once

#include <string_view>
#include <vector>

#include "guest/cl/icd.h"

namespace gsvirt::icd {

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

// Registry of every handle we gave out and have not destroyed. Lookups never dereference the
// pointer, so a stale or foreign handle (another ICD's, freed memory) is answered safely.
void register_object(ObjectBase* object);
bool is_live(const void* handle, Kind kind);

// `handle` when it is a live object of the right type, else nullptr.
template <class Handle>
Handle live(Handle handle) {
  return handle && is_live(handle, KindOf<Handle>::value) ? handle : nullptr;
}

// Reference counting. The object is destroyed (vcDestroyObject sent, dependencies released)
// when both the app's and the internal count reach zero.
void retain_internal(ObjectBase* object);
void release_internal(ObjectBase* object);
cl_int retain_app(ObjectBase* object);
cl_int release_app(ObjectBase* object);

// Our one platform; never destroyed.
cl_platform_id the_platform();

// Number of live objects of a kind (tests and leak reports).
size_t live_object_count(Kind kind);

// ---- error reporting -------------------------------------------------------------------------
const char* cl_error_name(cl_int code);
// Logs "<api>: <what>: <CL_ERROR>" under GSVIRT_DEBUG=guest and returns `code`; used for every
// local validation failure so a debugging user sees which argument was refused.
cl_int refuse(const char* api, const char* what, cl_int code);
template <class T>
T refuse_null(const char* api, const char* what, cl_int code, cl_int* errcode_ret) {
  refuse(api, what, code);
  if (errcode_ret) *errcode_ret = code;
  return nullptr;
}
void trace_call(const char* api);

// ---- info queries answered locally -----------------------------------------------------------
cl_int write_info(size_t value_size, void* value, size_t* size_ret, const void* data, size_t size);
template <class T>
cl_int write_info_value(size_t value_size, void* value, size_t* size_ret, const T& v) {
  return write_info(value_size, value, size_ret, &v, sizeof v);
}
// A NUL-terminated string (the terminator counts in the size, as OpenCL requires).
cl_int write_info_string(size_t value_size, void* value, size_t* size_ret, std::string_view s);
template <class T>
cl_int write_info_array(size_t value_size, void* value, size_t* size_ret, const std::vector<T>& v) {
  return write_info(value_size, value, size_ret, v.data(), v.size() * sizeof(T));
}

}  // namespace gsvirt::icd
