// The OpenCL extensions a guest may see: those gsvirt carries end to end.
//
// An executor reports its device's extensions (NVIDIA's: cl_khr_external_memory,
// cl_khr_semaphore, cl_khr_gl_event, cl_nv_create_buffer, ...), but an application can only use an
// extension whose entry points the gsvirt ICD exports (clGetExtensionFunctionAddressForPlatform),
// whose parameters the protocol and the info allow-list carry, or which only changes the OpenCL C
// the host's compiler accepts. The guest sees the intersection of the device's list with this one.
#pragma once

#include <CL/cl.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gsvirt::vcomp {

bool extension_carried_by_gsvirt(std::string_view name);

// What the guest sees of an object's extensions: the names both of the executor's answers report
// (the string and, where the object has it, the _WITH_VERSION array) and the allow-list keeps,
// so the two queries agree; in the string's order, separated by one space.
struct GuestExtensions {
  std::string names;                          // without the terminating NUL
  std::vector<cl_name_version> with_version;  // empty when the object has no _WITH_VERSION query
};
GuestExtensions guest_extensions(std::string_view executor_names, const cl_name_version* executor_versions,
                                 size_t version_count, bool has_versions);

}  // namespace gsvirt::vcomp
