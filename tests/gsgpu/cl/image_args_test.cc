// Kernels with image and sampler arguments on a device without image support (docs/compiler.md,
// "Images and samplers"): they build and can be queried, every value for such an argument is
// refused with the spec's error, and the kernel cannot be enqueued. Also per-kernel __local sizes.
#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageArgsTest = GsgpuExecutorTest;

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

TEST_F(ImageArgsTest, UsingAnImageFailsTheBuildNamingTheBuiltin) {
  REQUIRE_COMPILER();
  const char* text = R"(
    kernel void reads(global float4* out, read_only image2d_t img, sampler_t s) {
      out[0] = read_imagef(img, s, (int2)(0, 0));
    })";
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(p);
  EXPECT_EQ(api().clBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(build_log(p).find("image built-ins are not supported"), std::string::npos) << build_log(p);
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

}  // namespace
}  // namespace gsvirt::vcomp::testing
