// Indirect draws against lavapipe (docs/vulkan-driver.md "Indirect commands"): the arguments of a
// vkCmdDrawIndirect and a vkCmdDrawIndexedIndirect are written by a compute dispatch earlier in the
// same command buffer (before the render pass), so the driver must read them when the queue reaches
// the draws. The scene is flat-coloured axis-aligned quads (no interpolation, pixel-aligned edges),
// so the frames must be equal bit for bit.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
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

}  // namespace
}  // namespace gsgpu::vk::test
