// Arithmetic, logic, compares and selects, component by component. 8/16-bit integers are kept
// zero-extended in 32-bit registers: results that can carry into the upper bits are masked again,
// and signed operations sign-extend their operands first.
#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;

namespace {

struct IntOps {
  Opcode op32, op64;
  bool is_signed;  // sign-extend narrow operands first
  bool renormalise;
};

bool int_ops_for(Op op, IntOps* out) {
  switch (op) {
    case Op::OpIAdd: *out = {Opcode::v_add_u32, Opcode::v_add_u64, false, true}; return true;
    case Op::OpISub: *out = {Opcode::v_sub_u32, Opcode::v_sub_u64, false, true}; return true;
    case Op::OpIMul: *out = {Opcode::v_mul_lo_u32, Opcode::v_mul_lo_u64, false, true}; return true;
    case Op::OpUDiv: *out = {Opcode::v_div_u32, Opcode::v_div_u64, false, false}; return true;
    case Op::OpSDiv: *out = {Opcode::v_div_i32, Opcode::v_div_i64, true, true}; return true;
    case Op::OpUMod: *out = {Opcode::v_rem_u32, Opcode::v_rem_u64, false, false}; return true;
    case Op::OpSRem: *out = {Opcode::v_rem_i32, Opcode::v_rem_i64, true, true}; return true;
    case Op::OpShiftLeftLogical: *out = {Opcode::v_shl_b32, Opcode::v_shl_b64, false, true}; return true;
    case Op::OpShiftRightLogical: *out = {Opcode::v_shr_u32, Opcode::v_shr_u64, false, false}; return true;
    case Op::OpShiftRightArithmetic: *out = {Opcode::v_shr_i32, Opcode::v_shr_i64, true, true}; return true;
    case Op::OpBitwiseAnd: *out = {Opcode::v_and_b32, Opcode::v_and_b64, false, false}; return true;
    case Op::OpBitwiseOr: *out = {Opcode::v_or_b32, Opcode::v_or_b64, false, false}; return true;
    case Op::OpBitwiseXor: *out = {Opcode::v_xor_b32, Opcode::v_xor_b64, false, false}; return true;
    default: return false;
  }
}

Opcode float_op_for(Op op) {
  switch (op) {
    case Op::OpFAdd: return Opcode::v_add_f32;
    case Op::OpFSub: return Opcode::v_sub_f32;
    case Op::OpFMul: return Opcode::v_mul_f32;
    case Op::OpFDiv: return Opcode::v_div_f32;
    default: return Opcode::kCount;
  }
}

struct CompareOps {
  Opcode op32, op64;
  bool is_signed;
};

bool int_compare_for(Op op, CompareOps* out) {
  switch (op) {
    case Op::OpIEqual: *out = {Opcode::v_cmp_eq_u32, Opcode::v_cmp_eq_u64, false}; return true;
    case Op::OpINotEqual: *out = {Opcode::v_cmp_ne_u32, Opcode::v_cmp_ne_u64, false}; return true;
    case Op::OpULessThan: *out = {Opcode::v_cmp_lt_u32, Opcode::v_cmp_lt_u64, false}; return true;
    case Op::OpULessThanEqual: *out = {Opcode::v_cmp_le_u32, Opcode::v_cmp_le_u64, false}; return true;
    case Op::OpUGreaterThan: *out = {Opcode::v_cmp_gt_u32, Opcode::v_cmp_gt_u64, false}; return true;
    case Op::OpUGreaterThanEqual: *out = {Opcode::v_cmp_ge_u32, Opcode::v_cmp_ge_u64, false}; return true;
    case Op::OpSLessThan: *out = {Opcode::v_cmp_lt_i32, Opcode::v_cmp_lt_i64, true}; return true;
    case Op::OpSLessThanEqual: *out = {Opcode::v_cmp_le_i32, Opcode::v_cmp_le_i64, true}; return true;
    case Op::OpSGreaterThan: *out = {Opcode::v_cmp_gt_i32, Opcode::v_cmp_gt_i64, true}; return true;
    case Op::OpSGreaterThanEqual: *out = {Opcode::v_cmp_ge_i32, Opcode::v_cmp_ge_i64, true}; return true;
    case Op::OpLogicalEqual: *out = {Opcode::v_cmp_eq_u32, Opcode::v_cmp_eq_u32, false}; return true;
    case Op::OpLogicalNotEqual: *out = {Opcode::v_cmp_ne_u32, Opcode::v_cmp_ne_u32, false}; return true;
    case Op::OpPtrEqual: *out = {Opcode::v_cmp_eq_u64, Opcode::v_cmp_eq_u64, false}; return true;
    case Op::OpPtrNotEqual: *out = {Opcode::v_cmp_ne_u64, Opcode::v_cmp_ne_u64, false}; return true;
    default: return false;
  }
}

Opcode float_compare_for(Op op) {
  switch (op) {
    case Op::OpFOrdEqual: return Opcode::v_cmp_oeq_f32;
    case Op::OpFOrdNotEqual: return Opcode::v_cmp_one_f32;
    case Op::OpFOrdLessThan: return Opcode::v_cmp_olt_f32;
    case Op::OpFOrdLessThanEqual: return Opcode::v_cmp_ole_f32;
    case Op::OpFOrdGreaterThan: return Opcode::v_cmp_ogt_f32;
    case Op::OpFOrdGreaterThanEqual: return Opcode::v_cmp_oge_f32;
    case Op::OpFUnordEqual: return Opcode::v_cmp_ueq_f32;
    case Op::OpFUnordNotEqual: return Opcode::v_cmp_une_f32;
    case Op::OpFUnordLessThan: return Opcode::v_cmp_ult_f32;
    case Op::OpFUnordLessThanEqual: return Opcode::v_cmp_ule_f32;
    case Op::OpFUnordGreaterThan: return Opcode::v_cmp_ugt_f32;
    case Op::OpFUnordGreaterThanEqual: return Opcode::v_cmp_uge_f32;
    case Op::OpOrdered: return Opcode::v_cmp_ord_f32;
    case Op::OpUnordered: return Opcode::v_cmp_uno_f32;
    default: return Opcode::kCount;
  }
}

}  // namespace

MOperand Lowering::normalise(MOperand v, uint32_t width) {
  if (width >= 32) return v;
  if (width == 1) return MOperand::vreg(emit(Opcode::v_and_b32, 32, v, MOperand::literal(1)));
  return MOperand::vreg(emit(Opcode::v_and_b32, 32, v, MOperand::literal((1u << width) - 1)));
}

MOperand Lowering::sign_extend32(MOperand v, uint32_t width) {
  if (width == 8) return MOperand::vreg(emit(Opcode::v_sext_i32_i8, 32, v));
  if (width == 16) return MOperand::vreg(emit(Opcode::v_sext_i32_i16, 32, v));
  return v;
}

bool Lowering::low_word_mask(uint32_t id) const {
  auto c = m_.constants.find(id);
  return c != m_.constants.end() && c->second.kind == SpirvConstant::Kind::kScalar && c->second.bits == 0xffffffffull;
}

// No bit-reverse instruction: the halves, bytes, nibbles, pairs and bits swap in turn (5 x 5
// instructions), each step ((v >> s) & m) | ((v & m) << s).
MOperand Lowering::reverse_bits_32(MOperand v) {
  static constexpr uint32_t kMasks[] = {0x0000FFFFu, 0x00FF00FFu, 0x0F0F0F0Fu, 0x33333333u, 0x55555555u};
  uint32_t shift = 16;
  for (uint32_t mask : kMasks) {
    const MOperand high = MOperand::vreg(emit(Opcode::v_and_b32, 32, MOperand::vreg(emit(Opcode::v_shr_u32, 32, v,
                                                                                           MOperand::literal(shift))),
                                              MOperand::literal(mask)));
    const MOperand low = MOperand::vreg(emit(Opcode::v_shl_b32, 32, MOperand::vreg(emit(Opcode::v_and_b32, 32, v,
                                                                                         MOperand::literal(mask))),
                                             MOperand::literal(shift)));
    v = MOperand::vreg(emit(Opcode::v_or_b32, 32, high, low));
    shift /= 2;
  }
  return v;
}

MOperand Lowering::int_binary(Op op, uint32_t scalar, MOperand a, MOperand b) {
  IntOps ops;
  int_ops_for(op, &ops);
  const uint32_t width = int_width(scalar);
  if (width == 64) {
    const bool shift = op == Op::OpShiftLeftLogical || op == Op::OpShiftRightLogical || op == Op::OpShiftRightArithmetic;
    return MOperand::vreg(emit(ops.op64, 64, a, shift ? low_half(b) : b));
  }
  if (ops.is_signed) {
    a = sign_extend32(a, width);
    if (op != Op::OpShiftRightArithmetic) b = sign_extend32(b, width);
  }
  MOperand r = MOperand::vreg(emit(ops.op32, 32, a, b));
  return ops.renormalise ? normalise(r, width) : r;
}

MOperand Lowering::compare(Op op, uint32_t scalar, MOperand a, MOperand b) {
  if (Opcode f = float_compare_for(op); f != Opcode::kCount) {
    if (is_float(scalar) && type(scalar).width == 64) return double_compare(op, a, b);
    if (!is_float(scalar) || type(scalar).width != 32) fail("floating-point compare on a type other than float or double");
    return MOperand::vreg(emit(f, 32, a, b));
  }
  CompareOps ops;
  int_compare_for(op, &ops);
  const uint32_t width = int_width(scalar);
  if (width == 64) return MOperand::vreg(emit(ops.op64, 32, a, b));
  if (ops.is_signed) {
    a = sign_extend32(a, width);
    b = sign_extend32(b, width);
  }
  return MOperand::vreg(emit(ops.op32, 32, a, b));
}

bool Lowering::lower_arith(const SpirvInstruction& inst) {
  const Op op = inst.opcode;
  IntOps int_ops;
  CompareOps cmp_ops;
  const bool is_int = int_ops_for(op, &int_ops);
  const bool is_float_op = float_op_for(op) != Opcode::kCount;
  const bool is_compare = int_compare_for(op, &cmp_ops) || float_compare_for(op) != Opcode::kCount;
  const bool is_smod = op == Op::OpSMod;
  if (is_int || is_float_op || is_compare || is_smod) {
    const Value a = value(operand_id(inst, 0));
    const Value b = value(operand_id(inst, 1));
    if (a.parts.size() != b.parts.size()) fail("operands have different component counts");
    // Compares take the operand type; arithmetic the result type.
    const uint32_t scalar = is_compare ? 0 : scalar_of(inst.result_type);
    Value r;
    for (size_t i = 0; i < a.parts.size(); ++i) {
      if (is_compare) {
        r.parts.push_back(compare(op, scalar_of(type_of(operand_id(inst, 0))), a.parts[i], b.parts[i]));
      } else if (is_float_op && is_double(scalar)) {
        r.parts.push_back(double_binary(op, a.parts[i], b.parts[i]));
      } else if (is_float_op) {
        if (type(scalar).kind == TypeKind::kFloat && type(scalar).width == 16)
          fail("half arithmetic (cl_khr_fp16) is not supported; vload_half / vstore_half convert half data");
        if (type(scalar).kind != TypeKind::kFloat || type(scalar).width != 32) fail("only float and double arithmetic is supported");
        r.parts.push_back(MOperand::vreg(emit(float_op_for(op), 32, a.parts[i], b.parts[i])));
      } else if (is_smod) {
        // OpenCL's % on signed values is SRem; SMod (sign of the divisor) only comes from other front ends.
        const MOperand rem = int_binary(Op::OpSRem, scalar, a.parts[i], b.parts[i]);
        const uint32_t width = int_width(scalar);
        const bool wide = width == 64;
        const MOperand fixed = wide ? MOperand::vreg(emit(Opcode::v_add_u64, 64, rem, b.parts[i]))
                                    : normalise(MOperand::vreg(emit(Opcode::v_add_u32, 32, rem, b.parts[i])), width);
        const MOperand sign_differs = wide
            ? MOperand::vreg(emit(Opcode::v_cmp_lt_i64, 32, MOperand::vreg(emit(Opcode::v_xor_b64, 64, rem, b.parts[i])), MOperand::literal(0)))
            : MOperand::vreg(emit(Opcode::v_cmp_lt_i32, 32,
                                  MOperand::vreg(emit(Opcode::v_xor_b32, 32, sign_extend32(rem, width), sign_extend32(b.parts[i], width))),
                                  MOperand::literal(0)));
        const MOperand nonzero = wide ? MOperand::vreg(emit(Opcode::v_cmp_ne_u64, 32, rem, MOperand::literal(0)))
                                      : MOperand::vreg(emit(Opcode::v_cmp_ne_u32, 32, rem, MOperand::literal(0)));
        const MOperand both = MOperand::vreg(emit(Opcode::v_and_b32, 32, sign_differs, nonzero));
        r.parts.push_back(select(both, fixed, rem, wide ? 64 : 32));
      } else if (op == Op::OpBitwiseAnd && int_width(scalar) == 64 && (low_word_mask(operand_id(inst, 1)) ||
                                                                      low_word_mask(operand_id(inst, 0)))) {
        // x & 0xffffffff on 64 bits (how clang writes (size_t)(uint)x): a zero extension, which
        // also lets p[x] use one widening multiply (byte_offset).
        const MOperand x = low_word_mask(operand_id(inst, 1)) ? a.parts[i] : b.parts[i];
        r.parts.push_back(MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, low_half(x))));
      } else {
        r.parts.push_back(int_binary(op, scalar, a.parts[i], b.parts[i]));
      }
    }
    define(inst.result_id, std::move(r));
    return true;
  }
  switch (op) {
    case Op::OpSNegate: case Op::OpNot: case Op::OpFNegate: case Op::OpLogicalNot: {
      const Value a = value(operand_id(inst, 0));
      const uint32_t scalar = scalar_of(inst.result_type);
      const uint32_t width = op == Op::OpFNegate ? 0 : int_width(scalar);
      Value r;
      for (const MOperand& p : a.parts) {
        if (op == Op::OpFNegate && is_double(scalar)) {
          r.parts.push_back(f64_math(isa::MathF64::k_neg, p));
        } else if (op == Op::OpFNegate) {
          if (type(scalar).width != 32) fail("only float and double arithmetic is supported");
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_neg_f32, 32, p)));
        } else if (op == Op::OpLogicalNot) {
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_xor_b32, 32, p, MOperand::literal(1))));
        } else if (width == 64) {
          r.parts.push_back(MOperand::vreg(emit(op == Op::OpNot ? Opcode::v_not_b64 : Opcode::v_neg_i64, 64, p)));
        } else {
          r.parts.push_back(normalise(MOperand::vreg(emit(op == Op::OpNot ? Opcode::v_not_b32 : Opcode::v_neg_i32, 32, p)), width));
        }
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpIAddCarry: case Op::OpISubBorrow: case Op::OpUMulExtended: case Op::OpSMulExtended: {
      // Results are a struct {low part, carry / borrow / high part} of two same-typed members.
      const Value a = value(operand_id(inst, 0)), b = value(operand_id(inst, 1));
      const uint32_t scalar = scalar_of(type_of(operand_id(inst, 0)));
      const uint32_t width = int_width(scalar);
      if (width < 32) fail("extended arithmetic on " + std::to_string(width) + "-bit integers");
      const bool wide = width == 64;
      Value low, high;
      for (size_t i = 0; i < a.parts.size() && i < b.parts.size(); ++i) {
        const MOperand x = a.parts[i], y = b.parts[i];
        switch (op) {
          case Op::OpIAddCarry: {
            const MOperand sum = MOperand::vreg(emit(wide ? Opcode::v_add_u64 : Opcode::v_add_u32, wide ? 64 : 32, x, y));
            MOperand carry = MOperand::vreg(emit(wide ? Opcode::v_cmp_lt_u64 : Opcode::v_cmp_lt_u32, 32, sum, x));
            if (wide) carry = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, carry));
            low.parts.push_back(sum);
            high.parts.push_back(carry);
            break;
          }
          case Op::OpISubBorrow: {
            low.parts.push_back(MOperand::vreg(emit(wide ? Opcode::v_sub_u64 : Opcode::v_sub_u32, wide ? 64 : 32, x, y)));
            MOperand borrow = MOperand::vreg(emit(wide ? Opcode::v_cmp_lt_u64 : Opcode::v_cmp_lt_u32, 32, x, y));
            if (wide) borrow = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, borrow));
            high.parts.push_back(borrow);
            break;
          }
          default: {
            const bool is_signed = op == Op::OpSMulExtended;
            low.parts.push_back(MOperand::vreg(emit(wide ? Opcode::v_mul_lo_u64 : Opcode::v_mul_lo_u32, wide ? 64 : 32, x, y)));
            const Opcode hi = wide ? (is_signed ? Opcode::v_mul_hi_i64 : Opcode::v_mul_hi_u64)
                                   : (is_signed ? Opcode::v_mul_hi_i32 : Opcode::v_mul_hi_u32);
            high.parts.push_back(MOperand::vreg(emit(hi, wide ? 64 : 32, x, y)));
          }
        }
      }
      Value r = low;
      r.parts.insert(r.parts.end(), high.parts.begin(), high.parts.end());
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpBitCount: {
      const uint32_t source = operand_id(inst, 0);
      const Value a = value(source);
      const uint32_t from_width = int_width(scalar_of(type_of(source)));
      const uint32_t to_width = int_width(scalar_of(inst.result_type));
      Value r;
      for (const MOperand& p : a.parts) {
        MOperand count = MOperand::vreg(emit(from_width == 64 ? Opcode::v_popcnt_b64 : Opcode::v_popcnt_b32, 32, p));
        if (to_width == 64) count = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, count));
        r.parts.push_back(count);
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpBitReverse: {  // GLSL bitfieldReverse; NIR also finds it in open-coded swaps (zink)
      const Value a = value(operand_id(inst, 0));
      if (int_width(scalar_of(inst.result_type)) != 32) fail("OpBitReverse of a non-32-bit integer");
      Value r;
      for (const MOperand& p : a.parts) r.parts.push_back(reverse_bits_32(p));
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpLogicalAnd: case Op::OpLogicalOr: {
      const Value a = value(operand_id(inst, 0)), b = value(operand_id(inst, 1));
      Value r;
      for (size_t i = 0; i < a.parts.size() && i < b.parts.size(); ++i)
        r.parts.push_back(MOperand::vreg(emit(op == Op::OpLogicalAnd ? Opcode::v_and_b32 : Opcode::v_or_b32, 32, a.parts[i], b.parts[i])));
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpSelect: {
      const Value c = value(operand_id(inst, 0));
      const Value a = value(operand_id(inst, 1)), b = value(operand_id(inst, 2));
      std::vector<Leaf> layout;
      leaves(inst.result_type, 0, &layout);
      if (a.parts.size() != layout.size() || b.parts.size() != layout.size()) fail("operands do not match the result type");
      Value r;
      for (size_t i = 0; i < layout.size(); ++i) {
        const MOperand cond = c.parts.size() == 1 ? c.parts[0] : c.parts.at(i);
        if (cond.is_literal()) r.parts.push_back(cond.value != 0 ? a.parts[i] : b.parts[i]);
        else r.parts.push_back(select(cond, a.parts[i], b.parts[i], reg_bits(layout[i].type)));
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpIsNan: case Op::OpIsInf: case Op::OpIsFinite: case Op::OpIsNormal: case Op::OpSignBitSet: {
      const Value a = value(operand_id(inst, 0));
      const bool wide = is_double(scalar_of(type_of(operand_id(inst, 0))));
      Value r;
      for (const MOperand& p : a.parts) {
        MOperand out;
        if (wide) out = double_classify(op, p);
        else if (op == Op::OpIsNan) out = MOperand::vreg(emit(Opcode::v_cmp_isnan_f32, 32, p));
        else if (op == Op::OpIsInf) out = MOperand::vreg(emit(Opcode::v_cmp_isinf_f32, 32, p));
        else if (op == Op::OpSignBitSet) out = MOperand::vreg(emit(Opcode::v_shr_u32, 32, p, MOperand::literal(31)));
        else {
          // Finite: exponent not all ones. Normal: exponent neither zero nor all ones.
          const MOperand exponent = MOperand::vreg(emit(Opcode::v_bfe_u32, 32, p, MOperand::literal(23), in_register(MOperand::literal(8), 32)));
          const MOperand not_max = MOperand::vreg(emit(Opcode::v_cmp_ne_u32, 32, exponent, MOperand::literal(255)));
          out = op == Op::OpIsFinite ? not_max
                                     : MOperand::vreg(emit(Opcode::v_and_b32, 32, not_max,
                                                           MOperand::vreg(emit(Opcode::v_cmp_ne_u32, 32, exponent, MOperand::literal(0)))));
        }
        r.parts.push_back(out);
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpAny: case Op::OpAll: {
      const Value a = value(operand_id(inst, 0));
      MOperand acc = a.parts.at(0);
      for (size_t i = 1; i < a.parts.size(); ++i)
        acc = MOperand::vreg(emit(op == Op::OpAny ? Opcode::v_or_b32 : Opcode::v_and_b32, 32, acc, a.parts[i]));
      define(inst.result_id, Value{{acc}});
      return true;
    }
    case Op::OpVectorTimesScalar: {
      const Value v = value(operand_id(inst, 0));
      const MOperand s = value(operand_id(inst, 1)).parts.at(0);
      const bool wide = is_double(scalar_of(inst.result_type));
      Value r;
      for (const MOperand& p : v.parts)
        r.parts.push_back(wide ? f64(Opcode::v_mul_f64, p, s) : MOperand::vreg(emit(Opcode::v_mul_f32, 32, p, s)));
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpDot: {
      const Value a = value(operand_id(inst, 0)), b = value(operand_id(inst, 1));
      if (is_double(inst.result_type)) {
        MOperand acc = f64(Opcode::v_mul_f64, a.parts.at(0), b.parts.at(0));
        for (size_t i = 1; i < a.parts.size() && i < b.parts.size(); ++i)
          acc = f64(Opcode::v_add_f64, acc, f64(Opcode::v_mul_f64, a.parts[i], b.parts[i]));
        define(inst.result_id, Value{{acc}});
        return true;
      }
      MOperand acc = MOperand::vreg(emit(Opcode::v_mul_f32, 32, a.parts.at(0), b.parts.at(0)));
      for (size_t i = 1; i < a.parts.size() && i < b.parts.size(); ++i)
        acc = MOperand::vreg(emit(Opcode::v_mad_f32, 32, a.parts[i], b.parts[i], acc));
      define(inst.result_id, Value{{acc}});
      return true;
    }
    default: return false;
  }
}

}  // namespace gsgpu::compiler
