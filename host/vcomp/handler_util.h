// Helpers the per-family handler files share (templates of VcompContext).
#pragma once

#include <algorithm>

#include "common/log.h"
#include "host/vcomp/vcomp_context.h"

namespace gsvirt::vcomp {

// Whether the executor may answer `param_name` for an object of `kind`: an allow-list of
// parameters known to carry plain data (info_allow_list.cc). Handles, host pointers and unknown
// parameters are refused; the guest answers the handle-valued ones from its own object model.
bool info_param_allowed(InfoKind kind, uint32_t param_name);

// Each argument's class from the executor's kernel metadata (kernel_args.cc).
std::vector<KernelArgSpec> describe_kernel_args(const cl_icd_dispatch& api, cl_kernel kernel);

template <typename T>
T* VcompContext::lookup(uint64_t id, const char* field, bool optional) {
  if (id == 0 && optional) return nullptr;
  std::string why;
  T* o = objects_.template get<T>(id, &why);
  if (!o) log_field_error(field, why);
  return o;
}

template <typename Query>
void VcompContext::forward_info(InfoKind kind, uint32_t param_name, Query query, const proto::DataRef& value,
                                std::vector<uint8_t>* out_value, uint64_t* size_ret,
                                int32_t* result) {
  if (!info_param_allowed(kind, param_name)) {
    log_field_error("param_name", "parameter " + std::to_string(param_name) +
                                      " is not on the host's allow-list (handles are answered by the guest)");
    *result = CL_INVALID_VALUE;
    return;
  }
  size_t actual = 0;
  cl_int err = query(0, nullptr, &actual);
  if (err != CL_SUCCESS) {
    *result = err;
    return;
  }
  *size_ret = actual;
  if (value.size == 0) return;  // the guest asked for the size only
  if (value.size < actual) {
    *result = CL_INVALID_VALUE;  // the spec's answer when param_value_size is too small
    return;
  }
  uint8_t* dst = data_out(value, actual, out_value, "value");
  if (!dst) {
    *result = CL_INVALID_VALUE;
    return;
  }
  // Query into a zeroed host buffer first: an executor that writes fewer bytes than it
  // announced must not leave uninitialised host memory in the guest's view.
  std::vector<uint8_t> shadow(actual, 0);
  *result = query(actual, shadow.data(), nullptr);
  if (*result == CL_SUCCESS) std::copy(shadow.begin(), shadow.end(), dst);
}


}  // namespace gsvirt::vcomp
