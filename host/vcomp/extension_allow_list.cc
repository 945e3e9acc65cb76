// The extension allow-list: see extension_allow_list.h.
#include "host/vcomp/extension_allow_list.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace gsvirt::vcomp {
namespace {

constexpr std::string_view kCarried[] = {
    // The ICD's own: clIcdGetPlatformIDsKHR is what the loader fetches.
    "cl_khr_icd",
    // OpenCL C only (types, built-ins, pragmas the host's compiler accepts; no API of their own).
    "cl_khr_byte_addressable_store", "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics", "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics", "cl_khr_fp64", "cl_khr_fp16", "cl_khr_3d_image_writes",
    // Plain data the protocol carries: an image's cl_image_desc.buffer (gsgpu reports it).
    "cl_khr_image2d_from_buffer",
    // Device queries only, every parameter on the info allow-list (info_allow_list.cc).
    "cl_khr_device_uuid", "cl_khr_pci_bus_info", "cl_nv_device_attribute_query",
};

std::vector<std::string_view> split_names(std::string_view list) {
  std::vector<std::string_view> names;
  size_t at = 0;
  while (at < list.size()) {
    size_t start = list.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    size_t end = std::min(list.find(' ', start), list.size());
    names.push_back(list.substr(start, end - start));
    at = end;
  }
  return names;
}

std::string_view name_of(const cl_name_version& entry) {
  return std::string_view(entry.name, strnlen(entry.name, sizeof entry.name));
}

}  // namespace

bool extension_carried_by_gsvirt(std::string_view name) {
  return std::find(std::begin(kCarried), std::end(kCarried), name) != std::end(kCarried);
}

GuestExtensions guest_extensions(std::string_view executor_names, const cl_name_version* executor_versions,
                                 size_t version_count, bool has_versions) {
  std::set<std::string_view> in_array;
  for (size_t i = 0; i < version_count; ++i) in_array.insert(name_of(executor_versions[i]));
  GuestExtensions guest;
  std::set<std::string_view> kept;
  for (std::string_view name : split_names(executor_names)) {
    if (!extension_carried_by_gsvirt(name) || (has_versions && !in_array.count(name)) || !kept.insert(name).second)
      continue;
    if (!guest.names.empty()) guest.names += ' ';
    guest.names += name;
  }
  for (size_t i = 0; has_versions && i < version_count; ++i) {
    std::string_view name = name_of(executor_versions[i]);
    if (!kept.count(name)) continue;
    if (std::any_of(guest.with_version.begin(), guest.with_version.end(),
                    [&](const cl_name_version& v) { return name_of(v) == name; }))
      continue;
    guest.with_version.push_back(executor_versions[i]);
  }
  return guest;
}

}  // namespace gsvirt::vcomp
