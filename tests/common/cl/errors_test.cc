// Error names, the errcode_ret convention, and once-only logging.
#include "common/cl/errors.h"

#include <gtest/gtest.h>

#include "tests/common/log_capture.h"

namespace gsvirt::cl {
namespace {

using gsvirt::testing::LogCapture;

TEST(ErrorsTest, CodesHaveTheirSpecNames) {
  EXPECT_STREQ(cl_error_name(CL_SUCCESS), "CL_SUCCESS");
  EXPECT_STREQ(cl_error_name(CL_DEVICE_NOT_FOUND), "CL_DEVICE_NOT_FOUND");
  EXPECT_STREQ(cl_error_name(CL_INVALID_VALUE), "CL_INVALID_VALUE");
  EXPECT_STREQ(cl_error_name(CL_INVALID_KERNEL_ARGS), "CL_INVALID_KERNEL_ARGS");
  EXPECT_STREQ(cl_error_name(CL_INVALID_DEVICE_PARTITION_COUNT), "CL_INVALID_DEVICE_PARTITION_COUNT");
  EXPECT_STREQ(cl_error_name(CL_INVALID_PIPE_SIZE), "CL_INVALID_PIPE_SIZE");
  EXPECT_STREQ(cl_error_name(-9999), "CL_ERROR");
  EXPECT_STREQ(cl_error_name(1), "CL_ERROR");
}

TEST(ErrorsTest, SetErrorWritesOnlyWhenAsked) {
  cl_int err = CL_SUCCESS;
  set_error(&err, CL_OUT_OF_RESOURCES);
  EXPECT_EQ(err, CL_OUT_OF_RESOURCES);
  set_error(nullptr, CL_OUT_OF_RESOURCES);
}

TEST(ErrorsTest, LogOnceLogsEachCombinationOnce) {
  LogCapture log;
  log_once("impl", "clFoo", "refused");
  log_once("impl", "clFoo", "refused");
  log_once("impl", "clFoo", "another reason");
  log_once("other impl", "clFoo", "refused");
  ASSERT_EQ(log.lines().size(), 3u);
  EXPECT_EQ(log.count("impl: clFoo: refused"), 2u) << "\"other impl: clFoo: refused\" is the other";
}

}  // namespace
}  // namespace gsvirt::cl
