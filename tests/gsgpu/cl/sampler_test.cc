// Sampler objects (gsgpu/cl/sampler.cc): created from arguments or a property list, queried,
// retained and released, refused with the spec's errors, and not at all without image support.
#include "tests/gsgpu/cl/image_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

using SamplerTest = ImageFixture;
using NoImageSamplerTest = GsgpuExecutorTest;

TEST_F(SamplerTest, ASamplerReportsWhatItWasMadeWith) {
  cl_int err = CL_SUCCESS;
  cl_sampler s = api().clCreateSampler(context_, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(sampler_info<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS), CL_FALSE);
  EXPECT_EQ(sampler_info<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE), cl_addressing_mode(CL_ADDRESS_CLAMP_TO_EDGE));
  EXPECT_EQ(sampler_info<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE), cl_filter_mode(CL_FILTER_LINEAR));
  EXPECT_EQ(sampler_info<cl_context>(s, CL_SAMPLER_CONTEXT), context_);
  EXPECT_EQ(sampler_info<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 1u);
  size_t size = 1;
  EXPECT_EQ(api().clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, nullptr, &size), CL_SUCCESS);
  EXPECT_EQ(size, 0u);  // made without a property list
  EXPECT_EQ(api().clRetainSampler(s), CL_SUCCESS);
  EXPECT_EQ(sampler_info<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 2u);
  EXPECT_EQ(api().clReleaseSampler(s), CL_SUCCESS);
  EXPECT_EQ(api().clGetSamplerInfo(s, 0x1234, sizeof size, &size, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(api().clReleaseSampler(s), CL_SUCCESS);
  // Released: no longer a sampler.
  EXPECT_EQ(api().clRetainSampler(s), CL_INVALID_SAMPLER);
  EXPECT_EQ(api().clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof size, &size, nullptr), CL_INVALID_SAMPLER);
}

TEST_F(SamplerTest, PropertyListsTakeEachPropertyOnce) {
  const cl_sampler_properties props[] = {CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT, CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_LINEAR, 0};
  cl_int err = CL_SUCCESS;
  cl_sampler s = api().clCreateSamplerWithProperties(context_, props, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(sampler_info<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS), CL_TRUE);  // the default
  EXPECT_EQ(sampler_info<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE), cl_addressing_mode(CL_ADDRESS_REPEAT));
  cl_sampler_properties got[8] = {};
  size_t size = 0;
  EXPECT_EQ(api().clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof got, got, &size), CL_SUCCESS);
  EXPECT_EQ(size, sizeof props);
  EXPECT_EQ(std::memcmp(got, props, sizeof props), 0);
  api().clReleaseSampler(s);
  // Defaults for an empty or missing list.
  s = api().clCreateSamplerWithProperties(context_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(sampler_info<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE), cl_addressing_mode(CL_ADDRESS_CLAMP));
  EXPECT_EQ(sampler_info<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE), cl_filter_mode(CL_FILTER_NEAREST));
  api().clReleaseSampler(s);
  const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_NEAREST, 0};
  const cl_sampler_properties unknown[] = {0x1234, 1, 0};
  const cl_sampler_properties bad_bool[] = {CL_SAMPLER_NORMALIZED_COORDS, 2, 0};
  const cl_sampler_properties bad_mode[] = {CL_SAMPLER_ADDRESSING_MODE, 0x1234, 0};
  for (const cl_sampler_properties* p : {twice, unknown, bad_bool, bad_mode}) {
    EXPECT_EQ(api().clCreateSamplerWithProperties(context_, p, &err), nullptr);
    EXPECT_EQ(err, CL_INVALID_VALUE);
  }
}

TEST_F(SamplerTest, BadArgumentsAreRefused) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clCreateSampler(nullptr, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_CONTEXT);
  EXPECT_EQ(api().clCreateSampler(context_, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clCreateSampler(context_, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, 0x1234, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(api().clReleaseSampler(nullptr), CL_INVALID_SAMPLER);
  // A handle of another kind is not a sampler.
  cl_mem buf = buffer(16);
  EXPECT_EQ(api().clRetainSampler(reinterpret_cast<cl_sampler>(buf)), CL_INVALID_SAMPLER);
}

TEST_F(NoImageSamplerTest, WithoutImageSupportNoSamplerIsMade) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(api().clCreateSampler(context_, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_OPERATION);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
