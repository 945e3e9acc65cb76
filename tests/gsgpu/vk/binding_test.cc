// The resource-binding entry points through the loader (docs/vulkan-driver.md "Resource binding"):
// shader modules, set and pipeline layouts, pools and sets, updates and copies, binding with
// dynamic offsets and push constants. What the bytes of a bound set are is binding_model_test.cc;
// here: lifetimes, the results the API returns, and hostile values refused with a log line.
#include <cstddef>
#include <string>
#include <vector>

#include "tests/gsgpu/vk/transfer_fixture.h"

namespace gsgpu::vk::test {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// OpCapability Shader; OpMemoryModel Logical GLSL450; a Vertex entry "main" that returns.
const std::vector<uint32_t> kMinimalVertexModule = {
    0x07230203, 0x00010000, 0, 5, 0,           // header, id bound 5
    (2 << 16) | 17, 1,                         // OpCapability Shader
    (3 << 16) | 14, 0, 1,                      // OpMemoryModel Logical GLSL450
    (5 << 16) | 15, 0, 3, 0x6e69616d, 0,       // OpEntryPoint Vertex %3 "main"
    (2 << 16) | 19, 1,                         // %1 = OpTypeVoid
    (3 << 16) | 33, 2, 1,                      // %2 = OpTypeFunction %1
    (5 << 16) | 54, 1, 3, 0, 2,                // %3 = OpFunction %1 None %2
    (2 << 16) | 248, 4,                        // %4 = OpLabel
    (1 << 16) | 253,                           // OpReturn
    (1 << 16) | 56,                            // OpFunctionEnd
};

class VkBinding : public VkTransfer {
 protected:
  void TearDown() override {
    for (VkPipelineLayout l : pipeline_layouts_) vkDestroyPipelineLayout(device_, l, nullptr);
    for (VkDescriptorSetLayout l : set_layouts_) vkDestroyDescriptorSetLayout(device_, l, nullptr);
    for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(device_, p, nullptr);
    VkTransfer::TearDown();
  }

  VkDescriptorSetLayout make_set_layout(std::vector<VkDescriptorSetLayoutBinding> bindings) {
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = static_cast<uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorSetLayout(device_, &info, nullptr, &layout), VK_SUCCESS);
    set_layouts_.push_back(layout);
    return layout;
  }
  VkPipelineLayout make_pipeline_layout(std::vector<VkDescriptorSetLayout> sets,
                                        std::vector<VkPushConstantRange> ranges = {}) {
    VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = static_cast<uint32_t>(sets.size());
    info.pSetLayouts = sets.data();
    info.pushConstantRangeCount = static_cast<uint32_t>(ranges.size());
    info.pPushConstantRanges = ranges.data();
    VkPipelineLayout layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreatePipelineLayout(device_, &info, nullptr, &layout), VK_SUCCESS);
    pipeline_layouts_.push_back(layout);
    return layout;
  }
  VkDescriptorPool make_pool(uint32_t max_sets, std::vector<VkDescriptorPoolSize> sizes, bool free_sets) {
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.flags = free_sets ? VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT : 0;
    info.maxSets = max_sets;
    info.poolSizeCount = static_cast<uint32_t>(sizes.size());
    info.pPoolSizes = sizes.data();
    VkDescriptorPool pool = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorPool(device_, &info, nullptr, &pool), VK_SUCCESS);
    pools_.push_back(pool);
    return pool;
  }
  VkResult allocate(VkDescriptorPool pool, std::vector<VkDescriptorSetLayout> layouts, VkDescriptorSet* out) {
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pool;
    info.descriptorSetCount = static_cast<uint32_t>(layouts.size());
    info.pSetLayouts = layouts.data();
    return vkAllocateDescriptorSets(device_, &info, out);
  }
  VkWriteDescriptorSet buffer_write(VkDescriptorSet set, uint32_t binding, VkDescriptorType type,
                                    const VkDescriptorBufferInfo* info) {
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = binding;
    write.descriptorCount = 1;
    write.descriptorType = type;
    write.pBufferInfo = info;
    return write;
  }

  std::vector<VkPipelineLayout> pipeline_layouts_;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  std::vector<VkDescriptorPool> pools_;
};

const VkDescriptorSetLayoutBinding kUniform0 = {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_ALL, nullptr};
const VkDescriptorSetLayoutBinding kDynamic1 = {1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_ALL,
                                                nullptr};

TEST_F(VkBinding, DescriptorLimitsAreWhatTheConstantBufferHolds) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  EXPECT_EQ(props.limits.maxBoundDescriptorSets, 4u);
  EXPECT_EQ(props.limits.maxPushConstantsSize, 128u);
  EXPECT_EQ(props.limits.maxPerStageDescriptorUniformBuffers, 64u);
  EXPECT_EQ(props.limits.maxDescriptorSetUniformBuffers, 64u);
  EXPECT_EQ(props.limits.maxUniformBufferRange, 65536u);
  EXPECT_EQ(props.limits.minUniformBufferOffsetAlignment, 256u);
  EXPECT_EQ(props.limits.maxPerStageDescriptorStorageBuffers, 64u);  // compute shaders read them from the table
  EXPECT_EQ(props.limits.maxPerStageDescriptorSampledImages, 64u);  // texture records (texture_draw_test.cc)
  EXPECT_EQ(props.limits.maxPerStageDescriptorStorageImages, 0u);
}

TEST_F(VkBinding, ShaderModuleKeepsValidSpirvAndRefusesMalformedModules) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = kMinimalVertexModule.size() * 4;
  info.pCode = kMinimalVertexModule.data();
  VkShaderModule module = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_SUCCESS);
  EXPECT_NE(module, VK_NULL_HANDLE);
  vkDestroyShaderModule(device_, module, nullptr);
  vkDestroyShaderModule(device_, VK_NULL_HANDLE, nullptr);

  testing::internal::CaptureStderr();
  std::vector<uint32_t> words = kMinimalVertexModule;
  info.codeSize = 22;  // not a multiple of 4
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  info.codeSize = 0;
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  info.pCode = words.data();
  info.codeSize = words.size() * 4;
  words[0] = 0x03022307;  // byte-swapped magic
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  words = kMinimalVertexModule;
  words[5] = (200 << 16) | 17;  // OpCapability claiming 200 words
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  words = kMinimalVertexModule;
  words[3] = 3;  // id bound 3: %3 and %4 outside it
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  words = kMinimalVertexModule;
  info.codeSize = (words.size() - 1) * 4;  // no OpFunctionEnd
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  info.codeSize = words.size() * 4;
  words[6] = 6;  // OpCapability Kernel: an OpenCL module
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  words = kMinimalVertexModule;
  words[8] = 2;  // OpMemoryModel Physical64
  EXPECT_EQ(vkCreateShaderModule(device_, &info, nullptr, &module), VK_ERROR_UNKNOWN);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCreateShaderModule: codeSize"), 2) << log;
  EXPECT_EQ(count(log, "vkCreateShaderModule: invalid SPIR-V"), 4) << log;
  EXPECT_EQ(count(log, "bad magic number"), 1) << log;
  EXPECT_EQ(count(log, "not a Vulkan shader module: capability 6"), 1) << log;
  EXPECT_EQ(count(log, "not a Vulkan shader module: addressing model 2"), 1) << log;
}

// Sets outlive the VkDescriptorSetLayout they were allocated with; a pool hands out at most its
// sizes (VK_ERROR_OUT_OF_POOL_MEMORY, VK_KHR_maintenance1 past them, all or nothing), gives back freed sets, and frees
// every set at reset and destruction.
TEST_F(VkBinding, PoolsAllocateWithinTheirSizesAndSetsOutliveTheirLayout) {
  VkDescriptorSetLayout set_layout = make_set_layout({kUniform0, kDynamic1});
  VkPipelineLayout layout = make_pipeline_layout({set_layout});
  VkDescriptorPool pool = make_pool(2, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 2}}, true);
  VkDescriptorSet sets[3] = {};
  VkDescriptorSet marked[3] = {reinterpret_cast<VkDescriptorSet>(1), reinterpret_cast<VkDescriptorSet>(1),
                               reinterpret_cast<VkDescriptorSet>(1)};
  EXPECT_EQ(allocate(pool, {set_layout, set_layout, set_layout}, marked), VK_ERROR_OUT_OF_POOL_MEMORY);
  for (VkDescriptorSet s : marked) EXPECT_EQ(s, VK_NULL_HANDLE);
  ASSERT_EQ(allocate(pool, {set_layout, set_layout}, sets), VK_SUCCESS);  // the failed call took nothing
  EXPECT_EQ(allocate(pool, {set_layout}, &sets[2]), VK_ERROR_OUT_OF_POOL_MEMORY);
  ASSERT_EQ(vkFreeDescriptorSets(device_, pool, 1, &sets[0]), VK_SUCCESS);
  ASSERT_EQ(allocate(pool, {set_layout}, &sets[0]), VK_SUCCESS);

  vkDestroyDescriptorSetLayout(device_, set_layout, nullptr);  // the sets and pipeline layout keep it
  set_layouts_.clear();
  uint8_t* bytes = nullptr;
  VkBuffer buffer = make_buffer(4096, &bytes);
  const VkDescriptorBufferInfo info{buffer, 256, 256};
  VkWriteDescriptorSet writes[2] = {buffer_write(sets[0], 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &info),
                                    buffer_write(sets[1], 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, &info)};
  VkCopyDescriptorSet copy{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  copy.srcSet = sets[1];
  copy.srcBinding = 1;
  copy.dstSet = sets[0];
  copy.dstBinding = 1;
  copy.descriptorCount = 1;
  testing::internal::CaptureStderr();
  vkUpdateDescriptorSets(device_, 2, writes, 1, &copy);
  begin();
  const uint32_t offsets[2] = {512, 3584};
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &sets[0], 1, &offsets[0]);
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &sets[1], 1, &offsets[1]);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  submit_and_wait();  // binding state alone runs nothing

  // A pool without FREE_DESCRIPTOR_SET_BIT refuses to free; reset frees everything.
  VkDescriptorPool fixed = make_pool(1, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 8}}, false);
  VkDescriptorSetLayout small = make_set_layout({kUniform0});
  VkDescriptorSet one = VK_NULL_HANDLE;
  ASSERT_EQ(allocate(fixed, {small}, &one), VK_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(vkFreeDescriptorSets(device_, fixed, 1, &one), VK_ERROR_UNKNOWN);
  EXPECT_EQ(vkFreeDescriptorSets(device_, pool, 1, &one), VK_SUCCESS);  // not the pool's: skipped
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "without FREE_DESCRIPTOR_SET_BIT"), 1) << log;
  EXPECT_EQ(count(log, "not a live set of this pool"), 1) << log;
  EXPECT_EQ(allocate(fixed, {small}, &one), VK_ERROR_OUT_OF_POOL_MEMORY);
  ASSERT_EQ(vkResetDescriptorPool(device_, fixed, 0), VK_SUCCESS);
  EXPECT_EQ(allocate(fixed, {small}, &one), VK_SUCCESS);
  EXPECT_EQ(vkFreeDescriptorSets(device_, pool, 2, sets), VK_SUCCESS);
  // TearDown destroys the pools with sets still allocated from them.
}

TEST_F(VkBinding, HostileLayoutsAndPoolsAreRefusedWithALogLine) {
  testing::internal::CaptureStderr();
  VkDescriptorSetLayoutBinding twice[2] = {kUniform0, kUniform0};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 2;
  info.pBindings = twice;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDescriptorSetLayout(device_, &info, nullptr, &layout), VK_ERROR_UNKNOWN);
  twice[1] = {7, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0xffffffffu, VK_SHADER_STAGE_ALL, nullptr};
  EXPECT_EQ(vkCreateDescriptorSetLayout(device_, &info, nullptr, &layout), VK_ERROR_OUT_OF_HOST_MEMORY);

  VkDescriptorSetLayout good = make_set_layout({kUniform0});
  const VkDescriptorSetLayout five[5] = {good, good, good, good, good};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 5;
  pl.pSetLayouts = five;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreatePipelineLayout(device_, &pl, nullptr, &pipeline_layout), VK_ERROR_UNKNOWN);
  const VkPushConstantRange past = {VK_SHADER_STAGE_VERTEX_BIT, 120, 16};
  pl.setLayoutCount = 1;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &past;
  EXPECT_EQ(vkCreatePipelineLayout(device_, &pl, nullptr, &pipeline_layout), VK_ERROR_UNKNOWN);

  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  VkDescriptorPool handle = VK_NULL_HANDLE;
  pool.maxSets = 0;
  EXPECT_EQ(vkCreateDescriptorPool(device_, &pool, nullptr, &handle), VK_ERROR_UNKNOWN);
  pool.maxSets = 1;
  pool.flags = 0x2;  // UPDATE_AFTER_BIND: an extension
  EXPECT_EQ(vkCreateDescriptorPool(device_, &pool, nullptr, &handle), VK_ERROR_UNKNOWN);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCreateDescriptorSetLayout: binding 0 appears twice; refused"), 1) << log;
  EXPECT_EQ(count(log, "vkCreateDescriptorSetLayout: more than"), 1) << log;
  EXPECT_EQ(count(log, "vkCreatePipelineLayout: 5 set layouts"), 1) << log;
  EXPECT_EQ(count(log, "passes maxPushConstantsSize"), 1) << log;
  EXPECT_EQ(count(log, "vkCreateDescriptorPool:"), 2) << log;
}

// Every refused update, bind and push leaves a log line and changes nothing; none crashes.
TEST_F(VkBinding, HostileUpdatesBindsAndPushesAreRefusedWithALogLine) {
  VkDescriptorSetLayout set_layout = make_set_layout({kUniform0, kDynamic1});
  VkPipelineLayout layout = make_pipeline_layout({set_layout}, {{VK_SHADER_STAGE_VERTEX_BIT, 0, 64}});
  VkDescriptorPool pool = make_pool(1, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1}}, false);
  VkDescriptorSet set = VK_NULL_HANDLE;
  ASSERT_EQ(allocate(pool, {set_layout}, &set), VK_SUCCESS);
  uint8_t* bytes = nullptr;
  VkBuffer buffer = make_buffer(4096, &bytes);
  VkBufferCreateInfo unbound_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  unbound_info.size = 4096;
  unbound_info.usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  VkBuffer unbound = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(device_, &unbound_info, nullptr, &unbound), VK_SUCCESS);
  buffers_.push_back(unbound);

  const VkDescriptorBufferInfo infos[] = {{buffer, 4096, 16}, {buffer, 3840, 512}, {buffer, 100, 16},
                                          {unbound, 0, 256},  {buffer, 0, 65792}};
  std::vector<VkWriteDescriptorSet> writes;
  for (const VkDescriptorBufferInfo& info : infos) {
    writes.push_back(buffer_write(set, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &info));
  }
  writes.push_back(buffer_write(set, 99, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &infos[0]));
  writes.push_back(buffer_write(set, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &infos[0]));  // wrong type
  writes.push_back(buffer_write(VK_NULL_HANDLE, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &infos[0]));
  writes.back().dstSet = VK_NULL_HANDLE;
  VkCopyDescriptorSet copy{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  copy.srcSet = set;
  copy.dstSet = set;
  copy.srcBinding = 0;
  copy.dstBinding = 1;  // a uniform buffer onto a dynamic one
  copy.descriptorCount = 1;
  testing::internal::CaptureStderr();
  vkUpdateDescriptorSets(device_, static_cast<uint32_t>(writes.size()), writes.data(), 1, &copy);
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkUpdateDescriptorSets: write "), 8) << log;
  EXPECT_EQ(count(log, "vkUpdateDescriptorSets: copy 0"), 1) << log;
  EXPECT_EQ(count(log, "; skipped"), 9) << log;

  const VkDescriptorBufferInfo good{buffer, 0, 256};
  VkWriteDescriptorSet dynamic = buffer_write(set, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, &good);
  vkUpdateDescriptorSets(device_, 1, &dynamic, 0, nullptr);
  begin();
  testing::internal::CaptureStderr();
  const uint32_t offsets[] = {100, 4096, 3840, 0xffffff00u, 256};
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offsets[0]);  // unaligned
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offsets[1]);  // past the end
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offsets[3]);  // far past
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);      // none given
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 2, &offsets[3]);  // two
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 1, 1, &set, 1, &offsets[4]);  // set 1
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0xffffffffu, 1, &set, 1, &offsets[4]);
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, VK_NULL_HANDLE, 0, 1, &set, 1, &offsets[4]);
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offsets[2]);  // 3840 + 256 fits
  const uint32_t data[32] = {};
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_VERTEX_BIT, 60, 8, data);           // past the range
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_VERTEX_BIT, 0xfffffffcu, 8, data);  // wraps
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 4, data);          // a stage with no range
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_VERTEX_BIT, 2, 4, data);            // unaligned
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 64, data);           // fits
  log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "vkCmdBindDescriptorSets: "), 8) << log;
  EXPECT_EQ(count(log, "not a multiple of 256"), 1) << log;
  EXPECT_EQ(count(log, "passes the end of a buffer of 4096 bytes"), 2) << log;
  EXPECT_EQ(count(log, "dynamic offsets for 1 dynamic descriptors"), 2) << log;
  EXPECT_EQ(count(log, "vkCmdPushConstants: "), 4) << log;
  EXPECT_EQ(count(log, "; not bound"), 8) << log;
  submit_and_wait();
  testing::internal::CaptureStderr();
  vkCmdPushConstants(cb_, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 4, data);  // not recording
  log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "not recording"), 1) << log;
}

}  // namespace
}  // namespace gsgpu::vk::test

namespace gsgpu::vk::test {
namespace {

// Vulkan 1.1's descriptor commands, reached through the loader from an instance created for 1.1.
class VkBinding11 : public VkBinding {
 protected:
  VkBinding11() { api_version_ = VK_API_VERSION_1_1; }
  template <typename T>
  T device_proc(const char* name) {
    auto proc = reinterpret_cast<T>(vkGetDeviceProcAddr(device_, name));
    EXPECT_NE(proc, nullptr) << name;
    return proc;
  }

  // A template writes a uniform buffer and a dynamic one from the application's records. A dynamic
  // offset that a never-written descriptor lets through is refused once the template wrote it: the
  // descriptor landed with its range.
  void update_template_writes_the_set_and_hostile_templates_are_refused() {
    auto create = device_proc<PFN_vkCreateDescriptorUpdateTemplate>(("vkCreateDescriptorUpdateTemplate" + suffix_).c_str());
    auto destroy = device_proc<PFN_vkDestroyDescriptorUpdateTemplate>(("vkDestroyDescriptorUpdateTemplate" + suffix_).c_str());
    auto update = device_proc<PFN_vkUpdateDescriptorSetWithTemplate>(("vkUpdateDescriptorSetWithTemplate" + suffix_).c_str());
    ASSERT_TRUE(create && destroy && update);
    VkDescriptorSetLayout set_layout = make_set_layout({kUniform0, kDynamic1});
    VkPipelineLayout layout = make_pipeline_layout({set_layout});
    VkDescriptorPool pool = make_pool(2, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2},
                                          {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 2}}, false);
    VkDescriptorSet set = VK_NULL_HANDLE;
    ASSERT_EQ(allocate(pool, {set_layout}, &set), VK_SUCCESS);
    uint8_t* bytes = nullptr;
    VkBuffer buffer = make_buffer(4096, &bytes);
    struct Record {
      uint32_t tag;
      VkDescriptorBufferInfo info;
    };
    const Record records[2] = {{1, {buffer, 0, 256}}, {2, {buffer, 256, 512}}};
    const VkDescriptorUpdateTemplateEntry entries[2] = {
        {0, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, offsetof(Record, info), sizeof(Record)},
        {1, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, sizeof(Record) + offsetof(Record, info), 0}};
    VkDescriptorUpdateTemplateCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
    info.descriptorUpdateEntryCount = 2;
    info.pDescriptorUpdateEntries = entries;
    info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
    info.descriptorSetLayout = set_layout;
    VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
    ASSERT_EQ(create(device_, &info, nullptr, &update_template), VK_SUCCESS);

    begin();
    const uint32_t offset = 3584;  // 256 + 3584 + 512 passes 4096 once the dynamic descriptor is written
    testing::internal::CaptureStderr();
    vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offset);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    update(device_, set, update_template, records);
    testing::internal::CaptureStderr();
    vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offset);
    std::string log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(count(log, "offset 256 + dynamic offset 3584 + range 512 passes the end"), 1) << log;
    submit_and_wait();

    testing::internal::CaptureStderr();
    VkDescriptorUpdateTemplate refused = VK_NULL_HANDLE;
    info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR;
    EXPECT_EQ(create(device_, &info, nullptr, &refused), VK_ERROR_UNKNOWN);
    info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
    info.descriptorSetLayout = VK_NULL_HANDLE;
    EXPECT_EQ(create(device_, &info, nullptr, &refused), VK_ERROR_UNKNOWN);
    VkDescriptorSetLayout other_layout = make_set_layout({kUniform0});
    VkDescriptorSet other = VK_NULL_HANDLE;
    ASSERT_EQ(allocate(pool, {other_layout}, &other), VK_SUCCESS);
    update(device_, other, update_template, records);  // a set of another layout
    update(device_, set, update_template, nullptr);     // no data: each entry refused
    log = testing::internal::GetCapturedStderr();
    EXPECT_EQ(count(log, "vkCreateDescriptorUpdateTemplate: "), 2) << log;
    EXPECT_EQ(count(log, "the set's layout is not the template's"), 1) << log;
    EXPECT_EQ(count(log, "pData is null; skipped"), 2) << log;
    destroy(device_, update_template, nullptr);
    destroy(device_, VK_NULL_HANDLE, nullptr);
  }

  std::string suffix_;  // "KHR": the names of VK_KHR_descriptor_update_template
};

TEST_F(VkBinding11, UpdateTemplateWritesTheSetAndHostileTemplatesAreRefused) {
  update_template_writes_the_set_and_hostile_templates_are_refused();
}

// The same through VK_KHR_descriptor_update_template's names on a 1.0 instance.
class VkBindingTemplateKhr : public VkBinding11 {
 protected:
  VkBindingTemplateKhr() {
    api_version_ = VK_API_VERSION_1_0;
    device_extensions_ = {VK_KHR_DESCRIPTOR_UPDATE_TEMPLATE_EXTENSION_NAME};
    suffix_ = "KHR";
  }
};

TEST_F(VkBindingTemplateKhr, UpdateTemplateWritesTheSetAndHostileTemplatesAreRefused) {
  update_template_writes_the_set_and_hostile_templates_are_refused();
}

TEST_F(VkBinding11, LayoutSupportAnswersWhatCreationWouldDo) {
  auto support = device_proc<PFN_vkGetDescriptorSetLayoutSupport>("vkGetDescriptorSetLayoutSupport");
  ASSERT_NE(support, nullptr);
  VkDescriptorSetLayoutBinding bindings[2] = {kUniform0, kDynamic1};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = 2;
  info.pBindings = bindings;
  VkDescriptorSetLayoutSupport answer{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT};
  support(device_, &info, &answer);
  EXPECT_EQ(answer.supported, VK_TRUE);
  bindings[1].binding = 0;  // repeated
  support(device_, &info, &answer);
  EXPECT_EQ(answer.supported, VK_FALSE);
  bindings[1] = {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0xffffffffu, VK_SHADER_STAGE_ALL, nullptr};
  answer.supported = VK_TRUE;
  support(device_, &info, &answer);
  EXPECT_EQ(answer.supported, VK_FALSE);
}

}  // namespace
}  // namespace gsgpu::vk::test
