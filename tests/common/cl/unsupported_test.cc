// The unsupported-entry table: every slot an implementation leaves empty refuses cleanly and says
// so once; slots it filled are left alone.
#include "common/cl/unsupported.h"

#include <gtest/gtest.h>

#include "tests/common/log_capture.h"

namespace gsvirt::cl {
namespace {

using gsvirt::testing::LogCapture;

cl_int CL_API_CALL my_flush(cl_command_queue) { return CL_SUCCESS; }

cl_icd_dispatch filled_table() {
  cl_icd_dispatch table{};
  table.clFlush = &my_flush;
  fill_unsupported<"unsupported test">(table);
  return table;
}

TEST(UnsupportedTest, EverySlotIsFilled) {
  cl_icd_dispatch table = filled_table();
  const auto* slots = reinterpret_cast<void* const*>(&table);
  for (size_t i = 0; i < sizeof(cl_icd_dispatch) / sizeof(void*); ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(UnsupportedTest, ImplementedSlotsAreKept) {
  EXPECT_EQ(filled_table().clFlush, &my_flush);
}

TEST(UnsupportedTest, StatusEntriesReturnInvalidOperation) {
  cl_icd_dispatch table = filled_table();
  EXPECT_EQ(table.clFinish(nullptr), CL_INVALID_OPERATION);
  EXPECT_EQ(table.clEnqueueNativeKernel(nullptr, nullptr, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr),
            CL_INVALID_OPERATION);
}

TEST(UnsupportedTest, CreatorsReturnNullAndSetErrcode) {
  cl_icd_dispatch table = filled_table();
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(table.clCreatePipe(nullptr, 0, 4, 16, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
  // errcode_ret is optional.
  EXPECT_EQ(table.clCreateContext(nullptr, 0, nullptr, nullptr, nullptr, nullptr), nullptr);
  // Pointer results without an errcode_ret parameter are NULL.
  EXPECT_EQ(table.clSVMAlloc(nullptr, 0, 64, 0), nullptr);
  EXPECT_EQ(table.clGetExtensionFunctionAddress("clFoo"), nullptr);
  table.clSVMFree(nullptr, nullptr);
}

TEST(UnsupportedTest, EachEntryIsLoggedOnceWithTheImplementationName) {
  LogCapture log;
  cl_icd_dispatch table = filled_table();
  cl_int err = CL_SUCCESS;
  table.clCreateSubDevicesEXT(nullptr, nullptr, 0, nullptr, nullptr);
  table.clCreateSubDevicesEXT(nullptr, nullptr, 0, nullptr, nullptr);
  table.clCreateFromGLBuffer(nullptr, 0, 0, &err);
  EXPECT_EQ(log.count("unsupported test: clCreateSubDevicesEXT: not supported"), 1u);
  EXPECT_EQ(log.count("unsupported test: clCreateFromGLBuffer: not supported"), 1u);
}

TEST(UnsupportedTest, EntriesTypedOpaqueStillRefuse) {
  cl_icd_dispatch table = filled_table();
  // D3D/DX9 slots are void* in the headers on this platform; called the only way the loader could.
  auto fn = reinterpret_cast<cl_int(CL_API_CALL*)()>(table.clGetDeviceIDsFromDX9MediaAdapterKHR);
  EXPECT_EQ(fn(), CL_INVALID_OPERATION);
}

}  // namespace
}  // namespace gsvirt::cl
