// The compile pipeline per kernel: lower (lower_*.cc) -> layout and reconvergence points (cfg.cc)
// -> register allocation (regalloc.cc) -> encoding (emit.cc); and the debug dumps.
#include "gsgpu/compiler/compiler.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "gsgpu/compiler/build_cache.h"
#include "gsgpu/compiler/cfg.h"
#include "gsgpu/compiler/dead_code.h"
#include "gsgpu/compiler/redundant_moves.h"
#include "gsgpu/compiler/emit.h"
#include "gsgpu/compiler/lower.h"
#include "gsgpu/compiler/regalloc.h"
#include "gsgpu/compiler/spirv_names.inc"
#include "gsgpu/compiler/uniform.h"
#include "gsgpu/compiler/subprocess.h"
#include "gsgpu/isa/disassembler.h"

namespace gsgpu::compiler {
namespace {

// The shader cores' per-work-item private window (gsgpu::kMaxPrivateMemSize).
constexpr uint32_t kMaxPrivateBytes = 64u << 10;

bool debug_compiler() {
  const char* debug = std::getenv("GSVIRT_DEBUG");
  return debug != nullptr && std::strstr(debug, "compiler") != nullptr;
}

std::string dump_dir() {
  const char* dir = std::getenv("GSGPU_DUMP_DIR");
  return dir && *dir ? dir : "";
}

// SPIR-V, its disassembly and each kernel's gsgpu assembly, to GSGPU_DUMP_DIR (files named by the
// module's hash) or, with GSVIRT_DEBUG=compiler alone, to stderr.
void dump(std::span<const uint32_t> spirv, const CompiledProgram& program) {
  const std::string dir = dump_dir();
  if (dir.empty() && !debug_compiler()) return;
  const std::string disassembly = disassemble_spirv(spirv);
  if (dir.empty()) {
    std::cerr << "[gsgpu compiler] SPIR-V module, " << spirv.size() << " words\n" << disassembly;
    for (const CompiledKernel& k : program.kernels)
      std::cerr << "[gsgpu compiler] kernel " << k.name << "\n" << k.assembly;
    return;
  }
  const std::string base = dir + "/" +
      BuildCache::key({std::string_view(reinterpret_cast<const char*>(spirv.data()), spirv.size_bytes())}).substr(0, 16);
  write_file(base + ".spv", spirv.data(), spirv.size_bytes());
  if (!disassembly.empty()) write_file(base + ".spvasm", disassembly.data(), disassembly.size());
  for (const CompiledKernel& k : program.kernels) {
    const std::string text = "; kernel " + k.name + ": " + std::to_string(k.code.size()) + " words, " +
                             std::to_string(k.vector_registers) + " vector registers, " +
                             std::to_string(k.scalar_registers) + " scalar registers, " +
                             std::to_string(k.spilled_values) + " spilled, private " + std::to_string(k.private_bytes) +
                             " B, static local " + std::to_string(k.static_local_bytes) + " B\n" + k.assembly;
    write_file(base + "." + k.name + ".gsgpu.s", text.data(), text.size());
  }
}

// "kernel k", "vertex shader main", "fragment shader main": how messages name an entry point.
std::string entry_label(const SpirvEntryPoint& entry) {
  switch (entry.model) {
    case spv::ExecutionModel::Vertex: return "vertex shader " + entry.name;
    case spv::ExecutionModel::Fragment: return "fragment shader " + entry.name;
    case spv::ExecutionModel::GLCompute: return "compute shader " + entry.name;
    default: return "kernel " + entry.name;
  }
}

bool compile_kernel(const SpirvModule& module, const SpirvEntryPoint& entry, const CompileOptions& options,
                    CompiledKernel* out, std::string* error) {
  MFunction function;
  LoweredKernel lowered;
  Lowering lowering(module, &function, &lowered, options.max_scalar_registers);
  try {
    if (entry.model == spv::ExecutionModel::Kernel) lowering.lower_kernel(entry);
    else lowering.lower_shader(entry);
  } catch (const CompileError& e) {
    *error = e.what();
    return false;
  } catch (const std::out_of_range&) {
    *error = entry_label(entry) + ": malformed module (a reference to something that does not exist)";
    return false;
  } catch (const std::exception& e) {
    *error = entry_label(entry) + ": cannot compile: " + e.what();
    return false;
  }
  remove_dead_instructions(&function);
  lowered.scalar_registers = promote_uniform_values(&function, lowered.scalar_registers, options.max_scalar_registers);
  // Liveness keeps four bit sets of all virtual registers per block; bound their size.
  if (static_cast<uint64_t>(function.vreg_bits.size()) * function.blocks.size() > (uint64_t{1} << 28)) {
    *error = entry_label(entry) + ": too large to allocate registers for (" + std::to_string(function.blocks.size()) +
             " blocks, " + std::to_string(function.vreg_bits.size()) + " values)";
    return false;
  }
  const std::vector<uint32_t> layout = layout_blocks(function);
  const std::vector<uint32_t> reconvergence = immediate_post_dominators(function, layout);
  RegisterAllocation allocation;
  const uint32_t max_registers = std::min(options.max_vector_registers, isa::kNumVectorRegs - 16);
  if (!allocate_registers(&function, layout, max_registers, lowered.private_bytes, &allocation, error,
                          lowered.preloaded_registers)) {
    *error = entry_label(entry) + ": " + *error;
    return false;
  }
  // Vertex and fragment programs run once per vertex and per pixel: their copies are worth removing.
  if (lowered.stage == ShaderStage::kVertex || lowered.stage == ShaderStage::kFragment) remove_redundant_moves(&function);
  const uint32_t private_bytes = allocation.spilled > 0 ? allocation.private_end : lowered.private_bytes;
  if (private_bytes > kMaxPrivateBytes) {
    *error = entry_label(entry) + ": needs " + std::to_string(private_bytes) + " bytes of private memory per work-item (" +
             std::to_string(allocation.spilled) + " values spilled); the limit is " + std::to_string(kMaxPrivateBytes);
    return false;
  }
  // A compute program's DISPATCH gives it private memory (PRIVATE_MEM_SIZE), so it may spill.
  if (lowered.stage != ShaderStage::kKernel && lowered.stage != ShaderStage::kCompute && private_bytes > 0) {
    // The draw's vertex and fragment dispatches give a program no private memory.
    *error = entry_label(entry) + ": needs " + std::to_string(allocation.spilled) +
             " spilled values in private memory, which vertex and fragment programs do not have";
    return false;
  }
  std::string emit_error;
  if (!emit_code(function, layout, reconvergence, &out->code, &emit_error)) {
    *error = entry_label(entry) + ": code generation produced an invalid instruction: " + emit_error;
    return false;
  }
  out->name = entry.name;
  out->stage = lowered.stage;
  out->vertex_attributes = lowered.vertex_attributes;
  out->constant_buffer_bytes = lowered.constant_buffer_bytes;
  out->texture_arrays = lowered.texture_arrays;
  out->varying_components = lowered.varying_components;
  out->linear_varyings = lowered.linear_varyings;
  out->reads_frag_coord = lowered.reads_frag_coord;
  out->reads_front_facing = lowered.reads_front_facing;
  out->clip_distances = lowered.clip_distances;
  out->cull_distances = lowered.cull_distances;
  out->xfb = lowered.xfb;
  out->xfb_outputs = std::move(lowered.xfb_outputs);
  out->xfb_strides = lowered.xfb_strides;
  out->args = std::move(lowered.args);
  out->arg_buffer_size = lowered.arg_buffer_size;
  out->work_dim_offset = lowered.work_dim_offset;
  out->constant_data_offset = lowered.constant_data_offset;
  out->constant_data = std::move(lowered.constant_data);
  out->static_local_bytes = lowered.static_local_bytes;
  out->reads_ndrange_shape = lowered.reads_ndrange_shape;
  out->printf_formats = std::move(lowered.printf_formats);
  out->printf_strings = std::move(lowered.printf_strings);
  out->printf_buffer_offset = lowered.printf_buffer_offset;
  out->private_bytes = private_bytes;
  out->vector_registers = allocation.registers_used;
  out->scalar_registers = lowered.scalar_registers;
  out->spilled_values = allocation.spilled;
  if (entry.reqd_work_group_size)
    for (int d = 0; d < 3; ++d) out->reqd_work_group_size[d] = (*entry.reqd_work_group_size)[d];
  if (entry.work_group_size_hint)
    for (int d = 0; d < 3; ++d) out->work_group_size_hint[d] = (*entry.work_group_size_hint)[d];
  out->assembly = isa::disassemble(out->code.data(), out->code.size());
  return true;
}

}  // namespace

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::kScalar: return "scalar";
    case ArgKind::kGlobalPointer: return "global pointer";
    case ArgKind::kConstantPointer: return "constant pointer";
    case ArgKind::kLocalPointer: return "local pointer";
    case ArgKind::kStruct: return "struct";
    case ArgKind::kSampler: return "sampler";
    case ArgKind::kImage: return "image";
  }
  return "?";
}

const CompiledKernel* CompiledProgram::find(std::string_view name) const {
  for (const CompiledKernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool compile_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* error,
                   const CompileOptions& options) {
  SpirvModule module;
  if (!parse_spirv(spirv, &module, error)) {
    *error = "invalid SPIR-V: " + *error;
    return false;
  }
  out->kernels.clear();
  prepare_printf(&module);
  for (const SpirvEntryPoint& entry : module.entry_points) {
    if (entry.model != spv::ExecutionModel::Kernel) continue;  // graphics: compile_shader_spirv
    CompiledKernel kernel;
    if (!compile_kernel(module, entry, options, &kernel, error)) return false;
    out->kernels.push_back(std::move(kernel));
  }
  dump(spirv, *out);
  return true;
}

bool compile_shader_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* error,
                          const CompileOptions& options) {
  SpirvModule module;
  if (!parse_spirv(spirv, &module, error)) {
    *error = "invalid SPIR-V: " + *error;
    return false;
  }
  out->kernels.clear();
  if (!module.other_entry_models.empty()) {
    std::string model = "execution model " + std::to_string(static_cast<unsigned>(module.other_entry_models[0]));
    for (const auto& entry : generated::kExecutionModelNames)
      if (entry.code == static_cast<uint32_t>(module.other_entry_models[0])) model = entry.name;
    *error = "an entry point of execution model " + model + ": only Vertex, Fragment and GLCompute shaders are supported";
    return false;
  }
  for (const SpirvEntryPoint& entry : module.entry_points) {
    if (entry.model == spv::ExecutionModel::Kernel) {
      *error = "entry point " + entry.name + " is an OpenCL kernel, not a graphics shader";
      return false;
    }
    CompiledKernel shader;
    if (!compile_kernel(module, entry, options, &shader, error)) return false;
    out->kernels.push_back(std::move(shader));
  }
  if (out->kernels.empty()) {
    *error = "the module has no Vertex, Fragment or GLCompute entry point";
    return false;
  }
  dump(spirv, *out);
  return true;
}

BuildStatus build_opencl_c(std::string_view source, std::string_view build_options, CompiledProgram* out,
                           std::string* log, const CompileOptions& options) {
  return build_opencl_c(source, build_options, {}, out, log, options);
}

BuildStatus build_opencl_c(std::string_view source, std::string_view build_options, const EmbeddedHeaders& headers,
                           CompiledProgram* out, std::string* log, const CompileOptions& options) {
  std::vector<uint32_t> spirv;
  const BuildStatus status =
      compile_opencl_c(toolchain(), source, build_options, headers, FrontendDevice{options.images}, &spirv, log);
  out->log = *log;
  if (status != BuildStatus::kSuccess) return status;
  std::string error;
  if (!compile_spirv(spirv, out, &error, options)) {
    *log += "error: " + error + "\n";
    out->log = *log;
    return BuildStatus::kCompileError;
  }
  return BuildStatus::kSuccess;
}

BuildStatus build_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* log,
                        const CompileOptions& options) {
  const BuildStatus status = validate_spirv(spirv, log);
  out->log = *log;
  if (status != BuildStatus::kSuccess) return status;
  std::string error;
  if (!compile_spirv(spirv, out, &error, options)) {
    *log += "error: " + error + "\n";
    out->log = *log;
    return BuildStatus::kCompileError;
  }
  return BuildStatus::kSuccess;
}

}  // namespace gsgpu::compiler
