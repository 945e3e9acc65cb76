// Real OpenCL through the gsvirt ICD: the app side of every end-to-end test.
//
// The test links libOpenCL (ocl-icd) and finds the ICD through OCL_ICD_VENDORS (set by meson).
// With GSVIRT_TEST_SERVER set, a gsvirt-server is started on a private socket before the first
// OpenCL call and the vtest transport is used; otherwise the in-process transport.
#pragma once

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gsvirt::icd::test {

// The one platform, device, context and queue (profiling enabled) the tests share.
struct ClEnvironment {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};
const ClEnvironment& cl_env();

// Builds `source` for the test device; fails the test on a build error (printing the log).
cl_program build_program(const char* source, const char* options = "");
std::string build_log(cl_program program);

bool sync_mode();  // GSVIRT_SYNC=1: batched commands report their own errors

}  // namespace gsvirt::icd::test
