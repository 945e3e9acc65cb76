// Compute shaders on gsgpu against lavapipe in one instance (issue 11 point 3, "compute shaders
// too"): the same pipelines, buffers and dispatches on both drivers (compute_fixture.h), and the
// output buffers compared byte for byte with each other and with the values computed here. Every
// result is an integer or a binary32 value that is exact (no rounding), so Vulkan fixes it.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "compute_fixture.h"
#include "shader_compute_bit_reverse_comp.h"
#include "shader_compute_prefix_sum_comp.h"
#include "shader_compute_reduce_comp.h"
#include "shader_compute_specialized_comp.h"
#include "shader_compute_transform_comp.h"
#include "shader_compute_write_args_comp.h"

namespace gsgpu::vk::test {
namespace {

using VkComputeReference = ComputeReferenceFixture;

// Small pseudo-random values, the same on both sides.
std::vector<uint32_t> values(size_t n, uint32_t seed, uint32_t mask) {
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = (seed = seed * 1664525u + 1013904223u) >> 8 & mask;
  return v;
}

constexpr VkDescriptorType kStorage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kUniform = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;

TEST_F(VkComputeReference, PrefixSumsWithSharedMemoryAndBarriersMatchLavapipe) {
  const uint32_t n = 1000;  // 16 groups of 64, the last one partial
  const std::vector<uint32_t> in = values(n, 7, 0xffff);
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    ComputeSide& c = *sides_[s];
    VkPipeline pipeline;
    ASSERT_EQ(c.pipeline(shader_compute_prefix_sum_comp, sizeof shader_compute_prefix_sum_comp, {kStorage, kStorage},
                         4, &pipeline),
              VK_SUCCESS);
    uint8_t *src = nullptr, *dst = nullptr;
    VkBuffer a = c.buffer(n * 4, &src), b = c.buffer(16 + n * 4, &dst);
    std::memcpy(src, in.data(), n * 4);
    std::memset(dst, 0xee, 16 + n * 4);
    std::memset(dst, 0, 4);  // the total
    VkDescriptorSet set = c.set({a, b});
    c.run(pipeline, set, [&](VkCommandBuffer cb) {
      vkCmdPushConstants(cb, c.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &n);
      vkCmdDispatch(cb, 16, 1, 1);
    });
    out[s].assign(dst, dst + 16 + n * 4);
  }
  EXPECT_EQ(out[0], out[1]);
  uint32_t total = 0, expected_total = 0;
  std::memcpy(&total, out[0].data(), 4);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t group_start = i / 64 * 64;
    const uint32_t want = std::accumulate(in.begin() + group_start, in.begin() + i + 1, 0u);
    uint32_t got = 0;
    std::memcpy(&got, out[0].data() + 16 + 4 * i, 4);
    ASSERT_EQ(got, want) << "element " << i;
    expected_total += in[i];
  }
  // Group 15's last invocation (index 1023) is past n: its scratch value is the group's whole sum.
  EXPECT_EQ(total, expected_total);
}

TEST_F(VkComputeReference, BufferTransformOverATwoDimensionalGridMatchesLavapipe) {
  const uint32_t width = 37, height = 19;
  struct Params {
    float scale, bias;
    uint32_t width, height;
  } params{2.0f, 0.5f, width, height};
  std::vector<float> in(width * height);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(int(i % 97) - 40);
  const size_t out_bytes = width * height * 8 + 16;
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    ComputeSide& c = *sides_[s];
    VkPipeline pipeline;
    ASSERT_EQ(c.pipeline(shader_compute_transform_comp, sizeof shader_compute_transform_comp,
                         {kUniform, kStorage, kStorage}, 0, &pipeline),
              VK_SUCCESS);
    uint8_t *u = nullptr, *src = nullptr, *dst = nullptr;
    VkBuffer ub = c.buffer(256, &u), a = c.buffer(in.size() * 4, &src), b = c.buffer(out_bytes, &dst);
    std::memcpy(u, &params, sizeof params);
    std::memcpy(src, in.data(), in.size() * 4);
    std::memset(dst, 0xcd, out_bytes);
    VkDescriptorSet set = c.set({ub, a, b});
    c.run(pipeline, set, [&](VkCommandBuffer cb) { vkCmdDispatch(cb, 5, 5, 1); });  // 40 x 20 invocations
    out[s].assign(dst, dst + out_bytes);
  }
  EXPECT_EQ(out[0], out[1]);
  for (uint32_t i = 0; i < width * height; ++i) {
    float v = 0;
    uint32_t bits = 0;
    std::memcpy(&v, out[0].data() + 16 + 8 * i, 4);
    std::memcpy(&bits, out[0].data() + 16 + 8 * i + 4, 4);
    ASSERT_EQ(v, in[i] * 2.0f + 0.5f) << i;
    ASSERT_EQ(bits, (i << 8) ^ (i / width / 4)) << i;
  }
  uint32_t shape[4];
  std::memcpy(shape, out[0].data(), 16);
  EXPECT_EQ(shape[0], 5u);
  EXPECT_EQ(shape[1], 5u);
  EXPECT_EQ(shape[2], 1u);
  EXPECT_EQ(shape[3], 32u);
}

// Runs compute_reduce.comp over `groups` x 128 values with `record` (a dispatch of some kind);
// returns the partial-results buffer (64 uvec4, 0xab where nothing was written).
std::vector<uint8_t> reduce(ComputeSide& c, const std::vector<uint32_t>& in,
                            const std::function<void(ComputeSide&, VkCommandBuffer)>& record,
                            VkPipelineCreateFlags flags = 0) {
  VkPipeline pipeline;
  EXPECT_EQ(c.pipeline(shader_compute_reduce_comp, sizeof shader_compute_reduce_comp, {kStorage, kStorage}, 0,
                       &pipeline, flags),
            VK_SUCCESS);
  uint8_t *src = nullptr, *dst = nullptr;
  VkBuffer a = c.buffer(in.size() * 4, &src), b = c.buffer(64 * 16, &dst);
  std::memcpy(src, in.data(), in.size() * 4);
  std::memset(dst, 0xab, 64 * 16);
  VkDescriptorSet set = c.set({a, b});
  c.run(pipeline, set, [&](VkCommandBuffer cb) { record(c, cb); });
  return {dst, dst + 64 * 16};
}

// The expected uvec4 of group g: sum, maximum, id, group count.
void expect_partial(const std::vector<uint8_t>& out, const std::vector<uint32_t>& in, uint32_t g, uint32_t groups) {
  uint32_t got[4];
  std::memcpy(got, out.data() + 16 * g, 16);
  const auto first = in.begin() + 128 * g;
  EXPECT_EQ(got[0], std::accumulate(first, first + 128, 0u)) << "group " << g;
  EXPECT_EQ(got[1], *std::max_element(first, first + 128)) << "group " << g;
  EXPECT_EQ(got[2], g);
  EXPECT_EQ(got[3], groups);
}

TEST_F(VkComputeReference, ReductionWithoutImagesMatchesLavapipe) {
  const std::vector<uint32_t> in = values(40 * 128, 99, 0xfffff);
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    out[s] = reduce(*sides_[s], in, [](ComputeSide&, VkCommandBuffer cb) { vkCmdDispatch(cb, 40, 1, 1); });
  }
  EXPECT_EQ(out[0], out[1]);
  for (uint32_t g = 0; g < 40; ++g) expect_partial(out[0], in, g, 40);
}

// vkCmdDispatchBase (1.1): groups 3..7 of the reduction, WorkgroupId and GlobalInvocationId offset
// by the base, NumWorkgroups the count; the other partial results untouched.
TEST_F(VkComputeReference, DispatchBaseOffsetsTheGroupIdsAndMatchesLavapipe) {
  const std::vector<uint32_t> in = values(8 * 128, 3, 0xffff);
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    auto dispatch_base =
        reinterpret_cast<PFN_vkCmdDispatchBase>(vkGetDeviceProcAddr(sides_[s]->device(), "vkCmdDispatchBase"));
    ASSERT_NE(dispatch_base, nullptr);
    out[s] = reduce(
        *sides_[s], in, [&](ComputeSide&, VkCommandBuffer cb) { dispatch_base(cb, 3, 0, 0, 5, 1, 1); },
        VK_PIPELINE_CREATE_DISPATCH_BASE_BIT);
  }
  EXPECT_EQ(out[0], out[1]);
  for (uint32_t g = 3; g < 8; ++g) expect_partial(out[0], in, g, 5);
  EXPECT_EQ(std::vector<uint8_t>(out[0].begin(), out[0].begin() + 48), std::vector<uint8_t>(48, 0xab));
}

// vkCmdDispatchIndirect whose group count a compute dispatch wrote earlier in the same command
// buffer: the count is read when the queue reaches the command, not when it was recorded.
TEST_F(VkComputeReference, IndirectDispatchUsesCountsAComputeShaderWroteMatchesLavapipe) {
  const std::vector<uint32_t> in = values(12 * 128, 5, 0xffff);
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    ComputeSide& c = *sides_[s];
    VkPipeline writer;
    ASSERT_EQ(c.pipeline(shader_compute_write_args_comp, sizeof shader_compute_write_args_comp, {kStorage}, 32,
                         &writer),
              VK_SUCCESS);
    uint8_t* args_bytes = nullptr;
    VkBuffer args = c.buffer(256, &args_bytes);
    std::memset(args_bytes, 0, 256);  // a count of 0 if the indirect command read it at recording
    VkDescriptorSet args_set = c.set({args});
    const VkPipelineLayout writer_layout = c.layout();
    out[s] = reduce(c, in, [&](ComputeSide& side, VkCommandBuffer cb) {
      // The reduction's pipeline and set are bound; run the writer with its own, then rebind them.
      const uint32_t push[8] = {11, 1, 1, 0, 0, 0, 0, 0};  // + invocation id 0: 11 groups
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, writer);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, writer_layout, 0, 1, &args_set, 0, nullptr);
      vkCmdPushConstants(cb, writer_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 32, push);
      vkCmdDispatch(cb, 1, 1, 1);
      compute_barrier(cb, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
      side.rebind_last();
      vkCmdDispatchIndirect(cb, args, 0);
    });
  }
  EXPECT_EQ(out[0], out[1]);
  for (uint32_t g = 0; g < 11; ++g) expect_partial(out[0], in, g, 11);
  EXPECT_EQ(std::vector<uint8_t>(out[0].begin() + 11 * 16, out[0].begin() + 12 * 16), std::vector<uint8_t>(16, 0xab));
}

// Specialization constants: width 16 (local_size_x_id), multiplier 7, bias -100, negate true.
TEST_F(VkComputeReference, SpecializationConstantsMatchLavapipe) {
  struct Data {
    uint32_t width, multiplier;
    int32_t bias;
    VkBool32 negate;
  } data{16, 7, -100, VK_TRUE};
  const VkSpecializationMapEntry entries[4] = {
      {0, offsetof(Data, width), 4}, {1, offsetof(Data, multiplier), 4}, {2, offsetof(Data, bias), 4},
      {3, offsetof(Data, negate), 4}};
  const VkSpecializationInfo info{4, entries, sizeof data, &data};
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    ComputeSide& c = *sides_[s];
    VkPipeline pipeline;
    ASSERT_EQ(c.pipeline(shader_compute_specialized_comp, sizeof shader_compute_specialized_comp, {kStorage}, 0,
                         &pipeline, 0, &info),
              VK_SUCCESS);
    uint8_t* bytes = nullptr;
    VkBuffer b = c.buffer(16 + 64 * 4, &bytes);
    std::memset(bytes, 0xee, 16 + 64 * 4);
    VkDescriptorSet set = c.set({b});
    c.run(pipeline, set, [&](VkCommandBuffer cb) { vkCmdDispatch(cb, 4, 1, 1); });
    out[s].assign(bytes, bytes + 16 + 64 * 4);
  }
  EXPECT_EQ(out[0], out[1]);
  uint32_t width = 0;
  std::memcpy(&width, out[0].data(), 4);
  EXPECT_EQ(width, 16u);
  for (int32_t i = 0; i < 64; ++i) {
    int32_t v = 0;
    std::memcpy(&v, out[0].data() + 16 + 4 * i, 4);
    ASSERT_EQ(v, -(i * 7 - 100)) << i;
  }
}

// OpBitReverse (bitfieldReverse on uint and int words): 64 words, pseudo-random and the edges.
TEST_F(VkComputeReference, BitReverseMatchesLavapipeAndTheHost) {
  std::vector<uint32_t> in = values(64, 7, 0xFFFFFFu);
  for (uint32_t& w : in) w = w << 8 | w >> 16;  // all 32 bits busy
  in[0] = 0, in[1] = 1, in[2] = 0x80000000u, in[3] = 0xFFFFFFFFu, in[4] = 0x12345678u;
  std::vector<uint8_t> out[2];
  for (int s = 0; s < 2; ++s) {
    ComputeSide& c = *sides_[s];
    VkPipeline pipeline;
    ASSERT_EQ(c.pipeline(shader_compute_bit_reverse_comp, sizeof shader_compute_bit_reverse_comp, {kStorage}, 0,
                         &pipeline),
              VK_SUCCESS);
    uint8_t* bytes = nullptr;
    VkBuffer b = c.buffer(in.size() * 4, &bytes);
    std::memcpy(bytes, in.data(), in.size() * 4);
    VkDescriptorSet set = c.set({b});
    c.run(pipeline, set, [&](VkCommandBuffer cb) { vkCmdDispatch(cb, 2, 1, 1); });
    out[s].assign(bytes, bytes + in.size() * 4);
  }
  EXPECT_EQ(out[0], out[1]);
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t want = 0, got = 0;
    for (int bit = 0; bit < 32; ++bit) want |= (in[i] >> bit & 1u) << (31 - bit);
    std::memcpy(&got, out[0].data() + 4 * i, 4);
    ASSERT_EQ(got, want) << "word " << i << " of " << in[i];
  }
}

}  // namespace
}  // namespace gsgpu::vk::test
