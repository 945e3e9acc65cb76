// OpenCL error codes in log lines, the errcode_ret convention, and one-time reports of refused calls.
#pragma once

#include <CL/cl.h>

#include <string_view>

namespace gsvirt::cl {

// "CL_INVALID_VALUE" for CL_INVALID_VALUE; "CL_ERROR" for a code the OpenCL headers do not name.
const char* cl_error_name(cl_int code);

// Creators report through an optional last parameter.
inline void set_error(cl_int* errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
}

// Logs "<implementation>: <entry>: <why>" the first time this combination is seen, so an application
// that repeats a refused call does not flood the log. Bounded: after a few thousand distinct lines
// nothing more is remembered or logged.
void log_once(std::string_view implementation, std::string_view entry, std::string_view why);

}  // namespace gsvirt::cl
