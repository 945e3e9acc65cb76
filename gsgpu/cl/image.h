// Images on gsgpu (image.cc, image_enqueue.cc): the device's image limits and the boxes an image
// region covers in the image's linear layout (runtime.h, ImageLayout).
#pragma once

#include "gsgpu/cl/host_command.h"

namespace gsgpu::cl {

// The device's image limits (CL_DEVICE_IMAGE*): the full profile's minimums for an OpenCL 3.0
// device with images, except the 1D image buffer, which may be as large as an allocation allows.
inline constexpr size_t kImage2DMaxSize = 16384;    // width and height
inline constexpr size_t kImage3DMaxSize = 2048;     // width, height and depth
inline constexpr size_t kImageMaxArraySize = 2048;  // layers of 1D and 2D arrays
inline constexpr cl_uint kMaxReadImageArgs = 128;
inline constexpr cl_uint kMaxWriteImageArgs = 64;
inline constexpr cl_uint kMaxReadWriteImageArgs = 64;  // OpenCL 2.0's minimum; __opencl_c_read_write_images
inline constexpr cl_uint kMaxSamplers = 16;
// 2D images from buffers: the row pitch is a multiple of this many pixels, and the buffer's first
// byte of so many pixels (a buffer object or sub-buffer start always is: 128-byte aligned).
inline constexpr cl_uint kImagePitchAlignment = 1;
inline constexpr cl_uint kImageBaseAddressAlignment = 1;
// Pixels of a 1D image buffer (CL_DEVICE_IMAGE_MAX_BUFFER_SIZE).
size_t image_max_buffer_pixels(const Runtime* rt);

// A region of an image as a box of its linear layout: `bytes[0]` bytes per row, `bytes[1]` rows,
// `bytes[2]` slices (copy_rect's region), at `rect.base` bytes into the image with the image's
// own pitches.
struct ImageBox {
  size_t bytes[3] = {0, 0, 0};
  Rect rect;
  uint64_t total_bytes() const { return uint64_t(bytes[0]) * bytes[1] * bytes[2]; }  // fits: checked
};

// Checks origin and region against the image as its type says (the spec's rules for every image
// enqueue: no zero region, 1D and 2D images with origin/region 0/1 in their unused dimensions,
// within the image's size and layers) and gives the box. CL_INVALID_VALUE otherwise.
cl_int image_box(const ImageLayout& image, const size_t* origin, const size_t* region, ImageBox* box);

// The box of `box`'s size in host memory (or a buffer) at byte `base`, with the caller's row and
// slice pitch (0 = packed; for 1D arrays the slice pitch separates the layers, which are the box's
// rows), lying within `limit` bytes (UINT64_MAX for the caller's own memory). CL_INVALID_VALUE for
// pitches the spec refuses for this image type, or a box past the limit.
cl_int host_box(const ImageLayout& image, const ImageBox& box, size_t row_pitch, size_t slice_pitch, uint64_t base,
                uint64_t limit, Rect* rect);

}  // namespace gsgpu::cl
