// The info writers (info.h).
#include "common/cl/info.h"

#include <cstring>
#include <string>

namespace gsvirt::cl {

cl_int put_info(const void* data, size_t size, size_t value_size, void* value, size_t* size_ret) {
  if (value) {
    if (value_size < size) return CL_INVALID_VALUE;
    if (size) std::memcpy(value, data, size);
  }
  if (size_ret) *size_ret = size;
  return CL_SUCCESS;
}

cl_int put_string(std::string_view s, size_t value_size, void* value, size_t* size_ret) {
  const std::string terminated(s);
  return put_info(terminated.c_str(), terminated.size() + 1, value_size, value, size_ret);
}

}  // namespace gsvirt::cl
