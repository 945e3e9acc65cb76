// A parsed SPIR-V module: the subset of the binary that the gsgpu compiler reads (header, entry
// points, execution modes, types, constants, module-scope variables, decorations, functions and their
// blocks). parse_spirv() never trusts its input: every word read is bounds-checked, every id is
// checked against the bound, every instruction's operand count against what its opcode needs; errors
// name the word offset and the opcode.
#pragma once

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.hpp11>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gsgpu::compiler {

struct SpirvInstruction {
  spv::Op opcode = spv::Op::OpNop;
  uint32_t result_type = 0;  // 0 when the opcode has none
  uint32_t result_id = 0;    // 0 when the opcode has none
  std::vector<uint32_t> operands;  // the words after the result id (or after the opcode word)
  uint32_t word_offset = 0;        // where the instruction starts in the module, for messages
};

enum class TypeKind : uint8_t { kVoid, kBool, kInt, kFloat, kVector, kArray, kStruct, kPointer, kFunction, kOpaque };

struct SpirvType {
  TypeKind kind = TypeKind::kVoid;
  uint32_t width = 0;           // kInt / kFloat: bits
  bool is_signed = false;       // kInt (OpenCL kernels use signedness 0 everywhere; informative only)
  uint32_t element = 0;         // kVector / kArray: element type; kPointer: pointee; kFunction: return type
  uint32_t count = 0;           // kVector: components; kArray: length (from its constant)
  spv::StorageClass storage = spv::StorageClass::Function;  // kPointer
  std::vector<uint32_t> members;  // kStruct: member types; kFunction: parameter types
  spv::Op opaque = spv::Op::OpNop;  // kOpaque: the declaring opcode (OpTypeImage, OpTypeSampler, OpTypeEvent, ...)
  // kOpaque: the declaring instruction's operands after the result id (OpTypeImage: sampled type,
  // Dim, Depth, Arrayed, MS, Sampled, Image Format, Access Qualifier).
  std::vector<uint32_t> opaque_operands;
  bool matrix = false;          // kArray from OpTypeMatrix: `count` columns of the column vector `element`
  // kArray from OpTypeRuntimeArray (the last member of a storage-buffer block): count 0, the length
  // is the buffer's; indexing is not bounded by the compiler.
  bool runtime = false;
};

struct SpirvConstant {
  enum class Kind : uint8_t { kScalar, kComposite, kNull, kUndef, kSampler };
  Kind kind = Kind::kScalar;
  uint32_t type = 0;
  uint64_t bits = 0;               // kScalar: the value (booleans 0/1), zero-extended
  std::vector<uint32_t> parts;     // kComposite: constituent ids; kSampler: OpConstantSampler's 3 literals
};

struct SpirvVariable {
  uint32_t pointer_type = 0;
  spv::StorageClass storage = spv::StorageClass::Function;
  uint32_t initializer = 0;  // 0 when none
};

struct SpirvDecorations {
  std::optional<spv::BuiltIn> builtin;
  uint32_t alignment = 0;
  std::optional<spv::FPRoundingMode> rounding;
  bool saturated = false;
  bool packed = false;  // CPacked on a struct
  std::map<uint32_t, uint32_t> member_offsets;  // struct member -> Offset decoration
  std::vector<spv::FunctionParameterAttribute> param_attrs;
  // Graphics shaders (lower_shader.cc): interface and resource decorations.
  std::optional<uint32_t> location, index, component, descriptor_set, binding;
  bool flat = false, no_perspective = false, block = false, buffer_block = false;
  bool sample = false;  // Sample: per-sample interpolation (refused: no sample-rate shading)
  uint32_t array_stride = 0;                          // ArrayStride
  std::map<uint32_t, spv::BuiltIn> member_builtins;   // struct member -> BuiltIn (gl_PerVertex)
  std::map<uint32_t, uint32_t> member_matrix_strides; // struct member -> MatrixStride
  std::map<uint32_t, bool> member_row_major;          // struct member -> RowMajor
  // Transform feedback (ExecutionMode Xfb): Offset on a variable (members: member_offsets),
  // XfbBuffer and XfbStride on a variable or a member.
  std::optional<uint32_t> offset, xfb_buffer, xfb_stride;
  std::map<uint32_t, uint32_t> member_xfb_buffers, member_xfb_strides;
};

struct SpirvBlock {
  uint32_t label = 0;
  std::vector<SpirvInstruction> instructions;  // the terminator is the last one
};

struct SpirvFunction {
  uint32_t id = 0;
  uint32_t result_type = 0;
  uint32_t function_type = 0;
  std::vector<uint32_t> params;       // parameter ids
  std::vector<uint32_t> param_types;
  std::vector<SpirvBlock> blocks;     // in module order; blocks[0] is the entry
  std::vector<SpirvInstruction> variables;  // OpVariable Function (any block, hoisted here)
};

struct SpirvEntryPoint {
  spv::ExecutionModel model = spv::ExecutionModel::Kernel;
  uint32_t function = 0;
  std::string name;
  std::vector<uint32_t> interface;
  std::optional<std::array<uint32_t, 3>> reqd_work_group_size;
  std::optional<std::array<uint32_t, 3>> work_group_size_hint;  // LocalSizeHint
  std::vector<spv::ExecutionMode> modes;  // every OpExecutionMode naming the entry's function
};

struct SpirvModule {
  uint32_t version = 0;
  uint32_t bound = 0;
  std::vector<spv::Capability> capabilities;
  uint32_t addressing_model = 0;
  std::vector<SpirvEntryPoint> entry_points;  // Kernel, Vertex, Fragment and GLCompute entry points
  std::vector<spv::ExecutionModel> other_entry_models;  // entry points of other models (refused by the compilers)
  std::unordered_map<uint32_t, SpirvType> types;
  std::unordered_map<uint32_t, SpirvConstant> constants;
  std::unordered_map<uint32_t, SpirvVariable> variables;  // module scope
  std::vector<uint32_t> variable_order;                    // module-scope variables in declaration order
  std::unordered_map<uint32_t, SpirvDecorations> decorations;
  std::unordered_map<uint32_t, std::string> ext_inst_sets;  // id -> "OpenCL.std"
  std::unordered_map<uint32_t, std::string> names;          // OpName
  std::map<uint32_t, SpirvFunction> functions;

  const SpirvType* type(uint32_t id) const;
  const SpirvDecorations* decoration(uint32_t id) const;
};

// Parses a module. False with *error naming the word offset and opcode of the first problem.
bool parse_spirv(std::span<const uint32_t> words, SpirvModule* out, std::string* error);

// "OpIAdd", or "Op#<number>" for opcodes the headers do not name.
std::string opcode_name(spv::Op op);

}  // namespace gsgpu::compiler
