// Framebuffers (docs/vulkan-driver.md "Draws"): the views a render pass draws into, or with
// VK_KHR_imageless_framebuffer only what those views will be (VkFramebufferAttachmentsCreateInfo),
// the views themselves given at vkCmdBeginRenderPass (render_pass.cc checks them with
// imageless_view_matches). Every count and index of the create info is checked before use; a
// refused framebuffer is a log line and VK_ERROR_FEATURE_NOT_PRESENT.
#include <algorithm>
#include <memory>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

constexpr uint32_t kMaxFramebufferSide = 4096;  // the output merger's largest target (PIPE_STATE TARGET_SIZE)

// The attachment infos of an imageless framebuffer, one per attachment of the create info.
bool read_imageless_infos(const VkFramebufferCreateInfo& info, Framebuffer* fb, std::string* why) {
  const auto* list = find_in_chain<VkFramebufferAttachmentsCreateInfo>(
      info.pNext, VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO);
  if (list == nullptr) return *why = "IMAGELESS without VkFramebufferAttachmentsCreateInfo", false;
  if (list->attachmentImageInfoCount != info.attachmentCount ||
      (list->attachmentImageInfoCount > 0 && list->pAttachmentImageInfos == nullptr)) {
    return *why = std::to_string(list->attachmentImageInfoCount) + " attachment image infos for " +
                  std::to_string(info.attachmentCount) + " attachments",
           false;
  }
  for (uint32_t i = 0; i < list->attachmentImageInfoCount; ++i) {
    const VkFramebufferAttachmentImageInfo& a = list->pAttachmentImageInfos[i];
    if (a.viewFormatCount > 0 && a.pViewFormats == nullptr) return *why = "pViewFormats is null", false;
    if (a.width < info.width || a.height < info.height || a.layerCount < info.layers) {
      return *why = "attachment image info " + std::to_string(i) + " smaller than the framebuffer", false;
    }
    FramebufferAttachmentInfo out{a.flags, a.usage, a.width, a.height, a.layerCount, {}};
    out.view_formats.assign(a.pViewFormats, a.pViewFormats + a.viewFormatCount);
    fb->infos.push_back(std::move(out));
  }
  fb->imageless = true;
  return true;
}

bool read_views(const VkFramebufferCreateInfo& info, Framebuffer* fb, std::string* why) {
  if (info.attachmentCount > 0 && info.pAttachments == nullptr) return *why = "pAttachments is null", false;
  for (uint32_t i = 0; i < info.attachmentCount; ++i) {
    auto* view = from_handle<ImageView>(info.pAttachments[i]);
    if (!check_attachment(view, info.width, info.height, why)) return false;
    fb->attachments.push_back(view);
  }
  return true;
}

bool build_framebuffer(const VkFramebufferCreateInfo& info, Framebuffer* fb, std::string* why) {
  const auto* pass = from_handle<RenderPass>(info.renderPass);
  if (pass == nullptr || info.attachmentCount != pass->attachments.size()) {
    return *why = "attachment count differs from the render pass's", false;
  }
  if (info.width == 0 || info.height == 0 || info.width > kMaxFramebufferSide || info.height > kMaxFramebufferSide ||
      info.layers != 1) {
    return *why = "size outside 1 .. 4096 or layers other than 1", false;
  }
  if (info.flags & ~VkFramebufferCreateFlags{VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT}) return *why = "unknown flags", false;
  fb->width = info.width;
  fb->height = info.height;
  if (info.flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT) return read_imageless_infos(info, fb, why);
  return read_views(info, fb, why);
}

}  // namespace

bool check_attachment(const ImageView* view, uint32_t width, uint32_t height, std::string* why) {
  if (view == nullptr) return *why = "a null attachment", false;
  if (view->target_va == 0) return *why = "an attachment view that is no render target (one 2D level of a bound image)", false;
  if (view->shape.level_count != 1) return *why = "an attachment view of several levels", false;
  if (view->width < width || view->height < height) return *why = "an attachment smaller than the framebuffer", false;
  return true;
}

bool imageless_view_matches(const ImageView* view, const FramebufferAttachmentInfo& info, uint32_t width,
                            uint32_t height, std::string* why) {
  if (!check_attachment(view, width, height, why)) return false;
  const Image& image = *view->image;
  if (image.flags != info.flags || view->usage != info.usage) {
    return *why = "the image's flags or usage differ from the framebuffer's attachment info", false;
  }
  if (view->width != info.width || view->height != info.height || view->shape.layer_count != info.layers) {
    return *why = "the view's extent or layer count differs from the framebuffer's attachment info", false;
  }
  const VkFormat format = view->format->format;
  if (std::find(info.view_formats.begin(), info.view_formats.end(), format) == info.view_formats.end()) {
    return *why = "the view's format is not in the attachment info's view formats", false;
  }
  return true;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateFramebuffer(VkDevice, const VkFramebufferCreateInfo* info,
                                                         const VkAllocationCallbacks*, VkFramebuffer* out) {
  *out = VK_NULL_HANDLE;
  auto fb = std::make_unique<Framebuffer>();
  std::string why;
  if (!build_framebuffer(*info, fb.get(), &why)) {
    log_refusal("vkCreateFramebuffer", why);
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  *out = to_handle<VkFramebuffer>(fb.release());
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyFramebuffer(VkDevice, VkFramebuffer fb, const VkAllocationCallbacks*) {
  delete from_handle<Framebuffer>(fb);
}

}  // namespace gsgpu::vk
