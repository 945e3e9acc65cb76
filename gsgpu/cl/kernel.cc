// Kernels: created from a built program, arguments checked against the compiler's ArgInfo.
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/image_args.h"

namespace gsgpu::cl {
namespace {

using gsgpu::compiler::ArgInfo;
using gsgpu::compiler::ArgKind;

Kernel* new_kernel(Program* p, KernelImage* image) {
  auto* k = make_object<Kernel>(p->rt, Kind::kKernel);
  k->program = p;
  retain_internal(p);
  ++p->attached_kernels;
  k->built = p->built;
  k->image = image;
  k->args.resize(image->compiled.args.size());
  return k;
}

bool is_pointer(ArgKind kind) { return kind == ArgKind::kGlobalPointer || kind == ArgKind::kConstantPointer; }

cl_int set_mem_arg(Kernel* k, KernelArg& arg, size_t size, const void* value) {
  if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  cl_mem mem = nullptr;
  if (value) std::memcpy(&mem, value, sizeof mem);
  if (mem) {
    auto* m = as<Mem>(mem, Kind::kMem);
    if (!m || m->context != k->program->context) return CL_INVALID_MEM_OBJECT;
  }
  arg.mem = mem;
  return CL_SUCCESS;
}

cl_int set_local_arg(const Runtime* rt, KernelArg& arg, size_t size, const void* value) {
  if (value) return CL_INVALID_ARG_VALUE;
  if (size == 0 || size > rt->max_local_mem()) return CL_INVALID_ARG_SIZE;
  arg.local_size = uint32_t(size);
  return CL_SUCCESS;
}

cl_int set_value_arg(const ArgInfo& info, KernelArg& arg, size_t size, const void* value) {
  if (!value) return CL_INVALID_ARG_VALUE;
  // Values narrower than 4 bytes occupy a 4-byte slot (char, short, char2, ...): the compiler's
  // ArgInfo gives the slot, so any width up to it is accepted there and zero-extended.
  const bool fits = size == info.size || (info.size == 4 && size < 4 && size > 0);
  if (!fits) return CL_INVALID_ARG_SIZE;
  arg.bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
  return CL_SUCCESS;
}

cl_kernel_arg_address_qualifier address_of(ArgKind kind) {
  switch (kind) {
    case ArgKind::kGlobalPointer: return CL_KERNEL_ARG_ADDRESS_GLOBAL;
    case ArgKind::kConstantPointer: return CL_KERNEL_ARG_ADDRESS_CONSTANT;
    case ArgKind::kLocalPointer: return CL_KERNEL_ARG_ADDRESS_LOCAL;
    case ArgKind::kImage: return CL_KERNEL_ARG_ADDRESS_GLOBAL;  // images live in __global memory
    default: return CL_KERNEL_ARG_ADDRESS_PRIVATE;
  }
}

// Images declare how the kernel accesses them (read_only unless said otherwise); nothing else does.
cl_kernel_arg_access_qualifier access_of(const ArgInfo& info) {
  if (info.kind != ArgKind::kImage) return CL_KERNEL_ARG_ACCESS_NONE;
  switch (info.image_access) {
    case gsgpu::compiler::ImageAccess::kWriteOnly: return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
    case gsgpu::compiler::ImageAccess::kReadWrite: return CL_KERNEL_ARG_ACCESS_READ_WRITE;
    default: return CL_KERNEL_ARG_ACCESS_READ_ONLY;
  }
}

size_t max_group_size(const Kernel* k) {
  const auto& r = k->image->compiled.reqd_work_group_size;
  if (r[0]) return size_t(r[0]) * std::max(r[1], 1u) * std::max(r[2], 1u);
  return k->rt->max_work_group_size();
}

}  // namespace

uint64_t kernel_local_bytes(const Kernel* k) {
  uint64_t total = k->image->compiled.static_local_bytes;
  for (const auto& a : k->args) total += a.local_size;
  return total;
}

cl_kernel CL_API_CALL gsgpu_clCreateKernel(cl_program program, const char* name, cl_int* errcode_ret) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) {
    set_error(errcode_ret, CL_INVALID_PROGRAM);
    return nullptr;
  }
  if (!name) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  std::lock_guard lock(p->rt->mutex);
  if (!p->built) {
    set_error(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
    return nullptr;
  }
  for (auto& image : p->built->kernels) {
    if (image->compiled.name != name) continue;
    set_error(errcode_ret, CL_SUCCESS);
    return handle_of<cl_kernel>(new_kernel(p, image.get()));
  }
  set_error(errcode_ret, CL_INVALID_KERNEL_NAME);
  return nullptr;
}

cl_kernel CL_API_CALL gsgpu_clCloneKernel(cl_kernel source_kernel, cl_int* errcode_ret) {
  auto* source = as<Kernel>(source_kernel, Kind::kKernel);
  if (!source) {
    set_error(errcode_ret, CL_INVALID_KERNEL);
    return nullptr;
  }
  std::lock_guard lock(source->rt->mutex);
  // The same code and a copy of the arguments set so far (memory objects are not held by a
  // kernel's arguments; they are checked again when it is enqueued).
  Kernel* clone = new_kernel(source->program, source->image);
  clone->built = source->built;
  clone->args = source->args;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_kernel>(clone);
}

cl_int CL_API_CALL gsgpu_clCreateKernelsInProgram(cl_program program, cl_uint n, cl_kernel* kernels,
                                                  cl_uint* count) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  std::lock_guard lock(p->rt->mutex);
  if (!p->built) return CL_INVALID_PROGRAM_EXECUTABLE;
  const size_t total = p->built->kernels.size();
  if (kernels && n < total) return CL_INVALID_VALUE;
  if (count) *count = cl_uint(total);
  if (!kernels) return CL_SUCCESS;
  for (size_t i = 0; i < total; ++i)
    kernels[i] = handle_of<cl_kernel>(new_kernel(p, p->built->kernels[i].get()));
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clRetainKernel(cl_kernel kernel) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  retain_app(k);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseKernel(cl_kernel kernel) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  std::lock_guard lock(k->rt->mutex);
  // The application's last reference: the kernel is no longer attached to its program, even while
  // a queued command still holds it.
  if (k->app_refs() == 1) detach_kernel(k);
  return release_app(k);
}

cl_int CL_API_CALL gsgpu_clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  std::lock_guard lock(k->rt->mutex);
  if (index >= k->args.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo& info = k->image->compiled.args[index];
  KernelArg arg;
  cl_int err;
  if (is_pointer(info.kind))
    err = set_mem_arg(k, arg, size, value);
  else if (info.kind == ArgKind::kLocalPointer)
    err = set_local_arg(k->rt, arg, size, value);
  else if (info.kind == ArgKind::kSampler)
    err = set_sampler_arg(k, arg, size, value);
  else if (info.kind == ArgKind::kImage)
    err = set_image_arg(k, info, arg, size, value);
  else
    err = set_value_arg(info, arg, size, value);
  if (err != CL_SUCCESS) return err;
  arg.set = true;
  k->args[index] = std::move(arg);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void* value,
                                         size_t* ret) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return put_string(k->image->compiled.name, size, value, ret);
    case CL_KERNEL_NUM_ARGS: return put_value(cl_uint(k->args.size()), size, value, ret);
    case CL_KERNEL_REFERENCE_COUNT: return put_value(cl_uint(k->app_refs()), size, value, ret);
    case CL_KERNEL_CONTEXT: return put_value(handle_of<cl_context>(k->program->context), size, value, ret);
    case CL_KERNEL_PROGRAM: return put_value(handle_of<cl_program>(k->program), size, value, ret);
    case CL_KERNEL_ATTRIBUTES: {
      // The attributes, space-separated as written in source (vec_type_hint's type comes from the
      // source: SPIR-V keeps only its element width and count).
      const gsgpu::compiler::CompiledKernel& ck = k->image->compiled;
      std::string attrs;
      const auto add = [&attrs](const char* name, const uint32_t* v) {
        if (!v[0]) return;
        if (!attrs.empty()) attrs += ' ';
        attrs += std::string(name) + "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
                 std::to_string(v[2]) + ")";
      };
      add("reqd_work_group_size", ck.reqd_work_group_size);
      add("work_group_size_hint", ck.work_group_size_hint);
      if (!k->image->vec_type_hint.empty())
        attrs += (attrs.empty() ? "" : " ") + std::string("vec_type_hint(") + k->image->vec_type_hint + ")";
      return put_string(attrs, size, value, ret);
    }
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clGetKernelWorkGroupInfo(cl_kernel kernel, cl_device_id device,
                                                  cl_kernel_work_group_info param, size_t size, void* value,
                                                  size_t* ret) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  if (device && as<Device>(device, Kind::kDevice) != k->rt->device_object) return CL_INVALID_DEVICE;
  std::lock_guard lock(k->rt->mutex);
  const auto& ck = k->image->compiled;
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE: return put_value(max_group_size(k), size, value, ret);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      const size_t r[3] = {ck.reqd_work_group_size[0], ck.reqd_work_group_size[1], ck.reqd_work_group_size[2]};
      return put_info(r, sizeof r, size, value, ret);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE: return put_value(cl_ulong(kernel_local_bytes(k)), size, value, ret);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return put_value(size_t(k->rt->caps().warp_width), size, value, ret);
    case CL_KERNEL_PRIVATE_MEM_SIZE: return put_value(cl_ulong(ck.private_bytes), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param, size_t size,
                                            void* value, size_t* ret) {
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  if (index >= k->args.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo& info = k->image->compiled.args[index];
  // The address qualifier comes from the compiled kernel itself, so it is always known (vcomp
  // relies on it to tell memory-object arguments from values, issue 12 point 2).
  if (param == CL_KERNEL_ARG_ADDRESS_QUALIFIER) return put_value(address_of(info.kind), size, value, ret);
  // The spec: the rest is available for programs built with -cl-kernel-arg-info.
  if (!k->image->arg_types) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
  const KernelArgType& type = (*k->image->arg_types)[index];
  const bool pointer = is_pointer(info.kind) || info.kind == ArgKind::kLocalPointer;
  switch (param) {
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return put_value(access_of(info), size, value, ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
      // const, restrict and volatile describe what a pointer points at; values have none.
      return put_value(pointer ? type.qualifier : cl_kernel_arg_type_qualifier(CL_KERNEL_ARG_TYPE_NONE), size, value,
                       ret);
    case CL_KERNEL_ARG_NAME:
      if (info.name.empty()) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
      return put_string(info.name, size, value, ret);
    case CL_KERNEL_ARG_TYPE_NAME: return put_string(type.name, size, value, ret);
  }
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
