// Image built-ins in the code generator (lower_image.cc): each family of OpenCL C 1.2 image
// built-ins compiles to the texture unit's instructions with the operands docs/isa.md §8b gives
// them, sampler_t literals become the SAMPLER_STATE word, and what is not supported fails the
// build with a message naming the instruction (modules patched to hold it, since clang would
// not emit it).
#include <random>
#include <string>
#include <vector>

#include "gsgpu/compiler/spirv_module.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

const CompiledKernel* built(ClRunner& cl, const std::string& source, const std::string& name,
                            const std::string& options = "") {
  if (!cl.build(source, options)) return nullptr;
  const CompiledKernel* k = cl.program.find(name);
  EXPECT_NE(k, nullptr) << name;
  return k;
}

TEST(ImageCodegen, ReadsBecomeLoadFetchAndSample) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  const CompiledKernel* k = built(cl, R"(
    kernel void reads(read_only image2d_t img, sampler_t s, global float4* f, global int4* i, global uint4* u) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      float2 c = convert_float2(p) + 0.5f;
      f[0] = read_imagef(img, s, c);   // float coordinates: v_image_sample
      i[0] = read_imagei(img, s, p);   // integer coordinates through the sampler: v_image_fetch
      u[0] = read_imageui(img, p);     // no sampler: v_image_load
    })", "reads");
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  // The image is the argument's scalar pair, the sampler the low half of its slot's pair.
  EXPECT_EQ(count_lines(s, R"(v_image_sample v\[\d+:\d+\], s\[2:3\], v\[\d+:\d+\], s4 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_fetch v\[\d+:\d+\], s\[2:3\], v\[\d+:\d+\], s4 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_load v\[\d+:\d+\], s\[2:3\], v\[\d+:\d+\] +;)"), 1u) << s;
  EXPECT_EQ(k->args[0].kind, ArgKind::kImage);
  EXPECT_EQ(k->args[1].kind, ArgKind::kSampler);
}

// CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST is 0x124 (docs/compiler.md);
// normalised + repeat + linear is 1 | 3 << 1 | 3 << 4 | 3 << 7 | 1 << 10 | 1 << 11 = 0xdb7.
TEST(ImageCodegen, SamplerLiteralsAreTheSamplerStateWord) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  const CompiledKernel* k = built(cl, R"(
    const sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    kernel void literals(read_only image2d_t img, global float4* out) {
      const sampler_t wrap = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
      const sampler_t mirror = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;
      const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
      const sampler_t none = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_LINEAR;
      int2 p = (int2)(get_global_id(0), 0);
      float2 c = (float2)(0.25f, 0.75f);
      out[0] = read_imagef(img, border, p);
      out[1] = read_imagef(img, wrap, c);
      out[2] = read_imagef(img, mirror, c);
      out[3] = read_imagef(img, edge, p);
      out[4] = read_imagef(img, none, c);
    })", "literals");
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, R"(v_image_fetch .*, 0x124 +;)"), 1u) << s;
  EXPECT_EQ(count_lines(s, R"(v_image_sample .*, 0xdb7 +;)"), 1u) << s;
  // mirrored repeat 4 in u, v, w; normalised; nearest: 1 | 4 << 1 | 4 << 4 | 4 << 7 = 0x249
  EXPECT_EQ(count_lines(s, R"(v_image_sample .*, 0x249 +;)"), 1u) << s;
  // clamp to edge 1: 1 << 1 | 1 << 4 | 1 << 7 = 0x92
  EXPECT_EQ(count_lines(s, R"(v_image_fetch .*, 0x92 +;)"), 1u) << s;
  // address none 0, linear: 1 << 10 | 1 << 11 = 0xc00
  EXPECT_EQ(count_lines(s, R"(v_image_sample .*, 0xc00 +;)"), 1u) << s;
}

TEST(ImageCodegen, WritesBecomeStores) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  const CompiledKernel* k = built(cl, R"(
    kernel void writes(write_only image2d_t f, write_only image1d_buffer_t b, write_only image1d_array_t a,
                       float4 colour) {
      int x = get_global_id(0);
      write_imagef(f, (int2)(x, 1), colour);
      write_imagei(b, x, (int4)(-1, 2, -3, 4));
      write_imageui(a, (int2)(x, 3), (uint4)(x, 5, 6, 7));
    })", "writes");
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  EXPECT_EQ(count_lines(s, R"(v_image_store s\[\d+:\d+\], v\[\d+:\d+\], v\[\d+:\d+\] +;)"), 3u) << s;
  EXPECT_EQ(k->args[0].image_access, ImageAccess::kWriteOnly);
  EXPECT_EQ(k->args[1].image_dim, ImageDim::k1DBuffer);
  EXPECT_EQ(k->args[2].image_dim, ImageDim::k1DArray);
}

TEST(ImageCodegen, QueriesReadTheDescriptor) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  const CompiledKernel* k = built(cl, R"(
    kernel void queries(read_only image2d_array_t a, read_only image3d_t t, read_only image1d_t o,
                        global int* out, global long* sizes) {
      out[0] = get_image_width(a);
      out[1] = get_image_height(a);
      sizes[0] = get_image_array_size(a);
      int4 d = get_image_dim(t);
      out[2] = d.x + d.y + d.z + d.w;
      out[3] = get_image_depth(t);
      out[4] = get_image_channel_order(o);
      out[5] = get_image_channel_data_type(o);
      out[6] = get_image_width(o);
    })", "queries");
  ASSERT_NE(k, nullptr);
  const std::string& s = k->assembly;
  for (const char* what : {"width", "height", "depth", "array_size", "channel_order", "data_type"})
    EXPECT_GE(count_lines(s, std::string(R"(v_image_query v\d+, s\[\d+:\d+\], 0x0, )") + what + " +;"), 1u) << what << "\n" << s;
  // array_size is a size_t: zero-extended to 64 bits.
  EXPECT_GE(count_lines(s, "v_zext_u64_u32"), 1u) << s;
}

// image1d, 1d_array, 1d_buffer, 2d, 2d_array, 3d, read and write, through helper functions (the
// image and sampler are values that calls pass on), and OpenCL C 2.0 read_write images.
TEST(ImageCodegen, EveryImageTypeCompiles) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(R"(
    float4 through(read_only image2d_t img, sampler_t s, float2 c) { return read_imagef(img, s, c); }
    kernel void all_types(read_only image1d_t i1, read_only image1d_array_t i1a, read_only image1d_buffer_t i1b,
                          read_only image2d_t i2, read_only image2d_array_t i2a, read_only image3d_t i3,
                          sampler_t s, global float4* out) {
      int x = get_global_id(0);
      out[0] = read_imagef(i1, s, (float)x) + read_imagef(i1, x);
      out[1] = read_imagef(i1a, s, (float2)(x, 1)) + read_imagef(i1a, (int2)(x, 1));
      out[2] = read_imagef(i1b, x);
      out[3] = through(i2, s, (float2)(x, 2)) + read_imagef(i2, (int2)(x, 2));
      out[4] = read_imagef(i2a, s, (float4)(x, 2, 3, 0)) + read_imagef(i2a, (int4)(x, 2, 3, 0));
      out[5] = read_imagef(i3, s, (float4)(x, 2, 3, 0)) + read_imagef(i3, (int4)(x, 2, 3, 9));
    })"));
  EXPECT_EQ(count_lines(cl.assembly("all_types"), "v_image_sample"), 5u) << cl.assembly("all_types");
  EXPECT_EQ(count_lines(cl.assembly("all_types"), "v_image_load"), 6u) << cl.assembly("all_types");

  ClRunner rw;
  ASSERT_TRUE(rw.build(R"(
    kernel void rw(read_write image2d_t img) {
      int2 p = (int2)(get_global_id(0), 0);
      write_imageui(img, p, read_imageui(img, p) + 1);
    })", "-cl-std=CL2.0"));
  EXPECT_EQ(count_lines(rw.assembly("rw"), "v_image_load"), 1u) << rw.assembly("rw");
  EXPECT_EQ(count_lines(rw.assembly("rw"), "v_image_store"), 1u) << rw.assembly("rw");
}

// The front end offers images as the device does (CompileOptions::images, the runtime's
// RuntimeConfig::image_support): OpenCL C 3.0 needs the __opencl_c_images feature for image types;
// OpenCL C 1.2 always has them (a device without images still builds such kernels).
TEST(ImageCodegen, OpenCLC30ImagesFollowTheDevice) {
  GSGPU_REQUIRE_FRONT_END();
  const char* source = R"(
    kernel void k(read_only image2d_t img, sampler_t s, global float4* out) {
      out[0] = read_imagef(img, s, (int2)(1, 2));
    })";
  CompileOptions no_images;
  no_images.images = false;
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL3.0"}) {
    CompiledProgram program;
    std::string log;
    EXPECT_EQ(build_opencl_c(source, std, &program, &log), BuildStatus::kSuccess) << std << log;
    const BuildStatus without = build_opencl_c(source, std, &program, &log, no_images);
    if (std::string(std) == "-cl-std=CL3.0") {
      EXPECT_EQ(without, BuildStatus::kCompileError);
      EXPECT_NE(log.find("__opencl_c_images"), std::string::npos) << log;
    } else {
      EXPECT_EQ(without, BuildStatus::kSuccess) << log;
    }
  }
}

// With the smallest register file a store (two quads live at once) next to many other live
// values still compiles, spilling.
TEST(ImageCodegen, QuadsFitTheSmallestRegisterFile) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  CompileOptions options;
  options.max_vector_registers = 8;
  ASSERT_TRUE(cl.build(R"(
    kernel void pressure(write_only image2d_t img, global const float* in, global float* out) {
      int i = get_global_id(0);
      float a = in[i], b = in[i + 1], c = in[i + 2], d = in[i + 3], e = in[i + 4], f = in[i + 5];
      write_imagef(img, (int2)(i, 0), (float4)(a, b, c, d));
      out[i] = a * b + c * d + e * f;
    })", "", options));
  const CompiledKernel* k = cl.program.find("pressure");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->spilled_values, 0u);
  EXPECT_EQ(count_lines(k->assembly, R"(v_image_store s\[\d+:\d+\], v\[\d+:\d+\], v\[\d+:\d+\] +;)"), 1u) << k->assembly;
}

// ---- what is refused ----

std::vector<uint32_t> image_module(const std::string& source) {
  std::vector<uint32_t> spirv;
  std::string log;
  EXPECT_EQ(compile_opencl_c(source, "", &spirv, &log), BuildStatus::kSuccess) << log;
  return spirv;
}

// The first instruction with `opcode`: its first word's index (0 when there is none).
size_t find_instruction(const std::vector<uint32_t>& words, spv::Op opcode) {
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if ((words[at] & 0xffff) == static_cast<uint32_t>(opcode)) return at;
    if (count == 0) break;
    at += count;
  }
  return 0;
}

std::string patched_error(std::vector<uint32_t> words, spv::Op opcode, size_t word, uint32_t value) {
  const size_t at = find_instruction(words, opcode);
  EXPECT_NE(at, 0u) << "no " << static_cast<int>(opcode);
  if (at == 0) return "";
  words.at(at + word) = value;
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_spirv(words, &program, &error));
  return error;
}

constexpr const char* kLiteralSampler = R"(
  kernel void k(read_only image2d_t img, global float4* out) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    out[0] = read_imagef(img, s, (float2)(get_global_id(0), 0));
  })";

TEST(ImageCodegen, BadSamplerLiteralsAreRefused) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<uint32_t> words = image_module(kLiteralSampler);
  // OpConstantSampler: word 1 result type, 2 result, 3 addressing, 4 normalised, 5 filter.
  std::string e = patched_error(words, spv::Op::OpConstantSampler, 3, 7);
  EXPECT_NE(e.find("addressing mode 7"), std::string::npos) << e;
  e = patched_error(words, spv::Op::OpConstantSampler, 4, 2);
  EXPECT_NE(e.find("normalised-coordinates flag 2"), std::string::npos) << e;
  e = patched_error(words, spv::Op::OpConstantSampler, 5, 1u << 31);
  EXPECT_NE(e.find("filter mode"), std::string::npos) << e;
}

TEST(ImageCodegen, UnsupportedImageShapesAreRefused) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<uint32_t> words = image_module(kLiteralSampler);
  // OpTypeImage: word 1 result, 2 sampled type, 3 Dim, 4 Depth, 5 Arrayed, 6 MS.
  std::string e = patched_error(words, spv::Op::OpTypeImage, 3, static_cast<uint32_t>(spv::Dim::Cube));
  EXPECT_NE(e.find("image dimension 3 is not supported"), std::string::npos) << e;
  e = patched_error(words, spv::Op::OpTypeImage, 6, 1);
  // A kernel's multisampled image: only a graphics shader's 2D (array) ones are read (texelFetch).
  EXPECT_NE(e.find("multisampled images other than a graphics shader's 2D ones are not supported"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("OpSampledImage"), std::string::npos) << e;  // names the instruction
}

TEST(ImageCodegen, UnsupportedImageInstructionsNameThemselves) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<uint32_t> words = image_module(kLiteralSampler);
  // OpImageSampleExplicitLod -> OpImageSampleImplicitLod (graphics only: a LOD from derivatives).
  const size_t at = find_instruction(words, spv::Op::OpImageSampleExplicitLod);
  ASSERT_NE(at, 0u);
  std::string e = patched_error(words, spv::Op::OpImageSampleExplicitLod, 0,
                                (words[at] & 0xffff0000u) | static_cast<uint32_t>(spv::Op::OpImageSampleImplicitLod));
  EXPECT_NE(e.find("OpImageSampleImplicitLod"), std::string::npos) << e;
  EXPECT_NE(e.find("not supported"), std::string::npos) << e;
  // Image operands other than Lod (Grad = 4).
  e = patched_error(words, spv::Op::OpImageSampleExplicitLod, 5, 4);
  EXPECT_NE(e.find("other than an explicit Lod"), std::string::npos) << e;
}

// A hostile module's image instructions: random edits of a module using every image family
// either compile or fail with a message, never crash (types, operand counts, ids all mutated).
TEST(ImageCodegen, MutatedImageModulesNeverCrash) {
  GSGPU_REQUIRE_FRONT_END();
  const std::vector<uint32_t> base = image_module(R"(
    const sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    kernel void k(read_only image2d_array_t a, write_only image1d_buffer_t b, sampler_t t, global int* o) {
      int i = get_global_id(0);
      float4 v = read_imagef(a, s, (float4)(i, 1, 2, 0)) + read_imagef(a, t, (int4)(i, 1, 2, 0)) +
                 read_imagef(a, (int4)(i, 0, 1, 0));
      write_imagef(b, i, v);
      o[i] = get_image_width(a) + get_image_array_size(a) + get_image_channel_order(b);
    })");
  ASSERT_GT(base.size(), 5u);
  std::mt19937 rng(4321);
  int rejected = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint32_t> words = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 5 + rng() % (words.size() - 5);
      switch (rng() % 3) {
        case 0: words[at] ^= 1u << (rng() % 32); break;
        case 1: words[at] = rng() % 64; break;
        default: words[at] = (words[at] & 0xffff0000u) | (rng() % 400); break;
      }
    }
    CompiledProgram program;
    std::string error;
    if (!compile_spirv(words, &program, &error)) {
      ++rejected;
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_LT(rejected, 2000);  // some edits keep a valid module, which compiles
}

}  // namespace
}  // namespace gsgpu::compiler::testing
