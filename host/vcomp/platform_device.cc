// Platform and device commands.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clGetPlatformInfo(const proto::Args_clGetPlatformInfo& args,
                                              proto::Out_clGetPlatformInfo& out) {
  cl_platform_id p = executor_->platform();
  forward_info(
      InfoKind::kPlatform, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetPlatformInfo(p, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clGetDeviceIDs(const proto::Args_clGetDeviceIDs& args,
                                           proto::Out_clGetDeviceIDs& out) {
  cl_uint count = 0;
  out.result = api().clGetDeviceIDs(executor_->platform(), args.device_type, 0, nullptr, &count);
  if (out.result != CL_SUCCESS) return;
  out.num_devices = count;
  if (args.devices.count == 0) return;
  std::vector<cl_device_id> handles(count);
  out.result = api().clGetDeviceIDs(executor_->platform(), args.device_type, count,
                                    handles.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  uint64_t n = std::min<uint64_t>(count, args.devices.count);
  for (uint64_t i = 0; i < n; ++i) {
    if (!bind(args.devices[i], std::make_unique<DeviceObject>(handles[i]), "devices")) {
      out.result = CL_INVALID_VALUE;
      return;
    }
    device_ids_.emplace(handles[i], args.devices[i]);
  }
}

void VcompContext::dispatch_clGetDeviceInfo(const proto::Args_clGetDeviceInfo& args,
                                            proto::Out_clGetDeviceInfo& out) {
  auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
  if (!d) return;
  forward_info(
      InfoKind::kDevice, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetDeviceInfo(d->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
