// VK_KHR_create_renderpass2 (docs/vulkan-driver.md "Draws"): vkCreateRenderPass2 translates its
// structures into the 1.0 ones, which say the same for what this device supports (one subpass, no
// input attachments, so no VkAttachmentReference2::aspectMask to keep; dependencies carry no work
// on a queue that runs each command to completion), with the subpass's viewMask as a
// VkRenderPassMultiviewCreateInfo. The begin / next / end commands take their contents from
// VkSubpassBeginInfo and have nothing to do with VkSubpassEndInfo.
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

VkAttachmentReference to_reference(const VkAttachmentReference2& r) { return {r.attachment, r.layout}; }

// The 1.0 form of a create info, holding the arrays the translated pointers name.
struct TranslatedPass {
  std::vector<VkAttachmentDescription> attachments;
  std::vector<VkAttachmentReference> colors, inputs, resolves;
  VkAttachmentReference depth{};
  VkSubpassDescription subpass{};
  std::vector<VkSubpassDependency> dependencies;
  uint32_t view_mask = 0;
  VkRenderPassMultiviewCreateInfo multiview{VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO};
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
};

void translate_subpass(const VkSubpassDescription2& s, TranslatedPass* t) {
  for (uint32_t i = 0; i < s.colorAttachmentCount; ++i) {
    t->colors.push_back(to_reference(s.pColorAttachments[i]));
    if (s.pResolveAttachments != nullptr) t->resolves.push_back(to_reference(s.pResolveAttachments[i]));
  }
  for (uint32_t i = 0; i < s.inputAttachmentCount; ++i) t->inputs.push_back(to_reference(s.pInputAttachments[i]));
  VkSubpassDescription& out = t->subpass;
  out.flags = s.flags;
  out.pipelineBindPoint = s.pipelineBindPoint;
  out.inputAttachmentCount = s.inputAttachmentCount;
  out.pInputAttachments = t->inputs.data();
  out.colorAttachmentCount = s.colorAttachmentCount;
  out.pColorAttachments = t->colors.data();
  out.pResolveAttachments = s.pResolveAttachments != nullptr ? t->resolves.data() : nullptr;
  if (s.pDepthStencilAttachment != nullptr) {
    t->depth = to_reference(*s.pDepthStencilAttachment);
    out.pDepthStencilAttachment = &t->depth;
  }
  out.preserveAttachmentCount = s.preserveAttachmentCount;
  out.pPreserveAttachments = s.pPreserveAttachments;
  t->view_mask = s.viewMask;
}

// False with *why for a create info the 1.0 path could not take (several subpasses, null arrays).
bool translate(const VkRenderPassCreateInfo2& info, TranslatedPass* t, std::string* why) {
  if (info.subpassCount != 1 || info.pSubpasses == nullptr) {
    return *why = std::to_string(info.subpassCount) + " subpasses (1 is supported)", false;
  }
  const VkSubpassDescription2& s = info.pSubpasses[0];
  if ((s.colorAttachmentCount > 0 && s.pColorAttachments == nullptr) ||
      (s.inputAttachmentCount > 0 && s.pInputAttachments == nullptr) ||
      (info.attachmentCount > 0 && info.pAttachments == nullptr) ||
      (info.dependencyCount > 0 && info.pDependencies == nullptr)) {
    return *why = "a null array with a non-zero count", false;
  }
  // Colour resolve attachments translate; a depth / stencil resolve (VK_KHR_depth_stencil_resolve,
  // not offered) has no 1.0 form and is refused.
  if (const auto* ds = find_in_chain<VkSubpassDescriptionDepthStencilResolve>(
          s.pNext, VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE);
      ds != nullptr && ds->pDepthStencilResolveAttachment != nullptr &&
      ds->pDepthStencilResolveAttachment->attachment != VK_ATTACHMENT_UNUSED) {
    return *why = "a depth / stencil resolve attachment", false;
  }
  for (uint32_t i = 0; i < info.attachmentCount; ++i) {
    const VkAttachmentDescription2& a = info.pAttachments[i];
    t->attachments.push_back({a.flags, a.format, a.samples, a.loadOp, a.storeOp, a.stencilLoadOp, a.stencilStoreOp,
                              a.initialLayout, a.finalLayout});
  }
  translate_subpass(s, t);
  for (uint32_t i = 0; i < info.dependencyCount; ++i) {
    const VkSubpassDependency2& d = info.pDependencies[i];
    t->dependencies.push_back({d.srcSubpass, d.dstSubpass, d.srcStageMask, d.dstStageMask, d.srcAccessMask,
                               d.dstAccessMask, d.dependencyFlags});
  }
  t->info.flags = info.flags;
  t->info.attachmentCount = info.attachmentCount;
  t->info.pAttachments = t->attachments.data();
  t->info.subpassCount = 1;
  t->info.pSubpasses = &t->subpass;
  t->info.dependencyCount = info.dependencyCount;
  t->info.pDependencies = t->dependencies.data();
  if (t->view_mask != 0) {
    t->multiview.subpassCount = 1;
    t->multiview.pViewMasks = &t->view_mask;
    t->info.pNext = &t->multiview;
  }
  return true;
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateRenderPass2(VkDevice, const VkRenderPassCreateInfo2* info,
                                                         const VkAllocationCallbacks*, VkRenderPass* out) {
  *out = VK_NULL_HANDLE;
  auto translated = std::make_unique<TranslatedPass>();
  auto pass = std::make_unique<RenderPass>();
  std::string why;
  if (!translate(*info, translated.get(), &why) || !build_render_pass(translated->info, pass.get(), &why)) {
    log_refusal("vkCreateRenderPass2", why);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  *out = to_handle<VkRenderPass>(pass.release());
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdBeginRenderPass2(VkCommandBuffer cb, const VkRenderPassBeginInfo* info,
                                                       const VkSubpassBeginInfo* begin) {
  gsgpu_vkCmdBeginRenderPass(cb, info, begin != nullptr ? begin->contents : VK_SUBPASS_CONTENTS_INLINE);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdNextSubpass2(VkCommandBuffer cb, const VkSubpassBeginInfo* begin,
                                                   const VkSubpassEndInfo*) {
  gsgpu_vkCmdNextSubpass(cb, begin != nullptr ? begin->contents : VK_SUBPASS_CONTENTS_INLINE);
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkCmdEndRenderPass2(VkCommandBuffer cb, const VkSubpassEndInfo*) {
  gsgpu_vkCmdEndRenderPass(cb);
}

}  // namespace gsgpu::vk
