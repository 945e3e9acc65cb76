// Indirect draws against lavapipe (docs/vulkan-driver.md "Indirect commands"): the arguments of a
// vkCmdDrawIndirect and a vkCmdDrawIndexedIndirect are written by a compute dispatch earlier in the
// same command buffer (before the render pass), so the driver must read them when the queue reaches
// the draws. The scene is flat-coloured axis-aligned quads (no interpolation, pixel-aligned edges),
// so the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "compute_fixture.h"
#include "shader_compute_write_args_comp.h"

namespace gsgpu::vk::test {
namespace {

using VkIndirectReference = ComputeReferenceFixture;

DrawVertex flat(float x, float y, uint8_t r, uint8_t g, uint8_t b) { return {x, y, 0.5f, {r, g, b, 255}}; }

// Records on `c`: the args writer dispatched before the pass (draw args: 6 vertices, 1 instance),
// then in the pass a non-indexed indirect draw of vertices 0..5 and an indexed indirect draw of
// indices 0..5 whose vertices are 6..11 (index buffer of 6 + the vertex offset the writer leaves 0,
// so the index buffer itself names 6..11).
DrawFrame render_indirect(ComputeSide& c) {
  VkPipeline writer;
  EXPECT_EQ(c.pipeline(shader_compute_write_args_comp, sizeof shader_compute_write_args_comp,
                       {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 32, &writer),
            VK_SUCCESS);
  uint8_t* args_bytes = nullptr;
  VkBuffer args = c.buffer(256, &args_bytes);
  std::memset(args_bytes, 0, 256);  // zero counts: nothing would be drawn if read at recording
  VkDescriptorSet set = c.set({args});
  const VkPipelineLayout layout = c.layout();
  DrawScene s;
  s.vertices = {flat(-0.75f, -0.75f, 250, 20, 20), flat(0.0f, -0.75f, 250, 20, 20), flat(-0.75f, 0.25f, 250, 20, 20),
                flat(0.0f, -0.75f, 250, 20, 20),   flat(0.0f, 0.25f, 250, 20, 20),  flat(-0.75f, 0.25f, 250, 20, 20),
                flat(0.25f, -0.5f, 20, 200, 90),   flat(0.75f, -0.5f, 20, 200, 90), flat(0.25f, 0.75f, 20, 200, 90),
                flat(0.75f, 0.75f, 20, 200, 90)};
  s.indices = {6, 7, 8, 7, 9, 8};
  s.before_pass = [&](VkCommandBuffer cb) {
    const uint32_t push[8] = {1, 1, 1, 0, 6, 1, 0, 0};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, writer);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 32, push);
    vkCmdDispatch(cb, 1, 1, 1);
    compute_barrier(cb, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
  };
  s.before_draws = [&](VkCommandBuffer cb) {
    const float tint[4] = {1, 1, 1, 1};
    vkCmdPushConstants(cb, c.side().layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
    vkCmdDrawIndirect(cb, args, 16, 1, 16);
    vkCmdDrawIndexedIndirect(cb, args, 32, 1, 20);
  };
  return c.side().render(s);
}

TEST_F(VkIndirectReference, DrawsWithArgumentsAComputeShaderWroteMatchLavapipe) {
  DrawFrame frame[2];
  for (int i = 0; i < 2; ++i) frame[i] = render_indirect(*sides_[i]);
  ASSERT_EQ(frame[0].color.size(), frame[1].color.size());
  size_t differing = 0, red = 0, green = 0;
  for (size_t p = 0; p < frame[0].color.size(); p += 4) {
    differing += std::memcmp(&frame[0].color[p], &frame[1].color[p], 4) != 0;
    red += frame[0].color[p] == 250;
    green += frame[0].color[p + 1] == 200;
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_EQ(red, 24u * 32u);    // 0.75 x 1.0 of 64 x 64: 24 x 32 pixels
  EXPECT_EQ(green, 16u * 40u);  // 0.5 x 1.25: 16 x 40
}

int count_lines(const std::string& log, const char* needle) {
  int n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

// Arguments from GPU memory are hostile like any: outside the buffer, unaligned, counts the device
// cannot draw. A range outside the buffer or unaligned is skipped by the driver with a log line; the
// values are read by the device (DRAW_INDIRECT), which faults a draw whose counts it cannot draw: the
// driver reports each such draw lost, and the direct draw after them fills the target.
TEST_F(VkIndirectReference, HostileIndirectArgumentsAreSkippedOnGsgpu) {
  ComputeSide& c = *sides_[0];
  uint8_t* bytes = nullptr;
  VkBuffer args = c.buffer(64, &bytes);
  const uint32_t words[16] = {0xffffffffu, 0xffffffffu, 0, 0,   // 2^64 vertices x instances
                              3, 1, 0xfffffffeu, 0,             // vertex indices past 2^32 - 1
                              1000, 1, 0, 0, 0,                 // indexed: 1000 indices of a 6-index buffer
                              0, 0, 0};
  std::memcpy(bytes, words, sizeof words);
  DrawScene s;
  s.vertices = {flat(-1, -1, 9, 9, 9), flat(3, -1, 9, 9, 9), flat(-1, 3, 9, 9, 9)};
  s.indices = {0, 1, 2, 0, 1, 2};
  s.draws.push_back(DrawCall{false, 3, 0, 0, {1, 1, 1, 1}});
  s.before_draws = [&](VkCommandBuffer cb) {
    vkCmdDrawIndirect(cb, args, 0, 1, 16);
    vkCmdDrawIndirect(cb, args, 16, 1, 16);
    vkCmdDrawIndexedIndirect(cb, args, 32, 1, 20);
    vkCmdDrawIndirect(cb, args, 56, 1, 16);          // 16 bytes from 56: past the 64-byte buffer
    vkCmdDrawIndirect(cb, args, 1ull << 63, 1, 16);  // far past it
    vkCmdDrawIndirect(cb, args, 2, 1, 16);           // unaligned
    vkCmdDrawIndirect(cb, args, 0, 2, 16);           // drawCount 2: over maxDrawIndirectCount
  };
  testing::internal::CaptureStderr();
  DrawFrame f = c.side().render(s);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "draw skipped"), 3) << log;
  EXPECT_EQ(count_lines(log, "vkQueueSubmit: draw: the device refused or faulted it (faulted)"), 3) << log;
  EXPECT_EQ(count_lines(log, "over maxDrawIndirectCount (1); not recorded"), 1) << log;
  for (size_t p = 0; p < f.color.size(); p += 4) ASSERT_EQ(f.color[p], 9) << p / 4;
}

}  // namespace
}  // namespace gsgpu::vk::test
