// The extension allow-list on the lists real devices report (no device needed).
#include "host/vcomp/extension_allow_list.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace gsvirt::vcomp {
namespace {

cl_name_version entry(const char* name, cl_version version = CL_MAKE_VERSION(1, 0, 0)) {
  cl_name_version e{};
  e.version = version;
  std::strncpy(e.name, name, sizeof e.name - 1);
  return e;
}

std::vector<std::string> names_of(const std::vector<cl_name_version>& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries) names.emplace_back(e.name);
  return names;
}

// NVIDIA's OpenCL 3.0 on an H100 (driver 580.159.04, clinfo through the host executor): what the
// guest saw before the allow-list, and what it sees now.
TEST(ExtensionAllowList, NvidiaH100ListKeepsOnlyWhatGsvirtCarries) {
  const char* nvidia =
      "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "
      "cl_khr_local_int32_extended_atomics cl_khr_fp64 cl_khr_3d_image_writes cl_khr_byte_addressable_store "
      "cl_khr_icd cl_khr_gl_sharing cl_nv_compiler_options cl_nv_device_attribute_query cl_nv_pragma_unroll "
      "cl_nv_copy_opts cl_nv_create_buffer cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "
      "cl_khr_device_uuid cl_khr_pci_bus_info cl_khr_external_semaphore cl_khr_external_memory "
      "cl_khr_external_semaphore_opaque_fd cl_khr_external_memory_opaque_fd cl_khr_semaphore cl_khr_gl_event "
      "cl_khr_create_command_queue cl_khr_fp16 cl_khr_spir";
  std::vector<cl_name_version> versions;
  for (const char* n : {"cl_khr_fp64", "cl_khr_icd", "cl_khr_semaphore", "cl_nv_create_buffer", "cl_khr_device_uuid",
                        "cl_khr_fp16", "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
                        "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
                        "cl_khr_3d_image_writes", "cl_khr_byte_addressable_store", "cl_nv_device_attribute_query",
                        "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics", "cl_khr_pci_bus_info",
                        "cl_khr_external_memory", "cl_khr_gl_event"})
    versions.push_back(entry(n));
  GuestExtensions guest = guest_extensions(nvidia, versions.data(), versions.size(), true);
  EXPECT_EQ(guest.names,
            "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "
            "cl_khr_local_int32_extended_atomics cl_khr_fp64 cl_khr_3d_image_writes cl_khr_byte_addressable_store "
            "cl_khr_icd cl_nv_device_attribute_query cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "
            "cl_khr_device_uuid cl_khr_pci_bus_info cl_khr_fp16");
  EXPECT_EQ(names_of(guest.with_version),
            (std::vector<std::string>{"cl_khr_fp64", "cl_khr_icd", "cl_khr_device_uuid", "cl_khr_fp16",
                                      "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
                                      "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
                                      "cl_khr_3d_image_writes", "cl_khr_byte_addressable_store",
                                      "cl_nv_device_attribute_query", "cl_khr_int64_base_atomics",
                                      "cl_khr_int64_extended_atomics", "cl_khr_pci_bus_info"}));
}

// Where the executor's two answers disagree, the guest sees only what both name, so its own two
// answers agree; a 1.2 device (no array) is filtered by its string alone.
TEST(ExtensionAllowList, StringAndArrayAgreeAndRepeatsGoOnce) {
  std::vector<cl_name_version> versions = {entry("cl_khr_fp64", CL_MAKE_VERSION(1, 0, 0)), entry("cl_khr_icd"),
                                           entry("cl_khr_fp64", CL_MAKE_VERSION(2, 0, 0))};
  GuestExtensions guest =
      guest_extensions("  cl_khr_fp64 cl_khr_fp64 cl_khr_byte_addressable_store  ", versions.data(), versions.size(),
                       true);
  EXPECT_EQ(guest.names, "cl_khr_fp64");
  ASSERT_EQ(guest.with_version.size(), 1u);
  EXPECT_EQ(guest.with_version[0].version, cl_version(CL_MAKE_VERSION(1, 0, 0)));
  GuestExtensions old = guest_extensions("cl_khr_fp64 cl_khr_spir cl_khr_icd", nullptr, 0, false);
  EXPECT_EQ(old.names, "cl_khr_fp64 cl_khr_icd");
  EXPECT_TRUE(old.with_version.empty());
  EXPECT_EQ(guest_extensions("", nullptr, 0, false).names, "");
}

}  // namespace
}  // namespace gsvirt::vcomp
