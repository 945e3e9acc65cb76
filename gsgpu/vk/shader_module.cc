// VkShaderModule. Creation checks the SPIR-V with the compiler's reader (parse_spirv: header,
// every instruction's length and operands, ids within the bound, functions well formed) and keeps
// a copy; compiling it to gsgpu programs (compile_shader_spirv) waits for pipeline creation, which
// knows the stage and entry point. Vulkan 1.0 has no error for malformed SPIR-V (it is invalid
// usage): the driver refuses it here with a log line and VK_ERROR_UNKNOWN (docs/vulkan-driver.md
// "Shader modules"). A module the reader accepts but the compiler cannot build fails later, at
// pipeline creation.
#include <new>
#include <span>

#include "gsgpu/compiler/spirv_module.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"

namespace gsgpu::vk {
namespace {

// A module for OpenCL (the Kernel capability, physical addressing) is valid SPIR-V but not a Vulkan
// shader module (the Vulkan environment's rules): refused with the malformed ones.
std::string vulkan_environment_error(const compiler::SpirvModule& module) {
  for (spv::Capability c : module.capabilities) {
    if (c == spv::Capability::Kernel || c == spv::Capability::Addresses || c == spv::Capability::Linkage) {
      return "capability " + std::to_string(static_cast<uint32_t>(c)) + " (Kernel, Addresses or Linkage) is "
             "OpenCL's, not Vulkan's";
    }
  }
  if (module.addressing_model != static_cast<uint32_t>(spv::AddressingModel::Logical)) {
    return "addressing model " + std::to_string(module.addressing_model) + " is not Logical";
  }
  return "";
}

// Far above any real shader (glslang's largest test modules are a few hundred KiB); a bound on
// what the driver copies and parses for one call.
constexpr size_t kMaxShaderModuleBytes = size_t{64} << 20;

}  // namespace

VKAPI_ATTR VkResult VKAPI_CALL gsgpu_vkCreateShaderModule(VkDevice, const VkShaderModuleCreateInfo* info,
                                                          const VkAllocationCallbacks*, VkShaderModule* out) {
  if (info->codeSize == 0 || info->codeSize % 4 != 0 || info->pCode == nullptr) {
    log_refusal("vkCreateShaderModule", "codeSize " + std::to_string(info->codeSize) +
                                            " is not a positive multiple of 4 (or pCode is null)");
    return VK_ERROR_UNKNOWN;
  }
  if (info->codeSize > kMaxShaderModuleBytes) {
    log_refusal("vkCreateShaderModule", "codeSize " + std::to_string(info->codeSize) + " is over the driver's " +
                                            std::to_string(kMaxShaderModuleBytes) + " bytes");
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  std::span<const uint32_t> words(info->pCode, info->codeSize / 4);
  compiler::SpirvModule parsed;
  std::string error;
  if (!compiler::parse_spirv(words, &parsed, &error)) {
    log_refusal("vkCreateShaderModule", "invalid SPIR-V: " + error);
    return VK_ERROR_UNKNOWN;
  }
  if (std::string why = vulkan_environment_error(parsed); !why.empty()) {
    log_refusal("vkCreateShaderModule", "not a Vulkan shader module: " + why);
    return VK_ERROR_UNKNOWN;
  }
  auto* module = new (std::nothrow) ShaderModule;
  if (module == nullptr) return VK_ERROR_OUT_OF_HOST_MEMORY;
  module->code.assign(words.begin(), words.end());
  *out = to_handle<VkShaderModule>(module);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL gsgpu_vkDestroyShaderModule(VkDevice, VkShaderModule handle, const VkAllocationCallbacks*) {
  delete from_handle<ShaderModule>(handle);
}

}  // namespace gsgpu::vk
