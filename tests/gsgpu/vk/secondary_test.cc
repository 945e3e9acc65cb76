// Secondary command buffers against lavapipe (docs/vulkan-driver.md "Secondary command buffers"):
// secondaries recorded with RENDER_PASS_CONTINUE and no framebuffer in their inheritance info
// (binds, dynamic state, push constants, a draw, a vkCmdClearAttachments), executed by two primaries
// into two framebuffers, one of them twice. Flat axis-aligned quads, so the frames must be equal bit
// for bit. Then, on gsgpu alone, the misuse the driver refuses, and the commands of features the
// device does not offer (resolve, sparse binding, lazily allocated memory).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "compute_fixture.h"

namespace gsgpu::vk::test {
namespace {

using VkSecondaryReference = ComputeReferenceFixture;

DrawVertex flat(float x, float y, uint8_t r, uint8_t g, uint8_t b) { return {x, y, 0.5f, {r, g, b, 255}}; }

// A secondary of `pass` (no framebuffer) drawing the 6 vertices from `first` tinted by `tint`, and
// with `clear`, a colour clear of the 8 x 8 square at (56, 0).
VkCommandBuffer record_secondary(DrawSide& side, VkCommandPool pool, VkRenderPass pass, VkPipeline pipeline,
                                 VkBuffer vertices, uint32_t first, const float tint[4], bool clear) {
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateCommandBuffers(side.device(), &alloc, &cb), VK_SUCCESS);
  VkCommandBufferInheritanceInfo inherit{VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO};
  inherit.renderPass = pass;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT | VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  begin.pInheritanceInfo = &inherit;
  EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &vertices, &offset);
  VkViewport viewport{0, 0, 64, 64, 0, 1};
  VkRect2D scissor{{0, 0}, {64, 64}};
  vkCmdSetViewport(cb, 0, 1, &viewport);
  vkCmdSetScissor(cb, 0, 1, &scissor);
  vkCmdPushConstants(cb, side.layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, tint);
  vkCmdDraw(cb, 6, 1, first, 0);
  if (clear) {
    VkClearAttachment a{VK_IMAGE_ASPECT_COLOR_BIT, 0, {}};
    a.clearValue.color = {{0.0f, 0.0f, 1.0f, 1.0f}};
    VkClearRect rect{{{56, 0}, {8, 8}}, 0, 1};
    vkCmdClearAttachments(cb, 1, &a, 1, &rect);
  }
  EXPECT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  return cb;
}

// Begins the side's primary and `t`'s pass for secondaries, executes `secondaries`, and reads the
// frame back (DrawSide::finish ends the pass, copies, submits and waits).
DrawFrame execute(DrawSide& side, const DrawScene& s, const DrawSide::Targets& t,
                  const std::vector<VkCommandBuffer>& secondaries) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  EXPECT_EQ(vkBeginCommandBuffer(side.cb(), &begin), VK_SUCCESS);
  VkClearValue clears[2] = {};
  std::memcpy(clears[0].color.float32, s.clear, sizeof s.clear);
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = t.pass;
  rp.framebuffer = t.framebuffer;
  rp.renderArea = {{0, 0}, {s.width, s.height}};
  rp.clearValueCount = 2;
  rp.pClearValues = clears;
  vkCmdBeginRenderPass(side.cb(), &rp, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
  vkCmdExecuteCommands(side.cb(), uint32_t(secondaries.size()), secondaries.data());
  return side.finish(s, t);
}

// Both frames of one side: {A, B} into the first framebuffer, {A, A} into the second (another clear
// colour); A's pass is the first's, compatible with the second's.
std::vector<DrawFrame> render_with_secondaries(DrawSide& side) {
  DrawScene s;
  s.vertices = {flat(-1.0f, -1.0f, 250, 20, 20), flat(0.0f, -1.0f, 250, 20, 20), flat(-1.0f, 0.0f, 250, 20, 20),
                flat(0.0f, -1.0f, 250, 20, 20),  flat(0.0f, 0.0f, 250, 20, 20),  flat(-1.0f, 0.0f, 250, 20, 20),
                flat(0.0f, 0.0f, 20, 200, 90),   flat(0.5f, 0.0f, 20, 200, 90),  flat(0.0f, 1.0f, 20, 200, 90),
                flat(0.5f, 0.0f, 20, 200, 90),   flat(0.5f, 1.0f, 20, 200, 90),  flat(0.0f, 1.0f, 20, 200, 90)};
  const DrawSide::Targets first = side.targets(s), second = side.targets(s);
  VkPipeline pipeline = VK_NULL_HANDLE;
  EXPECT_EQ(side.pipeline(first.pass, false, VK_CULL_MODE_NONE, [](VkGraphicsPipelineCreateInfo&) {}, &pipeline),
            VK_SUCCESS);
  uint8_t* bytes = nullptr;
  VkBuffer vb = side.buffer(s.vertices.size() * sizeof(DrawVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &bytes);
  std::memcpy(bytes, s.vertices.data(), s.vertices.size() * sizeof(DrawVertex));
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateCommandPool(side.device(), &pool_info, nullptr, &pool), VK_SUCCESS);
  const float white[4] = {1, 1, 1, 1}, half[4] = {1, 0.5f, 1, 1};
  VkCommandBuffer a = record_secondary(side, pool, first.pass, pipeline, vb, 0, white, true);
  VkCommandBuffer b = record_secondary(side, pool, first.pass, pipeline, vb, 6, half, false);
  std::vector<DrawFrame> frames;
  frames.push_back(execute(side, s, first, {a, b}));
  s.clear[2] = 0.4f;
  frames.push_back(execute(side, s, second, {a, a}));
  vkDestroyCommandPool(side.device(), pool, nullptr);
  return frames;
}

size_t count_pixels(const DrawFrame& f, uint8_t r, uint8_t g, uint8_t b) {
  size_t n = 0;
  for (size_t p = 0; p < f.color.size(); p += 4) n += f.color[p] == r && f.color[p + 1] == g && f.color[p + 2] == b;
  return n;
}

TEST_F(VkSecondaryReference, SecondariesDrawAndClearInTheExecutingPrimarysPassMatchLavapipe) {
  std::vector<DrawFrame> gs = render_with_secondaries(sides_[0]->side());
  std::vector<DrawFrame> ref = render_with_secondaries(sides_[1]->side());
  ASSERT_EQ(gs.size(), 2u);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(gs[i].color, ref[i].color) << "frame " << i;
  EXPECT_EQ(count_pixels(gs[0], 250, 20, 20), 32u * 32u);  // A's quad, tint white
  EXPECT_EQ(count_pixels(gs[0], 20, 100, 90), 16u * 32u);  // B's quad, green halved
  EXPECT_EQ(count_pixels(gs[0], 0, 0, 255), 64u);          // A's clear
  EXPECT_EQ(count_pixels(gs[1], 250, 20, 20), 32u * 32u);
  EXPECT_EQ(count_pixels(gs[1], 20, 100, 90), 0u);
  EXPECT_EQ(count_pixels(gs[1], 0, 0, 255), 64u);
  EXPECT_EQ(count_pixels(gs[1], 0, 0, 102), 64u * 64u - 32u * 32u - 64u);  // the second clear colour
}

int count_lines(const std::string& log, const char* needle) {
  int n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(VkSecondaryReference, MisusedSecondariesAreRefusedOnGsgpu) {
  DrawSide& side = sides_[0]->side();
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateCommandPool(side.device(), &pool_info, nullptr, &pool), VK_SUCCESS);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
  alloc.commandBufferCount = 2;
  VkCommandBuffer sec[2];
  ASSERT_EQ(vkAllocateCommandBuffers(side.device(), &alloc, sec), VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(sec[0], &begin), VK_SUCCESS);  // outside a pass; sec[1] never begun
  uint8_t* bytes = nullptr;
  VkBuffer buffer = side.buffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bytes);
  vkCmdFillBuffer(sec[0], buffer, 0, 16, 0x01020304);
  DrawScene s;
  const DrawSide::Targets t = side.targets(s);
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = t.pass;
  rp.framebuffer = t.framebuffer;
  rp.renderArea = {{0, 0}, {64, 64}};
  VkClearValue clears[2] = {};
  rp.clearValueCount = 2;
  rp.pClearValues = clears;
  testing::internal::CaptureStderr();
  vkCmdBeginRenderPass(sec[0], &rp, VK_SUBPASS_CONTENTS_INLINE);  // a secondary cannot begin a pass
  vkCmdExecuteCommands(sec[0], 1, &sec[1]);                       // nor execute secondaries
  ASSERT_EQ(vkEndCommandBuffer(sec[0]), VK_SUCCESS);
  VkCommandBuffer primary = side.cb();
  ASSERT_EQ(vkBeginCommandBuffer(primary, &begin), VK_SUCCESS);
  VkCommandBuffer bad[3] = {sec[1], primary, VK_NULL_HANDLE};
  vkCmdExecuteCommands(primary, 3, bad);  // not executable, a primary, null
  vkCmdBeginRenderPass(primary, &rp, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
  vkCmdExecuteCommands(primary, 1, &sec[0]);  // no RENDER_PASS_CONTINUE inside a pass
  vkCmdEndRenderPass(primary);
  vkCmdExecuteCommands(primary, 1, &sec[0]);  // the good one: its fill runs
  side.submit_and_wait();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCmdBeginRenderPass: "), 1) << log;
  EXPECT_EQ(count_lines(log, "vkCmdExecuteCommands: "), 5) << log;
  uint32_t word = 0;
  std::memcpy(&word, bytes, 4);
  EXPECT_EQ(word, 0x01020304u);
  vkDestroyCommandPool(side.device(), pool, nullptr);
}

// Resolve (one sample per pixel), sparse binding (none) and lazily allocated memory (none): each
// answers what the spec leaves it, on gsgpu.
TEST_F(VkSecondaryReference, ResolveSparseBindAndCommitmentAnswerForFeaturesNotOffered) {
  DrawSide& side = sides_[0]->side();
  VkDevice device = side.device();
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, 0, 0, &queue);
  uint8_t* bytes = nullptr;
  VkBuffer buffer = side.buffer(4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bytes);
  VkMemoryRequirements reqs;
  vkGetBufferMemoryRequirements(device, buffer, &reqs);
  VkDeviceMemory memory = side.allocate(reqs, nullptr);
  VkDeviceSize committed = 0;
  vkGetDeviceMemoryCommitment(device, memory, &committed);
  EXPECT_EQ(committed, reqs.size);
  // A bind with no memory binds: its semaphore and fence are signalled; a submission waiting on the
  // semaphore then runs.
  VkSemaphoreCreateInfo sem_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore sem = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSemaphore(device, &sem_info, nullptr, &sem), VK_SUCCESS);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFence(device, &fence_info, nullptr, &fence), VK_SUCCESS);
  VkBindSparseInfo bind{VK_STRUCTURE_TYPE_BIND_SPARSE_INFO};
  bind.signalSemaphoreCount = 1;
  bind.pSignalSemaphores = &sem;
  EXPECT_EQ(vkQueueBindSparse(queue, 1, &bind, fence), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(device, 1, &fence, VK_TRUE, 1000000000ull), VK_SUCCESS);
  VkCommandBuffer cb = side.cb();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
  vkCmdFillBuffer(cb, buffer, 0, 4, 0xabcdef01u);
  // vkCmdResolveImage of null images: recorded, and its region skipped with a log line when it runs
  // (the fill still runs; real resolves are tested in multisample_test.cc).
  testing::internal::CaptureStderr();
  VkImageResolve region{};
  vkCmdResolveImage(cb, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_GENERAL, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
  ASSERT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &sem;
  submit.pWaitDstStageMask = &stage;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  EXPECT_EQ(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
  EXPECT_EQ(vkQueueWaitIdle(queue), VK_SUCCESS);
  uint32_t word = 0;
  std::memcpy(&word, bytes, 4);
  EXPECT_EQ(word, 0xabcdef01u);
  // A real bind is refused whole: nothing signalled.
  ASSERT_EQ(vkResetFences(device, 1, &fence), VK_SUCCESS);
  VkSparseMemoryBind memory_bind{0, 4096, memory, 0, 0};
  VkSparseBufferMemoryBindInfo buffer_bind{buffer, 1, &memory_bind};
  bind.bufferBindCount = 1;
  bind.pBufferBinds = &buffer_bind;
  EXPECT_EQ(vkQueueBindSparse(queue, 1, &bind, fence), VK_ERROR_UNKNOWN);
  EXPECT_EQ(vkGetFenceStatus(device, fence), VK_NOT_READY);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(log, "vkCmdResolveImage: image not bound to memory; region skipped"), 1) << log;
  EXPECT_EQ(count_lines(log, "vkQueueBindSparse: bind info 0 binds memory"), 1) << log;
  vkDestroyFence(device, fence, nullptr);
  vkDestroySemaphore(device, sem, nullptr);
}

}  // namespace
}  // namespace gsgpu::vk::test
