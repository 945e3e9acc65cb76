#include "tests/gsgpu/graphics_golden/vk_render.h"

#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "tests/gsgpu/graphics_golden/golden_frag_0_0.h"
#include "tests/gsgpu/graphics_golden/golden_frag_0_1.h"
#include "tests/gsgpu/graphics_golden/golden_frag_1_0.h"
#include "tests/gsgpu/graphics_golden/golden_frag_1_1.h"
#include "tests/gsgpu/graphics_golden/golden_frag_2_0.h"
#include "tests/gsgpu/graphics_golden/golden_frag_2_1.h"
#include "tests/gsgpu/graphics_golden/golden_frag_3_0.h"
#include "tests/gsgpu/graphics_golden/golden_frag_3_1.h"
#include "tests/gsgpu/graphics_golden/golden_vert.h"
#include "tests/gsgpu/graphics_golden/texture_frag.h"
#include "tests/gsgpu/graphics_golden/golden_vert_points.h"

namespace gsgpu::golden {

#define VK_OR_FAIL(call)                                                               \
  do {                                                                                 \
    VkResult vk_result_ = (call);                                                      \
    if (vk_result_ != VK_SUCCESS) {                                                    \
      *error = std::string(#call) + " failed: VkResult " + std::to_string(vk_result_); \
      return {};                                                                       \
    }                                                                                  \
  } while (0)

struct LavapipeRenderer::State {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  VkShaderModule vertex = VK_NULL_HANDLE;
  VkShaderModule vertex_points = VK_NULL_HANDLE;  // writes gl_PointSize (point lists)
  VkShaderModule fragment[4][2] = {};  // [shading][dual source]
  VkShaderModule texture_fragment = VK_NULL_HANDLE;  // shaders/texture.frag (Draw::texture)
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // set 0: a uniform buffer at binding 0 (Draw::uniform_buffer)
  VkDescriptorSetLayout texture_set_layout = VK_NULL_HANDLE;  // set 1: a texture at binding 0 (Draw::texture)
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::string name;
  uint32_t sub_pixel_bits = 0;
  bool bresenham_lines = false;  // VK_EXT_line_rasterization's bresenhamLines, enabled

  ~State() {
    if (device) {
      vkDeviceWaitIdle(device);
      vkDestroyCommandPool(device, pool, nullptr);
      vkDestroyPipelineLayout(device, layout, nullptr);
      vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
      vkDestroyDescriptorSetLayout(device, texture_set_layout, nullptr);
      for (auto& pair : fragment)
        for (VkShaderModule m : pair) vkDestroyShaderModule(device, m, nullptr);
      vkDestroyShaderModule(device, vertex, nullptr);
      vkDestroyShaderModule(device, texture_fragment, nullptr);
      vkDestroyShaderModule(device, vertex_points, nullptr);
      vkDestroyDevice(device, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

namespace {

// Destroys what one render created, in reverse order, however the render ends.
class Cleanup {
 public:
  ~Cleanup() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) (*it)();
  }
  void add(std::function<void()> step) { steps_.push_back(std::move(step)); }

 private:
  std::vector<std::function<void()>> steps_;
};

template <size_t N>
bool make_module(VkDevice device, const uint32_t (&code)[N], VkShaderModule* out, std::string* error) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = sizeof code;
  info.pCode = code;
  VK_OR_FAIL(vkCreateShaderModule(device, &info, nullptr, out));
  return true;
}

// Whether the device offers VK_EXT_line_rasterization with Bresenham lines (lavapipe does).
bool has_bresenham_lines(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  bool found = false;
  for (const VkExtensionProperties& e : extensions)
    found = found || std::strcmp(e.extensionName, VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME) == 0;
  if (!found) return false;
  VkPhysicalDeviceLineRasterizationFeaturesEXT lines{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &lines;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  return lines.bresenhamLines;
}

bool make_module(VkDevice device, std::span<const uint32_t> code, VkShaderModule* out, std::string* error) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code.size_bytes();
  info.pCode = code.data();
  VK_OR_FAIL(vkCreateShaderModule(device, &info, nullptr, out));
  return true;
}

bool open_device(LavapipeRenderer::State& s, std::string* error) {
  uint32_t count = 0;
  VK_OR_FAIL(vkEnumeratePhysicalDevices(s.instance, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_OR_FAIL(vkEnumeratePhysicalDevices(s.instance, &count, devices.data()));
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (std::strstr(p.deviceName, "llvmpipe")) {
      s.physical = d;
      s.name = p.deviceName;
      s.sub_pixel_bits = p.limits.subPixelPrecisionBits;
    }
  }
  if (!s.physical) {
    *error = "no lavapipe (llvmpipe) Vulkan device among " + std::to_string(count);
    return false;
  }
  vkGetPhysicalDeviceMemoryProperties(s.physical, &s.memory);
  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(s.physical, &supported);
  VkPhysicalDeviceFeatures features{};
  features.dualSrcBlend = supported.dualSrcBlend;
  features.logicOp = supported.logicOp;
  features.largePoints = supported.largePoints;  // point sizes other than 1
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &families, props.data());
  for (s.queue_family = 0; s.queue_family < families; ++s.queue_family)
    if (props[s.queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT) break;
  if (s.queue_family == families) {
    *error = "lavapipe has no graphics queue";
    return false;
  }
  const float priority = 1;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = s.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.pEnabledFeatures = &features;
  VkPhysicalDeviceLineRasterizationFeaturesEXT lines{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT};
  const char* line_extension = VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME;
  s.bresenham_lines = has_bresenham_lines(s.physical);
  if (s.bresenham_lines) {
    lines.bresenhamLines = VK_TRUE;
    info.pNext = &lines;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &line_extension;
  }
  VK_OR_FAIL(vkCreateDevice(s.physical, &info, nullptr, &s.device));
  vkGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);
  return true;
}

bool make_shared_objects(LavapipeRenderer::State& s, std::string* error) {
  if (!make_module(s.device, golden_vert, &s.vertex, error) ||
      !make_module(s.device, golden_vert_points, &s.vertex_points, error) ||
      !make_module(s.device, golden_frag_0_0, &s.fragment[0][0], error) ||
      !make_module(s.device, golden_frag_0_1, &s.fragment[0][1], error) ||
      !make_module(s.device, golden_frag_1_0, &s.fragment[1][0], error) ||
      !make_module(s.device, golden_frag_1_1, &s.fragment[1][1], error) ||
      !make_module(s.device, golden_frag_2_0, &s.fragment[2][0], error) ||
      !make_module(s.device, golden_frag_2_1, &s.fragment[2][1], error) ||
      !make_module(s.device, golden_frag_3_0, &s.fragment[3][0], error) ||
      !make_module(s.device, golden_frag_3_1, &s.fragment[3][1], error) ||
      !make_module(s.device, texture_frag, &s.texture_fragment, error)) {
    return false;
  }
  // The stand-ins' constant colours (32 bytes) or a compiled scene's push constants (Draw::push_constants).
  VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 128};
  // Set 0: a uniform buffer at binding 0 (Draw::uniform_buffer); set 1: a texture at binding 0
  // (Draw::texture). Separate sets, so that no draw binds a set with an unwritten descriptor.
  VkDescriptorSetLayoutBinding ubo{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
                                   VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  VkDescriptorSetLayoutBinding tex{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT,
                                   nullptr};
  VkDescriptorSetLayoutCreateInfo set_layout{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_layout.bindingCount = 1;
  set_layout.pBindings = &ubo;
  VK_OR_FAIL(vkCreateDescriptorSetLayout(s.device, &set_layout, nullptr, &s.set_layout));
  set_layout.pBindings = &tex;
  VK_OR_FAIL(vkCreateDescriptorSetLayout(s.device, &set_layout, nullptr, &s.texture_set_layout));
  const VkDescriptorSetLayout set_layouts[2] = {s.set_layout, s.texture_set_layout};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 2;
  layout.pSetLayouts = set_layouts;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &range;
  VK_OR_FAIL(vkCreatePipelineLayout(s.device, &layout, nullptr, &s.layout));
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = s.queue_family;
  VK_OR_FAIL(vkCreateCommandPool(s.device, &pool, nullptr, &s.pool));
  return true;
}

// One scene's Vulkan objects.
class VkScene {
 public:
  VkScene(LavapipeRenderer::State& s, const Scene& scene) : s_(s), scene_(scene) {}

  std::optional<Frame> render(std::string* error) {
    if (!make_targets(error) || !make_render_pass(error) || !make_framebuffer(error)) return std::nullopt;
    // Draws with the same state share a pipeline: lavapipe compiles each one, and the blending grid
    // draws many cells with one state and different constant colours.
    std::vector<VkPipeline> pipelines;
    std::map<std::string, VkPipeline> by_state;
    for (const Draw& d : scene_.draws) {
      VkPipeline& p = by_state[pipeline_key(d)];
      if (!p && !(p = make_pipeline(d, error))) return std::nullopt;
      pipelines.push_back(p);
    }
    if (!record_and_submit(pipelines, error)) return std::nullopt;
    return read_back(error);
  }

 private:
  bool has_depth() const { return scene_.depth_format != kFormatNone; }
  bool has_stencil() const { return scene_.depth_format == kD24UnormS8Uint; }

  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) const {
    for (uint32_t i = 0; i < s_.memory.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (s_.memory.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
  }

  bool allocate(VkMemoryRequirements req, VkMemoryPropertyFlags want, VkDeviceMemory* out, std::string* error) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = req.size;
    info.memoryTypeIndex = memory_type(req.memoryTypeBits, want);
    if (info.memoryTypeIndex == UINT32_MAX) {
      *error = "no suitable memory type";
      return false;
    }
    VK_OR_FAIL(vkAllocateMemory(s_.device, &info, nullptr, out));
    VkDevice device = s_.device;
    VkDeviceMemory memory = *out;
    cleanup_.add([device, memory] { vkFreeMemory(device, memory, nullptr); });
    return true;
  }

  // A host-visible buffer holding `bytes` (filled from `data` when given).
  bool buffer(uint64_t bytes, VkBufferUsageFlags usage, const void* data, VkBuffer* out, VkDeviceMemory* memory,
              std::string* error) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = std::max<uint64_t>(bytes, 16);
    info.usage = usage;
    VK_OR_FAIL(vkCreateBuffer(s_.device, &info, nullptr, out));
    VkDevice device = s_.device;
    VkBuffer b = *out;
    cleanup_.add([device, b] { vkDestroyBuffer(device, b, nullptr); });
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(s_.device, *out, &req);
    if (!allocate(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, memory, error)) {
      return false;
    }
    VK_OR_FAIL(vkBindBufferMemory(s_.device, *out, *memory, 0));
    if (data && bytes) {
      void* mapped = nullptr;
      VK_OR_FAIL(vkMapMemory(s_.device, *memory, 0, bytes, 0, &mapped));
      std::memcpy(mapped, data, bytes);
      vkUnmapMemory(s_.device, *memory);
    }
    return true;
  }

  bool image(VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage* out, VkImageView* view,
             std::string* error) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {scene_.width, scene_.height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VK_OR_FAIL(vkCreateImage(s_.device, &info, nullptr, out));
    VkDevice device = s_.device;
    VkImage img = *out;
    cleanup_.add([device, img] { vkDestroyImage(device, img, nullptr); });
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(s_.device, *out, &req);
    VkDeviceMemory memory;
    if (!allocate(req, 0, &memory, error)) return false;
    VK_OR_FAIL(vkBindImageMemory(s_.device, *out, memory, 0));
    VkImageViewCreateInfo v{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    v.image = *out;
    v.viewType = VK_IMAGE_VIEW_TYPE_2D;
    v.format = format;
    v.subresourceRange = {aspect, 0, 1, 0, 1};
    VK_OR_FAIL(vkCreateImageView(s_.device, &v, nullptr, view));
    VkImageView iv = *view;
    cleanup_.add([device, iv] { vkDestroyImageView(device, iv, nullptr); });
    return true;
  }

  bool make_targets(std::string* error) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(s_.physical, VkFormat(scene_.color_format), &props);
    if (!(props.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)) {
      *error = "lavapipe cannot render to VkFormat " + std::to_string(scene_.color_format);
      return false;
    }
    if (!image(VkFormat(scene_.color_format), VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT, &color_,
               &color_view_, error)) {
      return false;
    }
    if (!has_depth()) return true;
    vkGetPhysicalDeviceFormatProperties(s_.physical, VkFormat(scene_.depth_format), &props);
    if (!(props.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) {
      *error = "lavapipe cannot render to depth VkFormat " + std::to_string(scene_.depth_format);
      return false;
    }
    const VkImageAspectFlags aspect = VK_IMAGE_ASPECT_DEPTH_BIT | (has_stencil() ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
    return image(VkFormat(scene_.depth_format), VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, aspect, &depth_,
                 &depth_view_, error);
  }

  bool make_render_pass(std::string* error) {
    VkAttachmentDescription a[2] = {};
    a[0].format = VkFormat(scene_.color_format);
    a[0].samples = VK_SAMPLE_COUNT_1_BIT;
    a[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    a[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    a[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    a[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    a[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    a[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    a[1] = a[0];
    a[1].format = VkFormat(scene_.depth_format);
    a[1].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    a[1].stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE;
    VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &color_ref;
    if (has_depth()) subpass.pDepthStencilAttachment = &depth_ref;
    // The copies to the host wait for the attachments' last writes.
    VkSubpassDependency after{};
    after.srcSubpass = 0;
    after.dstSubpass = VK_SUBPASS_EXTERNAL;
    after.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    after.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    after.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = has_depth() ? 2 : 1;
    info.pAttachments = a;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    info.dependencyCount = 1;
    info.pDependencies = &after;
    VK_OR_FAIL(vkCreateRenderPass(s_.device, &info, nullptr, &render_pass_));
    VkDevice device = s_.device;
    VkRenderPass rp = render_pass_;
    cleanup_.add([device, rp] { vkDestroyRenderPass(device, rp, nullptr); });
    return true;
  }

  bool make_framebuffer(std::string* error) {
    VkImageView views[2] = {color_view_, depth_view_};
    VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    info.renderPass = render_pass_;
    info.attachmentCount = has_depth() ? 2 : 1;
    info.pAttachments = views;
    info.width = scene_.width;
    info.height = scene_.height;
    info.layers = 1;
    VK_OR_FAIL(vkCreateFramebuffer(s_.device, &info, nullptr, &framebuffer_));
    VkDevice device = s_.device;
    VkFramebuffer fb = framebuffer_;
    cleanup_.add([device, fb] { vkDestroyFramebuffer(device, fb, nullptr); });
    return true;
  }

  // Everything of a draw that its pipeline holds (not its vertices, indices or push constants).
  static std::string pipeline_key(const Draw& d) {
    std::string key;
    auto add = [&key](double v) {
      char text[40];
      std::snprintf(text, sizeof text, "%a,", v);
      key += text;
    };
    for (double v : {double(d.topology),        double(d.primitive_restart), double(d.cull),
                     double(d.clockwise),       double(d.depth_test),        double(d.depth_write),
                     double(d.depth_compare),   double(d.stencil_test),      double(d.blend.enable),
                     double(d.blend.src_color), double(d.blend.dst_color),   double(d.blend.color_op),
                     double(d.blend.src_alpha), double(d.blend.dst_alpha),   double(d.blend.alpha_op),
                     double(d.logic_op_enable), double(d.logic_op),          double(d.write_mask),
                     double(d.shading),         double(d.dual_source),       double(d.point_size),
                     double(d.bresenham_lines),  double(d.texture != nullptr)}) {
      add(v);
    }
    for (float v : d.viewport) add(v);
    for (int32_t v : d.scissor) add(v);
    key += std::to_string(reinterpret_cast<uintptr_t>(d.vertex_spirv.data())) + "," +
           std::to_string(reinterpret_cast<uintptr_t>(d.fragment_spirv.data())) + ",";
    for (float v : d.blend_constant) add(v);
    for (const StencilFace* f : {&d.front, &d.back}) {
      for (uint32_t v :
           {f->fail_op, f->pass_op, f->depth_fail_op, f->compare_op, f->compare_mask, f->write_mask, f->reference}) {
        add(v);
      }
    }
    return key;
  }

  static VkStencilOpState stencil(const StencilFace& f) {
    return {VkStencilOp(f.fail_op),
            VkStencilOp(f.pass_op),
            VkStencilOp(f.depth_fail_op),
            VkCompareOp(f.compare_op),
            f.compare_mask,
            f.write_mask,
            f.reference};
  }

  VkViewport viewport_of(const Draw& d) const {
    if (d.viewport[2] == 0) return {0, 0, float(scene_.width), float(scene_.height), d.viewport[4], d.viewport[5]};
    return {d.viewport[0], d.viewport[1], d.viewport[2], d.viewport[3], d.viewport[4], d.viewport[5]};
  }

  // gsgpu clamps a scissor to the target; Vulkan requires a non-negative offset, so the scenes' scissors
  // are clamped the same way here.
  VkRect2D scissor_of(const Draw& d) const {
    if (d.scissor[2] == 0) return {{0, 0}, {scene_.width, scene_.height}};
    const int64_t x0 = std::max<int64_t>(d.scissor[0], 0), y0 = std::max<int64_t>(d.scissor[1], 0);
    const int64_t x1 = std::min<int64_t>(int64_t(d.scissor[0]) + d.scissor[2], scene_.width);
    const int64_t y1 = std::min<int64_t>(int64_t(d.scissor[1]) + d.scissor[3], scene_.height);
    return {{int32_t(x0), int32_t(y0)},
            {uint32_t(std::max<int64_t>(x1 - x0, 0)), uint32_t(std::max<int64_t>(y1 - y0, 0))}};
  }

  VkPipeline make_pipeline(const Draw& d, std::string* error) {
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = s_.vertex;
    stages[0].pName = "main";
    const VkSpecializationMapEntry point_size_entry{0, 0, sizeof(float)};
    const VkSpecializationInfo point_size{1, &point_size_entry, sizeof(float), &d.point_size};
    if (d.topology == kPointList) {
      stages[0].module = s_.vertex_points;
      stages[0].pSpecializationInfo = &point_size;
    }
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = s_.fragment[int(d.shading)][d.dual_source ? 1 : 0];
    stages[1].pName = "main";
    if (d.texture) stages[1].module = s_.texture_fragment;
    if (!d.vertex_spirv.empty()) {  // the scene's own shaders
      VkShaderModule modules[2] = {};
      const bool made = make_module(s_.device, d.vertex_spirv, &modules[0], error) &&
                        make_module(s_.device, d.fragment_spirv, &modules[1], error);
      VkDevice device = s_.device;
      cleanup_.add([device, modules] {
        for (VkShaderModule m : modules)
          if (m) vkDestroyShaderModule(device, m, nullptr);
      });
      if (!made) return VK_NULL_HANDLE;
      stages[0].module = modules[0];
      stages[0].pSpecializationInfo = nullptr;  // the point-size constant belongs to golden.vert
      stages[1].module = modules[1];
    }
    VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attributes[3] = {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0},
                                                       {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16},
                                                       {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 32}};
    VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 1;
    input.pVertexBindingDescriptions = &binding;
    input.vertexAttributeDescriptionCount = 3;
    input.pVertexAttributeDescriptions = attributes;
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VkPrimitiveTopology(d.topology);
    assembly.primitiveRestartEnable = d.primitive_restart;
    const VkViewport viewport = viewport_of(d);
    const VkRect2D scissor = scissor_of(d);
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.pViewports = &viewport;
    vp.scissorCount = 1;
    vp.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = d.cull;
    raster.frontFace = d.clockwise ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1;
    VkPipelineRasterizationLineStateCreateInfoEXT line_mode{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT};
    line_mode.lineRasterizationMode = VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT;
    if (d.bresenham_lines) {
      if (!s_.bresenham_lines) {
        *error = "the device has no Bresenham lines (VK_EXT_line_rasterization)";
        return VK_NULL_HANDLE;
      }
      raster.pNext = &line_mode;
    }
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = d.depth_test;
    ds.depthWriteEnable = d.depth_write;
    ds.depthCompareOp = VkCompareOp(d.depth_compare);
    ds.stencilTestEnable = d.stencil_test;
    ds.front = stencil(d.front);
    ds.back = stencil(d.back);
    ds.maxDepthBounds = 1;
    VkPipelineColorBlendAttachmentState attachment{};
    attachment.blendEnable = d.blend.enable;
    attachment.srcColorBlendFactor = VkBlendFactor(d.blend.src_color);
    attachment.dstColorBlendFactor = VkBlendFactor(d.blend.dst_color);
    attachment.colorBlendOp = VkBlendOp(d.blend.color_op);
    attachment.srcAlphaBlendFactor = VkBlendFactor(d.blend.src_alpha);
    attachment.dstAlphaBlendFactor = VkBlendFactor(d.blend.dst_alpha);
    attachment.alphaBlendOp = VkBlendOp(d.blend.alpha_op);
    attachment.colorWriteMask = d.write_mask;
    VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.logicOpEnable = d.logic_op_enable;
    blend.logicOp = VkLogicOp(d.logic_op);
    blend.attachmentCount = 1;
    blend.pAttachments = &attachment;
    for (int c = 0; c < 4; ++c) blend.blendConstants[c] = d.blend_constant[c];
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &input;
    info.pInputAssemblyState = &assembly;
    info.pViewportState = &vp;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &ms;
    info.pDepthStencilState = &ds;
    info.pColorBlendState = &blend;
    info.layout = s_.layout;
    info.renderPass = render_pass_;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_OR_FAIL(vkCreateGraphicsPipelines(s_.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    VkDevice device = s_.device;
    cleanup_.add([device, pipeline] { vkDestroyPipeline(device, pipeline, nullptr); });
    return pipeline;
  }

  void record_draws(VkCommandBuffer cb, const std::vector<VkPipeline>& pipelines, const std::vector<VkBuffer>& vertices,
                    const std::vector<VkBuffer>& indices, const std::vector<VkDescriptorSet>& sets,
                    const std::vector<VkDescriptorSet>& texture_sets) {
    VkClearValue clears[2];
    std::memcpy(clears[0].color.float32, scene_.clear_color.data(), 16);
    clears[1].depthStencil = {scene_.clear_depth, scene_.clear_stencil};
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = render_pass_;
    begin.framebuffer = framebuffer_;
    begin.renderArea = {{0, 0}, {scene_.width, scene_.height}};
    begin.clearValueCount = has_depth() ? 2 : 1;
    begin.pClearValues = clears;
    vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
    for (size_t i = 0; i < scene_.draws.size(); ++i) {
      const Draw& d = scene_.draws[i];
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines[i]);
      const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
      if (!d.vertex_spirv.empty()) {
        if (!d.push_constants.empty())
          vkCmdPushConstants(cb, s_.layout, stages, 0, uint32_t(d.push_constants.size() * 4), d.push_constants.data());
      } else {
        float constants[8];
        std::memcpy(constants, d.constant.data(), 16);
        std::memcpy(constants + 4, d.constant1.data(), 16);
        vkCmdPushConstants(cb, s_.layout, stages, 0, sizeof constants, constants);
      }
      if (sets[i]) vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s_.layout, 0, 1, &sets[i], 0, nullptr);
      if (texture_sets[i]) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s_.layout, 1, 1, &texture_sets[i], 0, nullptr);
      }
      VkDeviceSize offset = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &vertices[i], &offset);
      if (d.indices.empty()) {
        vkCmdDraw(cb, draw_count(d), d.instance_count, d.first_vertex, d.first_instance);
      } else {
        vkCmdBindIndexBuffer(cb, indices[i], 0, d.index_u16 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(cb, draw_count(d), d.instance_count, d.first_index, d.vertex_offset, d.first_instance);
      }
    }
    vkCmdEndRenderPass(cb);
  }

  // Each draw's uniform buffer (set 0, binding 0) and texture (set 1, binding 0) in descriptor sets of
  // their own; null for draws without one.
  bool descriptor_sets(std::vector<VkDescriptorSet>* sets, std::vector<VkDescriptorSet>* texture_sets,
                       std::string* error) {
    sets->assign(scene_.draws.size(), VK_NULL_HANDLE);
    texture_sets->assign(scene_.draws.size(), VK_NULL_HANDLE);
    const auto n = uint32_t(std::count_if(scene_.draws.begin(), scene_.draws.end(), [](const Draw& d) {
      return !d.uniform_buffer.empty() || d.texture;
    }));
    if (n == 0) return true;
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, n},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, n}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = 2 * n;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool;
    VK_OR_FAIL(vkCreateDescriptorPool(s_.device, &info, nullptr, &pool));
    VkDevice device = s_.device;
    cleanup_.add([device, pool] { vkDestroyDescriptorPool(device, pool, nullptr); });
    for (size_t i = 0; i < scene_.draws.size(); ++i) {
      const std::vector<uint32_t>& data = scene_.draws[i].uniform_buffer;
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = pool;
      alloc.descriptorSetCount = 1;
      if (scene_.draws[i].texture) {
        alloc.pSetLayouts = &s_.texture_set_layout;
        VK_OR_FAIL(vkAllocateDescriptorSets(s_.device, &alloc, &(*texture_sets)[i]));
        if (!bind_texture(scene_.draws[i], (*texture_sets)[i], error)) return false;
      }
      if (data.empty()) continue;
      VkBuffer ub;
      VkDeviceMemory mem;
      if (!buffer(data.size() * 4, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, data.data(), &ub, &mem, error)) return false;
      alloc.pSetLayouts = &s_.set_layout;
      VK_OR_FAIL(vkAllocateDescriptorSets(s_.device, &alloc, &(*sets)[i]));
      VkDescriptorBufferInfo range{ub, 0, VK_WHOLE_SIZE};
      VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = (*sets)[i];
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      write.pBufferInfo = &range;
      vkUpdateDescriptorSets(s_.device, 1, &write, 0, nullptr);
    }
    return true;
  }

  // A draw's texture: a sampled image with its levels, filled from a staging buffer by commands that
  // record_and_submit records before the render pass (uploads_), and its sampler, in `set` (set 1).
  bool bind_texture(const Draw& d, VkDescriptorSet set, std::string* error) {
    const Texture& t = *d.texture;
    const auto levels = uint32_t(t.levels.size());
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VkFormat(t.format);
    info.extent = {t.width, t.height, 1};
    info.mipLevels = levels;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VkImage img;
    VK_OR_FAIL(vkCreateImage(s_.device, &info, nullptr, &img));
    VkDevice device = s_.device;
    cleanup_.add([device, img] { vkDestroyImage(device, img, nullptr); });
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(s_.device, img, &req);
    VkDeviceMemory memory;
    if (!allocate(req, 0, &memory, error)) return false;
    VK_OR_FAIL(vkBindImageMemory(s_.device, img, memory, 0));
    std::vector<uint8_t> staged;
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t level = 0; level < levels; ++level) {
      VkBufferImageCopy r{};
      r.bufferOffset = staged.size();
      r.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
      r.imageExtent = {std::max(1u, t.width >> level), std::max(1u, t.height >> level), 1};
      regions.push_back(r);
      staged.insert(staged.end(), t.levels[level].begin(), t.levels[level].end());
    }
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    if (!buffer(staged.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, staged.data(), &staging, &staging_memory, error))
      return false;
    uploads_.push_back([img, staging, regions, levels](VkCommandBuffer cb) {
      VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
      b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      b.image = img;
      b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, 1};
      b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &b);
      vkCmdCopyBufferToImage(cb, staging, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(regions.size()),
                             regions.data());
      b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
      b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &b);
    });
    VkImageViewCreateInfo v{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    v.image = img;
    v.viewType = VK_IMAGE_VIEW_TYPE_2D;
    v.format = info.format;
    v.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, 1};
    VkImageView view;
    VK_OR_FAIL(vkCreateImageView(s_.device, &v, nullptr, &view));
    cleanup_.add([device, view] { vkDestroyImageView(device, view, nullptr); });
    const TextureSampler& ts = d.sampler;
    VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    si.magFilter = ts.mag_linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    si.minFilter = ts.min_linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    si.mipmapMode = ts.mipmap_linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
    si.addressModeU = VkSamplerAddressMode(ts.address_u);
    si.addressModeV = VkSamplerAddressMode(ts.address_v);
    si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    si.borderColor = VkBorderColor(ts.border);
    si.minLod = ts.min_lod;
    si.maxLod = ts.max_lod;
    si.mipLodBias = ts.lod_bias;
    VkSampler sampler;
    VK_OR_FAIL(vkCreateSampler(s_.device, &si, nullptr, &sampler));
    cleanup_.add([device, sampler] { vkDestroySampler(device, sampler, nullptr); });
    VkDescriptorImageInfo image_info{sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = &image_info;
    vkUpdateDescriptorSets(s_.device, 1, &write, 0, nullptr);
    return true;
  }

  void copy_out(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkBuffer to) {
    VkBufferImageCopy region{};
    region.imageSubresource = {aspect, 0, 0, 1};
    region.imageExtent = {scene_.width, scene_.height, 1};
    vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, to, 1, &region);
  }

  bool record_and_submit(const std::vector<VkPipeline>& pipelines, std::string* error) {
    std::vector<VkBuffer> vertices, indices;
    for (const Draw& d : scene_.draws) {
      VkBuffer vb = VK_NULL_HANDLE, ib = VK_NULL_HANDLE;
      VkDeviceMemory mem;
      if (!buffer(d.vertices.size() * sizeof(Vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, d.vertices.data(), &vb, &mem,
                  error)) {
        return false;
      }
      if (!d.indices.empty()) {
        std::vector<uint8_t> packed;
        for (uint32_t i : d.indices) {
          const uint8_t* p = reinterpret_cast<const uint8_t*>(&i);
          packed.insert(packed.end(), p, p + (d.index_u16 ? 2 : 4));
        }
        if (!buffer(packed.size(), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, packed.data(), &ib, &mem, error)) return false;
      }
      vertices.push_back(vb);
      indices.push_back(ib);
    }
    std::vector<VkDescriptorSet> sets, texture_sets;
    if (!descriptor_sets(&sets, &texture_sets, error)) return false;
    const uint64_t pixels = uint64_t{scene_.width} * scene_.height;
    if (!buffer(pixels * color_bytes_per_pixel(scene_.color_format), VK_BUFFER_USAGE_TRANSFER_DST_BIT, nullptr,
                &color_out_, &color_out_memory_, error) ||
        (has_depth() &&
         !buffer(pixels * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, nullptr, &depth_out_, &depth_out_memory_, error)) ||
        (has_stencil() &&
         !buffer(pixels, VK_BUFFER_USAGE_TRANSFER_DST_BIT, nullptr, &stencil_out_, &stencil_out_memory_, error))) {
      return false;
    }
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = s_.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_OR_FAIL(vkAllocateCommandBuffers(s_.device, &alloc, &cb));
    VkDevice device = s_.device;
    VkCommandPool pool = s_.pool;
    cleanup_.add([device, pool, cb] { vkFreeCommandBuffers(device, pool, 1, &cb); });
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_OR_FAIL(vkBeginCommandBuffer(cb, &begin));
    for (const auto& upload : uploads_) upload(cb);
    record_draws(cb, pipelines, vertices, indices, sets, texture_sets);
    copy_out(cb, color_, VK_IMAGE_ASPECT_COLOR_BIT, color_out_);
    if (has_depth()) copy_out(cb, depth_, VK_IMAGE_ASPECT_DEPTH_BIT, depth_out_);
    if (has_stencil()) copy_out(cb, depth_, VK_IMAGE_ASPECT_STENCIL_BIT, stencil_out_);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                         nullptr);
    VK_OR_FAIL(vkEndCommandBuffer(cb));
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_OR_FAIL(vkCreateFence(s_.device, &fence_info, nullptr, &fence));
    cleanup_.add([device, fence] { vkDestroyFence(device, fence, nullptr); });
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    VK_OR_FAIL(vkQueueSubmit(s_.queue, 1, &submit, fence));
    // A generous time-out that only catches a hang (30 s).
    VK_OR_FAIL(vkWaitForFences(s_.device, 1, &fence, VK_TRUE, uint64_t{30} * 1000 * 1000 * 1000));
    return true;
  }

  bool map_copy(VkDeviceMemory memory, void* to, uint64_t bytes, std::string* error) {
    void* mapped = nullptr;
    VK_OR_FAIL(vkMapMemory(s_.device, memory, 0, bytes, 0, &mapped));
    std::memcpy(to, mapped, bytes);
    vkUnmapMemory(s_.device, memory);
    return true;
  }

  std::optional<Frame> read_back(std::string* error) {
    Frame f;
    f.width = scene_.width;
    f.height = scene_.height;
    f.color_format = scene_.color_format;
    const uint64_t pixels = uint64_t{f.width} * f.height;
    f.color.resize(pixels * color_bytes_per_pixel(f.color_format));
    if (!map_copy(color_out_memory_, f.color.data(), f.color.size(), error)) return std::nullopt;
    if (!has_depth()) return f;
    std::vector<uint32_t> depth(pixels);
    if (!map_copy(depth_out_memory_, depth.data(), pixels * 4, error)) return std::nullopt;
    for (uint32_t word : depth) {
      // D24's copy holds the depth in the low 24 bits of each word (the high byte is undefined).
      f.depth.push_back(has_stencil() ? float(double(word & 0xFFFFFF) / 16777215.0) : std::bit_cast<float>(word));
    }
    if (has_stencil()) {
      f.stencil.resize(pixels);
      if (!map_copy(stencil_out_memory_, f.stencil.data(), pixels, error)) return std::nullopt;
    }
    return f;
  }

  LavapipeRenderer::State& s_;
  const Scene& scene_;
  Cleanup cleanup_;
  std::vector<std::function<void(VkCommandBuffer)>> uploads_;  // texture uploads, before the render pass
  VkImage color_ = VK_NULL_HANDLE, depth_ = VK_NULL_HANDLE;
  VkImageView color_view_ = VK_NULL_HANDLE, depth_view_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkBuffer color_out_ = VK_NULL_HANDLE, depth_out_ = VK_NULL_HANDLE, stencil_out_ = VK_NULL_HANDLE;
  VkDeviceMemory color_out_memory_ = VK_NULL_HANDLE, depth_out_memory_ = VK_NULL_HANDLE,
                 stencil_out_memory_ = VK_NULL_HANDLE;
};

}  // namespace

LavapipeRenderer::LavapipeRenderer(std::unique_ptr<State> state) : state_(std::move(state)) {}
LavapipeRenderer::~LavapipeRenderer() = default;
const std::string& LavapipeRenderer::device_name() const { return state_->name; }
uint32_t LavapipeRenderer::sub_pixel_precision_bits() const { return state_->sub_pixel_bits; }

std::unique_ptr<LavapipeRenderer> LavapipeRenderer::create(std::string* error) {
  // Only lavapipe: another ICD on the machine (a real GPU's) must not answer instead.
  setenv("VK_DRIVER_FILES", GSVIRT_LAVAPIPE_ICD, 0);
  // Keeps the driver loaded after vkDestroyInstance: lavapipe keeps a few allocations for the process's
  // lifetime, which LeakSanitizer reports as leaks once the loader has unloaded it (and not while its
  // globals still point at them).
  dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
  auto s = std::make_unique<State>();
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "gsvirt golden images";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkResult r = vkCreateInstance(&info, nullptr, &s->instance);
  if (r != VK_SUCCESS) {
    *error = "vkCreateInstance failed (VkResult " + std::to_string(r) + "); is mesa-vulkan-drivers installed?";
    return nullptr;
  }
  if (!open_device(*s, error) || !make_shared_objects(*s, error)) return nullptr;
  return std::unique_ptr<LavapipeRenderer>(new LavapipeRenderer(std::move(s)));
}

std::optional<Frame> LavapipeRenderer::render(const Scene& scene, std::string* error) {
  VkScene vs(*state_, scene);
  return vs.render(error);
}

}  // namespace gsgpu::golden
