// Render passes, framebuffers, graphics pipelines and the draw commands recorded against them
// (docs/vulkan-driver.md "Draws"). A pipeline is translated once, at creation, into the words of
// gsgpu's state blocks (protocol/gsgpu/gsgpu.xml <blocks>: PIPE_STATE, SHADER_STATE, the vertex
// input records); a draw snapshots what is bound when it is recorded, and vkQueueSubmit writes the
// blocks into a BO of the device's VA space and puts a DRAW packet on the queue's ring.
#pragma once

#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "gsgpu/vk/binding_model.h"
#include "gsgpu/vk/pipeline_base.h"

namespace gsgpu::vk {

struct Device;
struct Buffer;
struct ImageView;
struct FormatInfo;

inline constexpr uint32_t kPipeStateDwords = 42;    // blk::PIPE_STATE::SIZE_DWORDS (checked in pipeline.cc)
inline constexpr uint32_t kShaderStateDwords = 32;  // blk::SHADER_STATE::SIZE_DWORDS
inline constexpr uint32_t kMaxDrawVertexBindings = 16;
// maxColorAttachments: target 0 in PIPE_STATE, targets 1..7 in COLOR_TARGET records.
inline constexpr uint32_t kMaxColorAttachments = 8;
inline constexpr uint32_t kColorTargetDwords = 8;  // blk::COLOR_TARGET::SIZE_DWORDS (checked in pipeline.cc)

// Bytes of a vertex format the geometry engine fetches (gsgpu/emu/graphics/vertex_fetch.cc's
// list); 0 for any other format (pipeline.cc).
uint32_t vertex_format_bytes(VkFormat format);

// One subpass: up to kMaxColorAttachments colour attachments and one depth / stencil attachment.
struct RenderPassAttachment {
  const FormatInfo* format = nullptr;
  VkAttachmentLoadOp load_op = VK_ATTACHMENT_LOAD_OP_LOAD;
  VkAttachmentLoadOp stencil_load_op = VK_ATTACHMENT_LOAD_OP_LOAD;
  uint32_t samples = 1;  // the views given for it must be of images with as many
};
struct RenderPass {
  std::vector<RenderPassAttachment> attachments;
  // Attachment index of each of the subpass's colour attachments (pColorAttachments[i]), -1 = unused.
  std::array<int32_t, kMaxColorAttachments> colors = {-1, -1, -1, -1, -1, -1, -1, -1};
  uint32_t color_count = 0;
  int32_t depth = -1;  // of its depth / stencil attachment
  // Attachment index of colour attachment i's resolve attachment (pResolveAttachments[i], -1 = none):
  // one sample, the colour attachment's format; colour attachment i is averaged into it over the
  // render area at vkCmdEndRenderPass.
  std::array<int32_t, kMaxColorAttachments> resolves = {-1, -1, -1, -1, -1, -1, -1, -1};
  // VK_KHR_multiview: bit v renders view v into layer v of every attachment (0: no multiview). The
  // subpass's draws and clears are replayed once per view (render_pass.cc, draw.cc).
  uint32_t view_mask = 0;
};
inline constexpr uint32_t kMaxMultiviewViews = 6;  // maxMultiviewViewCount: view masks of bits 0-5

// What an imageless framebuffer (VK_KHR_imageless_framebuffer) says of attachment i; the views
// given at vkCmdBeginRenderPass must match it.
struct FramebufferAttachmentInfo {
  VkImageCreateFlags flags = 0;
  VkImageUsageFlags usage = 0;
  uint32_t width = 0, height = 0, layers = 0;
  std::vector<VkFormat> view_formats;
};
struct Framebuffer {
  std::vector<ImageView*> attachments;            // empty for an imageless framebuffer
  std::vector<FramebufferAttachmentInfo> infos;  // only for an imageless framebuffer
  bool imageless = false;
  uint32_t width = 0, height = 0;
};

struct PipelineVertexBinding {
  uint32_t binding = 0;  // the Vulkan binding number vkCmdBindVertexBuffers fills
  uint32_t stride = 0;
  bool per_instance = false;
};
struct PipelineVertexAttribute {
  uint32_t binding = 0;  // index into GraphicsPipeline::bindings
  uint32_t format = 0;   // VkFormat
  uint32_t offset = 0;
};

// VK_EXT_transform_feedback (transform_feedback.cc): a buffer bound by
// vkCmdBindTransformFeedbackBuffersEXT (size VK_WHOLE_SIZE: to the buffer's end).
inline constexpr uint32_t kMaxXfbBuffers = 4;  // maxTransformFeedbackBuffers
// maxTransformFeedbackBufferDataStride: XFB_BUFFER STRIDE's and DRAW_BYTE_COUNT VERTEX_STRIDE's bound.
inline constexpr uint32_t kMaxXfbVertexStride = 2048;
struct XfbBinding {
  Buffer* buffer = nullptr;
  uint64_t offset = 0, size = 0;
};

// Dynamic state beyond viewport and scissor (bits of GraphicsPipeline::dynamic and
// GraphicsRecordState::dynamic_set): the draw takes these PIPE_STATE fields from the command buffer.
enum DynamicBits : uint32_t {
  kDynamicBlendConstants = 1u << 0,
  kDynamicStencilCompareMask = 1u << 1,
  kDynamicStencilWriteMask = 1u << 2,
  kDynamicStencilReference = 1u << 3,
  kDynamicDepthBias = 1u << 4,
  kDynamicLineWidth = 1u << 5,
  kDynamicLineStipple = 1u << 6,  // VK_DYNAMIC_STATE_LINE_STIPPLE_EXT
};

struct GraphicsPipeline : PipelineBase {
  drv::BoHandle code_bo = 0;  // both programs' code, mapped read + execute
  uint64_t code_va = 0, code_va_size = 0;
  std::array<uint32_t, kShaderStateDwords> shader_state{};  // CONSTANTS_* filled per draw
  uint32_t constant_bytes = 0;                              // what the programs read of the constant buffer
  std::array<uint32_t, kPipeStateDwords> pipe_state{};      // targets, viewport, scissor filled per draw
  std::vector<PipelineVertexBinding> bindings;
  std::vector<PipelineVertexAttribute> attributes;  // attribute i = Location i
  uint32_t topology = 0;
  uint32_t line_mode = 0;  // PIPE_STATE RASTER.LINE_MODE (VK_EXT_line_rasterization)
  // stippledLineEnable: RASTER.LINE_STIPPLE, and the LINE_STIPPLE word (the pipeline's factor and
  // pattern, or vkCmdSetLineStippleEXT's when kDynamicLineStipple).
  bool line_stipple = false;
  uint32_t line_stipple_word = 0;
  bool provoking_last = false;  // PIPE_STATE RASTER.PROVOKING_LAST (VK_EXT_provoking_vertex)
  bool primitive_restart = false;
  bool dynamic_viewport = false, dynamic_scissor = false;
  uint32_t dynamic = 0;  // DynamicBits
  // depthBiasEnable: each draw writes the bias (the pipeline's factors, or vkCmdSetDepthBias's when
  // dynamic) into PIPE_STATE (draw_dynamic.cc apply_depth_bias).
  bool depth_bias = false;
  std::array<float, 3> depth_bias_factors{};  // constant, clamp, slope
  VkViewport viewport{};
  VkRect2D scissor{};
  uint32_t samples = 1;     // rasterizationSamples: each draw's attachments must have as many
  bool uses_depth = false;  // the pipeline's depth / stencil tests want the attachment's memory
  // Colour attachments 1.. (pColorBlendState->attachmentCount - 1 of them): their COLOR_TARGET
  // records' BLEND and WRITE_MASK words; the draw adds where each target is.
  uint32_t more_color_count = 0;
  std::array<uint32_t, kMaxColorAttachments - 1> more_blend{}, more_write_mask{};
  // The pipeline layout and the descriptor sets the shaders read (bit n: set n): a draw is recorded
  // only when each is bound with the layout's set layout (sets_ready_for_draw).
  std::shared_ptr<const PipelineLayout> layout;
  uint32_t used_sets = 0;
  // Transform feedback: the vertex shader's captured outputs as XFB_OUTPUT words and each buffer's
  // XfbStride (0: not written); empty when nothing is captured.
  std::vector<uint32_t> xfb_outputs;
  std::array<uint32_t, kMaxXfbBuffers> xfb_strides{};
  TextureElements texture_elements{};  // the records an array of textures needs, per table slot
  bool rasterizer_discard = false;  // PIPE_STATE RASTER.DISCARD
};

// The render pass's load ops, run on the host when vkCmdBeginRenderPass is reached in the queue
// (before the draws that follow): clears inside the render area, in the attachments' formats.
struct BeginRenderPassCommand {
  ImageView* color = nullptr;
  uint32_t color_attachment = 0;  // which of the subpass's colour attachments `color` is
  ImageView* depth = nullptr;
  uint32_t layer = 0;  // of the views (multiview: the view index)
  bool clear_color = false, clear_depth = false, clear_stencil = false;
  VkClearColorValue color_value{};
  VkClearDepthStencilValue depth_value{};
  VkRect2D area{};
};

struct DrawVertexBuffer {
  Buffer* buffer = nullptr;
  uint64_t offset = 0;
};

// Everything one DRAW packet needs, captured when vkCmdDraw / vkCmdDrawIndexed is recorded.
struct DrawCommand {
  const GraphicsPipeline* pipeline = nullptr;
  std::array<ImageView*, kMaxColorAttachments> colors{};  // the subpass's colour attachments (null: unused)
  ImageView* depth = nullptr;
  uint32_t layer = 0;              // of the views the draw renders into (multiview: the view index)
  uint32_t width = 0, height = 0;  // the framebuffer's
  VkViewport viewport{};
  VkRect2D scissor{};
  std::array<DrawVertexBuffer, kMaxDrawVertexBindings> vertex_buffers{};
  Buffer* index_buffer = nullptr;
  uint64_t index_offset = 0;
  bool index_u32 = false;
  bool indexed = false;
  uint32_t count = 0, instance_count = 0, first_vertex = 0, first_instance = 0, first_index = 0;
  int32_t vertex_offset = 0;
  // vkCmdDraw(Indexed)Indirect: the counts above are read from this buffer when the queue reaches
  // the draw (draw_indirect.cc), after every earlier command of the queue has finished.
  Buffer* indirect = nullptr;
  uint64_t indirect_offset = 0;
  // vkCmdDrawIndirectByteCountEXT: `indirect` is the counter buffer, the count (counter -
  // counter_offset) / vertex_stride, computed by the device when it runs the draw (DRAW_BYTE_COUNT).
  bool byte_count = false;
  uint32_t counter_offset = 0, vertex_stride = 0;
  std::array<uint8_t, kConstantBufferBytes> constants{};
  // The bound texture records and their table slots; the draw places them and points the
  // constant buffer's entries at them.
  std::vector<std::pair<uint32_t, TextureRecord>> textures;
  std::array<uint32_t, kPipeStateDwords> pipe_state{};  // the pipeline's, with the dynamic state applied
  // Recorded between vkCmdBegin / EndTransformFeedbackEXT with a pipeline that captures: the
  // draw writes XFB_STATE naming these buffers (draw_execute.cc).
  bool xfb = false;
  std::array<XfbBinding, kMaxXfbBuffers> xfb_buffers{};
};

// vkCmdBeginTransformFeedbackEXT / vkCmdEndTransformFeedbackEXT when the queue reaches them: the
// write offsets loaded from the counter buffers (0 without one), or stored into them
// (transform_feedback.cc).
struct XfbCountersCommand {
  bool begin = true;
  std::array<Buffer*, kMaxXfbBuffers> counters{};
  std::array<uint64_t, kMaxXfbBuffers> offsets{};
};

// The graphics state of a command buffer while it records (reset at vkBeginCommandBuffer).
struct GraphicsRecordState {
  const GraphicsPipeline* pipeline = nullptr;
  const Framebuffer* framebuffer = nullptr;  // inside a render pass
  const RenderPass* render_pass = nullptr;
  std::vector<ImageView*> attachments;  // the pass's views: the framebuffer's, or the begin info's (imageless)
  VkRect2D render_area{};               // vkCmdBeginRenderPass's, for the resolve at its end
  VkViewport viewport{};
  VkRect2D scissor{};
  bool viewport_set = false, scissor_set = false;
  // vkCmdSetBlendConstants / vkCmdSetStencil*: PIPE_STATE words as the last calls left them.
  uint32_t dynamic_set = 0;  // DynamicBits set so far
  std::array<uint32_t, 4> blend_constants{};   // binary32 bits
  std::array<uint32_t, 2> stencil_masks{};     // STENCIL_FRONT_MASKS / STENCIL_BACK_MASKS words
  std::array<float, 3> depth_bias{};           // vkCmdSetDepthBias: constant, clamp, slope
  float line_width = 1.0f;                     // vkCmdSetLineWidth, clamped to lineWidthRange
  uint32_t line_stipple_word = 0;              // vkCmdSetLineStippleEXT: PIPE_STATE LINE_STIPPLE
  std::array<DrawVertexBuffer, kMaxDrawVertexBindings> vertex_buffers{};
  Buffer* index_buffer = nullptr;
  uint64_t index_offset = 0;
  bool index_u32 = false;
  std::array<XfbBinding, kMaxXfbBuffers> xfb_buffers{};
  bool xfb_active = false;  // between vkCmdBegin / EndTransformFeedbackEXT
};

// Builds a render pass from the 1.0 create info (render_pass.cc; vkCreateRenderPass2 translates
// into it, render_pass2.cc); false with *why for what the device cannot do.
bool build_render_pass(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why);
// Sets the one subpass's multiview view mask, checked against maxMultiviewViewCount.
bool set_view_mask(uint32_t mask, RenderPass* pass, std::string* why);

// A framebuffer attachment must be a one-level view of a bound image, at least as large as the
// framebuffer (framebuffer.cc).
bool check_attachment(const ImageView* view, uint32_t width, uint32_t height, std::string* why);
// An imageless framebuffer's attachment given at vkCmdBeginRenderPass: an attachment as above whose
// image's flags, usage, view extent, layer count and format match what the framebuffer declared.
bool imageless_view_matches(const ImageView* view, const FramebufferAttachmentInfo& info, uint32_t width,
                            uint32_t height, std::string* why);

// The GPU address of `layer` of the view's render target (the layer is checked against the view's
// layer count when the render pass begins).
uint64_t target_layer_va(const ImageView& view, uint32_t layer);

// Whether an indirect draw's arguments (16 or 20 bytes at its offset; a byte-count draw's 4-byte
// counter) lie inside its bound buffer, the offset a multiple of 4; false with *why. The values are
// read by the device (DRAW_INDIRECT, DRAW_BYTE_COUNT).
bool indirect_draw_range_valid(const DrawCommand& d, std::string* why);

// The `words` 32-bit words of an indirect command at `offset` in buffer `b`, the range checked
// (draw_indirect.cc; draws and dispatches); false with *why, which names the command as `what`.
bool read_indirect_words(const Buffer* b, uint64_t offset, uint32_t words, const char* what, uint32_t* out,
                         std::string* why);

// A line width as PIPE_STATE LINE_WIDTH takes it: clamped to lineWidthRange [1, 64] as Vulkan
// says; one that is not a number (invalid usage) draws 1. Either with a log line naming `command`.
float checked_line_width(float width, const char* command);

// A factor and pattern as PIPE_STATE LINE_STIPPLE holds them; false (the word untouched) for a
// factor outside lineStippleFactor's [1, 256] (draw_dynamic.cc).
bool line_stipple_word(uint32_t factor, uint16_t pattern, uint32_t* word);

// Writes the command buffer's dynamic state into the pipeline's PIPE_STATE words (draw_dynamic.cc);
// false with *why when a dynamic state of the pipeline was never set.
bool apply_dynamic_state(const GraphicsPipeline& pipeline, const GraphicsRecordState& state,
                         std::array<uint32_t, kPipeStateDwords>* words, std::string* why);

}  // namespace gsgpu::vk
