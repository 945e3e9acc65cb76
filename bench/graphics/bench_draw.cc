// Draw throughput of the gsgpu Vulkan driver against lavapipe, in one process through the Khronos
// loader (meson sets VK_DRIVER_FILES to both manifests; docs/performance.md "Graphics"). Issue 11
// acceptance 5's workloads, each a command buffer recorded once and submitted per iteration
// (submit + wait, as a frame):
//   FlatFill        8 full-screen rectangles of one colour into a 256 x 256 RGBA8 target: pixels/s
//   LongFragment    one full-screen rectangle, a fragment shader of 64 dependent iterations: pixels/s
//   TinyTriangles   a 128 x 128 grid of triangles of 2 pixels each: triangles/s
//   ManyDraws       kManyDraws draws of one 2-pixel triangle each, a push constant between them:
//                   draws/s (what a frame of many small draws costs per draw: recording aside,
//                   the driver's per-draw submission work; docs/performance.md "Per-draw cost")
// Each benchmark is registered once per device found ("gsgpu", lavapipe's "llvmpipe ..."), so one
// run gives both sides of every ratio.
#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/graphics/workloads.h"
#include "bench_vert.h"
#include "flat_frag.h"
#include "long_frag.h"

namespace {

using namespace bench_graphics;
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) {
    std::fprintf(stderr, "bench_draw: %s failed: %d\n", what, int(r));
    std::exit(1);
  }
}

// One device, its queue, and the objects every workload shares (target, pass, framebuffer).
class Gpu {
 public:
  explicit Gpu(VkPhysicalDevice physical) : physical_(physical) {
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    check(vkCreateDevice(physical, &info, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    check(vkCreateCommandPool(device_, &pool_info, nullptr, &pool_), "vkCreateCommandPool");
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device_, &fence_info, nullptr, &fence_), "vkCreateFence");
    make_target();
    make_pass();
  }

  // A command buffer that clears the target and draws `vertices` (a triangle list) with `fragment`.
  VkCommandBuffer record(const Positions& vertices, const uint32_t* fragment, size_t fragment_bytes) {
    VkBuffer vb = vertex_buffer(vertices);
    VkPipeline pipeline = make_pipeline(fragment, fragment_bytes);
    VkCommandBuffer cb = begin_pass();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
    const float colour[4] = {0.25f, 0.5f, 0.75f, 1.0f};
    vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(colour), colour);
    vkCmdDraw(cb, uint32_t(vertices.size() / 2), 1, 0, 0);
    vkCmdEndRenderPass(cb);
    check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    return cb;
  }

  // A command buffer that clears the target and makes `draws` draws of one triangle each (the
  // first `draws` triangles of `vertices`), a push constant before each, as GL drivers emit them.
  VkCommandBuffer record_many(const Positions& vertices, uint32_t draws) {
    VkBuffer vb = vertex_buffer(vertices);
    VkPipeline pipeline = make_pipeline(flat_frag, sizeof(flat_frag));
    VkCommandBuffer cb = begin_pass();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
    for (uint32_t i = 0; i < draws; ++i) {
      const float colour[4] = {float(i % 7) / 7.0f, 0.5f, 0.75f, 1.0f};
      vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(colour), colour);
      vkCmdDraw(cb, 3, 1, 3 * i, 0);
    }
    vkCmdEndRenderPass(cb);
    check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    return cb;
  }

  // One frame: submit and wait.
  void run(VkCommandBuffer cb) {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    check(vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit");
    check(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    check(vkResetFences(device_, 1, &fence_), "vkResetFences");
  }

 private:
  // A new primary command buffer, begun, inside the render pass (clearing the target).
  VkCommandBuffer begin_pass() {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(device_, &alloc, &cb), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    VkClearValue clear{};
    VkRenderPassBeginInfo pass_begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    pass_begin.renderPass = pass_;
    pass_begin.framebuffer = framebuffer_;
    pass_begin.renderArea.extent = {kSize, kSize};
    pass_begin.clearValueCount = 1;
    pass_begin.pClearValues = &clear;
    vkCmdBeginRenderPass(cb, &pass_begin, VK_SUBPASS_CONTENTS_INLINE);
    return cb;
  }

  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical_, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
      if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    }
    std::fprintf(stderr, "bench_draw: no memory type\n");
    std::exit(1);
  }

  VkDeviceMemory allocate(const VkMemoryRequirements& reqs, VkMemoryPropertyFlags wanted) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = reqs.size;
    info.memoryTypeIndex = memory_type(reqs.memoryTypeBits, wanted);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    check(vkAllocateMemory(device_, &info, nullptr, &memory), "vkAllocateMemory");
    return memory;
  }

  void make_target() {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = kFormat;
    info.extent = {kSize, kSize, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    check(vkCreateImage(device_, &info, nullptr, &image_), "vkCreateImage");
    VkMemoryRequirements reqs;
    vkGetImageMemoryRequirements(device_, image_, &reqs);
    check(vkBindImageMemory(device_, image_, allocate(reqs, 0), 0), "vkBindImageMemory");
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = image_;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = kFormat;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    check(vkCreateImageView(device_, &view, nullptr, &view_), "vkCreateImageView");
  }

  void make_pass() {
    VkAttachmentDescription colour{};
    colour.format = kFormat;
    colour.samples = VK_SAMPLE_COUNT_1_BIT;
    colour.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    colour.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    colour.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    colour.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    colour.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 1;
    info.pAttachments = &colour;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    check(vkCreateRenderPass(device_, &info, nullptr, &pass_), "vkCreateRenderPass");
    VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb.renderPass = pass_;
    fb.attachmentCount = 1;
    fb.pAttachments = &view_;
    fb.width = kSize;
    fb.height = kSize;
    fb.layers = 1;
    check(vkCreateFramebuffer(device_, &fb, nullptr, &framebuffer_), "vkCreateFramebuffer");
    VkPushConstantRange range{VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
    VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(device_, &layout, nullptr, &layout_), "vkCreatePipelineLayout");
  }

  VkBuffer vertex_buffer(const Positions& vertices) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = vertices.size() * sizeof(float);
    info.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    check(vkCreateBuffer(device_, &info, nullptr, &buffer), "vkCreateBuffer");
    VkMemoryRequirements reqs;
    vkGetBufferMemoryRequirements(device_, buffer, &reqs);
    VkDeviceMemory memory =
        allocate(reqs, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    check(vkBindBufferMemory(device_, buffer, memory, 0), "vkBindBufferMemory");
    void* bytes = nullptr;
    check(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &bytes), "vkMapMemory");
    std::memcpy(bytes, vertices.data(), info.size);
    return buffer;
  }

  VkShaderModule module(const uint32_t* code, size_t bytes) {
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = bytes;
    info.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device_, &info, nullptr, &m), "vkCreateShaderModule");
    return m;
  }

  VkPipeline make_pipeline(const uint32_t* fragment, size_t fragment_bytes) {
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = module(bench_vert, sizeof(bench_vert));
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = module(fragment, fragment_bytes);
    stages[1].pName = "main";
    VkVertexInputBindingDescription binding{0, 2 * sizeof(float), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attribute{0, 0, VK_FORMAT_R32G32_SFLOAT, 0};
    VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 1;
    input.pVertexBindingDescriptions = &binding;
    input.vertexAttributeDescriptionCount = 1;
    input.pVertexAttributeDescriptions = &attribute;
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    VkRect2D scissor{{0, 0}, {kSize, kSize}};
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.pViewports = &viewport;
    vp.scissorCount = 1;
    vp.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = 0xf;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = &input;
    info.pInputAssemblyState = &assembly;
    info.pViewportState = &vp;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &ms;
    info.pColorBlendState = &cb;
    info.layout = layout_;
    info.renderPass = pass_;
    VkPipeline pipeline = VK_NULL_HANDLE;
    check(vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
          "vkCreateGraphicsPipelines");
    return pipeline;
  }

  // Nothing is destroyed: each device lives for the process, as the benchmark registry does.
  VkPhysicalDevice physical_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
};

void register_device(Gpu* gpu, const std::string& name) {
  VkCommandBuffer fill = gpu->record(full_screen_layers(kFillLayers), flat_frag, sizeof(flat_frag));
  VkCommandBuffer shade = gpu->record(full_screen_layers(1), long_frag, sizeof(long_frag));
  VkCommandBuffer tiny = gpu->record(tiny_triangles(kGrid), flat_frag, sizeof(flat_frag));
  register_workloads(name, {[gpu, fill] { gpu->run(fill); }, [gpu, shade] { gpu->run(shade); },
                            [gpu, tiny] { gpu->run(tiny); }});
  VkCommandBuffer many = gpu->record_many(tiny_triangles(kGrid), kManyDraws);
  register_many_draws(name, [gpu, many] { gpu->run(many); });
}

// "gsgpu" (or BENCH_DRAW_GSGPU_LABEL's value, to tell the native route's library from the local
// one) or "lavapipe"; other devices are not benchmarked.
std::string short_name(const char* device_name) {
  if (std::strcmp(device_name, "gsgpu") == 0) {
    const char* label = std::getenv("BENCH_DRAW_GSGPU_LABEL");
    return label != nullptr && *label != 0 ? label : "gsgpu";
  }
  if (std::strncmp(device_name, "llvmpipe", 8) == 0) return "lavapipe";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_0;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  check(vkCreateInstance(&info, nullptr, &instance), "vkCreateInstance");
  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    const std::string name = short_name(p.deviceName);
    if (!name.empty()) register_device(new Gpu(d), name);  // lives for the process
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
