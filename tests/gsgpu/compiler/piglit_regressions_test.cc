// Regressions found by piglit's OpenCL tests (tests/cl in piglit), each reduced to what went wrong:
// by-value structs passed to non-kernel functions, built-ins with run-time dimension indices, the
// front end's predefined macros, image and sampler kernel arguments, and per-kernel __local sizes.
#include <cstring>

#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

// piglit program@execute@calls-struct / calls-large-struct: a struct passed by value to a
// function that modifies its copy; the caller's struct must not change.
TEST(PiglitRegressions, ByValueStructArgumentsAreCopiedForTheCallee) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    #define NOINLINE __attribute__((noinline))
    typedef struct Small { char c; int a[4]; } Small;
    typedef struct Large { char c; int a[32]; } Large;
    NOINLINE int take_small(Small st) {
      st.a[0] += 100;
      int sum = 0;
      for (int i = 0; i < 4; ++i) sum += st.a[i];
      return sum + st.c;
    }
    NOINLINE int take_large(Large st) {
      st.a[0] += 100;
      int sum = 0;
      for (int i = 0; i < 32; ++i) sum += st.a[i];
      return sum + st.c;
    }
    NOINLINE Small modify(Small st) {
      st.c += 15;
      st.a[0] += 14; st.a[1] -= 8; st.a[2] += 9; st.a[3] += 18;
      return st;
    }
    kernel void small(global int* out0, global int* out1, global int* in) {
      Small st;
      st.c = 15;
      int id = get_global_id(0);
      st.a[0] = 14; st.a[1] = -8; st.a[2] = in[id]; st.a[3] = 900;
      out0[id] = take_small(st);
      out1[id] = st.a[0];
    }
    kernel void large(global int* out0, global int* out1, global int* in) {
      Large st;
      st.c = 15;
      int id = get_global_id(0);
      st.a[0] = 14; st.a[1] = -8; st.a[2] = in[id]; st.a[3] = 900;
      for (int i = 4; i < 32; ++i) st.a[i] = 0;
      out0[id] = take_large(st);
      out1[id] = st.a[0];
    }
    kernel void both(global int* out0, global int* out1, global int* in) {
      int id = get_global_id(0);
      volatile Small st0;
      st0.c = -20;
      st0.a[0] = 14; st0.a[1] = -8; st0.a[2] = in[id]; st0.a[3] = 100;
      Small st1 = modify(st0);
      int sum0 = st0.c, sum1 = st1.c;
      for (int i = 0; i < 4; ++i) { sum0 += st0.a[i]; sum1 += st1.a[i]; }
      out0[id] = sum0;
      out1[id] = sum1;
    })"));
  const int n = 16;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  const uint64_t vin = cl.memory.upload(in);
  for (const char* name : {"small", "large"}) {
    const uint64_t v0 = cl.memory.upload(std::vector<int>(n, -1)), v1 = cl.memory.upload(std::vector<int>(n, -1));
    cl.run_ok(name, {Arg::buffer(v0), Arg::buffer(v1), Arg::buffer(vin)}, NDRange::linear(n, n));
    const auto o0 = cl.memory.download<int>(v0, n), o1 = cl.memory.download<int>(v1, n);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(o0[i], 1021 + i) << name << " " << i;
      EXPECT_EQ(o1[i], 14) << name << " " << i << ": the callee's write reached the caller's struct";
    }
  }
  const uint64_t v0 = cl.memory.upload(std::vector<int>(n, -1)), v1 = cl.memory.upload(std::vector<int>(n, -1));
  cl.run_ok("both", {Arg::buffer(v0), Arg::buffer(v1), Arg::buffer(vin)}, NDRange::linear(n, n));
  const auto o0 = cl.memory.download<int>(v0, n), o1 = cl.memory.download<int>(v1, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(o0[i], 86 + i) << i;
    EXPECT_EQ(o1[i], 134 + i) << i;
  }
}

// piglit program@execute@global-offset ("3d, input dependent"): get_global_offset(d) and friends
// with d read at run time; d outside 0..2 gives 0 (ids, offsets) or 1 (sizes).
TEST(PiglitRegressions, BuiltinsWithRunTimeDimensionIndex) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    kernel void dynamic(volatile global int* out, int j) {
      for (int k = 0; k < 5; ++k) {
        out[k] = get_global_offset(j + k - 2);
        out[5 + k] = get_global_size(j + k - 2);
        out[10 + k] = get_global_id(j + k - 2);
        out[15 + k] = get_local_size(j + k - 2);
      }
    }
    kernel void constant_index(global int* out) {
      out[0] = get_global_offset(3);
      out[1] = get_global_size(7);
      out[2] = get_local_id(3);
    })"));
  NDRange r;
  r.dims = 3;
  r.offset[0] = 9;
  r.offset[1] = 8;
  r.offset[2] = 7;
  const uint64_t out = cl.memory.upload(std::vector<int>(20, 6));
  cl.run_ok("dynamic", {Arg::buffer(out), Arg::value(1)}, r);
  const auto o = cl.memory.download<int>(out, 20);
  const std::vector<int> expected = {0, 9, 8, 7, 0,  1, 1, 1, 1, 1,  0, 9, 8, 7, 0,  1, 1, 1, 1, 1};
  EXPECT_EQ(o, expected);
  const uint64_t out2 = cl.memory.upload(std::vector<int>(3, 6));
  cl.run_ok("constant_index", {Arg::buffer(out2)}, r);
  EXPECT_EQ(cl.memory.download<int>(out2, 3), (std::vector<int>{0, 1, 0}));
}

// piglit program@check predefined preprocessor macros: what the runtime defines for its device.
TEST(PiglitRegressions, PredefinedMacrosMatchTheDevice) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  const std::string source = R"(
    kernel void macros(global int* out) {
    #ifdef __OPENCL_VERSION__
      out[0] = __OPENCL_VERSION__;
    #endif
    #ifdef __OPENCL_C_VERSION__
      out[1] = __OPENCL_C_VERSION__;
    #endif
    #if defined(CL_VERSION_1_0) && defined(CL_VERSION_1_1) && defined(CL_VERSION_1_2)
      out[2] = CL_VERSION_1_0 + CL_VERSION_1_1 + CL_VERSION_1_2;
    #endif
    #ifdef __ENDIAN_LITTLE__
      out[3] = __ENDIAN_LITTLE__;
    #endif
    #ifdef __IMAGE_SUPPORT__
      out[4] = 1;
    #endif
    })";
  for (const auto& [options, c_version] :
       {std::pair<std::string, int>{"", 120}, {"-cl-std=CL1.1", 110}, {"-cl-std=CL3.0", 300}}) {
    ASSERT_TRUE(cl.build(source, options));
    const uint64_t out = cl.memory.upload(std::vector<int>(5, 0));
    cl.run_ok("macros", {Arg::buffer(out)}, NDRange::linear(1, 1));
    // __IMAGE_SUPPORT__: the compiler's device has images (a runtime without them builds with
    // CompileOptions::images = false, below).
    EXPECT_EQ(cl.memory.download<int>(out, 5), (std::vector<int>{300, c_version, 330, 1, 1})) << options;
  }
  CompileOptions no_images;
  no_images.images = false;
  ASSERT_TRUE(cl.build(source, "", no_images));
  const uint64_t no_images_out = cl.memory.upload(std::vector<int>(5, 0));
  cl.run_ok("macros", {Arg::buffer(no_images_out)}, NDRange::linear(1, 1));
  EXPECT_EQ(cl.memory.download<int>(no_images_out, 5)[4], 0);
  // OpenCL C 3.0: only the optional features the device has (CL_DEVICE_OPENCL_C_FEATURES).
  const std::string features = R"(
    kernel void features(global int* out) {
    #ifdef __opencl_c_int64
      out[0] = 1;
    #endif
    #if defined(__opencl_c_generic_address_space) || defined(__opencl_c_pipes)
      out[1] = 1;
    #endif
    #if defined(__opencl_c_images)
      out[6] = 1;  // lower_image.cc
    #endif
    #if defined(__opencl_c_subgroups) || defined(__opencl_c_program_scope_global_variables)
      out[2] = 1;
    #endif
    #if defined(__opencl_c_device_enqueue)
      out[3] = 1;
    #endif
    #if defined(__opencl_c_fp64) && defined(cl_khr_fp64)
      out[5] = 1;  // cl_khr_fp64 (lower_fp64.cc)
    #endif
    #if defined(__opencl_c_work_group_collective_functions) || defined(__opencl_c_atomic_order_acq_rel)
      out[4] = 1;
    #endif
    })";
  ASSERT_TRUE(cl.build(features, "-cl-std=CL3.0"));
  const uint64_t feature_out = cl.memory.upload(std::vector<int>(7, 0));
  cl.run_ok("features", {Arg::buffer(feature_out)}, NDRange::linear(1, 1));
  EXPECT_EQ(cl.memory.download<int>(feature_out, 7), (std::vector<int>{1, 0, 0, 0, 0, 1, 1}));
  ASSERT_TRUE(cl.build(features, "-cl-std=CL3.0", no_images));
  const uint64_t no_image_features = cl.memory.upload(std::vector<int>(7, 0));
  cl.run_ok("features", {Arg::buffer(no_image_features)}, NDRange::linear(1, 1));
  EXPECT_EQ(cl.memory.download<int>(no_image_features, 7), (std::vector<int>{1, 0, 0, 0, 0, 1, 0}));
  // The program's own options still win.
  ASSERT_TRUE(cl.build(source, "-D__IMAGE_SUPPORT__=1"));
  const uint64_t out = cl.memory.upload(std::vector<int>(5, 0));
  cl.run_ok("macros", {Arg::buffer(out)}, NDRange::linear(1, 1));
  EXPECT_EQ(cl.memory.download<int>(out, 5)[4], 1);
}

// piglit api@clsetkernelarg and program@build@other-data-types: kernels with image and sampler
// arguments build (the arguments are 8-byte slots); event_t variables are fine; a kernel calling
// an image built-in builds too.
TEST(PiglitRegressions, ImageAndSamplerArgumentsBuildAsOpaqueSlots) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    typedef struct struct_arg { int m1; int4 m2; float m3; } struct_arg_t;
    kernel void kernel_fun(__global int* arr, float float_num, __local int* int_ptr, sampler_t sampler,
                           int3 vec3, struct_arg_t s_arg) {}
    kernel void images(global int* out, image2d_t i2, read_only image3d_t i3, write_only image1d_t i1, int x) {
      event_t e;
      out[0] = x;
    })"));
  const CompiledKernel* k = cl.program.find("kernel_fun");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 6u);
  EXPECT_EQ(k->args[3].kind, ArgKind::kSampler);
  EXPECT_EQ(k->args[3].size, 8u);
  EXPECT_EQ(k->args[3].name, "sampler");
  EXPECT_EQ(k->args[4].kind, ArgKind::kScalar);
  EXPECT_EQ(k->args[5].kind, ArgKind::kStruct);
  k = cl.program.find("images");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 5u);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(k->args[i].kind, ArgKind::kImage) << i;
    EXPECT_EQ(k->args[i].size, 8u) << i;
  }
  EXPECT_GT(k->args[4].offset, k->args[3].offset);
  // What each image parameter declares, for the runtime to check the image it is given.
  EXPECT_EQ(k->args[1].image_dim, ImageDim::k2D);
  EXPECT_EQ(k->args[1].image_access, ImageAccess::kReadOnly);  // the default qualifier
  EXPECT_EQ(k->args[2].image_dim, ImageDim::k3D);
  EXPECT_EQ(k->args[2].image_access, ImageAccess::kReadOnly);
  EXPECT_EQ(k->args[3].image_dim, ImageDim::k1D);
  EXPECT_EQ(k->args[3].image_access, ImageAccess::kWriteOnly);
  EXPECT_EQ(k->args[0].image_dim, ImageDim::kNone);
  // The code itself runs (the runtime never lets it: no image object can be set).
  const uint64_t out = cl.memory.upload(std::vector<int>(1, 0));
  cl.run_ok("images", {Arg::buffer(out), Arg::value(uint64_t{0}), Arg::value(uint64_t{0}), Arg::value(uint64_t{0}),
                       Arg::value(42)},
            NDRange::linear(1, 1));
  EXPECT_EQ(cl.memory.download<int>(out, 1)[0], 42);

  // Image built-ins compile to the texture unit's instructions (image_codegen_test.cc).
  CompiledProgram program;
  std::string log;
  EXPECT_EQ(build_opencl_c(R"(
    kernel void reads(global float4* out, read_only image2d_t img, sampler_t s) {
      out[0] = read_imagef(img, s, (int2)(0, 0));
    })", "", &program, &log), BuildStatus::kSuccess) << log;
  ASSERT_NE(program.find("reads"), nullptr);
  EXPECT_EQ(count_lines(program.find("reads")->assembly, "v_image_fetch"), 1u) << program.find("reads")->assembly;
}

// Each kernel gets the __local variables it (and what it calls) uses, not every kernel's.
TEST(PiglitRegressions, StaticLocalMemoryIsPerKernel) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    void fill(local float* tile, int i, float v) { tile[i] = v; }
    kernel void vadd(global const float* a, global const float* b, global float* c) {
      int i = get_global_id(0);
      c[i] = a[i] + b[i];
    }
    kernel void tiles(global float* out) {
      local float ta[256];
      local float tb[256];
      int i = get_local_id(0);
      ta[i] = i;
      tb[i] = 2 * i;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = ta[255 - i] + tb[i];
    }
    kernel void through_call(global float* out) {
      local float tc[64];
      int i = get_local_id(0);
      fill(tc, i, 3.0f * i);
      barrier(CLK_LOCAL_MEM_FENCE);
      out[i] = tc[63 - i];
    })"));
  ASSERT_NE(cl.program.find("vadd"), nullptr);
  EXPECT_EQ(cl.program.find("vadd")->static_local_bytes, 0u);
  EXPECT_EQ(cl.program.find("tiles")->static_local_bytes, 2048u);
  EXPECT_EQ(cl.program.find("through_call")->static_local_bytes, 256u);
  const uint64_t out = cl.memory.upload(std::vector<float>(256, -1.0f));
  cl.run_ok("tiles", {Arg::buffer(out)}, NDRange::linear(256, 256));
  auto o = cl.memory.download<float>(out, 256);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(o[i], float(255 - i) + 2.0f * i) << i;
  const uint64_t out2 = cl.memory.upload(std::vector<float>(64, -1.0f));
  cl.run_ok("through_call", {Arg::buffer(out2)}, NDRange::linear(64, 64));
  o = cl.memory.download<float>(out2, 64);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(o[i], 3.0f * (63 - i)) << i;
}

}  // namespace
}  // namespace gsgpu::compiler::testing
