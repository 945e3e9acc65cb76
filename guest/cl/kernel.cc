// Kernels: created on the host; arguments batched; guest ids replace handles in arguments.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "guest/cl/api.h"
#include "guest/cl/forward.h"
#include "guest/cl/kernel_args.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

cl_kernel new_kernel(cl_program program, uint64_t id) {
  auto* kernel = new _cl_kernel;
  kernel->guest_id = id;
  kernel->program = program;
  retain_internal(program);
  registry().add(kernel);
  return kernel;
}

}  // namespace

KernelArgWire classify_kernel_arg(size_t arg_size, const void* arg_value) {
  KernelArgWire wire;
  if (!arg_value) {
    wire.kind = KernelArgKind::kLocalSize;
    return wire;
  }
  if (arg_size == sizeof(cl_mem)) {
    void* handle = nullptr;
    std::memcpy(&handle, arg_value, sizeof handle);
    if (!handle) {
      // A NULL handle: a NULL buffer for a pointer argument; as bytes it would be a zero value too.
      wire.kind = KernelArgKind::kMem;
      return wire;
    }
    if (registry().find(handle, Kind::kMem)) {
      wire.kind = KernelArgKind::kMem;
      wire.object = static_cast<cl_mem>(handle)->guest_id;
      return wire;
    }
    if (registry().find(handle, Kind::kSampler)) {
      wire.kind = KernelArgKind::kSampler;
      wire.object = static_cast<cl_sampler>(handle)->guest_id;
      return wire;
    }
  }
  wire.value = arg_value;
  wire.value_size = arg_size;
  return wire;
}

size_t scalar_type_size(std::string_view name) {
  static const std::pair<std::string_view, size_t> kBases[] = {
      {"uchar", 1}, {"char", 1}, {"bool", 1}, {"ushort", 2}, {"short", 2}, {"half", 2}, {"uint", 4},
      {"int", 4},   {"float", 4}, {"ulong", 8}, {"long", 8}, {"double", 8}};
  for (auto [base, size] : kBases) {
    if (name.substr(0, base.size()) != base) continue;
    std::string_view width = name.substr(base.size());
    if (width.empty()) return size;
    if (width == "2") return size * 2;
    if (width == "3" || width == "4") return size * 4;  // 3-component vectors occupy four
    if (width == "8") return size * 8;
    if (width == "16") return size * 16;
    return 0;
  }
  return 0;
}

cl_int check_kernel_arg(const KernelArgInfo& info, size_t arg_size, const void* arg_value) {
  if (!info.known) return CL_SUCCESS;
  // Only object arguments hold a handle; reading one from a by-value argument would read
  // arg_size bytes the app never promised for that purpose.
  auto handle_in = [&]() -> void* {
    void* h = nullptr;
    if (arg_value && arg_size == sizeof h) std::memcpy(&h, arg_value, sizeof h);
    return h;
  };
  switch (info.address) {
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      if (arg_value) return CL_INVALID_ARG_VALUE;
      if (arg_size == 0) return CL_INVALID_ARG_SIZE;
      return CL_SUCCESS;
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      if (arg_size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
      if (void* handle = handle_in(); handle && !registry().find(handle, Kind::kMem)) return CL_INVALID_MEM_OBJECT;
      return CL_SUCCESS;
    default:
      break;
  }
  if (info.type_name == "sampler_t") {
    if (arg_size != sizeof(cl_sampler)) return CL_INVALID_ARG_SIZE;
    if (void* handle = handle_in(); !handle || !registry().find(handle, Kind::kSampler)) return CL_INVALID_SAMPLER;
    return CL_SUCCESS;
  }
  if (info.type_name.rfind("image", 0) == 0) {
    if (arg_size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
    if (void* handle = handle_in(); !handle || !registry().find(handle, Kind::kMem)) return CL_INVALID_MEM_OBJECT;
    return CL_SUCCESS;
  }
  if (!arg_value) return CL_INVALID_ARG_VALUE;
  size_t expected = scalar_type_size(info.type_name);
  if (expected && arg_size != expected) return CL_INVALID_ARG_SIZE;
  return CL_SUCCESS;
}

// Address qualifier and type name of each argument, when the host can tell (PoCL always can;
// others may need -cl-kernel-arg-info). Unknown arguments are validated by the host.
void fetch_kernel_arg_info(const char* api, cl_kernel kernel) {
  kernel->arg_info.assign(kernel->num_args, {});
  for (cl_uint i = 0; i < kernel->num_args; ++i) {
    auto& info = kernel->arg_info[i];
    auto ask = [&](cl_kernel_arg_info param, size_t size, void* value, size_t* size_ret) {
      return forward_info(
          api, size, value, size_ret,
          [&](WireWriter& w, bool want, const proto::DataOut& out) {
            proto::encode_clGetKernelArgInfo(w, want, kernel->guest_id, i, param, out);
          },
          proto::decode_reply_clGetKernelArgInfo);
    };
    if (ask(CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof info.address, &info.address, nullptr) != CL_SUCCESS) return;
    char type_name[256] = {};
    if (ask(CL_KERNEL_ARG_TYPE_NAME, sizeof type_name - 1, type_name, nullptr) != CL_SUCCESS) return;
    info.type_name = type_name;
    info.known = true;
  }
}

// CL_KERNEL_NUM_ARGS, asked once, so that a bad index or unset arguments are reported by the
// call itself rather than later as a deferred error.
cl_int ensure_kernel_arg_count(const char* api, cl_kernel kernel) {
  if (kernel->num_args_known) return CL_SUCCESS;
  cl_uint num_args = 0;
  cl_int err = forward_info(
      api, sizeof num_args, &num_args, nullptr,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetKernelInfo(w, want, kernel->guest_id, CL_KERNEL_NUM_ARGS, out);
      },
      proto::decode_reply_clGetKernelInfo);
  if (err != CL_SUCCESS) return err;
  kernel->num_args = num_args;
  kernel->num_args_known = true;
  kernel->args_set.assign(num_args, false);
  kernel->accepted_shape.assign(num_args, {SIZE_MAX, UINT32_MAX});
  fetch_kernel_arg_info(api, kernel);
  return CL_SUCCESS;
}

bool kernel_args_complete(cl_kernel kernel) {
  return std::all_of(kernel->args_set.begin(), kernel->args_set.end(), [](bool set) { return set; });
}

cl_int check_local_size(const char* api, cl_kernel kernel, cl_device_id device, cl_uint work_dim,
                        const size_t* global_work_size, const size_t* local_work_size) {
  if (!local_work_size) return CL_SUCCESS;
  if (!kernel->required_local_known) {
    size_t required[3] = {};
    size_t size = 0;
    cl_int err = forward_info(
        api, sizeof required, required, &size,
        [&](WireWriter& w, bool want, const proto::DataOut& out) {
          proto::encode_clGetKernelWorkGroupInfo(w, want, kernel->guest_id, device->guest_id,
                                                 CL_KERNEL_COMPILE_WORK_GROUP_SIZE, out);
        },
        proto::decode_reply_clGetKernelWorkGroupInfo);
    if (err != CL_SUCCESS || size != sizeof required) return CL_SUCCESS;
    std::copy(required, required + 3, kernel->required_local);
    kernel->required_local_known = true;
  }
  if (kernel->required_local[0] != 0)
    for (cl_uint d = 0; d < work_dim; ++d)
      if (local_work_size[d] != kernel->required_local[d])
        return refuse(api, "local_work_size differs from the kernel's reqd_work_group_size", CL_INVALID_WORK_GROUP_SIZE);
  if (device->non_uniform_work_groups < 0) {
    cl_bool supported = CL_FALSE;
    size_t size = 0;
    cl_int err = forward_info(
        api, sizeof supported, &supported, &size,
        [&](WireWriter& w, bool want, const proto::DataOut& out) {
          proto::encode_clGetDeviceInfo(w, want, device->guest_id, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, out);
        },
        proto::decode_reply_clGetDeviceInfo);
    if (err != CL_SUCCESS || size != sizeof supported) return CL_SUCCESS;  // a 1.x device: the host judges
    device->non_uniform_work_groups = supported ? 1 : 0;
  }
  if (device->non_uniform_work_groups == 0)
    for (cl_uint d = 0; d < work_dim; ++d)
      if (local_work_size[d] != 0 && global_work_size[d] % local_work_size[d] != 0)
        return refuse(api, "local_work_size does not divide global_work_size (no non-uniform work-groups)",
                      CL_INVALID_WORK_GROUP_SIZE);
  return CL_SUCCESS;
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_kernel gsvirt_clCreateKernel(cl_program program, const char* kernel_name, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateKernel";
  trace_call(api);
  if (!live(program)) return refuse_null<cl_kernel>(api, "program", CL_INVALID_PROGRAM, errcode_ret);
  if (!kernel_name) return refuse_null<cl_kernel>(api, "kernel_name is NULL", CL_INVALID_VALUE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_kernel>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateKernel reply;
  cl_int err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clCreateKernel(w, want, id, program->guest_id, kernel_name); },
      proto::decode_reply_clCreateKernel, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  return new_kernel(program, id);
}

cl_kernel gsvirt_clCloneKernel(cl_kernel source_kernel, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCloneKernel";
  trace_call(api);
  if (!live(source_kernel)) return refuse_null<cl_kernel>(api, "source_kernel", CL_INVALID_KERNEL, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_kernel>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCloneKernel reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) { proto::encode_clCloneKernel(w, want, id, source_kernel->guest_id); },
      proto::decode_reply_clCloneKernel, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  cl_kernel clone = new_kernel(source_kernel->program, id);
  // What the guest knows of the source's arguments holds for the copy the host made of them.
  clone->num_args = source_kernel->num_args;
  clone->num_args_known = source_kernel->num_args_known;
  clone->args_set = source_kernel->args_set;
  clone->arg_info = source_kernel->arg_info;
  clone->accepted_shape = source_kernel->accepted_shape;
  clone->required_local_known = source_kernel->required_local_known;
  std::copy(source_kernel->required_local, source_kernel->required_local + 3, clone->required_local);
  return clone;
}

cl_int gsvirt_clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel* kernels,
                                       cl_uint* num_kernels_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateKernelsInProgram";
  trace_call(api);
  if (!live(program)) return refuse(api, "program", CL_INVALID_PROGRAM);
  if (kernels && num_kernels == 0) return refuse(api, "num_kernels is 0", CL_INVALID_VALUE);
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  std::vector<uint64_t> ids(kernels ? num_kernels : 0);
  for (auto& id : ids) id = connection->allocate_id();
  proto::Reply_clCreateKernelsInProgram reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateKernelsInProgram(w, want, program->guest_id, kernels ? ids.data() : nullptr, ids.size());
      },
      proto::decode_reply_clCreateKernelsInProgram, &reply);
  if (err != CL_SUCCESS) return err;
  if (kernels)
    for (cl_uint i = 0; i < reply.num_kernels_ret && i < num_kernels; ++i) kernels[i] = new_kernel(program, ids[i]);
  if (num_kernels_ret) *num_kernels_ret = reply.num_kernels_ret;
  return CL_SUCCESS;
}

cl_int gsvirt_clRetainKernel(cl_kernel kernel) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainKernel");
  if (!live(kernel)) return refuse("clRetainKernel", "kernel", CL_INVALID_KERNEL);
  retain_app(kernel);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseKernel(cl_kernel kernel) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseKernel");
  if (!live(kernel)) return refuse("clReleaseKernel", "kernel", CL_INVALID_KERNEL);
  return release_app(kernel);
}

cl_int gsvirt_clSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void* arg_value) {
  IcdLock lock(icd_mutex());
  const char* api = "clSetKernelArg";
  trace_call(api);
  if (!live(kernel)) return refuse(api, "kernel", CL_INVALID_KERNEL);
  cl_int err = ensure_kernel_arg_count(api, kernel);
  if (err != CL_SUCCESS) return err;
  if (arg_index >= kernel->num_args) return refuse(api, "arg_index", CL_INVALID_ARG_INDEX);
  err = check_kernel_arg(kernel->arg_info[arg_index], arg_size, arg_value);
  if (err != CL_SUCCESS) return refuse(api, "arg_size/arg_value do not fit the argument", err);
  KernelArgWire wire = classify_kernel_arg(arg_size, arg_value);
  if (wire.kind == KernelArgKind::kMem && wire.object) {
    // A buffer of another context is refused here rather than deferred.
    void* handle = nullptr;
    std::memcpy(&handle, arg_value, sizeof handle);
    if (static_cast<cl_mem>(handle)->context != kernel->program->context)
      return refuse(api, "mem object of another context", CL_INVALID_MEM_OBJECT);
  }
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  auto encode = [&](WireWriter& w, bool want) {
    proto::encode_clSetKernelArg(w, want, kernel->guest_id, arg_index, uint32_t(wire.kind), arg_size, wire.object,
                                 wire.value, wire.value_size);
  };
  // Without argument info only the host can judge a new (size, kind); a repeat of an accepted one
  // is batched, which keeps kernel-launch loops free of round trips.
  std::pair<size_t, uint32_t> shape{arg_size, uint32_t(wire.kind)};
  bool judged_locally = kernel->arg_info[arg_index].known;
  bool seen_before = kernel->accepted_shape[arg_index] == shape;
  err = judged_locally || seen_before ? connection->send_batched(api, encode) : connection->send_and_wait(api, encode);
  if (err != CL_SUCCESS) return err;
  kernel->args_set[arg_index] = true;
  kernel->accepted_shape[arg_index] = shape;
  return CL_SUCCESS;
}

cl_int gsvirt_clGetKernelInfo(cl_kernel kernel, cl_kernel_info param_name, size_t param_value_size,
                              void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetKernelInfo";
  trace_call(api);
  if (!live(kernel)) return refuse(api, "kernel", CL_INVALID_KERNEL);
  switch (param_name) {
    case CL_KERNEL_REFERENCE_COUNT:
      return put_value(cl_uint(kernel->app_refs()), param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_CONTEXT:
      return put_value(kernel->program->context, param_value_size, param_value, param_value_size_ret);
    case CL_KERNEL_PROGRAM:
      return put_value(kernel->program, param_value_size, param_value, param_value_size_ret);
    default:
      return forward_info(
          api, param_value_size, param_value, param_value_size_ret,
          [&](WireWriter& w, bool want, const proto::DataOut& out) {
            proto::encode_clGetKernelInfo(w, want, kernel->guest_id, param_name, out);
          },
          proto::decode_reply_clGetKernelInfo);
  }
}

cl_int gsvirt_clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param_name,
                                       size_t param_value_size, void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetKernelWorkGroupInfo";
  trace_call(api);
  if (!live(kernel)) return refuse(api, "kernel", CL_INVALID_KERNEL);
  if (device && !live(device)) return refuse(api, "device", CL_INVALID_DEVICE);
  return forward_info(
      api, param_value_size, param_value, param_value_size_ret,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetKernelWorkGroupInfo(w, want, kernel->guest_id, device ? device->guest_id : 0, param_name, out);
      },
      proto::decode_reply_clGetKernelWorkGroupInfo);
}

cl_int gsvirt_clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index, cl_kernel_arg_info param_name,
                                 size_t param_value_size, void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetKernelArgInfo";
  trace_call(api);
  if (!live(kernel)) return refuse(api, "kernel", CL_INVALID_KERNEL);
  return forward_info(
      api, param_value_size, param_value, param_value_size_ret,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetKernelArgInfo(w, want, kernel->guest_id, arg_index, param_name, out);
      },
      proto::decode_reply_clGetKernelArgInfo);
}
