// OpenCL C printf (OpenCL.std printf) on gsgpu: the format string and every %s argument must be
// string literals; each distinct (format, argument kinds) goes into the kernel's printf table. At
// run time a call reserves its record in the dispatch's printf buffer with one 64-bit atomic add
// on the buffer's cursor and, when the record fits, writes {format id, record size, arguments};
// the executor parses and prints the records after the dispatch (docs/compiler.md "printf").
#include <spirv/unified1/OpenCL.std.h>

#include <algorithm>
#include <unordered_set>

#include "common/checked_math.h"
#include "gsgpu/compiler/arg_buffer.h"
#include "gsgpu/compiler/lower.h"

namespace gsgpu::compiler {

using isa::Opcode;

namespace {

constexpr unsigned kMaxStringChase = 16;
constexpr uint32_t kMaxPrintfArgs = 64;      // arguments of one call
constexpr uint32_t kMaxPrintfFormats = 4096;  // table entries of one kernel
constexpr size_t kMaxLiteralBytes = 64 << 10;

bool is_printf(const SpirvModule& m, const SpirvInstruction& inst) {
  if (inst.opcode != spv::Op::OpExtInst || inst.operands.size() < 3) return false;
  auto set = m.ext_inst_sets.find(inst.operands[0]);
  return set != m.ext_inst_sets.end() && set->second == "OpenCL.std" && inst.operands[1] == OpenCLLIB::Printf;
}

}  // namespace

void prepare_printf(SpirvModule* module) {
  // f32 -> f64 conversions, and every word that names their results outside printf's arguments.
  std::unordered_map<uint32_t, uint32_t> promoted;  // double id -> float id
  for (auto& [id, fn] : module->functions)
    for (SpirvBlock& block : fn.blocks)
      for (const SpirvInstruction& inst : block.instructions) {
        if (inst.opcode != spv::Op::OpFConvert || inst.operands.empty()) continue;
        const SpirvType* to = module->type(inst.result_type);
        if (to && to->kind == TypeKind::kFloat && to->width == 64) promoted[inst.result_id] = inst.operands[0];
      }
  if (promoted.empty()) return;
  std::unordered_set<uint32_t> other_uses;
  for (auto& [id, fn] : module->functions)
    for (SpirvBlock& block : fn.blocks)
      for (const SpirvInstruction& inst : block.instructions) {
        const size_t first = is_printf(*module, inst) ? 3 : 0;
        // A literal operand equal to an id counts as a use: conservative (the conversion stays
        // and the build fails as it did before).
        for (size_t i = 0; i < std::min(first, inst.operands.size()); ++i)
          if (promoted.count(inst.operands[i])) other_uses.insert(inst.operands[i]);
        if (first == 0) {
          for (uint32_t word : inst.operands)
            if (promoted.count(word)) other_uses.insert(word);
          if (promoted.count(inst.result_type)) other_uses.insert(inst.result_type);
        }
      }
  for (uint32_t id : other_uses) promoted.erase(id);
  if (promoted.empty()) return;
  for (auto& [id, fn] : module->functions)
    for (SpirvBlock& block : fn.blocks) {
      auto& insts = block.instructions;
      insts.erase(std::remove_if(insts.begin(), insts.end(),
                                 [&](const SpirvInstruction& inst) {
                                   return inst.opcode == spv::Op::OpFConvert && promoted.count(inst.result_id);
                                 }),
                  insts.end());
      for (SpirvInstruction& inst : insts)
        if (is_printf(*module, inst))
          for (size_t i = 3; i < inst.operands.size(); ++i)
            if (auto it = promoted.find(inst.operands[i]); it != promoted.end()) inst.operands[i] = it->second;
    }
}

// A pointer to (a byte of) a module-scope UniformConstant variable, through access chains and
// bit casts with constant indices.
bool Lowering::resolve_string(uint32_t pointer_id, StringRef* out, unsigned depth) {
  if (depth > kMaxStringChase) return false;
  if (auto var = m_.variables.find(pointer_id); var != m_.variables.end()) {
    if (var->second.storage != spv::StorageClass::UniformConstant || var->second.initializer == 0) return false;
    *out = StringRef{pointer_id, 0};
    return true;
  }
  if (printf_defs_.empty())
    for (const auto& [id, fn] : m_.functions)
      for (const SpirvBlock& block : fn.blocks)
        for (const SpirvInstruction& inst : block.instructions)
          if (inst.result_id != 0) printf_defs_[inst.result_id] = &inst;
  auto def = printf_defs_.find(pointer_id);
  if (def == printf_defs_.end()) return false;
  const SpirvInstruction& inst = *def->second;
  auto constant_index = [&](uint32_t id, uint64_t* v) {
    auto c = m_.constants.find(id);
    if (c == m_.constants.end()) return false;
    if (c->second.kind == SpirvConstant::Kind::kNull) { *v = 0; return true; }
    if (c->second.kind != SpirvConstant::Kind::kScalar) return false;
    *v = c->second.bits;
    return true;
  };
  switch (inst.opcode) {
    case spv::Op::OpBitcast: case spv::Op::OpCopyObject:
      return !inst.operands.empty() && resolve_string(inst.operands[0], out, depth + 1);
    case spv::Op::OpAccessChain: case spv::Op::OpInBoundsAccessChain:
    case spv::Op::OpPtrAccessChain: case spv::Op::OpInBoundsPtrAccessChain: {
      if (inst.operands.empty() || !resolve_string(inst.operands[0], out, depth + 1)) return false;
      const bool ptr_chain = inst.opcode == spv::Op::OpPtrAccessChain || inst.opcode == spv::Op::OpInBoundsPtrAccessChain;
      uint32_t base_type = 0;
      if (auto var = m_.variables.find(inst.operands[0]); var != m_.variables.end()) {
        base_type = var->second.pointer_type;
      } else if (auto d = printf_defs_.find(inst.operands[0]); d != printf_defs_.end()) {
        base_type = d->second->result_type;
      }
      const SpirvType& base = type(base_type);
      if (base.kind != TypeKind::kPointer) return false;
      uint32_t current = base.element;
      for (size_t i = 1; i < inst.operands.size(); ++i) {
        uint64_t index = 0;
        if (!constant_index(inst.operands[i], &index)) return false;
        if (!(ptr_chain && i == 1)) {
          const SpirvType& t = type(current);
          if (t.kind != TypeKind::kArray) return false;
          current = t.element;
        }
        // A format string at an offset past 2^64 bytes is no string (wrapping would find one).
        const auto step = gsvirt::checked_mul<uint64_t>(index, size_of(current));
        const auto offset = step ? gsvirt::checked_add<uint64_t>(out->offset, *step) : std::nullopt;
        if (!offset) return false;
        out->offset = *offset;
      }
      return out->offset < (uint64_t{1} << 32);
    }
    default: return false;
  }
}

// The bytes of a resolved string up to its NUL (or the end of the variable).
std::string Lowering::string_literal(const StringRef& ref) {
  const SpirvVariable& var = m_.variables.at(ref.variable);
  const SpirvConstant& init = m_.constants.at(var.initializer);
  if (init.kind == SpirvConstant::Kind::kNull) return "";
  const SpirvType& array = type(init.type);
  if (init.kind != SpirvConstant::Kind::kComposite || array.kind != TypeKind::kArray)
    fail("printf: a string argument is not a string literal (its initializer is not a char array)");
  const SpirvType& element = type(array.element);
  if (element.kind != TypeKind::kInt || element.width != 8)
    fail("printf: a string argument is not a string literal (an array of " + std::to_string(element.width) + "-bit values)");
  std::string text;
  for (uint64_t i = ref.offset; i < init.parts.size() && text.size() < kMaxLiteralBytes; ++i) {
    const SpirvConstant& c = m_.constants.at(init.parts[i]);
    const char ch = c.kind == SpirvConstant::Kind::kScalar ? static_cast<char>(c.bits) : '\0';
    if (ch == '\0') return text;
    text += ch;
  }
  return text;
}

MOperand Lowering::lower_printf(const SpirvInstruction& inst) {
  const size_t argc = inst.operands.size() - 3;
  if (inst.operands.size() < 3) fail("printf without a format string");
  if (argc > kMaxPrintfArgs) fail("printf with more than " + std::to_string(kMaxPrintfArgs) + " arguments");
  StringRef format_ref;
  if (!resolve_string(operand_id(inst, 2), &format_ref))
    fail("printf: the format string is not a string literal (a __constant char array with a constant index)");
  PrintfFormat format;
  format.format = string_literal(format_ref);
  std::vector<Value> values;
  std::vector<uint32_t> string_ids;
  for (size_t i = 0; i < argc; ++i) {
    const uint32_t id = operand_id(inst, 3 + i);
    const uint32_t t = type_of(id);
    const SpirvType& ty = type(t);
    PrintfArg arg;
    const std::string which = "printf(\"" + format.format.substr(0, 40) + "\"): argument " + std::to_string(i + 1);
    if (ty.kind == TypeKind::kPointer && ty.storage == spv::StorageClass::UniformConstant) {
      StringRef ref;
      if (!resolve_string(id, &ref)) fail(which + " is a __constant pointer that is not a string literal (%s takes only literals)");
      const std::string text = string_literal(ref);
      auto& strings = k_.printf_strings;
      auto it = std::find(strings.begin(), strings.end(), text);
      if (it == strings.end()) {
        strings.push_back(text);
        it = strings.end() - 1;
      }
      arg.kind = PrintfArg::Kind::kString;
      arg.element_bytes = 4;
      string_ids.push_back(static_cast<uint32_t>(it - strings.begin()));
      values.push_back({});
      format.args.push_back(arg);
      continue;
    }
    const uint32_t scalar = scalar_of(t);
    const SpirvType& st = type(scalar);
    if (ty.kind == TypeKind::kVector) {
      if (ty.count < 2 || ty.count > 16) fail(which + ": a vector of " + std::to_string(ty.count) + " components");
      arg.vector_size = static_cast<uint8_t>(ty.count);
    } else if (ty.kind != TypeKind::kInt && ty.kind != TypeKind::kFloat && ty.kind != TypeKind::kPointer &&
               ty.kind != TypeKind::kBool) {
      fail(which + " is a struct, array or other aggregate (printf takes scalars, vectors and string literals)");
    }
    if (st.kind == TypeKind::kFloat) {
      if (st.width != 32 && st.width != 64) fail(which + " is a " + std::to_string(st.width) + "-bit float (only float and double)");
      arg.kind = PrintfArg::Kind::kFloat;
      arg.element_bytes = static_cast<uint8_t>(st.width / 8);
    } else if (st.kind == TypeKind::kPointer) {
      arg.element_bytes = 8;
    } else if (st.kind == TypeKind::kInt || st.kind == TypeKind::kBool) {
      arg.element_bytes = static_cast<uint8_t>(std::max<uint32_t>(int_width(scalar), 8) / 8);
    } else {
      fail(which + " has a type printf cannot print");
    }
    values.push_back(value(id));
    string_ids.push_back(0);
    format.args.push_back(arg);
  }
  format.record_bytes = 8;
  for (const PrintfArg& a : format.args) format.record_bytes += a.record_bytes();

  // The table entry (shared by calls with the same format and argument kinds).
  uint32_t format_id = 0;
  auto& table = k_.printf_formats;
  for (; format_id < table.size(); ++format_id) {
    const PrintfFormat& f = table[format_id];
    if (f.format != format.format || f.args.size() != format.args.size()) continue;
    bool same = true;
    for (size_t i = 0; i < f.args.size() && same; ++i)
      same = f.args[i].kind == format.args[i].kind && f.args[i].element_bytes == format.args[i].element_bytes &&
             f.args[i].vector_size == format.args[i].vector_size;
    if (same) break;
  }
  if (format_id == table.size()) {
    if (table.size() >= kMaxPrintfFormats) fail("more than " + std::to_string(kMaxPrintfFormats) + " distinct printf calls");
    table.push_back(format);
  }
  // The argument-buffer fields go after everything the prologue laid out.
  if (k_.printf_buffer_offset == 0) {
    k_.printf_buffer_offset = (k_.arg_buffer_size + 7) / 8 * 8;
    k_.arg_buffer_size = k_.printf_buffer_offset + kPrintfArgFieldBytes;
  }

  // old = atomic_add(cursor, size); the record fits when old + size <= capacity.
  const uint32_t size = format.record_bytes;
  const MOperand arg_ptr = MOperand::vreg(emit(Opcode::v_special, 64, {}, {}, {}, static_cast<int32_t>(isa::SpecialReg::kArgPtr)));
  const MOperand buffer = MOperand::vreg(emit(Opcode::global_load_b64, 64, arg_ptr, {}, {}, static_cast<int32_t>(k_.printf_buffer_offset)));
  const MOperand capacity = MOperand::vreg(emit(Opcode::v_zext_u64_u32, 64, MOperand::vreg(emit(
      Opcode::global_load_b32, 32, arg_ptr, {}, {}, static_cast<int32_t>(k_.printf_buffer_offset + 8)))));
  const MOperand old = MOperand::vreg(emit(Opcode::global_atomic_add_u64, 64, buffer, MOperand::literal(size)));
  const MOperand end = MOperand::vreg(emit(Opcode::v_add_u64, 64, old, MOperand::literal(size)));
  const MOperand fits = MOperand::vreg(emit(Opcode::v_cmp_le_u64, 32, end, capacity));
  const uint32_t write = f_.new_block("printf record"), done = f_.new_block("printf done");
  f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kBranch, fits, {write, done}};
  current_block_ = write;
  const MOperand record = MOperand::vreg(emit(Opcode::v_add_u64, 64, buffer, old));
  int32_t at = static_cast<int32_t>(kPrintfHeaderBytes);
  auto put = [&](MOperand word) {
    emit_store(Opcode::global_store_b32, record, in_register(word, 32), at);
    at += 4;
  };
  put(MOperand::literal(format_id));
  put(MOperand::literal(size));
  for (size_t i = 0; i < format.args.size(); ++i) {
    const PrintfArg& a = format.args[i];
    if (a.kind == PrintfArg::Kind::kString) {
      put(MOperand::literal(string_ids[i]));
      continue;
    }
    const Value& v = values[i];
    if (v.parts.size() != a.vector_size) fail("printf: argument " + std::to_string(i + 1) + " has an unexpected shape");
    for (const MOperand& part : v.parts) {
      if (a.element_bytes == 8) {
        put(low_half(part));
        put(high_half(part));
      } else {
        put(part);
      }
    }
  }
  f_.blocks[current_block_].term = MTerminator{MTerminator::Kind::kJump, {}, {done, 0}};
  current_block_ = done;
  return select(fits, MOperand::literal(0), MOperand::literal(0xffffffffu), 32);
}

}  // namespace gsgpu::compiler
