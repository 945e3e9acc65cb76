// The logicOp feature against lavapipe: each of the 16 VkLogicOps on an R8G8B8A8_UNORM target, on
// gsgpu and lavapipe in one instance (texture_fixture.h's BothDrivers, both devices created with
// logicOp enabled). Two overlapping solid quads are drawn over a cleared target with the op, so the
// frame holds op(A, C), op(B, C) and op(B, op(A, C)) beside the clear colour C; a logic op's result
// is an integer function of the bytes, so the frames must be equal bit for bit (Vulkan fixes the
// coverage too: the quads' edges lie on pixel boundaries, their diagonals share edges by the
// top-left rule).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

class VkLogicOps : public BothDrivers {
 protected:
  VkLogicOps() { device_request_.features.logicOp = VK_TRUE; }
};

// The scene of one op: clear colour (0x33, 0x99, 0xcc, 0x66), quad A (0xf0, 0x3c, 0xa5, 0x5a),
// quad B (0xcc, 0x0f, 0x69, 0xff) overlapping it; the colour blend state `blend` (kept alive by the
// caller) names the op.
DrawScene logic_op_scene(VkLogicOp op, VkPipelineColorBlendStateCreateInfo* blend,
                         VkPipelineColorBlendAttachmentState* attachment) {
  DrawScene s;
  const float clear[4] = {0x33 / 255.0f, 0x99 / 255.0f, 0xcc / 255.0f, 0x66 / 255.0f};
  std::memcpy(s.clear, clear, sizeof clear);
  const uint8_t a[4] = {0xf0, 0x3c, 0xa5, 0x5a}, b[4] = {0xcc, 0x0f, 0x69, 0xff};
  add_pixel_quad(&s, 8, 8, 40, 40, a);
  add_pixel_quad(&s, 24, 20, 56, 60, b);
  *attachment = {};
  attachment->colorWriteMask = 0xf;
  attachment->blendEnable = VK_TRUE;  // treated as disabled while a logic op is enabled
  attachment->srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
  attachment->dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
  *blend = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend->logicOpEnable = VK_TRUE;
  blend->logicOp = op;
  blend->attachmentCount = 1;
  blend->pAttachments = attachment;
  s.edit = [blend](VkGraphicsPipelineCreateInfo& info) { info.pColorBlendState = blend; };
  return s;
}

TEST_F(VkLogicOps, EveryOpMatchesLavapipeBitForBit) {
  VkPhysicalDeviceFeatures features;
  vkGetPhysicalDeviceFeatures(gsgpu_physical_, &features);
  EXPECT_TRUE(features.logicOp);
  for (uint32_t op = VK_LOGIC_OP_CLEAR; op <= VK_LOGIC_OP_SET; ++op) {
    VkPipelineColorBlendStateCreateInfo blend;
    VkPipelineColorBlendAttachmentState attachment;
    const DrawScene s = logic_op_scene(VkLogicOp(op), &blend, &attachment);
    const DrawFrame gs = gsgpu_->render(s);
    const DrawFrame ref = lavapipe_->render(s);
    ASSERT_EQ(gs.color.size(), ref.color.size());
    const uint32_t differing = differing_pixels(gs, ref);
    std::printf("[vklogicop] op %u: %u of %u pixels differ\n", op, differing, s.width * s.height);
    EXPECT_EQ(differing, 0u) << "VkLogicOp " << op;
    // The overlap is op(B, op(A, C)) computed here too, for one channel (red): XOR's is 0xcc ^ 0xf0 ^ 0x33.
    if (op == VK_LOGIC_OP_XOR) {
      EXPECT_EQ(gs.color[(30 * 64 + 30) * 4], 0xcc ^ 0xf0 ^ 0x33);
    }
  }
}

// A logicOp outside VkLogicOp's 16 values is refused at pipeline creation (PIPE_STATE holds 4 bits).
TEST_F(VkLogicOps, AnUnknownOpIsRefused) {
  VkPipelineColorBlendStateCreateInfo blend;
  VkPipelineColorBlendAttachmentState attachment;
  DrawScene s = logic_op_scene(VK_LOGIC_OP_XOR, &blend, &attachment);
  blend.logicOp = VkLogicOp(16);
  const DrawSide::Targets t = gsgpu_->targets(s);
  VkPipeline p = VK_NULL_HANDLE;
  EXPECT_EQ(gsgpu_->pipeline(t.pass, false, VK_CULL_MODE_NONE, s.edit, &p), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_EQ(p, VK_NULL_HANDLE);
}

}  // namespace
}  // namespace gsgpu::vk::test
