// Kernel commands: create, arguments, info.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// A kernel wrapper that knows its arguments' classes (kernel_args.cc).
std::unique_ptr<KernelObject> kernel_object(const Executor* executor, cl_kernel kernel, const ProgramObject& program) {
  auto object = std::make_unique<KernelObject>(executor, kernel);
  object->args = describe_kernel_args(executor->api(), kernel);
  object->arg_info_hidden = program.guest_options.has_value();
  return object;
}

bool is_arg_info_param(cl_kernel_arg_info param) {
  return param == CL_KERNEL_ARG_ADDRESS_QUALIFIER || param == CL_KERNEL_ARG_ACCESS_QUALIFIER ||
         param == CL_KERNEL_ARG_TYPE_NAME || param == CL_KERNEL_ARG_TYPE_QUALIFIER || param == CL_KERNEL_ARG_NAME;
}

}  // namespace

void VcompContext::dispatch_clCreateKernel(const proto::Args_clCreateKernel& args,
                                           proto::Out_clCreateKernel& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  if (!check_new_id(args.kernel, "kernel", &out.result)) return;
  std::string name(args.kernel_name.data(), args.kernel_name.size());
  cl_int err = CL_SUCCESS;
  cl_kernel k = api().clCreateKernel(p->handle, name.c_str(), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.kernel, kernel_object(executor_, k, *p), "kernel");
}

void VcompContext::dispatch_clCreateKernelsInProgram(const proto::Args_clCreateKernelsInProgram& args,
                                                     proto::Out_clCreateKernelsInProgram& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  cl_uint count = 0;
  out.result = api().clCreateKernelsInProgram(p->handle, 0, nullptr, &count);
  if (out.result != CL_SUCCESS) return;
  out.num_kernels_ret = count;
  if (args.kernels.count == 0) return;
  if (args.kernels.count < count) {
    out.result = CL_INVALID_VALUE;  // the spec: num_kernels less than the number of kernels
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (!check_new_id(args.kernels[i], "kernels", &out.result)) return;
  }
  std::vector<cl_kernel> kernels(count);
  out.result = api().clCreateKernelsInProgram(p->handle, count, kernels.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  for (uint64_t i = 0; i < count; ++i)
    bind(args.kernels[i], kernel_object(executor_, kernels[i], *p), "kernels");
}

void VcompContext::dispatch_clCloneKernel(const proto::Args_clCloneKernel& args, proto::Out_clCloneKernel& out) {
  auto* source = require<KernelObject>(args.source_kernel, "source_kernel", CL_INVALID_KERNEL, &out.result);
  if (!source) return;
  if (!check_new_id(args.kernel, "kernel", &out.result)) return;
  cl_int err = CL_SUCCESS;
  cl_kernel clone = api().clCloneKernel(source->handle, &err);
  out.result = err;
  if (err != CL_SUCCESS) return;
  if (!clone) {
    out.result = CL_OUT_OF_RESOURCES;  // an executor that says CL_SUCCESS without a kernel
    return;
  }
  // The same arguments as its source, so the same argument classes and arg-info visibility.
  auto object = std::make_unique<KernelObject>(executor_, clone);
  object->args = source->args;
  object->arg_info_hidden = source->arg_info_hidden;
  bind(args.kernel, std::move(object), "kernel");
}

void VcompContext::dispatch_clSetKernelArg(const proto::Args_clSetKernelArg& args,
                                           proto::Out_clSetKernelArg& out) {
  auto* k = require<KernelObject>(args.kernel, "kernel", CL_INVALID_KERNEL, &out.result);
  if (!k) return;
  out.result = set_kernel_arg(*k, args);  // kernel_args.cc
}

void VcompContext::dispatch_clGetKernelInfo(const proto::Args_clGetKernelInfo& args,
                                            proto::Out_clGetKernelInfo& out) {
  auto* k = require<KernelObject>(args.kernel, "kernel", CL_INVALID_KERNEL, &out.result);
  if (!k) return;
  forward_info(
      InfoKind::kKernel, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetKernelInfo(k->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clGetKernelWorkGroupInfo(const proto::Args_clGetKernelWorkGroupInfo& args,
                                                     proto::Out_clGetKernelWorkGroupInfo& out) {
  auto* k = require<KernelObject>(args.kernel, "kernel", CL_INVALID_KERNEL, &out.result);
  if (!k) return;
  cl_device_id device = nullptr;
  if (args.device) {
    auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
    if (!d) return;
    device = d->handle;
  }
  forward_info(
      InfoKind::kKernelWorkGroup, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetKernelWorkGroupInfo(k->handle, device, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clGetKernelArgInfo(const proto::Args_clGetKernelArgInfo& args,
                                               proto::Out_clGetKernelArgInfo& out) {
  auto* k = require<KernelObject>(args.kernel, "kernel", CL_INVALID_KERNEL, &out.result);
  if (!k) return;
  // Without -cl-kernel-arg-info from the guest the metadata exists only because the host asked
  // for it; a bad index or parameter still gets the executor's own error.
  if (k->arg_info_hidden && args.arg_index < k->args.size() && is_arg_info_param(args.param_name)) {
    out.result = CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    return;
  }
  forward_info(
      InfoKind::kKernelArg, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetKernelArgInfo(k->handle, args.arg_index, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
