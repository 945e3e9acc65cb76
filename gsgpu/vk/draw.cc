// Recording draws (docs/vulkan-driver.md "Draws"): vkCmdBindPipeline, vkCmdBindVertexBuffers,
// vkCmdBindIndexBuffer, vkCmdSetViewport / Scissor / LineWidth keep state in the command buffer;
// vkCmdDraw / vkCmdDrawIndexed snapshot it, with the constant buffer of the bound descriptor sets
// and push constants, into a DrawCommand that vkQueueSubmit runs (draw_execute.cc). A draw
// recorded without what it needs (outside a render pass, no pipeline, no dynamic viewport set) is
// dropped with a log line.
#include <cstring>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/command_recording.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

CommandBuffer* recording(VkCommandBuffer handle, const char* command) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  if (cb->state == CommandBuffer::State::kRecording) return cb;
  log_refusal(command, "the command buffer is not recording", "not recorded");
  return nullptr;
}

namespace {

// The draw's state, or false with *why.
bool snapshot(const CommandBuffer& cb, DrawCommand* d, std::string* why) {
  const GraphicsRecordState& g = cb.graphics;
  if (g.render_pass == nullptr || (g.framebuffer == nullptr && !cb.continues_pass)) {
    return *why = "outside a render pass", false;
  }
  if (g.pipeline == nullptr) return *why = "no graphics pipeline bound", false;
  const GraphicsPipeline& p = *g.pipeline;
  if (p.used_sets != 0 &&
      !sets_ready_for_draw(cb.bindings, VK_PIPELINE_BIND_POINT_GRAPHICS, *p.layout, p.used_sets, why)) {
    return false;
  }
  if (p.dynamic_viewport && !g.viewport_set) return *why = "the pipeline's dynamic viewport was not set", false;
  if (p.dynamic_scissor && !g.scissor_set) return *why = "the pipeline's dynamic scissor was not set", false;
  d->pipeline = &p;
  // A secondary continuing a pass may not know the framebuffer: vkCmdExecuteCommands aims its draws
  // at the primary's attachments (secondary.cc).
  const bool known = !g.attachments.empty();
  for (uint32_t i = 0; i < g.render_pass->color_count; ++i) {
    const int32_t a = g.render_pass->colors[i];
    d->colors[i] = known && a >= 0 ? g.attachments[a] : nullptr;
  }
  d->depth = known && g.render_pass->depth >= 0 ? g.attachments[g.render_pass->depth] : nullptr;
  d->width = g.framebuffer != nullptr ? g.framebuffer->width : 0;
  d->height = g.framebuffer != nullptr ? g.framebuffer->height : 0;
  d->viewport = p.dynamic_viewport ? g.viewport : p.viewport;
  d->scissor = p.dynamic_scissor ? g.scissor : p.scissor;
  d->vertex_buffers = g.vertex_buffers;
  d->index_buffer = g.index_buffer;
  d->index_offset = g.index_offset;
  d->index_u32 = g.index_u32;
  d->constants = cb.bindings.constant_buffer(VK_PIPELINE_BIND_POINT_GRAPHICS);
  d->textures = cb.bindings.texture_records(VK_PIPELINE_BIND_POINT_GRAPHICS, p.texture_elements);
  d->pipe_state = p.pipe_state;
  // Transform feedback captures only between begin and end, and only what the pipeline declares.
  if (g.xfb_active && !p.xfb_outputs.empty()) {
    d->xfb = true;
    d->xfb_buffers = g.xfb_buffers;
    for (uint32_t b = 0; b < kMaxXfbBuffers; ++b) {
      if (p.xfb_strides[b] != 0 && g.xfb_buffers[b].buffer == nullptr)
        return *why = "transform feedback buffer " + std::to_string(b) + " is captured but not bound", false;
    }
  }
  return apply_dynamic_state(p, g, &d->pipe_state, why);
}

void record_draw(VkCommandBuffer handle, const char* command, DrawCommand d) {
  CommandBuffer* cb = recording(handle, command);
  if (cb == nullptr) return;
  std::string why;
  if (!snapshot(*cb, &d, &why)) {
    log_refusal(command, why, "not recorded");
    return;
  }
  // An indirect draw's counts are read when it runs (draw_indirect.cc).
  if (d.indirect == nullptr && (d.count == 0 || d.instance_count == 0)) return;  // draws nothing
  const uint32_t view_mask = cb->graphics.render_pass->view_mask;
  if (view_mask == 0) {
    cb->commands.emplace_back(std::move(d));
    return;
  }
  // Multiview: the same draw once per view, into the view's layer, with its index for ViewIndex.
  for (uint32_t v = 0; v < kMaxMultiviewViews; ++v) {
    if (!(view_mask & (1u << v))) continue;
    d.layer = v;
    std::memcpy(d.constants.data() + kViewIndexOffset, &v, sizeof v);
    cb->commands.push_back(d);
  }
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBindPipeline(VkCommandBuffer handle, VkPipelineBindPoint point,
                                                   VkPipeline pipeline) {
  CommandBuffer* cb = recording(handle, "vkCmdBindPipeline");
  if (cb == nullptr) return;
  auto* base = from_handle<PipelineBase>(pipeline);
  if (base == nullptr || (point != VK_PIPELINE_BIND_POINT_GRAPHICS && point != VK_PIPELINE_BIND_POINT_COMPUTE) ||
      base->bind_point != point) {
    log_refusal("vkCmdBindPipeline", "no pipeline of that bind point", "not bound");
    return;
  }
  if (point == VK_PIPELINE_BIND_POINT_COMPUTE) cb->compute_pipeline = static_cast<const ComputePipeline*>(base);
  else cb->graphics.pipeline = static_cast<const GraphicsPipeline*>(base);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBindVertexBuffers(VkCommandBuffer handle, uint32_t first, uint32_t count,
                                                        const VkBuffer* buffers, const VkDeviceSize* offsets) {
  CommandBuffer* cb = recording(handle, "vkCmdBindVertexBuffers");
  if (cb == nullptr) return;
  if (first >= kMaxDrawVertexBindings || count > kMaxDrawVertexBindings - first) {
    log_refusal("vkCmdBindVertexBuffers", "bindings past maxVertexInputBindings (16)", "not bound");
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    cb->graphics.vertex_buffers[first + i] = {from_handle<Buffer>(buffers[i]), offsets[i]};
  }
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBindIndexBuffer(VkCommandBuffer handle, VkBuffer buffer, VkDeviceSize offset,
                                                      VkIndexType type) {
  CommandBuffer* cb = recording(handle, "vkCmdBindIndexBuffer");
  if (cb == nullptr) return;
  if (type != VK_INDEX_TYPE_UINT16 && type != VK_INDEX_TYPE_UINT32) {
    log_refusal("vkCmdBindIndexBuffer", "index type " + std::to_string(type), "not bound");
    return;
  }
  cb->graphics.index_buffer = from_handle<Buffer>(buffer);
  cb->graphics.index_offset = offset;
  cb->graphics.index_u32 = type == VK_INDEX_TYPE_UINT32;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetViewport(VkCommandBuffer handle, uint32_t first, uint32_t count,
                                                  const VkViewport* viewports) {
  CommandBuffer* cb = recording(handle, "vkCmdSetViewport");
  if (cb == nullptr) return;
  if (first != 0 || count != 1) {
    log_refusal("vkCmdSetViewport", "viewports other than 0 (maxViewports is 1)", "not set");
    return;
  }
  cb->graphics.viewport = viewports[0];
  cb->graphics.viewport_set = true;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetScissor(VkCommandBuffer handle, uint32_t first, uint32_t count,
                                                 const VkRect2D* scissors) {
  CommandBuffer* cb = recording(handle, "vkCmdSetScissor");
  if (cb == nullptr) return;
  if (first != 0 || count != 1) {
    log_refusal("vkCmdSetScissor", "scissors other than 0 (maxViewports is 1)", "not set");
    return;
  }
  cb->graphics.scissor = scissors[0];
  cb->graphics.scissor_set = true;
}

// Kept for the draws of pipelines whose line width is dynamic (draw_dynamic.cc apply_dynamic_state).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdSetLineWidth(VkCommandBuffer handle, float width) {
  CommandBuffer* cb = recording(handle, "vkCmdSetLineWidth");
  if (cb == nullptr) return;
  cb->graphics.line_width = checked_line_width(width, "vkCmdSetLineWidth");
  cb->graphics.dynamic_set |= kDynamicLineWidth;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDraw(VkCommandBuffer handle, uint32_t vertex_count, uint32_t instance_count,
                                           uint32_t first_vertex, uint32_t first_instance) {
  DrawCommand d;
  d.count = vertex_count;
  d.instance_count = instance_count;
  d.first_vertex = first_vertex;
  d.first_instance = first_instance;
  record_draw(handle, "vkCmdDraw", std::move(d));
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDrawIndexed(VkCommandBuffer handle, uint32_t index_count,
                                                  uint32_t instance_count, uint32_t first_index, int32_t vertex_offset,
                                                  uint32_t first_instance) {
  DrawCommand d;
  d.indexed = true;
  d.count = index_count;
  d.instance_count = instance_count;
  d.first_index = first_index;
  d.vertex_offset = vertex_offset;
  d.first_instance = first_instance;
  record_draw(handle, "vkCmdDrawIndexed", std::move(d));
}

}  // namespace gsgpu::vk

namespace gsgpu::vk {
namespace {

// vkCmdDraw(Indexed)Indirect: multiDrawIndirect is off and maxDrawIndirectCount is 1, so drawCount is
// 0 (nothing) or 1; the arguments are read from the buffer when the queue reaches the draw.
void record_indirect(VkCommandBuffer handle, const char* command, bool indexed, VkBuffer buffer, VkDeviceSize offset,
                     uint32_t draw_count) {
  if (draw_count > 1) {
    log_refusal(command, "drawCount " + std::to_string(draw_count) + " over maxDrawIndirectCount (1)", "not recorded");
    return;
  }
  if (buffer == VK_NULL_HANDLE) return log_refusal(command, "no buffer", "not recorded");
  if (draw_count == 0) return;
  DrawCommand d;
  d.indexed = indexed;
  d.indirect = from_handle<Buffer>(buffer);
  d.indirect_offset = offset;
  record_draw(handle, command, std::move(d));
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDrawIndirect(VkCommandBuffer handle, VkBuffer buffer, VkDeviceSize offset,
                                                   uint32_t draw_count, uint32_t) {
  record_indirect(handle, "vkCmdDrawIndirect", false, buffer, offset, draw_count);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDrawIndexedIndirect(VkCommandBuffer handle, VkBuffer buffer,
                                                          VkDeviceSize offset, uint32_t draw_count, uint32_t) {
  record_indirect(handle, "vkCmdDrawIndexedIndirect", true, buffer, offset, draw_count);
}

// VK_EXT_transform_feedback's draw of what a capture wrote: the vertex count is (counter -
// counterOffset) / vertexStride, the counter read by the device when the draw runs (DRAW_BYTE_COUNT),
// so the value vkCmdEndTransformFeedbackEXT stored before it is the one used. Vulkan's rules that do
// not depend on the counter are checked here; the device checks the count it computes.
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdDrawIndirectByteCountEXT(VkCommandBuffer handle, uint32_t instance_count,
                                                               uint32_t first_instance, VkBuffer counter_buffer,
                                                               VkDeviceSize counter_buffer_offset,
                                                               uint32_t counter_offset, uint32_t vertex_stride) {
  const char* command = "vkCmdDrawIndirectByteCountEXT";
  if (counter_buffer == VK_NULL_HANDLE) return log_refusal(command, "no counter buffer", "not recorded");
  if (vertex_stride == 0 || vertex_stride > kMaxXfbVertexStride)
    return log_refusal(command, "vertexStride " + std::to_string(vertex_stride) + " outside 1-2048", "not recorded");
  if (counter_buffer_offset % 4 != 0)
    return log_refusal(command, "a counter buffer offset that is not a multiple of 4", "not recorded");
  DrawCommand d;
  d.byte_count = true;
  d.indirect = from_handle<Buffer>(counter_buffer);
  d.indirect_offset = counter_buffer_offset;
  d.counter_offset = counter_offset;
  d.vertex_stride = vertex_stride;
  d.instance_count = instance_count;
  d.first_instance = first_instance;
  if (instance_count == 0) return;  // draws nothing
  record_draw(handle, command, std::move(d));
}

}  // namespace gsgpu::vk
