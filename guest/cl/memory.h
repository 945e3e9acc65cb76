// Memory objects: helpers shared by creation, transfers and mapping.
#pragma once

#include "guest/cl/icd.h"

namespace gsvirt::icd {

// Bytes per pixel of an image format; 0 for a format we do not know.
size_t image_element_size(const cl_image_format& format);

inline bool is_buffer(cl_mem mem) { return mem->type == CL_MEM_OBJECT_BUFFER; }
inline bool is_image(cl_mem mem) { return mem->type != CL_MEM_OBJECT_BUFFER; }

// Bytes of host memory an image of `desc` occupies with the app's pitches (0 = tightly packed).
size_t image_host_bytes(const cl_image_desc& desc, size_t element_size);

}  // namespace gsvirt::icd
