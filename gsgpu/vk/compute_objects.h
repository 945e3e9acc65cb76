// Compute pipelines and the dispatches recorded against them (docs/vulkan-driver.md "Compute"). A
// pipeline is the compute program compiled by compile_shader_spirv, its code in a BO mapped read +
// execute; a dispatch snapshots the compute bind point's constant buffer (push constants and the
// descriptor table), and vkQueueSubmit runs it as DISPATCH packets on the queue's ring.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/drv/drv.h"
#include "gsgpu/vk/binding_model.h"
#include "gsgpu/vk/pipeline_base.h"

namespace gsgpu::vk {

struct Buffer;

// A compute program's constant buffer: the 640 bytes every program reads (push constants, the
// descriptor table), then the slab's first work-group (x, y, z) and the dispatch's group counts,
// which the compiled program reads for WorkgroupId and NumWorkgroups (docs/compiler.md "Compute
// shaders"), padded to 16 bytes.
// The words take the place a graphics program's view index has (multiview is graphics only).
inline constexpr uint32_t kDispatchBaseAt = kViewIndexOffset;              // 640
inline constexpr uint32_t kDispatchCountAt = kViewIndexOffset + 12;        // 652
inline constexpr uint32_t kComputeConstantBytes = kViewIndexOffset + 32;   // 672
static_assert(kConstantBufferBytes <= kComputeConstantBytes);

// Vulkan's minimum maxComputeWorkGroupCount, which the driver reports and checks: larger counts
// would only run longer (the driver splits a dispatch into slabs under the device's work-item
// limit), but a group count is also a 32-bit WorkgroupId component the program adds to.
inline constexpr uint32_t kMaxComputeGroupCount = 65535;
// maxComputeWorkGroupSize's z (Vulkan's minimum, 64); x and y are the device's group size limit.
inline constexpr uint32_t kMaxComputeGroupSizeZ = 64;

struct ComputePipeline : PipelineBase {
  ComputePipeline() { bind_point = VK_PIPELINE_BIND_POINT_COMPUTE; }
  drv::BoHandle code_bo = 0;
  uint64_t code_va = 0, code_va_size = 0;
  uint32_t code_size = 0;                     // bytes of the program
  std::array<uint32_t, 3> group_size{1, 1, 1};  // LocalSize
  uint32_t local_bytes = 0;    // Workgroup variables: the DISPATCH's LOCAL_MEM_SIZE
  uint32_t private_bytes = 0;  // spilled values per invocation: PRIVATE_MEM_SIZE
  uint32_t constant_bytes = 0;  // what the program reads of the constant buffer
  std::shared_ptr<const PipelineLayout> layout;
  uint32_t used_sets = 0;  // bit n: the program reads a buffer of set n
};

// One vkCmdDispatch / vkCmdDispatchBase / vkCmdDispatchIndirect, captured when recorded.
struct DispatchCommand {
  const ComputePipeline* pipeline = nullptr;
  std::array<uint32_t, 3> base{0, 0, 0};
  std::array<uint32_t, 3> count{0, 0, 0};
  // vkCmdDispatchIndirect: the counts are read from this buffer when the queue reaches the command.
  Buffer* indirect = nullptr;
  uint64_t indirect_offset = 0;
  std::array<uint8_t, kConstantBufferBytes> constants{};
};

void destroy_compute_pipeline(ComputePipeline* p);

// The descriptor sets a module's buffers, images and samplers are in that a program reading
// `constant_bytes` of its constant buffer uses (bit n: set n; pipeline_stages.cc).
uint32_t resource_sets(const std::vector<uint32_t>& spirv, uint32_t constant_bytes);

// The module with the specialization constants that `info` names set to its values (specialization.cc);
// false with *why for an entry outside the data or of the wrong size.
bool specialize(const std::vector<uint32_t>& spirv, const VkSpecializationInfo* info, std::vector<uint32_t>* out,
                std::string* why);

// The module with each resource's Binding decoration replaced by its table slot in the pipeline
// layout's set layout (pipeline_stages.cc); false with *why for a binding without a slot.
bool bindings_to_slots(const std::vector<uint32_t>& spirv, const PipelineLayout& layout, std::vector<uint32_t>* out,
                       std::string* why);

// The entry point that `stage` names, of the stage `want`, compiled from its module once specialized
// and with its bindings at their table slots (pipeline_stages.cc; graphics and compute pipelines);
// false with *why when the module does not compile or has no such entry point.
bool compile_entry_point(const VkPipelineShaderStageCreateInfo& stage, compiler::ShaderStage want,
                         const PipelineLayout& layout, compiler::CompiledKernel* out, std::string* why);

// Unmaps and frees a pipeline's code BO, graphics or compute (pipeline.cc); nothing when it has none.
void free_pipeline_code(Device* device, drv::BoHandle code_bo, uint64_t code_va, uint64_t code_va_size);

}  // namespace gsgpu::vk
