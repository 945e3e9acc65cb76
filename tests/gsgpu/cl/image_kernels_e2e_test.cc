// Image kernels end to end on gsgpu (runtime with image support, the compiler's lowering of the
// image built-ins, the shader cores' image instructions and the texture unit): copies through
// read_image* / write_image*, samplers (literal and argument), filtering, queries, and 3D and
// array images, checked against values worked out by hand.
#include <cmath>
#include <cstring>
#include <vector>

#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageKernels = ImageFixture;

constexpr char kKernels[] = R"(
constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void copy(read_only image2d_t src, write_only image2d_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, read_imagef(src, p));
}
kernel void copy_shifted(read_only image2d_t src, write_only image2d_t dst) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(dst, p, read_imagef(src, edge, p + (int2)(1, 0)));
}
kernel void sample(read_only image2d_t src, sampler_t s, global const float2* at, global float4* out) {
  size_t i = get_global_id(0);
  out[i] = read_imagef(src, s, at[i]);
}
kernel void ints(read_only image2d_t src, write_only image2d_t dst, global int4* out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  uint4 v = read_imageui(src, p);
  write_imageui(dst, p, v + (uint4)(1, 2, 3, 4));
  out[p.y * get_image_width(src) + p.x] = convert_int4(v);
}
kernel void queries(read_only image3d_t img, read_only image1d_array_t arr, global int* out) {
  out[0] = get_image_width(img);
  out[1] = get_image_height(img);
  out[2] = get_image_depth(img);
  out[3] = get_image_channel_order(img);
  out[4] = get_image_channel_data_type(img);
  out[5] = get_image_width(arr);
  out[6] = (int)get_image_array_size(arr);
}
kernel void volume(read_only image3d_t img, global float4* out) {
  int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
  out[(p.z * get_image_height(img) + p.y) * get_image_width(img) + p.x] = read_imagef(img, p);
}
kernel void layers(read_only image1d_array_t arr, global float4* out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[p.y * get_image_width(arr) + p.x] = read_imagef(arr, edge, p);
}
)";

TEST_F(ImageKernels, CopyThroughReadAndWriteImage) {
  REQUIRE_COMPILER();
  cl_program p = build(kKernels);
  ASSERT_NE(p, nullptr);
  const cl_image_format f{CL_RGBA, CL_UNORM_INT8};
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 5, 3};
  cl_mem src = image(f, s, CL_MEM_READ_ONLY);
  cl_mem dst = image(f, s, CL_MEM_WRITE_ONLY);
  const std::vector<uint8_t> bytes = random_bytes(5 * 3 * 4, 7);
  write_image(src, {0, 0, 0}, whole(s), bytes);
  for (const char* name : {"copy", "copy_shifted"}) {
    cl_kernel k = kernel(p, name);
    ASSERT_NE(k, nullptr);
    arg(k, 0, src);
    arg(k, 1, dst);
    const size_t global[2] = {5, 3};
    ASSERT_EQ(run(k, 2, global, nullptr), CL_SUCCESS) << name;
    const std::vector<uint8_t> got = read_image(dst, {0, 0, 0}, whole(s), 4);
    for (size_t y = 0; y < 3; ++y)
      for (size_t x = 0; x < 5; ++x) {
        const size_t from = std::string(name) == "copy" ? x : std::min<size_t>(x + 1, 4);
        for (size_t c = 0; c < 4; ++c)
          EXPECT_EQ(got[(y * 5 + x) * 4 + c], bytes[(y * 5 + from) * 4 + c]) << name << " " << x << "," << y << "." << c;
      }
  }
}

// A 2x1 CL_R float image {1, 3}: nearest and linear, unnormalised and normalised coordinates.
TEST_F(ImageKernels, SamplersFromArgumentsFilter) {
  REQUIRE_COMPILER();
  cl_program p = build(kKernels);
  ASSERT_NE(p, nullptr);
  const cl_image_format f{CL_R, CL_FLOAT};
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 2, 1};
  cl_mem src = image(f, s, CL_MEM_READ_ONLY);
  const float texels[2] = {1.0f, 3.0f};
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), texels, 8);
  write_image(src, {0, 0, 0}, whole(s), bytes);
  struct Case {
    cl_bool normalized;
    cl_filter_mode filter;
    float x, want;
  };
  const Case cases[] = {{CL_FALSE, CL_FILTER_NEAREST, 1.2f, 3.0f}, {CL_FALSE, CL_FILTER_LINEAR, 1.0f, 2.0f},
                        {CL_FALSE, CL_FILTER_LINEAR, 0.75f, 1.5f}, {CL_TRUE, CL_FILTER_LINEAR, 0.5f, 2.0f},
                        {CL_TRUE, CL_FILTER_NEAREST, 0.25f, 1.0f}};
  for (const Case& c : cases) {
    cl_int err = CL_SUCCESS;
    cl_sampler smp = api().clCreateSampler(context_, c.normalized, CL_ADDRESS_CLAMP_TO_EDGE, c.filter, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_kernel k = kernel(p, "sample");
    const std::vector<float> at = {c.x, c.normalized ? 0.5f : 0.5f};
    cl_mem at_buf = buffer_of(at);
    cl_mem out = buffer(16);
    arg(k, 0, src);
    arg(k, 1, smp);
    arg(k, 2, at_buf);
    arg(k, 3, out);
    const size_t one = 1;
    ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
    const std::vector<float> got = read<float>(out, 4);
    EXPECT_EQ(got[0], c.want) << "x " << c.x << " normalized " << c.normalized << " filter " << c.filter;
    EXPECT_EQ(got[1], 0.0f);
    EXPECT_EQ(got[3], 1.0f);  // CL_R: alpha reads 1
    api().clReleaseSampler(smp);
  }
}

TEST_F(ImageKernels, IntegerImagesReadAndWriteUnconverted) {
  REQUIRE_COMPILER();
  cl_program p = build(kKernels);
  ASSERT_NE(p, nullptr);
  const cl_image_format f{CL_RGBA, CL_UNSIGNED_INT16};
  const Shape s{CL_MEM_OBJECT_IMAGE2D, 3, 2};
  cl_mem src = image(f, s, CL_MEM_READ_ONLY);
  cl_mem dst = image(f, s, CL_MEM_WRITE_ONLY);
  std::vector<uint16_t> texels(3 * 2 * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<uint16_t>(1000 * i + 7);
  std::vector<uint8_t> bytes(texels.size() * 2);
  std::memcpy(bytes.data(), texels.data(), bytes.size());
  write_image(src, {0, 0, 0}, whole(s), bytes);
  cl_kernel k = kernel(p, "ints");
  cl_mem out = buffer(6 * 16);
  arg(k, 0, src);
  arg(k, 1, dst);
  arg(k, 2, out);
  const size_t global[2] = {3, 2};
  ASSERT_EQ(run(k, 2, global, nullptr), CL_SUCCESS);
  const std::vector<cl_int> got = read<cl_int>(out, 24);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(got[i], static_cast<cl_int>(texels[i])) << i;
  const std::vector<uint8_t> written = read_image(dst, {0, 0, 0}, whole(s), 8);
  std::vector<uint16_t> w(24);
  std::memcpy(w.data(), written.data(), 48);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(w[i], static_cast<uint16_t>(texels[i] + 1 + i % 4)) << i;
}

TEST_F(ImageKernels, QueriesThreeDimensionalAndArrayImages) {
  REQUIRE_COMPILER();
  cl_program p = build(kKernels);
  ASSERT_NE(p, nullptr);
  const cl_image_format f{CL_RGBA, CL_FLOAT};
  const Shape vs{CL_MEM_OBJECT_IMAGE3D, 3, 2, 2};
  const Shape as{CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 3};
  cl_mem vol = image(f, vs, CL_MEM_READ_ONLY);
  cl_mem arr = image(f, as, CL_MEM_READ_ONLY);
  std::vector<float> v(3 * 2 * 2 * 4), a(4 * 3 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.5f * static_cast<float>(i);
  std::vector<uint8_t> vb(v.size() * 4), ab(a.size() * 4);
  std::memcpy(vb.data(), v.data(), vb.size());
  std::memcpy(ab.data(), a.data(), ab.size());
  write_image(vol, {0, 0, 0}, whole(vs), vb);
  write_image(arr, {0, 0, 0}, whole(as), ab);

  cl_kernel q = kernel(p, "queries");
  cl_mem out = buffer(7 * 4);
  arg(q, 0, vol);
  arg(q, 1, arr);
  arg(q, 2, out);
  const size_t one = 1;
  ASSERT_EQ(run(q, 1, &one, &one), CL_SUCCESS);
  const std::vector<cl_int> got = read<cl_int>(out, 7);
  EXPECT_EQ(got[0], 3);
  EXPECT_EQ(got[1], 2);
  EXPECT_EQ(got[2], 2);
  EXPECT_EQ(got[3], CL_RGBA);
  EXPECT_EQ(got[4], CL_FLOAT);
  EXPECT_EQ(got[5], 4);
  EXPECT_EQ(got[6], 3);

  cl_kernel k = kernel(p, "volume");
  cl_mem vout = buffer(v.size() * 4);
  arg(k, 0, vol);
  arg(k, 1, vout);
  const size_t g3[3] = {3, 2, 2};
  ASSERT_EQ(run(k, 3, g3, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<float>(vout, v.size()), v);

  cl_kernel l = kernel(p, "layers");
  cl_mem aout = buffer(a.size() * 4);
  arg(l, 0, arr);
  arg(l, 1, aout);
  const size_t g2[2] = {4, 3};
  ASSERT_EQ(run(l, 2, g2, nullptr), CL_SUCCESS);
  EXPECT_EQ(read<float>(aout, a.size()), a);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
