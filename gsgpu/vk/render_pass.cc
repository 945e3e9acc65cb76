// Render passes and framebuffers (docs/vulkan-driver.md "Draws"). A render pass has one subpass
// with at most one colour and one depth / stencil attachment, in formats the output merger writes
// (PIPE_STATE COLOR_FORMAT / DEPTH_FORMAT). Load ops CLEAR run on the host when the queue reaches
// vkCmdBeginRenderPass (the targets are linear memory, as the transfers'); LOAD and DONT_CARE do
// nothing, and every store op keeps the memory (there is no tile memory to write back). What the
// emulator cannot do is refused with VK_ERROR_FEATURE_NOT_PRESENT and a log line.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// Checks one subpass of a render pass; *why names what is not supported.
bool check_subpass(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why) {
  if (info.subpassCount != 1) return *why = std::to_string(info.subpassCount) + " subpasses (1 is supported)", false;
  const VkSubpassDescription& s = info.pSubpasses[0];
  if (s.pipelineBindPoint != VK_PIPELINE_BIND_POINT_GRAPHICS) return *why = "a subpass not for graphics", false;
  if (s.inputAttachmentCount != 0 || s.pResolveAttachments != nullptr || s.preserveAttachmentCount != 0) {
    return *why = "input, resolve or preserve attachments", false;
  }
  if (s.colorAttachmentCount > 1) return *why = std::to_string(s.colorAttachmentCount) + " colour attachments (1 is supported)", false;
  auto index = [&](uint32_t a, int32_t* out) {
    if (a == VK_ATTACHMENT_UNUSED) return true;
    if (a >= info.attachmentCount) return *why = "attachment index " + std::to_string(a) + " out of range", false;
    *out = int32_t(a);
    return true;
  };
  if (s.colorAttachmentCount == 1 && !index(s.pColorAttachments[0].attachment, &pass->color)) return false;
  if (s.pDepthStencilAttachment != nullptr && !index(s.pDepthStencilAttachment->attachment, &pass->depth)) return false;
  if (pass->color >= 0 && !pass->attachments[pass->color].format->color_target) {
    return *why = "colour attachment format " + std::to_string(pass->attachments[pass->color].format->format) +
                  " is not a render-target format",
           false;
  }
  if (pass->depth >= 0 && !pass->attachments[pass->depth].format->depth_target) {
    return *why = "depth attachment format " + std::to_string(pass->attachments[pass->depth].format->format) +
                  " is not a depth-target format",
           false;
  }
  if (pass->color >= 0 && pass->color == pass->depth) return *why = "one attachment is both colour and depth", false;
  return true;
}

bool build_render_pass(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why) {
  for (uint32_t i = 0; i < info.attachmentCount; ++i) {
    const VkAttachmentDescription& a = info.pAttachments[i];
    const FormatInfo* format = find_format(a.format);
    if (format == nullptr) return *why = "attachment " + std::to_string(i) + ": unsupported format", false;
    if (a.samples != VK_SAMPLE_COUNT_1_BIT) return *why = "attachment " + std::to_string(i) + ": multisampled", false;
    pass->attachments.push_back({format, a.loadOp, a.stencilLoadOp});
  }
  return check_subpass(info, pass, why);
}

// The host bytes of the view's render target, or nullptr when its image lost its memory.
uint8_t* target_bytes(const ImageView* view) {
  const Image* image = view->image;
  if (image->memory == nullptr) return nullptr;
  return image->memory->map + image->memory_offset + (view->target_va - image->va);
}

// Writes `texel` over the rectangle of the view (clipped to it); with `mask`, only the bytes whose
// mask byte is 0xff.
void fill_rect(const ImageView* view, VkRect2D area, const uint8_t* texel, const uint8_t* mask) {
  uint8_t* base = target_bytes(view);
  if (base == nullptr) {
    std::fprintf(stderr, "gsgpu-vk: vkCmdBeginRenderPass: attachment's image not bound to memory; clear skipped\n");
    return;
  }
  const uint32_t e = view->format->element_bytes;
  const int64_t x0 = std::clamp<int64_t>(area.offset.x, 0, view->width);
  const int64_t y0 = std::clamp<int64_t>(area.offset.y, 0, view->height);
  const int64_t x1 = std::clamp<int64_t>(int64_t{area.offset.x} + area.extent.width, x0, view->width);
  const int64_t y1 = std::clamp<int64_t>(int64_t{area.offset.y} + area.extent.height, y0, view->height);
  for (int64_t y = y0; y < y1; ++y) {
    uint8_t* row = base + uint64_t(y) * view->target_pitch;
    for (int64_t x = x0; x < x1; ++x) {
      uint8_t* t = row + uint64_t(x) * e;
      if (mask == nullptr) {
        std::memcpy(t, texel, e);
      } else {
        for (uint32_t i = 0; i < e; ++i) t[i] = (t[i] & ~mask[i]) | (texel[i] & mask[i]);
      }
    }
  }
}

// A framebuffer attachment must be a one-level 2D view of a bound image, at least as large as the
// framebuffer (its render target is what PIPE_STATE names).
bool check_attachment(const ImageView* view, uint32_t width, uint32_t height, std::string* why) {
  if (view == nullptr) return *why = "a null attachment", false;
  if (view->target_va == 0) return *why = "an attachment view that is no render target (one 2D level of a bound image)", false;
  if (view->width < width || view->height < height) return *why = "an attachment smaller than the framebuffer", false;
  return true;
}

}  // namespace

void run(const BeginRenderPassCommand& c) {
  if (c.color != nullptr && c.clear_color) {
    uint8_t texel[16];
    encode_clear_color(*c.color->format, c.color_value, texel);
    fill_rect(c.color, c.area, texel, nullptr);
  }
  if (c.depth != nullptr && (c.clear_depth || c.clear_stencil)) {
    const VkImageAspectFlags aspects =
        (c.clear_depth ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) | (c.clear_stencil ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
    uint8_t texel[4], mask[4];
    encode_depth_stencil(*c.depth->format, c.depth_value, aspects & c.depth->format->aspects, texel, mask);
    fill_rect(c.depth, c.area, texel, mask);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateRenderPass(VkDevice, const VkRenderPassCreateInfo* info,
                                                        const VkAllocationCallbacks*, VkRenderPass* out) {
  *out = VK_NULL_HANDLE;
  auto* pass = new (std::nothrow) RenderPass;
  if (pass == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  std::string why;
  if (!build_render_pass(*info, pass, &why)) {
    delete pass;
    log_refusal("vkCreateRenderPass", why);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  *out = to_handle<VkRenderPass>(pass);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyRenderPass(VkDevice, VkRenderPass pass, const VkAllocationCallbacks*) {
  delete from_handle<RenderPass>(pass);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetRenderAreaGranularity(VkDevice, VkRenderPass, VkExtent2D* granularity) {
  *granularity = {1, 1};
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateFramebuffer(VkDevice, const VkFramebufferCreateInfo* info,
                                                         const VkAllocationCallbacks*, VkFramebuffer* out) {
  *out = VK_NULL_HANDLE;
  const auto* pass = from_handle<RenderPass>(info->renderPass);
  std::string why;
  if (pass == nullptr || info->attachmentCount != pass->attachments.size()) {
    why = "attachment count differs from the render pass's";
  } else if (info->width == 0 || info->height == 0 || info->width > 4096 || info->height > 4096 || info->layers != 1) {
    why = "size outside 1 .. 4096 or layers other than 1";
  }
  auto fb = std::make_unique<Framebuffer>();
  for (uint32_t i = 0; why.empty() && i < info->attachmentCount; ++i) {
    auto* view = from_handle<ImageView>(info->pAttachments[i]);
    if (check_attachment(view, info->width, info->height, &why)) fb->attachments.push_back(view);
  }
  if (!why.empty()) {
    log_refusal("vkCreateFramebuffer", why);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  fb->width = info->width;
  fb->height = info->height;
  *out = to_handle<VkFramebuffer>(fb.release());
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyFramebuffer(VkDevice, VkFramebuffer fb, const VkAllocationCallbacks*) {
  delete from_handle<Framebuffer>(fb);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginRenderPass(VkCommandBuffer handle, const VkRenderPassBeginInfo* info,
                                                      VkSubpassContents) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const auto* pass = from_handle<RenderPass>(info->renderPass);
  const auto* fb = from_handle<Framebuffer>(info->framebuffer);
  if (cb->state != CommandBuffer::State::kRecording || pass == nullptr || fb == nullptr ||
      fb->attachments.size() != pass->attachments.size() || cb->graphics.render_pass != nullptr) {
    log_refusal("vkCmdBeginRenderPass", "not recording, a null or mismatched pass / framebuffer, or inside a pass",
                "not recorded");
    return;
  }
  BeginRenderPassCommand c;
  c.area = info->renderArea;
  auto clear_value = [&](int32_t a) {
    return uint32_t(a) < info->clearValueCount && info->pClearValues != nullptr ? info->pClearValues[a] : VkClearValue{};
  };
  if (pass->color >= 0) {
    c.color = fb->attachments[pass->color];
    c.clear_color = pass->attachments[pass->color].load_op == VK_ATTACHMENT_LOAD_OP_CLEAR;
    c.color_value = clear_value(pass->color).color;
  }
  if (pass->depth >= 0) {
    c.depth = fb->attachments[pass->depth];
    c.clear_depth = pass->attachments[pass->depth].load_op == VK_ATTACHMENT_LOAD_OP_CLEAR;
    c.clear_stencil = pass->attachments[pass->depth].stencil_load_op == VK_ATTACHMENT_LOAD_OP_CLEAR;
    c.depth_value = clear_value(pass->depth).depthStencil;
  }
  cb->graphics.render_pass = pass;
  cb->graphics.framebuffer = fb;
  cb->commands.emplace_back(c);
}

// Clears inside the render pass: each (attachment, rectangle) pair becomes a host clear in queue order,
// as the load ops (the draws before it have finished when it runs: each draw is waited for).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdClearAttachments(VkCommandBuffer handle, uint32_t count,
                                                       const VkClearAttachment* attachments, uint32_t rect_count,
                                                       const VkClearRect* rects) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const RenderPass* pass = cb->graphics.render_pass;
  const Framebuffer* fb = cb->graphics.framebuffer;
  if (cb->state != CommandBuffer::State::kRecording || pass == nullptr) {
    log_refusal("vkCmdClearAttachments", "not recording inside a render pass", "not recorded");
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const VkClearAttachment& a = attachments[i];
    BeginRenderPassCommand c;
    if (a.aspectMask & VK_IMAGE_ASPECT_COLOR_BIT) {
      if (a.colorAttachment != 0 || pass->color < 0) {
        log_refusal("vkCmdClearAttachments", "colour attachment " + std::to_string(a.colorAttachment) +
                                                 " is not in the subpass", "skipped");
        continue;
      }
      c.color = fb->attachments[pass->color];
      c.clear_color = true;
      c.color_value = a.clearValue.color;
    } else if (pass->depth >= 0) {
      c.depth = fb->attachments[pass->depth];
      c.clear_depth = (a.aspectMask & VK_IMAGE_ASPECT_DEPTH_BIT) != 0;
      c.clear_stencil = (a.aspectMask & VK_IMAGE_ASPECT_STENCIL_BIT) != 0;
      c.depth_value = a.clearValue.depthStencil;
    } else {
      log_refusal("vkCmdClearAttachments", "the subpass has no depth / stencil attachment", "skipped");
      continue;
    }
    for (uint32_t r = 0; r < rect_count; ++r) {
      if (rects[r].baseArrayLayer != 0 || rects[r].layerCount != 1) {
        log_refusal("vkCmdClearAttachments", "layers other than 0 (framebuffers have one)", "rectangle skipped");
        continue;
      }
      c.area = rects[r].rect;
      cb->commands.emplace_back(c);
    }
  }
}

// Every render pass this driver creates has one subpass, so there is never a next one: the call is
// invalid usage, refused with a log line (nothing recorded).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdNextSubpass(VkCommandBuffer, VkSubpassContents) {
  log_refusal("vkCmdNextSubpass", "render passes have one subpass", "not recorded");
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdEndRenderPass(VkCommandBuffer handle) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  cb->graphics.render_pass = nullptr;
  cb->graphics.framebuffer = nullptr;
}

}  // namespace gsgpu::vk
