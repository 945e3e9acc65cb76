// Separate compilation: clCompileProgram checks a source (with embedded headers) through the front
// end; clLinkProgram joins compiled objects and libraries. One unit links as it is (its source, or
// its SPIR-V); several are compiled to SPIR-V each, with their own options and headers, and joined
// by spirv-link (gsgpu/compiler/spirv_link.h): each unit may define the same struct type, a
// function declared in one is found in another, and a function defined twice is a link error
// (reported in the log). The result of such a link is a SPIR-V program (an executable, or with
// -create-library a library that keeps its exports).
#include <algorithm>
#include <cctype>

#include "gsgpu/cl/entry_points.h"
#include "gsgpu/compiler/spirv_link.h"

namespace gsgpu::cl {
namespace {

using BuildNotify = void(CL_CALLBACK*)(cl_program, void*);

constexpr size_t kMaxHeaders = 256;

bool known_link_option(const std::string& t) {
  static const char* const kKnown[] = {"-create-library",       "-enable-link-options",
                                       "-cl-denorms-are-zero",  "-cl-no-signed-zeros",
                                       "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
                                       "-cl-fast-relaxed-math", "-cl-no-subgroup-ifp"};
  for (const char* k : kKnown)
    if (t == k) return true;
  return false;
}

// False (and the offending option) for an option clLinkProgram does not define.
bool check_link_options(const std::string& options, bool* library, std::string* bad) {
  *library = false;
  size_t i = 0;
  while (i < options.size()) {
    while (i < options.size() && std::isspace(static_cast<unsigned char>(options[i]))) ++i;
    size_t j = i;
    while (j < options.size() && !std::isspace(static_cast<unsigned char>(options[j]))) ++j;
    if (j > i) {
      const std::string t = options.substr(i, j - i);
      if (!known_link_option(t)) {
        *bad = t;
        return false;
      }
      *library |= t == "-create-library";
    }
    i = j;
  }
  return true;
}

// Embedded headers: (include name, text of the header program).
cl_int collect_headers(Program* p, cl_uint n, const cl_program* programs, const char** names,
                       std::vector<std::pair<std::string, std::string>>* out) {
  if (n == 0) return (programs || names) ? CL_INVALID_VALUE : CL_SUCCESS;
  if (!programs || !names || n > kMaxHeaders) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i) {
    auto* h = as<Program>(programs[i], Kind::kProgram);
    if (!h || h->context != p->context) return CL_INVALID_PROGRAM;
    if (!names[i]) return CL_INVALID_VALUE;
    out->emplace_back(names[i], h->source);
  }
  return CL_SUCCESS;
}

// A unit's SPIR-V for the linker, as version 1.0 (spirv_link.h): an OpenCL C unit's from its
// clCompileProgram (compiled again with its options and headers when it came from a binary); a
// SPIR-V unit's (from clCreateProgramWithIL, or from a binary, whose payload nothing has checked
// yet) validated. The front end's output is not: the linked executable is, by clBuildProgram's
// path. CL_LINK_PROGRAM_FAILURE (or CL_COMPILER_NOT_AVAILABLE) with the reason in *log.
cl_int unit_spirv(const Program* u, size_t index, std::vector<uint32_t>* out, std::string* log) {
  using gsgpu::compiler::BuildStatus;
  std::string unit_log;
  BuildStatus s = BuildStatus::kSuccess;
  if (!u->il.empty()) {
    *out = gsgpu::compiler::as_spirv_1_0(u->il);
    s = gsgpu::compiler::validate_spirv(*out, &unit_log);
  } else if (!u->object_spirv.empty()) {
    *out = gsgpu::compiler::as_spirv_1_0(u->object_spirv);
  } else {
    std::string compile_options;
    const std::string source = source_to_compile(u, &compile_options);
    s = gsgpu::compiler::compile_opencl_c(source, compile_options, u->headers, out, &unit_log);
    if (s == BuildStatus::kSuccess) *out = gsgpu::compiler::as_spirv_1_0(*out);
  }
  if (!unit_log.empty()) *log += "unit " + std::to_string(index) + ":\n" + unit_log;
  if (s == BuildStatus::kToolMissing) return CL_COMPILER_NOT_AVAILABLE;
  return s == BuildStatus::kSuccess ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE;
}

// Several units: each one's SPIR-V, joined by spirv-link into out->il. The build log says what
// failed; the error is CL_LINK_PROGRAM_FAILURE, or CL_COMPILER_NOT_AVAILABLE without the tools.
cl_int link_units(const std::vector<Program*>& units, bool library, Program* out) {
  using gsgpu::compiler::BuildStatus;
  if (units.size() > gsgpu::compiler::kMaxLinkedModules) {
    set_build_log(out, "gsgpu: more than " + std::to_string(gsgpu::compiler::kMaxLinkedModules) + " units in one link");
    return CL_LINK_PROGRAM_FAILURE;
  }
  std::vector<std::vector<uint32_t>> modules(units.size());
  std::string log;
  for (size_t i = 0; i < units.size(); ++i) {
    if (cl_int err = unit_spirv(units[i], i, &modules[i], &log); err != CL_SUCCESS) {
      set_build_log(out, std::move(log));
      return err;
    }
  }
  std::string link_log;
  const BuildStatus s = gsgpu::compiler::link_spirv(modules, library, &out->il, &link_log);
  set_build_log(out, log + link_log);
  if (s == BuildStatus::kToolMissing) return CL_COMPILER_NOT_AVAILABLE;
  return s == BuildStatus::kSuccess ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE;
}

// The failed link's program: the application may read its build log.
cl_program failed_link(Program* out, cl_int err, BuildNotify notify, void* data, cl_int* errcode_ret) {
  out->il.clear();
  out->build_status = CL_BUILD_ERROR;
  if (notify) notify(handle_of<cl_program>(out), data);
  set_error(errcode_ret, err);
  return handle_of<cl_program>(out);
}

}  // namespace

cl_int CL_API_CALL gsgpu_clCompileProgram(cl_program program, cl_uint n, const cl_device_id* devices,
                                          const char* options, cl_uint num_headers, const cl_program* headers,
                                          const char** names, BuildNotify notify, void* data) {
  auto* p = as<Program>(program, Kind::kProgram);
  if (!p) return CL_INVALID_PROGRAM;
  if (cl_int err = check_device_list(p->rt, n, devices); err != CL_SUCCESS) return err;
  if (!notify && data) return CL_INVALID_VALUE;
  if (p->origin == Program::Origin::kBinary) return CL_INVALID_OPERATION;
  std::lock_guard lock(p->rt->mutex);
  if (p->attached_kernels) return CL_INVALID_OPERATION;
  if (p->origin == Program::Origin::kIL) {
    // SPIR-V was checked when the program was made; the code generator takes it at the link.
    if (num_headers || headers || names) return CL_INVALID_VALUE;
    p->options = options ? options : "";
    p->built.reset();
    set_build_log(p, "");
    p->build_status = CL_BUILD_SUCCESS;
    p->binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    if (notify) notify(program, data);
    return CL_SUCCESS;
  }
  std::vector<std::pair<std::string, std::string>> embedded;
  cl_int err = collect_headers(p, num_headers, headers, names, &embedded);
  if (err != CL_SUCCESS) return err;
  // Every copy counts (one header named 256 times is 256 copies, in memory and on disk), before
  // any is written.
  if (!charge_program(p, "clCompileProgram: embedded headers", &embedded)) return CL_OUT_OF_HOST_MEMORY;
  p->options = options ? options : "";
  p->headers = std::move(embedded);
  p->object_spirv.clear();
  p->built.reset();
  {
    // The front end alone: errors show now, code generation waits for the link.
    std::vector<uint32_t> spirv;
    using gsgpu::compiler::BuildStatus;
    std::string log;
    std::string compile_options;
    const std::string source = source_to_compile(p, &compile_options);
    const gsgpu::compiler::FrontendDevice device{p->rt->config().image_support};
    const BuildStatus s = gsgpu::compiler::compile_opencl_c(gsgpu::compiler::toolchain(), source, compile_options,
                                                            p->headers, device, &spirv, &log);
    set_build_log(p, std::move(log));
    if (s == BuildStatus::kSuccess) {
      p->object_spirv = std::move(spirv);
      if (!charge_program(p, "clCompileProgram")) p->object_spirv.clear();  // compiled again at the link
    }
    err = s == BuildStatus::kSuccess          ? CL_SUCCESS
          : s == BuildStatus::kInvalidOptions ? CL_INVALID_COMPILER_OPTIONS
          : s == BuildStatus::kToolMissing    ? CL_COMPILER_NOT_AVAILABLE
                                              : CL_COMPILE_PROGRAM_FAILURE;
  }
  p->build_status = err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  p->binary_type = err == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : CL_PROGRAM_BINARY_TYPE_NONE;
  if (notify) notify(program, data);
  return err;
}

cl_program CL_API_CALL gsgpu_clLinkProgram(cl_context context, cl_uint n, const cl_device_id* devices,
                                           const char* options, cl_uint num_inputs, const cl_program* inputs,
                                           BuildNotify notify, void* data, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  cl_int err = CL_SUCCESS;
  if (num_inputs == 0 || !inputs || (!notify && data)) err = CL_INVALID_VALUE;
  if (err == CL_SUCCESS) err = check_device_list(c->rt, n, devices);
  bool library = false;
  std::string bad;
  if (err == CL_SUCCESS && !check_link_options(options ? options : "", &library, &bad)) {
    log_once("clLinkProgram", "unknown linker option " + bad);
    err = CL_INVALID_LINKER_OPTIONS;
  }
  std::vector<Program*> units;
  for (cl_uint i = 0; err == CL_SUCCESS && i < num_inputs; ++i) {
    auto* p = as<Program>(inputs[i], Kind::kProgram);
    if (!p || p->context != c) err = CL_INVALID_PROGRAM;
    // The spec: inputs are compiled objects or libraries.
    else if (p->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
             p->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
      err = CL_INVALID_OPERATION;
    else
      units.push_back(p);
  }
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  auto* out = make_object<Program>(c->rt, Kind::kProgram);
  out->context = c;
  retain_internal(c);
  out->quota = QuotaHold(c->rt->program_quota);
  if (units.size() > 1) {
    err = link_units(units, library, out);
    if (err != CL_SUCCESS) return failed_link(out, err, notify, data, errcode_ret);
  } else {
    // One unit links as it is, its embedded headers kept for a later build.
    out->il = units[0]->il;
    out->source = units[0]->source;
    out->headers = units[0]->headers;
  }
  if (!charge_program(out, "clLinkProgram")) {
    release_app(out);
    set_error(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return nullptr;
  }
  if (library) {
    out->options = units[0]->options;
    out->build_status = CL_BUILD_SUCCESS;
    out->binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
  } else {
    err = build_program(out, units[0]->options.c_str());
    if (err == CL_BUILD_PROGRAM_FAILURE) err = CL_LINK_PROGRAM_FAILURE;
    // Argument type names come from the kernels' declarations in the units' sources.
    if (err == CL_SUCCESS && units.size() > 1) {
      std::string sources;
      for (const Program* u : units) sources += u->source + "\n";
      attach_source_info(sources, out->options.find("-cl-kernel-arg-info") != std::string::npos, out->built.get());
    }
  }
  if (notify) notify(handle_of<cl_program>(out), data);
  set_error(errcode_ret, err);
  return handle_of<cl_program>(out);
}

}  // namespace gsgpu::cl
