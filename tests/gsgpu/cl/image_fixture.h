// The gsgpu runtime with image support, driven through its dispatch table, and small helpers to
// make images of every type.
#pragma once

#include <cstring>
#include <random>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {

class ImageFixture : public GsgpuExecutorTest {
 public:
  // An image's shape: {width, height, depth, array_size} as cl_image_desc takes them.
  struct Shape {
    cl_mem_object_type type;
    size_t width, height = 0, depth = 0, array_size = 0;
  };

 protected:
  static void SetUpTestSuite() {
    gsgpu::cl::RuntimeConfig config = test_config();
    config.image_support = true;
    start_executor(config);
  }

  static cl_image_desc desc_of(const Shape& s, size_t row_pitch = 0, size_t slice_pitch = 0,
                               cl_mem mem_object = nullptr) {
    cl_image_desc d{};
    d.image_type = s.type;
    d.image_width = s.width;
    d.image_height = s.height;
    d.image_depth = s.depth;
    d.image_array_size = s.array_size;
    d.image_row_pitch = row_pitch;
    d.image_slice_pitch = slice_pitch;
    d.mem_object = mem_object;
    return d;
  }
  // Pixels of a whole image of this shape (1 for dimensions the type has not).
  static size_t pixels(const Shape& s) {
    switch (s.type) {
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return s.width * s.array_size;
      case CL_MEM_OBJECT_IMAGE2D: return s.width * s.height;
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return s.width * s.height * s.array_size;
      case CL_MEM_OBJECT_IMAGE3D: return s.width * s.height * s.depth;
      default: return s.width;
    }
  }
  // The region of the whole image (origin 0).
  static std::array<size_t, 3> whole(const Shape& s) {
    switch (s.type) {
      case CL_MEM_OBJECT_IMAGE1D_ARRAY: return {s.width, s.array_size, 1};
      case CL_MEM_OBJECT_IMAGE2D: return {s.width, s.height, 1};
      case CL_MEM_OBJECT_IMAGE2D_ARRAY: return {s.width, s.height, s.array_size};
      case CL_MEM_OBJECT_IMAGE3D: return {s.width, s.height, s.depth};
      default: return {s.width, 1, 1};
    }
  }

  // clCreateImage; the error in *err (when given), else expected to succeed. Kept for release.
  cl_mem image(const cl_image_format& format, const cl_image_desc& desc, cl_mem_flags flags = CL_MEM_READ_WRITE,
               void* host = nullptr, cl_int* err = nullptr) {
    cl_int e = CL_SUCCESS;
    cl_mem m = api().clCreateImage(context_, flags, &format, &desc, host, &e);
    if (err)
      *err = e;
    else
      EXPECT_EQ(e, CL_SUCCESS);
    if (m) mems_.push_back(m);
    return m;
  }
  cl_mem image(const cl_image_format& format, const Shape& shape, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    return image(format, desc_of(shape), flags);
  }
  // The error clCreateImage answers (an image made anyway is released).
  cl_int create_error(const cl_image_format* format, const cl_image_desc* desc, cl_mem_flags flags = CL_MEM_READ_WRITE,
                      void* host = nullptr) {
    cl_int e = CL_SUCCESS;
    cl_mem m = api().clCreateImage(context_, flags, format, desc, host, &e);
    if (m) api().clReleaseMemObject(m);
    return e;
  }

  template <typename T>
  T image_info(cl_mem m, cl_image_info param) {
    T v{};
    EXPECT_EQ(api().clGetImageInfo(m, param, sizeof v, &v, nullptr), CL_SUCCESS) << param;
    return v;
  }
  template <typename T>
  T device_info(cl_device_info param) {
    T v{};
    EXPECT_EQ(api().clGetDeviceInfo(device_, param, sizeof v, &v, nullptr), CL_SUCCESS) << param;
    return v;
  }
  template <typename T>
  T sampler_info(cl_sampler s, cl_sampler_info param) {
    T v{};
    EXPECT_EQ(api().clGetSamplerInfo(s, param, sizeof v, &v, nullptr), CL_SUCCESS) << param;
    return v;
  }
  template <typename T>
  T mem_info(cl_mem m, cl_mem_info param) {
    T v{};
    EXPECT_EQ(api().clGetMemObjectInfo(m, param, sizeof v, &v, nullptr), CL_SUCCESS) << param;
    return v;
  }

  // Reads a region into packed bytes.
  std::vector<uint8_t> read_image(cl_mem m, const std::array<size_t, 3>& origin, const std::array<size_t, 3>& region,
                                  size_t pixel_bytes) {
    std::vector<uint8_t> out(region[0] * region[1] * region[2] * pixel_bytes);
    EXPECT_EQ(api().clEnqueueReadImage(queue_, m, CL_TRUE, origin.data(), region.data(), 0, 0, out.data(), 0, nullptr,
                                       nullptr),
              CL_SUCCESS);
    return out;
  }
  void write_image(cl_mem m, const std::array<size_t, 3>& origin, const std::array<size_t, 3>& region,
                   const std::vector<uint8_t>& bytes) {
    EXPECT_EQ(api().clEnqueueWriteImage(queue_, m, CL_TRUE, origin.data(), region.data(), 0, 0, bytes.data(), 0,
                                        nullptr, nullptr),
              CL_SUCCESS);
  }

  static std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 gen(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(gen());
    return v;
  }
};

}  // namespace gsvirt::vcomp::testing
