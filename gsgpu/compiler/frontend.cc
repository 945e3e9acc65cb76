#include "gsgpu/compiler/frontend.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "common/cancel.h"
#include "gsgpu/compiler/build_cache.h"
#include "gsgpu/compiler/half_builtins.h"
#include "gsgpu/compiler/opencl_c_support.h"
#include "gsgpu/compiler/preprocessed_text.h"
#include "gsgpu/compiler/spirv_module.h"
#include "gsgpu/compiler/subprocess.h"

namespace gsgpu::compiler {
namespace {

std::string find_tool(const char* env_name, std::initializer_list<const char*> names) {
  if (const char* env = std::getenv(env_name); env && *env) return access(env, X_OK) == 0 ? env : "";
  for (const char* name : names) {
    if (name[0] == '/') {
      if (access(name, X_OK) == 0) return name;
      continue;
    }
    if (std::string found = find_on_path(name); !found.empty()) return found;
  }
  return "";
}

// Runs a tool in a fresh work directory with the usual limits.
ToolRun run_in(const TempDir& dir, const std::vector<std::string>& argv) {
  ToolOptions options;
  options.work_dir = dir.path();
  options.deadline = build_deadline();
  return run_tool(argv, options);
}

std::string tool_version(const std::string& path) {
  if (path.empty()) return "";
  TempDir dir;
  if (!dir.ok()) return "";
  return run_in(dir, {path, "--version"}).output;
}

std::string resource_dir(const std::string& clang) {
  if (clang.empty()) return "";
  TempDir dir;
  if (!dir.ok()) return "";
  std::string out = run_in(dir, {clang, "-print-resource-dir"}).output;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string find_clang() { return find_tool("GSVIRT_CLANG", {"clang-14", "/usr/lib/llvm-14/bin/clang"}); }

std::string clang_missing_message(std::string_view who) {
  const char* env = std::getenv("GSVIRT_CLANG");
  std::string where = env && *env ? std::string("GSVIRT_CLANG=") + env + " is not an executable"
                                  : "neither clang-14 on PATH nor /usr/lib/llvm-14/bin/clang exists";
  return "the OpenCL C preprocessor clang-14 is not installed on the host (" + where + "); " + std::string(who) +
         ": install it on the host (Debian and Ubuntu: apt-get install clang-14) or set GSVIRT_CLANG to its path";
}

Toolchain discover_toolchain() {
  Toolchain t;
  t.clang = find_clang();
  t.llvm_spirv = find_tool("GSVIRT_LLVM_SPIRV", {"llvm-spirv-14", "/usr/lib/llvm-14/bin/llvm-spirv"});
  t.spirv_val = find_tool("GSVIRT_SPIRV_VAL", {"spirv-val"});
  t.spirv_dis = find_tool("GSVIRT_SPIRV_DIS", {"spirv-dis"});
  t.spirv_link = find_tool("GSVIRT_SPIRV_LINK", {"spirv-link"});
  t.version = tool_version(t.clang) + tool_version(t.llvm_spirv);
  t.resource_dir = resource_dir(t.clang);
  return t;
}

namespace {

// Splits on blanks; double quotes group (for -D NAME="a b").
std::vector<std::string> split_options(std::string_view options) {
  std::vector<std::string> out;
  std::string current;
  bool in_token = false, quoted = false;
  for (char c : options) {
    if (c == '"') {
      quoted = !quoted;
      in_token = true;
    } else if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (in_token) out.push_back(current);
      current.clear();
      in_token = false;
    } else {
      current.push_back(c);
      in_token = true;
    }
  }
  if (in_token) out.push_back(current);
  return out;
}

// The OpenCL 1.2/3.0 optimisation and math flags, which clang takes as they are.
constexpr const char* kPassThroughFlags[] = {
    "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
    "-cl-fast-relaxed-math", "-cl-strict-aliasing", "-cl-uniform-work-group-size", "-w", "-Werror",
};
// Flags that only ask for information the runtime keeps anyway.
constexpr const char* kIgnoredFlags[] = {"-cl-kernel-arg-info", "-cl-no-subgroup-ifp", "-g", "-cl-nv-verbose"};

template <size_t N>
bool one_of(const std::string& option, const char* const (&list)[N]) {
  for (const char* item : list)
    if (option == item) return true;
  return false;
}

// The device's predefined macros (see compile_opencl_c). Part of the cache key: changing them
// must not reuse SPIR-V built with the old ones.
constexpr const char* kDeviceMacros[] = {"-D__OPENCL_VERSION__=300"};
constexpr std::string_view kDeviceMacrosKey = "-D__OPENCL_VERSION__=300";

// clang-14 predefines every extension and OpenCL C 3.0 feature for SPIR targets, cl_khr_fp16 and
// cl_khr_fp64 included, in every language version; programs test those macros to choose their
// kernels (clpeak's half kernels, for one). -cl-ext=-all then the compiler's own list
// (opencl_c_support.h) leaves exactly what the device has. With -cl-std=CL3.0 the header still
// defines __opencl_c_atomic_order_seq_cst, __opencl_c_atomic_scope_device / _all_devices,
// __opencl_c_read_write_images and some cl_khr_subgroup_* macros for SPIR unconditionally; no
// -cl-ext can undo those.
std::string device_extensions_flag(bool images) {
  std::string flag = "-cl-ext=-all";
  for (std::string_view list : {std::string_view(GSGPU_OPENCL_C_EXTENSIONS), std::string_view(kOpenCLCFeatures),
                                std::string_view(images ? kOpenCLCImageFeatures : ""),
                                std::string_view(images ? kOpenCLCImageExtensions : "")}) {
    while (!list.empty()) {
      const size_t end = std::min(list.find(' '), list.size());
      if (end > 0) flag.append(",+").append(list.substr(0, end));
      list.remove_prefix(std::min(end + 1, list.size()));
    }
  }
  return flag;
}

const std::string& device_extensions(bool images) {
  static const std::string with = device_extensions_flag(true), without = device_extensions_flag(false);
  return images ? with : without;
}

std::mutex g_cache_mutex;
BuildCache& cache() {
  static BuildCache instance(64);
  return instance;
}

}  // namespace

const char* build_status_name(BuildStatus status) {
  switch (status) {
    case BuildStatus::kSuccess: return "success";
    case BuildStatus::kInvalidOptions: return "invalid build options";
    case BuildStatus::kCompileError: return "build failure";
    case BuildStatus::kToolMissing: return "compiler not available";
    case BuildStatus::kInvalidBinary: return "invalid SPIR-V";
    case BuildStatus::kInternalError: return "internal error";
  }
  return "?";
}

const Toolchain& toolchain() {
  static const Toolchain instance = [] {
    // Found once for every later build of the process: a departing client must not cut it short.
    gsvirt::CancelShield shield;
    return discover_toolchain();
  }();
  return instance;
}

bool translate_build_options(std::string_view options, std::vector<std::string>* clang_args, std::string* error) {
  const std::vector<std::string> tokens = split_options(options);
  bool optimise = true;
  std::string standard = "-cl-std=CL1.2";
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "-D" || t == "-I") {
      if (i + 1 >= tokens.size()) {
        *error = "build option " + t + " needs an argument";
        return false;
      }
      clang_args->push_back(t);
      clang_args->push_back(tokens[++i]);
    } else if (t.rfind("-D", 0) == 0 || t.rfind("-I", 0) == 0) {
      clang_args->push_back(t);
    } else if (t.rfind("-cl-std=", 0) == 0) {
      const std::string v = t.substr(8);
      if (v != "CL1.0" && v != "CL1.1" && v != "CL1.2" && v != "CL2.0" && v != "CL3.0") {
        *error = "build option " + t + ": unknown OpenCL C version";
        return false;
      }
      standard = t;
    } else if (t == "-cl-opt-disable") {
      optimise = false;
    } else if (one_of(t, kPassThroughFlags)) {
      clang_args->push_back(t);
    } else if (one_of(t, kIgnoredFlags)) {
      continue;
    } else {
      *error = "build option \"" + t + "\" is not an OpenCL build option";
      return false;
    }
  }
  clang_args->push_back(standard);
  clang_args->push_back(optimise ? "-O2" : "-O0");
  return true;
}

namespace {

constexpr size_t kMaxHeaders = 256;
constexpr std::string_view kSourceName = "program.cl";
constexpr std::string_view kHeaderDir = "headers";
constexpr std::string_view kHalfBuiltinsName = "gsgpu_half_builtins.h";
constexpr std::string_view kVendorPreludeName = "gsvirt_opencl_macros.h";

bool valid_header_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name.front() == '/') return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/')) return false;
  for (size_t start = 0; start <= name.size();) {
    const size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = std::string_view(name).substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// The embedded headers, written under <work>/headers. False with *error for a bad name.
bool write_headers(const TempDir& dir, const EmbeddedHeaders& headers, std::string* error) {
  if (headers.size() > kMaxHeaders) {
    *error = "more than " + std::to_string(kMaxHeaders) + " embedded headers";
    return false;
  }
  for (const auto& [name, text] : headers) {
    if (!valid_header_name(name)) {
      *error = "embedded header name \"" + name + "\" is not a plain relative path";
      return false;
    }
    const std::filesystem::path file = std::filesystem::path(dir.path()) / kHeaderDir / name;
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec || !write_file(file.string(), text.data(), text.size())) {
      *error = "cannot write embedded header \"" + name + "\"";
      return false;
    }
  }
  return true;
}

// The -I directories of the (trusted) options, made absolute in *args (the tool runs in the work
// directory), and returned.
std::vector<std::string> absolute_include_dirs(std::vector<std::string>* args) {
  std::vector<std::string> dirs, rewritten;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    if (a.rfind("-I", 0) != 0) {
      rewritten.push_back(a);
      continue;
    }
    std::string dir = a.size() > 2 ? a.substr(2) : (i + 1 < args->size() ? (*args)[++i] : std::string());
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(dir, ec);
    if (!ec) dir = absolute.lexically_normal().string();
    rewritten.insert(rewritten.end(), {"-I", dir});
    dirs.push_back(dir);
  }
  *args = std::move(rewritten);
  return dirs;
}

std::string yaml_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A clang virtual file system in which nothing exists but the OpenCL headers, the work directory
// and the trusted include directories ("fallthrough": false). A second wall behind the sandbox,
// and the only one where the kernel offers no namespaces.
std::string vfs_overlay(const std::string& resource_dir, const std::string& work_dir,
                        const std::vector<std::string>& include_dirs) {
  std::string yaml = "{ 'version': 0, 'fallthrough': false, 'case-sensitive': true, 'roots': [\n";
  std::vector<std::string> dirs = {work_dir};
  if (!resource_dir.empty()) dirs.push_back(resource_dir + "/include");
  dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
  for (size_t i = 0; i < dirs.size(); ++i)
    yaml += std::string(i ? ",\n" : "") + "  { 'type': 'directory-remap', 'name': " + yaml_quoted(dirs[i]) +
            ", 'external-contents': " + yaml_quoted(dirs[i]) + " }";
  return yaml + " ] }\n";
}

// clang names the source file in its messages; the program has no name of its own. One pass
// (replacing in place is quadratic in the number of messages).
std::string name_the_source(std::string_view diagnostics) {
  std::string out;
  out.reserve(diagnostics.size());
  for (size_t at = 0; at < diagnostics.size();) {
    const size_t found = diagnostics.find(kSourceName, at);
    if (found == std::string_view::npos) {
      out.append(diagnostics.substr(at));
      break;
    }
    out.append(diagnostics.substr(at, found - at));
    out.append("<program source>");
    at = found + kSourceName.size();
  }
  return out;
}

std::string headers_key(const EmbeddedHeaders& headers) {
  std::string key;
  for (const auto& [name, text] : headers)
    key += BuildCache::key({name, text});
  return key;
}

}  // namespace

BuildStatus compile_opencl_c(std::string_view source, std::string_view options, std::vector<uint32_t>* spirv,
                             std::string* log) {
  return compile_opencl_c(toolchain(), source, options, {}, spirv, log);
}

BuildStatus compile_opencl_c(std::string_view source, std::string_view options, const EmbeddedHeaders& headers,
                             std::vector<uint32_t>* spirv, std::string* log) {
  return compile_opencl_c(toolchain(), source, options, headers, spirv, log);
}

BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             std::vector<uint32_t>* spirv, std::string* log) {
  return compile_opencl_c(tools, source, options, {}, spirv, log);
}

namespace {

// clang then llvm-spirv in `dir`, optimised or not; *log gets their diagnostics.
BuildStatus translate(const Toolchain& tools, const TempDir& dir, const std::vector<std::string>& option_args,
                      const FrontendDevice& device, const ToolOptions& run, bool optimise, std::string* log) {
  std::vector<std::string> clang = {tools.clang, "-c", "-x", "cl", "-target", "spir64", "-emit-llvm",
                                    "-Xclang", "-finclude-default-header", "-fno-color-diagnostics",
                                    "-mllvm", "-replexitval=never",
                                    // keeps parameter names, which become OpName: clGetKernelArgInfo
                                    "-fno-discard-value-names",
                                    "-ivfsoverlay", dir.file("overlay.yaml"),
                                    "-I", std::string(kHeaderDir)};
  // What the runtime defines for its device (OpenCL 1.2, section 6.10), before the program's own
  // -D/-U so those can still override. clang defines __OPENCL_C_VERSION__ (from -cl-std),
  // CL_VERSION_1_x and __ENDIAN_LITTLE__ itself; it leaves __OPENCL_VERSION__ (the device's
  // version) to the runtime and defines __IMAGE_SUPPORT__ for every SPIR target, which the
  // compiler supports (lower_image.cc); a runtime without images passes -U__IMAGE_SUPPORT__.
  clang.insert(clang.end(), std::begin(kDeviceMacros), std::end(kDeviceMacros));
  if (!device.images) clang.push_back("-U__IMAGE_SUPPORT__");
  clang.insert(clang.end(), {"-Xclang", device_extensions(device.images)});
  // The half load / store built-ins that clang-14 hides with cl_khr_fp16 (half_builtins.h).
  clang.insert(clang.end(), {"-include", dir.file(std::string(kHalfBuiltinsName))});
  clang.insert(clang.end(), option_args.begin(), option_args.end());
  if (!optimise) clang.push_back("-O0");  // the last -O wins
  clang.insert(clang.end(), {std::string(kSourceName), "-o", "program.bc"});
  ToolRun front = run_tool(clang, run);
  *log = name_the_source(front.output);
  if (log->size() > run.max_output) {
    // Naming the source lengthens a log cut at the cap: cut it again, keeping the note at its end.
    const size_t note = log->rfind('\n', log->size() - 2);
    const std::string tail = note == std::string::npos ? std::string() : log->substr(note);
    log->resize(run.max_output - std::min(tail.size(), run.max_output));
    *log += tail;
  }
  if (!front.started || front.exit_code != 0) return BuildStatus::kCompileError;
  ToolRun spirv_run = run_tool({tools.llvm_spirv, "program.bc", "-o", "program.spv"}, run);
  *log += spirv_run.output;
  if (!spirv_run.started || spirv_run.exit_code != 0) {
    *log += "llvm-spirv could not translate the program to SPIR-V\n";
    return spirv_run.timed_out ? BuildStatus::kCompileError : BuildStatus::kInternalError;
  }
  return BuildStatus::kSuccess;
}

}  // namespace

BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             const EmbeddedHeaders& headers, std::vector<uint32_t>* spirv, std::string* log) {
  return compile_opencl_c(tools, source, options, headers, FrontendDevice{}, spirv, log);
}

BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             const EmbeddedHeaders& headers, const FrontendDevice& device, std::vector<uint32_t>* spirv,
                             std::string* log) {
  log->clear();
  std::vector<std::string> option_args;
  std::string option_error;
  if (!translate_build_options(options, &option_args, &option_error)) {
    *log = option_error + "\n";
    return BuildStatus::kInvalidOptions;
  }
  if (tools.clang.empty() || tools.llvm_spirv.empty()) {
    *log = std::string("the OpenCL C compiler is not available: ") +
           (tools.clang.empty() ? "clang-14 (package clang-14) " : "") +
           (tools.llvm_spirv.empty() ? "llvm-spirv-14 (package llvm-spirv-14) " : "") +
           "not found on PATH; set GSVIRT_CLANG / GSVIRT_LLVM_SPIRV to their paths\n";
    return BuildStatus::kToolMissing;
  }
  const std::string key =
      BuildCache::key({source, options, headers_key(headers), tools.version, kDeviceMacrosKey,
                       device.images ? "" : "-U__IMAGE_SUPPORT__", device_extensions(device.images),
                       half_builtin_declarations()});
  {
    std::lock_guard lock(g_cache_mutex);
    if (cache().lookup(key, spirv, log)) return BuildStatus::kSuccess;
  }
  TempDir dir;
  if (!dir.ok()) {
    *log = std::string("cannot create a temporary directory: ") + std::strerror(errno) + "\n";
    return BuildStatus::kInternalError;
  }
  std::string header_error;
  if (!write_headers(dir, headers, &header_error)) {
    *log = header_error + "\n";
    return BuildStatus::kCompileError;
  }
  ToolOptions run;
  run.work_dir = dir.path();
  run.deadline = build_deadline();  // one limit for the whole build, whatever it runs
  run.read_only_dirs = absolute_include_dirs(&option_args);
  const std::string overlay = vfs_overlay(tools.resource_dir, dir.path(), run.read_only_dirs);
  const std::string& half_builtins = half_builtin_declarations();
  if (!write_file(dir.file(std::string(kSourceName)), source.data(), source.size()) ||
      !write_file(dir.file("overlay.yaml"), overlay.data(), overlay.size()) ||
      !write_file(dir.file(std::string(kHalfBuiltinsName)), half_builtins.data(), half_builtins.size())) {
    *log = "cannot write the program source to " + dir.path() + "\n";
    return BuildStatus::kInternalError;
  }
  // llvm-spirv-14 cannot translate integers of odd widths, which some optimisations create
  // (IndVarSimplify's exit values become i33; InstCombine shrinks switch conditions to i3). The
  // -replexitval option keeps the former away; for the rest the program is rebuilt without
  // optimisation.
  BuildStatus status = translate(tools, dir, option_args, device, run, true, log);
  if (status == BuildStatus::kCompileError) return status;
  if (status != BuildStatus::kSuccess) {
    const std::string first_log = *log;
    status = translate(tools, dir, option_args, device, run, false, log);
    if (status != BuildStatus::kSuccess) {
      *log = first_log + *log;
      return BuildStatus::kCompileError;
    }
    *log = "note: llvm-spirv-14 rejected the optimised program; it was built without optimisation\n" + *log;
  }
  std::string bytes;
  if (!read_file(dir.file("program.spv"), &bytes) || bytes.empty() || bytes.size() % 4 != 0) {
    *log += "llvm-spirv wrote no valid SPIR-V file\n";
    return BuildStatus::kInternalError;
  }
  spirv->assign(bytes.size() / 4, 0);
  std::memcpy(spirv->data(), bytes.data(), bytes.size());
  std::lock_guard lock(g_cache_mutex);
  cache().store(key, *spirv, *log);
  return BuildStatus::kSuccess;
}

namespace {

// The macros clang defines for `args` (`clang -E -dM` of an empty program), with clang's OpenCL
// header or without it. Cached per argument list: the header's macros depend only on the
// language version and the device's extensions.
bool list_macros(const Toolchain& tools, const TempDir& dir, const ToolOptions& run,
                 const std::vector<std::string>& args, bool header, std::string* out) {
  static std::mutex mutex;
  static std::map<std::string, std::string> listings;
  std::string key = header ? "1" : "0";
  for (const std::string& a : args) key += '\0' + a;
  {
    std::lock_guard lock(mutex);
    if (auto it = listings.find(key); it != listings.end()) {
      *out = it->second;
      return true;
    }
  }
  if (!write_file(dir.file("empty.cl"), "", 0)) return false;
  std::vector<std::string> clang = {tools.clang, "-E", "-dM", "-x", "cl", "-target", "spir64"};
  if (header) {
    clang.insert(clang.end(), {"-Xclang", "-finclude-default-header"});
  } else {
    clang.push_back("-cl-no-stdinc");
  }
  clang.insert(clang.end(), args.begin(), args.end());
  clang.insert(clang.end(), {"empty.cl", "-o", "macros.txt"});
  const ToolRun listed = run_tool(clang, run);
  if (!listed.started || listed.exit_code != 0 || !read_file(dir.file("macros.txt"), out)) return false;
  std::lock_guard lock(mutex);
  if (listings.size() >= 16) listings.clear();  // a handful of devices and language versions
  listings.emplace(std::move(key), *out);
  return true;
}

}  // namespace

BuildStatus preprocess_opencl_c(std::string_view source, std::string_view options, const EmbeddedHeaders& headers,
                                const std::vector<std::string>& device_args, std::string* text, std::string* log) {
  log->clear();
  text->clear();
  const Toolchain& tools = toolchain();
  std::vector<std::string> option_args;
  std::string option_error;
  if (!translate_build_options(options, &option_args, &option_error)) {
    *log = option_error + "\n";
    return BuildStatus::kInvalidOptions;
  }
  if (tools.clang.empty()) {
    *log = clang_missing_message("gsvirt preprocesses every program with it before the vendor's compiler sees it") +
           "\n";
    return BuildStatus::kToolMissing;
  }
  TempDir dir;
  std::string error;
  if (!dir.ok() || !write_headers(dir, headers, &error)) {
    *log = (error.empty() ? "cannot create a temporary directory" : error) + "\n";
    return BuildStatus::kCompileError;
  }
  ToolOptions run;
  run.work_dir = dir.path();
  run.deadline = build_deadline();
  run.read_only_dirs = absolute_include_dirs(&option_args);
  const std::string overlay = vfs_overlay(tools.resource_dir, dir.path(), run.read_only_dirs);
  if (!write_file(dir.file(std::string(kSourceName)), source.data(), source.size()) ||
      !write_file(dir.file("overlay.yaml"), overlay.data(), overlay.size())) {
    *log = "cannot write the program source to " + dir.path() + "\n";
    return BuildStatus::kInternalError;
  }
  // -cl-no-stdinc: clang's OpenCL declarations would clash with the vendor's own; the prelude
  // stands for its macros (preprocessed_text.h).
  std::vector<std::string> macro_args = device_args;
  macro_args.insert(macro_args.end(), option_args.begin(), option_args.end());
  std::string with_header, without_header;
  if (!list_macros(tools, dir, run, macro_args, true, &with_header) ||
      !list_macros(tools, dir, run, macro_args, false, &without_header)) {
    *log = "the OpenCL C preprocessor could not list the OpenCL header's macros\n";
    return BuildStatus::kInternalError;
  }
  const std::string prelude = vendor_macro_prelude(with_header, without_header);
  if (!write_file(dir.file(std::string(kVendorPreludeName)), prelude.data(), prelude.size())) {
    *log = "cannot write the macro prelude to " + dir.path() + "\n";
    return BuildStatus::kInternalError;
  }
  std::vector<std::string> clang = {tools.clang, "-E", "-P", "-x", "cl", "-cl-no-stdinc", "-target", "spir64",
                                    "-fno-color-diagnostics", "-ivfsoverlay", dir.file("overlay.yaml"),
                                    "-I", std::string(kHeaderDir)};
  clang.insert(clang.end(), macro_args.begin(), macro_args.end());
  clang.insert(clang.end(), {"-include", dir.file(std::string(kVendorPreludeName))});
  clang.insert(clang.end(), {std::string(kSourceName), "-o", "program.i"});
  const ToolRun front = run_tool(clang, run);
  *log = name_the_source(front.output);
  if (!front.started || front.exit_code != 0) return BuildStatus::kCompileError;
  if (!read_file(dir.file("program.i"), text)) {
    *log += "the preprocessor wrote no output\n";
    return BuildStatus::kInternalError;
  }
  if (const std::string line = drop_unknown_pragmas(text); !line.empty()) {
    *log += "error: the preprocessed program holds a line that is a directive again: " + line + "\n";
    text->clear();
    return BuildStatus::kCompileError;
  }
  return BuildStatus::kSuccess;
}

BuildStatus validate_spirv(std::span<const uint32_t> spirv, std::string* log) {
  SpirvModule module;
  std::string error;
  if (!parse_spirv(spirv, &module, &error)) {
    *log = "invalid SPIR-V: " + error + "\n";
    return BuildStatus::kInvalidBinary;
  }
  const Toolchain& tools = toolchain();
  if (tools.spirv_val.empty()) return BuildStatus::kSuccess;
  TempDir dir;
  if (!dir.ok() || !write_file(dir.file("module.spv"), spirv.data(), spirv.size_bytes())) {
    *log = "cannot write a temporary file for spirv-val\n";
    return BuildStatus::kInternalError;
  }
  ToolRun run = run_in(dir, {tools.spirv_val, "--target-env", "opencl1.2", "module.spv"});
  if (!run.started) return BuildStatus::kSuccess;  // the reader's checks stand alone
  if (run.exit_code != 0) {
    *log = "invalid SPIR-V (spirv-val): " + run.output;
    return BuildStatus::kInvalidBinary;
  }
  return BuildStatus::kSuccess;
}

std::string disassemble_spirv(std::span<const uint32_t> spirv) {
  const Toolchain& tools = toolchain();
  if (tools.spirv_dis.empty()) return "";
  TempDir dir;
  if (!dir.ok() || !write_file(dir.file("module.spv"), spirv.data(), spirv.size_bytes())) return "";
  ToolRun run = run_in(dir, {tools.spirv_dis, "--no-color", "module.spv", "-o", "module.spvasm"});
  std::string text;
  if (run.exit_code != 0 || !read_file(dir.file("module.spvasm"), &text)) return "";
  return text;
}

void clear_frontend_cache() {
  std::lock_guard lock(g_cache_mutex);
  cache().clear();
}

}  // namespace gsgpu::compiler
