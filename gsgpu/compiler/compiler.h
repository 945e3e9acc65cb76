// The gsgpu OpenCL compiler: OpenCL C (through frontend.h) or SPIR-V -> gsgpu ISA kernels.
//
// Argument-buffer ABI (docs/compiler.md): arguments in declaration order, each at the next offset
// aligned to its alignment; pointers (global, constant, local) are 8-byte slots; a __global or
// __constant pointer is a 64-bit GPU VA, a __local pointer is a byte offset into the work-group's
// local memory (the executor places __local arguments after static_local_bytes, each aligned to
// its ArgInfo::local_alignment, and writes the offsets); scalars smaller than 4 bytes take a 4-byte
// slot (value zero-extended in its low bytes); vectors take size = element size x (3 ? 4 : n) and
// that alignment; structs passed by value take their OpenCL C layout. After the arguments,
// work_dim_offset holds get_work_dim() as a uint32; constant_data (module-scope __constant data)
// is copied to constant_data_offset. A kernel that calls printf also has the printf buffer's VA
// (uint64) and record capacity (uint32) at printf_buffer_offset, after everything else
// (arg_buffer.h). arg_buffer_size covers all of it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gsgpu/compiler/frontend.h"

namespace gsgpu::compiler {

enum class ArgKind : uint8_t {
  kScalar,          // by-value scalar or vector
  kGlobalPointer,   // __global T*: 64-bit GPU VA
  kConstantPointer, // __constant T*: 64-bit GPU VA
  kLocalPointer,    // __local T*: 32-bit local-memory offset in an 8-byte slot
  kStruct,          // by-value struct
  kSampler,         // sampler_t: 8 bytes, a SAMPLER_STATE word zero-extended (docs/compiler.md "Images and samplers")
  kImage,           // image*_t: 8 bytes, the GPU VA of an IMAGE_DESC (docs/compiler.md "Images and samplers")
};
const char* arg_kind_name(ArgKind kind);

// What an image parameter declares (kImage), for the runtime to check the image object it is
// given. ImageDim values are the IMAGE_DESC FORMAT.TYPE codes of protocol/gsgpu/gsgpu.xml.
enum class ImageAccess : uint8_t { kNone, kReadOnly, kWriteOnly, kReadWrite };
enum class ImageDim : uint8_t { kNone, k1D, k1DBuffer, k1DArray, k2D, k2DArray, k3D };

struct ArgInfo {
  std::string name;       // from OpName when the module has it
  ArgKind kind = ArgKind::kScalar;
  uint32_t offset = 0;    // in the argument buffer
  uint32_t size = 0;      // bytes the executor writes at offset
  uint32_t alignment = 0;
  uint32_t local_alignment = 0;  // kLocalPointer: alignment of the pointee
  ImageAccess image_access = ImageAccess::kNone;  // kImage: __read_only / __write_only / __read_write
  ImageDim image_dim = ImageDim::kNone;           // kImage: image1d_t ... image3d_t
};

// printf (lower_printf.cc, docs/compiler.md "printf"): what one argument of a printf call is, as
// the compiler sees it after the default argument promotions.
struct PrintfArg {
  enum class Kind : uint8_t {
    kInt,     // integer or pointer, element_bytes 1/2/4/8 (zero-extended to a 4-byte slot when narrower)
    kFloat,   // element_bytes 4: a float (promoted to double for printing); 8: a double constant
    kString,  // a string literal: the record holds its index in CompiledKernel::printf_strings
  };
  Kind kind = Kind::kInt;
  uint8_t element_bytes = 4;
  uint8_t vector_size = 1;  // > 1: a vector (printed with %vN)
  // Bytes the argument takes in a record: each element in max(element_bytes, 4).
  uint32_t record_bytes() const { return uint32_t(vector_size) * (element_bytes > 4 ? 8u : 4u); }
};

// One entry per distinct (format string, argument kinds) a kernel's printf calls use; a record
// in the printf buffer names its entry by index.
struct PrintfFormat {
  std::string format;           // the literal, without its terminating NUL
  std::vector<PrintfArg> args;
  uint32_t record_bytes = 0;    // header (format id, record size) + the arguments
};

// Transform feedback (a vertex shader with ExecutionMode Xfb): a run of 1..4 consecutive export
// slots (0..3 position, 4 + k varying component k, 68 point size) written at `offset` bytes of each
// vertex's `XfbStride` bytes in buffer `buffer` (SHADER_STATE XFB_VA's XFB_OUTPUT records).
struct XfbOutputRun {
  uint32_t slot = 0, components = 1, buffer = 0, offset = 0;
  bool operator==(const XfbOutputRun&) const = default;
};
inline constexpr uint32_t kMaxXfbBuffers = 4;
// Arrays of textures (docs/compiler.md "Textures"): at most this many elements (zink's
// PIPE_MAX_SAMPLERS), their texture records this many bytes apart.
inline constexpr uint32_t kMaxTextureArrayElements = 32;
inline constexpr uint32_t kTextureRecordStride = 128;
inline constexpr uint32_t kMaxXfbStride = 2048;

// What a compiled entry point is: an OpenCL kernel or a Vulkan shader (compile_shader_spirv): a
// vertex or fragment program of a draw, or a compute program run by a DISPATCH packet.
enum class ShaderStage : uint8_t { kKernel, kVertex, kFragment, kCompute };

struct CompiledKernel {
  std::string name;
  ShaderStage stage = ShaderStage::kKernel;
  // Vertex shaders: the draw's vertex attribute count the program assumes (its inputs are
  // attributes 0..n-1 by Location; the vertex index arrives in v[4n], the instance index in
  // v[4n+1], docs/isa.md §8d), so the draw must bind exactly this many attributes.
  uint32_t vertex_attributes = 0;
  // Vertex shaders: the varying components it writes (SHADER_STATE VERTEX.OUTPUTS); fragment
  // shaders: the components it reads (FRAGMENT.VARYINGS). Location L component c is 4L + c.
  uint32_t varying_components = 0;
  // Fragment shaders: bit k when component k is read with v_interp_linear_f32 (NoPerspective), which
  // clipping must cut in screen space (SHADER_STATE LINEAR_VARYINGS_LO / _HI).
  uint64_t linear_varyings = 0;
  // Fragment shaders: whether they declare gl_FragCoord / gl_FrontFacing, whose preloaded registers
  // (v0..v3 / v4) the device computes only then (SHADER_STATE FRAGMENT.NO_FRAGCOORD / NO_FACING clear).
  bool reads_frag_coord = false, reads_front_facing = false;
  // Vertex shaders: gl_ClipDistance and gl_CullDistance elements (SHADER_STATE VERTEX.CLIP_DISTANCES
  // / CULL_DISTANCES; exported in slots 69.., the cull distances after the clip distances).
  uint32_t clip_distances = 0, cull_distances = 0;
  // Vertex shaders with ExecutionMode Xfb: the captured outputs and each buffer's XfbStride (0: no
  // output goes to that buffer). `xfb` is the mode (a shader may declare it and capture nothing).
  bool xfb = false;
  std::vector<XfbOutputRun> xfb_outputs;
  std::array<uint32_t, kMaxXfbBuffers> xfb_strides{};
  // Graphics shaders: bytes of the draw's constant buffer (SHADER_STATE CONSTANTS_*) it reads: the
  // PushConstant block up to its last member, and the uniform-buffer table entries of the
  // descriptors it uses (docs/compiler.md "Graphics shaders", "Constant buffer"); 0 when none.
  uint32_t constant_buffer_bytes = 0;
  // Arrays of textures the program reads (docs/compiler.md "Textures"): (table slot 16 set +
  // binding, elements); the driver writes that many texture records one after another there.
  std::vector<std::pair<uint32_t, uint32_t>> texture_arrays;
  std::vector<uint32_t> code;  // entry at offset 0
  std::vector<ArgInfo> args;
  uint32_t arg_buffer_size = 0;
  uint32_t work_dim_offset = 0;
  uint32_t constant_data_offset = 0;
  std::vector<uint8_t> constant_data;
  uint32_t static_local_bytes = 0;  // __local variables declared in the kernel
  uint32_t private_bytes = 0;       // per work-item: private variables and register spills
  uint32_t reqd_work_group_size[3] = {0, 0, 0};  // 0 = not required
  uint32_t work_group_size_hint[3] = {0, 0, 0};  // 0 = no hint (reported in CL_KERNEL_ATTRIBUTES)
  uint32_t vector_registers = 0;    // registers the code names
  uint32_t scalar_registers = 0;    // s0..s(n-1): the argument-buffer pointer, kernel arguments, uniform values
  uint32_t spilled_values = 0;
  std::string assembly;             // disassembly, for dumps
  // printf: empty when the kernel never calls it. Otherwise the executor provides a printf buffer
  // through the two argument-buffer fields at printf_buffer_offset (arg_buffer.h).
  std::vector<PrintfFormat> printf_formats;
  std::vector<std::string> printf_strings;  // %s literals
  uint32_t printf_buffer_offset = 0;
  // Reads get_group_id, get_num_groups, get_global_size, get_global_offset or
  // get_global_linear_id. A kernel that does not sees the same values whether its NDRange runs as
  // one dispatch or as several, each a slab of whole groups at its own global offset (the gsgpu
  // runtime splits NDRanges over the device's per-dispatch work-item limit that way).
  bool reads_ndrange_shape = false;
  bool uses_printf() const { return !printf_formats.empty(); }
};

struct CompiledProgram {
  std::vector<CompiledKernel> kernels;
  std::string log;  // front-end diagnostics and code-generator notes
  const CompiledKernel* find(std::string_view name) const;
};

struct CompileOptions {
  // Vector registers the allocator may use (the rest of the first 256 stay free); lowering it
  // forces spilling, which the tests use. Values above 240 are clamped (16 are spill scratch).
  uint32_t max_vector_registers = 240;
  // Scalar registers for the argument-buffer pointer and the kernel arguments, loaded once at
  // entry (s_load) and never written again, then for the uniform values the entry region computes
  // from them (uniform.h); arguments and values past the budget stay per lane in vector registers.
  // Values above 128 are clamped; the tests lower it to force that path.
  uint32_t max_scalar_registers = 128;
  // OpenCL C builds (build_opencl_c): whether the device offers images (FrontendDevice::images):
  // __IMAGE_SUPPORT__ and __opencl_c_images. The image built-ins compile either way.
  bool images = true;
};

// SPIR-V -> gsgpu. False with *error naming the kernel and the SPIR-V construct it cannot compile
// (opcode, extended instruction) or the module's defect (word offset).
bool compile_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* error,
                   const CompileOptions& options = {});

// Vulkan SPIR-V (Shader capability) -> gsgpu vertex, fragment and compute programs, one
// CompiledKernel per Vertex / Fragment / GLCompute entry point (docs/compiler.md "Graphics shaders",
// "Compute shaders"). False with *error naming
// the entry point and the instruction, capability, storage class or decoration it cannot compile.
bool compile_shader_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* error,
                          const CompileOptions& options = {});

// OpenCL C -> SPIR-V (frontend.h) -> gsgpu. *log gets clang's diagnostics and, on a code-generator
// failure, its message. The status says which step failed.
BuildStatus build_opencl_c(std::string_view source, std::string_view build_options, CompiledProgram* out,
                           std::string* log, const CompileOptions& options = {});
// The same with clCompileProgram's embedded headers.
BuildStatus build_opencl_c(std::string_view source, std::string_view build_options, const EmbeddedHeaders& headers,
                           CompiledProgram* out, std::string* log, const CompileOptions& options = {});

// clCreateProgramWithIL: validates (validate_spirv) and compiles.
BuildStatus build_spirv(std::span<const uint32_t> spirv, CompiledProgram* out, std::string* log,
                        const CompileOptions& options = {});

}  // namespace gsgpu::compiler
