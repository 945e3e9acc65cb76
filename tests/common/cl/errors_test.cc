// Error names, the errcode_ret convention, and once-only logging.
#include "common/cl/errors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/log.h"

namespace gsvirt::cl {
namespace {

struct LogCapture {
  LogCapture() {
    set_log_sink([](const char* line, void* self) { static_cast<LogCapture*>(self)->lines.emplace_back(line); },
                 this);
  }
  ~LogCapture() { set_log_sink(nullptr, nullptr); }
  std::vector<std::string> lines;
};

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
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_NE(log.lines[0].find("impl: clFoo: refused"), std::string::npos) << log.lines[0];
}

}  // namespace
}  // namespace gsvirt::cl
