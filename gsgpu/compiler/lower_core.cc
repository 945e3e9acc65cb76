// The lowering's spine: the kernel prologue (arguments from the argument buffer), values and
// constants, blocks and terminators, phis as copies on edges, and calls inlined.
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;

namespace {

// Inlining deeper than this is refused (OpenCL C forbids recursion; this bounds hostile modules).
constexpr unsigned kMaxInlineDepth = 32;
// Code-size guard for hostile modules: inlining can multiply a module's size.
constexpr size_t kMaxBlocks = 200000;
constexpr size_t kMaxInstructions = 2000000;

uint32_t align_up(uint32_t value, uint32_t align) { return (value + align - 1) / align * align; }

}  // namespace

struct Lowering::Frame {
  const SpirvFunction* fn = nullptr;
  std::unordered_map<uint32_t, Value> values;
  std::unordered_map<uint32_t, uint32_t> types;  // value id -> SPIR-V type
  std::unordered_map<uint32_t, uint32_t> first_block;                // label -> MBlock
  std::unordered_map<uint32_t, std::vector<uint32_t>> edge_blocks;   // label -> MBlocks holding its edges
  uint32_t return_block = 0;
  Value* return_value = nullptr;
  struct PendingPhi {
    uint32_t block_label;
    const SpirvInstruction* inst;
    std::vector<uint32_t> temps;  // written on each incoming edge
  };
  std::vector<PendingPhi> phis;
};

void Lowering::fail(const std::string& reason) const {
  std::string where = (stage_ == ShaderStage::kVertex     ? "vertex shader "
                       : stage_ == ShaderStage::kFragment ? "fragment shader "
                       : stage_ == ShaderStage::kCompute  ? "compute shader "
                                                          : "kernel ") +
                      kernel_name_;
  if (current_ != nullptr)
    where += ": " + opcode_name(current_->opcode) + " at word " + std::to_string(current_->word_offset);
  throw CompileError(where + ": " + reason);
}

uint32_t Lowering::operand_id(const SpirvInstruction& inst, size_t index) const {
  if (index >= inst.operands.size())
    fail("operand " + std::to_string(index) + " is missing (" + std::to_string(inst.operands.size()) + " given)");
  return inst.operands[index];
}

// ---- emission ----

void Lowering::emit_to(Opcode op, MOperand dst, MOperand a, MOperand b, MOperand c, int32_t imm) {
  // Inlining multiplies code; a hostile module could ask for gigabytes of it.
  if (++emitted_ > kMaxInstructions) fail("the kernel is too large after inlining (over 2 million instructions)");
  // A cached byte offset must not outlive a new value of its index (copies write registers that
  // already have a value: phis, call results).
  if (dst.is_vreg() && !block_offsets_.empty())
    std::erase_if(block_offsets_, [&](const auto& entry) { return entry.first.index.value == dst.value && entry.first.index.is_vreg(); });
  MInst inst;
  inst.opcode = op;
  inst.dst = dst;
  inst.src[0] = a;
  inst.src[1] = b;
  inst.src[2] = c;
  inst.imm = imm;
  // One literal word per instruction: further literals with other values go to registers first.
  const isa::OpInfo& info = isa::op_info(op);
  const isa::OperandKind kinds[3] = {info.src0, info.src1, info.src2};
  // A scalar register (a kernel argument) where only a vector register is allowed: copy it.
  for (int i = 0; i < 3; ++i) {
    if (inst.src[i].kind != MOperand::Kind::kRaw || kinds[i] != isa::OperandKind::kVReg32) continue;
    const uint32_t reg = f_.new_vreg(32);
    MInst mov;
    mov.opcode = Opcode::v_mov_b32;
    mov.dst = MOperand::vreg(reg);
    mov.src[0] = inst.src[i];
    f_.blocks[current_block_].insts.push_back(mov);
    inst.src[i] = MOperand::vreg(reg);
  }
  const MOperand* first_literal = nullptr;
  for (int i = 0; i < 3; ++i) {
    if (!inst.src[i].is_literal()) continue;
    if (first_literal == nullptr) {
      first_literal = &inst.src[i];
    } else if (inst.src[i].value != first_literal->value) {
      const unsigned bits = kinds[i] == isa::OperandKind::kVSrc64 ? 64 : 32;
      const uint32_t reg = f_.new_vreg(bits);
      MInst mov;
      mov.opcode = bits == 64 ? Opcode::v_mov_b64 : Opcode::v_mov_b32;
      mov.dst = MOperand::vreg(reg);
      mov.src[0] = inst.src[i];
      f_.blocks[current_block_].insts.push_back(mov);
      inst.src[i] = MOperand::vreg(reg);
    }
  }
  f_.blocks[current_block_].insts.push_back(inst);
}

uint32_t Lowering::emit(Opcode op, unsigned dst_bits, MOperand a, MOperand b, MOperand c, int32_t imm) {
  const uint32_t dst = f_.new_vreg(dst_bits);
  emit_to(op, MOperand::vreg(dst), a, b, c, imm);
  if (op == Opcode::v_zext_u64_u32) zero_extended_[dst] = a;
  if (op == Opcode::v_sext_i64_i32) sign_extended_[dst] = a;
  return dst;
}

void Lowering::emit_store(Opcode op, MOperand address, MOperand data, int32_t imm) {
  emit_to(op, MOperand{}, address, data, MOperand{}, imm);
}

void Lowering::copy(uint32_t dst_vreg, MOperand src) {
  const bool wide = f_.vreg_bits[dst_vreg] == 64;
  emit_to(wide ? Opcode::v_mov_b64 : Opcode::v_mov_b32, MOperand::vreg(dst_vreg), src);
}

MOperand Lowering::in_register(MOperand op, unsigned bits) {
  if (op.is_vreg()) return op;
  return MOperand::vreg(emit(bits == 64 ? Opcode::v_mov_b64 : Opcode::v_mov_b32, bits, op));
}

MOperand Lowering::constant64(uint64_t bits) {
  const auto low = static_cast<uint32_t>(bits);
  if (static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(low))) == bits) return MOperand::literal(low);
  const uint32_t lo = emit(Opcode::v_mov_b32, 32, MOperand::literal(low));
  return MOperand::vreg(emit(Opcode::v_pack_b64, 64, MOperand::vreg(lo), MOperand::literal(static_cast<uint32_t>(bits >> 32))));
}

MOperand Lowering::select(MOperand cond, MOperand a, MOperand b, unsigned bits) {
  return MOperand::vreg(emit(bits == 64 ? Opcode::v_cndmask_b64 : Opcode::v_cndmask_b32, bits, cond, a, b));
}

// ---- values ----

namespace {

// Raw bits of every leaf of a constant, in leaf order.
void constant_bits(const Lowering& l, uint32_t id, std::vector<uint64_t>* out, int depth = 0) {
  if (depth > 64) l.fail("constant " + std::to_string(id) + " nests too deeply");
  auto it = l.m_.constants.find(id);
  if (it == l.m_.constants.end()) l.fail("id " + std::to_string(id) + " is not a constant");
  const SpirvConstant& c = it->second;
  switch (c.kind) {
    case SpirvConstant::Kind::kScalar: out->push_back(c.bits); return;
    case SpirvConstant::Kind::kComposite:
      for (uint32_t part : c.parts) constant_bits(l, part, out, depth + 1);
      return;
    case SpirvConstant::Kind::kSampler: out->push_back(l.sampler_word(c)); return;
    default: {
      const uint32_t n = l.component_count(c.type);
      out->insert(out->end(), n, 0);
      return;
    }
  }
}

}  // namespace

Value Lowering::constant_value(uint32_t id) {
  const SpirvConstant& c = m_.constants.at(id);
  std::vector<uint64_t> bits;
  constant_bits(*this, id, &bits);
  std::vector<Leaf> layout;
  leaves(c.type, 0, &layout);
  if (layout.size() != bits.size())
    fail("constant " + std::to_string(id) + " has " + std::to_string(bits.size()) + " components, its type " +
         std::to_string(layout.size()));
  Value v;
  for (size_t i = 0; i < bits.size(); ++i)
    v.parts.push_back(reg_bits(layout[i].type) == 64 ? constant64(bits[i]) : MOperand::literal(static_cast<uint32_t>(bits[i])));
  return v;
}

Value Lowering::value(uint32_t id) {
  Frame& frame = *frames_.back();
  if (auto it = frame.values.find(id); it != frame.values.end()) return it->second;
  // Module-scope ids are materialised per use: a register made in one block would not dominate
  // uses in others.
  Value scratch;
  if (m_.constants.count(id)) {
    scratch = constant_value(id);
    return scratch;
  }
  if (auto reg = module_register_pointers_.find(id); reg != module_register_pointers_.end())
    return Value{{MOperand::literal(reg->second)}};
  if (auto address = module_addresses_.find(id); address != module_addresses_.end()) return Value{{address->second}};
  if (auto texture = texture_bindings_.find(id); texture != texture_bindings_.end()) return texture->second;
  if (auto var = m_.variables.find(id); var != m_.variables.end()) {
    scratch = Value{};
    switch (var->second.storage) {
      case spv::StorageClass::Workgroup:
        scratch.parts.push_back(constant64(static_offsets_.at(id)));
        return scratch;
      case spv::StorageClass::UniformConstant:
        scratch.parts.push_back(MOperand::vreg(
            emit(Opcode::v_add_u64, 64, const_data_base_, MOperand::literal(static_offsets_.at(id)))));
        return scratch;
      case spv::StorageClass::Input:
        fail("built-in variable " + std::to_string(id) + " used other than by OpLoad or an access chain");
      default:
        fail("program-scope variable " + std::to_string(id) + " in storage class " +
             std::to_string(static_cast<unsigned>(var->second.storage)) + " is not supported (OpenCL 2.0 globals)");
    }
  }
  fail("id " + std::to_string(id) + " is used before it is defined (or is not a value)");
}

MOperand Lowering::low_half(MOperand v) {
  if (v.is_literal()) return v;
  if (v.kind == MOperand::Kind::kRaw) return v;  // a scalar pair s[n:n+1]: its low half is s[n]
  return MOperand::low(v.value);
}

MOperand Lowering::high_half(MOperand v) {
  if (v.is_literal()) return MOperand::literal(static_cast<int32_t>(v.value) < 0 ? 0xffffffffu : 0u);
  if (v.kind == MOperand::Kind::kRaw) return MOperand::raw(static_cast<uint16_t>(v.value + 1));
  return MOperand::high(v.value);
}

void Lowering::define(uint32_t id, Value v) {
  if (current_ != nullptr && current_->result_id == id) frames_.back()->types[id] = current_->result_type;
  frames_.back()->values[id] = std::move(v);
}

uint32_t Lowering::type_of(uint32_t id) const {
  const Frame& frame = *frames_.back();
  if (auto it = frame.types.find(id); it != frame.types.end()) return it->second;
  if (auto c = m_.constants.find(id); c != m_.constants.end()) return c->second.type;
  if (auto v = m_.variables.find(id); v != m_.variables.end()) return v->second.pointer_type;
  fail("id " + std::to_string(id) + " has no known type");
}

// ---- static storage ----

uint32_t Lowering::allocate_private(uint32_t size, uint32_t align) {
  private_top_ = align_up(private_top_, std::max(align, 4u));
  const uint32_t offset = private_top_;
  if (uint64_t{private_top_} + size > (64u << 10)) fail("private memory need exceeds 64 KiB per work-item");
  private_top_ += size;
  k_.private_bytes = private_top_;
  return offset;
}

namespace {

// Every id an instruction of `function` or of a function it calls (transitively) names as an
// operand. Literal operands may collide with ids; that only makes the set larger.
std::unordered_set<uint32_t> ids_used_from(const SpirvModule& m, uint32_t function) {
  std::unordered_set<uint32_t> used, visited;
  std::vector<uint32_t> work{function};
  while (!work.empty()) {
    const uint32_t id = work.back();
    work.pop_back();
    if (!visited.insert(id).second) continue;
    auto fn = m.functions.find(id);
    if (fn == m.functions.end()) continue;
    auto scan = [&](const SpirvInstruction& inst) {
      for (uint32_t operand : inst.operands) used.insert(operand);
      if (inst.opcode == Op::OpFunctionCall && !inst.operands.empty()) work.push_back(inst.operands[0]);
    };
    for (const SpirvInstruction& var : fn->second.variables) scan(var);
    for (const SpirvBlock& block : fn->second.blocks)
      for (const SpirvInstruction& inst : block.instructions) scan(inst);
  }
  return used;
}

// Built-ins whose value depends on the NDRange as a whole, not only on the work-item's global id
// and its group's shape.
bool describes_the_ndrange(spv::BuiltIn builtin) {
  switch (builtin) {
    case spv::BuiltIn::WorkgroupId: case spv::BuiltIn::NumWorkgroups: case spv::BuiltIn::GlobalSize:
    case spv::BuiltIn::GlobalOffset: case spv::BuiltIn::GlobalLinearId:
      return true;
    default: return false;
  }
}

}  // namespace

void Lowering::allocate_static_variables(uint32_t entry_function) {
  // __local variables are per kernel: only those the kernel (or what it calls) uses take space in
  // its group's local memory, not every kernel's of the module.
  const std::unordered_set<uint32_t> used = ids_used_from(m_, entry_function);
  for (uint32_t id : m_.variable_order) {
    const SpirvVariable& var = m_.variables.at(id);
    const SpirvType& ptr = type(var.pointer_type);
    if (var.storage == spv::StorageClass::Input) {
      const SpirvDecorations* d = m_.decoration(id);
      if (d == nullptr || !d->builtin) fail("input variable " + std::to_string(id) + " is not a built-in");
      builtins_[id] = BuiltinRef{*d->builtin, -1};
      if (used.count(id) && describes_the_ndrange(*d->builtin)) k_.reads_ndrange_shape = true;
    } else if (var.storage == spv::StorageClass::Workgroup) {
      if (!used.count(id)) continue;
      const uint32_t align = align_of(ptr.element);
      k_.static_local_bytes = align_up(k_.static_local_bytes, align);
      static_offsets_[id] = k_.static_local_bytes;
      if (uint64_t{k_.static_local_bytes} + size_of(ptr.element) > (1u << 20)) fail("__local variables exceed 1 MiB");
      k_.static_local_bytes += size_of(ptr.element);
    } else if (var.storage == spv::StorageClass::UniformConstant && var.initializer != 0) {
      const uint32_t align = std::max(align_of(ptr.element), 4u);
      k_.constant_data_align = std::max(k_.constant_data_align, align);
      const uint32_t size = size_of(ptr.element);
      const uint32_t offset = align_up(static_cast<uint32_t>(k_.constant_data.size()), align);
      if (uint64_t{offset} + size > (16u << 20)) fail("__constant data exceeds 16 MiB");
      k_.constant_data.resize(offset + size, 0);
      std::vector<uint64_t> bits;
      std::vector<Leaf> layout;
      constant_bits(*this, var.initializer, &bits);
      leaves(ptr.element, 0, &layout);
      if (bits.size() != layout.size()) fail("initializer of variable " + std::to_string(id) + " does not match its type");
      for (size_t i = 0; i < layout.size(); ++i) {
        const uint32_t bytes = size_of(layout[i].type);
        std::memcpy(&k_.constant_data[offset + layout[i].offset], &bits[i], std::min<uint32_t>(bytes, 8));
      }
      static_offsets_[id] = offset;
    }
  }
}

// ---- the kernel ----

namespace {

// False for argument types the code generator has no ABI for (pointers to other address spaces,
// events, queues, pipes).
bool arg_kind_for(const SpirvType& t, const SpirvDecorations* d, ArgKind* kind) {
  if (t.kind == TypeKind::kPointer) {
    switch (t.storage) {
      case spv::StorageClass::CrossWorkgroup: *kind = ArgKind::kGlobalPointer; return true;
      case spv::StorageClass::UniformConstant: *kind = ArgKind::kConstantPointer; return true;
      case spv::StorageClass::Workgroup: *kind = ArgKind::kLocalPointer; return true;
      case spv::StorageClass::Function:
        *kind = ArgKind::kStruct;
        return d != nullptr && std::find(d->param_attrs.begin(), d->param_attrs.end(),
                                         spv::FunctionParameterAttribute::ByVal) != d->param_attrs.end();
      default: return false;
    }
  }
  if (t.kind == TypeKind::kOpaque) {
    // Images and samplers are 8-byte handles (docs/compiler.md, "Images and samplers"): an
    // IMAGE_DESC VA, a SAMPLER_STATE word zero-extended.
    if (t.opaque == spv::Op::OpTypeSampler) *kind = ArgKind::kSampler;
    else if (t.opaque == spv::Op::OpTypeImage) *kind = ArgKind::kImage;
    else return false;
    return true;
  }
  *kind = t.kind == TypeKind::kStruct || t.kind == TypeKind::kArray ? ArgKind::kStruct : ArgKind::kScalar;
  return true;
}

// An image parameter's dimension and access qualifier, from its OpTypeImage operands (sampled
// type, Dim, Depth, Arrayed, MS, Sampled, Format, Access Qualifier). Unknown shapes stay kNone.
void describe_image_arg(const SpirvType& t, ArgInfo* info) {
  const std::vector<uint32_t>& ops = t.opaque_operands;
  if (ops.size() < 7) return;
  const bool arrayed = ops[3] != 0;
  switch (static_cast<spv::Dim>(ops[1])) {
    case spv::Dim::Dim1D: info->image_dim = arrayed ? ImageDim::k1DArray : ImageDim::k1D; break;
    case spv::Dim::Dim2D: info->image_dim = arrayed ? ImageDim::k2DArray : ImageDim::k2D; break;
    case spv::Dim::Dim3D: info->image_dim = arrayed ? ImageDim::kNone : ImageDim::k3D; break;
    case spv::Dim::Buffer: info->image_dim = arrayed ? ImageDim::kNone : ImageDim::k1DBuffer; break;
    default: break;
  }
  // OpenCL's default for an image parameter without a qualifier is __read_only.
  info->image_access = ImageAccess::kReadOnly;
  if (ops.size() > 7) {
    switch (static_cast<spv::AccessQualifier>(ops[7])) {
      case spv::AccessQualifier::WriteOnly: info->image_access = ImageAccess::kWriteOnly; break;
      case spv::AccessQualifier::ReadWrite: info->image_access = ImageAccess::kReadWrite; break;
      default: break;
    }
  }
}

Opcode global_load_for(uint32_t bytes) {
  switch (bytes) {
    case 1: return Opcode::global_load_u8;
    case 2: return Opcode::global_load_u16;
    case 8: return Opcode::global_load_b64;
    default: return Opcode::global_load_b32;
  }
}

}  // namespace

MOperand Lowering::scalar_argument(Opcode op, unsigned bits, MOperand arg_ptr, uint32_t offset) {
  if (arg_ptr.kind != MOperand::Kind::kRaw) return {};
  uint32_t reg = next_sreg_;
  if (bits == 64) reg = (reg + 1) / 2 * 2;  // pairs start at an even register
  const uint32_t end = reg + (bits == 64 ? 2 : 1);
  if (end > scalar_budget_) return {};
  next_sreg_ = end;
  k_.scalar_registers = std::max(k_.scalar_registers, end);
  const MOperand dst = MOperand::raw(isa::sreg(reg));
  emit_to(op, dst, arg_ptr, {}, {}, static_cast<int32_t>(offset));
  return dst;
}

void Lowering::lower_prologue(const SpirvFunction& kernel, std::vector<Value>* args) {
  // Layout first, so that the hidden fields' offsets are known.
  uint32_t offset = 0;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const uint32_t param = kernel.params[i];
    const SpirvType& t = type(kernel.param_types[i]);
    ArgInfo info;
    if (!arg_kind_for(t, m_.decoration(param), &info.kind))
      fail("argument " + std::to_string(i) + " has a type the code generator does not support as a kernel argument (" +
           (t.kind == TypeKind::kPointer ? "pointer to storage class " + std::to_string(static_cast<unsigned>(t.storage))
                                         : opcode_name(t.opaque)) + ")");
    if (auto name = m_.names.find(param); name != m_.names.end()) info.name = name->second;
    if (info.kind == ArgKind::kImage) describe_image_arg(t, &info);
    if (info.kind == ArgKind::kGlobalPointer || info.kind == ArgKind::kConstantPointer ||
        info.kind == ArgKind::kLocalPointer || info.kind == ArgKind::kSampler || info.kind == ArgKind::kImage) {
      info.size = info.alignment = 8;
      if (info.kind == ArgKind::kLocalPointer) {
        const SpirvType& pointee = type(t.element);
        info.local_alignment = pointee.kind == TypeKind::kVoid ? 16 : std::max(align_of(t.element), 4u);
      }
    } else {
      const uint32_t value_type = info.kind == ArgKind::kStruct && t.kind == TypeKind::kPointer ? t.element
                                                                                                : kernel.param_types[i];
      info.size = std::max(size_of(value_type), 4u);
      info.alignment = std::max(align_of(value_type), 4u);
    }
    offset = align_up(offset, info.alignment);
    info.offset = offset;
    offset += info.size;
    k_.args.push_back(info);
  }
  k_.work_dim_offset = align_up(offset, 4);
  offset = k_.work_dim_offset + 4;
  k_.constant_data_offset = align_up(offset, k_.constant_data_align);
  k_.arg_buffer_size = k_.constant_data.empty() ? offset
                                                : k_.constant_data_offset + static_cast<uint32_t>(k_.constant_data.size());

  // The argument-buffer pointer and the arguments go to scalar registers while the budget lasts
  // (one s_load per warp instead of one load per lane, and vector instructions read them as VS
  // operands); the rest are loaded per lane as before.
  scalar_budget_ = std::min(scalar_budget_, isa::kNumScalarRegs);
  MOperand arg_ptr;
  if (scalar_budget_ >= 2) {
    arg_ptr = MOperand::raw(isa::sreg(0));
    emit_to(Opcode::s_special, arg_ptr, {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr));
    next_sreg_ = 2;
    k_.scalar_registers = 2;
  } else {
    arg_ptr = MOperand::vreg(emit(Opcode::v_special, 64, {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr)));
  }
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ArgInfo& info = k_.args[i];
    const SpirvType& t = type(kernel.param_types[i]);
    Value v;
    if (info.kind == ArgKind::kStruct && t.kind == TypeKind::kPointer) {
      // By-value struct: the callee sees a private copy.
      const uint32_t size = size_of(t.element);
      const uint32_t copy_at = allocate_private(size, std::max(align_of(t.element), 4u));
      for (uint32_t at = 0; at < size; at += 4) {
        const uint32_t word = emit(Opcode::global_load_b32, 32, arg_ptr, {}, {}, static_cast<int32_t>(info.offset + at));
        emit_store(Opcode::private_store_b32, MOperand::literal(0), MOperand::vreg(word), static_cast<int32_t>(copy_at + at));
      }
      v.parts.push_back(MOperand::literal(copy_at));
    } else {
      // Scalars, vectors, pointers; images (the IMAGE_DESC VA) and samplers (the SAMPLER_STATE
      // word in the low half) are one 8-byte leaf.
      std::vector<Leaf> layout;
      leaves(kernel.param_types[i], 0, &layout);
      for (const Leaf& leaf : layout) {
        const uint32_t bytes = size_of(leaf.type);
        const unsigned bits = reg_bits(leaf.type);
        const auto at = static_cast<uint32_t>(info.offset + leaf.offset);
        // 4- and 8-byte leaves only: narrower ones (components of a char4, …) need the u8/u16
        // loads' extension, which s_load has not.
        MOperand part;
        if ((bytes == 4 || bytes == 8) && bytes * 8 == bits)
          part = scalar_argument(bits == 64 ? Opcode::s_load_b64 : Opcode::s_load_b32, bits, arg_ptr, at);
        if (part.kind == MOperand::Kind::kNone)
          part = MOperand::vreg(emit(global_load_for(bytes), bits, arg_ptr, {}, {}, static_cast<int32_t>(at)));
        v.parts.push_back(part);
      }
    }
    args->push_back(std::move(v));
  }
  for (const auto& [id, ref] : builtins_)
    if (ref.builtin == spv::BuiltIn::WorkDim)
      if ((work_dim_ = scalar_argument(Opcode::s_load_b32, 32, arg_ptr, k_.work_dim_offset)).kind == MOperand::Kind::kNone)
        work_dim_ = MOperand::vreg(emit(Opcode::global_load_b32, 32, arg_ptr, {}, {}, static_cast<int32_t>(k_.work_dim_offset)));
  if (!k_.constant_data.empty())
    const_data_base_ = MOperand::vreg(emit(Opcode::v_add_u64, 64, arg_ptr, MOperand::literal(k_.constant_data_offset)));
}

void Lowering::lower_kernel(const SpirvEntryPoint& entry) {
  kernel_name_ = entry.name;
  if (m_.addressing_model != static_cast<uint32_t>(spv::AddressingModel::Physical64))
    fail("the module must use the Physical64 addressing model (compile for spir64)");
  auto fn = m_.functions.find(entry.function);
  if (fn == m_.functions.end() || fn->second.blocks.empty()) fail("the entry point has no body");
  f_.entry = f_.new_block("prologue");
  f_.exit = f_.new_block("exit");
  f_.blocks[f_.exit].term.kind = MTerminator::Kind::kEnd;
  current_block_ = f_.entry;
  allocate_static_variables(entry.function);
  std::vector<Value> args;
  lower_prologue(fn->second, &args);
  lower_function(fn->second, args, f_.exit, nullptr);
}

uint32_t Lowering::block_for(uint32_t label) {
  auto& blocks = frames_.back()->first_block;
  auto it = blocks.find(label);
  if (it == blocks.end()) fail("branch to " + std::to_string(label) + ", which is not a block of this function");
  return it->second;
}

void Lowering::lower_function(const SpirvFunction& fn, const std::vector<Value>& args, uint32_t return_block,
                              Value* return_value) {
  if (inline_depth_ >= kMaxInlineDepth) fail("calls nest deeper than " + std::to_string(kMaxInlineDepth) + " (recursion?)");
  if (fn.params.size() != args.size()) fail("call with " + std::to_string(args.size()) + " arguments to a function of " +
                                            std::to_string(fn.params.size()));
  ++inline_depth_;
  Frame frame;
  frame.fn = &fn;
  frame.return_block = return_block;
  frame.return_value = return_value;
  frames_.push_back(&frame);
  for (size_t i = 0; i < args.size(); ++i) {
    frame.values[fn.params[i]] = args[i];
    frame.types[fn.params[i]] = fn.param_types[i];
  }
  if (f_.blocks.size() + fn.blocks.size() > kMaxBlocks) fail("the kernel is too large after inlining");
  const std::string name = m_.names.count(fn.id) ? m_.names.at(fn.id) : std::to_string(fn.id);
  for (const SpirvBlock& block : fn.blocks) {
    if (frame.first_block.count(block.label)) fail("block label " + std::to_string(block.label) + " defined twice");
    frame.first_block[block.label] = f_.new_block(name + " %" + std::to_string(block.label));
  }
  // Private variables (with their initializers) are set up where the call happens.
  for (const SpirvInstruction& var : fn.variables) {
    current_ = &var;
    const SpirvType& ptr = type(var.result_type);
    if (graphics()) {  // graphics shaders have no private memory: the variable lives in registers
      define(var.result_id, new_register_variable(var.result_id, ptr.element, spv::StorageClass::Function));
      if (var.operands.size() > 1) register_store(register_pointers_.back(), value(var.operands[1]));
      continue;
    }
    const uint32_t at = allocate_private(size_of(ptr.element), align_of(ptr.element));
    Value pointer;
    pointer.parts.push_back(MOperand::literal(at));
    define(var.result_id, pointer);
    if (var.operands.size() > 1) store(var.result_type, MOperand::literal(0), value(var.operands[1]), ptr.element, static_cast<int32_t>(at));
  }
  f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {frame.first_block[fn.blocks[0].label], 0}};
  // Definitions must be lowered before their uses; module order need not give that (LLVM may
  // place a loop's exit block before the loop body that defines what it reads), but every
  // dominator comes before what it dominates in reverse postorder.
  for (size_t index : reverse_postorder(fn)) {
    const SpirvBlock& block = fn.blocks[index];
    current_block_ = frame.first_block[block.label];
    lower_block(block);
  }
  lower_phis();
  frames_.pop_back();
  --inline_depth_;
}

std::vector<size_t> Lowering::reverse_postorder(const SpirvFunction& fn) const {
  std::unordered_map<uint32_t, size_t> index_of;
  for (size_t i = 0; i < fn.blocks.size(); ++i) index_of[fn.blocks[i].label] = i;
  // OpSwitch's case literals are one or two words wide, as its selector's type says.
  auto is_wide_selector = [&](uint32_t id) {
    uint32_t type_id = 0;
    if (auto c = m_.constants.find(id); c != m_.constants.end()) type_id = c->second.type;
    for (size_t i = 0; i < fn.params.size() && type_id == 0; ++i)
      if (fn.params[i] == id) type_id = fn.param_types[i];
    for (const SpirvBlock& b : fn.blocks)
      for (const SpirvInstruction& inst : b.instructions)
        if (type_id == 0 && inst.result_id == id) type_id = inst.result_type;
    return type_id != 0 && int_width(scalar_of(type_id)) == 64;
  };
  auto successors = [&](size_t b) {
    std::vector<size_t> out;
    const auto& insts = fn.blocks[b].instructions;
    if (insts.empty()) return out;
    const SpirvInstruction& t = insts.back();
    auto add = [&](uint32_t label) {
      if (auto it = index_of.find(label); it != index_of.end()) out.push_back(it->second);
    };
    if (t.opcode == Op::OpBranch && !t.operands.empty()) {
      add(t.operands[0]);
    } else if (t.opcode == Op::OpBranchConditional && t.operands.size() >= 3) {
      add(t.operands[1]);
      add(t.operands[2]);
    } else if (t.opcode == Op::OpSwitch && t.operands.size() >= 2) {
      add(t.operands[1]);
      const size_t step = is_wide_selector(t.operands[0]) ? 3 : 2;
      for (size_t i = 2 + step - 1; i < t.operands.size(); i += step) add(t.operands[i]);
    }
    return out;
  };
  std::vector<size_t> postorder;
  std::vector<char> seen(fn.blocks.size(), 0);
  // Iterative DFS: (block, next successor to visit).
  std::vector<std::pair<size_t, std::vector<size_t>>> stack;
  if (!fn.blocks.empty()) {
    seen[0] = 1;
    stack.emplace_back(0, successors(0));
  }
  while (!stack.empty()) {
    auto& [b, succ] = stack.back();
    if (succ.empty()) {
      postorder.push_back(b);
      stack.pop_back();
      continue;
    }
    const size_t next = succ.front();
    succ.erase(succ.begin());
    if (!seen[next]) {
      seen[next] = 1;
      stack.emplace_back(next, successors(next));
    }
  }
  std::vector<size_t> order(postorder.rbegin(), postorder.rend());
  // Unreachable blocks still get lowered (their labels may be named by phis), after the rest.
  for (size_t i = 0; i < fn.blocks.size(); ++i)
    if (!seen[i]) order.push_back(i);
  return order;
}

void Lowering::lower_block(const SpirvBlock& block) {
  if (block.instructions.empty()) fail("block " + std::to_string(block.label) + " has no terminator");
  // Edge copies may write a phi's register directly unless a phi of this block reads another phi
  // of this block (a swap): then every phi goes through a temporary, as a parallel copy needs.
  std::vector<uint32_t> results;
  for (const SpirvInstruction& inst : block.instructions)
    if (inst.opcode == Op::OpPhi) results.push_back(inst.result_id);
  block_phis_need_temps_ = false;
  for (const SpirvInstruction& inst : block.instructions) {
    if (inst.opcode != Op::OpPhi) continue;
    for (size_t i = 0; i < inst.operands.size(); i += 2)
      if (std::find(results.begin(), results.end(), inst.operands[i]) != results.end()) block_phis_need_temps_ = true;
  }
  for (size_t i = 0; i + 1 < block.instructions.size(); ++i) {
    current_ = &block.instructions[i];
    lower_instruction(block.instructions[i]);
  }
  current_ = &block.instructions.back();
  const size_t before = f_.blocks.size();
  const uint32_t terminator_block = current_block_;
  lower_terminator(block.instructions.back());
  // The SPIR-V block's edges leave from the block the terminator started in (an OpSwitch's first
  // case branches from there), the block it ended in and any block it made in between.
  auto& edges = frames_.back()->edge_blocks[block.label];
  edges.push_back(terminator_block);
  if (current_block_ != terminator_block && current_block_ < before) edges.push_back(current_block_);
  for (size_t b = before; b < f_.blocks.size(); ++b) edges.push_back(static_cast<uint32_t>(b));
}

void Lowering::lower_terminator(const SpirvInstruction& inst) {
  Frame& frame = *frames_.back();
  auto jump = [&](uint32_t block) { f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {block, 0}}; };
  switch (inst.opcode) {
    case Op::OpBranch: jump(block_for(operand_id(inst, 0))); return;
    case Op::OpBranchConditional: {
      const uint32_t t = block_for(operand_id(inst, 1)), e = block_for(operand_id(inst, 2));
      const MOperand cond = value(operand_id(inst, 0)).parts.at(0);
      if (t == e) return jump(t);
      if (cond.is_literal()) return jump(cond.value != 0 ? t : e);
      f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kBranch, in_register(cond, 32), {t, e}};
      return;
    }
    case Op::OpSwitch: {
      const uint32_t selector_id = operand_id(inst, 0);
      const Value selector = value(selector_id);
      const uint32_t default_block = block_for(operand_id(inst, 1));
      const bool wide = int_width(scalar_of(type_of(selector_id))) == 64;
      const size_t step = wide ? 3 : 2;
      if ((inst.operands.size() - 2) % step != 0) fail("case list does not match the selector width");
      for (size_t i = 2; i < inst.operands.size(); i += step) {
        const uint64_t literal = wide ? (inst.operands[i] | uint64_t{inst.operands[i + 1]} << 32) : inst.operands[i];
        const uint32_t target = block_for(inst.operands[i + step - 1]);
        const MOperand equal = wide ? MOperand::vreg(emit(Opcode::v_cmp_eq_u64, 32, selector.parts[0], constant64(literal)))
                                    : MOperand::vreg(emit(Opcode::v_cmp_eq_u32, 32, selector.parts[0], MOperand::literal(static_cast<uint32_t>(literal))));
        const uint32_t next = f_.new_block("switch case");
        f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kBranch, equal, {target, next}};
        current_block_ = next;
      }
      jump(default_block);
      return;
    }
    case Op::OpReturn: jump(frame.return_block); return;
    case Op::OpReturnValue: {
      const Value& v = value(operand_id(inst, 0));
      if (frame.return_value == nullptr || v.parts.size() != frame.return_value->parts.size())
        fail("return value does not match the function's return type");
      for (size_t i = 0; i < v.parts.size(); ++i) copy(frame.return_value->parts[i].value, v.parts[i]);
      jump(frame.return_block);
      return;
    }
    case Op::OpKill: case Op::OpTerminateInvocation:
      // In a fragment shader the lanes are discarded: v_kill ends them and nothing is merged.
      if (stage_ == ShaderStage::kFragment) emit_to(Opcode::v_kill, MOperand{});
      else if (graphics()) fail("discard outside a fragment shader");
      jump(f_.exit);
      return;
    case Op::OpUnreachable: jump(f_.exit); return;
    default: fail("the block does not end in a terminator");
  }
}

void Lowering::lower_phis() {
  Frame& frame = *frames_.back();
  std::map<std::pair<uint32_t, int>, uint32_t> edge_block;  // (block, successor slot) -> edge block
  for (const Frame::PendingPhi& phi : frame.phis) {
    current_ = phi.inst;
    const uint32_t target = frame.first_block.at(phi.block_label);
    const auto& ops = phi.inst->operands;
    if (ops.size() % 2 != 0) fail("operands are not (value, parent) pairs");
    for (size_t i = 0; i < ops.size(); i += 2) {
      auto edges = frame.edge_blocks.find(ops[i + 1]);
      if (edges == frame.edge_blocks.end()) fail("parent " + std::to_string(ops[i + 1]) + " is not a block of this function");
      for (uint32_t from : edges->second) {
        for (int slot = 0; slot < 2; ++slot) {
          MTerminator& term = f_.blocks[from].term;
          if (term.kind == MTerminator::Kind::kEnd || (term.kind == MTerminator::Kind::kJump && slot == 1)) continue;
          uint32_t copy_block = from;
          if (term.kind == MTerminator::Kind::kBranch) {
            auto key = std::make_pair(from, slot);
            auto it = edge_block.find(key);
            if (it != edge_block.end()) {
              copy_block = it->second;
            } else {
              if (term.successors[slot] != target) continue;
              copy_block = f_.new_block("phi edge");
              f_.blocks[copy_block].term = MTerminator{MTerminator::Kind::kJump, {}, {target, 0}};
              f_.blocks[from].term.successors[slot] = copy_block;
              edge_block[key] = copy_block;
            }
            if (f_.blocks[copy_block].term.successors[0] != target) continue;
          } else if (term.successors[0] != target) {
            continue;
          }
          current_block_ = copy_block;
          const Value incoming = value(ops[i]);
          if (incoming.parts.size() != phi.temps.size()) fail("incoming value does not match the phi's type");
          for (size_t c = 0; c < incoming.parts.size(); ++c) copy(phi.temps[c], incoming.parts[c]);
        }
      }
    }
  }
}

void Lowering::lower_call(const SpirvInstruction& inst) {
  const uint32_t callee_id = operand_id(inst, 0);
  auto callee = m_.functions.find(callee_id);
  const std::string name = m_.names.count(callee_id) ? m_.names.at(callee_id) : std::to_string(callee_id);
  if (callee == m_.functions.end() || callee->second.blocks.empty())
    fail("calls " + name + ", which has no body in the module (an OpenCL built-in the compiler does not provide?)");
  std::vector<Value> args;
  for (size_t i = 1; i < inst.operands.size(); ++i) args.push_back(value(inst.operands[i]));
  // A ByVal pointer parameter owns its pointee: the callee may write to it, and the caller's
  // object must not change. The call gets a private copy (the kernel prologue does the same for
  // by-value struct arguments).
  const SpirvFunction& fn = callee->second;
  for (size_t i = 0; i < args.size() && i < fn.params.size(); ++i) {
    const SpirvDecorations* d = m_.decoration(fn.params[i]);
    if (d == nullptr || std::find(d->param_attrs.begin(), d->param_attrs.end(),
                                  spv::FunctionParameterAttribute::ByVal) == d->param_attrs.end())
      continue;
    const uint32_t pointer_type = fn.param_types[i];
    const SpirvType& ptr = type(pointer_type);
    if (ptr.kind != TypeKind::kPointer || ptr.storage != spv::StorageClass::Function)
      fail("ByVal parameter " + std::to_string(i) + " of " + name + " is not a private pointer");
    if (args[i].parts.size() != 1) fail("ByVal argument " + std::to_string(i) + " is not a pointer");
    const uint32_t copy_at = allocate_private(size_of(ptr.element), std::max(align_of(ptr.element), 4u));
    const Value object = load(pointer_type, args[i].parts[0], ptr.element, 0);
    store(pointer_type, MOperand::literal(copy_at), object, ptr.element, 0);
    args[i].parts[0] = MOperand::literal(copy_at);
  }
  Value result;
  if (type(inst.result_type).kind != TypeKind::kVoid) {
    std::vector<Leaf> layout;
    leaves(inst.result_type, 0, &layout);
    for (const Leaf& leaf : layout) result.parts.push_back(MOperand::vreg(f_.new_vreg(reg_bits(leaf.type))));
  }
  const uint32_t continuation = f_.new_block("after call to " + name);
  const SpirvInstruction* saved = current_;
  lower_function(fn, args, continuation, &result);
  current_ = saved;
  current_block_ = continuation;
  if (inst.result_id != 0) define(inst.result_id, result);
}

void Lowering::lower_instruction(const SpirvInstruction& inst) {
  switch (inst.opcode) {
    case Op::OpPhi: {
      Frame& frame = *frames_.back();
      std::vector<Leaf> layout;
      leaves(inst.result_type, 0, &layout);
      Frame::PendingPhi phi{0, &inst, {}};
      for (const auto& [label, block] : frame.first_block)
        if (block == current_block_) phi.block_label = label;
      Value v;
      for (const Leaf& leaf : layout) {
        const unsigned bits = reg_bits(leaf.type);
        const uint32_t result = f_.new_vreg(bits);
        if (block_phis_need_temps_) {
          const uint32_t temp = f_.new_vreg(bits);
          phi.temps.push_back(temp);
          copy(result, MOperand::vreg(temp));
        } else {
          phi.temps.push_back(result);
        }
        v.parts.push_back(MOperand::vreg(result));
      }
      frame.phis.push_back(std::move(phi));
      define(inst.result_id, std::move(v));
      return;
    }
    case Op::OpFunctionCall: lower_call(inst); return;
    case Op::OpUndef: {
      Value v;
      const uint32_t n = component_count(inst.result_type);
      v.parts.assign(n, MOperand::literal(0));
      define(inst.result_id, std::move(v));
      return;
    }
    case Op::OpNop: case Op::OpLine: case Op::OpNoLine: case Op::OpLifetimeStart: case Op::OpLifetimeStop:
    case Op::OpMemoryBarrier: case Op::OpSelectionMerge: case Op::OpLoopMerge:
      return;
    case Op::OpControlBarrier:
      emit_to(Opcode::s_barrier, MOperand{});
      return;
    default: break;
  }
  if (graphics() && (lower_register_access(inst) || lower_shader_arith(inst))) return;
  if (lower_arith(inst) || lower_composite(inst) || lower_conversion(inst) || lower_memory(inst) || lower_extinst(inst) ||
      lower_image(inst))
    return;
  if (opcode_name(inst.opcode).find("Image") != std::string::npos)
    fail("this image instruction is not supported (docs/compiler.md, \"Images and samplers\")");
  fail("unsupported instruction");
}

std::vector<uint32_t> MFunction::successors(uint32_t block) const {
  const MTerminator& t = blocks[block].term;
  switch (t.kind) {
    case MTerminator::Kind::kJump: return {t.successors[0]};
    case MTerminator::Kind::kBranch: return {t.successors[0], t.successors[1]};
    case MTerminator::Kind::kEnd: return {};
  }
  return {};
}

}  // namespace gsgpu::compiler
