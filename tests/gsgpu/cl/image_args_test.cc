// Kernels with image and sampler arguments (docs/compiler.md, "Images and samplers"). Without image
// support they build and can be queried, every value for such an argument is refused with the spec's
// error, and the kernel cannot be enqueued. With it, images and samplers are taken with the spec's
// checks (type, context, declared access) and become the texture unit's records: an IMAGE_DESC's VA
// and a SAMPLER_STATE word. Also per-kernel __local sizes.
#include "gsgpu/cl/image_args.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageArgsTest = GsgpuExecutorTest;  // a device without images (test_config)

// piglit api@clsetkernelarg's program, plus an image argument.
constexpr char kProgram[] = R"(
typedef struct struct_arg { int m1; int4 m2; float m3; } struct_arg_t;
kernel void kernel_fun(__global int* arr, float float_num, __local int* int_ptr, sampler_t sampler,
                       int3 vec3, struct_arg_t s_arg) {}
kernel void with_image(global int* out, read_only image2d_t img) { out[0] = 1; }
kernel void events(global int* out) { event_t e; out[0] = 2; }
)";

TEST_F(ImageArgsTest, ImageAndSamplerArgumentsBuildButTakeNoValue) {
  REQUIRE_COMPILER();
  cl_bool images = CL_TRUE;
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr), CL_SUCCESS);
  ASSERT_EQ(images, CL_FALSE);
  cl_program p = build(kProgram);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "kernel_fun");
  ASSERT_NE(k, nullptr);
  cl_mem buf = buffer(512);
  const cl_float f = 1.1f;
  const cl_int3 vec3 = {{0}};
  struct {
    cl_int m1;
    cl_int4 m2;
    cl_float m3;
  } s_arg = {};
  EXPECT_EQ(api().clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof f, &f), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 2, sizeof(cl_int), nullptr), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 4, sizeof vec3, &vec3), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 5, sizeof s_arg, &s_arg), CL_SUCCESS);
  cl_sampler sampler = nullptr;
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof(cl_sampler), nullptr), CL_INVALID_SAMPLER);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof(cl_sampler), &sampler), CL_INVALID_SAMPLER);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof(cl_sampler) + 1, &sampler), CL_INVALID_ARG_SIZE);
  const size_t one = 1;
  EXPECT_EQ(run(k, 1, &one, &one), CL_INVALID_KERNEL_ARGS);

  cl_kernel ki = kernel(p, "with_image");
  ASSERT_NE(ki, nullptr);
  cl_mem out = buffer(4);
  arg(ki, 0, out);
  EXPECT_EQ(api().clSetKernelArg(ki, 1, sizeof buf, &buf), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clSetKernelArg(ki, 1, sizeof buf, nullptr), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clSetKernelArg(ki, 1, sizeof buf + 1, &buf), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(run(ki, 1, &one, &one), CL_INVALID_KERNEL_ARGS);
  cl_uint nargs = 0;
  EXPECT_EQ(api().clGetKernelInfo(ki, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr), CL_SUCCESS);
  EXPECT_EQ(nargs, 2u);

  // event_t needs no image support: the kernel runs.
  cl_kernel ke = kernel(p, "events");
  ASSERT_NE(ke, nullptr);
  arg(ke, 0, out);
  ASSERT_EQ(run(ke, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 2);
}

// Without image support a kernel calling image built-ins still builds (the compiler has them;
// OpenCL C 1.2 always has the types) but __IMAGE_SUPPORT__ is not defined, and it cannot run.
TEST_F(ImageArgsTest, ImageKernelsBuildWithoutImageSupportButImageSupportIsNotDefined) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void reads(global float4* out, read_only image2d_t img, sampler_t s) {
      out[0] = read_imagef(img, s, (int2)(0, 0));
    }
    kernel void macro(global int* out) {
    #ifdef __IMAGE_SUPPORT__
      out[0] = 1;
    #else
      out[0] = 2;
    #endif
    })");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "macro");
  cl_mem out = buffer(4);
  arg(k, 0, out);
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 2);
  cl_kernel reads = kernel(p, "reads");
  arg(reads, 0, out);
  EXPECT_EQ(run(reads, 1, &one, &one), CL_INVALID_KERNEL_ARGS);
}

TEST_F(ImageArgsTest, LocalMemSizeCountsOnlyTheKernelsOwnLocalVariables) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void vadd(global const float* a, global const float* b, global float* c) {
      int i = get_global_id(0);
      c[i] = a[i] + b[i];
    }
    kernel void tiles(global float* out) {
      local float ta[256], tb[256];
      int i = get_local_id(0);
      ta[i] = i; tb[i] = i;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[i] = ta[255 - i] + tb[i];
    })");
  ASSERT_NE(p, nullptr);
  cl_ulong vadd_local = 1, tiles_local = 0;
  EXPECT_EQ(api().clGetKernelWorkGroupInfo(kernel(p, "vadd"), device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof vadd_local,
                                           &vadd_local, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(api().clGetKernelWorkGroupInfo(kernel(p, "tiles"), device_, CL_KERNEL_LOCAL_MEM_SIZE, sizeof tiles_local,
                                           &tiles_local, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(vadd_local, 0u);
  EXPECT_EQ(tiles_local, 2048u);
}

using ImageArgsWithImagesTest = ImageFixture;

constexpr char kImageKernels[] = R"(
kernel void take(global int* out, read_only image2d_t in, write_only image2d_t w, sampler_t s) { out[0] = 3; }
kernel void rw_args(read_only image1d_buffer_t b, read_only image2d_array_t a) {}
)";

TEST_F(ImageArgsWithImagesTest, ImagesAndSamplersAreCheckedAndTheKernelRuns) {
  REQUIRE_COMPILER();
  cl_program p = build(kImageKernels, "-cl-kernel-arg-info");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "take");
  ASSERT_NE(k, nullptr);
  const cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  cl_mem out = buffer(4);
  cl_mem in2d = image(f, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 4}, CL_MEM_READ_ONLY);
  cl_mem wo2d = image(f, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 4}, CL_MEM_WRITE_ONLY);
  cl_mem in3d = image(f, Shape{CL_MEM_OBJECT_IMAGE3D, 4, 4, 2}, CL_MEM_READ_ONLY);
  cl_mem rw2d = image(f, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 4}, CL_MEM_READ_WRITE);
  cl_int err = CL_SUCCESS;
  cl_sampler s = api().clCreateSampler(context_, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  arg(k, 0, out);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof in2d, &in2d), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof wo2d, &wo2d), CL_INVALID_ARG_VALUE);  // read_only, write-only image
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof in3d, &in3d), CL_INVALID_MEM_OBJECT);  // not a 2D image
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof out, &out), CL_INVALID_MEM_OBJECT);    // a buffer
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof in2d, nullptr), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof in2d + 1, &in2d), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 2, sizeof in2d, &in2d), CL_INVALID_ARG_VALUE);  // write_only, read-only image
  EXPECT_EQ(api().clSetKernelArg(k, 2, sizeof wo2d, &wo2d), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 2, sizeof rw2d, &rw2d), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof out, &out), CL_INVALID_SAMPLER);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof s, nullptr), CL_INVALID_SAMPLER);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof s + 1, &s), CL_INVALID_ARG_SIZE);
  EXPECT_EQ(api().clSetKernelArg(k, 3, sizeof s, &s), CL_SUCCESS);
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 3);
  // Released since clSetKernelArg: the enqueue refuses it.
  api().clReleaseMemObject(in2d);
  std::erase(mems_, in2d);
  EXPECT_EQ(run(k, 1, &one, &one), CL_INVALID_KERNEL_ARGS);
  // Argument info: the declared access and type.
  cl_kernel_arg_access_qualifier access = 0;
  ASSERT_EQ(api().clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(access, cl_kernel_arg_access_qualifier(CL_KERNEL_ARG_ACCESS_READ_ONLY));
  ASSERT_EQ(api().clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(access, cl_kernel_arg_access_qualifier(CL_KERNEL_ARG_ACCESS_WRITE_ONLY));
  ASSERT_EQ(api().clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(access, cl_kernel_arg_access_qualifier(CL_KERNEL_ARG_ACCESS_NONE));
  char name[32] = {};
  ASSERT_EQ(api().clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof name, name, nullptr), CL_SUCCESS);
  EXPECT_STREQ(name, "image2d_t");
  cl_kernel_arg_address_qualifier address = 0;
  ASSERT_EQ(api().clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(address, cl_kernel_arg_address_qualifier(CL_KERNEL_ARG_ADDRESS_GLOBAL));
  api().clReleaseSampler(s);
}

TEST_F(ImageArgsWithImagesTest, ImagesOverBuffersAndArraysMatchTheirTypes) {
  REQUIRE_COMPILER();
  cl_program p = build(kImageKernels);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "rw_args");
  const cl_image_format f{CL_R, CL_FLOAT};
  cl_mem buf = buffer(256);
  cl_mem b = image(f, desc_of({CL_MEM_OBJECT_IMAGE1D_BUFFER, 64}, 0, 0, buf));
  cl_mem one = image(f, Shape{CL_MEM_OBJECT_IMAGE1D, 64});
  cl_mem a = image(f, Shape{CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 3});
  EXPECT_EQ(api().clSetKernelArg(k, 0, sizeof one, &one), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(api().clSetKernelArg(k, 0, sizeof b, &b), CL_SUCCESS);
  EXPECT_EQ(api().clSetKernelArg(k, 1, sizeof a, &a), CL_SUCCESS);
  const size_t n = 1;
  ASSERT_EQ(run(k, 1, &n, &n), CL_SUCCESS);
  ASSERT_EQ(api().clFinish(queue_), CL_SUCCESS);
}

namespace hw = gsgpu::hw;
namespace desc = gsgpu::hw::blk::IMAGE_DESC;

uint32_t field(uint32_t word, uint32_t mask, uint32_t shift) { return hw::get_field(word, mask, shift); }

TEST(ImageRecords, TheSamplerWordFollowsTheDocumentedExample) {
  // docs/compiler.md: clamp to border in U, V, W, nearest, unnormalised.
  EXPECT_EQ(gsgpu::cl::sampler_state(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST), 0x124u);
  EXPECT_EQ(gsgpu::cl::sampler_state(CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR),
            1u | 3u << 1 | 3u << 4 | 3u << 7 | 1u << 10 | 1u << 11);
  EXPECT_EQ(gsgpu::cl::sampler_state(CL_TRUE, CL_ADDRESS_NONE, CL_FILTER_NEAREST), 1u);
}

TEST(ImageRecords, DescriptorsDescribeEachTypesLayout) {
  const uint64_t va = 0x1234500000ull;
  gsgpu::cl::ImageLayout l;
  l.format = {CL_BGRA, CL_UNORM_INT8};
  l.type = CL_MEM_OBJECT_IMAGE1D_ARRAY;
  l.pixel_bytes = 4;
  l.width = 7;
  l.array_size = l.rows = 3;
  l.row_pitch = l.slice_pitch = 28;
  uint8_t bytes[gsgpu::cl::kImageDescriptorBytes];
  gsgpu::cl::write_image_descriptor(l, va, bytes);
  uint32_t d[16];
  std::memcpy(d, bytes, sizeof d);
  EXPECT_EQ(d[desc::BASE_VA_LO], 0x34500000u);
  EXPECT_EQ(d[desc::BASE_VA_HI], 0x12u);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_CHANNEL_ORDER_MASK, desc::FORMAT_CHANNEL_ORDER_SHIFT),
            desc::FORMAT_CHANNEL_ORDER_BGRA);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_DATA_TYPE_MASK, desc::FORMAT_DATA_TYPE_SHIFT),
            desc::FORMAT_DATA_TYPE_UNORM_INT8);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT), desc::FORMAT_TYPE_IMAGE_1D_ARRAY);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_MIP_LEVELS_MASK, desc::FORMAT_MIP_LEVELS_SHIFT), 1u);
  EXPECT_EQ(d[desc::WIDTH], 7u);
  EXPECT_EQ(d[desc::HEIGHT], 1u);
  EXPECT_EQ(d[desc::DEPTH], 1u);
  EXPECT_EQ(d[desc::ARRAY_SIZE], 3u);
  EXPECT_EQ(d[desc::ROW_PITCH], 28u);
  EXPECT_EQ(d[desc::SLICE_PITCH], 28u);  // layers one row apart
  for (uint32_t i = desc::PACKED_LAYERS; i <= desc::RESERVED_15; ++i) EXPECT_EQ(d[i], 0u);
  // A 2D array of one layer has no slice pitch (the descriptor's rule); a 3D image its depth.
  l.format = {CL_RGBA, CL_FLOAT};
  l.type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
  l.pixel_bytes = 16;
  l.height = l.rows = 5;
  l.array_size = l.slices = 1;
  l.row_pitch = 112;
  l.slice_pitch = 560;
  gsgpu::cl::write_image_descriptor(l, va, bytes);
  std::memcpy(d, bytes, sizeof d);
  EXPECT_EQ(d[desc::HEIGHT], 5u);
  EXPECT_EQ(d[desc::ARRAY_SIZE], 1u);
  EXPECT_EQ(d[desc::SLICE_PITCH], 0u);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_DATA_TYPE_MASK, desc::FORMAT_DATA_TYPE_SHIFT),
            desc::FORMAT_DATA_TYPE_FLOAT);
  l.type = CL_MEM_OBJECT_IMAGE3D;
  l.array_size = 0;
  l.depth = l.slices = 2;
  gsgpu::cl::write_image_descriptor(l, va, bytes);
  std::memcpy(d, bytes, sizeof d);
  EXPECT_EQ(d[desc::DEPTH], 2u);
  EXPECT_EQ(d[desc::ARRAY_SIZE], 1u);
  EXPECT_EQ(d[desc::SLICE_PITCH], 560u);
  EXPECT_EQ(field(d[desc::FORMAT], desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT), desc::FORMAT_TYPE_IMAGE_3D);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
