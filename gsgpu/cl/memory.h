// Memory-object rules that buffers (memory.cc) and images (image.cc) share: the cl_mem_flags checks
// of the spec and the flags of an object made over another one.
#pragma once

#include "gsgpu/cl/runtime.h"

namespace gsgpu::cl {

inline constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
inline constexpr cl_mem_flags kHostPtrFlags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
inline constexpr cl_mem_flags kHostAccessFlags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;

// The flags of a new buffer or image with its host_ptr: CL_INVALID_VALUE for unknown or
// contradictory flags, CL_INVALID_HOST_PTR when host_ptr and CL_MEM_{USE,COPY}_HOST_PTR disagree.
cl_int check_mem_flags(cl_mem_flags flags, const void* host_ptr);

// The flags of an object made over `parent` (a sub-buffer, an image from a buffer or image):
// access and host access inherited when absent and never wider than the parent's, host-pointer
// flags refused and inherited. CL_INVALID_VALUE otherwise.
cl_int derived_mem_flags(const Mem* parent, cl_mem_flags flags, cl_mem_flags* out);

// A new memory object of `size` bytes in a zero-filled buffer object of its own, holding its
// context; host_ptr's bytes copied in when given (whole `size`). CL_MEM_OBJECT_ALLOCATION_FAILURE
// (logged for `entry`) when the device has no room.
Mem* new_root_mem(Context* c, const char* entry, cl_mem_flags flags, size_t size, const void* host_ptr,
                  cl_int* err);

}  // namespace gsgpu::cl
