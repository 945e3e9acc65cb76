// The host's log against a guest that fills it (issue 12, point 12): guest strings cannot forge
// lines or send terminal escapes, and a flood of one failure is cut to a bounded number of lines
// that say how many were dropped, while other messages still get through.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/log.h"
#include "tests/common/log_capture.h"

namespace gsvirt {
namespace {

using testing::LogCapture;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = set_log_rate_limit({5, 1000}); }
  void TearDown() override { set_log_rate_limit(saved_); }
  LogRateLimit saved_;
};

TEST_F(LogTest, GuestStringsCannotForgeLinesOrSendEscapes) {
  LogCapture log;
  const char* guest = "kernel\ngsvirt: error: forged line\x1b[2J\r\x7f";
  log_error("build of '%s' failed", guest);
  ASSERT_EQ(log.lines().size(), 1u);
  const std::string line = log.lines()[0];
  EXPECT_EQ(line, "gsvirt: error: build of 'kernel\\x0agsvirt: error: forged line\\x1b[2J\\x0d\\x7f' failed");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find('\x1b'), std::string::npos);
}

TEST_F(LogTest, AFloodOfOneMessageIsCutAndCounted) {
  set_log_rate_limit({5, 0.001});  // five at once, then (practically) none
  LogCapture log;
  for (int i = 0; i < 1000000; ++i) log_error("command %d: bad id", i);
  log_error("another message");
  EXPECT_EQ(log.count("bad id"), 5u) << log.all();
  EXPECT_TRUE(log.contains("another message")) << "other call sites keep their own budget";
}

TEST_F(LogTest, SuppressedCountIsReportedWhenTheBudgetRefills) {
  set_log_rate_limit({1, 200});  // one a 5 ms
  LogCapture log;
  for (int i = 0; i < 50; ++i) log_error("flood");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (log.count("flood") < 2 && std::chrono::steady_clock::now() < until) log_error("flood");
  ASSERT_GE(log.count("flood"), 2u);
  EXPECT_TRUE(log.contains("more like it suppressed)")) << log.all();
}

TEST_F(LogTest, DebugLinesAreNotLimited) {
  set_log_rate_limit({1, 0});
  const uint32_t flags = debug_flags();
  set_debug_flags(kDebugCommands);
  LogCapture log;
  for (int i = 0; i < 20; ++i) log_debug(kDebugCommands, "decoded %d", i);
  set_debug_flags(flags);
  EXPECT_EQ(log.count("decoded"), 20u);
}

}  // namespace
}  // namespace gsvirt
