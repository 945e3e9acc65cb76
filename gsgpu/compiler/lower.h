// Lowering one SPIR-V kernel into machine IR (machine_ir.h). Internal to the compiler.
//
// Values: every SPIR-V value is flattened into scalar components (vectors, structs and arrays
// component by component); a component is a virtual register or a literal. Components of 8/16-bit
// integers live zero-extended in 32-bit registers, booleans are 0/1 in 32-bit registers, 64-bit
// integers and pointers in 64-bit registers. Pointers to local and private memory hold their
// 32-bit window offset zero-extended. Called functions are inlined, each call getting its own
// blocks and values.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "gsgpu/compiler/compiler.h"
#include "gsgpu/compiler/machine_ir.h"
#include "gsgpu/compiler/spirv_module.h"
#include "gsgpu/isa/fp64.h"

namespace gsgpu::compiler {

// Thrown inside the lowering and turned into compile_spirv's error.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Value {
  std::vector<MOperand> parts;
};

// A scalar leaf of a type's memory layout.
struct Leaf {
  uint32_t offset = 0;
  uint32_t type = 0;  // scalar or pointer type id
};

// What the lowering tells the kernel about memory it needs.
struct LoweredKernel {
  std::vector<ArgInfo> args;
  uint32_t arg_buffer_size = 0;
  uint32_t work_dim_offset = 0;
  uint32_t constant_data_offset = 0;
  std::vector<uint8_t> constant_data;
  // The widest alignment among the __constant variables (up to 128, a long16): constant_data_offset
  // is a multiple of it, and the argument buffer's own placement (256-aligned) keeps it in memory.
  uint32_t constant_data_align = 16;
  // The kernel (or what it calls) reads the group id, number of groups, global size, global offset
  // or global linear id: values that describe the whole NDRange, which a runtime splitting one
  // NDRange into several dispatches could not keep (CompiledKernel::reads_ndrange_shape).
  bool reads_ndrange_shape = false;
  uint32_t static_local_bytes = 0;
  uint32_t private_bytes = 0;  // private variables (spills are added later)
  uint32_t scalar_registers = 0;  // s0..s(n-1) hold the argument pointer and arguments (lower_prologue)
  // printf (lower_printf.cc): the format table and the argument-buffer fields, placed at the end
  // of the argument buffer by the first printf call.
  std::vector<PrintfFormat> printf_formats;
  std::vector<std::string> printf_strings;
  uint32_t printf_buffer_offset = 0;
  // Graphics shaders (lower_shader.cc).
  ShaderStage stage = ShaderStage::kKernel;
  uint32_t vertex_attributes = 0;
  uint32_t varying_components = 0;
  uint64_t linear_varyings = 0;  // CompiledKernel's
  bool reads_frag_coord = false, reads_front_facing = false;  // CompiledKernel's
  uint32_t clip_distances = 0, cull_distances = 0;  // CompiledKernel's
  // Transform feedback (lower_xfb.cc): ExecutionMode Xfb, each captured component as a run of one
  // (finish_xfb merges them), each buffer's XfbStride.
  bool xfb = false;
  std::vector<XfbOutputRun> xfb_outputs;
  std::array<uint32_t, kMaxXfbBuffers> xfb_strides{};
  uint32_t preloaded_registers = 0;  // v0..v(n-1) hold the stage's inputs: the allocator leaves them alone
  uint32_t constant_buffer_bytes = 0;  // the constant buffer bytes it reads (push constants, descriptor table)
  std::vector<std::pair<uint32_t, uint32_t>> texture_arrays;  // CompiledKernel's
};

// Before lowering (lower_printf.cc): a float passed to printf is promoted to double by clang
// (OpFConvert f32 -> f64), which the code generator cannot compute; such conversions used only by
// printf are dropped and printf gets the float (the executor prints it as a double).
void prepare_printf(SpirvModule* module);

class Lowering {
 public:
  Lowering(const SpirvModule& module, MFunction* function, LoweredKernel* kernel, uint32_t scalar_registers = 0)
      : m_(module), f_(*function), k_(*kernel), scalar_budget_(scalar_registers) {}
  // Throws CompileError.
  void lower_kernel(const SpirvEntryPoint& entry);
  // lower_shader.cc: a Vertex or Fragment entry point (docs/compiler.md "Graphics shaders").
  void lower_shader(const SpirvEntryPoint& entry);

  // ---- types and layout (lower_types.cc) ----
  const SpirvType& type(uint32_t id) const;
  uint32_t size_of(uint32_t type_id) const;
  uint32_t align_of(uint32_t type_id) const;
  uint32_t array_stride(uint32_t array_type_id) const;  // ArrayStride, else the element size
  void leaves(uint32_t type_id, uint32_t base, std::vector<Leaf>* out) const;
  uint32_t component_count(uint32_t type_id) const;
  // Register width (32 or 64) of a scalar or pointer type.
  unsigned reg_bits(uint32_t scalar_type) const;
  // The scalar type of a scalar or vector type.
  uint32_t scalar_of(uint32_t type_id) const;
  // Member index -> first component and component count, for composites.
  uint32_t component_offset(uint32_t type_id, uint32_t index, uint32_t* element_type) const;
  bool is_float(uint32_t scalar_type) const { return type(scalar_type).kind == TypeKind::kFloat; }
  uint32_t int_width(uint32_t scalar_type) const;  // 1 for bool, bits for ints, 64 for pointers

  // ---- emission helpers (lower_core.cc) ----
  uint32_t emit(isa::Opcode op, unsigned dst_bits, MOperand a = {}, MOperand b = {}, MOperand c = {}, int32_t imm = 0);
  void emit_to(isa::Opcode op, MOperand dst, MOperand a = {}, MOperand b = {}, MOperand c = {}, int32_t imm = 0);
  void emit_store(isa::Opcode op, MOperand address, MOperand data, int32_t imm);
  void copy(uint32_t dst_vreg, MOperand src);
  MOperand in_register(MOperand op, unsigned bits);
  MOperand constant32(uint32_t bits) { return MOperand::literal(bits); }
  MOperand constant64(uint64_t bits);
  [[noreturn]] void fail(const std::string& reason) const;

  // ---- values ----
  Value value(uint32_t id);
  MOperand low_half(MOperand v);
  MOperand high_half(MOperand v);
  void define(uint32_t id, Value v);
  uint32_t type_of(uint32_t id) const;  // the SPIR-V type of a value id
  Value constant_value(uint32_t id);

 private:
  struct Frame;
  struct BuiltinRef {
    spv::BuiltIn builtin;
    int component = -1;  // -1: the whole variable
  };

  // lower_core.cc
  void lower_prologue(const SpirvFunction& kernel, std::vector<Value>* args);
  void lower_function(const SpirvFunction& fn, const std::vector<Value>& args, uint32_t return_block,
                      Value* return_value);
  void lower_block(const SpirvBlock& block);
  // The function's blocks (indices into fn.blocks) in reverse postorder from the entry, so each
  // block comes after its dominators; unreachable blocks last.
  std::vector<size_t> reverse_postorder(const SpirvFunction& fn) const;
  void lower_instruction(const SpirvInstruction& inst);
  void lower_terminator(const SpirvInstruction& inst);
  // Writes each phi's incoming values on its incoming edges (edge blocks where a predecessor branches).
  void lower_phis();
  void lower_call(const SpirvInstruction& inst);
  uint32_t block_for(uint32_t label);
  void allocate_static_variables(uint32_t entry_function);
  uint32_t allocate_private(uint32_t size, uint32_t align);

  // lower_shader.cc: graphics shaders keep their variables (Function, Private, Input, Output) in
  // registers: a variable is a list of virtual registers, one per component, and a pointer to it
  // the literal index of a RegisterPointer.
  struct RegisterVariable {
    uint32_t id = 0;
    uint32_t type = 0;  // the pointee
    spv::StorageClass storage = spv::StorageClass::Function;
    std::vector<uint32_t> regs;
    std::vector<bool> written;  // per component: some store writes it
  };
  struct RegisterPointer {
    uint32_t variable = 0;  // index into register_variables_
    uint32_t first = 0;     // first component
    uint32_t type = 0;      // the pointee
    // One run-time index (an access chain into an array, matrix or vector with a variable index):
    // the pointee is element `dynamic_index` of `dynamic_count` elements `dynamic_stride` components apart.
    MOperand dynamic_index;
    uint32_t dynamic_count = 0, dynamic_stride = 0;
  };
  bool is_register_storage(spv::StorageClass storage) const;
  Value new_register_variable(uint32_t id, uint32_t pointee, spv::StorageClass storage);
  const RegisterPointer& register_pointer(uint32_t pointer_id);
  bool lower_register_access(const SpirvInstruction& inst);
  Value register_load(const RegisterPointer& p);
  void register_store(const RegisterPointer& p, const Value& v);
  MOperand register_access_chain(const SpirvInstruction& inst);
  void declare_shader_interface(const SpirvEntryPoint& entry);
  void declare_fragment_input(uint32_t id, const SpirvVariable& var, const SpirvDecorations* d);
  void declare_vertex_input(uint32_t id, const SpirvVariable& var, const SpirvDecorations* d);
  void export_shader_outputs();
  void export_builtin_output(const RegisterVariable& var);
  struct PendingExport {
    const RegisterVariable* var = nullptr;
    uint32_t first = 0, count = 0;
  };
  PendingExport pending_cull_distances_;  // exported after the clip distances
  void export_located_output(const RegisterVariable& var);
  void export_fragment_output(const RegisterVariable& var, uint32_t location, uint32_t index, uint32_t component,
                              uint32_t per_location);
  void export_components(const RegisterVariable& var, uint32_t first, uint32_t count, uint32_t slot);
  // lower_xfb.cc: component `c` of output `var` (or of its block member `member`) exported at
  // `slot`: captured by transform feedback when the shader is in Xfb mode and it has an Offset.
  void note_xfb_component(const RegisterVariable& var, std::optional<uint32_t> member, uint32_t c, uint32_t slot);
  // After the exports: merges the captured components into runs and checks them.
  void finish_xfb();
  void check_shader_module(const SpirvEntryPoint& entry) const;
  // lower_compute.cc: a GLCompute entry point's interface (docs/compiler.md "Compute shaders").
  void declare_compute_interface(const SpirvEntryPoint& entry);
  MOperand storage_buffer_address(uint32_t id, const SpirvDecorations* d);
  Value compute_workgroup_id(const BuiltinRef& ref, uint32_t result_type);
  void load_dispatch_words(uint32_t offset, MOperand (&out)[3]);
  MOperand base_group_[3];   // compute: the slab's first work-group in the dispatch, scalar registers
  MOperand group_count_[3];  // compute: the dispatch's group counts (NumWorkgroups), scalar registers
  // lower_shader_ops.cc: matrices, derivatives and the other shader-only arithmetic.
  bool lower_shader_arith(const SpirvInstruction& inst);
  void lower_matrix(const SpirvInstruction& inst);
  void lower_derivative(const SpirvInstruction& inst);
  bool lower_glsl_extinst(const SpirvInstruction& inst);
  void finite_log_of_zero(const SpirvInstruction& inst);  // Log / Log2 of +-0: -FLT_MAX, not -inf
  std::vector<RegisterVariable> register_variables_;
  std::vector<RegisterPointer> register_pointers_;
  std::unordered_map<uint32_t, uint32_t> module_register_pointers_;  // module variable -> its RegisterPointer
  // Push constants: the draw's constant buffer (SHADER_STATE CONSTANTS_*), whose VA the program
  // reads with s_special arg_ptr into s[0:1]; each PushConstant variable's pointer is that pair.
  void check_explicit_layout(uint32_t type_id, unsigned depth) const;
  MOperand constant_buffer_base();  // s[0:1] = arg_ptr, read once in the prologue
  MOperand uniform_buffer_address(uint32_t id, const SpirvDecorations* d);
  // The table entry of (set, binding), loaded once into a scalar pair in the prologue.
  MOperand descriptor_table_entry(uint32_t set, uint32_t binding, const char* what);
  MOperand new_scalar_pair();
  MOperand new_scalar_register();
  void load_view_index(const RegisterVariable& var);
  // lower_shader_texture.cc: images, samplers and sampled images at (set, binding) and the sample
  // instructions of graphics shaders.
  Value declare_texture_binding(uint32_t id, const SpirvDecorations* d);
  void shader_image_sample(const SpirvInstruction& inst);
  void shader_image_fetch(const SpirvInstruction& inst);
  void shader_image_query_lod(const SpirvInstruction& inst);
  std::unordered_map<uint32_t, Value> texture_bindings_;  // UniformConstant variable -> its descriptor's parts
  // An array of textures (sampler2D s[N]): element 0's record (the table entry), N, and the
  // element's kind (OpTypeImage, OpTypeSampler or OpTypeSampledImage).
  struct TextureArray {
    MOperand entry;
    uint32_t elements = 0;
    spv::Op kind = spv::Op::OpNop;
  };
  std::unordered_map<uint32_t, TextureArray> texture_arrays_;
  void texture_array_element(const SpirvInstruction& inst);
  void declare_push_constants(uint32_t id, uint32_t pointee);
  MOperand constants_base_;
  std::map<uint32_t, MOperand> uniform_buffers_;  // set * 16 + binding -> the scalar pair holding its VA
  std::unordered_map<uint32_t, MOperand> module_addresses_;  // PushConstant variable -> its address
  uint32_t epilogue_block_ = 0;
  uint32_t vertex_index_reg_ = UINT32_MAX;  // vertex shaders: the preloaded register of the vertex index
 public:
  bool graphics() const { return stage_ != ShaderStage::kKernel; }
  ShaderStage stage_ = ShaderStage::kKernel;
 private:

  // lower_arith.cc
  bool lower_arith(const SpirvInstruction& inst);
  bool lower_composite(const SpirvInstruction& inst);
  bool lower_conversion(const SpirvInstruction& inst);
  MOperand int_binary(spv::Op op, uint32_t scalar, MOperand a, MOperand b);
  bool low_word_mask(uint32_t id) const;  // a scalar constant 0x00000000ffffffff
  MOperand compare(spv::Op op, uint32_t scalar, MOperand a, MOperand b);
  MOperand convert(spv::Op op, uint32_t from, uint32_t to, MOperand v, const SpirvDecorations* d);
  MOperand saturating_integer_convert(spv::Op op, uint32_t from_width, uint32_t to_width, MOperand v);

 public:
  // Shared by the arithmetic and extended-instruction lowering.
  MOperand normalise(MOperand v, uint32_t width);   // zero-extends an 8/16-bit result
  MOperand clamp_to_narrow_int(MOperand r, uint32_t width, bool is_signed);  // 8/16-bit _sat range
  MOperand sign_extend32(MOperand v, uint32_t width);  // 8/16-bit -> signed 32-bit
  MOperand reverse_bits_32(MOperand v);  // OpBitReverse: bit i to bit 31 - i
  MOperand select(MOperand cond, MOperand a, MOperand b, unsigned bits);
  const SpirvInstruction* current() const { return current_; }
  uint32_t operand_id(const SpirvInstruction& inst, size_t index) const;

 private:
  // lower_memory.cc
  bool lower_memory(const SpirvInstruction& inst);
  isa::MemSpace memory_space(spv::StorageClass storage) const;
  Value load(uint32_t pointer_type, MOperand address, uint32_t result_type, int32_t offset);
  void store(uint32_t pointer_type, MOperand address, const Value& v, uint32_t value_type, int32_t offset);
  MOperand access_chain(const SpirvInstruction& inst, bool has_element);
  Value load_builtin(const BuiltinRef& ref, uint32_t result_type);
  MOperand global_linear_id();  // get_global_linear_id(), 64-bit
  MOperand local_linear_id();   // get_local_linear_id(), 32-bit
  MOperand atomic(const SpirvInstruction& inst);
  void copy_memory(const SpirvInstruction& inst);
  void async_copy(const SpirvInstruction& inst);

  // lower_extinst.cc
  bool lower_extinst(const SpirvInstruction& inst);
 public:
  // The OpenCL.std instruction `ext` with `inst`'s operands (GLSL.std.450 instructions that mean
  // the same reuse it).
  bool lower_opencl_extinst(uint32_t ext, const SpirvInstruction& inst);
 private:
  MOperand opencl_math(uint32_t ext, uint32_t scalar, const std::vector<MOperand>& args);
  void vload_store(uint32_t ext, const SpirvInstruction& inst);
  MOperand exact_fmod(uint32_t float_type, MOperand x, MOperand y);
  MOperand exact_remainder(uint32_t float_type, MOperand x, MOperand y);

 public:
  // lower_fp64.cc: cl_khr_fp64 (doubles in 64-bit registers) and the rounding-mode conversions.
  bool is_double(uint32_t scalar_type) const;
  MOperand f64(isa::Opcode op, MOperand a, MOperand b = {}, MOperand c = {});
  MOperand f64_math(isa::MathF64 fn, MOperand a, MOperand b = {});
  MOperand f64_compare(isa::FCmp cond, MOperand a, MOperand b = {});
  MOperand f64_constant(double value);
  MOperand double_binary(spv::Op op, MOperand a, MOperand b);
  MOperand double_compare(spv::Op op, MOperand a, MOperand b);
  MOperand double_classify(spv::Op op, MOperand x);
  MOperand convert_double(spv::Op op, uint32_t from_width, uint32_t to_width, MOperand v, spv::FPRoundingMode rounding,
                          bool saturate);
  MOperand double_math(uint32_t ext, const std::vector<MOperand>& args, const std::string& name);
  bool float_via_double(uint32_t ext, const std::vector<MOperand>& args, MOperand* result);
  Value float_geometric_via_double(uint32_t ext, const std::vector<Value>& args, const std::string& name);
  bool lower_double_extinst(uint32_t ext, const SpirvInstruction& inst, const std::vector<Value>& args, uint32_t n,
                            const std::string& name);

 private:
  std::vector<MOperand> double_scaled(const std::vector<MOperand>& x, MOperand* exponent, MOperand* sum);

 public:
  // lower_printf.cc: OpenCL.std printf -> a record in the printf buffer; the result (0 or -1).
  MOperand lower_printf(const SpirvInstruction& inst);

  // lower_image.cc: the SAMPLER_STATE word of a sampler_t literal (OpConstantSampler).
  uint32_t sampler_word(const SpirvConstant& c) const;

 private:
  // lower_image.cc: image built-ins -> v_image_load / fetch / sample / store / query.
  struct ImageShape {
    uint32_t dims = 1;  // 1, 2 or 3 coordinates before the layer
    bool arrayed = false;
    bool buffer = false;
    bool cube = false;  // Dim Cube: dims 3, a direction
    bool multisampled = false;  // MS 1 (graphics, 2D): read by OpImageFetch with a Sample operand only
  };
  bool lower_image(const SpirvInstruction& inst);
  ImageShape image_shape(uint32_t type_id) const;  // an image or sampled-image type; fails otherwise
  MOperand make_quad(const MOperand (&channels)[4]);
  Value unpack_quad(uint32_t quad);
  // `reference` (a depth-compare sample's Dref) goes into channel 2, which 1D, 1D-array and 2D
  // images leave free; a projective sample divides it by q too.
  MOperand coordinate_quad(uint32_t coord_id, const ImageShape& shape, MOperand w, bool* is_float,
                           const MOperand* reference = nullptr);
  MOperand projected_coordinate_quad(uint32_t coord_id, const ImageShape& shape, MOperand w,
                                     const MOperand* reference = nullptr);
  // lower_shader_texture.cc: the image operands of a graphics sample or fetch (the ids each bit of
  // the mask brings, in SPIR-V's order), checked against the instruction's operand count.
  struct ImageOperands {
    uint32_t mask = 0;
    uint32_t bias = 0, lod = 0, grad_x = 0, grad_y = 0;
    uint32_t offset = 0;  // ConstOffset, or an Offset whose value is a constant
  };
  ImageOperands image_operands(const SpirvInstruction& inst, size_t at) const;
  // The texel offset immediate (isa::ImmKind::kTexelOffset) of the operands; 0 without one.
  int32_t texel_offset_immediate(const ImageOperands& ops, const ImageShape& shape) const;
  MOperand sample_lod_channel(const ImageOperands& ops, bool implicit, MOperand sampler_bias, MOperand image,
                              const ImageShape& shape);
  MOperand gradient_lod(uint32_t dx_id, uint32_t dy_id, MOperand image, const ImageShape& shape);
  void check_texel_type(uint32_t type_id, const char* what) const;
  void image_read(const SpirvInstruction& inst);
  void image_sample(const SpirvInstruction& inst);
  void image_write(const SpirvInstruction& inst);
  void image_size(const SpirvInstruction& inst);
  void image_format_query(const SpirvInstruction& inst);
  MOperand image_query(MOperand image, MOperand level, isa::ImageQueryWhat what);

 public:

 private:
  struct StringRef {
    uint32_t variable = 0;
    uint64_t offset = 0;
  };
  bool resolve_string(uint32_t pointer_id, StringRef* out, unsigned depth = 0);
  std::string string_literal(const StringRef& ref);
  std::unordered_map<uint32_t, const SpirvInstruction*> printf_defs_;  // id -> defining instruction

 public:
  const SpirvModule& m_;
  MFunction& f_;
  LoweredKernel& k_;

 private:
  uint32_t current_block_ = 0;
  const SpirvInstruction* current_ = nullptr;
  std::vector<Frame*> frames_;
  std::unordered_map<uint32_t, BuiltinRef> builtins_;
  // Values loaded whole from a built-in vector variable (get_global_id(d) with a run-time d is an
  // OpVectorExtractDynamic of one): an out-of-range d must give the built-in's default.
  std::unordered_map<uint32_t, spv::BuiltIn> builtin_vectors_;
  static uint32_t builtin_default(spv::BuiltIn builtin);  // 1 for sizes and counts, 0 for ids and offsets
  std::unordered_map<uint32_t, uint32_t> static_offsets_;  // module variable -> local offset / const-data offset
  // Addresses made as base + constant by access chains, so loads and stores can use the
  // instruction's offset field instead of the addition.
  std::unordered_map<uint32_t, std::pair<MOperand, int64_t>> address_offsets_;
  void fold_address(MOperand* address, int64_t* offset) const;
  // Global/constant addresses made by an access chain from a pointer in a scalar register (a
  // kernel argument): pointer + per-lane byte offset + constant. Loads, stores and atomics use
  // the instruction's scalar base for the pointer, so the 64-bit add that makes the address is
  // left for dead-code removal unless something else reads the pointer.
  struct ScalarBased {
    MOperand base;    // raw scalar pair
    MOperand offset;  // 64-bit per-lane byte offset
    int64_t constant = 0;
  };
  std::unordered_map<uint32_t, ScalarBased> scalar_based_;
  // Byte offsets index * stride made in block offsets_block_ (cleared when another block starts),
  // so that p[i], q[i], r[i] share one.
  struct OffsetKey {
    MOperand index;
    uint32_t stride;
    bool operator==(const OffsetKey&) const = default;
  };
  struct OffsetKeyHash {
    size_t operator()(const OffsetKey& k) const {
      return (size_t{k.index.value} << 8) ^ static_cast<size_t>(k.index.kind) ^ (size_t{k.stride} << 40);
    }
  };
  std::unordered_map<OffsetKey, MOperand, OffsetKeyHash> block_offsets_;
  uint32_t offsets_block_ = UINT32_MAX;
  // 64-bit values made by v_zext_u64_u32 / v_sext_i64_i32 (fresh, written once) -> the 32-bit
  // value extended, so a byte offset can be one widening multiply of it.
  std::unordered_map<uint32_t, MOperand> zero_extended_, sign_extended_;
  MOperand byte_offset(MOperand index, uint32_t index_width, uint32_t stride);
  // The scalar-base form of a global/constant address, when it has one and `offset` + its constant
  // fits the instruction's offset field; *address becomes the per-lane offset.
  bool use_scalar_base(MOperand* address, int64_t* offset, MOperand* base) const;
  MOperand const_data_base_;  // 64-bit vreg: arg_ptr + constant_data_offset
  MOperand work_dim_;
  // Kernel arguments in scalar registers: s_load'ed once in the prologue (before any branch) into
  // registers of their own that nothing writes again, so they are valid in every lane everywhere.
  // A value part naming one is MOperand::raw(isa::sreg(n)) (a 64-bit value: the pair s[n:n+1]).
  MOperand scalar_argument(isa::Opcode op, unsigned bits, MOperand arg_ptr, uint32_t offset);
  uint32_t scalar_budget_ = 0;
  uint32_t next_sreg_ = 0;
  uint32_t private_top_ = 0;
  bool block_phis_need_temps_ = false;
  unsigned inline_depth_ = 0;
  size_t emitted_ = 0;
  std::string kernel_name_;
};

}  // namespace gsgpu::compiler
