// Programs: OpenCL C or SPIR-V built by gsgpu/compiler. A failed build is CL_BUILD_PROGRAM_FAILURE
// (or the spec's more precise error) with the compiler's log, never a fake success.
//
// Program binaries are this executor's own format: a header and the program's source (or SPIR-V),
// rebuilt by clBuildProgram. Anything else given to clCreateProgramWithBinary is CL_INVALID_BINARY.
#include "common/cl/program_includes.h"
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/printf.h"

namespace gsgpu::cl {
namespace {

using BuildNotify = void(CL_CALLBACK*)(cl_program, void*);

constexpr char kBinaryMagic[8] = {'G', 'S', 'G', 'P', 'U', 'C', 'L', '1'};
struct BinaryHeader {
  char magic[8];
  uint32_t kind;          // BinaryKind
  uint32_t options_size;  // bytes of build options after the header, then the payload
};
static_assert(sizeof(BinaryHeader) == 16);

Program* new_program(Context* c, Program::Origin origin) {
  auto* p = make_object<Program>(c->rt, Kind::kProgram);
  p->context = c;
  retain_internal(c);
  p->origin = origin;
  p->quota = QuotaHold(c->rt->program_quota);
  return p;
}

// A new program's texts against the quota; a program they do not fit is released (its only
// reference) and the call fails with CL_OUT_OF_HOST_MEMORY.
Program* admit_program(Program* p, const char* entry, cl_int* errcode_ret) {
  if (charge_program(p, entry)) return p;
  release_app(p);
  set_error(errcode_ret, CL_OUT_OF_HOST_MEMORY);
  return nullptr;
}

// Compiled objects and libraries (clCompileProgram, clLinkProgram -create-library) are not code yet:
// their binaries carry what a later link needs, the source (or SPIR-V) and the embedded headers.
// Payload of such a binary: u32 count of headers, each as u32 name size, name, u32 text size, text;
// then the unit's source or SPIR-V (BinaryHeader.kind says which and what the program is).
enum BinaryKind : uint32_t {
  kBinarySource = 0,
  kBinarySpirv = 1,
  kBinaryObjectSource = 2,
  kBinaryObjectSpirv = 3,
  kBinaryLibrarySource = 4,
  kBinaryLibrarySpirv = 5,
};

void append_u32(std::vector<uint8_t>* out, uint64_t v) {
  const uint32_t u = uint32_t(v);
  const auto* b = reinterpret_cast<const uint8_t*>(&u);
  out->insert(out->end(), b, b + sizeof u);
}

uint32_t binary_kind(const Program* p) {
  const bool spirv = !p->il.empty();
  switch (p->binary_type) {
    case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT: return spirv ? kBinaryObjectSpirv : kBinaryObjectSource;
    case CL_PROGRAM_BINARY_TYPE_LIBRARY: return spirv ? kBinaryLibrarySpirv : kBinaryLibrarySource;
    default: return spirv ? kBinarySpirv : kBinarySource;
  }
}

std::vector<uint8_t> serialize(const Program* p) {
  BinaryHeader h{};
  std::memcpy(h.magic, kBinaryMagic, sizeof h.magic);
  h.kind = binary_kind(p);
  h.options_size = uint32_t(p->options.size());
  std::vector<uint8_t> out(sizeof h);
  std::memcpy(out.data(), &h, sizeof h);
  out.insert(out.end(), p->options.begin(), p->options.end());
  if (h.kind >= kBinaryObjectSource) {
    append_u32(&out, p->headers.size());
    for (const auto& [name, text] : p->headers) {
      append_u32(&out, name.size());
      out.insert(out.end(), name.begin(), name.end());
      append_u32(&out, text.size());
      out.insert(out.end(), text.begin(), text.end());
    }
  }
  if (!p->il.empty()) {
    const auto* b = reinterpret_cast<const uint8_t*>(p->il.data());
    out.insert(out.end(), b, b + p->il.size() * 4);
  } else {
    out.insert(out.end(), p->source.begin(), p->source.end());
  }
  return out;
}

// Reads the bytes of a binary front to back; every read is checked against what is left.
struct BinaryReader {
  const unsigned char* at;
  size_t left;
  bool u32(uint32_t* v) {
    if (left < sizeof *v) return false;
    std::memcpy(v, at, sizeof *v);
    at += sizeof *v;
    left -= sizeof *v;
    return true;
  }
  bool text(std::string* out) {
    uint32_t n = 0;
    if (!u32(&n) || n > left) return false;
    out->assign(reinterpret_cast<const char*>(at), n);
    at += n;
    left -= n;
    return true;
  }
};

constexpr uint32_t kMaxBinaryHeaders = 256;  // as many as clCompileProgram takes

// Loads one of our binaries into `p` (source or SPIR-V, the options it was built with, and for a
// compiled object or library its headers and binary type); false for anything else.
bool deserialize(const unsigned char* data, size_t size, Program* p, std::string* options) {
  BinaryHeader h;
  if (!data || size < sizeof h) return false;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, kBinaryMagic, sizeof h.magic) != 0 || h.options_size > size - sizeof h) return false;
  if (h.kind > kBinaryLibrarySpirv) return false;
  options->assign(reinterpret_cast<const char*>(data + sizeof h), h.options_size);
  BinaryReader r{data + sizeof h + h.options_size, size - sizeof h - h.options_size};
  p->binary_type = h.kind >= kBinaryLibrarySource  ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                   : h.kind >= kBinaryObjectSource ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
                                                   : CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  if (h.kind >= kBinaryObjectSource) {
    uint32_t count = 0;
    if (!r.u32(&count) || count > kMaxBinaryHeaders) return false;
    for (uint32_t i = 0; i < count; ++i) {
      std::pair<std::string, std::string> header;
      if (!r.text(&header.first) || !r.text(&header.second)) return false;
      p->headers.push_back(std::move(header));
    }
  }
  if (h.kind % 2 == 0) {  // source kinds
    p->source.assign(reinterpret_cast<const char*>(r.at), r.left);
    return true;
  }
  if (r.left == 0 || r.left % 4) return false;
  p->il.resize(r.left / 4);
  std::memcpy(p->il.data(), r.at, r.left);
  return true;
}

cl_int status_error(gsgpu::compiler::BuildStatus s) {
  using gsgpu::compiler::BuildStatus;
  switch (s) {
    case BuildStatus::kSuccess: return CL_SUCCESS;
    case BuildStatus::kInvalidOptions: return CL_INVALID_BUILD_OPTIONS;
    case BuildStatus::kToolMissing: return CL_COMPILER_NOT_AVAILABLE;
    default: return CL_BUILD_PROGRAM_FAILURE;
  }
}

std::shared_ptr<BuiltProgram> keep_kernels(Runtime* rt, gsgpu::compiler::CompiledProgram&& compiled) {
  auto built = std::make_shared<BuiltProgram>();
  built->rt = rt;
  for (auto& k : compiled.kernels) {
    auto image = std::make_unique<KernelImage>();
    image->compiled = std::move(k);
    if (image->compiled.uses_printf()) image->printf_table = parse_printf_formats(image->compiled);
    built->kernels.push_back(std::move(image));
  }
  return built;
}

}  // namespace

bool charge_program(Program* p, const char* what, const std::vector<std::pair<std::string, std::string>>* headers) {
  uint64_t bytes = p->source.size() + (p->il.size() + p->object_spirv.size()) * sizeof(uint32_t) + p->options.size() +
                   p->log.size();
  for (const auto& [name, text] : headers ? *headers : p->headers) bytes += name.size() + text.size();
  return p->quota.resize(bytes, what);
}

void set_build_log(Program* p, std::string log) {
  const uint64_t max = p->rt->config().build_log_max_kb << 10;
  if (max && log.size() > max) {
    log.resize(max);
    log += "\n[build log truncated at " + std::to_string(max) + " bytes]\n";
  }
  p->log.clear();
  charge_program(p, "build log");  // what the program holds without a log always fits: it did before
  p->log = std::move(log);
  if (!charge_program(p, "build log")) {
    p->log = "[build log dropped: the context's program quota is full]";
    if (!charge_program(p, "build log")) p->log.clear();
  }
}

std::string source_to_compile(const Program* p, std::string* options) {
  *options = p->options;
  if (!p->rt->config().resolve_includes_locally) return p->source;
  std::vector<std::string> dirs;
  *options = gsvirt::cl::take_include_dirs(p->options, &dirs);
  bool changed = false;
  return gsvirt::cl::inline_includes(p->source, dirs, gsvirt::cl::define_options(p->options), &changed);
}

cl_int build_program(Program* p, const char* options) {
  if (p->attached_kernels) return CL_INVALID_OPERATION;  // the spec: kernels are attached
  if (p->origin == Program::Origin::kBinary && p->source.empty() && p->il.empty()) return CL_INVALID_BINARY;
  p->options = options ? options : "";
  p->object_spirv.clear();
  gsgpu::compiler::CompiledProgram compiled;
  std::string log;
  gsgpu::compiler::BuildStatus s;
  if (!p->il.empty())
    s = gsgpu::compiler::build_spirv(p->il, &compiled, &log);
  else {
    std::string compile_options;
    const std::string source = source_to_compile(p, &compile_options);
    gsgpu::compiler::CompileOptions device;
    device.images = p->rt->config().image_support;
    s = gsgpu::compiler::build_opencl_c(source, compile_options, p->headers, &compiled, &log, device);
  }
  const cl_int err = status_error(s);
  if (err != CL_SUCCESS && log.empty())
    log = std::string("gsgpu compiler: build failed (") + gsgpu::compiler::build_status_name(s) + ")";
  set_build_log(p, std::move(log));
  p->built.reset();
  if (err != CL_SUCCESS) {
    p->build_status = CL_BUILD_ERROR;
    return err;
  }
  p->built = keep_kernels(p->rt, std::move(compiled));
  if (p->il.empty())
    attach_source_info(p->source, p->options.find("-cl-kernel-arg-info") != std::string::npos, p->built.get());
  p->build_status = CL_BUILD_SUCCESS;
  p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  return CL_SUCCESS;
}

cl_int check_device_list(const Runtime* rt, cl_uint n, const cl_device_id* devices) {
  if ((n == 0) != (devices == nullptr)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (as<Device>(devices[i], Kind::kDevice) != rt->device_object) return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

namespace {

std::string kernel_names(const Program* p) {
  std::string names;
  for (const auto& k : p->built->kernels) names += (names.empty() ? "" : ";") + k->compiled.name;
  return names;
}

cl_int binaries_info(const Program* p, cl_program_info param, size_t size, void* value, size_t* ret) {
  const bool built = p->build_status == CL_BUILD_SUCCESS;
  const std::vector<uint8_t> binary = built ? serialize(p) : std::vector<uint8_t>{};
  if (param == CL_PROGRAM_BINARY_SIZES) return put_value(binary.size(), size, value, ret);
  // CL_PROGRAM_BINARIES: an array of one pointer, which the application allocated.
  if (ret) *ret = sizeof(unsigned char*);
  if (!value) return CL_SUCCESS;
  if (size < sizeof(unsigned char*)) return CL_INVALID_VALUE;
  unsigned char* dst = nullptr;
  std::memcpy(&dst, value, sizeof dst);
  if (dst && !binary.empty()) std::memcpy(dst, binary.data(), binary.size());
  return CL_SUCCESS;
}

}  // namespace

cl_program CL_API_CALL gsgpu_clCreateProgramWithSource(cl_context context, cl_uint count, const char** strings,
                                                       const size_t* lengths, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  if (count == 0 || !strings) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  std::string source;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) {
      set_error(errcode_ret, CL_INVALID_VALUE);
      return nullptr;
    }
    if (lengths && lengths[i])
      source.append(strings[i], lengths[i]);
    else
      source.append(strings[i]);
  }
  std::lock_guard lock(c->rt->mutex);
  Program* p = new_program(c, Program::Origin::kSource);
  p->source = std::move(source);
  if (!admit_program(p, "clCreateProgramWithSource", errcode_ret)) return nullptr;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_program>(p);
}

cl_program CL_API_CALL gsgpu_clCreateProgramWithIL(cl_context context, const void* il, size_t length,
                                                   cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  if (!il || length == 0 || length % 4) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  std::vector<uint32_t> words(length / 4);
  std::memcpy(words.data(), il, length);
  std::string log;
  if (gsgpu::compiler::validate_spirv(words, &log) != gsgpu::compiler::BuildStatus::kSuccess) {
    log_once("clCreateProgramWithIL", "SPIR-V rejected: " + log);
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  Program* p = new_program(c, Program::Origin::kIL);
  p->il = std::move(words);
  if (!admit_program(p, "clCreateProgramWithIL", errcode_ret)) return nullptr;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_program>(p);
}

cl_program CL_API_CALL gsgpu_clCreateProgramWithBinary(cl_context context, cl_uint n, const cl_device_id* devices,
                                                       const size_t* lengths, const unsigned char** binaries,
                                                       cl_int* binary_status, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  if (n != 1 || !devices || !lengths || !binaries) {
    set_error(errcode_ret, n == 0 || !devices ? CL_INVALID_VALUE : (n > 1 ? CL_INVALID_DEVICE : CL_INVALID_VALUE));
    return nullptr;
  }
  if (as<Device>(devices[0], Kind::kDevice) != c->rt->device_object) {
    set_error(errcode_ret, CL_INVALID_DEVICE);
    return nullptr;
  }
  if (!binaries[0] || lengths[0] == 0) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  Program* p = new_program(c, Program::Origin::kBinary);
  std::string options;
  // A binary is an executable: it is compiled now (the front end caches it), so kernels can be
  // created from it even before the clBuildProgram the spec asks for.
  const bool read = deserialize(binaries[0], lengths[0], p, &options);
  if (read && !charge_program(p, "clCreateProgramWithBinary")) {
    release_app(p);
    if (binary_status) binary_status[0] = CL_OUT_OF_HOST_MEMORY;
    set_error(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return nullptr;
  }
  if (read && p->binary_type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
    // A compiled object or library: checked by the front end when it is linked, as after
    // clCompileProgram.
    p->options = options;
    p->build_status = CL_BUILD_SUCCESS;
    if (binary_status) binary_status[0] = CL_SUCCESS;
    set_error(errcode_ret, CL_SUCCESS);
    return handle_of<cl_program>(p);
  }
  if (!read || build_program(p, options.c_str()) != CL_SUCCESS) {
    release_app(p);  // the only reference: destroyed, its context released
    if (binary_status) binary_status[0] = CL_INVALID_BINARY;
    set_error(errcode_ret, CL_INVALID_BINARY);
    return nullptr;
  }
  if (binary_status) binary_status[0] = CL_SUCCESS;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_program>(p);
}

cl_program CL_API_CALL gsgpu_clCreateProgramWithBuiltInKernels(cl_context context, cl_uint, const cl_device_id*,
                                                               const char*, cl_int* errcode_ret) {
  // The device has no built-in kernels (CL_DEVICE_BUILT_IN_KERNELS is empty).
  set_error(errcode_ret, as<Context>(context, Kind::kContext) ? CL_INVALID_VALUE : CL_INVALID_CONTEXT);
  return nullptr;
}

cl_int CL_API_CALL gsgpu_clRetainProgram(cl_program program) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  retain_app(p);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseProgram(cl_program program) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  std::lock_guard lock(p->rt->mutex);
  return release_app(p);
}

cl_int CL_API_CALL gsgpu_clBuildProgram(cl_program program, cl_uint n, const cl_device_id* devices,
                                        const char* options, BuildNotify notify, void* data) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  cl_int err = check_device_list(p->rt, n, devices);
  if (err != CL_SUCCESS) return err;
  if (!notify && data) return CL_INVALID_VALUE;
  {
    std::lock_guard lock(p->rt->mutex);
    err = build_program(p, options);
  }
  if (notify) notify(program, data);
  return err;
}

cl_int CL_API_CALL gsgpu_clUnloadCompiler() { return CL_SUCCESS; }

cl_int CL_API_CALL gsgpu_clGetProgramInfo(cl_program program, cl_program_info param, size_t size, void* value,
                                          size_t* ret) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  std::lock_guard lock(p->rt->mutex);
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return put_value(cl_uint(p->app_refs()), size, value, ret);
    case CL_PROGRAM_CONTEXT: return put_value(handle_of<cl_context>(p->context), size, value, ret);
    case CL_PROGRAM_NUM_DEVICES: return put_value(cl_uint(1), size, value, ret);
    case CL_PROGRAM_DEVICES: return put_value(handle_of<cl_device_id>(p->rt->device_object), size, value, ret);
    case CL_PROGRAM_SOURCE:
      return put_string(p->origin == Program::Origin::kSource ? p->source : "", size, value, ret);
    case CL_PROGRAM_IL:
      return put_info(p->il.data(), p->il.size() * 4, size, value, ret);
    case CL_PROGRAM_BINARY_SIZES:
    case CL_PROGRAM_BINARIES: return binaries_info(p, param, size, value, ret);
    case CL_PROGRAM_NUM_KERNELS:
      if (!p->built) return CL_INVALID_PROGRAM_EXECUTABLE;
      return put_value(size_t(p->built->kernels.size()), size, value, ret);
    // No program-scope global variables, so no constructors or destructors for them.
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
      if (!p->built) return CL_INVALID_PROGRAM_EXECUTABLE;
      return put_value(cl_bool(CL_FALSE), size, value, ret);
    case CL_PROGRAM_KERNEL_NAMES:
      if (!p->built) return CL_INVALID_PROGRAM_EXECUTABLE;
      return put_string(kernel_names(p), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info param,
                                               size_t size, void* value, size_t* ret) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  if (as<Device>(device, Kind::kDevice) != p->rt->device_object) return CL_INVALID_DEVICE;
  std::lock_guard lock(p->rt->mutex);
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS: return put_value(p->build_status, size, value, ret);
    case CL_PROGRAM_BUILD_OPTIONS: return put_string(p->options, size, value, ret);
    case CL_PROGRAM_BUILD_LOG: return put_string(p->log, size, value, ret);
    case CL_PROGRAM_BINARY_TYPE: return put_value(p->binary_type, size, value, ret);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: return put_value(size_t(0), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
