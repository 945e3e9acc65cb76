// Image objects (gsgpu/cl/image.cc): the device's limits and formats, every image type created and
// queried, each creation rule of the spec with its error, zero-filled storage, host data at the
// application's pitches, and images over buffers and images.
#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageTest = ImageFixture;

constexpr cl_image_format kRgba8{CL_RGBA, CL_UNORM_INT8};
constexpr cl_image_format kRgbaF{CL_RGBA, CL_FLOAT};

TEST_F(ImageTest, DeviceReportsImageSupportAndItsLimits) {
  EXPECT_EQ(device_info<cl_bool>(CL_DEVICE_IMAGE_SUPPORT), CL_TRUE);
  EXPECT_EQ(device_info<size_t>(CL_DEVICE_IMAGE2D_MAX_WIDTH), 16384u);
  EXPECT_EQ(device_info<size_t>(CL_DEVICE_IMAGE2D_MAX_HEIGHT), 16384u);
  EXPECT_EQ(device_info<size_t>(CL_DEVICE_IMAGE3D_MAX_WIDTH), 2048u);
  EXPECT_EQ(device_info<size_t>(CL_DEVICE_IMAGE3D_MAX_DEPTH), 2048u);
  EXPECT_EQ(device_info<size_t>(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE), 2048u);
  EXPECT_GE(device_info<size_t>(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE), 65536u);
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_MAX_READ_IMAGE_ARGS), 128u);
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_MAX_WRITE_IMAGE_ARGS), 64u);
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS), 64u);  // __opencl_c_read_write_images
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_MAX_SAMPLERS), 16u);
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_IMAGE_PITCH_ALIGNMENT), 1u);
  EXPECT_EQ(device_info<cl_uint>(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT), 1u);
  // 2D images from buffers are made, so the extension says so.
  size_t n = 0;
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &n), CL_SUCCESS);
  std::string extensions(n, '\0');
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, n, extensions.data(), nullptr), CL_SUCCESS);
  EXPECT_NE(extensions.find("cl_khr_image2d_from_buffer"), std::string::npos) << extensions;
  // 128 image arguments fit in the parameter space.
  EXPECT_GE(device_info<size_t>(CL_DEVICE_MAX_PARAMETER_SIZE), 128 * sizeof(cl_mem));
}

TEST_F(ImageTest, SupportedFormatsHoldTheMinimumListForEveryType) {
  const std::vector<cl_image_format> minimum = {
      {CL_RGBA, CL_UNORM_INT8},     {CL_RGBA, CL_UNORM_INT16},   {CL_RGBA, CL_SIGNED_INT8},
      {CL_RGBA, CL_SIGNED_INT16},   {CL_RGBA, CL_SIGNED_INT32},  {CL_RGBA, CL_UNSIGNED_INT8},
      {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32}, {CL_RGBA, CL_HALF_FLOAT},
      {CL_RGBA, CL_FLOAT},          {CL_BGRA, CL_UNORM_INT8}};
  size_t n = 0;
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, 0, nullptr, &n), CL_SUCCESS);
  std::string extensions(n, '\0');
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_EXTENSIONS, n, extensions.data(), nullptr), CL_SUCCESS);
  const bool has_3d_writes = extensions.find("cl_khr_3d_image_writes") != std::string::npos;
  for (cl_mem_object_type type : {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE1D_ARRAY,
                                  CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D}) {
    for (cl_mem_flags flags : {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE}) {
      cl_uint count = 0;
      ASSERT_EQ(api().clGetSupportedImageFormats(context_, flags, type, 0, nullptr, &count), CL_SUCCESS);
      std::vector<cl_image_format> formats(count);
      ASSERT_EQ(api().clGetSupportedImageFormats(context_, flags, type, count, formats.data(), nullptr), CL_SUCCESS);
      // 3D images a kernel may write: the minimum list with cl_khr_3d_image_writes, else none.
      if (type == CL_MEM_OBJECT_IMAGE3D && flags != CL_MEM_READ_ONLY && !has_3d_writes) {
        EXPECT_EQ(count, 0u) << "flags " << flags;
        continue;
      }
      for (const auto& want : minimum) {
        bool found = false;
        for (const auto& f : formats)
          found |= f.image_channel_order == want.image_channel_order &&
                   f.image_channel_data_type == want.image_channel_data_type;
        EXPECT_TRUE(found) << "type " << type << " order " << want.image_channel_order << " type "
                           << want.image_channel_data_type;
      }
    }
  }
  // A shorter list gets the first entries; the count is still the whole list's.
  cl_image_format two[2] = {};
  cl_uint count = 0;
  ASSERT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 2, two, &count),
            CL_SUCCESS);
  EXPECT_GT(count, 2u);
  EXPECT_NE(two[1].image_channel_order, 0u);
  // Images a kernel both reads and writes take every format (read_write arguments).
  cl_uint read_only_count = 0;
  ASSERT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, nullptr,
                                             &read_only_count),
            CL_SUCCESS);
  ASSERT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE,
                                             CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count),
            CL_SUCCESS);
  EXPECT_EQ(count, read_only_count);
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 0, nullptr, &count),
            CL_INVALID_VALUE);
  EXPECT_EQ(api().clGetSupportedImageFormats(context_, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, two, &count),
            CL_INVALID_VALUE);
}

TEST_F(ImageTest, EveryTypeReportsItsShapeAndLayout) {
  struct Case {
    Shape shape;
    size_t height, depth, array_size, slice_pitch, size;
  };
  const size_t px = 4, row = 7 * px;
  const Case cases[] = {
      {{CL_MEM_OBJECT_IMAGE1D, 7}, 0, 0, 0, 0, row},
      {{CL_MEM_OBJECT_IMAGE1D_ARRAY, 7, 0, 0, 3}, 0, 0, 3, row, row * 3},
      {{CL_MEM_OBJECT_IMAGE2D, 7, 5}, 5, 0, 0, 0, row * 5},
      {{CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 0, 3}, 5, 0, 3, row * 5, row * 15},
      {{CL_MEM_OBJECT_IMAGE3D, 7, 5, 2}, 5, 2, 0, row * 5, row * 10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.shape.type);
    cl_mem m = image(kRgba8, c.shape);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(mem_info<cl_mem_object_type>(m, CL_MEM_TYPE), c.shape.type);
    EXPECT_EQ(mem_info<size_t>(m, CL_MEM_SIZE), c.size);
    EXPECT_EQ(mem_info<cl_mem_flags>(m, CL_MEM_FLAGS), cl_mem_flags(CL_MEM_READ_WRITE));
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_ELEMENT_SIZE), px);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_WIDTH), 7u);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_HEIGHT), c.height);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_DEPTH), c.depth);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_ARRAY_SIZE), c.array_size);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_ROW_PITCH), row);
    EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_SLICE_PITCH), c.slice_pitch);
    EXPECT_EQ(image_info<cl_uint>(m, CL_IMAGE_NUM_MIP_LEVELS), 0u);
    EXPECT_EQ(image_info<cl_uint>(m, CL_IMAGE_NUM_SAMPLES), 0u);
    EXPECT_EQ(image_info<cl_mem>(m, CL_IMAGE_BUFFER), nullptr);
    const auto f = image_info<cl_image_format>(m, CL_IMAGE_FORMAT);
    EXPECT_EQ(f.image_channel_order, cl_channel_order(CL_RGBA));
    EXPECT_EQ(f.image_channel_data_type, cl_channel_type(CL_UNORM_INT8));
  }
  cl_mem buf = buffer(64);
  EXPECT_EQ(api().clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(size_t), nullptr, nullptr), CL_INVALID_MEM_OBJECT);
  cl_mem m = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D, 2, 2});
  EXPECT_EQ(api().clGetImageInfo(m, CL_MEM_SIZE, sizeof(size_t), nullptr, nullptr), CL_INVALID_VALUE);
}

TEST_F(ImageTest, FormatsAreCheckedBeforeAnythingIsMade) {
  const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4});
  EXPECT_EQ(create_error(nullptr, &d), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  const cl_image_format unknown_order{0x1234, CL_UNORM_INT8}, unknown_type{CL_RGBA, 0x1234},
      packed_rgba{CL_RGBA, CL_UNORM_SHORT_565}, srgb_float{CL_sRGBA, CL_FLOAT};
  for (const auto& f : {unknown_order, unknown_type, packed_rgba, srgb_float})
    EXPECT_EQ(create_error(&f, &d), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) << f.image_channel_order;
  // Defined by OpenCL, not offered by the device.
  const cl_image_format alpha{CL_A, CL_UNORM_INT8}, rgb565{CL_RGB, CL_UNORM_SHORT_565};
  EXPECT_EQ(create_error(&alpha, &d), CL_IMAGE_FORMAT_NOT_SUPPORTED);
  EXPECT_EQ(create_error(&rgb565, &d), CL_IMAGE_FORMAT_NOT_SUPPORTED);
}

TEST_F(ImageTest, DescriptorsAreCheckedForTheirType) {
  EXPECT_EQ(create_error(&kRgba8, nullptr), CL_INVALID_IMAGE_DESCRIPTOR);
  auto error_for = [&](Shape s) {
    const cl_image_desc d = desc_of(s);
    return create_error(&kRgba8, &d);
  };
  EXPECT_EQ(error_for({CL_MEM_OBJECT_BUFFER, 4, 4}), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE1D, 0}), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE2D, 4, 0}), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE3D, 4, 4, 0}), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 0}), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 0}), CL_INVALID_IMAGE_DESCRIPTOR);
  // Dimensions the type does not have are not looked at.
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE1D, 4, 0, 0, 0}), CL_SUCCESS);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE2D, 4, 4, 9, 9}), CL_SUCCESS);
  // Past the device's limits.
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE1D, 16385}), CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE2D, 4, 16385}), CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE3D, 4, 4, 2049}), CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 2049}), CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(error_for({CL_MEM_OBJECT_IMAGE1D, SIZE_MAX}), CL_INVALID_IMAGE_SIZE);
  // Within every limit, but more bytes than one allocation may hold (64 MiB of VRAM here).
  const cl_image_desc big = desc_of({CL_MEM_OBJECT_IMAGE2D, 16384, 16384});
  EXPECT_EQ(create_error(&kRgbaF, &big), CL_INVALID_IMAGE_SIZE);
  // Mip-maps and samples are extensions the device does not have.
  cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4});
  d.num_mip_levels = 2;
  EXPECT_EQ(create_error(&kRgba8, &d), CL_INVALID_IMAGE_DESCRIPTOR);
  d.num_mip_levels = 0;
  d.num_samples = 4;
  EXPECT_EQ(create_error(&kRgba8, &d), CL_INVALID_IMAGE_DESCRIPTOR);
  // A memory object is for 1D image buffers (required) and 2D images only.
  cl_mem buf = buffer(4096);
  cl_image_desc d3 = desc_of({CL_MEM_OBJECT_IMAGE3D, 4, 4, 4}, 0, 0, buf);
  EXPECT_EQ(create_error(&kRgba8, &d3), CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc d1b = desc_of({CL_MEM_OBJECT_IMAGE1D_BUFFER, 4});
  EXPECT_EQ(create_error(&kRgba8, &d1b), CL_INVALID_IMAGE_DESCRIPTOR);
}

TEST_F(ImageTest, FlagsAndHostPointersFollowTheBufferRules) {
  const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4});
  std::vector<uint8_t> host(64);
  EXPECT_EQ(create_error(&kRgba8, &d, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY), CL_INVALID_VALUE);
  EXPECT_EQ(create_error(&kRgba8, &d, CL_MEM_READ_WRITE | (cl_mem_flags(1) << 40)), CL_INVALID_VALUE);
  EXPECT_EQ(create_error(&kRgba8, &d, CL_MEM_COPY_HOST_PTR), CL_INVALID_HOST_PTR);
  EXPECT_EQ(create_error(&kRgba8, &d, CL_MEM_READ_WRITE, host.data()), CL_INVALID_HOST_PTR);
  EXPECT_EQ(create_error(&kRgba8, &d, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, host.data()), CL_INVALID_VALUE);
  // Pitches describe host data: without it they are an error.
  const cl_image_desc pitched = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4}, 32);
  EXPECT_EQ(create_error(&kRgba8, &pitched), CL_INVALID_IMAGE_DESCRIPTOR);
  cl_mem m = image(kRgba8, d, CL_MEM_USE_HOST_PTR, host.data());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(mem_info<void*>(m, CL_MEM_HOST_PTR), host.data());
  EXPECT_EQ(mem_info<cl_mem_flags>(m, CL_MEM_FLAGS), cl_mem_flags(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR));
}

TEST_F(ImageTest, HostPitchesAreCheckedWithoutOverflow) {
  std::vector<uint8_t> host(4096);
  auto error_for = [&](Shape s, size_t row, size_t slice) {
    const cl_image_desc d = desc_of(s, row, slice);
    return create_error(&kRgba8, &d, CL_MEM_COPY_HOST_PTR, host.data());
  };
  const Shape s2{CL_MEM_OBJECT_IMAGE2D, 4, 4}, s3{CL_MEM_OBJECT_IMAGE3D, 4, 4, 2},
      a1{CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 3};
  EXPECT_EQ(error_for(s2, 12, 0), CL_INVALID_IMAGE_DESCRIPTOR);  // shorter than a row
  EXPECT_EQ(error_for(s2, 18, 0), CL_INVALID_IMAGE_DESCRIPTOR);  // not whole pixels
  EXPECT_EQ(error_for(s2, 20, 0), CL_SUCCESS);
  EXPECT_EQ(error_for(s3, 16, 32), CL_INVALID_IMAGE_DESCRIPTOR);  // shorter than a slice
  EXPECT_EQ(error_for(s3, 16, 72), CL_INVALID_IMAGE_DESCRIPTOR);  // not whole rows
  EXPECT_EQ(error_for(s3, 16, 80), CL_SUCCESS);
  EXPECT_EQ(error_for(a1, 16, 8), CL_INVALID_IMAGE_DESCRIPTOR);  // a layer is a row
  EXPECT_EQ(error_for(a1, 16, 32), CL_SUCCESS);
  // Pitches whose extents overflow are refused before anything is read.
  EXPECT_EQ(error_for(s2, SIZE_MAX - 3, 0), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for(s3, 16, SIZE_MAX - 15), CL_INVALID_IMAGE_DESCRIPTOR);
  EXPECT_EQ(error_for(s3, size_t(1) << 62, 0), CL_INVALID_IMAGE_DESCRIPTOR);
}

TEST_F(ImageTest, NewImagesAreZeroFilled) {
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 16, 16};
  const auto bytes = random_bytes(16 * 16 * 4, 1);
  {
    cl_mem old = image(kRgba8, s);
    write_image(old, {0, 0, 0}, whole(s), bytes);
    ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
    api().clReleaseMemObject(old);
    mems_.pop_back();
  }
  for (cl_mem_object_type type : {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D}) {
    const Shape shape{type, 16, 16, 4, 0};
    cl_mem m = image(kRgba8, shape);
    const auto got = read_image(m, {0, 0, 0}, whole(shape), 4);
    EXPECT_EQ(got, std::vector<uint8_t>(got.size(), 0)) << type;
  }
}

TEST_F(ImageTest, HostDataAtItsPitchesBecomesThePackedImage) {
  // A 3x2x2 RGBA8 3D image from rows of 16 bytes and slices of 48: the padding never shows.
  std::vector<uint8_t> host(96, 0xee);
  std::vector<uint8_t> want;
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 2; ++y)
      for (size_t x = 0; x < 12; ++x) {
        host[z * 48 + y * 16 + x] = uint8_t(z * 100 + y * 20 + x);
        want.push_back(uint8_t(z * 100 + y * 20 + x));
      }
  const Shape s{CL_MEM_OBJECT_IMAGE3D, 3, 2, 2};
  cl_mem m = image(kRgba8, desc_of(s, 16, 48), CL_MEM_COPY_HOST_PTR, host.data());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_ROW_PITCH), 12u);
  EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_SLICE_PITCH), 24u);
  EXPECT_EQ(read_image(m, {0, 0, 0}, whole(s), 4), want);
  // A 1D array's layers are separated by the slice pitch.
  const Shape a{CL_MEM_OBJECT_IMAGE1D_ARRAY, 3, 0, 0, 2};
  cl_mem arr = image(kRgba8, desc_of(a, 12, 48), CL_MEM_COPY_HOST_PTR, host.data());
  ASSERT_NE(arr, nullptr);
  std::vector<uint8_t> layers(host.begin(), host.begin() + 12);
  layers.insert(layers.end(), host.begin() + 48, host.begin() + 60);
  EXPECT_EQ(read_image(arr, {0, 0, 0}, whole(a), 4), layers);
}

TEST_F(ImageTest, TheOpenCL11EntryPointsMakeImages) {
  cl_int err = CL_SUCCESS;
  cl_mem m2 = api().clCreateImage2D(context_, CL_MEM_READ_ONLY, &kRgba8, 8, 4, 0, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(m2);
  EXPECT_EQ(mem_info<cl_mem_object_type>(m2, CL_MEM_TYPE), cl_mem_object_type(CL_MEM_OBJECT_IMAGE2D));
  cl_mem m3 = api().clCreateImage3D(context_, CL_MEM_READ_ONLY, &kRgba8, 8, 4, 2, 0, 0, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(m3);
  EXPECT_EQ(image_info<size_t>(m3, CL_IMAGE_DEPTH), 2u);
  // OpenCL 1.1's errors: sizes, including a 3D image of one slice.
  EXPECT_EQ(api().clCreateImage2D(context_, CL_MEM_READ_ONLY, &kRgba8, 0, 4, 0, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(api().clCreateImage3D(context_, CL_MEM_READ_ONLY, &kRgba8, 8, 4, 1, 0, 0, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_IMAGE_SIZE);
  EXPECT_EQ(api().clCreateImage2D(nullptr, CL_MEM_READ_ONLY, &kRgba8, 8, 4, 0, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_CONTEXT);
}

TEST_F(ImageTest, PropertiesAreAnEmptyList) {
  const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4});
  const cl_mem_properties empty[] = {0}, unknown[] = {0x1234, 1, 0};
  cl_int err = CL_SUCCESS;
  cl_mem m = api().clCreateImageWithProperties(context_, empty, CL_MEM_READ_WRITE, &kRgba8, &d, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(m);
  cl_mem_properties got[2] = {1, 1};
  size_t size = 0;
  EXPECT_EQ(api().clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof got, got, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_mem_properties));
  EXPECT_EQ(got[0], 0u);
  EXPECT_EQ(api().clCreateImageWithProperties(context_, unknown, CL_MEM_READ_WRITE, &kRgba8, &d, nullptr, &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_PROPERTY);
}

TEST_F(ImageTest, A1DImageBufferShowsItsBuffersBytes) {
  const auto bytes = random_bytes(64 * 4, 2);
  cl_mem buf = buffer(bytes.size(), bytes.data());
  cl_mem m = image(kRgba8, desc_of({CL_MEM_OBJECT_IMAGE1D_BUFFER, 64}, 0, 0, buf));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(read_image(m, {0, 0, 0}, {64, 1, 1}, 4), bytes);
  EXPECT_EQ(image_info<cl_mem>(m, CL_IMAGE_BUFFER), buf);
  EXPECT_EQ(mem_info<cl_mem>(m, CL_MEM_ASSOCIATED_MEMOBJECT), buf);
  EXPECT_EQ(mem_info<size_t>(m, CL_MEM_OFFSET), 0u);
  // A write through the image is seen through the buffer, even after the buffer is released.
  const std::vector<uint8_t> px = {1, 2, 3, 4};
  write_image(m, {5, 0, 0}, {1, 1, 1}, px);
  EXPECT_EQ(read<uint8_t>(buf, 24)[21], 2);
  api().clReleaseMemObject(buf);
  std::erase(mems_, buf);
  EXPECT_EQ(read_image(m, {5, 0, 0}, {1, 1, 1}, 4), px);
  // Larger than its buffer, or over an image.
  cl_mem small = buffer(16);
  const cl_image_desc too_big = desc_of({CL_MEM_OBJECT_IMAGE1D_BUFFER, 5}, 0, 0, small);
  EXPECT_EQ(create_error(&kRgba8, &too_big), CL_INVALID_IMAGE_SIZE);
  const cl_image_desc over_image = desc_of({CL_MEM_OBJECT_IMAGE1D_BUFFER, 4}, 0, 0, m);
  EXPECT_EQ(create_error(&kRgba8, &over_image), CL_INVALID_IMAGE_DESCRIPTOR);
}

TEST_F(ImageTest, An2DImageFromASubBufferUsesItsRowPitch) {
  std::vector<uint8_t> bytes(512);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i);
  cl_mem buf = buffer(bytes.size(), bytes.data());
  const cl_buffer_region region{128, 256};
  cl_int err = CL_SUCCESS;
  cl_mem sub = api().clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  mems_.push_back(sub);
  // 3x4 RGBA8 pixels in rows of 20 bytes.
  cl_mem m = image(kRgba8, desc_of({CL_MEM_OBJECT_IMAGE2D, 3, 4}, 20, 0, sub));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(image_info<size_t>(m, CL_IMAGE_ROW_PITCH), 20u);
  const auto row2 = read_image(m, {0, 2, 0}, {3, 1, 1}, 4);
  EXPECT_EQ(row2, std::vector<uint8_t>(bytes.begin() + 128 + 40, bytes.begin() + 128 + 52));
  auto error_for = [&](size_t w, size_t h, size_t row, cl_mem_flags flags) {
    const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, w, h}, row, 0, sub);
    return create_error(&kRgba8, &d, flags);
  };
  EXPECT_EQ(error_for(3, 4, 10, CL_MEM_READ_WRITE), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);  // shorter than a row
  EXPECT_EQ(error_for(3, 4, 18, CL_MEM_READ_WRITE), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);  // not whole pixels
  EXPECT_EQ(error_for(3, 13, 20, CL_MEM_READ_WRITE), CL_INVALID_IMAGE_SIZE);              // past the sub-buffer
  EXPECT_EQ(error_for(3, 4, 20, CL_MEM_USE_HOST_PTR), CL_INVALID_VALUE);
  EXPECT_EQ(error_for(3, 4, 0, CL_MEM_HOST_NO_ACCESS), CL_SUCCESS);
  cl_mem ro = buffer(256, nullptr, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
  auto over_ro = [&](cl_mem_flags flags) {
    const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4}, 0, 0, ro);
    return create_error(&kRgba8, &d, flags);
  };
  EXPECT_EQ(over_ro(CL_MEM_WRITE_ONLY), CL_INVALID_VALUE);
  EXPECT_EQ(over_ro(CL_MEM_HOST_WRITE_ONLY), CL_INVALID_VALUE);
  EXPECT_EQ(over_ro(0), CL_SUCCESS);
  // A host pointer of its own is refused.
  uint8_t host[64];
  const cl_image_desc d = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 4}, 0, 0, ro);
  EXPECT_EQ(create_error(&kRgba8, &d, 0, host), CL_INVALID_HOST_PTR);
}

TEST_F(ImageTest, A2DImageFromA2DImageSharesItsPixels) {
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 4, 3};
  cl_mem base = image(kRgba8, s);
  const auto bytes = random_bytes(4 * 3 * 4, 3);
  write_image(base, {0, 0, 0}, whole(s), bytes);
  cl_mem view = image(kRgba8, desc_of(s, 0, 0, base));
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(read_image(view, {0, 0, 0}, whole(s), 4), bytes);
  EXPECT_EQ(mem_info<cl_mem>(view, CL_MEM_ASSOCIATED_MEMOBJECT), base);
  const cl_image_desc other_size = desc_of({CL_MEM_OBJECT_IMAGE2D, 4, 2}, 0, 0, base);
  EXPECT_EQ(create_error(&kRgba8, &other_size), CL_INVALID_IMAGE_DESCRIPTOR);
  const cl_image_format other_type{CL_RGBA, CL_UNSIGNED_INT8};
  const cl_image_desc same = desc_of(s, 0, 0, base);
  EXPECT_EQ(create_error(&other_type, &same), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
}

TEST_F(ImageTest, BufferEntryPointsRefuseImages) {
  cl_mem m = image(kRgba8, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 4});
  uint8_t bytes[16] = {};
  EXPECT_EQ(api().clEnqueueReadBuffer(queue_, m, CL_TRUE, 0, 16, bytes, 0, nullptr, nullptr), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clEnqueueWriteBuffer(queue_, m, CL_TRUE, 0, 16, bytes, 0, nullptr, nullptr), CL_INVALID_MEM_OBJECT);
  const uint8_t zero = 0;
  EXPECT_EQ(api().clEnqueueFillBuffer(queue_, m, &zero, 1, 0, 16, 0, nullptr, nullptr), CL_INVALID_MEM_OBJECT);
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clEnqueueMapBuffer(queue_, m, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_MEM_OBJECT);
  const cl_buffer_region region{0, 16};
  EXPECT_EQ(api().clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_MEM_OBJECT);
  // Migration and release take any memory object.
  EXPECT_EQ(api().clEnqueueMigrateMemObjects(queue_, 1, &m, 0, 0, nullptr, nullptr), CL_SUCCESS);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
