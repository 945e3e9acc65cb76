// Graphics shaders (Vulkan SPIR-V, Shader capability): the Vertex and Fragment entry points, their
// interface (inputs preloaded or interpolated in the prologue, outputs exported in the epilogue) and
// their variables, which live in registers (docs/compiler.md "Graphics shaders").
//
// Why registers: a vertex or fragment program has no private memory (the draw's dispatches give it
// none), and glslang's output keeps every local in an OpVariable. A variable is a list of virtual
// registers, one per component; a store copies into them and a load copies out (the machine IR is
// not SSA, and liveness over the per-lane CFG is sound under SIMT because every write is masked by
// the execution mask, the argument phis already rely on). A pointer to such a variable is the
// literal index of a RegisterPointer: the variable, the first component and the pointee type.
#include <algorithm>

#include "gsgpu/compiler/lower.h"
#include "gsgpu/compiler/spirv_names.inc"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;

namespace {

// A variable of more components than this does not fit the register file with room to compute.
constexpr uint32_t kMaxVariableComponents = 512;
constexpr uint32_t kMaxVaryingComponents = 64;  // v_interp_* / v_export_vertex_f32 (docs/isa.md §8c, §8d)
constexpr uint32_t kMaxVertexAttributes = 16;   // DRAW_INFO's attribute array
// The constant buffer's layout (docs/compiler.md "Constant buffer"): push constants in the first
// 128 bytes, then the VAs of the uniform buffers, 8 bytes per (set, binding).
constexpr uint32_t kPushConstantBytes = 128;
constexpr uint32_t kDescriptorSets = 4, kBindingsPerSet = 16;
// The view index of a multiview render pass, one 32-bit word after the descriptor table
// (docs/compiler.md "Constant buffer"; gsgpu/vk's kViewIndexOffset).
constexpr uint32_t kViewIndexOffset = kPushConstantBytes + 8 * kDescriptorSets * kBindingsPerSet;

std::string named(const generated::NamedCode* table, size_t n, uint32_t code, const char* kind) {
  for (size_t i = 0; i < n; ++i)
    if (table[i].code == code) return table[i].name;
  return std::string(kind) + " " + std::to_string(code);
}
template <size_t N>
std::string named(const generated::NamedCode (&table)[N], uint32_t code, const char* kind) {
  return named(table, N, code, kind);
}

std::string storage_name(spv::StorageClass s) {
  return named(generated::kStorageClassNames, static_cast<uint32_t>(s), "storage class");
}
std::string builtin_name(spv::BuiltIn b) {
  return named(generated::kBuiltInNames, static_cast<uint32_t>(b), "BuiltIn");
}
std::string capability_name(spv::Capability c) {
  return "capability " + named(generated::kCapabilityNames, static_cast<uint32_t>(c), "");
}
std::string mode_name(spv::ExecutionMode m) {
  return named(generated::kExecutionModeNames, static_cast<uint32_t>(m), "execution mode");
}

// Capabilities whose instructions the graphics path either compiles or refuses one by one.
bool capability_allowed(spv::Capability c) {
  switch (c) {
    case spv::Capability::Shader:
    case spv::Capability::Matrix:
    case spv::Capability::Float64:
    case spv::Capability::Int64:
    case spv::Capability::Int16:
    case spv::Capability::Int8:
    case spv::Capability::DerivativeControl:
    case spv::Capability::ImageQuery:
    case spv::Capability::MultiView:  // ViewIndex: load_view_index
    // zink declares it for any run-time index into its one-block uniform arrays (uniform_buffer_address):
    // arrays of several uniform buffers are refused, so every in-bounds index is 0.
    case spv::Capability::UniformBufferArrayDynamicIndexing:
    case spv::Capability::Sampled1D:  // 1D textures: IMAGE_DESC's 1D type (GL 1.1's glTexImage1D through zink)
    case spv::Capability::ClipDistance:  // vertex outputs: export_builtin_output
    case spv::Capability::CullDistance:
    case spv::Capability::TransformFeedback:  // vertex outputs captured: lower_xfb.cc
    // zink declares it in some fragment shaders that shade nothing per sample (glmark2's terrain):
    // what would need it is refused where it is used (SampleId / SamplePosition / SampleMask
    // inputs, the Sample decoration in declare_fragment_input, InterpolateAtSample's capability).
    case spv::Capability::SampleRateShading:
      return true;
    default: return false;
  }
}

}  // namespace

bool Lowering::is_register_storage(spv::StorageClass storage) const {
  // A compute shader's inputs are built-ins read from special registers (load_builtin), as a kernel's.
  if (storage == spv::StorageClass::Input) return stage_ != ShaderStage::kCompute;
  return storage == spv::StorageClass::Function || storage == spv::StorageClass::Private ||
         storage == spv::StorageClass::Output;
}

void Lowering::check_shader_module(const SpirvEntryPoint& entry) const {
  if (m_.addressing_model != static_cast<uint32_t>(spv::AddressingModel::Logical))
    fail("a graphics shader must use the Logical addressing model");
  for (spv::Capability c : m_.capabilities)
    if (!capability_allowed(c)) fail(capability_name(c) + " is not supported in graphics shaders");
  for (spv::ExecutionMode mode : entry.modes) {
    switch (mode) {
      case spv::ExecutionMode::OriginUpperLeft:
      case spv::ExecutionMode::DepthReplacing:
      case spv::ExecutionMode::DepthGreater:
      case spv::ExecutionMode::DepthLess:
      case spv::ExecutionMode::DepthUnchanged:
        if (stage_ == ShaderStage::kCompute) fail("execution mode " + mode_name(mode) + " in a compute shader");
        break;
      case spv::ExecutionMode::Xfb:
        // zink declares it in the fragment shader of a capturing program too: a fragment shader has
        // no vertex outputs to capture, so there it changes nothing (note_xfb_component).
        if (stage_ == ShaderStage::kCompute) fail("execution mode Xfb in a compute shader");
        break;
      case spv::ExecutionMode::LocalSize:
      case spv::ExecutionMode::LocalSizeId:
        if (stage_ != ShaderStage::kCompute) fail("execution mode " + mode_name(mode) + " outside a compute shader");
        break;
      case spv::ExecutionMode::OriginLowerLeft:
        fail("execution mode OriginLowerLeft is not supported (Vulkan uses OriginUpperLeft)");
      case spv::ExecutionMode::EarlyFragmentTests:
        fail("execution mode EarlyFragmentTests is not supported (gsgpu tests depth after shading)");
      default: fail("execution mode " + mode_name(mode) + " is not supported");
    }
  }
  if (stage_ == ShaderStage::kCompute && !entry.reqd_work_group_size)
    fail("a compute shader must declare its work-group size (LocalSize, LocalSizeId or a WorkgroupSize constant)");
  if (entry.model == spv::ExecutionModel::Fragment &&
      std::find(entry.modes.begin(), entry.modes.end(), spv::ExecutionMode::OriginUpperLeft) == entry.modes.end())
    fail("a fragment shader must declare OriginUpperLeft");
}

Value Lowering::new_register_variable(uint32_t id, uint32_t pointee, spv::StorageClass storage) {
  // Outputs and module-scope variables start at 0: an output a path never writes exports 0, and
  // Private variables without an initializer read 0. Inputs are loaded in the prologue; a Function
  // variable read before it is written is undefined in SPIR-V, and zeroing every one would keep its
  // registers live from the start.
  const bool zero = storage == spv::StorageClass::Output || storage == spv::StorageClass::Private;
  const uint32_t n = component_count(pointee);
  if (n > kMaxVariableComponents)
    fail("variable " + std::to_string(id) + " has " + std::to_string(n) +
         " components; graphics shaders keep variables in "
         "registers (at most " +
         std::to_string(kMaxVariableComponents) + ")");
  std::vector<Leaf> layout;
  leaves(pointee, 0, &layout);
  RegisterVariable var{id, pointee, storage, {}, std::vector<bool>(layout.size(), false)};
  for (const Leaf& leaf : layout) {
    const unsigned bits = reg_bits(leaf.type);
    var.regs.push_back(f_.new_vreg(bits));
    if (zero) copy(var.regs.back(), MOperand::literal(0));
  }
  register_variables_.push_back(std::move(var));
  RegisterPointer p;
  p.variable = static_cast<uint32_t>(register_variables_.size() - 1);
  p.type = pointee;
  register_pointers_.push_back(p);
  return Value{{MOperand::literal(static_cast<uint32_t>(register_pointers_.size() - 1))}};
}

const Lowering::RegisterPointer& Lowering::register_pointer(uint32_t pointer_id) {
  const Value v = value(pointer_id);
  if (v.parts.size() != 1 || !v.parts[0].is_literal() || v.parts[0].value >= register_pointers_.size())
    fail("pointer " + std::to_string(pointer_id) + " does not point to a variable");
  return register_pointers_[v.parts[0].value];
}

Value Lowering::register_load(const RegisterPointer& p) {
  const RegisterVariable& var = register_variables_[p.variable];
  const uint32_t n = component_count(p.type);
  Value r;
  for (uint32_t c = 0; c < n; ++c) {
    const uint32_t reg = var.regs.at(p.first + c);
    const unsigned bits = f_.vreg_bits[reg];
    // A copy: the variable may be written again while this value is still read.
    MOperand out = MOperand::vreg(emit(bits == 64 ? Opcode::v_mov_b64 : Opcode::v_mov_b32, bits, MOperand::vreg(reg)));
    for (uint32_t e = 1; e < p.dynamic_count; ++e) {
      const MOperand hit = MOperand::vreg(emit(Opcode::v_cmp_eq_u32, 32, p.dynamic_index, MOperand::literal(e)));
      out = select(hit, MOperand::vreg(var.regs.at(p.first + e * p.dynamic_stride + c)), out, bits);
    }
    r.parts.push_back(out);
  }
  return r;
}

void Lowering::register_store(const RegisterPointer& p, const Value& v) {
  RegisterVariable& var = register_variables_[p.variable];
  const uint32_t n = component_count(p.type);
  if (v.parts.size() != n) fail("the stored value does not match the pointee type");
  for (uint32_t e = 0; e < std::max(p.dynamic_count, 1u); ++e) {
    MOperand hit;
    if (p.dynamic_count > 0)
      hit = MOperand::vreg(emit(Opcode::v_cmp_eq_u32, 32, p.dynamic_index, MOperand::literal(e)));
    for (uint32_t c = 0; c < n; ++c) {
      const uint32_t at = p.first + e * p.dynamic_stride + c;
      const uint32_t reg = var.regs.at(at);
      var.written.at(at) = true;
      const bool wide = f_.vreg_bits[reg] == 64;
      if (p.dynamic_count == 0)
        copy(reg, v.parts[c]);
      else
        emit_to(wide ? Opcode::v_cndmask_b64 : Opcode::v_cndmask_b32, MOperand::vreg(reg), hit, v.parts[c],
                MOperand::vreg(reg));
    }
  }
}

MOperand Lowering::register_access_chain(const SpirvInstruction& inst) {
  RegisterPointer p = register_pointer(operand_id(inst, 0));
  const size_t first_index = inst.opcode == Op::OpPtrAccessChain ? 2 : 1;
  if (inst.opcode == Op::OpPtrAccessChain) fail("OpPtrAccessChain is not supported in graphics shaders");
  for (size_t i = first_index; i < inst.operands.size(); ++i) {
    const uint32_t index_id = inst.operands[i];
    auto c = m_.constants.find(index_id);
    const SpirvType& t = type(p.type);
    if (c != m_.constants.end() && c->second.kind == SpirvConstant::Kind::kScalar) {
      if (c->second.bits > UINT32_MAX) fail("access chain index out of range");
      uint32_t element = 0;
      const uint32_t offset = component_offset(p.type, static_cast<uint32_t>(c->second.bits), &element);
      p.first += offset;  // after a run-time index: the offset inside each element
      p.type = element;
      continue;
    }
    if (t.kind != TypeKind::kArray && t.kind != TypeKind::kVector) fail("a run-time index into a struct");
    if (p.dynamic_count > 0)
      fail("more than one run-time index in one access chain (graphics shaders keep variables in registers)");
    const Value index = value(index_id);
    if (index.parts.size() != 1) fail("the index is not a scalar");
    MOperand idx = index.parts[0];
    if (int_width(scalar_of(type_of(index_id))) == 64) idx = low_half(idx);
    p.dynamic_index = in_register(idx, 32);
    p.dynamic_count = t.count;
    p.dynamic_stride = component_count(t.element);
    p.type = t.element;
  }
  register_pointers_.push_back(p);
  return MOperand::literal(static_cast<uint32_t>(register_pointers_.size() - 1));
}

bool Lowering::lower_register_access(const SpirvInstruction& inst) {
  auto pointer_storage = [&](uint32_t pointer_type_id) {
    const SpirvType& t = type(pointer_type_id);
    return t.kind == TypeKind::kPointer && is_register_storage(t.storage);
  };
  // A compute shader's built-in inputs and the chains into them (which have no type of their own)
  // are the kernels' built-in references (lower_memory.cc).
  if (!inst.operands.empty() && builtins_.count(inst.operands[0])) return false;
  if ((inst.opcode == Op::OpAccessChain || inst.opcode == Op::OpInBoundsAccessChain) && !inst.operands.empty() &&
      texture_arrays_.count(inst.operands[0])) {
    texture_array_element(inst);
    return true;
  }
  if (inst.opcode == Op::OpLoad && type(type_of(operand_id(inst, 0))).kind == TypeKind::kPointer &&
      type(type_of(operand_id(inst, 0))).storage == spv::StorageClass::UniformConstant) {
    // An image or sampler variable, or a function parameter pointing to one: the "pointer" is the
    // descriptor's registers (texture_bindings_, read through value()).
    define(inst.result_id, value(operand_id(inst, 0)));
    return true;
  }
  switch (inst.opcode) {
    case Op::OpAccessChain:
    case Op::OpInBoundsAccessChain:
    case Op::OpPtrAccessChain:
      if (!pointer_storage(inst.result_type)) return false;
      define(inst.result_id, Value{{register_access_chain(inst)}});
      return true;
    case Op::OpLoad:
      if (!pointer_storage(type_of(operand_id(inst, 0)))) return false;
      define(inst.result_id, register_load(register_pointer(operand_id(inst, 0))));
      return true;
    case Op::OpStore: {
      if (!pointer_storage(type_of(operand_id(inst, 0)))) return false;
      const RegisterPointer p = register_pointer(operand_id(inst, 0));
      if (register_variables_[p.variable].storage == spv::StorageClass::Input) fail("a store to an Input variable");
      register_store(p, value(operand_id(inst, 1)));
      return true;
    }
    case Op::OpCopyMemory: {
      if (!pointer_storage(type_of(operand_id(inst, 0))) || !pointer_storage(type_of(operand_id(inst, 1))))
        fail("OpCopyMemory between a variable and memory is not supported in graphics shaders");
      const RegisterPointer to = register_pointer(operand_id(inst, 0));
      register_store(to, register_load(register_pointer(operand_id(inst, 1))));
      return true;
    }
    case Op::OpVariable: fail("a variable outside the function's first block");
    default: return false;
  }
}

// ---- the interface ----

void Lowering::declare_fragment_input(uint32_t id, const SpirvVariable& var, const SpirvDecorations* d) {
  const uint32_t pointee = type(var.pointer_type).element;
  const Value pointer = new_register_variable(id, pointee, spv::StorageClass::Input);
  RegisterVariable& rv = register_variables_.back();
  if (d != nullptr && d->builtin && *d->builtin == spv::BuiltIn::ViewIndex) {
    load_view_index(rv);
    module_register_pointers_[id] = pointer.parts[0].value;
    return;
  }
  if (d != nullptr && d->builtin) {
    // docs/isa.md §8c: v0, v1 the pixel centre, v2 the depth, v3 1 / w, v4 the facing.
    uint32_t first = 0, count = 0;
    if (*d->builtin == spv::BuiltIn::FragCoord)
      count = 4, k_.reads_frag_coord = true;
    else if (*d->builtin == spv::BuiltIn::FrontFacing)
      first = 4, count = 1, k_.reads_front_facing = true;
    else
      fail("built-in input " + builtin_name(*d->builtin) + " is not supported in fragment shaders");
    if (rv.regs.size() != count) fail("built-in " + builtin_name(*d->builtin) + " has the wrong type");
    for (uint32_t c = 0; c < count; ++c) copy(rv.regs[c], MOperand::raw(isa::vreg(first + c)));
    k_.preloaded_registers = std::max(k_.preloaded_registers, first + count);
    module_register_pointers_[id] = pointer.parts[0].value;
    return;
  }
  if (d == nullptr || !d->location) fail("fragment input " + std::to_string(id) + " has no Location");
  if (d->sample)
    fail("fragment input " + std::to_string(id) + " is decorated Sample (per-sample interpolation needs "
         "sample-rate shading, which gsgpu does not offer)");
  const uint32_t component = d->component.value_or(0);
  const uint64_t first = uint64_t{*d->location} * 4 + component;
  // Each location holds one vector: arrays and matrices take consecutive locations.
  const SpirvType& t = type(pointee);
  if (t.kind == TypeKind::kStruct)
    fail("fragment input " + std::to_string(id) + " is a struct (interface blocks are not supported)");
  const bool multi = t.kind == TypeKind::kArray;
  const uint32_t per_location = multi ? component_count(t.element) : static_cast<uint32_t>(rv.regs.size());
  if (per_location + component > 4) fail("fragment input " + std::to_string(id) + " does not fit its location");
  const Opcode interp = d->flat             ? Opcode::v_interp_flat_f32
                        : d->no_perspective ? Opcode::v_interp_linear_f32
                                            : Opcode::v_interp_persp_f32;
  std::vector<Leaf> layout;
  leaves(pointee, 0, &layout);
  for (uint32_t c = 0; c < rv.regs.size(); ++c) {
    const uint64_t k = first + uint64_t{c / per_location} * 4 + c % per_location;
    if (k >= kMaxVaryingComponents)
      fail("fragment input " + std::to_string(id) + " reads varying component " + std::to_string(k) + ", past 63");
    if (f_.vreg_bits[rv.regs[c]] != 32) fail("fragment input " + std::to_string(id) + " is not 32-bit");
    const Opcode op = is_float(layout.at(c).type) ? interp : Opcode::v_interp_flat_f32;
    emit_to(op, MOperand::vreg(rv.regs[c]), {}, {}, {}, static_cast<int32_t>(k));
    if (op == Opcode::v_interp_linear_f32) k_.linear_varyings |= uint64_t{1} << k;
    k_.varying_components = std::max<uint32_t>(k_.varying_components, static_cast<uint32_t>(k + 1));
  }
  module_register_pointers_[id] = pointer.parts[0].value;
}

void Lowering::declare_vertex_input(uint32_t id, const SpirvVariable& var, const SpirvDecorations* d) {
  const uint32_t pointee = type(var.pointer_type).element;
  const Value pointer = new_register_variable(id, pointee, spv::StorageClass::Input);
  module_register_pointers_[id] = pointer.parts[0].value;
  if (d != nullptr && d->builtin && *d->builtin == spv::BuiltIn::ViewIndex) {
    load_view_index(register_variables_.back());
    return;
  }
  if (d != nullptr && d->builtin) {
    if (*d->builtin != spv::BuiltIn::VertexIndex && *d->builtin != spv::BuiltIn::InstanceIndex)
      fail("built-in input " + builtin_name(*d->builtin) + " is not supported in vertex shaders");
    if (register_variables_.back().regs.size() != 1)
      fail("built-in " + builtin_name(*d->builtin) + " has the wrong type");
    return;  // copied once every attribute's location is known (export_shader_outputs' counterpart below)
  }
  if (d == nullptr || !d->location) fail("vertex input " + std::to_string(id) + " has no Location");
  const RegisterVariable& rv = register_variables_.back();
  const SpirvType& t = type(pointee);
  if (t.kind == TypeKind::kArray || t.kind == TypeKind::kStruct)
    fail("vertex input " + std::to_string(id) + " is an array, matrix or struct");
  const uint32_t component = d->component.value_or(0);
  if (rv.regs.size() + component > 4 || *d->location >= kMaxVertexAttributes)
    fail("vertex input " + std::to_string(id) + " at Location " + std::to_string(*d->location) +
         " is outside the 16 attributes");
  for (uint32_t c = 0; c < rv.regs.size(); ++c) {
    if (f_.vreg_bits[rv.regs[c]] != 32) fail("vertex input " + std::to_string(id) + " is not 32-bit");
    copy(rv.regs[c], MOperand::raw(isa::vreg(*d->location * 4 + component + c)));
  }
  k_.vertex_attributes = std::max(k_.vertex_attributes, *d->location + 1);
}

// Push-constant and uniform blocks are laid out by their Offset, ArrayStride and MatrixStride
// decorations. Loads follow the Offsets and ArrayStrides whatever their alignment (std140, std430,
// the scalar layout: array_stride, leaves); a matrix's columns follow the column's natural size, so
// another MatrixStride is refused.
void Lowering::check_explicit_layout(uint32_t type_id, unsigned depth) const {
  if (depth > 16) fail("a block type nests too deeply");
  const SpirvType& t = type(type_id);
  const SpirvDecorations* d = m_.decoration(type_id);
  if (t.kind == TypeKind::kArray && !t.matrix) {
    check_explicit_layout(t.element, depth + 1);
  } else if (t.kind == TypeKind::kStruct) {
    for (uint32_t m = 0; m < t.members.size(); ++m) {
      if (d == nullptr || !d->member_offsets.count(m))
        fail("block struct member " + std::to_string(m) + " has no Offset");
      if (d->member_row_major.count(m)) fail("RowMajor block matrices are not supported");
      const SpirvType& member = type(t.members[m]);
      if (member.matrix) {
        auto stride = d->member_matrix_strides.find(m);
        if (stride != d->member_matrix_strides.end() && stride->second != size_of(member.element))
          fail("block MatrixStride " + std::to_string(stride->second) + " differs from the column size");
      }
      check_explicit_layout(t.members[m], depth + 1);
    }
  }
}

MOperand Lowering::constant_buffer_base() {
  // The draw's constant buffer (SHADER_STATE CONSTANTS_*) is the dispatch's argument pointer, read
  // once into s[0:1] in the prologue, before any branch; nothing writes it again.
  if (constants_base_.kind == MOperand::Kind::kNone) {
    constants_base_ = MOperand::raw(isa::sreg(0));
    emit_to(Opcode::s_special, constants_base_, {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr));
    k_.scalar_registers = std::max(k_.scalar_registers, 2u);
  }
  return constants_base_;
}

void Lowering::declare_push_constants(uint32_t id, uint32_t pointee) {
  check_explicit_layout(pointee, 0);
  module_addresses_[id] = constant_buffer_base();
  // The bytes it reads: up to the end of the last member (not the struct's padded size).
  uint32_t end = size_of(pointee);
  if (const SpirvType& block = type(pointee); block.kind == TypeKind::kStruct) {
    end = 0;
    for (uint32_t m = 0; m < block.members.size(); ++m)
      end = std::max(end, m_.decoration(pointee)->member_offsets.at(m) + size_of(block.members[m]));
  }
  if (end > kPushConstantBytes)
    fail("the push-constant block is " + std::to_string(end) + " bytes, over " + std::to_string(kPushConstantBytes));
  k_.constant_buffer_bytes = std::max(k_.constant_buffer_bytes, end);
}

// A uniform buffer (a Block in storage class Uniform) at (set, binding): its VA is the constant
// buffer's descriptor table entry 128 + 8 (16 set + binding), loaded once per warp into a scalar pair
// in the prologue (docs/compiler.md "Constant buffer").
// An array of one Block (zink declares each uniform buffer as `ubo[1]`) is the same buffer: its
// access chains' first index is 0, so the element's offset is 0 whatever the array's stride.
MOperand Lowering::uniform_buffer_address(uint32_t id, const SpirvDecorations* d) {
  uint32_t pointee = type(m_.variables.at(id).pointer_type).element;
  if (const SpirvType& t = type(pointee); t.kind == TypeKind::kArray && !t.matrix && t.count == 1) pointee = t.element;
  const SpirvDecorations* block = m_.decoration(pointee);
  if (type(pointee).kind != TypeKind::kStruct || block == nullptr || !block->block)
    fail("uniform variable " + std::to_string(id) +
         " is not a Block (arrays of several uniform buffers and BufferBlock storage "
         "buffers are not supported)");
  check_explicit_layout(pointee, 0);
  const uint32_t set = d != nullptr ? d->descriptor_set.value_or(0) : 0,
                 binding = d != nullptr ? d->binding.value_or(0) : 0;
  return descriptor_table_entry(set, binding, "uniform buffer");
}

// gl_ViewIndex (SPV_KHR_multiview): the driver replays a multiview subpass's draws once per view
// and writes the view's index into the constant buffer; loaded once per warp in the prologue.
void Lowering::load_view_index(const RegisterVariable& var) {
  if (var.regs.size() != 1 || f_.vreg_bits[var.regs[0]] != 32) fail("built-in ViewIndex has the wrong type");
  const MOperand base = constant_buffer_base();
  const MOperand word = new_scalar_register();
  emit_to(Opcode::s_load_b32, word, base, {}, {}, static_cast<int32_t>(kViewIndexOffset));
  k_.constant_buffer_bytes = std::max(k_.constant_buffer_bytes, kViewIndexOffset + 4);
  copy(var.regs[0], word);
}

MOperand Lowering::new_scalar_pair() {
  const uint32_t reg = (std::max(k_.scalar_registers, 2u) + 1) / 2 * 2;
  k_.scalar_registers = reg + 2;
  return MOperand::raw(isa::sreg(reg));
}

MOperand Lowering::new_scalar_register() {
  const uint32_t reg = std::max(k_.scalar_registers, 2u);
  k_.scalar_registers = reg + 1;
  return MOperand::raw(isa::sreg(reg));
}

// The constant buffer's table entry 128 + 8 (16 set + binding): a uniform buffer's VA or a texture
// record's (lower_shader_texture.cc), loaded once per warp in the prologue.
MOperand Lowering::descriptor_table_entry(uint32_t set, uint32_t binding, const char* what) {
  if (set >= kDescriptorSets || binding >= kBindingsPerSet)
    fail(std::string(what) + " at set " + std::to_string(set) + ", binding " + std::to_string(binding) +
         ": the constant buffer's table has sets 0.." + std::to_string(kDescriptorSets - 1) + ", bindings 0.." +
         std::to_string(kBindingsPerSet - 1));
  const uint32_t slot = set * kBindingsPerSet + binding;
  if (auto it = uniform_buffers_.find(slot); it != uniform_buffers_.end()) return it->second;
  const MOperand base = constant_buffer_base();
  const MOperand pair = new_scalar_pair();
  const uint32_t offset = kPushConstantBytes + 8 * slot;
  emit_to(Opcode::s_load_b64, pair, base, {}, {}, static_cast<int32_t>(offset));
  k_.constant_buffer_bytes = std::max(k_.constant_buffer_bytes, offset + 8);
  uniform_buffers_[slot] = pair;
  return pair;
}

void Lowering::declare_shader_interface(const SpirvEntryPoint& entry) {
  std::vector<uint32_t> index_builtins;
  for (uint32_t id : m_.variable_order) {
    const SpirvVariable& var = m_.variables.at(id);
    const SpirvDecorations* d = m_.decoration(id);
    const bool in_interface = std::find(entry.interface.begin(), entry.interface.end(), id) != entry.interface.end();
    const uint32_t pointee = type(var.pointer_type).element;
    switch (var.storage) {
      case spv::StorageClass::Input:
        if (!in_interface) continue;
        if (stage_ == ShaderStage::kFragment)
          declare_fragment_input(id, var, d);
        else
          declare_vertex_input(id, var, d);
        if (d != nullptr && d->builtin && *d->builtin != spv::BuiltIn::ViewIndex) index_builtins.push_back(id);
        break;
      case spv::StorageClass::Output:
        if (!in_interface) continue;
        module_register_pointers_[id] = new_register_variable(id, pointee, var.storage).parts[0].value;
        break;
      case spv::StorageClass::Private: {
        module_register_pointers_[id] = new_register_variable(id, pointee, var.storage).parts[0].value;
        if (var.initializer != 0)
          register_store(register_pointers_[module_register_pointers_[id]], constant_value(var.initializer));
        break;
      }
      case spv::StorageClass::PushConstant: declare_push_constants(id, pointee); break;
      case spv::StorageClass::Uniform: module_addresses_[id] = uniform_buffer_address(id, d); break;
      case spv::StorageClass::UniformConstant: texture_bindings_[id] = declare_texture_binding(id, d); break;
      default:
        fail("variable " + std::to_string(id) + " in storage class " + storage_name(var.storage) +
             " is not supported in graphics shaders (push constants, uniform buffers, images and samplers are)");
    }
  }
  if (stage_ != ShaderStage::kVertex) return;
  // The vertex and instance index follow the attributes: v[4n], v[4n + 1] (docs/isa.md §8d).
  const uint32_t n = k_.vertex_attributes;
  for (uint32_t id : index_builtins) {
    const RegisterVariable& rv = register_variables_[register_pointers_[module_register_pointers_[id]].variable];
    const bool instance = *m_.decoration(id)->builtin == spv::BuiltIn::InstanceIndex;
    copy(rv.regs[0], MOperand::raw(isa::vreg(4 * n + (instance ? 1 : 0))));
    k_.preloaded_registers = std::max(k_.preloaded_registers, 4 * n + 2);
  }
  k_.preloaded_registers = std::max(k_.preloaded_registers, 4 * n);
}

void Lowering::export_components(const RegisterVariable& var, uint32_t first, uint32_t count, uint32_t slot) {
  const Opcode op = stage_ == ShaderStage::kVertex ? Opcode::v_export_vertex_f32 : Opcode::v_export_f32;
  for (uint32_t c = 0; c < count; ++c)
    emit_to(op, MOperand{}, MOperand::vreg(var.regs.at(first + c)), {}, {}, static_cast<int32_t>(slot + c));
}

// Built-in outputs: Position (plain or the gl_PerVertex block's member) to slots 0..3, PointSize to
// slot 68 and FragDepth to slot 8 when some store writes them; anything else written fails.
void Lowering::export_builtin_output(const RegisterVariable& var) {
  auto written = [&](uint32_t first, uint32_t count) {
    for (uint32_t c = 0; c < count; ++c)
      if (var.written.at(first + c)) return true;
    return false;
  };
  auto export_builtin = [&](spv::BuiltIn b, uint32_t first, uint32_t count, std::optional<uint32_t> member) {
    if (stage_ == ShaderStage::kVertex && b == spv::BuiltIn::Position && count == 4) {
      export_components(var, first, 4, 0);
      for (uint32_t c = 0; c < 4; ++c) note_xfb_component(var, member, c, c);
    } else if (stage_ == ShaderStage::kVertex && b == spv::BuiltIn::PointSize && count == 1) {
      // Slot 68: a point drawn from this vertex takes this size; unwritten, PIPE_STATE's.
      if (written(first, 1)) export_components(var, first, 1, static_cast<uint32_t>(isa::kVertexSlotPointSize));
      note_xfb_component(var, member, 0, static_cast<uint32_t>(isa::kVertexSlotPointSize));
    } else if (stage_ == ShaderStage::kVertex && b == spv::BuiltIn::ClipDistance) {
      // Slots 69..: when some store writes one, every element (unwritten ones are 0, inside), so the
      // count is the array's. glslang declares the member in every gl_PerVertex; unwritten, nothing.
      // Captured, element c is slot 69 + c (the device reads it from the vertex's distances).
      for (uint32_t c = 0; c < std::min<uint32_t>(count, isa::kMaxClipCullDistances); ++c)
        note_xfb_component(var, member, c, static_cast<uint32_t>(isa::kVertexSlotClipDistance0) + c);
      if (!written(first, count)) return;
      if (count > uint32_t(isa::kMaxClipCullDistances)) fail("more than 8 clip distances");
      export_components(var, first, count, static_cast<uint32_t>(isa::kVertexSlotClipDistance0));
      k_.clip_distances = count;
    } else if (stage_ == ShaderStage::kVertex && b == spv::BuiltIn::CullDistance) {
      // Its slots follow the clip distances, whose count is known only at the end: not captured.
      note_xfb_component(var, member, 0, static_cast<uint32_t>(isa::kVertexSlotCount));
      if (written(first, count)) pending_cull_distances_ = {&var, first, count};  // after the clip distances
    } else if (stage_ == ShaderStage::kFragment && b == spv::BuiltIn::FragDepth && count == 1) {
      if (written(first, 1)) export_components(var, first, 1, static_cast<uint32_t>(isa::ExportSlot::kDepth));
    } else if (written(first, count)) {
      fail("output built-in " + builtin_name(b) + " is not supported");
    }
  };
  const SpirvDecorations* d = m_.decoration(var.id);
  if (d != nullptr && d->builtin)
    return export_builtin(*d->builtin, 0, static_cast<uint32_t>(var.regs.size()), std::nullopt);
  const SpirvType& t = type(var.type);
  const SpirvDecorations* members = m_.decoration(var.type);  // member decorations are the struct type's
  for (uint32_t m = 0; m < t.members.size(); ++m) {
    uint32_t member_type = 0;
    const uint32_t first = component_offset(var.type, m, &member_type);
    auto b = members->member_builtins.find(m);
    if (b == members->member_builtins.end()) fail("output block member " + std::to_string(m) + " is not a built-in");
    export_builtin(b->second, first, component_count(member_type), m);
  }
}

// Outputs at a Location: a vertex shader's varyings (component k = 4 Location + c, slot 4 + k), a
// fragment shader's colour (Location 0; Index 1 the dual-source second colour).
void Lowering::export_located_output(const RegisterVariable& var) {
  const SpirvDecorations* d = m_.decoration(var.id);
  const SpirvType& t = type(var.type);
  if (d == nullptr || !d->location) fail("output " + std::to_string(var.id) + " has no Location");
  if (t.kind == TypeKind::kStruct)
    fail("output " + std::to_string(var.id) + " is a struct (interface blocks are not supported)");
  const uint32_t component = d->component.value_or(0);
  const bool multi = t.kind == TypeKind::kArray;
  const auto n = static_cast<uint32_t>(var.regs.size());
  const uint32_t per_location = multi ? component_count(t.element) : n;
  if (per_location + component > 4) fail("output " + std::to_string(var.id) + " does not fit its location");
  for (uint32_t c = 0; c < n; ++c)
    if (f_.vreg_bits[var.regs[c]] != 32) fail("output " + std::to_string(var.id) + " is not 32-bit");
  if (stage_ == ShaderStage::kFragment)
    return export_fragment_output(var, *d->location, d->index.value_or(0), component, per_location);
  for (uint32_t c = 0; c < n; ++c) {
    const uint64_t k = uint64_t{*d->location} * 4 + component + uint64_t{c / per_location} * 4 + c % per_location;
    if (k >= kMaxVaryingComponents)
      fail("output " + std::to_string(var.id) + " writes varying component " + std::to_string(k) + ", past 63");
    export_components(var, c, 1, static_cast<uint32_t>(4 + k));
    note_xfb_component(var, std::nullopt, c, static_cast<uint32_t>(4 + k));
    k_.varying_components = std::max<uint32_t>(k_.varying_components, static_cast<uint32_t>(k + 1));
  }
}

// A fragment shader's colour output: Location L (an array's element e at L + e) to colour target
// L's export slots (isa::export_slot_of_target); Index 1, the dual-source second colour of target 0.
// A Location past the last target (maxColorAttachments 8) has no attachment, and Vulkan discards
// such writes; an attachment the subpass does not have ignores its slots.
void Lowering::export_fragment_output(const RegisterVariable& var, uint32_t location, uint32_t index,
                                      uint32_t component, uint32_t per_location) {
  if (index > 1) fail("fragment output Index " + std::to_string(index) + " (dual source has Index 0 and 1)");
  const auto n = static_cast<uint32_t>(var.regs.size());
  if (index == 1 && (location != 0 || n > per_location))
    fail("fragment output " + std::to_string(var.id) + ": a dual-source output (Index 1) is one colour at Location 0");
  for (uint32_t c = 0; c < n; ++c) {
    const uint64_t target = uint64_t{location} + c / per_location;
    if (target >= uint64_t(isa::kMaxColorTargets)) continue;
    const int32_t first_slot =
        index == 1 ? int32_t(isa::ExportSlot::kColor1R) : isa::export_slot_of_target(static_cast<int32_t>(target));
    export_components(var, c, 1, static_cast<uint32_t>(first_slot) + component + c % per_location);
  }
}

void Lowering::export_shader_outputs() {
  for (const RegisterVariable& var : register_variables_) {
    if (var.storage != spv::StorageClass::Output) continue;
    const SpirvDecorations* d = m_.decoration(var.id);
    const SpirvDecorations* members = m_.decoration(var.type);
    const bool builtin_block = type(var.type).kind == TypeKind::kStruct && members != nullptr &&
                               !members->member_builtins.empty();
    if ((d != nullptr && d->builtin) || builtin_block) export_builtin_output(var);
    else export_located_output(var);
  }
  // gl_CullDistance follows gl_ClipDistance's slots (SHADER_STATE VERTEX.CULL_DISTANCES).
  if (const RegisterVariable* var = pending_cull_distances_.var) {
    const uint32_t count = pending_cull_distances_.count;
    if (k_.clip_distances + count > uint32_t(isa::kMaxClipCullDistances))
      fail("more than 8 clip and cull distances together");
    export_components(*var, pending_cull_distances_.first, count,
                      static_cast<uint32_t>(isa::kVertexSlotClipDistance0) + k_.clip_distances);
    k_.cull_distances = count;
  }
  finish_xfb();
}

void Lowering::lower_shader(const SpirvEntryPoint& entry) {
  kernel_name_ = entry.name;
  stage_ = entry.model == spv::ExecutionModel::Vertex     ? ShaderStage::kVertex
           : entry.model == spv::ExecutionModel::Fragment ? ShaderStage::kFragment
                                                          : ShaderStage::kCompute;
  k_.stage = stage_;
  check_shader_module(entry);
  k_.xfb = std::find(entry.modes.begin(), entry.modes.end(), spv::ExecutionMode::Xfb) != entry.modes.end();
  auto fn = m_.functions.find(entry.function);
  if (fn == m_.functions.end() || fn->second.blocks.empty()) fail("the entry point has no body");
  if (!fn->second.params.empty()) fail("the entry point has parameters");
  f_.entry = f_.new_block("prologue");
  f_.exit = f_.new_block("exit");
  f_.blocks[f_.exit].term.kind = MTerminator::Kind::kEnd;
  epilogue_block_ = f_.new_block("epilogue: exports");
  current_block_ = f_.entry;
  if (stage_ == ShaderStage::kCompute) declare_compute_interface(entry);
  else declare_shader_interface(entry);
  lower_function(fn->second, {}, epilogue_block_, nullptr);
  current_ = nullptr;
  current_block_ = epilogue_block_;
  export_shader_outputs();
  f_.blocks[epilogue_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {f_.exit, 0}};
}

}  // namespace gsgpu::compiler
