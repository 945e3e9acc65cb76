// Image kernels end to end: OpenCL C image built-ins compiled by gsgpu's compiler, run on the
// shader cores' texture unit through the runtime's image objects and samplers. Every expected
// texel is computed here, independently of the texture unit: the OpenCL C 1.2 rules of section
// 8.2 (addressing, nearest and linear filtering) and 8.3 (conversions). Coordinates are chosen so
// every filter weight is a multiple of 1/4 and every texel a small integer: the exact result does
// not depend on the order of the float operations, and the test compares for equality.
#include <cmath>

#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using ImageKernelTest = ImageFixture;
using Texel = std::array<float, 4>;

constexpr cl_image_format kRgbaFloat = {CL_RGBA, CL_FLOAT};
constexpr cl_image_format kRgbaUnorm8 = {CL_RGBA, CL_UNORM_INT8};

// ---- the reference (OpenCL C 1.2 section 8.2) ----

// Texel indices along one axis and the linear weight of the second: i < 0 or i >= n is outside
// the image (the border colour under CL_ADDRESS_CLAMP).
struct Axis {
  int i0 = 0, i1 = 0;
  float a = 0;
};

Axis address(float c, int n, bool normalized, cl_addressing_mode mode, bool linear) {
  float u = normalized ? c * n : c;
  if (mode == CL_ADDRESS_REPEAT) u = (c - std::floor(c)) * n;
  if (mode == CL_ADDRESS_MIRRORED_REPEAT) u = std::fabs(c - 2.0f * std::rint(0.5f * c)) * n;
  const bool clamp_edge = mode == CL_ADDRESS_CLAMP_TO_EDGE || mode == CL_ADDRESS_NONE;
  if (!linear) {
    int i = static_cast<int>(std::floor(u));
    if (mode == CL_ADDRESS_REPEAT && i > n - 1) i -= n;
    if (mode == CL_ADDRESS_MIRRORED_REPEAT) i = std::min(i, n - 1);
    if (clamp_edge) i = std::clamp(i, 0, n - 1);
    return {i, i, 0};
  }
  Axis r;
  r.i0 = static_cast<int>(std::floor(u - 0.5f));
  r.i1 = r.i0 + 1;
  r.a = (u - 0.5f) - std::floor(u - 0.5f);
  if (mode == CL_ADDRESS_REPEAT) {
    if (r.i0 < 0) r.i0 += n;
    if (r.i1 > n - 1) r.i1 -= n;
  }
  if (mode == CL_ADDRESS_MIRRORED_REPEAT) r.i0 = std::max(r.i0, 0), r.i1 = std::min(r.i1, n - 1);
  if (clamp_edge) r.i0 = std::clamp(r.i0, 0, n - 1), r.i1 = std::clamp(r.i1, 0, n - 1);
  return r;
}

// A float RGBA image held on the host: texel (x, y, z) = value(x, y, z).
struct HostImage {
  int w = 1, h = 1, d = 1;
  std::vector<Texel> texels;
  static Texel value(int x, int y, int z) {
    return {float(x + 10 * y + 100 * z), float(x * y - z), float(-x), float(1 + y + 2 * z)};
  }
  HostImage(int w_, int h_, int d_) : w(w_), h(h_), d(d_) {
    for (int z = 0; z < d; ++z)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) texels.push_back(value(x, y, z));
  }
  Texel at(int x, int y, int z) const {
    if (x < 0 || x >= w || y < 0 || y >= h || z < 0 || z >= d) return {0, 0, 0, 0};  // RGBA border
    return texels[(size_t(z) * h + y) * w + x];
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(texels.size() * sizeof(Texel));
    std::memcpy(b.data(), texels.data(), b.size());
    return b;
  }
};

Texel mix(const Texel& p, const Texel& q, float a) {
  Texel r;
  for (int c = 0; c < 4; ++c) r[c] = (1 - a) * p[c] + a * q[c];
  return r;
}

// read_imagef(image, sampler, coord) of a 1D / 2D / 3D image (`dims` coordinates used).
Texel sample(const HostImage& img, int dims, const float* coord, bool normalized, cl_addressing_mode mode, bool linear) {
  const int size[3] = {img.w, img.h, img.d};
  Axis ax[3];
  for (int i = 0; i < 3; ++i) ax[i] = i < dims ? address(coord[i], size[i], normalized, mode, linear) : Axis{};
  if (!linear) return img.at(ax[0].i0, ax[1].i0, ax[2].i0);
  auto plane = [&](int z) {
    const Texel low = mix(img.at(ax[0].i0, ax[1].i0, z), img.at(ax[0].i1, ax[1].i0, z), ax[0].a);
    if (dims < 2) return low;
    return mix(low, mix(img.at(ax[0].i0, ax[1].i1, z), img.at(ax[0].i1, ax[1].i1, z), ax[0].a), ax[1].a);
  };
  if (dims < 3) return plane(0);
  return mix(plane(ax[2].i0), plane(ax[2].i1), ax[2].a);
}

// ---- helpers ----

class ImageKernelReference : public ImageKernelTest {
 protected:
  cl_sampler sampler(bool normalized, cl_addressing_mode mode, cl_filter_mode filter) {
    cl_int err = CL_SUCCESS;
    cl_sampler s = api().clCreateSampler(context_, normalized, mode, filter, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    samplers_.push_back(s);
    return s;
  }
  void TearDown() override {
    for (cl_sampler s : samplers_) api().clReleaseSampler(s);
    ImageKernelTest::TearDown();
  }
  // Runs `k` over `items` work-items (n by default) and returns n float4 results from argument
  // `out_index`.
  std::vector<Texel> run_texels(cl_kernel k, cl_uint out_index, size_t n, size_t items = 0) {
    cl_mem out = buffer(n * sizeof(Texel));
    arg(k, out_index, out);
    const size_t local = 1, global = items ? items : n;
    EXPECT_EQ(run(k, 1, &global, &local), CL_SUCCESS);
    std::vector<Texel> r(n);
    EXPECT_EQ(api().clEnqueueReadBuffer(queue_, out, CL_TRUE, 0, n * sizeof(Texel), r.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    return r;
  }
  std::vector<cl_sampler> samplers_;
};

std::string show(const Texel& t) {
  return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ", " +
         std::to_string(t[3]) + ")";
}

constexpr char kSampleProgram[] = R"(
  kernel void sample1d(read_only image1d_t img, sampler_t s, global const float4* c, global float4* out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, c[i].x);
  }
  kernel void sample2d(read_only image2d_t img, sampler_t s, global const float4* c, global float4* out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, c[i].xy);
  }
  kernel void sample3d(read_only image3d_t img, sampler_t s, global const float4* c, global float4* out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, c[i]);
  }
  kernel void fetch2d(read_only image2d_t img, sampler_t s, global const int4* c, global float4* out) {
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, c[i].xy);
  }
)";

// Coordinates along one axis of n texels: u = k * n / 16 texels, so both u and the normalised
// k / 16 are exact floats and every weight a multiple of 1/16; inside the image (u in [0.5, n -
// 0.5]) or reaching two extents past each side.
std::vector<float> axis_coordinates(int n, bool normalized, bool inside_only) {
  std::vector<float> v;
  for (int k = -32; k <= 32; k += inside_only ? 1 : 3) {
    const float u = float(k * n) / 16;
    if (inside_only && (u < 0.5f || u > n - 0.5f)) continue;
    v.push_back(normalized ? float(k) / 16 : u);
  }
  return v;
}

// Every addressing mode x filter x normalisation OpenCL allows, on a 2D image (and the 1D / 3D
// axes through sample1d / sample3d below).
TEST_F(ImageKernelReference, Sample2DEverySamplerMode) {
  REQUIRE_COMPILER();
  const HostImage host(5, 4, 1);
  cl_mem img = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D, 5, 4});
  write_image(img, {0, 0, 0}, {5, 4, 1}, host.bytes());
  cl_program p = build(kSampleProgram);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "sample2d");
  for (bool normalized : {false, true}) {
    for (cl_addressing_mode mode : {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                    CL_ADDRESS_MIRRORED_REPEAT}) {
      if (!normalized && (mode == CL_ADDRESS_REPEAT || mode == CL_ADDRESS_MIRRORED_REPEAT)) continue;
      for (cl_filter_mode filter : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
        const bool inside = mode == CL_ADDRESS_NONE;  // out of range is undefined
        std::vector<cl_float4> coords;
        for (float x : axis_coordinates(5, normalized, inside))
          for (float y : axis_coordinates(4, normalized, inside)) coords.push_back({{x, y, 0, 0}});
        cl_mem c = buffer(coords.size() * sizeof(cl_float4), coords.data());
        cl_sampler s = sampler(normalized, mode, filter);
        arg(k, 0, img);
        arg(k, 1, s);
        arg(k, 2, c);
        const std::vector<Texel> got = run_texels(k, 3, coords.size());
        for (size_t i = 0; i < coords.size(); ++i) {
          const Texel want = sample(host, 2, coords[i].s, normalized, mode, filter == CL_FILTER_LINEAR);
          ASSERT_EQ(got[i], want) << "normalized " << normalized << " mode " << std::hex << mode << " filter " << filter
                                  << std::dec << " at (" << coords[i].s[0] << ", " << coords[i].s[1] << "): got "
                                  << show(got[i]) << ", want " << show(want);
        }
      }
    }
  }
}

TEST_F(ImageKernelReference, Sample1DAnd3D) {
  REQUIRE_COMPILER();
  cl_program p = build(kSampleProgram);
  ASSERT_NE(p, nullptr);
  const HostImage line(7, 1, 1), volume(3, 4, 5);
  cl_mem i1 = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE1D, 7});
  write_image(i1, {0, 0, 0}, {7, 1, 1}, line.bytes());
  cl_mem i3 = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE3D, 3, 4, 5});
  write_image(i3, {0, 0, 0}, {3, 4, 5}, volume.bytes());
  for (cl_addressing_mode mode : {CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT}) {
    for (cl_filter_mode filter : {CL_FILTER_NEAREST, CL_FILTER_LINEAR}) {
      const bool normalized = mode == CL_ADDRESS_REPEAT;
      cl_sampler s = sampler(normalized, mode, filter);
      std::vector<cl_float4> c1, c3;
      for (float x : axis_coordinates(7, normalized, false)) c1.push_back({{x, 0, 0, 0}});
      for (float x : axis_coordinates(3, normalized, false))
        for (float y : axis_coordinates(4, normalized, false))
          for (float z : axis_coordinates(5, normalized, false)) c3.push_back({{x, y, z, 7.0f}});  // w is ignored
      for (auto [name, img, host, dims, coords] :
           {std::tuple{"sample1d", i1, &line, 1, &c1}, std::tuple{"sample3d", i3, &volume, 3, &c3}}) {
        cl_kernel k = kernel(p, name);
        cl_mem c = buffer(coords->size() * sizeof(cl_float4), coords->data());
        arg(k, 0, img);
        arg(k, 1, s);
        arg(k, 2, c);
        const std::vector<Texel> got = run_texels(k, 3, coords->size());
        for (size_t i = 0; i < coords->size(); ++i) {
          const Texel want = sample(*host, dims, (*coords)[i].s, normalized, mode, filter == CL_FILTER_LINEAR);
          ASSERT_EQ(got[i], want) << name << " mode " << std::hex << mode << " filter " << filter << std::dec << " at ("
                                  << (*coords)[i].s[0] << ", " << (*coords)[i].s[1] << ", " << (*coords)[i].s[2]
                                  << "): got " << show(got[i]) << ", want " << show(want);
        }
      }
    }
  }
}

// read_imagef(image, sampler, int2): the sampler's addressing on integer texel coordinates.
TEST_F(ImageKernelReference, IntegerCoordinatesThroughASampler) {
  REQUIRE_COMPILER();
  const HostImage host(4, 3, 1);
  cl_mem img = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 3});
  write_image(img, {0, 0, 0}, {4, 3, 1}, host.bytes());
  cl_program p = build(kSampleProgram);
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "fetch2d");
  std::vector<cl_int4> coords;
  for (int x = -2; x <= 5; ++x)
    for (int y = -2; y <= 4; ++y) coords.push_back({{x, y, 0, 0}});
  cl_mem c = buffer(coords.size() * sizeof(cl_int4), coords.data());
  for (cl_addressing_mode mode : {CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP}) {
    cl_sampler s = sampler(false, mode, CL_FILTER_NEAREST);
    arg(k, 0, img);
    arg(k, 1, s);
    arg(k, 2, c);
    const std::vector<Texel> got = run_texels(k, 3, coords.size());
    for (size_t i = 0; i < coords.size(); ++i) {
      int x = coords[i].s[0], y = coords[i].s[1];
      if (mode == CL_ADDRESS_CLAMP_TO_EDGE) x = std::clamp(x, 0, 3), y = std::clamp(y, 0, 2);
      ASSERT_EQ(got[i], host.at(x, y, 0)) << "mode " << std::hex << mode << std::dec << " at (" << coords[i].s[0]
                                          << ", " << coords[i].s[1] << "): got " << show(got[i]);
    }
  }
}

// Arrays: the layer is a coordinate of its own, rounded and clamped, never filtered or wrapped.
TEST_F(ImageKernelReference, ArrayLayersAreRoundedAndClamped) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void layers2d(read_only image2d_array_t img, sampler_t s, global const float4* c, global float4* out) {
      int i = get_global_id(0);
      out[i] = read_imagef(img, s, c[i]);
    }
    kernel void layers1d(read_only image1d_array_t img, sampler_t s, global const float4* c, global float4* out) {
      int i = get_global_id(0);
      out[i] = read_imagef(img, s, c[i].xy);
    })");
  ASSERT_NE(p, nullptr);
  const HostImage planes(4, 2, 3);  // 2D array: 3 layers of 4x2; 1D array: 2 layers of 4 (planes' z = 0)
  cl_mem a2 = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 2, 0, 3});
  write_image(a2, {0, 0, 0}, {4, 2, 3}, planes.bytes());
  const HostImage rows(4, 2, 1);
  cl_mem a1 = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 2});
  write_image(a1, {0, 0, 0}, {4, 2, 1}, rows.bytes());
  cl_sampler s = sampler(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR);
  const std::vector<float> layers = {-3.0f, -0.4f, 0.0f, 0.49f, 0.51f, 1.5f, 2.5f, 7.0f};
  std::vector<cl_float4> c2, c1;
  for (float layer : layers) {
    c2.push_back({{1.75f, 1.25f, layer, 0}});
    c1.push_back({{2.25f, layer, 0, 0}});
  }
  auto layer_of = [](float l, int n) { return std::clamp(static_cast<int>(std::rint(l)), 0, n - 1); };
  cl_kernel k2 = kernel(p, "layers2d");
  arg(k2, 0, a2);
  arg(k2, 1, s);
  arg(k2, 2, buffer(c2.size() * sizeof(cl_float4), c2.data()));
  const std::vector<Texel> got2 = run_texels(k2, 3, c2.size());
  cl_kernel k1 = kernel(p, "layers1d");
  arg(k1, 0, a1);
  arg(k1, 1, s);
  arg(k1, 2, buffer(c1.size() * sizeof(cl_float4), c1.data()));
  const std::vector<Texel> got1 = run_texels(k1, 3, c1.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    // One layer of a 2D array is a 2D image; the layer index picks the z of the host image.
    HostImage layer2(4, 2, 1), layer1(4, 1, 1);
    const int l2 = layer_of(layers[i], 3), l1 = layer_of(layers[i], 2);
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 4; ++x) layer2.texels[y * 4 + x] = planes.at(x, y, l2);
    for (int x = 0; x < 4; ++x) layer1.texels[x] = rows.at(x, l1, 0);
    const Texel want2 = sample(layer2, 2, c2[i].s, false, CL_ADDRESS_CLAMP_TO_EDGE, true);
    const Texel want1 = sample(layer1, 1, c1[i].s, false, CL_ADDRESS_CLAMP_TO_EDGE, true);
    EXPECT_EQ(got2[i], want2) << "layer " << layers[i] << ": " << show(got2[i]) << " want " << show(want2);
    EXPECT_EQ(got1[i], want1) << "layer " << layers[i] << ": " << show(got1[i]) << " want " << show(want1);
  }
}

// read_image* without a sampler and write_image*: a copy through a kernel of every image type
// (3D into a 2D array and into a 3D image: cl_khr_3d_image_writes) gives back the bytes written,
// and the floats the kernel saw are OpenCL's unorm conversion c / 255 (as c * (1 / 255)).
TEST_F(ImageKernelReference, CopyEveryImageTypeThroughAKernel) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void copy1d(read_only image1d_t src, write_only image1d_t dst) {
      int x = get_global_id(0); write_imagef(dst, x, read_imagef(src, x));
    }
    kernel void copy1db(read_only image1d_buffer_t src, write_only image1d_buffer_t dst) {
      int x = get_global_id(0); write_imagef(dst, x, read_imagef(src, x));
    }
    kernel void copy1da(read_only image1d_array_t src, write_only image1d_array_t dst) {
      int2 p = (int2)(get_global_id(0), get_global_id(1)); write_imagef(dst, p, read_imagef(src, p));
    }
    kernel void copy2d(read_only image2d_t src, write_only image2d_t dst, global float4* seen) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      float4 v = read_imagef(src, p);
      seen[p.y * get_global_size(0) + p.x] = v;
      write_imagef(dst, p, v);
    }
    kernel void copy2da(read_only image2d_array_t src, write_only image2d_array_t dst) {
      int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0); write_imagef(dst, p, read_imagef(src, p));
    }
    kernel void copy3d(read_only image3d_t src, write_only image2d_array_t dst) {
      int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 5); write_imagef(dst, p, read_imagef(src, p));
    }
    #pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
    kernel void copy3d3d(read_only image3d_t src, write_only image3d_t dst) {
      int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 9); write_imagef(dst, p, read_imagef(src, p));
    })");
  ASSERT_NE(p, nullptr);
  struct Case {
    const char* kernel;
    Shape src, dst;
  };
  cl_mem backing = buffer(9 * 4);
  const Case cases[] = {
      {"copy1d", {CL_MEM_OBJECT_IMAGE1D, 9}, {CL_MEM_OBJECT_IMAGE1D, 9}},
      {"copy1db", {CL_MEM_OBJECT_IMAGE1D_BUFFER, 9}, {CL_MEM_OBJECT_IMAGE1D_BUFFER, 9}},
      {"copy1da", {CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 0, 0, 3}, {CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 0, 0, 3}},
      {"copy2d", {CL_MEM_OBJECT_IMAGE2D, 9, 5}, {CL_MEM_OBJECT_IMAGE2D, 9, 5}},
      {"copy2da", {CL_MEM_OBJECT_IMAGE2D_ARRAY, 9, 5, 0, 3}, {CL_MEM_OBJECT_IMAGE2D_ARRAY, 9, 5, 0, 3}},
      {"copy3d", {CL_MEM_OBJECT_IMAGE3D, 9, 5, 3}, {CL_MEM_OBJECT_IMAGE2D_ARRAY, 9, 5, 0, 3}},
      {"copy3d3d", {CL_MEM_OBJECT_IMAGE3D, 9, 5, 3}, {CL_MEM_OBJECT_IMAGE3D, 9, 5, 3}},
  };
  for (const Case& c : cases) {
    cl_mem src, dst;
    if (c.src.type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      src = image(kRgbaUnorm8, desc_of(c.src, 0, 0, backing));
      dst = image(kRgbaUnorm8, desc_of(c.dst, 0, 0, buffer(9 * 4)));
    } else {
      src = image(kRgbaUnorm8, c.src);
      dst = image(kRgbaUnorm8, c.dst);
    }
    const std::array<size_t, 3> region = whole(c.src);
    const std::vector<uint8_t> bytes = random_bytes(pixels(c.src) * 4, 13);
    write_image(src, {0, 0, 0}, region, bytes);
    cl_kernel k = kernel(p, c.kernel);
    arg(k, 0, src);
    arg(k, 1, dst);
    cl_mem seen = nullptr;
    if (std::string(c.kernel) == "copy2d") {
      seen = buffer(pixels(c.src) * sizeof(Texel));
      arg(k, 2, seen);
    }
    const cl_uint dims = c.src.type == CL_MEM_OBJECT_IMAGE2D || c.src.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 2
                         : region[2] > 1                                                           ? 3
                                                                                                   : 1;
    const size_t local[3] = {1, 1, 1};
    ASSERT_EQ(run(k, dims, region.data(), local), CL_SUCCESS) << c.kernel;
    EXPECT_EQ(read_image(dst, {0, 0, 0}, region, 4), bytes) << c.kernel;
    if (seen) {
      const std::vector<float> floats = read<float>(seen, pixels(c.src) * 4);
      // c * (1 / 255), within 1.5 ulp of c / 255 as OpenCL asks (texel_format.cc: PoCL's floats).
      for (size_t i = 0; i < floats.size(); ++i) ASSERT_EQ(floats[i], bytes[i] * (1.0f / 255.0f)) << i;
    }
  }
}

// Integer formats: read_imagei / read_imageui return the stored integers (sign-extended), and
// write_imagei / write_imageui saturate to the channel type (section 8.3.3).
TEST_F(ImageKernelReference, IntegerTexelsAndSaturatingWrites) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void ints(read_only image2d_t s8, read_only image2d_t u16, global int4* si, global uint4* ui) {
      int2 p = (int2)(get_global_id(0), 0);
      si[p.x] = read_imagei(s8, p);
      ui[p.x] = read_imageui(u16, p);
    }
    kernel void saturate(write_only image2d_t s8, write_only image2d_t u16, global const int4* v) {
      int2 p = (int2)(get_global_id(0), 0);
      write_imagei(s8, p, v[p.x]);
      write_imageui(u16, p, as_uint4(v[p.x]));
    })");
  ASSERT_NE(p, nullptr);
  const cl_image_format s8 = {CL_RGBA, CL_SIGNED_INT8}, u16 = {CL_RGBA, CL_UNSIGNED_INT16};
  cl_mem a = image(s8, Shape{CL_MEM_OBJECT_IMAGE2D, 16, 1}), b = image(u16, Shape{CL_MEM_OBJECT_IMAGE2D, 16, 1});
  const std::vector<uint8_t> sbytes = random_bytes(16 * 4, 5), ubytes = random_bytes(16 * 8, 6);
  write_image(a, {0, 0, 0}, {16, 1, 1}, sbytes);
  write_image(b, {0, 0, 0}, {16, 1, 1}, ubytes);
  cl_kernel k = kernel(p, "ints");
  arg(k, 0, a);
  arg(k, 1, b);
  cl_mem si = buffer(16 * 16), ui = buffer(16 * 16);
  arg(k, 2, si);
  arg(k, 3, ui);
  const size_t n = 16, one = 1;
  ASSERT_EQ(run(k, 1, &n, &one), CL_SUCCESS);
  const std::vector<int32_t> got_s = read<int32_t>(si, 64);
  const std::vector<uint32_t> got_u = read<uint32_t>(ui, 64);
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(got_s[i], static_cast<int8_t>(sbytes[i])) << i;
    ASSERT_EQ(got_u[i], uint32_t(ubytes[2 * i] | ubytes[2 * i + 1] << 8)) << i;
  }

  std::vector<cl_int4> values;
  for (int i = 0; i < 16; ++i) values.push_back({{-1000 + 130 * i, i * 17 - 128, 1 << (2 * i), -i}});
  cl_kernel w = kernel(p, "saturate");
  arg(w, 0, a);
  arg(w, 1, b);
  arg(w, 2, buffer(values.size() * sizeof(cl_int4), values.data()));
  ASSERT_EQ(run(w, 1, &n, &one), CL_SUCCESS);
  const std::vector<uint8_t> got8 = read_image(a, {0, 0, 0}, {16, 1, 1}, 4);
  const std::vector<uint8_t> got16 = read_image(b, {0, 0, 0}, {16, 1, 1}, 8);
  for (size_t i = 0; i < 64; ++i) {
    const int32_t v = values[i / 4].s[i % 4];
    EXPECT_EQ(static_cast<int8_t>(got8[i]), std::clamp(v, -128, 127)) << i;
    // write_imageui takes the bits as unsigned: negative values are huge and saturate to 65535.
    const uint32_t u = static_cast<uint32_t>(v);
    EXPECT_EQ(uint32_t(got16[2 * i] | got16[2 * i + 1] << 8), std::min<uint32_t>(u, 65535)) << i;
  }
}

// read_write images (OpenCL C 2.0, __opencl_c_read_write_images in 3.0): each work-item reads its
// texel, writes a new value, fences the image and reads it back; a read_only image object is
// refused for a read_write argument.
TEST_F(ImageKernelReference, ReadWriteImagesSeeTheirOwnWrites) {
  REQUIRE_COMPILER();
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    cl_program p = build(R"(
      kernel void bump(read_write image2d_t img, global float4* before, global float4* after) {
        int2 c = (int2)(get_global_id(0), get_global_id(1));
        int i = c.y * get_image_width(img) + c.x;
        float4 v = read_imagef(img, c);
        before[i] = v;
        write_imagef(img, c, v * 2.0f + (float4)(1.0f, 0.5f, -1.0f, 0.25f));
        atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);
        after[i] = read_imagef(img, c);
      })", std);
    ASSERT_NE(p, nullptr) << std;
    const HostImage host(8, 4, 1);
    cl_mem img = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D, 8, 4});
    write_image(img, {0, 0, 0}, {8, 4, 1}, host.bytes());
    cl_kernel k = kernel(p, "bump");
    arg(k, 0, img);
    cl_mem before = buffer(32 * sizeof(Texel)), after = buffer(32 * sizeof(Texel));
    arg(k, 1, before);
    arg(k, 2, after);
    const size_t global[2] = {8, 4}, local[2] = {4, 2};
    ASSERT_EQ(run(k, 2, global, local), CL_SUCCESS);
    const std::vector<float> got_before = read<float>(before, 32 * 4), got_after = read<float>(after, 32 * 4);
    const std::vector<uint8_t> final_bytes = read_image(img, {0, 0, 0}, {8, 4, 1}, sizeof(Texel));
    std::vector<float> final_texels(32 * 4);
    std::memcpy(final_texels.data(), final_bytes.data(), final_bytes.size());
    const float bump[4] = {1.0f, 0.5f, -1.0f, 0.25f};
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 8; ++x)
        for (int c = 0; c < 4; ++c) {
          const size_t i = size_t(y * 8 + x) * 4 + c;
          const float v = HostImage::value(x, y, 0)[c];
          ASSERT_EQ(got_before[i], v) << std << " " << x << "," << y;
          ASSERT_EQ(got_after[i], v * 2.0f + bump[c]) << std << " " << x << "," << y;
          ASSERT_EQ(final_texels[i], v * 2.0f + bump[c]) << std << " " << x << "," << y;
        }
    cl_mem read_only = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D, 8, 4}, CL_MEM_READ_ONLY);
    EXPECT_EQ(api().clSetKernelArg(k, 0, sizeof read_only, &read_only), CL_INVALID_ARG_VALUE);
  }
}

// get_image_* against the image objects' own properties and OpenCL's enumerants.
TEST_F(ImageKernelReference, QueriesMatchTheImageObjects) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void q2da(read_only image2d_array_t i, global long* o) {
      o[0] = get_image_width(i); o[1] = get_image_height(i); o[2] = get_image_array_size(i);
      int2 d = get_image_dim(i); o[3] = d.x; o[4] = d.y;
      o[5] = get_image_channel_order(i); o[6] = get_image_channel_data_type(i);
    }
    kernel void q3d(read_only image3d_t i, global long* o) {
      o[0] = get_image_width(i); o[1] = get_image_height(i); o[2] = get_image_depth(i);
      int4 d = get_image_dim(i); o[3] = d.x; o[4] = d.y; o[5] = d.z; o[6] = d.w;
      o[7] = get_image_channel_order(i); o[8] = get_image_channel_data_type(i);
    }
    kernel void q1d(read_only image1d_array_t a, read_only image1d_buffer_t b, global long* o) {
      o[0] = get_image_width(a); o[1] = get_image_array_size(a); o[2] = get_image_width(b);
      o[3] = get_image_channel_order(b); o[4] = get_image_channel_data_type(b);
    })");
  ASSERT_NE(p, nullptr);
  const size_t one = 1;
  cl_mem out = buffer(16 * sizeof(cl_long));
  cl_mem a2 = image({CL_BGRA, CL_UNORM_INT8}, Shape{CL_MEM_OBJECT_IMAGE2D_ARRAY, 7, 5, 0, 3});
  cl_kernel k = kernel(p, "q2da");
  arg(k, 0, a2);
  arg(k, 1, out);
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_long>(out, 7), (std::vector<cl_long>{7, 5, 3, 7, 5, CL_BGRA, CL_UNORM_INT8}));
  cl_mem v = image({CL_R, CL_FLOAT}, Shape{CL_MEM_OBJECT_IMAGE3D, 6, 4, 2});
  k = kernel(p, "q3d");
  arg(k, 0, v);
  arg(k, 1, out);
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_long>(out, 9), (std::vector<cl_long>{6, 4, 2, 6, 4, 2, 0, CL_R, CL_FLOAT}));
  cl_mem a1 = image({CL_RG, CL_SIGNED_INT16}, Shape{CL_MEM_OBJECT_IMAGE1D_ARRAY, 11, 0, 0, 4});
  cl_mem b = image({CL_RGBA, CL_UNSIGNED_INT32}, desc_of(Shape{CL_MEM_OBJECT_IMAGE1D_BUFFER, 5}, 0, 0, buffer(5 * 16)));
  k = kernel(p, "q1d");
  arg(k, 0, a1);
  arg(k, 1, b);
  arg(k, 2, out);
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_long>(out, 5), (std::vector<cl_long>{11, 4, 5, CL_RGBA, CL_UNSIGNED_INT32}));
}

// A 1D buffer image's texels are its buffer's bytes: a kernel's writes show in the buffer.
TEST_F(ImageKernelReference, BufferImageWritesReachTheBuffer) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    kernel void fill(write_only image1d_buffer_t img) {
      uint x = get_global_id(0);
      write_imageui(img, x, (uint4)(x, x * 2, 255 - x, 7));
    })");
  ASSERT_NE(p, nullptr);
  cl_mem backing = buffer(32 * 4);
  cl_mem img = image({CL_RGBA, CL_UNSIGNED_INT8}, desc_of(Shape{CL_MEM_OBJECT_IMAGE1D_BUFFER, 32}, 0, 0, backing),
                     CL_MEM_WRITE_ONLY);
  cl_kernel k = kernel(p, "fill");
  arg(k, 0, img);
  const size_t n = 32, local = 8;
  ASSERT_EQ(run(k, 1, &n, &local), CL_SUCCESS);
  const std::vector<uint8_t> bytes = read<uint8_t>(backing, 32 * 4);
  for (uint32_t x = 0; x < 32; ++x) {
    EXPECT_EQ(bytes[4 * x], x);
    EXPECT_EQ(bytes[4 * x + 1], 2 * x);
    EXPECT_EQ(bytes[4 * x + 2], 255 - x);
    EXPECT_EQ(bytes[4 * x + 3], 7);
  }
}

// sampler_t literals in the program (OpConstantSampler) sample as the equal sampler object does.
TEST_F(ImageKernelReference, SamplerLiteralsMatchSamplerObjects) {
  REQUIRE_COMPILER();
  cl_program p = build(R"(
    const sampler_t wrap = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    kernel void literal(read_only image2d_t img, global const float4* c, global float4* out) {
      const sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
      int i = get_global_id(0);
      out[2 * i] = read_imagef(img, wrap, c[i].xy);
      out[2 * i + 1] = read_imagef(img, border, c[i].zw);
    })");
  ASSERT_NE(p, nullptr);
  const HostImage host(4, 4, 1);
  cl_mem img = image(kRgbaFloat, Shape{CL_MEM_OBJECT_IMAGE2D, 4, 4});
  write_image(img, {0, 0, 0}, {4, 4, 1}, host.bytes());
  std::vector<cl_float4> coords;
  for (float x = -1.0f; x <= 2.0f; x += 0.3125f) coords.push_back({{x, 1 - x, 4 * x, 3 - 2 * x}});
  cl_kernel k = kernel(p, "literal");
  arg(k, 0, img);
  arg(k, 1, buffer(coords.size() * sizeof(cl_float4), coords.data()));
  const std::vector<Texel> got = run_texels(k, 2, 2 * coords.size(), coords.size());
  for (size_t i = 0; i < coords.size(); ++i) {
    EXPECT_EQ(got[2 * i], sample(host, 2, coords[i].s, true, CL_ADDRESS_REPEAT, true)) << i << ": " << show(got[2 * i]);
    EXPECT_EQ(got[2 * i + 1], sample(host, 2, coords[i].s + 2, false, CL_ADDRESS_CLAMP, false))
        << i << ": " << show(got[2 * i + 1]);
  }
}

// Images are on by default; GSGPU_IMAGES=0 switches them off, GSGPU_IMAGES=1 on.
TEST(ImageSupportConfig, OnByDefaultAndGsgpuImagesSwitchesThem) {
  EXPECT_TRUE(gsgpu::cl::RuntimeConfig{}.image_support);
  const char* saved = std::getenv("GSGPU_IMAGES");
  const std::string before = saved ? saved : "";
  unsetenv("GSGPU_IMAGES");
  EXPECT_TRUE(gsgpu::cl::config_from_env().image_support);
  setenv("GSGPU_IMAGES", "0", 1);
  EXPECT_FALSE(gsgpu::cl::config_from_env().image_support);
  setenv("GSGPU_IMAGES", "1", 1);
  EXPECT_TRUE(gsgpu::cl::config_from_env().image_support);
  setenv("GSGPU_IMAGES", "yes", 1);  // not 0 or 1: the default stays
  EXPECT_TRUE(gsgpu::cl::config_from_env().image_support);
  if (saved)
    setenv("GSGPU_IMAGES", before.c_str(), 1);
  else
    unsetenv("GSGPU_IMAGES");
}

// With images, OpenCL C 3.0 programs have them too: CL_DEVICE_OPENCL_C_FEATURES lists
// __opencl_c_images and a -cl-std=CL3.0 image kernel builds and runs.
TEST_F(ImageKernelReference, OpenCLC30HasImages) {
  REQUIRE_COMPILER();
  size_t size = 0;
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &size), CL_SUCCESS);
  std::vector<cl_name_version> features(size / sizeof(cl_name_version));
  ASSERT_EQ(api().clGetDeviceInfo(device_, CL_DEVICE_OPENCL_C_FEATURES, size, features.data(), nullptr), CL_SUCCESS);
  bool images = false;
  for (const cl_name_version& f : features) images |= std::string(f.name) == "__opencl_c_images";
  EXPECT_TRUE(images);
  cl_program p = build(R"(
    kernel void width(read_only image2d_t img, global int* out) {
    #if defined(__opencl_c_images) && defined(__IMAGE_SUPPORT__)
      out[0] = get_image_width(img);
    #endif
    })", "-cl-std=CL3.0");
  ASSERT_NE(p, nullptr);
  cl_kernel k = kernel(p, "width");
  cl_mem img = image(kRgbaUnorm8, Shape{CL_MEM_OBJECT_IMAGE2D, 13, 2});
  cl_mem out = buffer(4);
  arg(k, 0, img);
  arg(k, 1, out);
  const size_t one = 1;
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<cl_int>(out, 1)[0], 13);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
