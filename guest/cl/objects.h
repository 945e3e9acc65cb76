// The ICD's live-object registry and the shared object-model helpers (common/cl) as guest/cl uses
// them, plus the ICD's own refusal logging.
#pragma once

#include "common/cl/errors.h"
#include "common/cl/info.h"
#include "common/cl/object.h"
#include "guest/cl/icd.h"

namespace gsvirt::icd {

using gsvirt::cl::cl_error_name;
using gsvirt::cl::put_array;
using gsvirt::cl::put_info;
using gsvirt::cl::put_string;
using gsvirt::cl::put_value;
using gsvirt::cl::release_app;
using gsvirt::cl::release_internal;
using gsvirt::cl::retain_app;
using gsvirt::cl::retain_internal;
using gsvirt::cl::set_error;

// Every handle this ICD gave out and has not destroyed. An object is destroyed (vcDestroyObject
// sent, destructor callbacks run, dependencies released) when its application and internal
// reference counts both reach zero.
gsvirt::cl::Registry& registry();

// `handle` when it is a live object of this ICD of the handle's type, else nullptr.
template <class Handle>
Handle live(Handle handle) {
  return registry().live(handle);
}

// Our one platform; never destroyed.
cl_platform_id the_platform();

// ---- error reporting -------------------------------------------------------------------------
// Logs "<api>: <what>: <CL_ERROR>" under GSVIRT_DEBUG=guest and returns `code`; used for every
// local validation failure so a debugging user sees which argument was refused.
cl_int refuse(const char* api, const char* what, cl_int code);
template <class T>
T refuse_null(const char* api, const char* what, cl_int code, cl_int* errcode_ret) {
  refuse(api, what, code);
  set_error(errcode_ret, code);
  return nullptr;
}
void trace_call(const char* api);

}  // namespace gsvirt::icd
