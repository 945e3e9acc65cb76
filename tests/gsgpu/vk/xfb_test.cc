// VK_EXT_transform_feedback against lavapipe (docs/vulkan-driver.md "Transform feedback"): the same
// scenes on gsgpu and lavapipe in one instance (BothDrivers, both devices with transformFeedback),
// capturing positions and colours of triangle lists, strips and point lists into interleaved and
// separate buffers, paused and resumed through a counter buffer, and overflowing a short buffer.
// The captured bytes, the counter buffers and the frames must be equal byte for byte (the
// captured values are the vertex shader's outputs, which Vulkan fixes).
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "shader_flat_color_frag.h"
#include "shader_xfb_clip_distance_vert.h"
#include "shader_xfb_interleaved_vert.h"
#include "shader_xfb_separate_vert.h"
#include "tests/gsgpu/vk/texture_fixture.h"

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kBufferBytes = 1024;

class VkTransformFeedback : public BothDrivers {
 protected:
  VkTransformFeedback() {
    xfb_.transformFeedback = VK_TRUE;
    device_request_.features.shaderClipDistance = VK_TRUE;  // xfb_clip_distance.vert
    device_request_.extensions = {VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME};
    device_request_.next = &xfb_;
  }
  VkPhysicalDeviceTransformFeedbackFeaturesEXT xfb_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
};

// What a scene captures: which shader, the topology, the size each of the four buffers is bound
// with (0: not bound), and before which draw (if any) capture is paused and resumed.
struct Capture {
  const uint32_t* spirv = shader_xfb_interleaved_vert;
  size_t spirv_bytes = sizeof shader_xfb_interleaved_vert;
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkDeviceSize sizes[4] = {kBufferBytes, 0, 0, 0};
  int pause_before = -1;
  bool discard = false;  // rasterizerDiscardEnable
  bool query = false;    // a transform-feedback stream query around the draws
  // After the end: a vkCmdDrawIndirectByteCountEXT of buffer 0's counter (counter offset 0, as
  // lavapipe ignores counterOffset) with this vertexStride (0: none) and instance count.
  uint32_t byte_count_stride = 0;
  uint32_t byte_count_instances = 1;
};

// The captured buffers (each filled with 0xEE first), the counter buffer's four words after the
// end, and the frame.
struct Captured {
  std::vector<uint8_t> buffers[4];
  uint32_t counters[4] = {};
  uint64_t query[2] = {};  // primitives written, needed
  DrawFrame frame;
};

Captured capture(DrawSide& side, DrawScene s, const Capture& c) {
  auto bind = reinterpret_cast<PFN_vkCmdBindTransformFeedbackBuffersEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdBindTransformFeedbackBuffersEXT"));
  auto begin = reinterpret_cast<PFN_vkCmdBeginTransformFeedbackEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdBeginTransformFeedbackEXT"));
  auto end = reinterpret_cast<PFN_vkCmdEndTransformFeedbackEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdEndTransformFeedbackEXT"));
  EXPECT_TRUE(bind && begin && end);
  uint8_t* bytes[4] = {};
  VkBuffer buffers[4] = {};
  for (int b = 0; b < 4; ++b) {
    buffers[b] = side.buffer(kBufferBytes, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT, &bytes[b]);
    std::memset(bytes[b], 0xEE, kBufferBytes);
  }
  uint8_t* counter_bytes = nullptr;
  VkBuffer counter = side.buffer(
      16, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &counter_bytes);
  std::memset(counter_bytes, 0, 16);
  // A counter for each bound buffer only (lavapipe reads the offset of the buffer a counter names).
  VkBuffer counters[4] = {};
  for (int b = 0; b < 4; ++b) counters[b] = c.sizes[b] != 0 ? counter : VK_NULL_HANDLE;
  const VkDeviceSize counter_offsets[4] = {0, 4, 8, 12};
  s.vertex_spirv = c.spirv;
  s.vertex_spirv_bytes = c.spirv_bytes;
  VkPipelineInputAssemblyStateCreateInfo ia{};
  VkPipelineRasterizationStateCreateInfo rs{};
  s.edit = [&](VkGraphicsPipelineCreateInfo& info) {
    ia = *info.pInputAssemblyState;
    ia.topology = c.topology;
    info.pInputAssemblyState = &ia;
    rs = *info.pRasterizationState;
    rs.rasterizerDiscardEnable = c.discard;
    info.pRasterizationState = &rs;
  };
  VkQueryPool pool = VK_NULL_HANDLE;
  auto begin_query = reinterpret_cast<PFN_vkCmdBeginQueryIndexedEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdBeginQueryIndexedEXT"));
  auto end_query = reinterpret_cast<PFN_vkCmdEndQueryIndexedEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdEndQueryIndexedEXT"));
  if (c.query) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT;
    info.queryCount = 1;
    EXPECT_EQ(vkCreateQueryPool(side.device(), &info, nullptr, &pool), VK_SUCCESS);
    EXPECT_TRUE(begin_query && end_query);
    s.before_pass = [&](VkCommandBuffer cb) { vkCmdResetQueryPool(cb, pool, 0, 1); };
  }
  s.before_draws = [&](VkCommandBuffer cb) {
    for (uint32_t b = 0; b < 4; ++b) {
      const VkDeviceSize offset = 0;
      if (c.sizes[b] != 0) bind(cb, b, 1, &buffers[b], &offset, &c.sizes[b]);
    }
    begin(cb, 0, 0, nullptr, nullptr);  // no counter buffers: every buffer from its bound offset
    if (c.query) begin_query(cb, pool, 0, 0, 0);
  };
  s.before_draw = [&](VkCommandBuffer cb, size_t i) {
    if (int(i) != c.pause_before) return;
    end(cb, 0, 4, counters, counter_offsets);  // pause: the offsets into the counter buffer
    begin(cb, 0, 4, counters, counter_offsets);  // resume from them
  };
  auto draw_byte_count = reinterpret_cast<PFN_vkCmdDrawIndirectByteCountEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdDrawIndirectByteCountEXT"));
  s.after_draws = [&](VkCommandBuffer cb) {
    if (c.query) end_query(cb, pool, 0, 0);
    end(cb, 0, 4, counters, counter_offsets);
    // Both drivers run a pass's commands in order, so the draw reads the counter the end stored.
    if (c.byte_count_stride != 0) draw_byte_count(cb, c.byte_count_instances, 0, counter, 0, 0, c.byte_count_stride);
  };
  Captured out;
  out.frame = side.render(s);
  if (c.query) {
    EXPECT_EQ(vkGetQueryPoolResults(side.device(), pool, 0, 1, sizeof out.query, out.query, sizeof out.query,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              VK_SUCCESS);
    vkDestroyQueryPool(side.device(), pool, nullptr);
  }
  for (int b = 0; b < 4; ++b) out.buffers[b].assign(bytes[b], bytes[b] + kBufferBytes);
  std::memcpy(out.counters, counter_bytes, 16);
  return out;
}

// Vertices in pixel coordinates of the 64 x 64 target, each its own colour.
void add_vertex(DrawScene* s, float x, float y) {
  const uint8_t n = uint8_t(s->vertices.size());
  s->vertices.push_back({x / 32 - 1, y / 32 - 1, 0.25f + 0.05f * n, {uint8_t(30 * n), uint8_t(255 - 20 * n), 77, 255}});
}

DrawScene scene(uint32_t vertices, uint32_t draws = 1) {
  DrawScene s;
  s.fragment_spirv = shader_flat_color_frag;  // flat colours: the frames compare bit for bit
  s.fragment_spirv_bytes = sizeof shader_flat_color_frag;
  const float points[9][2] = {{4.3f, 40.2f}, {10.1f, 8.6f}, {22.7f, 44.4f}, {30.2f, 6.3f}, {42.9f, 41.7f},
                              {55.4f, 9.1f}, {12.5f, 60.3f}, {33.3f, 58.1f}, {61.7f, 50.2f}};
  for (uint32_t v = 0; v < vertices; ++v) add_vertex(&s, points[v][0], points[v][1]);
  const uint32_t per = vertices / draws;
  for (uint32_t d = 0; d < draws; ++d) s.draws.push_back({false, per, d * per, 0, {1, 1, 1, 1}});
  return s;
}

// Captured words of two drivers: the same words written (0xEE bytes where nothing was), each
// equal, or one unit in the last place apart where Vulkan leaves the precision open (an RGBA8 UNORM
// attribute's c / 255, and a sum of such a value). Returns how many words are one unit apart, or -1
// when a word differs more.
int compare_words(const std::vector<uint8_t>& g, const std::vector<uint8_t>& l) {
  if (g.size() != l.size()) return -1;
  int ulp = 0;
  for (size_t i = 0; i + 4 <= g.size(); i += 4) {
    int32_t a = 0, b = 0;
    std::memcpy(&a, &g[i], 4);
    std::memcpy(&b, &l[i], 4);
    if (a == b) continue;
    if (uint32_t(a) == 0xEEEEEEEEu || uint32_t(b) == 0xEEEEEEEEu || (a < 0) != (b < 0) || std::abs(a - b) > 1) return -1;
    ++ulp;
  }
  return ulp;
}

// Both drivers capture the same words (compare_words), the same counters and the same frame bit for
// bit (flat colours); returns gsgpu's capture.
Captured expect_same(DrawSide& gsgpu, DrawSide& lavapipe, const DrawScene& s, const Capture& c, const char* what) {
  const Captured g = capture(gsgpu, s, c);
  const Captured l = capture(lavapipe, s, c);
  int ulp = 0;
  for (int b = 0; b < 4; ++b) {
    const int words = compare_words(g.buffers[b], l.buffers[b]);
    EXPECT_GE(words, 0) << what << ": buffer " << b;
    ulp += std::max(words, 0);
  }
  for (int b = 0; b < 4; ++b) EXPECT_EQ(g.counters[b], l.counters[b]) << what << ": counter " << b;
  EXPECT_EQ(g.query[0], l.query[0]) << what << ": primitives written";
  EXPECT_EQ(g.query[1], l.query[1]) << what << ": primitives needed";
  EXPECT_EQ(differing_pixels(g.frame, l.frame), 0u) << what;
  std::printf("[vkxfb] %s: counters %u %u %u %u, %d captured words 1 ulp from lavapipe's, %u pixels differ\n", what,
              g.counters[0], g.counters[1], g.counters[2], g.counters[3], ulp, differing_pixels(g.frame, l.frame));
  return g;
}

TEST_F(VkTransformFeedback, InterleavedPositionsAndColoursOfListsStripsAndPointsMatchLavapipe) {
  Capture c;
  const Captured list = expect_same(*gsgpu_, *lavapipe_, scene(9), c, "triangle list");
  EXPECT_EQ(list.counters[0], 9u * 32);
  c.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  const Captured strip = expect_same(*gsgpu_, *lavapipe_, scene(6), c, "triangle strip");
  EXPECT_EQ(strip.counters[0], 4u * 3 * 32);  // four triangles of three vertices
  c.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
  expect_same(*gsgpu_, *lavapipe_, scene(5), c, "point list");
  c.topology = VK_PRIMITIVE_TOPOLOGY_LINE_STRIP;
  expect_same(*gsgpu_, *lavapipe_, scene(5), c, "line strip");
}

TEST_F(VkTransformFeedback, SeparateBuffersPausedAndResumedThroughACounterBufferMatchLavapipe) {
  Capture c;
  c.spirv = shader_xfb_separate_vert;
  c.spirv_bytes = sizeof shader_xfb_separate_vert;
  c.sizes[0] = 0;
  c.sizes[1] = kBufferBytes;
  c.sizes[3] = VK_WHOLE_SIZE;
  c.pause_before = 1;
  const Captured g = expect_same(*gsgpu_, *lavapipe_, scene(9, 3), c, "separate, paused");
  EXPECT_EQ(g.counters[1], 9u * 16);
  EXPECT_EQ(g.counters[3], 9u * 20);
}

// With a stream query around it: lavapipe's and gsgpu's primitives written (2) and needed (3).
TEST_F(VkTransformFeedback, AShortBufferStopsAtTheFirstTriangleThatDoesNotFitAsLavapipeDoes) {
  Capture c;
  c.sizes[0] = 200;  // two triangles of 96 bytes, not three
  c.query = true;
  const Captured g = expect_same(*gsgpu_, *lavapipe_, scene(9), c, "overflow");
  EXPECT_EQ(g.counters[0], 192u);
  EXPECT_EQ(g.buffers[0][192], 0xEE);
  EXPECT_EQ(g.query[0], 2u);
  EXPECT_EQ(g.query[1], 3u);
  // Paused and resumed across three draws of a strip: the query counts all of them.
  c.sizes[0] = kBufferBytes;
  c.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
  c.pause_before = 1;
  const Captured strip = expect_same(*gsgpu_, *lavapipe_, scene(9, 3), c, "strips, paused, queried");
  EXPECT_EQ(strip.query[0], 3u);  // one triangle per draw of three vertices
  EXPECT_EQ(strip.query[1], 3u);
}

TEST_F(VkTransformFeedback, RasterizerDiscardCapturesAndDrawsNothingAsLavapipe) {
  Capture c;
  c.discard = true;
  const Captured g = expect_same(*gsgpu_, *lavapipe_, scene(6), c, "rasterizer discard");
  EXPECT_EQ(g.counters[0], 6u * 32);
  for (size_t i = 0; i < g.frame.color.size(); i += 4) ASSERT_EQ(g.frame.color[i + 3], 255) << i;  // the clear
  for (size_t i = 0; i < g.frame.color.size(); i += 4) ASSERT_EQ(g.frame.color[i], 0) << i;
}

// gl_ClipDistance captured (GL's EXT_transform_feedback builtin-varyings through zink): the
// device's slots 69.. (docs/graphics.md "Transform feedback"), as lavapipe writes them.
TEST_F(VkTransformFeedback, CapturedClipDistancesMatchLavapipe) {
  Capture c;
  c.spirv = shader_xfb_clip_distance_vert;
  c.spirv_bytes = sizeof shader_xfb_clip_distance_vert;
  const Captured g = expect_same(*gsgpu_, *lavapipe_, scene(6), c, "clip distances");
  EXPECT_EQ(g.counters[0], 6u * 24);
  float first[6];
  std::memcpy(first, g.buffers[0].data(), sizeof first);
  EXPECT_EQ(first[4], first[0] + 2.0f);         // gl_ClipDistance[0] = x + 2
  EXPECT_EQ(first[5], 3.0f - 0.5f * first[1]);  // gl_ClipDistance[1] = 3 - y / 2
}

// vkCmdDrawIndirectByteCountEXT after a capture of one triangle (96 bytes in buffer 0): the vertex
// count the device computes from the counter the end stored, as lavapipe draws it.
TEST_F(VkTransformFeedback, DrawsOfTheCapturedByteCountMatchLavapipe) {
  DrawScene s = scene(9);
  s.draws = {DrawCall{false, 3, 0, 0, {1, 1, 1, 1}}};
  Capture c;
  const Captured captured_only = capture(*gsgpu_, s, c);
  c.byte_count_stride = 16;  // 96 / 16: six vertices, the captured triangle and the next one
  const Captured six = expect_same(*gsgpu_, *lavapipe_, s, c, "byte count: 96 / 16");
  EXPECT_EQ(six.counters[0], 96u);
  EXPECT_GT(differing_pixels(six.frame, captured_only.frame), 0u);  // the second triangle was drawn
  c.byte_count_stride = 12;  // eight vertices: the same two triangles, the last two vertices dropped
  c.byte_count_instances = 2;
  const Captured eight = expect_same(*gsgpu_, *lavapipe_, s, c, "byte count: 96 / 12, two instances");
  EXPECT_EQ(differing_pixels(eight.frame, six.frame), 0u);
  c.byte_count_stride = 200;  // no vertex
  c.byte_count_instances = 1;
  const Captured none = expect_same(*gsgpu_, *lavapipe_, s, c, "byte count: 96 / 200");
  EXPECT_EQ(differing_pixels(none.frame, captured_only.frame), 0u);
}

size_t occurrences(const std::string& log, const char* needle) {
  size_t n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

// Hostile byte-count draws on gsgpu (draw.cc, draw_indirect.cc, the device's DRAW_BYTE_COUNT): a
// stride of 0 or over maxTransformFeedbackBufferDataStride, a misaligned counter offset, no buffer
// are not recorded; a counter outside its buffer is skipped when run; counts the device cannot draw
// (2^32 - 1 vertices; 3 vertices x 2^32 - 1 instances) are faulted by it and reported lost. A counter
// below counterOffset draws nothing, and counterOffset is subtracted as Vulkan says (lavapipe
// ignores it, so this is checked against gsgpu's direct draw of the same vertices): the frame is
// the one of a direct draw of six vertices.
TEST_F(VkTransformFeedback, HostileByteCountDrawsAreRefusedOrFaultedWithALogLine) {
  DrawSide& side = *gsgpu_;
  auto draw_byte_count = reinterpret_cast<PFN_vkCmdDrawIndirectByteCountEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdDrawIndirectByteCountEXT"));
  ASSERT_NE(draw_byte_count, nullptr);
  uint8_t* counter_bytes = nullptr;
  VkBuffer counter = side.buffer(
      16, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &counter_bytes);
  const uint32_t words[4] = {0xFFFFFFFFu, 96, 300, 0};
  std::memcpy(counter_bytes, words, sizeof words);
  DrawScene s = scene(9);
  s.draws = {DrawCall{false, 3, 0, 0, {1, 1, 1, 1}}};
  s.after_draws = [&](VkCommandBuffer cb) {
    draw_byte_count(cb, 1, 0, counter, 0, 0, 0);                // stride 0: not recorded
    draw_byte_count(cb, 1, 0, counter, 0, 0, 2052);             // over 2048: not recorded
    draw_byte_count(cb, 1, 0, counter, 2, 0, 4);                // misaligned: not recorded
    draw_byte_count(cb, 1, 0, VK_NULL_HANDLE, 0, 0, 4);         // no buffer: not recorded
    draw_byte_count(cb, 1, 0, counter, 16, 0, 4);               // past the 16 bytes: skipped
    draw_byte_count(cb, 1, 0, counter, 1ull << 63, 0, 4);       // far past them: skipped
    draw_byte_count(cb, 1, 0, counter, 0, 0, 1);                // 2^32 - 1 vertices: faulted
    draw_byte_count(cb, 0xFFFFFFFFu, 0, counter, 4, 0, 32);     // 3 x 2^32 - 1: faulted
    draw_byte_count(cb, 1, 0, counter, 4, 200, 32);             // 96 below 200: nothing
    draw_byte_count(cb, 1, 0, counter, 8, 108, 32);             // (300 - 108) / 32: six vertices
  };
  testing::internal::CaptureStderr();
  const DrawFrame f = side.render(s);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(log, "vkCmdDrawIndirectByteCountEXT: vertexStride"), 2u) << log;
  EXPECT_EQ(occurrences(log, "a counter buffer offset that is not a multiple of 4; not recorded"), 1u) << log;
  EXPECT_EQ(occurrences(log, "no counter buffer; not recorded"), 1u) << log;
  EXPECT_EQ(occurrences(log, "vkCmdDrawIndirectByteCountEXT: the counter at"), 2u) << log;
  EXPECT_EQ(occurrences(log, "the device refused or faulted it (faulted)"), 2u) << log;
  DrawScene direct = scene(9);
  direct.draws = {DrawCall{false, 6, 0, 0, {1, 1, 1, 1}}};
  EXPECT_EQ(differing_pixels(f, side.render(direct)), 0u);
}

// The driver's checks (transform_feedback.cc, draw.cc): bindings past the fourth buffer or outside
// their buffer, a begin while active, an end while not, a counter offset that is not a multiple
// of 4 are not recorded; a capturing draw without its buffer bound is not recorded; a counter
// buffer too short for its word is skipped when the queue reaches it. Each with a log line, and
// nothing is written anywhere (the buffers keep their 0xEE).
TEST_F(VkTransformFeedback, HostileBindingsAndCountersAreRefusedWithALogLine) {
  DrawSide& side = *gsgpu_;
  auto bind = reinterpret_cast<PFN_vkCmdBindTransformFeedbackBuffersEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdBindTransformFeedbackBuffersEXT"));
  auto begin = reinterpret_cast<PFN_vkCmdBeginTransformFeedbackEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdBeginTransformFeedbackEXT"));
  auto end = reinterpret_cast<PFN_vkCmdEndTransformFeedbackEXT>(
      vkGetDeviceProcAddr(side.device(), "vkCmdEndTransformFeedbackEXT"));
  ASSERT_TRUE(bind && begin && end);
  uint8_t *bytes = nullptr, *counter_bytes = nullptr;
  VkBuffer buffer = side.buffer(kBufferBytes, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT, &bytes);
  VkBuffer counter = side.buffer(16, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT, &counter_bytes);
  std::memset(bytes, 0xEE, kBufferBytes);
  std::memset(counter_bytes, 0xEE, 16);
  DrawScene s = scene(6);
  s.vertex_spirv = shader_xfb_interleaved_vert;
  s.vertex_spirv_bytes = sizeof shader_xfb_interleaved_vert;
  s.before_draws = [&](VkCommandBuffer cb) {
    const VkBuffer two[2] = {buffer, buffer};
    const VkDeviceSize offsets[2] = {0, 0}, past[1] = {kBufferBytes + 4}, odd[1] = {2};
    bind(cb, 3, 2, two, offsets, nullptr);  // buffers 3 and 4
    bind(cb, 0, 1, &buffer, past, nullptr);
    bind(cb, 0, 1, &buffer, odd, nullptr);
    end(cb, 0, 0, nullptr, nullptr);  // not active
    begin(cb, 0, 0, nullptr, nullptr);
    begin(cb, 0, 0, nullptr, nullptr);  // already active
  };
  s.after_draws = [&](VkCommandBuffer cb) {  // the draw was not recorded: buffer 0 is not bound
    const VkDeviceSize misaligned = 2, short_end = 16;
    end(cb, 0, 1, &counter, &misaligned);  // not recorded
    end(cb, 0, 1, &counter, &short_end);   // recorded, skipped when run: no word at 16 of 16 bytes
  };
  testing::internal::CaptureStderr();
  side.render(s);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(occurrences(log, "buffers past the fourth"), 1u) << log;
  EXPECT_EQ(occurrences(log, "an offset or size outside it or not a multiple of 4"), 2u) << log;
  EXPECT_EQ(occurrences(log, "transform feedback is not active"), 1u) << log;
  EXPECT_EQ(occurrences(log, "transform feedback is already active"), 1u) << log;
  EXPECT_EQ(occurrences(log, "transform feedback buffer 0 is captured but not bound"), 1u) << log;
  EXPECT_EQ(occurrences(log, "a counter buffer offset that is not a multiple of 4"), 1u) << log;
  EXPECT_EQ(occurrences(log, "counter buffer 0 without memory or too short"), 1u) << log;
  for (uint32_t i = 0; i < kBufferBytes; ++i) ASSERT_EQ(bytes[i], 0xEE) << i;
  for (uint32_t i = 0; i < 16; ++i) ASSERT_EQ(counter_bytes[i], 0xEE) << i;
}

}  // namespace
}  // namespace gsgpu::vk::test
