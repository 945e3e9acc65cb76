// Arithmetic that only graphics shaders use: matrices (held as their columns, column-major), GLSL's
// mod, derivatives, and the GLSL.std.450 extended instructions, most of which mean what an
// OpenCL.std instruction means and reuse its lowering (docs/compiler.md "Graphics shaders").
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/OpenCL.std.h>

#include "gsgpu/compiler/lower.h"
#include "gsgpu/compiler/spirv_names.inc"

namespace gsgpu::compiler {

using isa::Opcode;
using spv::Op;
namespace cl = OpenCLLIB;

namespace {

std::string glsl_name(uint32_t ext) {
  for (const auto& entry : generated::kGlslStd450Names)
    if (entry.code == ext) return std::string("GLSL.std.450 ") + entry.name;
  return "GLSL.std.450 #" + std::to_string(ext);
}

// GLSL.std.450 instructions with an OpenCL.std twin of the same operands and meaning (within
// GLSL's looser precision: the OpenCL forms are at least as accurate).
uint32_t opencl_twin(uint32_t glsl) {
  switch (glsl) {
    case GLSLstd450Round: return cl::Round;
    case GLSLstd450RoundEven: return cl::Rint;
    case GLSLstd450Trunc: return cl::Trunc;
    case GLSLstd450FAbs: return cl::Fabs;
    case GLSLstd450SAbs: return cl::SAbs;
    case GLSLstd450FSign: return cl::Sign;
    case GLSLstd450Floor: return cl::Floor;
    case GLSLstd450Ceil: return cl::Ceil;
    case GLSLstd450Radians: return cl::Radians;
    case GLSLstd450Degrees: return cl::Degrees;
    case GLSLstd450Sin: return cl::Sin;
    case GLSLstd450Cos: return cl::Cos;
    case GLSLstd450Tan: return cl::Tan;
    case GLSLstd450Asin: return cl::Asin;
    case GLSLstd450Acos: return cl::Acos;
    case GLSLstd450Atan: return cl::Atan;
    case GLSLstd450Sinh: return cl::Sinh;
    case GLSLstd450Cosh: return cl::Cosh;
    case GLSLstd450Tanh: return cl::Tanh;
    case GLSLstd450Asinh: return cl::Asinh;
    case GLSLstd450Acosh: return cl::Acosh;
    case GLSLstd450Atanh: return cl::Atanh;
    case GLSLstd450Atan2: return cl::Atan2;
    case GLSLstd450Pow: return cl::Pow;
    case GLSLstd450Exp: return cl::Exp;
    case GLSLstd450Log: return cl::Log;
    case GLSLstd450Exp2: return cl::Exp2;
    case GLSLstd450Log2: return cl::Log2;
    case GLSLstd450Sqrt: return cl::Sqrt;
    case GLSLstd450InverseSqrt: return cl::Rsqrt;
    case GLSLstd450FMin:
    case GLSLstd450NMin: return cl::Fmin;
    case GLSLstd450FMax:
    case GLSLstd450NMax: return cl::Fmax;
    case GLSLstd450UMin: return cl::UMin;
    case GLSLstd450SMin: return cl::SMin;
    case GLSLstd450UMax: return cl::UMax;
    case GLSLstd450SMax: return cl::SMax;
    case GLSLstd450FClamp:
    case GLSLstd450NClamp: return cl::FClamp;
    case GLSLstd450UClamp: return cl::UClamp;
    case GLSLstd450SClamp: return cl::SClamp;
    case GLSLstd450FMix: return cl::Mix;
    case GLSLstd450Step: return cl::Step;
    case GLSLstd450SmoothStep: return cl::Smoothstep;
    case GLSLstd450Fma: return cl::Fma;
    case GLSLstd450Ldexp: return cl::Ldexp;
    case GLSLstd450Length: return cl::Length;
    case GLSLstd450Distance: return cl::Distance;
    case GLSLstd450Cross: return cl::Cross;
    case GLSLstd450Normalize: return cl::Normalize;
    default: return UINT32_MAX;
  }
}

}  // namespace

// GLSL.std.450 leaves Log and Log2 of x <= 0 undefined; at +-0 the OpenCL twins give -inf. The usual
// lowering of pow(x, y) as exp2(y * log2(x)) then makes 0^0 a NaN (-inf * 0), which a later
// multiplication by 0 keeps: Mesa's fixed-function lighting computes a spot light's attenuation as
// (inside the cone ? 1 : 0) * exp2(exponent * log2(|spot|)), so a light with exponent 0 at a vertex
// with spot = 0 turned the whole colour into NaN (piglit gl-1.0-spot-light, black). The most
// negative finite float instead gives exp2(0 * -FLT_MAX) = 1 (C's pow(0, 0)) and, for y > 0,
// exp2(y * -FLT_MAX) = 0 as -inf does; a negative x still gives NaN.
void Lowering::finite_log_of_zero(const SpirvInstruction& inst) {
  Value v = value(inst.result_id);
  for (MOperand& part : v.parts) {
    const MOperand minus_inf = MOperand::vreg(emit(Opcode::v_cmp_oeq_f32, 32, part, MOperand::literal(0xff800000u)));
    part = select(minus_inf, MOperand::literal(0xff7fffffu), part, 32);
  }
  define(inst.result_id, std::move(v));
}

bool Lowering::lower_glsl_extinst(const SpirvInstruction& inst) {
  const uint32_t ext = operand_id(inst, 1);
  const uint32_t result_scalar = scalar_of(inst.result_type);
  if ((ext == GLSLstd450Log || ext == GLSLstd450Log2) && type(result_scalar).kind == TypeKind::kFloat &&
      type(result_scalar).width == 32) {
    if (!lower_opencl_extinst(opencl_twin(ext), inst)) return false;
    finite_log_of_zero(inst);
    return true;
  }
  if (const uint32_t twin = opencl_twin(ext); twin != UINT32_MAX) return lower_opencl_extinst(twin, inst);
  std::vector<Value> args;
  for (size_t i = 2; i < inst.operands.size(); ++i) args.push_back(value(inst.operands[i]));
  const uint32_t scalar = scalar_of(inst.result_type);
  const bool float32 = type(scalar).kind == TypeKind::kFloat && type(scalar).width == 32;
  auto need = [&](size_t n, bool want_float) {
    if (args.size() < n) fail(glsl_name(ext) + ": missing operands");
    if (want_float && !float32) fail(glsl_name(ext) + ": only 32-bit float is supported");
  };
  auto f = [&](Opcode op, MOperand a, MOperand b = {}, MOperand c = {}) {
    return MOperand::vreg(emit(op, 32, a, b, c));
  };
  auto dot = [&](const Value& a, const Value& b) {
    MOperand acc = f(Opcode::v_mul_f32, a.parts.at(0), b.parts.at(0));
    for (size_t i = 1; i < a.parts.size(); ++i) acc = f(Opcode::v_mad_f32, a.parts[i], b.parts.at(i), acc);
    return acc;
  };
  Value r;
  switch (ext) {
    case GLSLstd450Fract:  // x - floor(x), as GLSL defines it
      need(1, true);
      for (const MOperand& x : args[0].parts) r.parts.push_back(f(Opcode::v_sub_f32, x, f(Opcode::v_floor_f32, x)));
      break;
    case GLSLstd450SSign:
      need(1, false);
      if (int_width(scalar) != 32) fail("SSign: only 32-bit integers are supported");
      for (const MOperand& x : args[0].parts) {
        const MOperand negative = f(Opcode::v_cmp_lt_i32, x, MOperand::literal(0));
        const MOperand positive = f(Opcode::v_cmp_gt_i32, x, MOperand::literal(0));
        r.parts.push_back(select(negative, MOperand::literal(0xffffffffu), positive, 32));
      }
      break;
    case GLSLstd450Reflect: {  // I - 2 dot(N, I) N
      need(2, true);
      const MOperand twice = f(Opcode::v_mul_f32, dot(args[1], args[0]), MOperand::literal(0x40000000u));
      for (size_t i = 0; i < args[0].parts.size(); ++i)
        r.parts.push_back(f(Opcode::v_sub_f32, args[0].parts[i], f(Opcode::v_mul_f32, twice, args[1].parts.at(i))));
      break;
    }
    case GLSLstd450FaceForward: {  // dot(Nref, I) < 0 ? N : -N
      need(3, true);
      const MOperand front = f(Opcode::v_cmp_olt_f32, dot(args[2], args[1]), MOperand::literal(0));
      for (const MOperand& n : args[0].parts)
        r.parts.push_back(select(front, n, f(Opcode::v_xor_b32, n, MOperand::literal(0x80000000u)), 32));
      break;
    }
    case GLSLstd450Refract: {  // k = 1 - eta^2 (1 - dot(N, I)^2); k < 0 ? 0 : eta I - (eta dot + sqrt(k)) N
      need(3, true);
      const MOperand d = dot(args[1], args[0]);
      const MOperand eta = args[2].parts.at(0);
      const MOperand one_minus_d2 = f(Opcode::v_sub_f32, MOperand::literal(0x3f800000u), f(Opcode::v_mul_f32, d, d));
      const MOperand k = f(Opcode::v_sub_f32, MOperand::literal(0x3f800000u),
                           f(Opcode::v_mul_f32, f(Opcode::v_mul_f32, eta, eta), one_minus_d2));
      const MOperand negative = f(Opcode::v_cmp_olt_f32, k, MOperand::literal(0));
      const MOperand scale = f(Opcode::v_add_f32, f(Opcode::v_mul_f32, eta, d), f(Opcode::v_sqrt_f32, k));
      for (size_t i = 0; i < args[0].parts.size(); ++i) {
        const MOperand v = f(Opcode::v_sub_f32, f(Opcode::v_mul_f32, eta, args[0].parts[i]),
                             f(Opcode::v_mul_f32, scale, args[1].parts.at(i)));
        r.parts.push_back(select(negative, MOperand::literal(0), v, 32));
      }
      break;
    }
    default: fail(glsl_name(ext) + " is not supported (docs/compiler.md \"Graphics shaders\")");
  }
  define(inst.result_id, std::move(r));
  return true;
}

bool Lowering::lower_shader_arith(const SpirvInstruction& inst) {
  switch (inst.opcode) {
    case Op::OpFMod:
    case Op::OpFRem: {
      // mod: x - y floor(x / y) (GLSL); rem: x - y trunc(x / y).
      const SpirvType& t = type(scalar_of(inst.result_type));
      if (t.kind != TypeKind::kFloat || t.width != 32) fail("only 32-bit float is supported");
      const Value x = value(operand_id(inst, 0)), y = value(operand_id(inst, 1));
      if (x.parts.size() != y.parts.size()) fail("operands have different component counts");
      Value r;
      for (size_t i = 0; i < x.parts.size(); ++i) {
        const MOperand q = MOperand::vreg(emit(Opcode::v_div_f32, 32, x.parts[i], y.parts[i]));
        const MOperand whole =
            MOperand::vreg(emit(inst.opcode == Op::OpFMod ? Opcode::v_floor_f32 : Opcode::v_trunc_f32, 32, q));
        const MOperand product = MOperand::vreg(emit(Opcode::v_mul_f32, 32, y.parts[i], whole));
        r.parts.push_back(MOperand::vreg(emit(Opcode::v_sub_f32, 32, x.parts[i], product)));
      }
      define(inst.result_id, std::move(r));
      return true;
    }
    case Op::OpMatrixTimesScalar:
    case Op::OpMatrixTimesVector:
    case Op::OpVectorTimesMatrix:
    case Op::OpMatrixTimesMatrix:
    case Op::OpTranspose:
    case Op::OpOuterProduct: lower_matrix(inst); return true;
    case Op::OpDPdx:
    case Op::OpDPdy:
    case Op::OpDPdxFine:
    case Op::OpDPdyFine:
    case Op::OpDPdxCoarse:
    case Op::OpDPdyCoarse:
    case Op::OpFwidth:
    case Op::OpFwidthFine:
    case Op::OpFwidthCoarse: lower_derivative(inst); return true;
    case Op::OpDemoteToHelperInvocation: fail("demote to helper invocation is not supported (docs/isa.md §8c)");
    default: return false;
  }
}

// Matrices are their columns' components in order (column-major): element (column c, row r) of a
// matrix with `rows` rows is part c * rows + r. Products are a v_mul_f32 then a v_mad_f32 per term.
void Lowering::lower_matrix(const SpirvInstruction& inst) {
  auto f = [&](Opcode op, MOperand a, MOperand b = {}, MOperand c = {}) {
    return MOperand::vreg(emit(op, 32, a, b, c));
  };
  auto at = [](const Value& m, uint32_t rows, uint32_t c, uint32_t r) { return m.parts.at(size_t{c} * rows + r); };
  auto rows_of = [&](uint32_t matrix_type) {
    const SpirvType& t = type(matrix_type);
    if (!t.matrix) fail("operand is not a matrix");
    return component_count(t.element);
  };
  const SpirvType& result = type(inst.result_type);
  const SpirvType& result_scalar = type(scalar_of(result.kind == TypeKind::kArray ? result.element : inst.result_type));
  if (inst.opcode != Op::OpTranspose && (result_scalar.kind != TypeKind::kFloat || result_scalar.width != 32))
    fail("only 32-bit float matrices are supported");
  const uint32_t a_id = operand_id(inst, 0);
  const Value a = value(a_id);
  Value r;
  switch (inst.opcode) {
    case Op::OpMatrixTimesScalar: {
      const MOperand s = value(operand_id(inst, 1)).parts.at(0);
      for (const MOperand& p : a.parts) r.parts.push_back(f(Opcode::v_mul_f32, p, s));
      break;
    }
    case Op::OpMatrixTimesVector: {  // result[row] = sum over columns of M[col][row] v[col]
      const Value v = value(operand_id(inst, 1));
      const uint32_t rows = rows_of(type_of(a_id)), cols = type(type_of(a_id)).count;
      for (uint32_t row = 0; row < rows; ++row) {
        MOperand acc = f(Opcode::v_mul_f32, at(a, rows, 0, row), v.parts.at(0));
        for (uint32_t c = 1; c < cols; ++c) acc = f(Opcode::v_mad_f32, at(a, rows, c, row), v.parts.at(c), acc);
        r.parts.push_back(acc);
      }
      break;
    }
    case Op::OpVectorTimesMatrix: {  // result[col] = dot(v, column col)
      const uint32_t mt = type_of(operand_id(inst, 1));
      const Value m = value(operand_id(inst, 1));
      const uint32_t rows = rows_of(mt), cols = type(mt).count;
      for (uint32_t c = 0; c < cols; ++c) {
        MOperand acc = f(Opcode::v_mul_f32, a.parts.at(0), at(m, rows, c, 0));
        for (uint32_t row = 1; row < rows; ++row) acc = f(Opcode::v_mad_f32, a.parts.at(row), at(m, rows, c, row), acc);
        r.parts.push_back(acc);
      }
      break;
    }
    case Op::OpMatrixTimesMatrix: {  // column j of A B = A (column j of B)
      const uint32_t bt = type_of(operand_id(inst, 1));
      const Value b = value(operand_id(inst, 1));
      const uint32_t rows = rows_of(type_of(a_id)), inner = type(type_of(a_id)).count, cols = type(bt).count;
      if (rows_of(bt) != inner) fail("matrix shapes do not match");
      for (uint32_t j = 0; j < cols; ++j)
        for (uint32_t row = 0; row < rows; ++row) {
          MOperand acc = f(Opcode::v_mul_f32, at(a, rows, 0, row), at(b, inner, j, 0));
          for (uint32_t k = 1; k < inner; ++k) acc = f(Opcode::v_mad_f32, at(a, rows, k, row), at(b, inner, j, k), acc);
          r.parts.push_back(acc);
        }
      break;
    }
    case Op::OpTranspose: {
      const uint32_t rows = rows_of(type_of(a_id)), cols = type(type_of(a_id)).count;
      for (uint32_t row = 0; row < rows; ++row)
        for (uint32_t c = 0; c < cols; ++c) r.parts.push_back(at(a, rows, c, row));
      break;
    }
    default: {  // OpOuterProduct: column j, row i = a[i] b[j]
      const Value b = value(operand_id(inst, 1));
      for (const MOperand& bj : b.parts)
        for (const MOperand& ai : a.parts) r.parts.push_back(f(Opcode::v_mul_f32, ai, bj));
      break;
    }
  }
  if (r.parts.size() != component_count(inst.result_type)) fail("the result does not match its type");
  define(inst.result_id, std::move(r));
}

// DPdx / DPdy are the fine forms (Vulkan leaves the choice to the implementation); fwidth is
// |ddx| + |ddy|. Quad instructions read a vector register (a uniform value has no derivative).
void Lowering::lower_derivative(const SpirvInstruction& inst) {
  if (stage_ != ShaderStage::kFragment) fail("derivatives outside a fragment shader");
  const SpirvType& t = type(scalar_of(inst.result_type));
  if (t.kind != TypeKind::kFloat || t.width != 32) fail("only 32-bit float derivatives are supported");
  const Op op = inst.opcode;
  const bool coarse = op == Op::OpDPdxCoarse || op == Op::OpDPdyCoarse || op == Op::OpFwidthCoarse;
  const Opcode ddx = coarse ? Opcode::v_ddx_coarse_f32 : Opcode::v_ddx_fine_f32;
  const Opcode ddy = coarse ? Opcode::v_ddy_coarse_f32 : Opcode::v_ddy_fine_f32;
  const bool width = op == Op::OpFwidth || op == Op::OpFwidthFine || op == Op::OpFwidthCoarse;
  const bool is_x = op == Op::OpDPdx || op == Op::OpDPdxFine || op == Op::OpDPdxCoarse;
  Value r;
  for (const MOperand& p : value(operand_id(inst, 0)).parts) {
    const MOperand x = in_register(p, 32);
    if (!width) {
      r.parts.push_back(MOperand::vreg(emit(is_x ? ddx : ddy, 32, x)));
      continue;
    }
    const MOperand dx = MOperand::vreg(emit(Opcode::v_abs_f32, 32, MOperand::vreg(emit(ddx, 32, x))));
    const MOperand dy = MOperand::vreg(emit(Opcode::v_abs_f32, 32, MOperand::vreg(emit(ddy, 32, x))));
    r.parts.push_back(MOperand::vreg(emit(Opcode::v_add_f32, 32, dx, dy)));
  }
  define(inst.result_id, std::move(r));
}

}  // namespace gsgpu::compiler
