// A small renderer on the Vulkan API for the draw tests: one device of the instance (gsgpu or
// lavapipe), an offscreen RGBA8 colour image and an optional D32 depth image, a render pass that
// clears them, one pipeline (shaders/draw_color.*: position + RGBA8 colour, times a push-constant
// tint; dynamic viewport and scissor), vertex and index buffers in host-visible memory, the draws of
// a scene, and both images copied into buffers with vkCmdCopyImageToBuffer. The same code runs on
// both drivers, so any difference in the frames is the drivers'.
#pragma once

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "shader_draw_color_frag.h"
#include "shader_draw_color_vert.h"
#include "shader_draw_index_vert.h"
#include "shader_draw_ubo_vert.h"
#include "tests/gsgpu/vk/vk_test_util.h"

namespace gsgpu::vk::test {

struct DrawVertex {
  float x, y, z;
  uint8_t rgba[4];
};

struct DrawCall {
  bool indexed = false;
  uint32_t count = 0;
  uint32_t first = 0;          // first vertex, or first index
  int32_t vertex_offset = 0;   // indexed draws
  float tint[4] = {1, 1, 1, 1};
};

struct DrawScene {
  uint32_t width = 64, height = 64;
  bool depth = false;
  VkFormat depth_format = VK_FORMAT_D32_SFLOAT;  // or D16_UNORM, X8_D24_UNORM_PACK32, D24_UNORM_S8_UINT / D32_SFLOAT_S8_UINT (stencil cleared to 0 too)
  VkCullModeFlags cull = VK_CULL_MODE_NONE;
  float clear[4] = {0, 0, 0, 1};
  std::vector<DrawVertex> vertices;
  std::vector<uint16_t> indices;
  std::vector<DrawCall> draws;
  bool uniform_offset = false;  // shaders/draw_ubo.vert: positions moved by `offset` from a uniform buffer
  float offset[4] = {0, 0, 0, 0};
  bool vertex_index_only = false;  // shaders/draw_index.vert: no vertex input, no vertex buffer
  // With uniform_offset: the uniform buffer's bytes instead of `offset`, and a vertex shader of the
  // same interface (position, colour, set 0 binding 0) instead of draw_ubo.vert.
  std::vector<uint8_t> uniform_bytes;
  const uint32_t* vertex_spirv = nullptr;
  size_t vertex_spirv_bytes = 0;
  // The colour attachment's format (any of color_texel_bytes; R32G32B32A32_UINT / _SINT: the clear
  // then holds `clear`'s float bits) and a fragment shader of draw_color.frag's interface.
  VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM;
  const uint32_t* fragment_spirv = nullptr;
  size_t fragment_spirv_bytes = 0;
  std::function<void(VkGraphicsPipelineCreateInfo&)> edit;  // changes the pipeline before creation
  std::function<void(VkCommandBuffer)> before_draws;       // commands after the binds (dynamic state, clears)
  std::function<void(VkCommandBuffer)> before_pass;        // commands before the render pass (dispatches)
  std::function<void(VkCommandBuffer, size_t)> before_draw;  // commands before draw i (queries)
  std::function<void(VkCommandBuffer)> after_draws;          // commands after the last draw, in the pass
  // Multisampling: colour (and depth) images of `samples` samples, resolved by the render pass into a
  // one-sample image that the frame's colour is copied from (an MS depth image is not copied: the
  // frame has no depth). sample_mask (pSampleMask[0], when not ~0u) and alpha to coverage go into
  // the pipeline's multisample state.
  uint32_t samples = 1;
  bool resolve_command = false;  // resolve with vkCmdResolveImage after the pass, not an attachment
  uint32_t sample_mask = ~0u;
  bool alpha_to_coverage = false;
  // Usage the colour image gets besides COLOR_ATTACHMENT (SAMPLED: a later scene reads it through
  // DrawSide::last_color_view(), left in TRANSFER_SRC_OPTIMAL).
  VkImageUsageFlags color_usage = 0;
};

// A flat quad over pixels [x0, x1) x [y0, y1) of a 64 x 64 scene, as one draw of two triangles.
inline void add_pixel_quad(DrawScene* s, float x0, float y0, float x1, float y1, const uint8_t rgba[4]) {
  auto ndc = [](float p) { return p / 32.0f - 1.0f; };
  const DrawVertex a{ndc(x0), ndc(y0), 0.5f, {rgba[0], rgba[1], rgba[2], rgba[3]}};
  const DrawVertex b{ndc(x1), ndc(y0), 0.5f, {rgba[0], rgba[1], rgba[2], rgba[3]}};
  const DrawVertex c{ndc(x1), ndc(y1), 0.5f, {rgba[0], rgba[1], rgba[2], rgba[3]}};
  const DrawVertex d{ndc(x0), ndc(y1), 0.5f, {rgba[0], rgba[1], rgba[2], rgba[3]}};
  const uint32_t first = uint32_t(s->vertices.size());
  s->vertices.insert(s->vertices.end(), {a, b, c, a, c, d});
  s->draws.push_back({false, 6, first, 0, {1, 1, 1, 1}});
}

// Bytes of one texel of the colour formats the draw tests render to.
inline uint32_t color_texel_bytes(VkFormat f) {
  switch (f) {
    case VK_FORMAT_R8_UNORM: return 1;
    case VK_FORMAT_R8G8_UNORM: case VK_FORMAT_R16_UNORM: case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R5G6B5_UNORM_PACK16: return 2;
    case VK_FORMAT_R16G16B16A16_UNORM: case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R32G32_SFLOAT: return 8;
    case VK_FORMAT_R32G32B32A32_UINT: case VK_FORMAT_R32G32B32A32_SINT: case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
    default: return 4;  // RGBA8 / BGRA8 (UNORM, sRGB), R16G16, R32, packed 32-bit formats
  }
}

struct DrawFrame {
  std::vector<uint8_t> color;  // rows of width texels of color_texel_bytes(format)
  std::vector<float> depth;    // D32, when the scene has depth
  std::vector<uint32_t> depth_bits;  // the depth aspect as copied to a buffer (D24: bits 0..23; D16: 16 bits)
  std::vector<uint8_t> stencil;      // D24S8's / D32S8's stencil aspect
};

// How many pixels of `texel_bytes` each differ between two frames' colour (bit for bit).
inline uint32_t differing_pixels(const DrawFrame& x, const DrawFrame& y, size_t texel_bytes = 4) {
  uint32_t n = 0;
  for (size_t i = 0; i + texel_bytes <= x.color.size() && i + texel_bytes <= y.color.size(); i += texel_bytes)
    n += std::memcmp(&x.color[i], &y.color[i], texel_bytes) != 0;
  return n;
}

// What a test asks of the device beyond the defaults: 1.0 features, extensions and a
// VkDeviceCreateInfo pNext chain (an extension's feature structures).
struct DeviceRequest {
  VkPhysicalDeviceFeatures features{};
  std::vector<const char*> extensions;
  const void* next = nullptr;
};

class DrawSide {
 public:
  explicit DrawSide(VkPhysicalDevice physical, const DeviceRequest& request = {}) : physical_(physical) {
    vkGetPhysicalDeviceMemoryProperties(physical, &memory_props_);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.pEnabledFeatures = &request.features;
    info.enabledExtensionCount = uint32_t(request.extensions.size());
    info.ppEnabledExtensionNames = request.extensions.data();
    info.pNext = request.next;
    EXPECT_EQ(vkCreateDevice(physical, &info, nullptr, &device_), VK_SUCCESS);
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    EXPECT_EQ(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    EXPECT_EQ(vkAllocateCommandBuffers(device_, &alloc, &cb_), VK_SUCCESS);
  }
  ~DrawSide() {
    vkDeviceWaitIdle(device_);
    for (VkPipeline p : pipelines_) vkDestroyPipeline(device_, p, nullptr);
    if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
    if (set_layout_) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    for (VkDescriptorPool p : descriptor_pools_) vkDestroyDescriptorPool(device_, p, nullptr);
    for (VkShaderModule m : modules_) vkDestroyShaderModule(device_, m, nullptr);
    for (VkFramebuffer f : framebuffers_) vkDestroyFramebuffer(device_, f, nullptr);
    for (VkRenderPass r : passes_) vkDestroyRenderPass(device_, r, nullptr);
    for (VkImageView v : views_) vkDestroyImageView(device_, v, nullptr);
    for (VkImage i : images_) vkDestroyImage(device_, i, nullptr);
    for (VkBuffer b : buffers_) vkDestroyBuffer(device_, b, nullptr);
    for (VkDeviceMemory m : memories_) vkFreeMemory(device_, m, nullptr);
    vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }

  VkDevice device() const { return device_; }
  // Whether the next pipelines use draw_ubo.vert (which reads set 0) instead of draw_color.vert.
  void use_uniform_offset(bool on) { uniform_offset_ = on; }
  VkCommandBuffer cb() const { return cb_; }

  VkBuffer buffer(VkDeviceSize size, VkBufferUsageFlags usage, uint8_t** bytes) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    VkBuffer buffer = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device_, &info, nullptr, &buffer), VK_SUCCESS);
    buffers_.push_back(buffer);
    VkMemoryRequirements reqs;
    vkGetBufferMemoryRequirements(device_, buffer, &reqs);
    EXPECT_EQ(vkBindBufferMemory(device_, buffer, allocate(reqs, bytes), 0), VK_SUCCESS);
    return buffer;
  }

  VkImage image(VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage, VkImageView* view,
                uint32_t samples = 1) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {width, height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VkSampleCountFlagBits(samples);
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkImage image = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateImage(device_, &info, nullptr, &image), VK_SUCCESS);
    images_.push_back(image);
    VkMemoryRequirements reqs;
    vkGetImageMemoryRequirements(device_, image, &reqs);
    EXPECT_EQ(vkBindImageMemory(device_, image, allocate(reqs, nullptr), 0), VK_SUCCESS);
    VkImageViewCreateInfo v{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    v.image = image;
    v.viewType = VK_IMAGE_VIEW_TYPE_2D;
    v.format = format;
    const VkImageAspectFlags aspects = format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_D16_UNORM ||
                                               format == VK_FORMAT_X8_D24_UNORM_PACK32
                                           ? VK_IMAGE_ASPECT_DEPTH_BIT
                                       : format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT
                                           ? VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT
                                           : VK_IMAGE_ASPECT_COLOR_BIT;
    v.subresourceRange = {aspects, 0, 1, 0, 1};
    EXPECT_EQ(vkCreateImageView(device_, &v, nullptr, view), VK_SUCCESS);
    views_.push_back(*view);
    return image;
  }

  // A render pass with a colour attachment (CLEAR, STORE) and, with `depth`, a depth one (CLEAR both
  // aspects); with several samples, both have them and a one-sample resolve attachment follows.
  VkRenderPass render_pass(bool depth, VkFormat depth_format = VK_FORMAT_D32_SFLOAT,
                           VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM, uint32_t samples = 1,
                           bool resolve_attachment = true) {
    const bool resolving = samples > 1 && resolve_attachment;
    VkAttachmentDescription a[3] = {};
    a[0].format = color_format;
    a[1].format = depth_format;
    a[2].format = color_format;
    for (VkAttachmentDescription& d : a) {
      d.samples = VkSampleCountFlagBits(samples);
      d.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
      d.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
      d.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
      d.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
      d.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    }
    a[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    a[1].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    a[2].samples = VK_SAMPLE_COUNT_1_BIT;
    a[2].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    a[2].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference color{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference resolve{depth ? 2u : 1u, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    if (!depth) a[1] = a[2];
    VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &color;
    subpass.pDepthStencilAttachment = depth ? &depth_ref : nullptr;
    subpass.pResolveAttachments = resolving ? &resolve : nullptr;
    VkSubpassDependency dep{};
    dep.srcSubpass = 0;
    dep.dstSubpass = VK_SUBPASS_EXTERNAL;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = (depth ? 2 : 1) + (resolving ? 1 : 0);
    info.pAttachments = a;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    info.dependencyCount = 1;
    info.pDependencies = &dep;
    VkRenderPass pass = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateRenderPass(device_, &info, nullptr, &pass), VK_SUCCESS);
    passes_.push_back(pass);
    return pass;
  }

  // The pipeline layout: push constants for the fragment stage and one set layout with a uniform
  // buffer at binding 0 for the vertex stage (which only draw_ubo.vert reads).
  VkPipelineLayout layout() {
    if (layout_) return layout_;
    VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = 1;
    set_info.pBindings = &binding;
    EXPECT_EQ(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_), VK_SUCCESS);
    VkPushConstantRange range{VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = 1;
    info.pSetLayouts = &set_layout_;
    info.pushConstantRangeCount = 1;
    info.pPushConstantRanges = &range;
    EXPECT_EQ(vkCreatePipelineLayout(device_, &info, nullptr, &layout_), VK_SUCCESS);
    return layout_;
  }

  // A descriptor set whose binding 0 is a uniform buffer holding `bytes` (at most 256).
  VkDescriptorSet offset_set(const std::vector<uint8_t>& bytes) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorPool(device_, &pool_info, nullptr, &pool), VK_SUCCESS);
    descriptor_pools_.push_back(pool);
    layout();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &set_layout_;
    VkDescriptorSet set = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateDescriptorSets(device_, &alloc, &set), VK_SUCCESS);
    uint8_t* mapped = nullptr;
    VkBuffer ubo = buffer(256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &mapped);
    const size_t used = std::min<size_t>(bytes.size(), 256);
    std::memcpy(mapped, bytes.data(), used);
    VkDescriptorBufferInfo buffer_info{ubo, 0, used};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    write.pBufferInfo = &buffer_info;
    vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
    return set;
  }

  // The pipeline create info the scenes use; `edit` may change it before creation.
  template <typename Edit>
  VkResult pipeline(VkRenderPass pass, bool depth, VkCullModeFlags cull, Edit edit, VkPipeline* out) {
    if (modules_.empty()) {
      modules_.push_back(module(shader_draw_color_vert, sizeof shader_draw_color_vert));
      modules_.push_back(module(shader_draw_color_frag, sizeof shader_draw_color_frag));
      modules_.push_back(module(shader_draw_ubo_vert, sizeof shader_draw_ubo_vert));
      modules_.push_back(module(shader_draw_index_vert, sizeof shader_draw_index_vert));
    }
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = modules_[vertex_index_only_ ? 3 : uniform_offset_ ? 2 : 0];
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = modules_[1];
    stages[1].pName = "main";
    VkVertexInputBindingDescription binding{0, sizeof(DrawVertex), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attributes[2] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                        {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 12}};
    VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    vi.vertexBindingDescriptionCount = vertex_index_only_ ? 0 : 1;
    vi.pVertexBindingDescriptions = &binding;
    vi.vertexAttributeDescriptionCount = vertex_index_only_ ? 0 : 2;
    vi.pVertexAttributeDescriptions = attributes;
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = cull;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = depth;
    ds.depthWriteEnable = depth;
    ds.depthCompareOp = VK_COMPARE_OP_LESS;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = 0xf;
    VkPipelineColorBlendStateCreateInfo cbs{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cbs.attachmentCount = 1;
    cbs.pAttachments = &blend;
    VkDynamicState dynamic[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dyn.dynamicStateCount = 2;
    dyn.pDynamicStates = dynamic;
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &vi;
    info.pInputAssemblyState = &ia;
    info.pViewportState = &vp;
    info.pRasterizationState = &rs;
    info.pMultisampleState = &ms;
    info.pDepthStencilState = &ds;
    info.pColorBlendState = &cbs;
    info.pDynamicState = &dyn;
    info.layout = layout();
    info.renderPass = pass;
    edit(info);
    VkResult r = vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, out);
    if (*out) pipelines_.push_back(*out);
    return r;
  }

  // The scene's targets, pass and framebuffer; the colour image and (with depth) the depth image.
  struct Targets {
    VkImage color = VK_NULL_HANDLE, depth = VK_NULL_HANDLE;
    VkImage resolve = VK_NULL_HANDLE;  // multisampled scenes: what the frame's colour is copied from
    VkRenderPass pass = VK_NULL_HANDLE;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
  };
  Targets targets(const DrawScene& s) {
    Targets t;
    VkImageView views[3] = {};
    t.color = image(s.color_format, s.width, s.height, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | s.color_usage, &views[0],
                    s.samples);
    last_color_view_ = views[0];
    last_color_image_ = t.color;
    if (s.depth) {
      t.depth = image(s.depth_format, s.width, s.height, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &views[1],
                      s.samples);
    }
    const bool attachment = s.samples > 1 && !s.resolve_command;
    const uint32_t count = (s.depth ? 2 : 1) + (attachment ? 1 : 0);
    if (s.samples > 1) {
      VkImageView resolve_view = VK_NULL_HANDLE;
      t.resolve = image(s.color_format, s.width, s.height,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &resolve_view);
      if (attachment) views[count - 1] = resolve_view;
    }
    t.pass = render_pass(s.depth, s.depth_format, s.color_format, s.samples, attachment);
    VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb.renderPass = t.pass;
    fb.attachmentCount = count;
    fb.pAttachments = views;
    fb.width = s.width;
    fb.height = s.height;
    fb.layers = 1;
    EXPECT_EQ(vkCreateFramebuffer(device_, &fb, nullptr, &t.framebuffer), VK_SUCCESS);
    framebuffers_.push_back(t.framebuffer);
    return t;
  }

  void begin_pass(const DrawScene& s, const Targets& t) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb_, &begin), VK_SUCCESS);
    if (s.before_pass) s.before_pass(cb_);
    VkClearValue clears[2] = {};
    std::memcpy(clears[0].color.float32, s.clear, sizeof s.clear);
    clears[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rp.renderPass = t.pass;
    rp.framebuffer = t.framebuffer;
    rp.renderArea = {{0, 0}, {s.width, s.height}};
    rp.clearValueCount = 2;
    rp.pClearValues = clears;
    vkCmdBeginRenderPass(cb_, &rp, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport viewport{0, 0, float(s.width), float(s.height), 0, 1};
    VkRect2D scissor{{0, 0}, {s.width, s.height}};
    vkCmdSetViewport(cb_, 0, 1, &viewport);
    vkCmdSetScissor(cb_, 0, 1, &scissor);
  }

  // Ends the pass, copies the images into host buffers, submits and waits.
  DrawFrame finish(const DrawScene& s, const Targets& t) {
    vkCmdEndRenderPass(cb_);
    if (s.samples > 1 && s.resolve_command) {
      VkImageMemoryBarrier written{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
      written.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
      written.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
      written.oldLayout = written.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
      written.srcQueueFamilyIndex = written.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      written.image = t.color;
      written.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      VkImageMemoryBarrier to_dst = written;
      to_dst.srcAccessMask = 0;
      to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      to_dst.image = t.resolve;
      const VkImageMemoryBarrier barriers[2] = {written, to_dst};
      vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 2, barriers);
      VkImageResolve r{};
      r.srcSubresource = r.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      r.extent = {s.width, s.height, 1};
      vkCmdResolveImage(cb_, t.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, t.resolve,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
      to_dst.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      to_dst.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
      to_dst.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
      vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &to_dst);
    }
    const VkDeviceSize pixels = VkDeviceSize{s.width} * s.height;
    uint8_t *color = nullptr, *depth = nullptr, *stencil = nullptr;
    const VkDeviceSize texel = color_texel_bytes(s.color_format);
    VkBuffer color_buffer = buffer(pixels * texel, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &color);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {s.width, s.height, 1};
    const VkImage shown = t.resolve != VK_NULL_HANDLE ? t.resolve : t.color;
    vkCmdCopyImageToBuffer(cb_, shown, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, color_buffer, 1, &region);
    if (s.depth && s.samples == 1) {
      VkBuffer depth_buffer = buffer(pixels * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &depth);
      region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
      vkCmdCopyImageToBuffer(cb_, t.depth, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, depth_buffer, 1, &region);
      if (s.depth_format == VK_FORMAT_D24_UNORM_S8_UINT || s.depth_format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
        VkBuffer stencil_buffer = buffer(pixels, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &stencil);
        region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
        vkCmdCopyImageToBuffer(cb_, t.depth, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, stencil_buffer, 1, &region);
      }
    }
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr,
                         0, nullptr);
    submit_and_wait();
    DrawFrame frame;
    frame.color.assign(color, color + pixels * texel);
    if (depth && s.depth_format == VK_FORMAT_D16_UNORM) {
      for (VkDeviceSize i = 0; i < pixels; ++i) frame.depth_bits.push_back(depth[2 * i] | depth[2 * i + 1] << 8);
    } else if (depth) {
      frame.depth_bits.resize(pixels);
      std::memcpy(frame.depth_bits.data(), depth, pixels * 4);
      if (s.depth_format == VK_FORMAT_D32_SFLOAT || s.depth_format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
        frame.depth.resize(pixels);
        std::memcpy(frame.depth.data(), depth, pixels * 4);
      }
    }
    if (stencil) frame.stencil.assign(stencil, stencil + pixels);
    return frame;
  }

  void submit_and_wait() {
    EXPECT_EQ(vkEndCommandBuffer(cb_), VK_SUCCESS);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb_;
    EXPECT_EQ(vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
    EXPECT_EQ(vkQueueWaitIdle(queue_), VK_SUCCESS);
  }

  // Renders the scene: one pipeline, the vertices and indices in buffers, each draw with its tint.
  DrawFrame render(const DrawScene& s) {
    Targets t = targets(s);
    VkPipeline pipeline = VK_NULL_HANDLE;
    EXPECT_EQ(pipeline_or(t.pass, s), VK_SUCCESS);
    pipeline = pipelines_.back();
    uint8_t *vbytes = nullptr, *ibytes = nullptr;
    VkBuffer vb = buffer(std::max<size_t>(s.vertices.size(), 1) * sizeof(DrawVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                         &vbytes);
    // A scene of a vertex-index-only shader has no vertices: memcpy from NULL is undefined (UBSan).
    if (!s.vertices.empty()) std::memcpy(vbytes, s.vertices.data(), s.vertices.size() * sizeof(DrawVertex));
    VkBuffer ib = VK_NULL_HANDLE;
    if (!s.indices.empty()) {
      ib = buffer(s.indices.size() * 2, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ibytes);
      std::memcpy(ibytes, s.indices.data(), s.indices.size() * 2);
    }
    begin_pass(s, t);
    vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    VkDeviceSize offset = 0;
    if (!s.vertex_index_only) vkCmdBindVertexBuffers(cb_, 0, 1, &vb, &offset);
    if (ib) vkCmdBindIndexBuffer(cb_, ib, 0, VK_INDEX_TYPE_UINT16);
    if (s.before_draws) s.before_draws(cb_);
    if (s.uniform_offset) {
      std::vector<uint8_t> bytes = s.uniform_bytes;
      if (bytes.empty()) {
        bytes.resize(sizeof s.offset);
        std::memcpy(bytes.data(), s.offset, sizeof s.offset);
      }
      VkDescriptorSet set = offset_set(bytes);
      vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout(), 0, 1, &set, 0, nullptr);
    }
    for (size_t i = 0; i < s.draws.size(); ++i) {
      const DrawCall& d = s.draws[i];
      if (s.before_draw) s.before_draw(cb_, i);
      vkCmdPushConstants(cb_, layout(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, d.tint);
      if (d.indexed) {
        vkCmdDrawIndexed(cb_, d.count, 1, d.first, d.vertex_offset, 0);
      } else {
        vkCmdDraw(cb_, d.count, 1, d.first, 0);
      }
    }
    if (s.after_draws) s.after_draws(cb_);
    return finish(s, t);
  }

  // Host-visible, coherent memory for `reqs` (mapped into *bytes when it is not null).
  VkDeviceMemory allocate(const VkMemoryRequirements& reqs, uint8_t** bytes) {
    const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < memory_props_.memoryTypeCount &&
           (!(reqs.memoryTypeBits & (1u << type)) || (memory_props_.memoryTypes[type].propertyFlags & wanted) != wanted)) {
      ++type;
    }
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = reqs.size;
    alloc.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateMemory(device_, &alloc, nullptr, &memory), VK_SUCCESS);
    memories_.push_back(memory);
    if (bytes != nullptr) {
      void* map = nullptr;
      EXPECT_EQ(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
      *bytes = static_cast<uint8_t*>(map);
    }
    return memory;
  }

  // The colour attachment (the multisampled one, before any resolve) of the last scene rendered.
  VkImageView last_color_view() const { return last_color_view_; }
  VkImage last_color_image() const { return last_color_image_; }

 private:
  VkResult pipeline_or(VkRenderPass pass, const DrawScene& s) {
    VkPipeline p = VK_NULL_HANDLE;
    uniform_offset_ = s.uniform_offset;
    vertex_index_only_ = s.vertex_index_only;
    VkPipelineShaderStageCreateInfo stages[2];
    VkPipelineMultisampleStateCreateInfo ms{};
    VkResult r = pipeline(pass, s.depth, s.cull, [&](VkGraphicsPipelineCreateInfo& info) {
      std::copy(info.pStages, info.pStages + 2, stages);
      ms = *info.pMultisampleState;
      ms.rasterizationSamples = VkSampleCountFlagBits(s.samples);
      ms.pSampleMask = s.sample_mask != ~0u ? &s.sample_mask : nullptr;
      ms.alphaToCoverageEnable = s.alpha_to_coverage;
      info.pMultisampleState = &ms;
      if (s.vertex_spirv != nullptr) {  // the scene's vertex shader, on this side's device
        modules_.push_back(module(s.vertex_spirv, s.vertex_spirv_bytes));
        stages[0].module = modules_.back();
      }
      if (s.fragment_spirv != nullptr) {
        modules_.push_back(module(s.fragment_spirv, s.fragment_spirv_bytes));
        stages[1].module = modules_.back();
      }
      info.pStages = stages;
      if (s.edit) s.edit(info);
    }, &p);
    uniform_offset_ = false;
    vertex_index_only_ = false;
    return r;
  }

  VkShaderModule module(const uint32_t* code, size_t bytes) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = bytes;
    info.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &m), VK_SUCCESS);
    return m;
  }

  bool uniform_offset_ = false;  // the next pipeline's vertex shader: draw_ubo.vert
  bool vertex_index_only_ = false;  // draw_index.vert
  VkPhysicalDevice physical_;
  VkPhysicalDeviceMemoryProperties memory_props_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkImageView last_color_view_ = VK_NULL_HANDLE;  // the last scene's colour attachment (owned by views_)
  VkImage last_color_image_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptor_pools_;
  std::vector<VkShaderModule> modules_;
  std::vector<VkPipeline> pipelines_;
  std::vector<VkRenderPass> passes_;
  std::vector<VkFramebuffer> framebuffers_;
  std::vector<VkImageView> views_;
  std::vector<VkImage> images_;
  std::vector<VkBuffer> buffers_;
  std::vector<VkDeviceMemory> memories_;
};

}  // namespace gsgpu::vk::test
