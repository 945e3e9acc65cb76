// vkCreateComputePipelines (docs/vulkan-driver.md "Compute"): the GLCompute entry point compiled by
// compile_shader_spirv (docs/compiler.md "Compute shaders"), checked against the limits the device
// reports (work-group size, shared memory), its code in a BO mapped read + execute at a VA of the
// device. What the compiler or the limits refuse is VK_ERROR_FEATURE_NOT_PRESENT with a log line, as
// for graphics pipelines; the other pipelines of the call are still created.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

constexpr uint64_t kMaxProgramBytes = uint64_t{1} << 20;
constexpr VkPipelineCreateFlags kKnownFlags = VK_PIPELINE_CREATE_DISABLE_OPTIMIZATION_BIT |
                                              VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT |
                                              VK_PIPELINE_CREATE_DERIVATIVE_BIT | VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;

// The program's LocalSize, shared memory and private memory inside what the device reports.
bool check_program_limits(const compiler::CompiledKernel& k, const drv::Caps& caps, std::string* why) {
  const uint32_t* size = k.reqd_work_group_size;
  const uint32_t max_xy = caps.max_work_group_size, max_z = std::min(kMaxComputeGroupSizeZ, caps.max_work_group_size);
  if (size[0] == 0 || size[1] == 0 || size[2] == 0 || size[0] > max_xy || size[1] > max_xy || size[2] > max_z) {
    return *why = "work-group size " + std::to_string(size[0]) + " x " + std::to_string(size[1]) + " x " +
                  std::to_string(size[2]) + " outside maxComputeWorkGroupSize",
           false;
  }
  if (uint64_t{size[0]} * size[1] * size[2] > caps.max_work_group_size) {
    return *why = "a work-group of more than maxComputeWorkGroupInvocations (" +
                  std::to_string(caps.max_work_group_size) + ")",
           false;
  }
  if (k.static_local_bytes > caps.max_local_mem_size) {
    return *why = std::to_string(k.static_local_bytes) + " bytes of shared memory, over maxComputeSharedMemorySize",
           false;
  }
  if (k.private_bytes > caps.max_private_mem_size) {
    return *why = std::to_string(k.private_bytes) + " bytes of private memory per invocation", false;
  }
  if (k.code.empty() || k.code.size() * 4 > kMaxProgramBytes) return *why = "program size out of range", false;
  return true;
}

bool compile_compute_stage(const VkPipelineShaderStageCreateInfo& stage, const drv::Caps& caps,
                           const PipelineLayout& layout, compiler::CompiledKernel* out, std::string* why) {
  if (stage.stage != VK_SHADER_STAGE_COMPUTE_BIT) return *why = "the stage is not VK_SHADER_STAGE_COMPUTE_BIT", false;
  return compile_entry_point(stage, compiler::ShaderStage::kCompute, layout, out, why) &&
         check_program_limits(*out, caps, why);
}

bool upload_compute_code(Device* device, const compiler::CompiledKernel& k, ComputePipeline* p, std::string* why) {
  const uint64_t page = device->drv->caps().page_size;
  const uint64_t size = (k.code.size() * 4 + page - 1) / page * page;
  if (device->drv->bo_create(size, 0, &p->code_bo) != drv::Status::kOk) return *why = "no memory for the code", false;
  auto* map = static_cast<uint8_t*>(device->drv->bo_map(p->code_bo));
  if (map == nullptr) return *why = "the code BO does not map", false;
  std::memcpy(map, k.code.data(), k.code.size() * 4);
  std::lock_guard lock(device->mutex);
  std::optional<uint64_t> va = device->va->allocate(size);
  if (!va) return *why = "no GPU address space for the code", false;
  if (device->drv->va_bind(p->code_bo, 0, *va, size, drv::kVaRead | drv::kVaExecute) != drv::Status::kOk) {
    device->va->free(*va);
    return *why = "binding the code failed", false;
  }
  p->code_va = *va;
  p->code_va_size = size;
  return true;
}

bool build_compute_pipeline(Device* device, const VkComputePipelineCreateInfo& info, ComputePipeline* p,
                            std::string* why) {
  p->device = device;
  if ((info.flags & ~kKnownFlags) != 0) return *why = "pipeline flags the driver does not know", false;
  const auto* layout = from_handle<PipelineLayoutObject>(info.layout);
  if (layout == nullptr) return *why = "no pipeline layout", false;
  p->layout = layout->layout;
  compiler::CompiledKernel k;
  if (!compile_compute_stage(info.stage, device->drv->caps(), *p->layout, &k, why)) return false;
  std::copy(k.reqd_work_group_size, k.reqd_work_group_size + 3, p->group_size.begin());
  p->code_size = uint32_t(k.code.size() * 4);
  p->local_bytes = k.static_local_bytes;
  p->private_bytes = k.private_bytes;
  p->constant_bytes = k.constant_buffer_bytes;
  p->used_sets = resource_sets(from_handle<ShaderModule>(info.stage.module)->code, k.constant_buffer_bytes);
  return upload_compute_code(device, k, p, why);
}

}  // namespace

void destroy_compute_pipeline(ComputePipeline* p) {
  if (p == nullptr) return;
  free_pipeline_code(p->device, p->code_bo, p->code_va, p->code_va_size);
  delete p;
}

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateComputePipelines(VkDevice handle, VkPipelineCache, uint32_t count,
                                                              const VkComputePipelineCreateInfo* infos,
                                                              const VkAllocationCallbacks*, VkPipeline* out) {
  Device* device = from_handle<Device>(handle);
  VkResult result = VK_SUCCESS;
  for (uint32_t i = 0; i < count; ++i) out[i] = VK_NULL_HANDLE;
  for (uint32_t i = 0; i < count; ++i) {
    auto* p = new (std::nothrow) ComputePipeline;
    if (p == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
    std::string why;
    if (!build_compute_pipeline(device, infos[i], p, &why)) {
      destroy_compute_pipeline(p);
      log_refusal("vkCreateComputePipelines", why);
      result = VK_ERROR_FEATURE_NOT_PRESENT;
      continue;
    }
    out[i] = to_handle<VkPipeline>(static_cast<PipelineBase*>(p));
  }
  return result;
}

}  // namespace gsgpu::vk
