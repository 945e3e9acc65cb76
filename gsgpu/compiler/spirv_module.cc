#include "gsgpu/compiler/spirv_module.h"

#include <algorithm>

#include "gsgpu/compiler/spirv_names.inc"

namespace gsgpu::compiler {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr size_t kHeaderWords = 5;
// Limits that keep a hostile module from asking for unbounded memory; far above what a real OpenCL
// kernel needs.
constexpr uint32_t kMaxBound = 1u << 22;
constexpr uint32_t kMaxVectorComponents = 16;
constexpr uint64_t kMaxArrayLength = 1u << 24;

class ParseError {
 public:
  std::string message;
};

// Builds "word <offset> (<opcode>): <reason>".
std::string at(const SpirvInstruction& inst, const std::string& reason) {
  return "word " + std::to_string(inst.word_offset) + " (" + opcode_name(inst.opcode) + "): " + reason;
}

class ModuleParser {
 public:
  ModuleParser(std::span<const uint32_t> words, SpirvModule* out) : words_(words), m_(*out) {}

  bool run(std::string* error) {
    if (!parse_header(error)) return false;
    size_t offset = kHeaderWords;
    while (offset < words_.size()) {
      SpirvInstruction inst;
      size_t count = 0;
      if (!read_instruction(offset, &inst, &count, error)) return false;
      std::string reason = handle(inst);
      if (!reason.empty()) {
        *error = at(inst, reason);
        return false;
      }
      offset += count;
    }
    if (function_ != nullptr) {
      *error = "word " + std::to_string(words_.size()) + ": the module ends inside function " +
               std::to_string(function_->id) + " (no OpFunctionEnd)";
      return false;
    }
    return check_module(error);
  }

 private:
  bool parse_header(std::string* error) {
    if (words_.size() < kHeaderWords) {
      *error = "word 0: the module is " + std::to_string(words_.size()) + " words long, shorter than the " +
               std::to_string(kHeaderWords) + "-word SPIR-V header";
      return false;
    }
    if (words_[0] != kSpirvMagic) {
      char hex[16];
      snprintf(hex, sizeof hex, "0x%08x", words_[0]);
      *error = std::string("word 0: bad magic number ") + hex + " (SPIR-V starts with 0x07230203)";
      return false;
    }
    m_.version = words_[1];
    m_.bound = words_[3];
    if (m_.bound == 0 || m_.bound > kMaxBound) {
      *error = "word 3: id bound " + std::to_string(m_.bound) + " is outside 1.." + std::to_string(kMaxBound);
      return false;
    }
    if (words_[4] != 0) {
      *error = "word 4: schema " + std::to_string(words_[4]) + " must be 0";
      return false;
    }
    return true;
  }

  bool read_instruction(size_t offset, SpirvInstruction* inst, size_t* count, std::string* error) {
    const uint32_t first = words_[offset];
    const uint32_t word_count = first >> 16;
    inst->opcode = static_cast<spv::Op>(first & 0xffff);
    inst->word_offset = static_cast<uint32_t>(offset);
    if (word_count == 0) {
      *error = at(*inst, "word count is 0");
      return false;
    }
    if (word_count > words_.size() - offset) {
      *error = at(*inst, "word count " + std::to_string(word_count) + " runs past the end of the module (" +
                             std::to_string(words_.size() - offset) + " words left)");
      return false;
    }
    bool has_result = false, has_type = false;
    spv::HasResultAndType(inst->opcode, &has_result, &has_type);
    size_t next = offset + 1;
    const size_t end = offset + word_count;
    auto take_id = [&](uint32_t* id, const char* what) {
      if (next >= end) {
        *error = at(*inst, std::string("missing ") + what);
        return false;
      }
      *id = words_[next++];
      if (*id == 0 || *id >= m_.bound) {
        *error = at(*inst, std::string(what) + " " + std::to_string(*id) + " is outside the id bound " +
                               std::to_string(m_.bound));
        return false;
      }
      return true;
    };
    if (has_type && !take_id(&inst->result_type, "result type id")) return false;
    if (has_result && !take_id(&inst->result_id, "result id")) return false;
    inst->operands.assign(words_.begin() + static_cast<ptrdiff_t>(next), words_.begin() + static_cast<ptrdiff_t>(end));
    *count = word_count;
    return true;
  }

  // Checks that operand `index` exists and is an id below the bound.
  std::string need_ids(const SpirvInstruction& inst, size_t first, size_t count) {
    if (inst.operands.size() < first + count)
      return "needs " + std::to_string(first + count) + " operands, has " + std::to_string(inst.operands.size());
    for (size_t i = first; i < first + count; ++i)
      if (inst.operands[i] == 0 || inst.operands[i] >= m_.bound)
        return "operand " + std::to_string(i) + " id " + std::to_string(inst.operands[i]) + " is outside the id bound";
    return "";
  }
  std::string need_words(const SpirvInstruction& inst, size_t count) {
    if (inst.operands.size() < count)
      return "needs " + std::to_string(count) + " operands, has " + std::to_string(inst.operands.size());
    return "";
  }

  // A literal string starting at operand `index`; fails when not NUL-terminated inside the operands.
  std::string read_string(const SpirvInstruction& inst, size_t index, std::string* out, size_t* words_used) {
    out->clear();
    for (size_t i = index; i < inst.operands.size(); ++i) {
      for (int b = 0; b < 4; ++b) {
        const char c = static_cast<char>(inst.operands[i] >> (8 * b));
        if (c == 0) {
          *words_used = i - index + 1;
          return "";
        }
        out->push_back(c);
      }
    }
    return "literal string is not NUL-terminated";
  }

  std::string define_type(const SpirvInstruction& inst, uint32_t id, SpirvType type) {
    if (m_.types.count(id) || m_.constants.count(id)) return "id " + std::to_string(id) + " is defined twice";
    m_.types.emplace(id, std::move(type));
    return "";
  }

  // The type must already be defined (SPIR-V requires declaration before use for types).
  std::string known_type(uint32_t id) {
    if (!m_.types.count(id)) return "type id " + std::to_string(id) + " is not a type declared earlier";
    return "";
  }

  std::string handle_type(const SpirvInstruction& inst) {
    using spv::Op;
    SpirvType t;
    const auto& ops = inst.operands;
    switch (inst.opcode) {
      case Op::OpTypeVoid: t.kind = TypeKind::kVoid; break;
      case Op::OpTypeBool: t.kind = TypeKind::kBool; break;
      case Op::OpTypeInt:
        if (auto e = need_words(inst, 2); !e.empty()) return e;
        t.kind = TypeKind::kInt;
        t.width = ops[0];
        t.is_signed = ops[1] != 0;
        if (t.width != 8 && t.width != 16 && t.width != 32 && t.width != 64)
          return "integer width " + std::to_string(t.width) + " is not 8, 16, 32 or 64";
        break;
      case Op::OpTypeFloat:
        if (auto e = need_words(inst, 1); !e.empty()) return e;
        t.kind = TypeKind::kFloat;
        t.width = ops[0];
        if (t.width != 16 && t.width != 32 && t.width != 64)
          return "float width " + std::to_string(t.width) + " is not 16, 32 or 64";
        break;
      case Op::OpTypeVector:
        if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
        if (auto e = need_words(inst, 2); !e.empty()) return e;
        if (auto e = known_type(ops[0]); !e.empty()) return e;
        t.kind = TypeKind::kVector;
        t.element = ops[0];
        t.count = ops[1];
        if (t.count < 2 || t.count > kMaxVectorComponents)
          return "vector of " + std::to_string(t.count) + " components";
        if (TypeKind k = m_.types[ops[0]].kind; k != TypeKind::kInt && k != TypeKind::kFloat && k != TypeKind::kBool)
          return "vector element is not a scalar";
        break;
      case Op::OpTypeArray: {
        if (auto e = need_ids(inst, 0, 2); !e.empty()) return e;
        if (auto e = known_type(ops[0]); !e.empty()) return e;
        auto c = m_.constants.find(ops[1]);
        if (c == m_.constants.end() || c->second.kind != SpirvConstant::Kind::kScalar)
          return "array length " + std::to_string(ops[1]) + " is not a scalar constant";
        if (c->second.bits == 0 || c->second.bits > kMaxArrayLength)
          return "array length " + std::to_string(c->second.bits) + " is outside 1.." + std::to_string(kMaxArrayLength);
        t.kind = TypeKind::kArray;
        t.element = ops[0];
        t.count = static_cast<uint32_t>(c->second.bits);
        break;
      }
      case Op::OpTypeStruct:
        t.kind = TypeKind::kStruct;
        for (uint32_t member : ops) {
          if (auto e = known_type(member); !e.empty()) return e;
          t.members.push_back(member);
        }
        break;
      case Op::OpTypePointer:
        if (auto e = need_words(inst, 2); !e.empty()) return e;
        if (ops[1] == 0 || ops[1] >= m_.bound) return "pointee id outside the id bound";
        t.kind = TypeKind::kPointer;
        t.storage = static_cast<spv::StorageClass>(ops[0]);
        t.element = ops[1];  // may be a forward reference (OpTypeForwardPointer); checked at use
        break;
      case Op::OpTypeRuntimeArray:
        // A storage buffer's trailing array: its length is the buffer's, unknown to the compiler.
        if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
        if (auto e = known_type(ops[0]); !e.empty()) return e;
        t.kind = TypeKind::kArray;
        t.runtime = true;
        t.element = ops[0];
        t.count = 0;
        break;
      case Op::OpTypeMatrix: {
        // Columns of a float vector; held as an array of its columns (SpirvType::matrix).
        if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
        if (auto e = need_words(inst, 2); !e.empty()) return e;
        if (auto e = known_type(ops[0]); !e.empty()) return e;
        const SpirvType& column = m_.types[ops[0]];
        if (column.kind != TypeKind::kVector || m_.types[column.element].kind != TypeKind::kFloat)
          return "matrix column type is not a float vector";
        if (ops[1] < 2 || ops[1] > 4) return "matrix of " + std::to_string(ops[1]) + " columns";
        t.kind = TypeKind::kArray;
        t.matrix = true;
        t.element = ops[0];
        t.count = ops[1];
        break;
      }
      case Op::OpTypeFunction:
        if (auto e = need_ids(inst, 0, ops.size()); !e.empty()) return e;
        if (ops.empty()) return "function type without a return type";
        t.kind = TypeKind::kFunction;
        t.element = ops[0];
        t.members.assign(ops.begin() + 1, ops.end());
        break;
      default:
        t.kind = TypeKind::kOpaque;  // events, samplers, images, queues: declared, not computed with
        t.opaque = inst.opcode;
        t.opaque_operands = ops;
        break;
    }
    return define_type(inst, inst.result_id, std::move(t));
  }

  std::string handle_constant(const SpirvInstruction& inst) {
    using spv::Op;
    if (auto e = known_type(inst.result_type); !e.empty()) return e;
    if (m_.constants.count(inst.result_id) || m_.types.count(inst.result_id))
      return "id " + std::to_string(inst.result_id) + " is defined twice";
    const SpirvType& type = m_.types[inst.result_type];
    SpirvConstant c;
    c.type = inst.result_type;
    switch (inst.opcode) {
      case Op::OpConstantTrue: case Op::OpSpecConstantTrue: c.bits = 1; break;
      case Op::OpConstantFalse: case Op::OpSpecConstantFalse: c.bits = 0; break;
      case Op::OpConstant: case Op::OpSpecConstant: {
        if (type.kind != TypeKind::kInt && type.kind != TypeKind::kFloat) return "constant of a non-scalar type";
        const size_t words = type.width == 64 ? 2 : 1;
        if (auto e = need_words(inst, words); !e.empty()) return e;
        c.bits = inst.operands[0];
        if (words == 2) c.bits |= uint64_t{inst.operands[1]} << 32;
        if (type.width < 32) c.bits &= (uint64_t{1} << type.width) - 1;
        break;
      }
      case Op::OpConstantComposite: case Op::OpSpecConstantComposite:
        c.kind = SpirvConstant::Kind::kComposite;
        for (uint32_t part : inst.operands) {
          if (!m_.constants.count(part)) return "constituent " + std::to_string(part) + " is not a constant";
          c.parts.push_back(part);
        }
        break;
      case Op::OpConstantNull: c.kind = SpirvConstant::Kind::kNull; break;
      case Op::OpUndef: c.kind = SpirvConstant::Kind::kUndef; break;
      case Op::OpConstantSampler:
        // Addressing mode, normalized (0/1), filter mode: literals, checked where the sampler is used.
        if (type.kind != TypeKind::kOpaque || type.opaque != Op::OpTypeSampler) return "sampler constant of a non-sampler type";
        if (auto e = need_words(inst, 3); !e.empty()) return e;
        c.kind = SpirvConstant::Kind::kSampler;
        c.parts.assign(inst.operands.begin(), inst.operands.begin() + 3);
        break;
      default: c.kind = SpirvConstant::Kind::kUndef; break;
    }
    m_.constants.emplace(inst.result_id, std::move(c));
    return "";
  }

  std::string handle_decoration(const SpirvInstruction& inst) {
    if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
    const bool member = inst.opcode == spv::Op::OpMemberDecorate;
    if (auto e = need_words(inst, member ? 3 : 2); !e.empty()) return e;
    SpirvDecorations& d = m_.decorations[inst.operands[0]];
    const auto decoration = static_cast<spv::Decoration>(inst.operands[member ? 2 : 1]);
    const size_t arg = member ? 3 : 2;
    const bool has_arg = inst.operands.size() > arg;
    const uint32_t value = has_arg ? inst.operands[arg] : 0;
    switch (decoration) {
      case spv::Decoration::BuiltIn:
        if (!has_arg) return "BuiltIn without a value";
        if (member) d.member_builtins[inst.operands[1]] = static_cast<spv::BuiltIn>(value);
        else d.builtin = static_cast<spv::BuiltIn>(value);
        break;
      case spv::Decoration::Location: if (has_arg && !member) d.location = value; break;
      case spv::Decoration::Index: if (has_arg && !member) d.index = value; break;
      case spv::Decoration::Component: if (has_arg && !member) d.component = value; break;
      case spv::Decoration::DescriptorSet: if (has_arg && !member) d.descriptor_set = value; break;
      case spv::Decoration::Binding: if (has_arg && !member) d.binding = value; break;
      case spv::Decoration::Flat: if (!member) d.flat = true; break;
      case spv::Decoration::NoPerspective: if (!member) d.no_perspective = true; break;
      case spv::Decoration::Sample: if (!member) d.sample = true; break;
      case spv::Decoration::Block: d.block = true; break;
      case spv::Decoration::BufferBlock: d.buffer_block = true; break;
      case spv::Decoration::ArrayStride: d.array_stride = value; break;
      case spv::Decoration::MatrixStride: if (member) d.member_matrix_strides[inst.operands[1]] = value; break;
      case spv::Decoration::RowMajor: if (member) d.member_row_major[inst.operands[1]] = true; break;
      case spv::Decoration::Alignment: d.alignment = value; break;
      case spv::Decoration::FPRoundingMode:
        if (!has_arg) return "FPRoundingMode without a value";
        d.rounding = static_cast<spv::FPRoundingMode>(value);
        break;
      case spv::Decoration::SaturatedConversion: d.saturated = true; break;
      case spv::Decoration::CPacked: d.packed = true; break;
      case spv::Decoration::Offset:
        if (member && has_arg) d.member_offsets[inst.operands[1]] = value;
        else if (has_arg) d.offset = value;
        break;
      case spv::Decoration::XfbBuffer:
        if (member && has_arg) d.member_xfb_buffers[inst.operands[1]] = value;
        else if (has_arg) d.xfb_buffer = value;
        break;
      case spv::Decoration::XfbStride:
        if (member && has_arg) d.member_xfb_strides[inst.operands[1]] = value;
        else if (has_arg) d.xfb_stride = value;
        break;
      case spv::Decoration::FuncParamAttr:
        if (has_arg) d.param_attrs.push_back(static_cast<spv::FunctionParameterAttribute>(value));
        break;
      default: break;  // names, linkage, restrict, volatile...: no effect on code
    }
    return "";
  }

  std::string handle_entry_point(const SpirvInstruction& inst) {
    if (auto e = need_ids(inst, 1, 1); !e.empty()) return e;
    SpirvEntryPoint ep;
    ep.function = inst.operands[1];
    size_t used = 0;
    if (auto e = read_string(inst, 2, &ep.name, &used); !e.empty()) return e;
    if (auto e = need_ids(inst, 2 + used, inst.operands.size() - 2 - used); !e.empty()) return e;
    ep.interface.assign(inst.operands.begin() + static_cast<ptrdiff_t>(2 + used), inst.operands.end());
    ep.model = static_cast<spv::ExecutionModel>(inst.operands[0]);
    if (ep.model != spv::ExecutionModel::Kernel && ep.model != spv::ExecutionModel::Vertex &&
        ep.model != spv::ExecutionModel::Fragment && ep.model != spv::ExecutionModel::GLCompute) {
      m_.other_entry_models.push_back(ep.model);
      return "";
    }
    m_.entry_points.push_back(std::move(ep));
    return "";
  }

  std::string handle_execution_mode(const SpirvInstruction& inst) {
    if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
    if (auto e = need_words(inst, 2); !e.empty()) return e;
    const auto mode = static_cast<spv::ExecutionMode>(inst.operands[1]);
    pending_modes_.push_back({inst.operands[0], mode});
    if (mode != spv::ExecutionMode::LocalSize && mode != spv::ExecutionMode::LocalSizeHint) return "";
    if (auto e = need_words(inst, 5); !e.empty()) return e;
    auto& pending = mode == spv::ExecutionMode::LocalSize ? pending_local_sizes_ : pending_size_hints_;
    pending.push_back({inst.operands[0], {inst.operands[2], inst.operands[3], inst.operands[4]}});
    return "";
  }

  // LocalSizeId (a compute shader's work-group size from constant ids, resolved in check_module once
  // every constant is known); other modes with id operands are kept for the compilers to refuse.
  std::string handle_execution_mode_id(const SpirvInstruction& inst) {
    if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
    if (auto e = need_words(inst, 2); !e.empty()) return e;
    const auto mode = static_cast<spv::ExecutionMode>(inst.operands[1]);
    pending_modes_.push_back({inst.operands[0], mode});
    if (mode != spv::ExecutionMode::LocalSizeId) return "";
    if (auto e = need_words(inst, 5); !e.empty()) return e;
    if (auto e = need_ids(inst, 2, 3); !e.empty()) return e;
    pending_local_size_ids_.push_back({inst.operands[0], {inst.operands[2], inst.operands[3], inst.operands[4]}});
    return "";
  }

  // The value of a 32-bit scalar constant id, for sizes given by id.
  bool scalar_constant(uint32_t id, uint32_t* value) const {
    auto c = m_.constants.find(id);
    if (c == m_.constants.end() || c->second.kind != SpirvConstant::Kind::kScalar || c->second.bits > UINT32_MAX)
      return false;
    *value = static_cast<uint32_t>(c->second.bits);
    return true;
  }

  // LocalSizeId's constants, then a constant decorated BuiltIn WorkgroupSize, which overrides any
  // LocalSize of every compute entry point (SPIR-V's rule for the built-in).
  bool resolve_compute_sizes(std::string* error) {
    for (const auto& [id, ids] : pending_local_size_ids_) {
      std::array<uint32_t, 3> local{};
      for (int d = 0; d < 3; ++d)
        if (!scalar_constant(ids[d], &local[d])) {
          *error = "LocalSizeId names " + std::to_string(ids[d]) + ", which is not a 32-bit scalar constant";
          return false;
        }
      for (SpirvEntryPoint& ep : m_.entry_points)
        if (ep.function == id) ep.reqd_work_group_size = local;
    }
    for (const auto& [id, d] : m_.decorations) {
      if (!d.builtin || *d.builtin != spv::BuiltIn::WorkgroupSize) continue;
      auto c = m_.constants.find(id);
      if (c == m_.constants.end()) continue;  // a variable: read through the built-in path
      std::array<uint32_t, 3> local{};
      bool ok = c->second.kind == SpirvConstant::Kind::kComposite && c->second.parts.size() == 3;
      for (int k = 0; ok && k < 3; ++k) ok = scalar_constant(c->second.parts[k], &local[k]);
      if (!ok) {
        *error = "the WorkgroupSize constant " + std::to_string(id) + " is not three 32-bit scalar constants";
        return false;
      }
      for (SpirvEntryPoint& ep : m_.entry_points)
        if (ep.model == spv::ExecutionModel::GLCompute) ep.reqd_work_group_size = local;
    }
    return true;
  }

  std::string handle_variable(const SpirvInstruction& inst) {
    if (auto e = need_words(inst, 1); !e.empty()) return e;
    SpirvVariable v;
    v.pointer_type = inst.result_type;
    v.storage = static_cast<spv::StorageClass>(inst.operands[0]);
    if (inst.operands.size() > 1) {
      if (auto e = need_ids(inst, 1, 1); !e.empty()) return e;
      v.initializer = inst.operands[1];
    }
    auto t = m_.types.find(inst.result_type);
    if (t == m_.types.end() || t->second.kind != TypeKind::kPointer) return "variable type is not a pointer type";
    if (function_ != nullptr) {
      if (v.storage != spv::StorageClass::Function) return "a variable inside a function must use storage Function";
      function_->variables.push_back(inst);
      return "";
    }
    if (m_.variables.count(inst.result_id)) return "id defined twice";
    m_.variables.emplace(inst.result_id, v);
    m_.variable_order.push_back(inst.result_id);
    return "";
  }

  std::string handle_function_inst(const SpirvInstruction& inst) {
    using spv::Op;
    switch (inst.opcode) {
      case Op::OpFunction: {
        if (function_ != nullptr) return "OpFunction inside a function";
        if (auto e = need_ids(inst, 1, 1); !e.empty()) return e;
        if (m_.functions.count(inst.result_id)) return "function id defined twice";
        function_ = &m_.functions[inst.result_id];
        function_->id = inst.result_id;
        function_->result_type = inst.result_type;
        function_->function_type = inst.operands[1];
        return "";
      }
      case Op::OpFunctionParameter:
        if (function_ == nullptr || !function_->blocks.empty()) return "parameter outside a function header";
        function_->params.push_back(inst.result_id);
        function_->param_types.push_back(inst.result_type);
        return "";
      case Op::OpFunctionEnd:
        if (function_ == nullptr) return "OpFunctionEnd outside a function";
        if (!function_->blocks.empty() && !block_terminated_) return "the last block has no terminator";
        function_ = nullptr;
        return "";
      case Op::OpLabel:
        if (function_ == nullptr) return "OpLabel outside a function";
        if (!function_->blocks.empty() && !block_terminated_) return "a block starts before the previous one ends";
        function_->blocks.push_back(SpirvBlock{inst.result_id, {}});
        block_terminated_ = false;
        return "";
      default: break;
    }
    if (function_ == nullptr) return "instruction outside a function";
    if (function_->blocks.empty() || block_terminated_) return "instruction outside a block";
    function_->blocks.back().instructions.push_back(inst);
    switch (inst.opcode) {
      case Op::OpBranch: case Op::OpBranchConditional: case Op::OpSwitch: case Op::OpReturn:
      case Op::OpReturnValue: case Op::OpKill: case Op::OpUnreachable: case Op::OpTerminateInvocation:
        block_terminated_ = true;
        break;
      default: break;
    }
    return "";
  }

  std::string handle(const SpirvInstruction& inst) {
    using spv::Op;
    switch (inst.opcode) {
      case Op::OpCapability:
        if (auto e = need_words(inst, 1); !e.empty()) return e;
        m_.capabilities.push_back(static_cast<spv::Capability>(inst.operands[0]));
        return "";
      case Op::OpMemoryModel:
        if (auto e = need_words(inst, 2); !e.empty()) return e;
        m_.addressing_model = inst.operands[0];
        return "";
      case Op::OpExtInstImport: {
        std::string name;
        size_t used = 0;
        if (auto e = read_string(inst, 0, &name, &used); !e.empty()) return e;
        m_.ext_inst_sets[inst.result_id] = name;
        return "";
      }
      case Op::OpName: {
        if (auto e = need_ids(inst, 0, 1); !e.empty()) return e;
        std::string name;
        size_t used = 0;
        if (auto e = read_string(inst, 1, &name, &used); !e.empty()) return e;
        m_.names[inst.operands[0]] = name;
        return "";
      }
      case Op::OpEntryPoint: return handle_entry_point(inst);
      case Op::OpExecutionMode: return handle_execution_mode(inst);
      case Op::OpDecorate: case Op::OpMemberDecorate: return handle_decoration(inst);
      case Op::OpTypeVoid: case Op::OpTypeBool: case Op::OpTypeInt: case Op::OpTypeFloat: case Op::OpTypeVector:
      case Op::OpTypeArray: case Op::OpTypeStruct: case Op::OpTypePointer: case Op::OpTypeFunction:
      case Op::OpTypeOpaque: case Op::OpTypeEvent: case Op::OpTypeDeviceEvent: case Op::OpTypeReserveId:
      case Op::OpTypeQueue: case Op::OpTypePipe: case Op::OpTypeSampler: case Op::OpTypeImage:
      case Op::OpTypeSampledImage: case Op::OpTypeRuntimeArray: case Op::OpTypeMatrix:
        if (function_ != nullptr) return "type declared inside a function";
        return handle_type(inst);
      case Op::OpConstantTrue: case Op::OpConstantFalse: case Op::OpConstant: case Op::OpConstantComposite:
      case Op::OpConstantNull: case Op::OpConstantSampler: case Op::OpSpecConstantTrue:
      case Op::OpSpecConstantFalse: case Op::OpSpecConstant: case Op::OpSpecConstantComposite:
        if (function_ != nullptr) return "constant declared inside a function";
        return handle_constant(inst);
      case Op::OpUndef:
        if (function_ != nullptr) return handle_function_inst(inst);
        return handle_constant(inst);
      case Op::OpVariable: return handle_variable(inst);
      case Op::OpSource: case Op::OpSourceContinued: case Op::OpSourceExtension: case Op::OpString:
      case Op::OpMemberName: case Op::OpExtension: case Op::OpLine: case Op::OpNoLine: case Op::OpModuleProcessed:
      case Op::OpDecorationGroup: case Op::OpGroupDecorate: case Op::OpGroupMemberDecorate: case Op::OpNop:
      case Op::OpTypeForwardPointer:
        return "";
      case Op::OpExecutionModeId: return handle_execution_mode_id(inst);
      default:
        return handle_function_inst(inst);
    }
  }

  bool check_module(std::string* error) {
    for (const auto& [id, local] : pending_local_sizes_) {
      for (SpirvEntryPoint& ep : m_.entry_points)
        if (ep.function == id) ep.reqd_work_group_size = local;
    }
    for (const auto& [id, mode] : pending_modes_)
      for (SpirvEntryPoint& ep : m_.entry_points)
        if (ep.function == id) ep.modes.push_back(mode);
    if (!resolve_compute_sizes(error)) return false;
    for (const auto& [id, hint] : pending_size_hints_) {
      for (SpirvEntryPoint& ep : m_.entry_points)
        if (ep.function == id) ep.work_group_size_hint = hint;
    }
    for (const SpirvEntryPoint& ep : m_.entry_points) {
      if (!m_.functions.count(ep.function)) {
        *error = "entry point \"" + ep.name + "\" names function " + std::to_string(ep.function) +
                 ", which the module does not define";
        return false;
      }
    }
    for (auto& [id, fn] : m_.functions) {
      if (fn.blocks.empty()) continue;  // a declaration (imported); calling it fails in codegen
      const SpirvType* ft = m_.type(fn.function_type);
      if (ft == nullptr || ft->kind != TypeKind::kFunction || ft->members.size() != fn.params.size()) {
        *error = "function " + std::to_string(id) + ": its function type does not match its " +
                 std::to_string(fn.params.size()) + " parameters";
        return false;
      }
    }
    return true;
  }

  std::span<const uint32_t> words_;
  SpirvModule& m_;
  SpirvFunction* function_ = nullptr;
  bool block_terminated_ = true;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> pending_local_sizes_;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> pending_size_hints_;
  std::vector<std::pair<uint32_t, spv::ExecutionMode>> pending_modes_;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> pending_local_size_ids_;
};

}  // namespace

const SpirvType* SpirvModule::type(uint32_t id) const {
  auto it = types.find(id);
  return it == types.end() ? nullptr : &it->second;
}

const SpirvDecorations* SpirvModule::decoration(uint32_t id) const {
  auto it = decorations.find(id);
  return it == decorations.end() ? nullptr : &it->second;
}

bool parse_spirv(std::span<const uint32_t> words, SpirvModule* out, std::string* error) {
  *out = SpirvModule{};
  ModuleParser parser(words, out);
  return parser.run(error);
}

std::string opcode_name(spv::Op op) {
  const auto code = static_cast<uint32_t>(op);
  for (const auto& entry : generated::kOpcodeNames)
    if (entry.code == code) return entry.name;
  return "Op#" + std::to_string(code);
}

}  // namespace gsgpu::compiler
