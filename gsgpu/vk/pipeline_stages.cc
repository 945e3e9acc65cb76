// A graphics pipeline's programs: the vertex and fragment stages compiled by compile_shader_spirv
// (docs/compiler.md "Graphics shaders"), their code in one BO mapped read + execute at a VA of the
// device, and SHADER_STATE's words naming it (docs/graphics.md "The DRAW packet and the state
// blocks"). The constant buffer (CONSTANTS_*) is added per draw.
#include <algorithm>
#include <cstring>
#include <string>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/entry_points.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::vk {
namespace {

namespace blk = hw::blk;
constexpr uint64_t kFragmentCodeAlign = 256;
constexpr uint64_t kMaxProgramBytes = uint64_t{1} << 20;  // SHADER_STATE *_CODE_SIZE

uint32_t lo(uint64_t v) { return uint32_t(v); }
uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }
uint32_t put(uint32_t value, uint32_t mask, uint32_t shift) { return hw::put_field(value, mask, shift); }

}  // namespace

// The module with each resource's Binding decoration replaced by its table slot in the pipeline
// layout's set layout (LayoutBinding::slot: zink numbers bindings from 128 per stage, the table has
// 16 entries per set). A binding the layout does not have is left as it is (the compiler refuses
// one past 15); one without a slot is refused here.
bool bindings_to_slots(const std::vector<uint32_t>& spirv, const PipelineLayout& layout,
                       std::vector<uint32_t>* out, std::string* why) {
  constexpr uint32_t kOpDecorate = 71, kBinding = 33, kDescriptorSet = 34;
  *out = spirv;
  std::vector<std::pair<uint32_t, uint32_t>> sets;      // id -> set
  std::vector<std::pair<uint32_t, size_t>> bindings;    // id -> index of the Binding's value
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, op = spirv[i] & 0xffff;
    if (count == 0 || count > spirv.size() - i) break;  // the reader checked the module; be safe anyway
    if (op == kOpDecorate && count >= 4 && spirv[i + 2] == kDescriptorSet) sets.push_back({spirv[i + 1], spirv[i + 3]});
    if (op == kOpDecorate && count >= 4 && spirv[i + 2] == kBinding) bindings.push_back({spirv[i + 1], i + 3});
    i += count;
  }
  for (auto [id, at] : bindings) {
    uint32_t set = 0;
    for (auto [sid, s] : sets) {
      if (sid == id) set = s;
    }
    if (set >= layout.sets.size() || layout.sets[set] == nullptr) continue;
    const LayoutBinding* b = layout.sets[set]->find(spirv[at]);
    if (b == nullptr) continue;
    if (b->slot == kNoTableSlot) {
      return *why = "set " + std::to_string(set) + ", binding " + std::to_string(b->binding) +
                    ": more than 16 bindings of the set reach shaders",
             false;
    }
    (*out)[at] = b->slot;
  }
  return true;
}

bool compile_entry_point(const VkPipelineShaderStageCreateInfo& stage, compiler::ShaderStage want,
                         const PipelineLayout& layout, compiler::CompiledKernel* out, std::string* why) {
  const auto* module = from_handle<ShaderModule>(stage.module);
  if (module == nullptr) return *why = "a stage without a module", false;
  if (stage.pName == nullptr) return *why = "a stage without an entry point name", false;
  std::vector<uint32_t> specialized, code;  // the constants specialized, then bindings moved to their table slots
  if (!specialize(module->code, stage.pSpecializationInfo, &specialized, why) ||
      !bindings_to_slots(specialized, layout, &code, why)) {
    return false;
  }
  compiler::CompiledProgram program;
  std::string error;
  if (!compiler::compile_shader_spirv(code, &program, &error)) return *why = "compiling: " + error, false;
  for (compiler::CompiledKernel& k : program.kernels) {
    if (k.stage == want && k.name == stage.pName) {
      *out = std::move(k);
      return true;
    }
  }
  return *why = std::string("no entry point \"") + stage.pName + "\" of the stage", false;
}

namespace {

static_assert(kMaxTextureElements == compiler::kMaxTextureArrayElements &&
              kTextureRecordBytes == compiler::kTextureRecordStride);

// The arrays of textures a program reads: each needs a binding of the layout with at least as many
// descriptors (Vulkan's rule for a pipeline layout; a hostile one would make the draw read records
// it never wrote), and the draw writes that many records at its table slot.
bool texture_array_elements(const compiler::CompiledKernel& k, const PipelineLayout& layout, TextureElements* out,
                            std::string* why) {
  for (const auto& [slot, n] : k.texture_arrays) {
    const uint32_t set = slot / kTableBindings;
    const LayoutBinding* found = nullptr;
    if (set < layout.sets.size() && layout.sets[set] != nullptr)
      for (const LayoutBinding& b : layout.sets[set]->bindings)
        if (b.slot == slot % kTableBindings) found = &b;
    if (found == nullptr || found->count < n) {
      return *why = "an array of " + std::to_string(n) + " textures at set " + std::to_string(set) +
                    " has a layout binding of fewer descriptors",
             false;
    }
    (*out)[slot] = std::max((*out)[slot], n);
  }
  return true;
}

// Compiles one graphics stage and adds the descriptor sets its program reads to *used_sets.
bool compile_stage(const VkPipelineShaderStageCreateInfo& stage, compiler::ShaderStage want, const PipelineLayout& layout,
                   compiler::CompiledKernel* out, uint32_t* used_sets, std::string* why) {
  if (!compile_entry_point(stage, want, layout, out, why)) return false;
  if (out->code.empty() || out->code.size() * 4 > kMaxProgramBytes) return *why = "program size out of range", false;
  *used_sets |= resource_sets(from_handle<ShaderModule>(stage.module)->code, out->constant_buffer_bytes);
  return true;
}

void fill_shader_state(const compiler::CompiledKernel& vs, const compiler::CompiledKernel& fs, uint64_t vs_va,
                       uint64_t fs_va, GraphicsPipeline* p) {
  namespace S = blk::SHADER_STATE;
  auto& w = p->shader_state;
  w = {};
  w[S::VERTEX] = put(1, S::VERTEX_MODE_MASK, S::VERTEX_MODE_SHIFT) |
                 put(vs.varying_components, S::VERTEX_OUTPUTS_MASK, S::VERTEX_OUTPUTS_SHIFT) |
                 put(vs.clip_distances, S::VERTEX_CLIP_DISTANCES_MASK, S::VERTEX_CLIP_DISTANCES_SHIFT) |
                 put(vs.cull_distances, S::VERTEX_CULL_DISTANCES_MASK, S::VERTEX_CULL_DISTANCES_SHIFT);
  w[S::VERTEX_CODE_VA_LO] = lo(vs_va);
  w[S::VERTEX_CODE_VA_HI] = hi(vs_va);
  w[S::VERTEX_CODE_SIZE] = uint32_t(vs.code.size() * 4);
  w[S::VERTEX_REGISTERS] = put(std::max(vs.vector_registers, 1u), S::VERTEX_REGISTERS_VECTOR_MASK,
                               S::VERTEX_REGISTERS_VECTOR_SHIFT) |
                           put(vs.scalar_registers, S::VERTEX_REGISTERS_SCALAR_MASK, S::VERTEX_REGISTERS_SCALAR_SHIFT);
  // The preloaded inputs the program does not read are not computed (a flat fill's quads then need
  // no depth or 1 / w unless the depth test does).
  w[S::FRAGMENT] = put(2, S::FRAGMENT_MODE_MASK, S::FRAGMENT_MODE_SHIFT) |
                   put(fs.varying_components, S::FRAGMENT_VARYINGS_MASK, S::FRAGMENT_VARYINGS_SHIFT) |
                   put(fs.reads_frag_coord ? 0 : 1, S::FRAGMENT_NO_FRAGCOORD_MASK, S::FRAGMENT_NO_FRAGCOORD_SHIFT) |
                   put(fs.reads_front_facing ? 0 : 1, S::FRAGMENT_NO_FACING_MASK, S::FRAGMENT_NO_FACING_SHIFT);
  w[S::LINEAR_VARYINGS_LO] = lo(fs.linear_varyings);  // noperspective inputs, clipped in screen space
  w[S::LINEAR_VARYINGS_HI] = hi(fs.linear_varyings);
  w[S::FRAGMENT_CODE_VA_LO] = lo(fs_va);
  w[S::FRAGMENT_CODE_VA_HI] = hi(fs_va);
  w[S::FRAGMENT_CODE_SIZE] = uint32_t(fs.code.size() * 4);
  w[S::REGISTERS] = put(std::max(fs.vector_registers, 1u), S::REGISTERS_VECTOR_MASK, S::REGISTERS_VECTOR_SHIFT) |
                    put(fs.scalar_registers, S::REGISTERS_SCALAR_MASK, S::REGISTERS_SCALAR_SHIFT);
  p->constant_bytes = std::max(vs.constant_buffer_bytes, fs.constant_buffer_bytes);
  // Transform feedback: the runs the compiler found, as XFB_OUTPUT words (docs/compiler.md).
  namespace O = blk::XFB_OUTPUT;
  p->xfb_outputs.clear();
  for (const compiler::XfbOutputRun& r : vs.xfb_outputs) {
    p->xfb_outputs.push_back(put(r.slot, O::OUTPUT_SLOT_MASK, O::OUTPUT_SLOT_SHIFT) |
                             put(r.components, O::OUTPUT_COMPONENTS_MASK, O::OUTPUT_COMPONENTS_SHIFT) |
                             put(r.buffer, O::OUTPUT_BUFFER_MASK, O::OUTPUT_BUFFER_SHIFT) |
                             put(r.offset, O::OUTPUT_OFFSET_MASK, O::OUTPUT_OFFSET_SHIFT));
  }
  p->xfb_strides = vs.xfb_outputs.empty() ? std::array<uint32_t, kMaxXfbBuffers>{} : vs.xfb_strides;
}

}  // namespace

// The descriptor sets a module's resources are in (bit n: set n): OpVariable in the Uniform (uniform
// buffers, and storage buffers in SPIR-V 1.0), StorageBuffer or UniformConstant (images, samplers)
// storage class with a DescriptorSet decoration (the compiler refuses every other resource), limited
// to the sets whose table entries the compiled program reads (constant_buffer_bytes).
uint32_t resource_sets(const std::vector<uint32_t>& spirv, uint32_t constant_bytes) {
  constexpr uint32_t kOpDecorate = 71, kOpVariable = 59, kDescriptorSet = 34, kUniform = 2, kUniformConstant = 0,
                     kStorageBuffer = 12;
  std::vector<std::pair<uint32_t, uint32_t>> sets;  // id -> set
  std::vector<uint32_t> uniforms;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, op = spirv[i] & 0xffff;
    if (count == 0 || count > spirv.size() - i) break;  // the reader checked the module; be safe anyway
    if (op == kOpDecorate && count >= 4 && spirv[i + 2] == kDescriptorSet) sets.push_back({spirv[i + 1], spirv[i + 3]});
    if (op == kOpVariable && count >= 4 && (spirv[i + 3] == kUniform || spirv[i + 3] == kUniformConstant || spirv[i + 3] == kStorageBuffer)) {
      uniforms.push_back(spirv[i + 2]);
    }
    i += count;
  }
  // What follows the table (a graphics program's view index, a compute program's dispatch words) is
  // no table entry: a program reading it reads up to 644 or 664 bytes.
  const uint32_t table_end = std::min(constant_bytes, kViewIndexOffset) > kTableOffset
                                 ? std::min(constant_bytes, kViewIndexOffset) - kTableOffset
                                 : 0;
  const uint32_t last_set = table_end == 0 ? 0 : (table_end - 1) / kSetTableBytes;
  uint32_t used = 0;
  for (auto [id, set] : sets) {
    if (set < kMaxBoundSets && set <= last_set && table_end != 0 &&
        std::find(uniforms.begin(), uniforms.end(), id) != uniforms.end()) {
      used |= 1u << set;
    }
  }
  return used;
}

// Both programs in one BO: the vertex code at 0, the fragment code at the next 256-byte boundary.
bool upload_pipeline_code(Device* device, const compiler::CompiledKernel& vs, const compiler::CompiledKernel& fs,
                          GraphicsPipeline* p, std::string* why) {
  const uint64_t fs_offset = (vs.code.size() * 4 + kFragmentCodeAlign - 1) / kFragmentCodeAlign * kFragmentCodeAlign;
  const uint64_t page = device->drv->caps().page_size;
  const uint64_t size = (fs_offset + fs.code.size() * 4 + page - 1) / page * page;
  if (device->drv->bo_create(size, 0, &p->code_bo) != drv::Status::kOk) return *why = "no memory for the code", false;
  auto* map = static_cast<uint8_t*>(device->drv->bo_map(p->code_bo));
  if (map == nullptr) return *why = "the code BO does not map", false;
  std::memcpy(map, vs.code.data(), vs.code.size() * 4);
  std::memcpy(map + fs_offset, fs.code.data(), fs.code.size() * 4);
  std::lock_guard lock(device->mutex);
  std::optional<uint64_t> va = device->va->allocate(size);
  if (!va) return *why = "no GPU address space for the code", false;
  if (device->drv->va_bind(p->code_bo, 0, *va, size, drv::kVaRead | drv::kVaExecute) != drv::Status::kOk) {
    device->va->free(*va);
    return *why = "binding the code failed", false;
  }
  p->code_va = *va;
  p->code_va_size = size;
  fill_shader_state(vs, fs, *va, *va + fs_offset, p);
  return true;
}

bool compile_pipeline_stages(const VkGraphicsPipelineCreateInfo& info, GraphicsPipeline* p, uint32_t* attributes,
                             std::string* why) {
  const VkPipelineShaderStageCreateInfo *vs_info = nullptr, *fs_info = nullptr;
  for (uint32_t i = 0; i < info.stageCount; ++i) {
    const VkPipelineShaderStageCreateInfo& s = info.pStages[i];
    if (s.stage == VK_SHADER_STAGE_VERTEX_BIT && vs_info == nullptr) {
      vs_info = &s;
    } else if (s.stage == VK_SHADER_STAGE_FRAGMENT_BIT && fs_info == nullptr) {
      fs_info = &s;
    } else {
      return *why = "shader stage " + std::to_string(s.stage) + " (a vertex and a fragment stage are supported)", false;
    }
  }
  if (vs_info == nullptr || fs_info == nullptr) return *why = "a pipeline needs a vertex and a fragment stage", false;
  compiler::CompiledKernel vs, fs;
  if (!compile_stage(*vs_info, compiler::ShaderStage::kVertex, *p->layout, &vs, &p->used_sets, why) ||
      !compile_stage(*fs_info, compiler::ShaderStage::kFragment, *p->layout, &fs, &p->used_sets, why)) {
    return false;
  }
  p->texture_elements = {};
  if (!texture_array_elements(vs, *p->layout, &p->texture_elements, why) ||
      !texture_array_elements(fs, *p->layout, &p->texture_elements, why)) {
    return false;
  }
  *attributes = vs.vertex_attributes;
  // The clip distances cut a triangle into a fan before polygon mode LINE / POINT outlines it, so
  // the fan's inner edges would show: not offered together (docs/vulkan-driver.md "Draws").
  const auto* r = info.pRasterizationState;
  if (vs.clip_distances != 0 && r != nullptr && r->polygonMode != VK_POLYGON_MODE_FILL) {
    return *why = "clip distances with polygon mode LINE or POINT", false;
  }
  return upload_pipeline_code(p->device, vs, fs, p, why);
}

}  // namespace gsgpu::vk
