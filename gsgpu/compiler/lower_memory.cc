// Loads, stores, address arithmetic, built-in variables, atomics and memory copies. The pointer's
// storage class picks the ISA address space: CrossWorkgroup -> global (64-bit VA), UniformConstant
// -> const, Workgroup -> local and Function -> private (32-bit window offsets).
#include <algorithm>
#include <bit>
#include <optional>

#include "common/checked_math.h"
#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::MemSpace;
using isa::Opcode;
using spv::Op;

namespace {

constexpr uint32_t kMaxCopyBytes = 1u << 16;

MemSpace space_of(spv::StorageClass storage) {
  switch (storage) {
    case spv::StorageClass::CrossWorkgroup: return MemSpace::kGlobal;
    case spv::StorageClass::UniformConstant: return MemSpace::kConstant;
    case spv::StorageClass::PushConstant: return MemSpace::kConstant;  // graphics: the draw's constant buffer
    case spv::StorageClass::Uniform: return MemSpace::kConstant;       // graphics: a uniform buffer
    case spv::StorageClass::StorageBuffer: return MemSpace::kGlobal;   // compute: a storage buffer
    case spv::StorageClass::Workgroup: return MemSpace::kLocal;
    case spv::StorageClass::Function: return MemSpace::kPrivate;
    default: return MemSpace::kNone;
  }
}

Opcode load_opcode(MemSpace space, uint32_t bytes) {
  static constexpr Opcode table[4][4] = {
      {Opcode::global_load_u8, Opcode::global_load_u16, Opcode::global_load_b32, Opcode::global_load_b64},
      {Opcode::const_load_u8, Opcode::const_load_u16, Opcode::const_load_b32, Opcode::const_load_b64},
      {Opcode::local_load_u8, Opcode::local_load_u16, Opcode::local_load_b32, Opcode::local_load_b64},
      {Opcode::private_load_u8, Opcode::private_load_u16, Opcode::private_load_b32, Opcode::private_load_b64},
  };
  const int column = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
  return table[static_cast<int>(space) - 1][column];
}

Opcode store_opcode(MemSpace space, uint32_t bytes) {
  static constexpr Opcode table[3][4] = {
      {Opcode::global_store_b8, Opcode::global_store_b16, Opcode::global_store_b32, Opcode::global_store_b64},
      {Opcode::local_store_b8, Opcode::local_store_b16, Opcode::local_store_b32, Opcode::local_store_b64},
      {Opcode::private_store_b8, Opcode::private_store_b16, Opcode::private_store_b32, Opcode::private_store_b64},
  };
  const int column = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
  const int row = space == MemSpace::kGlobal ? 0 : space == MemSpace::kLocal ? 1 : 2;
  return table[row][column];
}

}  // namespace

// A compute shader's Uniform pointers may be BufferBlock storage buffers (SPIR-V 1.0's form), which
// are written: in compute every Uniform access is global memory (the same mapping, read and write).
MemSpace Lowering::memory_space(spv::StorageClass storage) const {
  if (stage_ == ShaderStage::kCompute && storage == spv::StorageClass::Uniform) return MemSpace::kGlobal;
  return space_of(storage);
}

namespace {

bool is_wide_space(MemSpace space) { return space == MemSpace::kGlobal || space == MemSpace::kConstant; }

isa::SpecialReg first_special(spv::BuiltIn builtin, bool* found) {
  using S = isa::SpecialReg;
  *found = true;
  switch (builtin) {
    case spv::BuiltIn::GlobalInvocationId: return S::kGlobalIdX;
    case spv::BuiltIn::LocalInvocationId: return S::kLocalIdX;
    case spv::BuiltIn::WorkgroupId: return S::kGroupIdX;
    case spv::BuiltIn::WorkgroupSize: case spv::BuiltIn::EnqueuedWorkgroupSize: return S::kLocalSizeX;
    case spv::BuiltIn::NumWorkgroups: return S::kNumGroupsX;
    case spv::BuiltIn::GlobalSize: return S::kGlobalSizeX;
    case spv::BuiltIn::GlobalOffset: return S::kGlobalOffsetX;
    default: *found = false; return S::kCount;
  }
}

}  // namespace

void Lowering::fold_address(MOperand* address, int64_t* offset) const {
  if (address->kind != MOperand::Kind::kVReg) return;
  auto it = address_offsets_.find(address->value);
  if (it == address_offsets_.end()) return;
  const std::optional<int64_t> sum = gsvirt::checked_add_signed(*offset, it->second.second);
  if (!sum) return;
  const int64_t folded = *sum;
  // Leave room for the leaves of a composite after the folded offset.
  if (folded < isa::kMinOffset || folded > isa::kMaxOffset - 4096) return;
  *address = it->second.first;
  *offset = folded;
}

bool Lowering::use_scalar_base(MOperand* address, int64_t* offset, MOperand* base) const {
  if (address->kind != MOperand::Kind::kVReg) return false;
  auto it = scalar_based_.find(address->value);
  if (it == scalar_based_.end()) return false;
  const std::optional<int64_t> sum = gsvirt::checked_add_signed(*offset, it->second.constant);
  if (!sum) return false;
  const int64_t folded = *sum;
  // Leave room for the leaves of a composite after the folded offset.
  if (folded < isa::kMinOffset || folded > isa::kMaxOffset - 4096) return false;
  *address = it->second.offset;
  *offset = folded;
  *base = it->second.base;
  return true;
}

// index * stride as a 64-bit byte offset, made once per block for each (index, stride): the
// cheapest form the index allows — the index itself for stride 1, a shift for a power of two, and a
// widening 32 x 32 multiply for a sign- or zero-extended 32-bit index.
MOperand Lowering::byte_offset(MOperand index, uint32_t index_width, uint32_t stride) {
  if (offsets_block_ != current_block_) {
    block_offsets_.clear();
    offsets_block_ = current_block_;
  }
  const OffsetKey key{index, stride};
  if (auto it = block_offsets_.find(key); it != block_offsets_.end()) return it->second;
  MOperand offset;
  if (index_width != 64) {
    const MOperand narrow = sign_extend32(index, index_width);
    offset = stride == 1 ? MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, narrow))
             : stride <= INT32_MAX ? MOperand::vreg(emit(Opcode::v_mul_wide_i32, 64, narrow, MOperand::literal(stride)))
                                   : MOperand::vreg(emit(Opcode::v_mul_lo_u64, 64, MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, narrow)),
                                                              MOperand::literal(stride)));
  } else if (auto z = index.kind == MOperand::Kind::kVReg ? zero_extended_.find(index.value) : zero_extended_.end();
             z != zero_extended_.end() && stride != 1) {
    offset = MOperand::vreg(emit(Opcode::v_mul_wide_u32, 64, z->second, MOperand::literal(stride)));
  } else if (auto x = index.kind == MOperand::Kind::kVReg ? sign_extended_.find(index.value) : sign_extended_.end();
             x != sign_extended_.end() && stride != 1 && stride <= INT32_MAX) {
    offset = MOperand::vreg(emit(Opcode::v_mul_wide_i32, 64, x->second, MOperand::literal(stride)));
  } else if (stride == 1) {
    offset = index;
  } else if ((stride & (stride - 1)) == 0) {
    offset = MOperand::vreg(emit(Opcode::v_shl_b64, 64, index, MOperand::literal(static_cast<uint32_t>(std::countr_zero(stride)))));
  } else {
    offset = MOperand::vreg(emit(Opcode::v_mul_lo_u64, 64, index, MOperand::literal(stride)));
  }
  block_offsets_[key] = offset;
  return offset;
}

Value Lowering::load(uint32_t pointer_type, MOperand address, uint32_t result_type, int32_t offset_in) {
  int64_t offset = offset_in;
  MOperand scalar_base;
  if (!use_scalar_base(&address, &offset, &scalar_base)) fold_address(&address, &offset);
  const MemSpace space = memory_space(type(pointer_type).storage);
  if (space == MemSpace::kNone)
    fail("load through a pointer in storage class " + std::to_string(static_cast<unsigned>(type(pointer_type).storage)) +
         " (generic or other address spaces are not supported)");
  std::vector<Leaf> layout;
  leaves(result_type, 0, &layout);
  const MOperand base = is_wide_space(space) ? address : low_half(address);
  Value v;
  for (const Leaf& leaf : layout) {
    const uint32_t bytes = size_of(leaf.type);
    const int64_t at = offset + leaf.offset;
    if (at > isa::kMaxOffset || at < isa::kMinOffset) fail("load offset beyond the encodable range");
    v.parts.push_back(MOperand::vreg(emit(load_opcode(space, bytes), bytes == 8 ? 64 : 32, base, {},
                                          is_wide_space(space) ? scalar_base : MOperand{}, static_cast<int32_t>(at))));
  }
  return v;
}

void Lowering::store(uint32_t pointer_type, MOperand address, const Value& v, uint32_t value_type, int32_t offset_in) {
  int64_t offset = offset_in;
  MOperand scalar_base;
  if (!use_scalar_base(&address, &offset, &scalar_base)) fold_address(&address, &offset);
  const MemSpace space = memory_space(type(pointer_type).storage);
  if (space == MemSpace::kNone || space == MemSpace::kConstant)
    fail("store through a pointer in storage class " + std::to_string(static_cast<unsigned>(type(pointer_type).storage)));
  std::vector<Leaf> layout;
  leaves(value_type, 0, &layout);
  if (layout.size() != v.parts.size()) fail("stored value does not match its type");
  const MOperand base = is_wide_space(space) ? address : low_half(address);
  for (size_t i = 0; i < layout.size(); ++i) {
    const uint32_t bytes = size_of(layout[i].type);
    const int64_t at = offset + layout[i].offset;
    if (at > isa::kMaxOffset || at < isa::kMinOffset) fail("store offset beyond the encodable range");
    emit_to(store_opcode(space, bytes), MOperand{}, base, v.parts[i], is_wide_space(space) ? scalar_base : MOperand{},
            static_cast<int32_t>(at));
  }
}

MOperand Lowering::access_chain(const SpirvInstruction& inst, bool has_element) {
  const uint32_t base_id = operand_id(inst, 0);
  const SpirvType& base_type = type(type_of(base_id));
  if (base_type.kind != TypeKind::kPointer) fail("base is not a pointer");
  uint32_t current = base_type.element;
  int64_t constant_offset = 0;
  MOperand address = value(base_id).parts.at(0);
  // p[i] with p in a scalar register: the address is p + i * stride, kept apart (ScalarBased) so
  // that accesses can name p as their scalar base and share the offset.
  const bool wide = base_type.storage == spv::StorageClass::CrossWorkgroup ||
                    base_type.storage == spv::StorageClass::UniformConstant ||
                    base_type.storage == spv::StorageClass::PushConstant ||
                    base_type.storage == spv::StorageClass::Uniform ||
                    base_type.storage == spv::StorageClass::StorageBuffer;
  std::optional<ScalarBased> based;
  auto add_index = [&](uint32_t index_id, uint32_t stride) {
    if (auto c = m_.constants.find(index_id); c != m_.constants.end() && c->second.kind != SpirvConstant::Kind::kComposite) {
      const SpirvType& it = type(c->second.type);
      int64_t index = static_cast<int64_t>(c->second.bits);
      if (it.width == 32) index = static_cast<int32_t>(c->second.bits);
      // The device adds addresses modulo 2^64; so does the folding (a guest's p[0x6188888888888881L]).
      constant_offset = gsvirt::wrapping_add(constant_offset, gsvirt::wrapping_mul(index, stride));
      return;
    }
    MOperand index = value(index_id).parts.at(0);
    const uint32_t index_width = int_width(scalar_of(type_of(index_id)));
    if (wide && address.kind == MOperand::Kind::kRaw && isa::is_sreg(static_cast<uint16_t>(address.value)) &&
        !index.is_literal()) {
      based = ScalarBased{address, byte_offset(index, index_width, stride), 0};
      address = MOperand::vreg(emit(Opcode::v_add_u64, 64, based->offset, based->base));
      return;
    }
    based.reset();  // a second variable index: the general form from here on
    if (index_width != 64)
      index = MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, sign_extend32(index, index_width)));
    if (address.is_literal()) {
      // A window offset known at compile time (a __local or private variable): the product is the
      // address and the offset joins the constant part, which loads and stores fold.
      constant_offset = gsvirt::wrapping_add(constant_offset, static_cast<int32_t>(address.value));
      address = MOperand::vreg(emit(Opcode::v_mul_lo_u64, 64, index, MOperand::literal(stride)));
      return;
    }
    address = MOperand::vreg(emit(Opcode::v_mad_u64, 64, index, MOperand::literal(stride), address));
  };
  size_t next = 1;
  if (has_element) add_index(operand_id(inst, next++), size_of(current));
  for (; next < inst.operands.size(); ++next) {
    const SpirvType& t = type(current);
    const uint32_t index_id = inst.operands[next];
    if (t.kind == TypeKind::kStruct) {
      auto c = m_.constants.find(index_id);
      if (c == m_.constants.end()) fail("struct member index is not a constant");
      uint32_t member_type = 0;
      component_offset(current, static_cast<uint32_t>(c->second.bits), &member_type);
      // A block member with an Offset (explicit layout, e.g. a storage buffer's trailing runtime
      // array, which has no leaves): the decoration is the byte offset.
      const SpirvDecorations* sd = m_.decoration(current);
      if (auto off = sd != nullptr ? sd->member_offsets.find(static_cast<uint32_t>(c->second.bits))
                                   : std::map<uint32_t, uint32_t>::const_iterator{};
          sd != nullptr && off != sd->member_offsets.end()) {
        constant_offset = gsvirt::wrapping_add(constant_offset, int64_t{off->second});
        current = member_type;
        continue;
      }
      std::vector<Leaf> all;
      // The member's byte offset: the first leaf of the member within the struct's layout.
      uint32_t first_component = component_offset(current, static_cast<uint32_t>(c->second.bits), &member_type);
      leaves(current, 0, &all);
      if (component_count(member_type) == 0 || first_component >= all.size()) fail("empty struct member");
      constant_offset = gsvirt::wrapping_add(constant_offset, all[first_component].offset);
      current = member_type;
    } else if (t.kind == TypeKind::kArray || t.kind == TypeKind::kVector) {
      add_index(index_id, t.kind == TypeKind::kArray ? array_stride(current) : size_of(t.element));
      current = t.element;
    } else {
      fail("access chain indexes into a scalar");
    }
  }
  if (address.is_literal()) {
    const int64_t base = static_cast<int32_t>(address.value);
    return constant64(static_cast<uint64_t>(gsvirt::wrapping_add(base, constant_offset)));
  }
  if (based) scalar_based_[address.value] = *based;
  if (constant_offset != 0) {
    const MOperand base = address;
    address = MOperand::vreg(emit(Opcode::v_add_u64, 64, address, constant64(static_cast<uint64_t>(constant_offset))));
    // A scalar register base (a pointer argument) is never written again, so it folds as well.
    if (base.kind == MOperand::Kind::kVReg || base.kind == MOperand::Kind::kRaw)
      address_offsets_[address.value] = {base, constant_offset};
    if (based) scalar_based_[address.value] = ScalarBased{based->base, based->offset, constant_offset};
  }
  return address;
}

uint32_t Lowering::builtin_default(spv::BuiltIn builtin) {
  switch (builtin) {
    case spv::BuiltIn::WorkgroupSize: case spv::BuiltIn::EnqueuedWorkgroupSize: case spv::BuiltIn::NumWorkgroups:
    case spv::BuiltIn::GlobalSize:
      return 1;
    default: return 0;
  }
}

// get_global_linear_id() (OpenCL 2.0, BuiltIn GlobalLinearId): ((gz - oz) * Gy + (gy - oy)) * Gx
// + (gx - ox), from the global ids, sizes and offsets. Unused dimensions read id 0, offset 0 and
// size 1, so one formula serves every work_dim. 64-bit, wrapping (the sizes are the runtime's).
MOperand Lowering::global_linear_id() {
  using S = isa::SpecialReg;
  auto special = [&](S reg) { return MOperand::vreg(emit(Opcode::v_special, 64, {}, {}, {}, static_cast<int32_t>(reg))); };
  auto id_from_offset = [&](int d) {
    return MOperand::vreg(emit(Opcode::v_sub_u64, 64, special(static_cast<S>(static_cast<int>(S::kGlobalIdX) + d)),
                               special(static_cast<S>(static_cast<int>(S::kGlobalOffsetX) + d))));
  };
  MOperand linear = id_from_offset(2);
  for (int d = 1; d >= 0; --d) {
    const MOperand size = special(static_cast<S>(static_cast<int>(S::kGlobalSizeX) + d));
    linear = MOperand::vreg(emit(Opcode::v_mad_u64, 64, linear, size, id_from_offset(d)));
  }
  return linear;
}

// get_local_linear_id() (OpenCL 2.0, BuiltIn LocalInvocationIndex): (lz * Ly + ly) * Lx + lx. A
// group has at most the device's maximum work-group size of items, so 32 bits hold it.
MOperand Lowering::local_linear_id() {
  using S = isa::SpecialReg;
  auto special = [&](S reg) { return MOperand::vreg(emit(Opcode::v_special, 32, {}, {}, {}, static_cast<int32_t>(reg))); };
  MOperand linear = special(S::kLocalIdZ);
  linear = MOperand::vreg(emit(Opcode::v_mad_u32, 32, linear, special(S::kLocalSizeY), special(S::kLocalIdY)));
  return MOperand::vreg(emit(Opcode::v_mad_u32, 32, linear, special(S::kLocalSizeX), special(S::kLocalIdX)));
}

Value Lowering::load_builtin(const BuiltinRef& ref, uint32_t result_type) {
  if (ref.builtin == spv::BuiltIn::WorkDim) return Value{{work_dim_}};
  if (stage_ == ShaderStage::kCompute &&
      (ref.builtin == spv::BuiltIn::WorkgroupId || ref.builtin == spv::BuiltIn::NumWorkgroups))
    return compute_workgroup_id(ref, result_type);
  if (ref.builtin == spv::BuiltIn::GlobalLinearId || ref.builtin == spv::BuiltIn::LocalInvocationIndex) {
    if (ref.component > 0) fail("built-in component out of range");
    const bool global = ref.builtin == spv::BuiltIn::GlobalLinearId;
    MOperand linear = global ? global_linear_id() : local_linear_id();
    const unsigned want_bits = reg_bits(scalar_of(result_type));
    if (global && want_bits == 32) linear = low_half(linear);
    if (!global && want_bits == 64) linear = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, linear));
    return Value{{linear}};
  }
  bool found = false;
  const isa::SpecialReg first = first_special(ref.builtin, &found);
  if (!found) fail("built-in variable " + std::to_string(static_cast<unsigned>(ref.builtin)) + " is not supported");
  const uint32_t scalar = scalar_of(result_type);
  const unsigned want_bits = reg_bits(scalar);
  const int begin = ref.component < 0 ? 0 : ref.component;
  const int count = ref.component < 0 ? static_cast<int>(component_count(result_type)) : 1;
  if (ref.component >= 3) {
    // OpenCL: a dimension index outside [0, get_work_dim()) ... and past 2 gives 1 for sizes, 0
    // for ids and offsets.
    const uint32_t d = builtin_default(ref.builtin);
    return Value{{want_bits == 64 ? constant64(d) : MOperand::literal(d)}};
  }
  if (begin + count > 3) fail("built-in component out of range");
  Value v;
  for (int c = begin; c < begin + count; ++c) {
    const auto special = static_cast<isa::SpecialReg>(static_cast<int>(first) + c);
    const unsigned bits = isa::special_info(special).wide ? 64 : 32;
    MOperand r = MOperand::vreg(emit(Opcode::v_special, bits, {}, {}, {}, static_cast<int32_t>(special)));
    if (bits == 32 && want_bits == 64) r = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, r));
    if (bits == 64 && want_bits == 32) r = low_half(r);
    v.parts.push_back(r);
  }
  return v;
}

MOperand Lowering::atomic(const SpirvInstruction& inst) {
  const uint32_t pointer_id = operand_id(inst, 0);
  const SpirvType& ptr = type(type_of(pointer_id));
  const MemSpace space = memory_space(ptr.storage);
  if (space != MemSpace::kGlobal && space != MemSpace::kLocal) fail("atomic on memory that is neither global nor local");
  const bool wide = reg_bits(inst.result_type) == 64;
  const bool global = space == MemSpace::kGlobal;
  const MOperand address = global ? value(pointer_id).parts.at(0) : low_half(value(pointer_id).parts.at(0));
  auto pick = [&](Opcode g32, Opcode g64, Opcode l32, Opcode l64) { return global ? (wide ? g64 : g32) : (wide ? l64 : l32); };
  MOperand data, compare;
  Opcode op;
  switch (inst.opcode) {
    case Op::OpAtomicIIncrement: case Op::OpAtomicIDecrement:
      data = MOperand::literal(1);
      op = inst.opcode == Op::OpAtomicIIncrement
               ? pick(Opcode::global_atomic_add_u32, Opcode::global_atomic_add_u64, Opcode::local_atomic_add_u32, Opcode::local_atomic_add_u64)
               : pick(Opcode::global_atomic_sub_u32, Opcode::global_atomic_sub_u64, Opcode::local_atomic_sub_u32, Opcode::local_atomic_sub_u64);
      break;
    case Op::OpAtomicCompareExchange: case Op::OpAtomicCompareExchangeWeak:
      data = value(operand_id(inst, 4)).parts.at(0);
      compare = value(operand_id(inst, 5)).parts.at(0);
      op = pick(Opcode::global_atomic_cmpxchg_b32, Opcode::global_atomic_cmpxchg_b64, Opcode::local_atomic_cmpxchg_b32,
                Opcode::local_atomic_cmpxchg_b64);
      break;
    default: {
      data = value(operand_id(inst, 3)).parts.at(0);
      switch (inst.opcode) {
        case Op::OpAtomicExchange: case Op::OpAtomicStore:
          op = pick(Opcode::global_atomic_xchg_b32, Opcode::global_atomic_xchg_b64, Opcode::local_atomic_xchg_b32, Opcode::local_atomic_xchg_b64); break;
        case Op::OpAtomicIAdd: op = pick(Opcode::global_atomic_add_u32, Opcode::global_atomic_add_u64, Opcode::local_atomic_add_u32, Opcode::local_atomic_add_u64); break;
        case Op::OpAtomicISub: op = pick(Opcode::global_atomic_sub_u32, Opcode::global_atomic_sub_u64, Opcode::local_atomic_sub_u32, Opcode::local_atomic_sub_u64); break;
        case Op::OpAtomicSMin: op = pick(Opcode::global_atomic_min_i32, Opcode::global_atomic_min_i64, Opcode::local_atomic_min_i32, Opcode::local_atomic_min_i64); break;
        case Op::OpAtomicSMax: op = pick(Opcode::global_atomic_max_i32, Opcode::global_atomic_max_i64, Opcode::local_atomic_max_i32, Opcode::local_atomic_max_i64); break;
        case Op::OpAtomicUMin: op = pick(Opcode::global_atomic_min_u32, Opcode::global_atomic_min_u64, Opcode::local_atomic_min_u32, Opcode::local_atomic_min_u64); break;
        case Op::OpAtomicUMax: op = pick(Opcode::global_atomic_max_u32, Opcode::global_atomic_max_u64, Opcode::local_atomic_max_u32, Opcode::local_atomic_max_u64); break;
        case Op::OpAtomicAnd: op = pick(Opcode::global_atomic_and_b32, Opcode::global_atomic_and_b64, Opcode::local_atomic_and_b32, Opcode::local_atomic_and_b64); break;
        case Op::OpAtomicOr: op = pick(Opcode::global_atomic_or_b32, Opcode::global_atomic_or_b64, Opcode::local_atomic_or_b32, Opcode::local_atomic_or_b64); break;
        case Op::OpAtomicXor: op = pick(Opcode::global_atomic_xor_b32, Opcode::global_atomic_xor_b64, Opcode::local_atomic_xor_b32, Opcode::local_atomic_xor_b64); break;
        default: fail("unsupported atomic");
      }
    }
  }
  // cmpxchg has no scalar base (its src2 is the compare value).
  MOperand target = address, scalar_base;
  int64_t offset = 0;
  if (global && isa::op_info(op).atomic != isa::AtomicOp::kCmpxchg && use_scalar_base(&target, &offset, &scalar_base))
    return MOperand::vreg(emit(op, wide ? 64 : 32, target, data, scalar_base, static_cast<int32_t>(offset)));
  return MOperand::vreg(emit(op, wide ? 64 : 32, address, data, compare));
}

void Lowering::copy_memory(const SpirvInstruction& inst) {
  const uint32_t target_id = operand_id(inst, 0), source_id = operand_id(inst, 1);
  const uint32_t target_type = type_of(target_id), source_type = type_of(source_id);
  uint64_t size = 0;
  size_t memory_operands = 2;
  if (inst.opcode == Op::OpCopyMemorySized) {
    auto c = m_.constants.find(operand_id(inst, 2));
    if (c == m_.constants.end() || c->second.kind != SpirvConstant::Kind::kScalar) fail("copy size is not a constant");
    size = c->second.bits;
    memory_operands = 3;
  } else {
    size = size_of(type(target_type).element);
  }
  if (size > kMaxCopyBytes) fail("memory copy of " + std::to_string(size) + " bytes (at most 64 KiB)");
  uint32_t align = 1;
  if (inst.operands.size() > memory_operands + 1 && (inst.operands[memory_operands] & 0x2u))
    align = inst.operands[memory_operands + 1];
  const uint32_t unit = align >= 4 && size % 4 == 0 ? 4 : 1;
  const MemSpace from = memory_space(type(source_type).storage), to = memory_space(type(target_type).storage);
  if (from == MemSpace::kNone || to == MemSpace::kNone || to == MemSpace::kConstant) fail("memory copy between unsupported address spaces");
  const MOperand src = value(source_id).parts.at(0), dst = value(target_id).parts.at(0);
  const MOperand src_base = is_wide_space(from) ? in_register(src, 64) : low_half(src);
  const MOperand dst_base = is_wide_space(to) ? in_register(dst, 64) : low_half(dst);
  for (uint32_t at = 0; at < size; at += unit) {
    const uint32_t word = emit(load_opcode(from, unit), 32, src_base, {}, {}, static_cast<int32_t>(at));
    emit_store(store_opcode(to, unit), dst_base, MOperand::vreg(word), static_cast<int32_t>(at));
  }
}

// async_work_group_(strided_)copy: the work-items of the group share the elements round-robin by
// local linear id; wait_group_events is then a barrier, which also makes the copies visible.
void Lowering::async_copy(const SpirvInstruction& inst) {
  const uint32_t dst_id = operand_id(inst, 1), src_id = operand_id(inst, 2);
  const uint32_t count_id = operand_id(inst, 3), stride_id = operand_id(inst, 4);
  const uint32_t dst_type = type_of(dst_id), src_type = type_of(src_id);
  const bool to_local = type(dst_type).storage == spv::StorageClass::Workgroup;
  const uint32_t element = type(dst_type).element;
  const uint32_t element_bytes = size_of(element);
  auto as64 = [&](uint32_t id) {
    const MOperand v = value(id).parts.at(0);
    return int_width(scalar_of(type_of(id))) == 64 ? v : MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, v));
  };
  const MOperand count = in_register(as64(count_id), 64), stride = in_register(as64(stride_id), 64);
  const MOperand dst = in_register(value(dst_id).parts.at(0), 64), src = in_register(value(src_id).parts.at(0), 64);
  auto special = [&](isa::SpecialReg r) { return MOperand::vreg(emit(Opcode::v_special, 32, {}, {}, {}, static_cast<int32_t>(r))); };
  using S = isa::SpecialReg;
  const MOperand size_x = special(S::kLocalSizeX), size_y = special(S::kLocalSizeY), size_z = special(S::kLocalSizeZ);
  MOperand linear = MOperand::vreg(emit(Opcode::v_mad_u32, 32, special(S::kLocalIdZ), size_y, special(S::kLocalIdY)));
  linear = MOperand::vreg(emit(Opcode::v_mad_u32, 32, linear, size_x, special(S::kLocalIdX)));
  const MOperand step32 = MOperand::vreg(emit(Opcode::v_mul_lo_u32, 32, MOperand::vreg(emit(Opcode::v_mul_lo_u32, 32, size_x, size_y)), size_z));
  const MOperand step = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, step32));
  const uint32_t index = f_.new_vreg(64);  // assigned in the preheader and the latch: not SSA
  emit_to(Opcode::v_zext_u64_u32, MOperand::vreg(index), linear);
  const uint32_t header = f_.new_block("async copy loop"), body = f_.new_block("async copy element"),
                 done = f_.new_block("async copy done");
  f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {header, 0}};
  current_block_ = header;
  const MOperand more = MOperand::vreg(emit(Opcode::v_cmp_lt_u64, 32, MOperand::vreg(index), count));
  f_.blocks[header].term = MTerminator{MTerminator::Kind::kBranch, more, {body, done}};
  current_block_ = body;
  const MOperand strided = MOperand::vreg(emit(Opcode::v_mul_lo_u64, 64, MOperand::vreg(index), stride));
  const MOperand src_index = to_local ? strided : MOperand::vreg(index);
  const MOperand dst_index = to_local ? MOperand::vreg(index) : strided;
  const MOperand from = MOperand::vreg(emit(Opcode::v_mad_u64, 64, src_index, MOperand::literal(element_bytes), src));
  const MOperand to = MOperand::vreg(emit(Opcode::v_mad_u64, 64, dst_index, MOperand::literal(element_bytes), dst));
  store(dst_type, to, load(src_type, from, element, 0), element, 0);
  emit_to(Opcode::v_add_u64, MOperand::vreg(index), MOperand::vreg(index), step);
  f_.blocks[body].term = MTerminator{MTerminator::Kind::kJump, {}, {header, 0}};
  current_block_ = done;
  define(inst.result_id, Value{{MOperand::literal(0)}});
}

bool Lowering::lower_memory(const SpirvInstruction& inst) {
  switch (inst.opcode) {
    case Op::OpGroupAsyncCopy: async_copy(inst); return true;
    case Op::OpGroupWaitEvents: emit_to(Opcode::s_barrier, MOperand{}); return true;
    case Op::OpPtrCastToGeneric:
      // Only as an operand that is never dereferenced (wait_group_events' event list): loads and
      // stores through Generic pointers are refused.
      define(inst.result_id, value(operand_id(inst, 0)));
      return true;
    case Op::OpLoad: {
      const uint32_t pointer = operand_id(inst, 0);
      if (auto b = builtins_.find(pointer); b != builtins_.end()) {
        define(inst.result_id, load_builtin(b->second, inst.result_type));
        if (b->second.component < 0) builtin_vectors_[inst.result_id] = b->second.builtin;
        return true;
      }
      define(inst.result_id, load(type_of(pointer), value(pointer).parts.at(0), inst.result_type, 0));
      return true;
    }
    case Op::OpStore: {
      const uint32_t pointer = operand_id(inst, 0), object = operand_id(inst, 1);
      const uint32_t pointer_type = type_of(pointer);
      store(pointer_type, value(pointer).parts.at(0), value(object), type(pointer_type).element, 0);
      return true;
    }
    case Op::OpAccessChain: case Op::OpInBoundsAccessChain: case Op::OpPtrAccessChain: case Op::OpInBoundsPtrAccessChain: {
      const bool has_element = inst.opcode == Op::OpPtrAccessChain || inst.opcode == Op::OpInBoundsPtrAccessChain;
      const uint32_t base = operand_id(inst, 0);
      if (auto b = builtins_.find(base); b != builtins_.end()) {
        // get_global_id(d) at -O0: a chain to one component of the built-in vector.
        const size_t index_at = has_element ? 2 : 1;
        auto c = m_.constants.find(operand_id(inst, index_at));
        if (c == m_.constants.end()) fail("dynamic index into a built-in variable");
        // Out of range (get_global_id(3) at -O0): component 3, which load_builtin answers with the
        // built-in's default.
        builtins_[inst.result_id] = BuiltinRef{b->second.builtin, static_cast<int>(std::min<uint64_t>(c->second.bits, 3))};
        return true;
      }
      define(inst.result_id, Value{{access_chain(inst, has_element)}});
      return true;
    }
    case Op::OpAtomicLoad: {
      const uint32_t pointer = operand_id(inst, 0);
      define(inst.result_id, load(type_of(pointer), value(pointer).parts.at(0), inst.result_type, 0));
      return true;
    }
    case Op::OpAtomicStore: case Op::OpAtomicExchange: case Op::OpAtomicCompareExchange: case Op::OpAtomicCompareExchangeWeak:
    case Op::OpAtomicIIncrement: case Op::OpAtomicIDecrement: case Op::OpAtomicIAdd: case Op::OpAtomicISub:
    case Op::OpAtomicSMin: case Op::OpAtomicUMin: case Op::OpAtomicSMax: case Op::OpAtomicUMax: case Op::OpAtomicAnd:
    case Op::OpAtomicOr: case Op::OpAtomicXor: {
      if (inst.opcode == Op::OpAtomicStore) {
        // No result: the store is an exchange whose old value nobody reads.
        const uint32_t pointer = operand_id(inst, 0);
        const SpirvType& ptr = type(type_of(pointer));
        const Value v = value(operand_id(inst, 3));
        store(type_of(pointer), value(pointer).parts.at(0), v, ptr.element, 0);
        return true;
      }
      define(inst.result_id, Value{{atomic(inst)}});
      return true;
    }
    case Op::OpCopyMemory: case Op::OpCopyMemorySized: copy_memory(inst); return true;
    default: return false;
  }
}

}  // namespace gsgpu::compiler
