// How clSetKernelArg's (arg_size, arg_value) travels: the kinds of the clSetKernelArg command.
#pragma once

#include <cstdint>
#include <string_view>

#include "guest/cl/icd.h"

namespace gsvirt::icd {

enum class KernelArgKind : uint32_t {
  kValueBytes = 0,  // plain bytes (scalars, vectors, structs)
  kMem = 1,         // a cl_mem of ours, sent as its guest id (0 = NULL buffer)
  kSampler = 2,     // a cl_sampler of ours, sent as its guest id
  kLocalSize = 3,   // arg_value == NULL: __local size (or a NULL buffer, as the host sees it)
};

struct KernelArgWire {
  KernelArgKind kind = KernelArgKind::kValueBytes;
  uint64_t object = 0;  // guest id for kMem / kSampler
  const void* value = nullptr;  // bytes for kValueBytes
  uint64_t value_size = 0;
};

// Classifies an argument. A value the size of a handle that points at a live mem object or
// sampler of ours is sent as that object's id; a pointer value is never sent as bytes when it
// names one of our objects, because the host cannot interpret guest pointers.
KernelArgWire classify_kernel_arg(size_t arg_size, const void* arg_value);

}  // namespace gsvirt::icd

namespace gsvirt::icd {
// CL_KERNEL_NUM_ARGS, asked from the host once per kernel.
cl_int ensure_kernel_arg_count(const char* api, cl_kernel kernel);
// The error clSetKernelArg must report for (arg_size, arg_value) given what is known about the
// argument, or CL_SUCCESS (also when nothing is known: the host will judge, deferred).
cl_int check_kernel_arg(const KernelArgInfo& info, size_t arg_size, const void* arg_value);
// Bytes of an OpenCL C scalar or vector type name ("float4", "uchar"), 0 when not one of those.
size_t scalar_type_size(std::string_view type_name);
// Every argument has been set (clEnqueueNDRangeKernel's CL_INVALID_KERNEL_ARGS).
bool kernel_args_complete(cl_kernel kernel);
// clEnqueueNDRangeKernel's CL_INVALID_WORK_GROUP_SIZE cases the guest can tell (the kernel's
// required work-group size; a local size that does not divide the global size on a device without
// non-uniform work-groups), or CL_SUCCESS. What it cannot learn from the host, the host judges.
cl_int check_local_size(const char* api, cl_kernel kernel, cl_device_id device, cl_uint work_dim,
                        const size_t* global_work_size, const size_t* local_work_size);
}  // namespace gsvirt::icd
