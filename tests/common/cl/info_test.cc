// The info writers: OpenCL's size-query and too-small-buffer rules for values, strings and arrays.
#include "common/cl/info.h"

#include <gtest/gtest.h>

#include <cstring>

namespace gsvirt::cl {
namespace {

TEST(InfoTest, ValueIsWrittenWithItsSize) {
  cl_uint out = 0;
  size_t size = 0;
  EXPECT_EQ(put_value(cl_uint(7), sizeof out, &out, &size), CL_SUCCESS);
  EXPECT_EQ(out, 7u);
  EXPECT_EQ(size, sizeof(cl_uint));
}

TEST(InfoTest, NullValueIsASizeQuery) {
  size_t size = 0;
  EXPECT_EQ(put_value(cl_ulong(1), 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_ulong));
  EXPECT_EQ(put_value(cl_ulong(1), 0, nullptr, nullptr), CL_SUCCESS);
}

TEST(InfoTest, LargerBufferTakesTheValueAndReportsItsTrueSize) {
  unsigned char out[16];
  std::memset(out, 0xAB, sizeof out);
  size_t size = 0;
  EXPECT_EQ(put_value(cl_uint(0x01020304), sizeof out, out, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_uint));
  EXPECT_EQ(out[sizeof(cl_uint)], 0xAB) << "bytes past the value are left alone";
}

TEST(InfoTest, TooSmallBufferIsInvalidValueAndWritesNothing) {
  unsigned char out[4] = {1, 2, 3, 4};
  size_t size = 99;
  EXPECT_EQ(put_value(cl_ulong(~0ull), sizeof out, out, &size), CL_INVALID_VALUE);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[3], 4);
  EXPECT_EQ(size, 99u);
}

TEST(InfoTest, StringSizeCountsTheTerminator) {
  size_t size = 0;
  EXPECT_EQ(put_string("gsgpu", 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 6u);
  char out[6];
  std::memset(out, 'x', sizeof out);
  EXPECT_EQ(put_string("gsgpu", sizeof out, out, nullptr), CL_SUCCESS);
  EXPECT_STREQ(out, "gsgpu");
  // Room for the characters but not the terminator: refused.
  char tight[5] = {};
  EXPECT_EQ(put_string("gsgpu", sizeof tight, tight, &size), CL_INVALID_VALUE);
  EXPECT_EQ(tight[0], '\0');
}

TEST(InfoTest, EmptyStringIsOneByte) {
  size_t size = 0;
  char out = 'x';
  EXPECT_EQ(put_string("", 1, &out, &size), CL_SUCCESS);
  EXPECT_EQ(size, 1u);
  EXPECT_EQ(out, '\0');
}

TEST(InfoTest, ArraysAreWrittenWhole) {
  const std::vector<size_t> sizes = {1024, 1024, 64};
  size_t size = 0;
  EXPECT_EQ(put_array(sizes, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 3 * sizeof(size_t));
  size_t out[3] = {};
  EXPECT_EQ(put_array(sizes, sizeof out, out, nullptr), CL_SUCCESS);
  EXPECT_EQ(out[2], 64u);
  size_t short_out[2] = {};
  EXPECT_EQ(put_array(sizes, sizeof short_out, short_out, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(short_out[0], 0u);
  // An empty array is a zero-size value, which any buffer (or none) holds.
  EXPECT_EQ(put_array(std::vector<cl_uint>{}, 0, out, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);
}

}  // namespace
}  // namespace gsvirt::cl
