// VkBufferView (docs/vulkan-driver.md "Buffer views"): a range of a bound buffer in a supported
// format, checked with overflow-safe arithmetic (offset inside the buffer and a multiple of
// minTexelBufferOffsetAlignment, the range a whole number of texels, at most maxTexelBufferElements
// of them, inside the buffer; VK_WHOLE_SIZE is the rest of the buffer rounded down to whole texels).
// No shader reads texel buffers yet (the compiler refuses them by name) and no format reports a
// buffer feature; a view is what descriptor writes of texel-buffer type name. A refused view is a
// log line and VK_ERROR_FORMAT_NOT_SUPPORTED, as a refused image view.
#include <memory>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// Why the view is invalid, or empty; fills *range with the resolved range.
std::string check_buffer_view(const VkBufferViewCreateInfo& info, const Buffer* buffer, const FormatInfo* format,
                              uint64_t* range) {
  if (buffer == nullptr) return "no buffer";
  if (buffer->memory == nullptr) return "the buffer is not bound to memory";
  if (format == nullptr) return "format " + std::to_string(info.format) + " is not supported";
  if (info.offset >= buffer->size) return "offset " + std::to_string(info.offset) + " is not inside the buffer";
  if (info.offset % kMinTexelBufferOffsetAlignment != 0) {
    return "offset " + std::to_string(info.offset) + " is not a multiple of " +
           std::to_string(kMinTexelBufferOffsetAlignment);
  }
  const uint64_t texel = format->element_bytes;
  const uint64_t rest = buffer->size - info.offset;  // > 0: offset < size
  if (info.range == VK_WHOLE_SIZE) {
    *range = rest / texel * texel;
    if (*range == 0) return "the rest of the buffer holds no whole texel";
  } else {
    if (info.range == 0 || info.range % texel != 0) return "range " + std::to_string(info.range) + " is not whole texels";
    if (info.range > rest) return "range " + std::to_string(info.range) + " runs past the buffer";
    *range = info.range;
  }
  if (*range / texel > kMaxTexelBufferElements) {
    return std::to_string(*range / texel) + " texels, over maxTexelBufferElements (" +
           std::to_string(kMaxTexelBufferElements) + ")";
  }
  return {};
}

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateBufferView(VkDevice, const VkBufferViewCreateInfo* info,
                                                        const VkAllocationCallbacks*, VkBufferView* out) {
  *out = VK_NULL_HANDLE;
  Buffer* buffer = from_handle<Buffer>(info->buffer);
  const FormatInfo* format = find_format(info->format);
  uint64_t range = 0;
  if (std::string why = check_buffer_view(*info, buffer, format, &range); !why.empty()) {
    log_refusal("vkCreateBufferView", why);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  auto view = std::make_unique<BufferView>();
  view->buffer = buffer;
  view->format = format;
  view->offset = info->offset;
  view->range = range;
  *out = to_handle<VkBufferView>(view.release());
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyBufferView(VkDevice, VkBufferView view, const VkAllocationCallbacks*) {
  delete from_handle<BufferView>(view);
}

}  // namespace gsgpu::vk
