// clGet*Info answers, written the one way OpenCL specifies for every query: `size_ret` (when given)
// receives the size of the value; `value` (when given) receives the value, and a buffer smaller than
// the value is CL_INVALID_VALUE with nothing written, `size_ret` included. A NULL `value` is a size
// query.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace gsvirt::cl {

cl_int put_info(const void* data, size_t size, size_t value_size, void* value, size_t* size_ret);

template <class T>
cl_int put_value(const T& v, size_t value_size, void* value, size_t* size_ret) {
  return put_info(&v, sizeof v, value_size, value, size_ret);
}

// A string with its NUL terminator, which counts in the size.
cl_int put_string(std::string_view s, size_t value_size, void* value, size_t* size_ret);

template <class T>
cl_int put_array(const T* data, size_t count, size_t value_size, void* value, size_t* size_ret) {
  return put_info(data, count * sizeof(T), value_size, value, size_ret);
}
template <class T>
cl_int put_array(const std::vector<T>& v, size_t value_size, void* value, size_t* size_ret) {
  return put_array(v.data(), v.size(), value_size, value, size_ret);
}

}  // namespace gsvirt::cl
