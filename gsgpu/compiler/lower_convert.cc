// Conversions between integer widths, floats and pointers, bit casts, and the composite operations
// (extract, insert, construct, shuffle, dynamic component access) on flattened values.
#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;


// A 32-bit conversion result clamped to a narrower integer's range (convert_<char/short>_sat).
MOperand Lowering::clamp_to_narrow_int(MOperand r, uint32_t width, bool is_signed) {
  if (!is_signed) return MOperand::vreg(emit(Opcode::v_min_u32, 32, r, MOperand::literal((1u << width) - 1)));
  const int32_t hi = (1 << (width - 1)) - 1;
  r = MOperand::vreg(emit(Opcode::v_min_i32, 32, r, MOperand::literal(static_cast<uint32_t>(hi))));
  return MOperand::vreg(emit(Opcode::v_max_i32, 32, r, MOperand::literal(static_cast<uint32_t>(-hi - 1))));
}
MOperand Lowering::convert(Op op, uint32_t from, uint32_t to, MOperand v, const SpirvDecorations* d) {
  const bool from_float = is_float(from), to_float = is_float(to);
  const uint32_t wf = from_float ? type(from).width : int_width(from);
  const uint32_t wt = to_float ? type(to).width : int_width(to);
  // Max stands for "no FPRoundingMode decoration": truncation for float -> int, nearest even for
  // int -> float.
  const spv::FPRoundingMode rounding = d != nullptr && d->rounding ? *d->rounding : spv::FPRoundingMode::Max;
  const bool saturate = d != nullptr && d->saturated;
  auto narrow_int = [&](MOperand x) {  // any integer -> wt bits (wt <= 32)
    if (wf == 64) x = low_half(x);  // the low register of the pair: no instruction needed
    return wt < wf ? normalise(x, wt) : x;
  };
  const bool integer_to_integer = op == Op::OpUConvert || op == Op::OpSConvert || op == Op::OpSatConvertSToU ||
                                  op == Op::OpSatConvertUToS;
  if (integer_to_integer && (saturate || op == Op::OpSatConvertSToU || op == Op::OpSatConvertUToS))
    return saturating_integer_convert(op, wf, wt, v);
  switch (op) {
    case Op::OpUConvert:
      if (wt == 64) return wf == 64 ? v : MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, v));
      return narrow_int(v);
    case Op::OpSConvert:
      if (wt <= wf) return narrow_int(v);
      if (wt == 64) return MOperand::vreg(emit(Opcode::v_sext_i64_i32, 64, sign_extend32(v, wf)));
      return normalise(sign_extend32(v, wf), wt);
    case Op::OpConvertPtrToU:
      return wt == 64 ? v : normalise(low_half(v), wt);
    case Op::OpConvertUToPtr:
      return wf == 64 ? v : MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, v));
    case Op::OpConvertFToS: case Op::OpConvertFToU: break;
    case Op::OpConvertSToF: case Op::OpConvertUToF: case Op::OpFConvert: break;
    default: fail("unsupported conversion");
  }
  // Doubles on either side, and 64-bit integers to float in a directed rounding mode: lower_fp64.cc.
  const bool directed = rounding == spv::FPRoundingMode::RTZ || rounding == spv::FPRoundingMode::RTP ||
                        rounding == spv::FPRoundingMode::RTN;
  if ((from_float && wf == 64) || (to_float && wt == 64) ||
      (!from_float && wf == 64 && to_float && wt == 32 && directed))
    return convert_double(op, wf, wt, v, rounding, saturate);
  if (op == Op::OpFConvert) {
    if (wf == 32 && wt == 16 && directed) {
      const uint32_t mode = rounding == spv::FPRoundingMode::RTZ ? 1u : rounding == spv::FPRoundingMode::RTP ? 2u : 3u;
      return MOperand::vreg(emit(Opcode::v_cvt_f16_f32_rm, 32, v, MOperand::literal(mode)));
    }
    if (wf == 32 && wt == 16) return MOperand::vreg(emit(Opcode::v_cvt_f16_f32, 32, v));
    if (wf == 16 && wt == 32) return MOperand::vreg(emit(Opcode::v_cvt_f32_f16, 32, v));
    if (wf == wt) return v;
    fail("conversion between " + std::to_string(wf) + "- and " + std::to_string(wt) + "-bit floats (no double support)");
  }
  if (op == Op::OpConvertFToS || op == Op::OpConvertFToU) {
    if (wf != 32) fail("conversion from a " + std::to_string(wf) + "-bit float (only float is supported)");
    const bool is_signed = op == Op::OpConvertFToS;
    // convert_<int>_rte/rtp/rtn: round in float first; the conversion itself truncates.
    if (rounding == spv::FPRoundingMode::RTE) v = MOperand::vreg(emit(Opcode::v_rndne_f32, 32, v));
    if (rounding == spv::FPRoundingMode::RTP) v = MOperand::vreg(emit(Opcode::v_ceil_f32, 32, v));
    if (rounding == spv::FPRoundingMode::RTN) v = MOperand::vreg(emit(Opcode::v_floor_f32, 32, v));
    if (wt == 64) return MOperand::vreg(emit(is_signed ? Opcode::v_cvt_i64_f32 : Opcode::v_cvt_u64_f32, 64, v));
    MOperand r = MOperand::vreg(emit(is_signed ? Opcode::v_cvt_i32_f32 : Opcode::v_cvt_u32_f32, 32, v));
    if (wt < 32 && saturate) r = clamp_to_narrow_int(r, wt, is_signed);
    return normalise(r, wt);
  }
  // Integer -> float.
  if (wt == 16) fail("conversion to half is only supported through float");
  if (wt != 32) fail("conversion to a " + std::to_string(wt) + "-bit float (only float is supported)");
  const bool is_signed = op == Op::OpConvertSToF;
  if (wf == 64) return MOperand::vreg(emit(is_signed ? Opcode::v_cvt_f32_i64 : Opcode::v_cvt_f32_u64, 32, v));
  if (is_signed) v = sign_extend32(v, wf);
  Opcode c = is_signed ? Opcode::v_cvt_f32_i32 : Opcode::v_cvt_f32_u32;
  if (rounding == spv::FPRoundingMode::RTZ) c = is_signed ? Opcode::v_cvt_f32_i32_rtz : Opcode::v_cvt_f32_u32_rtz;
  if (rounding == spv::FPRoundingMode::RTP) c = is_signed ? Opcode::v_cvt_f32_i32_rtp : Opcode::v_cvt_f32_u32_rtp;
  if (rounding == spv::FPRoundingMode::RTN) c = is_signed ? Opcode::v_cvt_f32_i32_rtn : Opcode::v_cvt_f32_u32_rtn;
  return MOperand::vreg(emit(c, 32, v));
}

// Integer conversions that clamp to the destination's range (convert_<type>_sat, and the
// OpSatConvert instructions). Sources are canonical (8/16-bit zero-extended).
MOperand Lowering::saturating_integer_convert(Op op, uint32_t wf, uint32_t wt, MOperand v) {
  const bool source_signed = op == Op::OpSConvert || op == Op::OpSatConvertSToU;
  const bool dest_signed = op == Op::OpSConvert || op == Op::OpSatConvertUToS;
  // Bounds of the destination, as 64-bit values.
  const int64_t dest_max = dest_signed ? (wt == 64 ? INT64_MAX : (int64_t{1} << (wt - 1)) - 1)
                                       : (wt == 64 ? -1 : static_cast<int64_t>((uint64_t{1} << wt) - 1));
  const int64_t dest_min = dest_signed ? (wt == 64 ? INT64_MIN : -(int64_t{1} << (wt - 1))) : 0;
  if (wf == 64 || wt == 64) {
    // Work in 64 bits.
    MOperand x = v;
    if (wf < 64) x = MOperand::vreg(emit(source_signed ? Opcode::v_sext_i64_i32 : Opcode::v_zext_u64_u32, 64,
                                         source_signed ? sign_extend32(v, wf) : v));
    if (source_signed) {
      if (!(dest_signed && wt == 64)) {
        if (wt < 64 || !dest_signed) x = MOperand::vreg(emit(Opcode::v_max_i64, 64, x, constant64(static_cast<uint64_t>(dest_min))));
        if (wt < 64) x = MOperand::vreg(emit(Opcode::v_min_i64, 64, x, constant64(static_cast<uint64_t>(dest_max))));
      }
    } else if (!(wt == 64 && !dest_signed)) {
      x = MOperand::vreg(emit(Opcode::v_min_u64, 64, x, constant64(static_cast<uint64_t>(dest_max))));
    }
    if (wt == 64) return x;
    return normalise(MOperand::vreg(emit(Opcode::v_trunc_u32_u64, 32, x)), wt);
  }
  MOperand x = source_signed ? sign_extend32(v, wf) : v;
  if (source_signed) {
    if (!(dest_signed && wt >= wf)) {
      x = MOperand::vreg(emit(Opcode::v_max_i32, 32, x, MOperand::literal(static_cast<uint32_t>(dest_min))));
      if (!(wt == 32 && !dest_signed))
        x = MOperand::vreg(emit(Opcode::v_min_i32, 32, x, MOperand::literal(static_cast<uint32_t>(dest_max))));
    }
  } else if (wt < wf || (dest_signed && wt == wf)) {
    x = MOperand::vreg(emit(Opcode::v_min_u32, 32, x, MOperand::literal(static_cast<uint32_t>(dest_max))));
  }
  return normalise(x, wt);
}

namespace {

// A bit field of a flattened value, for bit casts between different component widths.
struct Piece {
  MOperand op;
  uint32_t bits;
};

}  // namespace

bool Lowering::lower_conversion(const SpirvInstruction& inst) {
  const Op op = inst.opcode;
  switch (op) {
    case Op::OpUConvert: case Op::OpSConvert: case Op::OpConvertPtrToU: case Op::OpConvertUToPtr:
    case Op::OpConvertFToS: case Op::OpConvertFToU: case Op::OpConvertSToF: case Op::OpConvertUToF:
    case Op::OpFConvert: case Op::OpSatConvertSToU: case Op::OpSatConvertUToS: {
      const uint32_t source = operand_id(inst, 0);
      const Value v = value(source);
      const uint32_t from = scalar_of(type_of(source)), to = scalar_of(inst.result_type);
      const SpirvDecorations* d = m_.decoration(inst.result_id);
      Value r;
      for (const MOperand& p : v.parts) r.parts.push_back(convert(op, from, to, p, d));
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpBitcast: {
      const uint32_t source = operand_id(inst, 0);
      const Value v = value(source);
      const uint32_t from_type = type_of(source);
      std::vector<Leaf> from_layout, to_layout;
      leaves(from_type, 0, &from_layout);
      leaves(inst.result_type, 0, &to_layout);
      if (size_of(from_type) != size_of(inst.result_type) && component_count(from_type) != component_count(inst.result_type))
        fail("bit cast between types of different sizes");
      auto leaf_bits = [&](const Leaf& l) {
        const SpirvType& t = type(l.type);
        return t.kind == TypeKind::kPointer ? 64u : t.width;
      };
      if (from_layout.size() == to_layout.size() && leaf_bits(from_layout[0]) == leaf_bits(to_layout[0])) {
        define(inst.result_id, v);  // same register shapes: the bits are already where they belong
        return true;
      }
      // Split everything into 32-bit (or narrower) pieces, then regroup.
      std::vector<Piece> pieces;
      for (size_t i = 0; i < v.parts.size(); ++i) {
        const uint32_t bits = leaf_bits(from_layout[i]);
        if (bits == 64) {
          pieces.push_back({low_half(v.parts[i]), 32});
          pieces.push_back({high_half(v.parts[i]), 32});
        } else {
          pieces.push_back({v.parts[i], bits});
        }
      }
      // Narrow pieces -> packed 32-bit words; wide target components take two words.
      std::vector<MOperand> words;
      uint32_t filled = 0;
      MOperand word = MOperand::literal(0);
      for (const Piece& piece : pieces) {
        if (piece.bits == 32) {
          words.push_back(piece.op);
          continue;
        }
        const MOperand shifted = filled == 0 ? piece.op
                                             : MOperand::vreg(emit(Opcode::v_shl_b32, 32, piece.op, MOperand::literal(filled)));
        word = word.is_literal() && word.value == 0 ? shifted : MOperand::vreg(emit(Opcode::v_or_b32, 32, word, shifted));
        filled += piece.bits;
        if (filled == 32) {
          words.push_back(word);
          word = MOperand::literal(0);
          filled = 0;
        }
      }
      if (filled != 0) words.push_back(word);
      Value r;
      size_t next_word = 0;
      uint32_t bit = 0;
      for (const Leaf& leaf : to_layout) {
        const uint32_t bits = leaf_bits(leaf);
        if (next_word >= words.size()) fail("bit cast ran out of source bits");
        if (bits == 64) {
          if (bit != 0 || next_word + 1 >= words.size()) fail("misaligned 64-bit bit cast");
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_pack_b64, 64, words[next_word], words[next_word + 1])));
          next_word += 2;
        } else if (bits == 32) {
          r.parts.push_back(words[next_word++]);
        } else {
          r.parts.push_back(MOperand::vreg(emit(Opcode::v_bfe_u32, 32, words[next_word], MOperand::literal(bit),
                                                in_register(MOperand::literal(bits), 32))));
          bit += bits;
          if (bit == 32) {
            bit = 0;
            ++next_word;
          }
        }
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    default: return false;
  }
}

bool Lowering::lower_composite(const SpirvInstruction& inst) {
  switch (inst.opcode) {
    case Op::OpCompositeExtract: {
      const uint32_t source = operand_id(inst, 0);
      const Value v = value(source);
      uint32_t t = type_of(source);
      if (auto b = builtin_vectors_.find(source);
          b != builtin_vectors_.end() && inst.operands.size() == 2 && inst.operands[1] >= v.parts.size()) {
        // get_global_offset(3) and friends: OpenCL's value for a dimension past 2.
        const uint32_t d = builtin_default(b->second);
        define(inst.result_id, Value{{reg_bits(inst.result_type) == 64 ? constant64(d) : MOperand::literal(d)}});
        return true;
      }
      uint32_t first = 0;
      for (size_t i = 1; i < inst.operands.size(); ++i) {
        uint32_t element = 0;
        first += component_offset(t, inst.operands[i], &element);
        t = element;
      }
      const uint32_t n = component_count(t);
      if (first + n > v.parts.size()) fail("index past the end of the composite");
      define(inst.result_id, Value{{v.parts.begin() + first, v.parts.begin() + first + n}});
      return true;
    }
    case Op::OpCompositeInsert: {
      const Value object = value(operand_id(inst, 0));
      Value v = value(operand_id(inst, 1));
      uint32_t t = inst.result_type;
      uint32_t first = 0;
      for (size_t i = 2; i < inst.operands.size(); ++i) {
        uint32_t element = 0;
        first += component_offset(t, inst.operands[i], &element);
        t = element;
      }
      if (first + object.parts.size() > v.parts.size()) fail("index past the end of the composite");
      for (size_t i = 0; i < object.parts.size(); ++i) v.parts[first + i] = object.parts[i];
      define(inst.result_id, std::move(v));
      return true;
    }
    case Op::OpCompositeConstruct: {
      Value r;
      for (uint32_t part : inst.operands) {
        const Value p = value(part);
        r.parts.insert(r.parts.end(), p.parts.begin(), p.parts.end());
      }
      if (r.parts.size() != component_count(inst.result_type)) fail("constituents do not fill the result type");
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpCopyObject: define(inst.result_id, value(operand_id(inst, 0))); return true;
    case Op::OpVectorShuffle: {
      const Value a = value(operand_id(inst, 0)), b = value(operand_id(inst, 1));
      Value r;
      for (size_t i = 2; i < inst.operands.size(); ++i) {
        const uint32_t index = inst.operands[i];
        if (index == 0xffffffffu) r.parts.push_back(MOperand::literal(0));
        else if (index < a.parts.size()) r.parts.push_back(a.parts[index]);
        else if (index - a.parts.size() < b.parts.size()) r.parts.push_back(b.parts[index - a.parts.size()]);
        else fail("shuffle index " + std::to_string(index) + " is out of range");
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpVectorExtractDynamic: {
      const Value v = value(operand_id(inst, 0));
      const uint32_t index_id = operand_id(inst, 1);
      const MOperand index = value(index_id).parts.at(0);
      const bool wide = int_width(scalar_of(type_of(index_id))) == 64;
      const unsigned bits = reg_bits(inst.result_type);
      MOperand r = v.parts.at(0);
      size_t first = 1;
      if (auto b = builtin_vectors_.find(operand_id(inst, 0)); b != builtin_vectors_.end()) {
        // get_global_id(d) and friends with a run-time d: OpenCL defines d outside 0..2 (1 for
        // sizes, 0 for ids and offsets), which no component of the vector holds.
        const uint32_t d = builtin_default(b->second);
        r = bits == 64 ? constant64(d) : MOperand::literal(d);
        first = 0;
      }
      for (size_t i = first; i < v.parts.size(); ++i) {
        const MOperand hit = MOperand::vreg(emit(wide ? Opcode::v_cmp_eq_u64 : Opcode::v_cmp_eq_u32, 32, index,
                                                 MOperand::literal(static_cast<uint32_t>(i))));
        r = select(hit, v.parts[i], r, bits);
      }
      define(inst.result_id, Value{{r}});
      return true;
    }
    case Op::OpVectorInsertDynamic: {
      Value v = value(operand_id(inst, 0));
      const MOperand component = value(operand_id(inst, 1)).parts.at(0);
      const uint32_t index_id = operand_id(inst, 2);
      const MOperand index = value(index_id).parts.at(0);
      const bool wide = int_width(scalar_of(type_of(index_id))) == 64;
      const unsigned bits = reg_bits(scalar_of(inst.result_type));
      for (size_t i = 0; i < v.parts.size(); ++i) {
        const MOperand hit = MOperand::vreg(emit(wide ? Opcode::v_cmp_eq_u64 : Opcode::v_cmp_eq_u32, 32, index,
                                                 MOperand::literal(static_cast<uint32_t>(i))));
        v.parts[i] = select(hit, component, v.parts[i], bits);
      }
      define(inst.result_id, std::move(v));
      return true;
    }
    default: return false;
  }
}

}  // namespace gsgpu::compiler
