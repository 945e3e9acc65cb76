#include "gsgpu/compiler/frontend.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "gsgpu/compiler/build_cache.h"
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

std::string tool_version(const std::string& path) {
  if (path.empty()) return "";
  TempDir dir;
  if (!dir.ok()) return "";
  ToolRun run = run_tool({path, "--version"}, dir.file("version.txt"));
  return run.output;
}

}  // namespace

Toolchain discover_toolchain() {
  Toolchain t;
  t.clang = find_tool("GSVIRT_CLANG", {"clang-14", "/usr/lib/llvm-14/bin/clang"});
  t.llvm_spirv = find_tool("GSVIRT_LLVM_SPIRV", {"llvm-spirv-14", "/usr/lib/llvm-14/bin/llvm-spirv"});
  t.spirv_val = find_tool("GSVIRT_SPIRV_VAL", {"spirv-val"});
  t.spirv_dis = find_tool("GSVIRT_SPIRV_DIS", {"spirv-dis"});
  t.version = tool_version(t.clang) + tool_version(t.llvm_spirv);
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
constexpr const char* kDeviceMacros[] = {"-D__OPENCL_VERSION__=120", "-U__IMAGE_SUPPORT__"};
constexpr std::string_view kDeviceMacrosKey = "-D__OPENCL_VERSION__=120 -U__IMAGE_SUPPORT__";

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
  static const Toolchain instance = discover_toolchain();
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

BuildStatus compile_opencl_c(std::string_view source, std::string_view options, std::vector<uint32_t>* spirv,
                             std::string* log) {
  return compile_opencl_c(toolchain(), source, options, spirv, log);
}

BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             std::vector<uint32_t>* spirv, std::string* log) {
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
  const std::string key = BuildCache::key({source, options, tools.version, kDeviceMacrosKey});
  {
    std::lock_guard lock(g_cache_mutex);
    if (cache().lookup(key, spirv, log)) return BuildStatus::kSuccess;
  }

  TempDir dir;
  if (!dir.ok()) {
    *log = std::string("cannot create a temporary directory: ") + std::strerror(errno) + "\n";
    return BuildStatus::kInternalError;
  }
  const std::string source_path = dir.file("program.cl");
  const std::string bitcode_path = dir.file("program.bc");
  const std::string spirv_path = dir.file("program.spv");
  if (!write_file(source_path, source.data(), source.size())) {
    *log = "cannot write the program source to " + source_path + "\n";
    return BuildStatus::kInternalError;
  }
  // llvm-spirv-14 cannot translate integers of odd widths, which some optimisations create
  // (IndVarSimplify's exit values become i33; InstCombine shrinks switch conditions to i3). The
  // first option keeps the former away; for the rest the program is rebuilt without optimisation.
  auto translate = [&](bool optimise) {
    std::vector<std::string> clang = {tools.clang, "-c", "-x", "cl", "-target", "spir64", "-emit-llvm",
                                      "-Xclang", "-finclude-default-header", "-fno-color-diagnostics",
                                      "-mllvm", "-replexitval=never",
                                      // keeps parameter names, which become OpName: clGetKernelArgInfo
                                      "-fno-discard-value-names"};
    // What the runtime defines for its device (OpenCL 1.2, section 6.10), before the program's own
    // -D/-U so those can still override. clang defines __OPENCL_C_VERSION__ (from -cl-std),
    // CL_VERSION_1_x and __ENDIAN_LITTLE__ itself; it leaves __OPENCL_VERSION__ (the device's
    // version) to the runtime and defines __IMAGE_SUPPORT__ for every SPIR target, but the gsgpu
    // device has no images (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE).
    clang.insert(clang.end(), std::begin(kDeviceMacros), std::end(kDeviceMacros));
    clang.insert(clang.end(), option_args.begin(), option_args.end());
    if (!optimise) clang.push_back("-O0");  // the last -O wins
    clang.insert(clang.end(), {source_path, "-o", bitcode_path});
    ToolRun front = run_tool(clang, dir.file("clang.log"));
    // clang names the temporary file in its messages; the program has no name of its own.
    std::string diagnostics = front.output;
    for (size_t at = diagnostics.find(source_path); at != std::string::npos; at = diagnostics.find(source_path, at))
      diagnostics.replace(at, source_path.size(), "<program source>");
    *log = diagnostics;
    if (!front.started || front.exit_code != 0) return BuildStatus::kCompileError;
    ToolRun spirv_run = run_tool({tools.llvm_spirv, bitcode_path, "-o", spirv_path}, dir.file("llvm-spirv.log"));
    *log += spirv_run.output;
    if (!spirv_run.started || spirv_run.exit_code != 0) {
      *log += "llvm-spirv could not translate the program to SPIR-V\n";
      return BuildStatus::kInternalError;
    }
    return BuildStatus::kSuccess;
  };
  BuildStatus status = translate(true);
  if (status == BuildStatus::kCompileError) return status;
  if (status != BuildStatus::kSuccess) {
    const std::string first_log = *log;
    status = translate(false);
    if (status != BuildStatus::kSuccess) {
      *log = first_log + *log;
      return BuildStatus::kCompileError;
    }
    *log = "note: llvm-spirv-14 rejected the optimised program; it was built without optimisation\n" + *log;
  }
  std::string bytes;
  if (!read_file(spirv_path, &bytes) || bytes.empty() || bytes.size() % 4 != 0) {
    *log += "llvm-spirv wrote no valid SPIR-V file\n";
    return BuildStatus::kInternalError;
  }
  spirv->assign(bytes.size() / 4, 0);
  std::memcpy(spirv->data(), bytes.data(), bytes.size());
  std::lock_guard lock(g_cache_mutex);
  cache().store(key, *spirv, *log);
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
  ToolRun run = run_tool({tools.spirv_val, "--target-env", "opencl1.2", dir.file("module.spv")}, dir.file("val.log"));
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
  ToolRun run = run_tool({tools.spirv_dis, "--no-color", dir.file("module.spv"), "-o", dir.file("module.spvasm")},
                         dir.file("dis.log"));
  std::string text;
  if (run.exit_code != 0 || !read_file(dir.file("module.spvasm"), &text)) return "";
  return text;
}

void clear_frontend_cache() {
  std::lock_guard lock(g_cache_mutex);
  cache().clear();
}

}  // namespace gsgpu::compiler
