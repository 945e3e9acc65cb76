// Program commands: create from source / binary / IL / built-ins, build, compile, link, info.
//
// Build options and #includes name the guest's files, never the host's: options are limited to
// OpenCL's own (no -I: the guest driver sends the headers a program needs), and on an executor
// whose compiler runs in this process (a vendor ICD such as PoCL) the program is first
// preprocessed in the compiler sandbox, so that the vendor's compiler finds nothing to open.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "gsgpu/compiler/frontend.h"
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// Wire strings are not NUL-terminated; OpenCL wants C strings.
std::string c_string(std::string_view s) { return std::string(s.data(), s.size()); }

// OpenCL's build, compile and link options (OpenCL 3.0 section 5.8.6) and the informational ones
// applications pass; -D and -U are checked apart.
constexpr std::string_view kOpenClFlags[] = {
    "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-strict-aliasing", "-cl-uniform-work-group-size",
    "-cl-no-subgroup-ifp", "-cl-kernel-arg-info", "-w", "-Werror", "-g", "-create-library",
    "-enable-link-options", "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"};

std::vector<std::string_view> words(std::string_view options) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < options.size();) {
    const size_t start = options.find_first_not_of(" \t\n\r\f\v", at);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(options.find_first_of(" \t\n\r\f\v", start), options.size());
    out.push_back(options.substr(start, end - start));
    at = end;
  }
  return out;
}

// Whether every blank-separated word of a guest's options is an OpenCL option. Words, not the
// vendor's own tokenising (quotes): a word the vendor might split differently is refused, so
// "-DX=\"a -include /etc/passwd\"" cannot smuggle a vendor flag. *bad names the first refused word.
bool guest_options_allowed(std::string_view options, std::string* bad) {
  const std::vector<std::string_view> list = words(options);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string_view w = list[i];
    const bool macro = w.substr(0, 2) == "-D" || w.substr(0, 2) == "-U";
    if (macro && w.size() == 2 && i + 1 < list.size() && list[i + 1].front() != '-') {
      ++i;
      continue;
    }
    if (macro && w.size() > 2) continue;
    if (std::find(std::begin(kOpenClFlags), std::end(kOpenClFlags), w) != std::end(kOpenClFlags)) continue;
    *bad = std::string(w);
    if (w.substr(0, 2) == "-I")
      *bad += " (include directories name guest files: the guest driver sends the headers a program includes)";
    return false;
  }
  return true;
}

// The options without -D/-U, which the preprocessing applied.
std::string without_macros(std::string_view options) {
  std::string out;
  const std::vector<std::string_view> list = words(options);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string_view w = list[i];
    if (w == "-D" || w == "-U") {
      ++i;
      continue;
    }
    if (w.substr(0, 2) == "-D" || w.substr(0, 2) == "-U") continue;
    out += std::string(w) + " ";
  }
  return out;
}

std::string string_info(const cl_icd_dispatch& api, cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (api.clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (api.clGetDeviceInfo(device, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

// What the vendor's preprocessor would define for its device: the OpenCL version, its
// extensions (clang's -cl-ext) and image support.
std::vector<std::string> device_args(const cl_icd_dispatch& api, cl_device_id device) {
  std::vector<std::string> args;
  const std::string version = string_info(api, device, CL_DEVICE_VERSION);  // "OpenCL 3.0 ..."
  if (version.size() >= 10 && std::isdigit(static_cast<unsigned char>(version[7])) &&
      std::isdigit(static_cast<unsigned char>(version[9])))
    args.push_back(std::string("-D__OPENCL_VERSION__=") + version[7] + version[9] + "0");
  std::string ext = "-cl-ext=-all";
  const std::string extensions = string_info(api, device, CL_DEVICE_EXTENSIONS);  // outlives the words
  for (std::string_view e : words(extensions)) ext += ",+" + std::string(e);
  // OpenCL C 3.0 feature macros too: under -cl-std=CL3.0 clang refuses an extension and its feature
  // set differently (cl_khr_fp64 / __opencl_c_fp64, cl_khr_3d_image_writes / __opencl_c_3d_image_writes).
  size_t features_size = 0;
  if (api.clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &features_size) == CL_SUCCESS &&
      features_size >= sizeof(cl_name_version)) {
    std::vector<cl_name_version> features(features_size / sizeof(cl_name_version));
    if (api.clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, features.size() * sizeof(cl_name_version),
                            features.data(), nullptr) == CL_SUCCESS)
      for (const cl_name_version& f : features)
        ext += ",+" + std::string(f.name, strnlen(f.name, CL_NAME_VERSION_MAX_NAME_SIZE));
  }
  args.insert(args.end(), {"-Xclang", ext});
  cl_bool images = CL_FALSE;
  api.clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) args.push_back("-U__IMAGE_SUPPORT__");
  return args;
}

// A program whose build fails with `log` as its message: how the preprocessor's diagnostics reach
// the guest through the vendor's build log.
std::string failing_program(const std::string& log) {
  std::string source;
  size_t start = 0;
  while (start < log.size()) {
    const size_t end = std::min(log.find('\n', start), log.size());
    if (end > start) source += "#error " + log.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return source.empty() ? "#error the program could not be preprocessed\n" : source;
}

// Replaces *program (a program from source on an in-process executor) with one made from the
// guest's source preprocessed in the compiler sandbox. A program with kernels keeps its handle (the
// vendor refuses to build it anyway). CL_SUCCESS, or the OpenCL error to return.
cl_int preprocess_for_vendor(const cl_icd_dispatch& api, ProgramObject* p, std::string_view options,
                             const gsgpu::compiler::EmbeddedHeaders& headers) {
  if (!p->guest_source) return CL_SUCCESS;  // from a binary or IL: nothing to preprocess
  cl_uint references = 0;
  api.clGetProgramInfo(p->handle, CL_PROGRAM_REFERENCE_COUNT, sizeof references, &references, nullptr);
  if (references != 1) return CL_INVALID_OPERATION;
  cl_context context = nullptr;
  cl_uint device_count = 0;
  if (api.clGetProgramInfo(p->handle, CL_PROGRAM_CONTEXT, sizeof context, &context, nullptr) != CL_SUCCESS ||
      api.clGetProgramInfo(p->handle, CL_PROGRAM_NUM_DEVICES, sizeof device_count, &device_count, nullptr) !=
          CL_SUCCESS ||
      device_count == 0)
    return CL_OUT_OF_RESOURCES;
  std::vector<cl_device_id> devices(device_count);
  if (api.clGetProgramInfo(p->handle, CL_PROGRAM_DEVICES, devices.size() * sizeof(cl_device_id), devices.data(),
                           nullptr) != CL_SUCCESS)
    return CL_OUT_OF_RESOURCES;
  const cl_device_id device = devices[0];  // the macros of the first device (one device in practice)
  std::string text, log;
  const auto status = gsgpu::compiler::preprocess_opencl_c(*p->guest_source, options, headers,
                                                           device_args(api, device), &text, &log);
  if (status == gsgpu::compiler::BuildStatus::kInvalidOptions) return CL_INVALID_BUILD_OPTIONS;
  if (status != gsgpu::compiler::BuildStatus::kSuccess) text = failing_program(log);
  p->host_build_log.reset();
  if (status == gsgpu::compiler::BuildStatus::kToolMissing) p->host_build_log = log;
  const char* lines = text.c_str();
  cl_int err = CL_SUCCESS;
  cl_program replacement = api.clCreateProgramWithSource(context, 1, &lines, nullptr, &err);
  if (err != CL_SUCCESS) return err;
  api.clReleaseProgram(p->handle);
  p->handle = replacement;
  return CL_SUCCESS;
}

// Options with -cl-kernel-arg-info added: vcomp needs every kernel's argument metadata to tell
// memory objects from values (kernel_args.cc). Records the guest's own options when the flag was
// added, for CL_PROGRAM_BUILD_OPTIONS.
std::string with_arg_info(std::string options, std::string_view guest, ProgramObject* program) {
  static constexpr char kFlag[] = "-cl-kernel-arg-info";
  if (guest.find(kFlag) != std::string_view::npos) {
    program->guest_options.reset();
    return options;
  }
  program->guest_options = c_string(guest);
  return options.empty() ? kFlag : options + " " + kFlag;
}

// An info answer of the string `s`, as an OpenCL query gives it (with its NUL).
cl_int string_answer(const std::string& s, size_t size, void* value, size_t* ret) {
  if (ret) *ret = s.size() + 1;
  if (value && size < s.size() + 1) return CL_INVALID_VALUE;
  if (value) std::memcpy(value, s.c_str(), s.size() + 1);
  return CL_SUCCESS;
}

}  // namespace


void VcompContext::dispatch_clCreateProgramWithSource(
    const proto::Args_clCreateProgramWithSource& args, proto::Out_clCreateProgramWithSource& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  // A terminated copy: a length of 0 tells OpenCL to look for a NUL, which the wire string
  // does not have (the executor would read past the command).
  std::string source = c_string(args.source);
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(c->handle, 1, &text, nullptr, &err);
  out.result = err;
  if (err != CL_SUCCESS) return;
  auto program = std::make_unique<ProgramObject>(executor_, p);
  if (executor_->compiles_in_process()) program->guest_source = std::move(source);
  bind(args.program, std::move(program), "program");
}

void VcompContext::dispatch_clCreateProgramWithBinary(
    const proto::Args_clCreateProgramWithBinary& args, proto::Out_clCreateProgramWithBinary& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (devices.empty() || args.binaries.size() != devices.size()) {
    log_field_error("binaries", "needs one binary per device");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<size_t> lengths;
  std::vector<const unsigned char*> binaries;
  for (const auto& b : args.binaries) {
    lengths.push_back(size_t(b.size));
    binaries.push_back(b.data);
  }
  std::vector<cl_int> status(devices.size(), CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithBinary(c->handle, cl_uint(devices.size()), devices.data(),
                                                 lengths.data(), binaries.data(), status.data(), &err);
  out.result = err;
  out.binary_status.assign(status.begin(), status.end());
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clCreateProgramWithIL(const proto::Args_clCreateProgramWithIL& args,
                                                  proto::Out_clCreateProgramWithIL& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  if (!api().clCreateProgramWithIL) {
    out.result = CL_INVALID_OPERATION;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithIL(c->handle, args.il.data, size_t(args.il.size), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clCreateProgramWithBuiltInKernels(
    const proto::Args_clCreateProgramWithBuiltInKernels& args,
    proto::Out_clCreateProgramWithBuiltInKernels& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::string names = c_string(args.kernel_names);
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithBuiltInKernels(c->handle, cl_uint(devices.size()),
                                                         devices.data(), names.c_str(), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clBuildProgram(const proto::Args_clBuildProgram& args,
                                           proto::Out_clBuildProgram& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::string options = c_string(args.options);
  std::string bad;
  if (!guest_options_allowed(options, &bad)) {
    log_field_error("options", "not an OpenCL build option: " + bad);
    out.result = CL_INVALID_BUILD_OPTIONS;
    return;
  }
  if (executor_->compiles_in_process()) {
    out.result = preprocess_for_vendor(api(), p, options, {});
    if (out.result != CL_SUCCESS) return;
    options = without_macros(options);
  }
  options = with_arg_info(std::move(options), args.options, p);
  out.result = api().clBuildProgram(p->handle, cl_uint(devices.size()),
                                    devices.empty() ? nullptr : devices.data(), options.c_str(),
                                    nullptr, nullptr);
}

void VcompContext::dispatch_clCompileProgram(const proto::Args_clCompileProgram& args,
                                             proto::Out_clCompileProgram& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (args.input_headers.count != args.header_include_names.size()) {
    log_field_error("header_include_names", "needs one name per input header");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<cl_program> headers;
  std::vector<const ProgramObject*> header_objects;
  std::vector<std::string> names;
  for (uint64_t i = 0; i < args.input_headers.count; ++i) {
    auto* h = require<ProgramObject>(args.input_headers[i], "input_headers", CL_INVALID_PROGRAM, &out.result);
    if (!h) return;
    headers.push_back(h->handle);
    header_objects.push_back(h);
    names.push_back(c_string(args.header_include_names[i]));
  }
  std::string options = c_string(args.options);
  std::string bad;
  if (!guest_options_allowed(options, &bad)) {
    log_field_error("options", "not an OpenCL compile option: " + bad);
    out.result = CL_INVALID_COMPILER_OPTIONS;
    return;
  }
  if (executor_->compiles_in_process()) {
    // The headers become part of the preprocessed source: the vendor gets none to write out. Their
    // text is the guest's own (a header program built earlier holds preprocessed text at the vendor);
    // one made from a binary or IL has none.
    gsgpu::compiler::EmbeddedHeaders embedded;
    for (size_t i = 0; i < header_objects.size(); ++i)
      embedded.emplace_back(names[i], header_objects[i]->guest_source.value_or(std::string()));
    out.result = preprocess_for_vendor(api(), p, options, embedded);
    if (out.result == CL_INVALID_BUILD_OPTIONS) out.result = CL_INVALID_COMPILER_OPTIONS;
    if (out.result != CL_SUCCESS) return;
    options = without_macros(options);
    headers.clear();
    names.clear();
  }
  std::vector<const char*> name_ptrs;
  for (const auto& n : names) name_ptrs.push_back(n.c_str());
  options = with_arg_info(std::move(options), args.options, p);
  out.result = api().clCompileProgram(p->handle, cl_uint(devices.size()),
                                      devices.empty() ? nullptr : devices.data(), options.c_str(),
                                      cl_uint(headers.size()), headers.empty() ? nullptr : headers.data(),
                                      name_ptrs.empty() ? nullptr : name_ptrs.data(), nullptr, nullptr);
}

void VcompContext::dispatch_clLinkProgram(const proto::Args_clLinkProgram& args,
                                          proto::Out_clLinkProgram& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::vector<cl_program> inputs;
  for (uint64_t i = 0; i < args.input_programs.count; ++i) {
    auto* in = require<ProgramObject>(args.input_programs[i], "input_programs", CL_INVALID_PROGRAM, &out.result);
    if (!in) return;
    inputs.push_back(in->handle);
  }
  std::string options = c_string(args.options);
  std::string bad;
  if (!guest_options_allowed(options, &bad)) {
    log_field_error("options", "not an OpenCL link option: " + bad);
    out.result = CL_INVALID_LINKER_OPTIONS;
    return;
  }
  // A vendor's link needs -cl-kernel-arg-info as well (PoCL drops the compiled objects' metadata
  // without it); one that refuses it as a link option links without, and its kernels' arguments
  // are then only as known as its metadata says. gsgpu keeps the metadata and takes OpenCL's
  // link options only.
  auto program = std::make_unique<ProgramObject>(executor_, nullptr);
  const std::string with_flag =
      executor_->compiles_in_process() ? with_arg_info(options, args.options, program.get()) : options;
  const auto link = [&](const std::string& link_options, cl_int* err) {
    return api().clLinkProgram(c->handle, cl_uint(devices.size()), devices.empty() ? nullptr : devices.data(),
                               link_options.c_str(), cl_uint(inputs.size()),
                               inputs.empty() ? nullptr : inputs.data(), nullptr, nullptr, err);
  };
  cl_int err = CL_SUCCESS;
  cl_program p = link(with_flag, &err);
  if (!p && err == CL_INVALID_LINKER_OPTIONS && with_flag != options) {
    program->guest_options.reset();
    p = link(options, &err);
  }
  out.result = err;
  // A failed link may still return a program whose build log the app reads.
  if (!p) return;
  program->handle = p;
  bind(args.program, std::move(program), "program");
}

void VcompContext::dispatch_clGetProgramInfo(const proto::Args_clGetProgramInfo& args,
                                             proto::Out_clGetProgramInfo& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  forward_info(
      InfoKind::kProgram, args.param_name, [&](size_t size, void* value, size_t* ret) {
        // The vendor's program holds the preprocessed text; the guest asks for its own.
        if (args.param_name == CL_PROGRAM_SOURCE && p->guest_source)
          return string_answer(*p->guest_source, size, value, ret);
        return api().clGetProgramInfo(p->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_vcGetProgramBinary(const proto::Args_vcGetProgramBinary& args,
                                               proto::Out_vcGetProgramBinary& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  size_t size = 0;
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARY_SIZES, 0, nullptr, &size);
  if (out.result != CL_SUCCESS) return;
  std::vector<size_t> sizes(size / sizeof(size_t));
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARY_SIZES, size, sizes.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  if (args.device_index >= sizes.size()) {
    log_field_error("device_index", "program has " + std::to_string(sizes.size()) + " devices");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<std::vector<unsigned char>> storage(sizes.size());
  std::vector<unsigned char*> pointers(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    storage[i].assign(sizes[i], 0);
    pointers[i] = storage[i].data();
  }
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARIES,
                                      pointers.size() * sizeof(unsigned char*), pointers.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  const auto& binary = storage[args.device_index];
  out.size_ret = binary.size();
  if (args.binary.size == 0) return;
  uint8_t* dst = data_out(args.binary, binary.size(), &out.binary, "binary");
  if (!dst) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::copy(binary.begin(), binary.end(), dst);
}

void VcompContext::dispatch_clGetProgramBuildInfo(const proto::Args_clGetProgramBuildInfo& args,
                                                  proto::Out_clGetProgramBuildInfo& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
  if (!d) return;
  forward_info(
      InfoKind::kProgramBuild, args.param_name, [&](size_t size, void* value, size_t* ret) -> cl_int {
        if (args.param_name == CL_PROGRAM_BUILD_OPTIONS && p->guest_options)
          return string_answer(*p->guest_options, size, value, ret);  // without the flag the host added
        if (args.param_name == CL_PROGRAM_BUILD_LOG && p->host_build_log)
          return string_answer(*p->host_build_log, size, value, ret);  // not the stand-in's "1 error"
        return api().clGetProgramBuildInfo(p->handle, d->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
