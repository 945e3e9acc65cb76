// Secondary command buffers (docs/vulkan-driver.md "Secondary command buffers"). A secondary is
// recorded like a primary; begun with RENDER_PASS_CONTINUE it records draws and clears against the
// inherited render pass, whose framebuffer it may not know. vkCmdExecuteCommands copies the
// secondary's commands into the primary where it is called, aiming each draw and clear at the
// primary's current attachments (the inherited framebuffer, when given, must be that one), so a
// secondary runs in several primaries, or several times in one, each time into the right targets.
// A copy is what the spec allows: a secondary re-recorded or freed invalidates the primaries that
// executed it.
#include <string>
#include <variant>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// The primary's attachments for a command of a secondary continuing its pass.
void aim_at(const GraphicsRecordState& g, Command* command) {
  const RenderPass& pass = *g.render_pass;
  auto view = [&](int32_t index) { return index >= 0 ? g.attachments[index] : nullptr; };
  if (auto* d = std::get_if<DrawCommand>(command)) {
    for (uint32_t i = 0; i < pass.color_count; ++i) d->colors[i] = view(pass.colors[i]);
    d->depth = view(pass.depth);
    d->width = g.framebuffer->width;
    d->height = g.framebuffer->height;
  } else if (auto* c = std::get_if<BeginRenderPassCommand>(command)) {  // vkCmdClearAttachments
    if (c->clear_color) c->color = c->color_attachment < pass.color_count ? view(pass.colors[c->color_attachment]) : nullptr;
    if (c->clear_depth || c->clear_stencil) c->depth = view(pass.depth);
  }
}

// Why `secondary` cannot run in `primary` now; empty when it can.
std::string refusal(const CommandBuffer& primary, const CommandBuffer* secondary) {
  if (secondary == nullptr) return "a null command buffer";
  if (!secondary->secondary) return "a primary command buffer";
  if (secondary->state != CommandBuffer::State::kExecutable) return "a secondary that is not executable";
  const bool in_pass = primary.graphics.render_pass != nullptr;
  if (in_pass != secondary->continues_pass) {
    return in_pass ? "a secondary without RENDER_PASS_CONTINUE inside a render pass"
                   : "a secondary continuing a render pass outside one";
  }
  if (in_pass && secondary->graphics.render_pass != nullptr &&
      secondary->graphics.render_pass->attachments.size() != primary.graphics.render_pass->attachments.size()) {
    return "a secondary of a render pass with other attachments";
  }
  return "";
}

}  // namespace

void begin_secondary(CommandBuffer* cb, const VkCommandBufferBeginInfo* info) {
  if (info == nullptr || !(info->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT)) return;
  const VkCommandBufferInheritanceInfo* inherit = info->pInheritanceInfo;
  const auto* pass = inherit != nullptr ? from_handle<RenderPass>(inherit->renderPass) : nullptr;
  if (pass == nullptr || inherit->subpass != 0) {
    // Its draws are then refused as outside a render pass.
    log_refusal("vkBeginCommandBuffer", "RENDER_PASS_CONTINUE without a render pass, or a subpass other than 0",
                "no pass inherited");
    return;
  }
  cb->continues_pass = true;
  cb->graphics.render_pass = pass;
  cb->graphics.framebuffer = from_handle<Framebuffer>(inherit->framebuffer);  // may be null
  if (cb->graphics.framebuffer != nullptr) cb->graphics.attachments = cb->graphics.framebuffer->attachments;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdExecuteCommands(VkCommandBuffer handle, uint32_t count,
                                                      const VkCommandBuffer* buffers) {
  CommandBuffer* primary = from_handle<CommandBuffer>(handle);
  if (primary->state != CommandBuffer::State::kRecording || primary->secondary) {
    return log_refusal("vkCmdExecuteCommands", "not a recording primary command buffer", "not recorded");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const CommandBuffer* secondary = from_handle<CommandBuffer>(buffers[i]);
    if (const std::string why = refusal(*primary, secondary); !why.empty()) {
      log_refusal("vkCmdExecuteCommands", "command buffer " + std::to_string(i) + ": " + why, "skipped");
      continue;
    }
    for (const Command& c : secondary->commands) {
      primary->commands.push_back(c);
      if (secondary->continues_pass) aim_at(primary->graphics, &primary->commands.back());
    }
  }
}

}  // namespace gsgpu::vk
