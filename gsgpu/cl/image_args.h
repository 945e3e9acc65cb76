// Image and sampler kernel arguments (image_args.cc): clSetKernelArg's checks for them and the
// records the texture unit reads (docs/compiler.md, "Images and samplers").
#pragma once

#include "gsgpu/cl/runtime.h"

namespace gsgpu::cl {

inline constexpr size_t kImageDescriptorBytes = 64;  // IMAGE_DESC: 16 dwords, 64-byte aligned

// clSetKernelArg on an image argument: an image of the kernel's context of the declared type
// (CL_INVALID_MEM_OBJECT otherwise) whose flags allow the declared access (CL_INVALID_ARG_VALUE
// otherwise: a read_only argument given a CL_MEM_WRITE_ONLY image, and so on).
cl_int set_image_arg(const Kernel* k, const gsgpu::compiler::ArgInfo& info, KernelArg& arg, size_t size,
                     const void* value);
// clSetKernelArg on a sampler argument: a sampler of the kernel's context (CL_INVALID_SAMPLER
// otherwise); the argument's bytes become its SAMPLER_STATE word, zero-extended to 64 bits.
cl_int set_sampler_arg(const Kernel* k, KernelArg& arg, size_t size, const void* value);

// The SAMPLER_STATE word of an OpenCL sampler's properties.
uint32_t sampler_state(cl_bool normalized_coords, cl_addressing_mode addressing, cl_filter_mode filter);

// The IMAGE_DESC record of an image of this layout whose texels start at `va`.
void write_image_descriptor(const ImageLayout& layout, uint64_t va, uint8_t out[kImageDescriptorBytes]);

}  // namespace gsgpu::cl
