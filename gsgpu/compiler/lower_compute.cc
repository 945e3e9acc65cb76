// Compute shaders (Vulkan SPIR-V, GLCompute execution model): their interface (docs/compiler.md
// "Compute shaders"). The rest is shared: arithmetic and control flow with every path, variables in
// registers with the graphics shaders (lower_shader.cc), built-ins, Workgroup memory and barriers
// with the OpenCL kernels (lower_core.cc, lower_memory.cc), since a compute program runs on the
// shader cores as a kernel does, from a DISPATCH packet.
//
// The argument pointer is the constant buffer of docs/compiler.md "Constant buffer" (push constants,
// then the descriptor table), followed for compute by the dispatch's base work-group and group
// count: the driver may run one vkCmdDispatch as several DISPATCH packets (slabs of groups under the
// device's work-item limit), so the shader cores' group id and group count are the slab's, and
// WorkgroupId / NumWorkgroups are made from these words instead.
#include <algorithm>

#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::Opcode;

namespace {

// Bytes 640..651 of a compute program's constant buffer: the slab's first work-group (x, y, z) in
// the whole dispatch (vkCmdDispatchBase's base included), which WorkgroupId adds to the group id the
// shader cores count from 0; bytes 652..663: the dispatch's group counts (NumWorkgroups).
constexpr uint32_t kBaseGroupOffset = 640, kGroupCountOffset = 652;

}  // namespace

// A storage buffer (a BufferBlock in class Uniform, SPIR-V 1.0's form, or a Block in class
// StorageBuffer) or a uniform buffer (a Block in class Uniform): the VA in its descriptor table entry.
MOperand Lowering::storage_buffer_address(uint32_t id, const SpirvDecorations* d) {
  const uint32_t pointee = type(m_.variables.at(id).pointer_type).element;
  const SpirvDecorations* block = m_.decoration(pointee);
  if (type(pointee).kind != TypeKind::kStruct || block == nullptr || !(block->block || block->buffer_block))
    fail("buffer variable " + std::to_string(id) + " is not a Block or BufferBlock (arrays of buffers are not supported)");
  check_explicit_layout(pointee, 0);
  const uint32_t set = d != nullptr ? d->descriptor_set.value_or(0) : 0,
                 binding = d != nullptr ? d->binding.value_or(0) : 0;
  return descriptor_table_entry(set, binding, "buffer");
}

// WorkgroupId = the shader cores' group id + the base group from the constant buffer (a plain
// vkCmdDispatch has base 0). The base was loaded into scalar registers in the prologue.
// NumWorkgroups = the words the prologue loaded.
Value Lowering::compute_workgroup_id(const BuiltinRef& ref, uint32_t result_type) {
  const bool id = ref.builtin == spv::BuiltIn::WorkgroupId;
  const int begin = ref.component < 0 ? 0 : ref.component;
  const int count = ref.component < 0 ? static_cast<int>(component_count(result_type)) : 1;
  if (begin + count > 3) fail("WorkgroupId / NumWorkgroups component out of range");
  if (reg_bits(scalar_of(result_type)) != 32) fail("WorkgroupId / NumWorkgroups must be 32-bit integers");
  Value v;
  for (int c = begin; c < begin + count; ++c) {
    if (!id) {
      v.parts.push_back(group_count_[c]);
      continue;
    }
    const auto special = static_cast<isa::SpecialReg>(static_cast<int>(isa::SpecialReg::kGroupIdX) + c);
    const MOperand group = MOperand::vreg(emit(Opcode::v_special, 32, {}, {}, {}, static_cast<int32_t>(special)));
    v.parts.push_back(MOperand::vreg(emit(Opcode::v_add_u32, 32, group, base_group_[c])));
  }
  return v;
}

// Loads three words of the constant buffer into scalar registers, once per warp before any branch,
// into registers nothing writes again.
void Lowering::load_dispatch_words(uint32_t offset, MOperand (&out)[3]) {
  const MOperand constants = constant_buffer_base();
  for (int c = 0; c < 3; ++c) {
    out[c] = new_scalar_register();
    emit_to(Opcode::s_load_b32, out[c], constants, {}, {}, static_cast<int32_t>(offset + 4 * c));
  }
  k_.constant_buffer_bytes = std::max(k_.constant_buffer_bytes, offset + 12);
}

void Lowering::declare_compute_interface(const SpirvEntryPoint& entry) {
  // Built-in inputs become built-in references and used Workgroup variables get their offsets in
  // the group's local memory, as for a kernel; a non-built-in input is refused there.
  allocate_static_variables(entry.function);
  bool reads_group_id = false, reads_group_count = false;
  for (uint32_t id : m_.variable_order) {
    const SpirvVariable& var = m_.variables.at(id);
    const SpirvDecorations* d = m_.decoration(id);
    const uint32_t pointee = type(var.pointer_type).element;
    switch (var.storage) {
      case spv::StorageClass::Input:
        reads_group_id |= d != nullptr && d->builtin == spv::BuiltIn::WorkgroupId;
        reads_group_count |= d != nullptr && d->builtin == spv::BuiltIn::NumWorkgroups;
        break;
      case spv::StorageClass::Workgroup: break;
      case spv::StorageClass::Private:
        module_register_pointers_[id] = new_register_variable(id, pointee, var.storage).parts[0].value;
        if (var.initializer != 0)
          register_store(register_pointers_[module_register_pointers_[id]], constant_value(var.initializer));
        break;
      case spv::StorageClass::PushConstant: declare_push_constants(id, pointee); break;
      case spv::StorageClass::Uniform:
      case spv::StorageClass::StorageBuffer: module_addresses_[id] = storage_buffer_address(id, d); break;
      default:
        fail("variable " + std::to_string(id) + " in storage class " + std::to_string(static_cast<unsigned>(var.storage)) +
             " is not supported in compute shaders (push constants, uniform and storage buffers and "
             "Workgroup variables are)");
    }
  }
  if (reads_group_id) load_dispatch_words(kBaseGroupOffset, base_group_);
  if (reads_group_count) load_dispatch_words(kGroupCountOffset, group_count_);
}

}  // namespace gsgpu::compiler
