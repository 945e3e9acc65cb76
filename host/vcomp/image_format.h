// Image sizes computed from OpenCL formats, for checking guest-supplied image data.
#pragma once

#include <cstdint>
#include <optional>

#include "host/vcomp/executor.h"

namespace gsvirt::vcomp {

// Bytes per pixel of a format; nullopt for an order/type pair OpenCL does not define.
std::optional<uint64_t> image_element_size(const cl_image_format& format);

// Bytes of a tightly packed image (row pitch = width * element, slice pitch = row * height), with
// overflow checks; nullopt for an unknown format, image type or an overflowing size.
std::optional<uint64_t> packed_image_size(const cl_image_format& format, const cl_image_desc& desc);

// Packed bytes of a region (x, y, z) of an image of this format.
std::optional<uint64_t> packed_region_size(const cl_image_format& format, const uint64_t region[3]);

}  // namespace gsvirt::vcomp
