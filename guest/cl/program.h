// Programs: helpers exposed for tests.
#pragma once

#include <string>

#include "guest/cl/icd.h"

namespace gsvirt::icd {

// clCreateProgramWithSource's strings joined into the one source the host compiles: a length of
// 0 (or lengths == NULL) means the string is NUL-terminated.
std::string concatenate_source(cl_uint count, const char** strings, const size_t* lengths);

}  // namespace gsvirt::icd
