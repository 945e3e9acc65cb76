// Devices: bound once per connection to the host's devices, then answered from a cache.
#pragma once

#include <vector>

#include "guest/cl/icd.h"

namespace gsvirt::icd {

// Every host device, discovered on first need; nullptr (and *err set) when the host cannot be
// reached or reports none.
const std::vector<cl_device_id>* host_devices(const char* api, cl_int* err);

// Devices of `all` whose type matches `type` (CL_DEVICE_TYPE_DEFAULT: the first device).
std::vector<cl_device_id> filter_devices(const std::vector<cl_device_id>& all, cl_device_type type);

}  // namespace gsvirt::icd
