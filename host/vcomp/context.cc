// OpenCL context commands.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// Rewrites a guest property list for the executor: CL_CONTEXT_PLATFORM always names the
// executor's platform (the guest cannot know host handles). False on a malformed list.
bool host_properties(const proto::WireArray<uint64_t>& in, cl_platform_id platform,
                     std::vector<cl_context_properties>* out) {
  out->clear();
  if (in.null()) return true;
  uint64_t i = 0;
  for (; i + 1 < in.count; i += 2) {
    uint64_t key = in[i];
    if (key == 0) break;
    uint64_t value = in[i + 1];
    if (key == CL_CONTEXT_PLATFORM) value = reinterpret_cast<uint64_t>(platform);
    out->push_back(cl_context_properties(key));
    out->push_back(cl_context_properties(value));
  }
  if (i >= in.count || in[i] != 0) return false;  // must end with a 0 terminator
  out->push_back(0);
  return true;
}

}  // namespace

void VcompContext::dispatch_clCreateContext(const proto::Args_clCreateContext& args,
                                            proto::Out_clCreateContext& out) {
  if (!check_new_id(args.context, "context", &out.result)) return;
  std::vector<cl_context_properties> props;
  if (!host_properties(args.properties, executor_->platform(), &props)) {
    log_field_error("properties", "not a 0-terminated key/value list");
    out.result = CL_INVALID_PROPERTY;
    return;
  }
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (devices.empty()) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_context c = api().clCreateContext(props.empty() ? nullptr : props.data(), cl_uint(devices.size()),
                                       devices.data(), nullptr, nullptr, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.context, std::make_unique<ContextObject>(executor_, c), "context");
}

void VcompContext::dispatch_clCreateContextFromType(const proto::Args_clCreateContextFromType& args,
                                                    proto::Out_clCreateContextFromType& out) {
  if (!check_new_id(args.context, "context", &out.result)) return;
  std::vector<cl_context_properties> props;
  if (!host_properties(args.properties, executor_->platform(), &props)) {
    log_field_error("properties", "not a 0-terminated key/value list");
    out.result = CL_INVALID_PROPERTY;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_context c = api().clCreateContextFromType(props.empty() ? nullptr : props.data(),
                                               args.device_type, nullptr, nullptr, &err);
  out.result = err;
  if (err != CL_SUCCESS) return;
  auto owner = std::make_unique<ContextObject>(executor_, c);
  size_t size = 0;
  api().clGetContextInfo(c, CL_CONTEXT_DEVICES, 0, nullptr, &size);
  std::vector<cl_device_id> devices(size / sizeof(cl_device_id));
  api().clGetContextInfo(c, CL_CONTEXT_DEVICES, size, devices.data(), nullptr);
  for (cl_device_id d : devices) {
    auto it = device_ids_.find(d);
    // A device the guest never enumerated has no guest id; 0 tells the guest to enumerate.
    out.devices.push_back(it == device_ids_.end() ? 0 : it->second);
  }
  bind(args.context, std::move(owner), "context");
}

}  // namespace gsvirt::vcomp
