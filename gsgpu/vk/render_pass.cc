// Render passes (docs/vulkan-driver.md "Draws"; framebuffers: framebuffer.cc, the *2 commands:
// render_pass2.cc). A render pass has one subpass with up to eight colour attachments and one
// depth / stencil attachment (all of one sample count), and with VK_KHR_multiview a view mask: its load ops, clears and draws are replayed
// once per view into the attachments' layer of that index. Attachments are in formats the output merger writes
// (PIPE_STATE COLOR_FORMAT / DEPTH_FORMAT). Load ops CLEAR run on the host when the queue reaches
// vkCmdBeginRenderPass (the targets are linear memory, as the transfers'); LOAD and DONT_CARE do
// nothing, and every store op keeps the memory (there is no tile memory to write back). Each colour
// resolve attachment is averaged from its multisampled colour attachment at vkCmdEndRenderPass (a
// ResolveImageCommand, image_resolve.cc). What the
// emulator cannot do is refused with VK_ERROR_FEATURE_NOT_PRESENT and a log line.
#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {

bool set_view_mask(uint32_t mask, RenderPass* pass, std::string* why) {
  if (mask >> kMaxMultiviewViews != 0) {
    return *why = "view mask " + std::to_string(mask) + " names views past maxMultiviewViewCount (" +
                  std::to_string(kMaxMultiviewViews) + ")",
           false;
  }
  pass->view_mask = mask;
  return true;
}

namespace {

// The subpass's colour and depth attachments have one sample count (a draw's PIPE_STATE names one);
// each colour attachment's resolve attachment has one sample and that attachment's format, which has
// several, and is none of the subpass's colour or depth attachments.
bool check_resolve(const RenderPass& pass, uint32_t i, std::string* why) {
  const auto& a = pass.attachments;
  const int32_t color = pass.colors[i], resolve = pass.resolves[i];
  bool ok = color >= 0 && a[color].samples != 1 && a[resolve].samples == 1 && a[resolve].format == a[color].format &&
            resolve != pass.depth;
  for (uint32_t j = 0; ok && j < pass.color_count; ++j) ok = pass.colors[j] != resolve;
  for (uint32_t j = 0; ok && j < i; ++j) ok = pass.resolves[j] != resolve;
  if (ok) return true;
  return *why = "resolve attachment " + std::to_string(i) +
                " is not a one-sample attachment of its multisampled colour attachment's format, or is used twice",
         false;
}

bool check_samples(const RenderPass& pass, std::string* why) {
  const auto& a = pass.attachments;
  uint32_t samples = pass.depth >= 0 ? a[pass.depth].samples : 0;
  for (uint32_t i = 0; i < pass.color_count; ++i) {
    if (pass.colors[i] < 0) continue;
    if (samples != 0 && a[pass.colors[i]].samples != samples) {
      return *why = "colour / depth attachments of different sample counts", false;
    }
    samples = a[pass.colors[i]].samples;
  }
  for (uint32_t i = 0; i < pass.color_count; ++i) {
    if (pass.resolves[i] >= 0 && !check_resolve(pass, i, why)) return false;
  }
  return true;
}

// Checks one subpass of a render pass; *why names what is not supported.
bool check_subpass(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why) {
  if (info.subpassCount != 1) return *why = std::to_string(info.subpassCount) + " subpasses (1 is supported)", false;
  const VkSubpassDescription& s = info.pSubpasses[0];
  if (s.pipelineBindPoint != VK_PIPELINE_BIND_POINT_GRAPHICS) return *why = "a subpass not for graphics", false;
  if (s.inputAttachmentCount != 0 || s.preserveAttachmentCount != 0) {
    return *why = "input or preserve attachments", false;
  }
  if (s.colorAttachmentCount > kMaxColorAttachments) {
    return *why = std::to_string(s.colorAttachmentCount) + " colour attachments (maxColorAttachments is 8)", false;
  }
  if (s.colorAttachmentCount > 0 && s.pColorAttachments == nullptr) return *why = "pColorAttachments is null", false;
  auto index = [&](uint32_t a, int32_t* out) {
    if (a == VK_ATTACHMENT_UNUSED) return true;
    if (a >= info.attachmentCount) return *why = "attachment index " + std::to_string(a) + " out of range", false;
    *out = int32_t(a);
    return true;
  };
  pass->color_count = s.colorAttachmentCount;
  for (uint32_t i = 0; i < s.colorAttachmentCount; ++i) {
    int32_t& a = pass->colors[i];
    if (!index(s.pColorAttachments[i].attachment, &a)) return false;
    if (a >= 0 && !pass->attachments[a].format->color_target) {
      return *why = "colour attachment format " + std::to_string(pass->attachments[a].format->format) +
                    " is not a render-target format",
             false;
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (a >= 0 && pass->colors[j] == a) return *why = "one attachment is two colour attachments", false;
    }
  }
  if (s.pDepthStencilAttachment != nullptr && !index(s.pDepthStencilAttachment->attachment, &pass->depth)) return false;
  if (pass->depth >= 0 && !pass->attachments[pass->depth].format->depth_target) {
    return *why = "depth attachment format " + std::to_string(pass->attachments[pass->depth].format->format) +
                  " is not a depth-target format",
           false;
  }
  for (uint32_t i = 0; i < pass->color_count; ++i) {
    if (pass->depth >= 0 && pass->colors[i] == pass->depth) return *why = "one attachment is both colour and depth", false;
  }
  if (s.pResolveAttachments != nullptr) {
    for (uint32_t i = 0; i < s.colorAttachmentCount; ++i) {
      if (!index(s.pResolveAttachments[i].attachment, &pass->resolves[i])) return false;
    }
  }
  return check_samples(*pass, why);
}

// VkRenderPassMultiviewCreateInfo (VK_KHR_multiview) in the 1.0 create info's chain: one view
// mask per subpass (the one subpass's), no correlation masks beyond it.
bool read_multiview(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why) {
  const auto* mv = find_in_chain<VkRenderPassMultiviewCreateInfo>(info.pNext,
                                                                 VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO);
  if (mv == nullptr || mv->subpassCount == 0) return true;
  if (mv->subpassCount != info.subpassCount || mv->pViewMasks == nullptr) {
    return *why = "a multiview subpass count other than the pass's", false;
  }
  if (mv->dependencyCount != 0 && mv->dependencyCount != info.dependencyCount) {
    return *why = "a multiview dependency count other than the pass's", false;
  }
  return set_view_mask(mv->pViewMasks[0], pass, why);
}

}  // namespace

bool build_render_pass(const VkRenderPassCreateInfo& info, RenderPass* pass, std::string* why) {
  if (info.attachmentCount > 0 && info.pAttachments == nullptr) return *why = "pAttachments is null", false;
  if (info.subpassCount == 1 && info.pSubpasses == nullptr) return *why = "pSubpasses is null", false;
  if (!read_multiview(info, pass, why)) return false;
  for (uint32_t i = 0; i < info.attachmentCount; ++i) {
    const VkAttachmentDescription& a = info.pAttachments[i];
    const FormatInfo* format = find_format(a.format);
    if (format == nullptr) return *why = "attachment " + std::to_string(i) + ": unsupported format", false;
    if (!std::has_single_bit(uint32_t(a.samples)) || (a.samples & kAttachmentSampleCounts) == 0) {
      return *why = "attachment " + std::to_string(i) + ": " + std::to_string(a.samples) + " samples", false;
    }
    pass->attachments.push_back({format, a.loadOp, a.stencilLoadOp, uint32_t(a.samples)});
  }
  return check_subpass(info, pass, why);
}

namespace {

// The host bytes of `layer` of the view's render target, or nullptr when its image lost its memory.
uint8_t* target_bytes(const ImageView* view, uint32_t layer) {
  const Image* image = view->image;
  if (image->memory == nullptr) return nullptr;
  return image->memory->map + image->memory_offset + (target_layer_va(*view, layer) - image->va);
}

// Writes `texel` over the rectangle of the view's layer (clipped to it); with `mask`, only the bytes
// whose mask byte is 0xff.
void fill_rect(const ImageView* view, uint32_t layer, VkRect2D area, const uint8_t* texel, const uint8_t* mask) {
  uint8_t* base = target_bytes(view, layer);
  if (base == nullptr) {
    std::fprintf(stderr, "gsgpu-vk: vkCmdBeginRenderPass: attachment's image not bound to memory; clear skipped\n");
    return;
  }
  // A multisampled view's pixels hold their samples side by side (image_layout.h): all are written.
  const uint32_t e = view->format->element_bytes * view->image->layout.shape.samples;
  const uint32_t texel_bytes = view->format->element_bytes;
  const int64_t x0 = std::clamp<int64_t>(area.offset.x, 0, view->width);
  const int64_t y0 = std::clamp<int64_t>(area.offset.y, 0, view->height);
  const int64_t x1 = std::clamp<int64_t>(int64_t{area.offset.x} + area.extent.width, x0, view->width);
  const int64_t y1 = std::clamp<int64_t>(int64_t{area.offset.y} + area.extent.height, y0, view->height);
  for (int64_t y = y0; y < y1; ++y) {
    uint8_t* row = base + uint64_t(y) * view->target_pitch;
    for (int64_t x = x0; x < x1; ++x) {
      for (uint8_t* t = row + uint64_t(x) * e; t < row + uint64_t(x + 1) * e; t += texel_bytes) {
        if (mask == nullptr) {
          std::memcpy(t, texel, texel_bytes);
        } else {
          for (uint32_t i = 0; i < texel_bytes; ++i) t[i] = (t[i] & ~mask[i]) | (texel[i] & mask[i]);
        }
      }
    }
  }
}

// The layers a command of the subpass touches: each view of the mask, or layer 0 without multiview.
template <typename F>
void for_each_view(uint32_t view_mask, F&& f) {
  if (view_mask == 0) return f(0u);
  for (uint32_t v = 0; v < kMaxMultiviewViews; ++v) {
    if (view_mask & (1u << v)) f(v);
  }
}

// The attachments of the pass being begun: the framebuffer's views, or for an imageless framebuffer
// the begin info's VkRenderPassAttachmentBeginInfo, checked against what the framebuffer declared.
bool pass_attachments(const VkRenderPassBeginInfo& info, const Framebuffer& fb, std::vector<ImageView*>* out,
                      std::string* why) {
  if (!fb.imageless) {
    *out = fb.attachments;
    return true;
  }
  const auto* begin = find_in_chain<VkRenderPassAttachmentBeginInfo>(
      info.pNext, VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO);
  if (begin == nullptr) return *why = "an imageless framebuffer without VkRenderPassAttachmentBeginInfo", false;
  if (begin->attachmentCount != fb.infos.size() || (begin->attachmentCount > 0 && begin->pAttachments == nullptr)) {
    return *why = "VkRenderPassAttachmentBeginInfo has " + std::to_string(begin->attachmentCount) +
                  " attachments, the framebuffer " + std::to_string(fb.infos.size()),
           false;
  }
  for (uint32_t i = 0; i < begin->attachmentCount; ++i) {
    ImageView* view = from_handle<ImageView>(begin->pAttachments[i]);
    if (!imageless_view_matches(view, fb.infos[i], fb.width, fb.height, why)) {
      return *why = "attachment " + std::to_string(i) + ": " + *why, false;
    }
    out->push_back(view);
  }
  return true;
}

// Multiview renders view v into layer v: every attachment needs a layer for the highest view.
bool views_have_layers(const RenderPass& pass, const std::vector<ImageView*>& views, std::string* why) {
  if (pass.view_mask == 0) return true;
  const uint32_t needed = 32 - uint32_t(__builtin_clz(pass.view_mask));
  for (const ImageView* v : views) {
    if (v->shape.layer_count < needed) {
      return *why = "an attachment view of " + std::to_string(v->shape.layer_count) + " layers for view mask " +
                    std::to_string(pass.view_mask),
             false;
    }
  }
  return true;
}

// Each view's image has the sample count its attachment declares (the draws' PIPE_STATE takes it
// from the images, the resolve reads their samples).
bool views_have_samples(const RenderPass& pass, const std::vector<ImageView*>& views, std::string* why) {
  for (size_t i = 0; i < views.size(); ++i) {
    if (views[i]->image->layout.shape.samples != pass.attachments[i].samples) {
      return *why = "attachment " + std::to_string(i) + " is a view of an image of " +
                    std::to_string(views[i]->image->layout.shape.samples) + " samples; the pass declares " +
                    std::to_string(pass.attachments[i].samples),
             false;
    }
  }
  return true;
}

// Each resolve attachment's averaging at the end of the subpass: the render area (clipped to both
// views) of each view's layer, as vkCmdResolveImage would do it (image_resolve.cc).
void record_resolve(CommandBuffer* cb, const ImageView* src, const ImageView* dst, uint32_t view_mask) {
  const VkRect2D& area = cb->graphics.render_area;
  const int64_t x0 = std::max<int64_t>(area.offset.x, 0), y0 = std::max<int64_t>(area.offset.y, 0);
  const int64_t x1 = std::min<int64_t>({int64_t{area.offset.x} + area.extent.width, src->width, dst->width});
  const int64_t y1 = std::min<int64_t>({int64_t{area.offset.y} + area.extent.height, src->height, dst->height});
  if (x0 >= x1 || y0 >= y1) return;
  for_each_view(view_mask, [&](uint32_t layer) {
    VkImageResolve r{};
    r.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, src->shape.base_level, src->shape.base_layer + layer, 1};
    r.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, dst->shape.base_level, dst->shape.base_layer + layer, 1};
    r.srcOffset = r.dstOffset = {int32_t(x0), int32_t(y0), 0};
    r.extent = {uint32_t(x1 - x0), uint32_t(y1 - y0), 1};
    cb->commands.emplace_back(ResolveImageCommand{src->image, dst->image, {r}});
  });
}

void record_resolves(CommandBuffer* cb, const RenderPass& pass) {
  const std::vector<ImageView*>& views = cb->graphics.attachments;
  if (views.empty()) return;  // a secondary's pass of unknown framebuffer: the primary resolves
  for (uint32_t i = 0; i < pass.color_count; ++i) {
    if (pass.resolves[i] >= 0) record_resolve(cb, views[pass.colors[i]], views[pass.resolves[i]], pass.view_mask);
  }
}

void record_load_ops(CommandBuffer* cb, const RenderPass& pass, const VkRenderPassBeginInfo& info) {
  const std::vector<ImageView*>& views = cb->graphics.attachments;
  BeginRenderPassCommand c;
  c.area = info.renderArea;
  auto clear_value = [&](int32_t a) {
    return uint32_t(a) < info.clearValueCount && info.pClearValues != nullptr ? info.pClearValues[a] : VkClearValue{};
  };
  // One command per colour attachment to clear, then one for depth / stencil.
  for (uint32_t i = 0; i < pass.color_count; ++i) {
    const int32_t a = pass.colors[i];
    if (a < 0 || pass.attachments[a].load_op != VK_ATTACHMENT_LOAD_OP_CLEAR) continue;
    BeginRenderPassCommand color;
    color.area = info.renderArea;
    color.color = views[a];
    color.color_attachment = i;
    color.clear_color = true;
    color.color_value = clear_value(a).color;
    for_each_view(pass.view_mask, [&](uint32_t layer) {
      color.layer = layer;
      cb->commands.emplace_back(color);
    });
  }
  if (pass.depth >= 0) {
    c.depth = views[pass.depth];
    c.clear_depth = pass.attachments[pass.depth].load_op == VK_ATTACHMENT_LOAD_OP_CLEAR;
    c.clear_stencil = pass.attachments[pass.depth].stencil_load_op == VK_ATTACHMENT_LOAD_OP_CLEAR;
    c.depth_value = clear_value(pass.depth).depthStencil;
  }
  for_each_view(pass.view_mask, [&](uint32_t layer) {
    c.layer = layer;
    cb->commands.emplace_back(c);
  });
}

}  // namespace

uint64_t target_layer_va(const ImageView& view, uint32_t layer) {
  return view.target_va + uint64_t{layer} * view.layer_pitch;
}

void run(const BeginRenderPassCommand& c) {
  if (c.color != nullptr && c.clear_color) {
    uint8_t texel[16];
    encode_clear_color(*c.color->format, c.color_value, texel);
    fill_rect(c.color, c.layer, c.area, texel, nullptr);
  }
  if (c.depth != nullptr && (c.clear_depth || c.clear_stencil)) {
    const VkImageAspectFlags aspects =
        (c.clear_depth ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) | (c.clear_stencil ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
    uint8_t texel[kMaxDepthStencilBytes], mask[kMaxDepthStencilBytes];
    encode_depth_stencil(*c.depth->format, c.depth_value, aspects & c.depth->format->aspects, texel, mask);
    fill_rect(c.depth, c.layer, c.area, texel, mask);
  }
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateRenderPass(VkDevice, const VkRenderPassCreateInfo* info,
                                                        const VkAllocationCallbacks*, VkRenderPass* out) {
  *out = VK_NULL_HANDLE;
  auto pass = std::make_unique<RenderPass>();
  std::string why;
  if (!build_render_pass(*info, pass.get(), &why)) {
    log_refusal("vkCreateRenderPass", why);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  *out = to_handle<VkRenderPass>(pass.release());
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyRenderPass(VkDevice, VkRenderPass pass, const VkAllocationCallbacks*) {
  delete from_handle<RenderPass>(pass);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkGetRenderAreaGranularity(VkDevice, VkRenderPass, VkExtent2D* granularity) {
  *granularity = {1, 1};
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginRenderPass(VkCommandBuffer handle, const VkRenderPassBeginInfo* info,
                                                      VkSubpassContents) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const auto* pass = from_handle<RenderPass>(info->renderPass);
  const auto* fb = from_handle<Framebuffer>(info->framebuffer);
  std::string why;
  std::vector<ImageView*> views;
  if (cb->state != CommandBuffer::State::kRecording || pass == nullptr || fb == nullptr ||
      cb->graphics.render_pass != nullptr || cb->secondary) {
    why = "not recording, a null pass / framebuffer, inside a pass, or a secondary command buffer";
  } else if (pass_attachments(*info, *fb, &views, &why) && views.size() != pass->attachments.size()) {
    why = "the framebuffer's attachment count differs from the pass's";
  }
  if (why.empty() && views_have_layers(*pass, views, &why)) views_have_samples(*pass, views, &why);
  if (!why.empty()) {
    log_refusal("vkCmdBeginRenderPass", why, "not recorded");
    return;
  }
  cb->graphics.render_pass = pass;
  cb->graphics.framebuffer = fb;
  cb->graphics.attachments = std::move(views);
  cb->graphics.render_area = info->renderArea;
  record_load_ops(cb, *pass, *info);
}

// Clears inside the render pass: each (attachment, rectangle) pair becomes a host clear in queue order,
// as the load ops (the draws before it have finished when it runs: each draw is waited for). With
// multiview, the rectangle's layers are the subpass's views (baseArrayLayer 0, layerCount 1).
VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdClearAttachments(VkCommandBuffer handle, uint32_t count,
                                                       const VkClearAttachment* attachments, uint32_t rect_count,
                                                       const VkClearRect* rects) {
  CommandBuffer* cb = from_handle<CommandBuffer>(handle);
  const RenderPass* pass = cb->graphics.render_pass;
  if (cb->state != CommandBuffer::State::kRecording || pass == nullptr) {
    log_refusal("vkCmdClearAttachments", "not recording inside a render pass", "not recorded");
    return;
  }
  const std::vector<ImageView*>& views = cb->graphics.attachments;
  for (uint32_t i = 0; i < count; ++i) {
    const VkClearAttachment& a = attachments[i];
    BeginRenderPassCommand c;
    if (a.aspectMask & VK_IMAGE_ASPECT_COLOR_BIT) {
      if (a.colorAttachment >= pass->color_count || pass->colors[a.colorAttachment] < 0) {
        log_refusal("vkCmdClearAttachments", "colour attachment " + std::to_string(a.colorAttachment) +
                                                 " is not in the subpass", "skipped");
        continue;
      }
      // A secondary continuing a pass of unknown framebuffer has no views: vkCmdExecuteCommands
      // aims the clear at the primary's (secondary.cc).
      c.color = views.empty() ? nullptr : views[pass->colors[a.colorAttachment]];
      c.color_attachment = a.colorAttachment;
      c.clear_color = true;
      c.color_value = a.clearValue.color;
    } else if (pass->depth >= 0) {
      c.depth = views.empty() ? nullptr : views[pass->depth];
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
      for_each_view(pass->view_mask, [&](uint32_t layer) {
        c.layer = layer;
        cb->commands.emplace_back(c);
      });
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
  if (cb->state == CommandBuffer::State::kRecording && cb->graphics.render_pass != nullptr) {
    record_resolves(cb, *cb->graphics.render_pass);
  }
  cb->graphics.render_pass = nullptr;
  cb->graphics.framebuffer = nullptr;
  cb->graphics.attachments.clear();
}

}  // namespace gsgpu::vk
