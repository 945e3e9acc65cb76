// Compute on the Vulkan API for the compute tests, the same code on gsgpu and on lavapipe: a
// DrawSide (draw_fixture.h: the device, queue, command buffer and host-visible buffers) plus compute
// pipelines of one descriptor set of buffers and a push-constant range, the sets that name buffers,
// and a recording that is submitted and waited for. Any difference in the buffers afterwards is the
// drivers'.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "draw_fixture.h"

namespace gsgpu::vk::test {

class ComputeSide {
 public:
  explicit ComputeSide(VkPhysicalDevice physical) : side_(physical) {}
  ~ComputeSide() {
    VkDevice d = side_.device();
    vkDeviceWaitIdle(d);
    for (VkPipeline p : pipelines_) vkDestroyPipeline(d, p, nullptr);
    for (VkPipelineLayout l : layouts_) vkDestroyPipelineLayout(d, l, nullptr);
    for (VkDescriptorSetLayout l : set_layouts_) vkDestroyDescriptorSetLayout(d, l, nullptr);
    for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(d, p, nullptr);
    for (VkShaderModule m : modules_) vkDestroyShaderModule(d, m, nullptr);
  }

  DrawSide& side() { return side_; }
  VkDevice device() { return side_.device(); }
  VkPipelineLayout layout() const { return layouts_.back(); }

  // A buffer usable as storage, uniform, indirect and transfer buffer, its bytes mapped.
  VkBuffer buffer(VkDeviceSize size, uint8_t** bytes) {
    return side_.buffer(size,
                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                            VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                            VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                        bytes);
  }

  // A compute pipeline of `code` whose set 0 has `types` at bindings 0, 1, ...; `push_bytes` of push
  // constants (0: none). The layouts are kept for set() and the recording.
  VkResult pipeline(const uint32_t* code, size_t bytes, const std::vector<VkDescriptorType>& types,
                    uint32_t push_bytes, VkPipeline* out, VkPipelineCreateFlags flags = 0,
                    const VkSpecializationInfo* specialization = nullptr) {
    VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module_info.codeSize = bytes;
    module_info.pCode = code;
    VkShaderModule module = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateShaderModule(device(), &module_info, nullptr, &module), VK_SUCCESS);
    modules_.push_back(module);
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t i = 0; i < types.size(); ++i)
      bindings.push_back({i, types[i], 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = uint32_t(bindings.size());
    set_info.pBindings = bindings.data();
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorSetLayout(device(), &set_info, nullptr, &set_layout), VK_SUCCESS);
    set_layouts_.push_back(set_layout);
    types_ = types;
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = push_bytes ? 1 : 0;
    layout_info.pPushConstantRanges = &range;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreatePipelineLayout(device(), &layout_info, nullptr, &layout), VK_SUCCESS);
    layouts_.push_back(layout);
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.flags = flags;
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = specialization;
    info.layout = layout;
    *out = VK_NULL_HANDLE;
    VkResult r = vkCreateComputePipelines(device(), VK_NULL_HANDLE, 1, &info, nullptr, out);
    if (*out) pipelines_.push_back(*out);
    return r;
  }

  // A set of the last pipeline's set layout naming `buffers` whole at bindings 0, 1, ...
  VkDescriptorSet set(const std::vector<VkBuffer>& buffers) {
    std::vector<VkDescriptorPoolSize> sizes;
    for (VkDescriptorType t : types_) sizes.push_back({t, 1});
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = uint32_t(sizes.size());
    pool_info.pPoolSizes = sizes.data();
    VkDescriptorPool pool = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorPool(device(), &pool_info, nullptr, &pool), VK_SUCCESS);
    pools_.push_back(pool);
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &set_layouts_.back();
    VkDescriptorSet set = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateDescriptorSets(device(), &alloc, &set), VK_SUCCESS);
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size(), {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
    for (uint32_t i = 0; i < buffers.size(); ++i) {
      infos[i] = {buffers[i], 0, VK_WHOLE_SIZE};
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = types_[i];
      writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(device(), uint32_t(writes.size()), writes.data(), 0, nullptr);
    return set;
  }

  // Begins the command buffer, binds `pipeline` and `set` at the compute bind point, lets `record`
  // add commands, then submits and waits.
  void run(VkPipeline pipeline, VkDescriptorSet set, const std::function<void(VkCommandBuffer)>& record) {
    VkCommandBuffer cb = side_.cb();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    EXPECT_EQ(vkBeginCommandBuffer(cb, &begin), VK_SUCCESS);
    bound_ = {pipeline, set, layout()};
    rebind_last();
    record(cb);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                         nullptr, 0, nullptr);
    side_.submit_and_wait();
  }

  // Binds run()'s pipeline and set again (after a recording bound others).
  void rebind_last() {
    vkCmdBindPipeline(side_.cb(), VK_PIPELINE_BIND_POINT_COMPUTE, bound_.pipeline);
    vkCmdBindDescriptorSets(side_.cb(), VK_PIPELINE_BIND_POINT_COMPUTE, bound_.layout, 0, 1, &bound_.set, 0, nullptr);
  }

 private:
  struct Bound {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
  } bound_;
  DrawSide side_;
  std::vector<VkDescriptorType> types_;  // the last pipeline's set layout
  std::vector<VkShaderModule> modules_;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  std::vector<VkPipelineLayout> layouts_;
  std::vector<VkDescriptorPool> pools_;
  std::vector<VkPipeline> pipelines_;
};

// gsgpu and lavapipe in one instance created for Vulkan 1.1 (vkCmdDispatchBase), a ComputeSide each.
class ComputeReferenceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    TestDevices found;
    ASSERT_TRUE(create_reference_instance(VK_API_VERSION_1_1, &instance_, &found));  // vkCmdDispatchBase
    sides_[0] = std::make_unique<ComputeSide>(found.gsgpu[0]);
    sides_[1] = std::make_unique<ComputeSide>(found.lavapipe);
  }
  void TearDown() override {
    sides_[0].reset();
    sides_[1].reset();
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  VkInstance instance_ = VK_NULL_HANDLE;
  std::unique_ptr<ComputeSide> sides_[2];  // gsgpu, lavapipe
};

// Barrier between a compute shader's writes and what reads them next (a dispatch, an indirect
// command, a transfer).
inline void compute_barrier(VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace gsgpu::vk::test
