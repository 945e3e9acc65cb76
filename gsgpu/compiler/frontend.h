// The OpenCL C front end: source + build options -> SPIR-V, by running clang (OpenCL C -> LLVM
// bitcode for spir64) and llvm-spirv (bitcode -> SPIR-V) as subprocesses in a private temporary
// directory, without a shell. Results are cached by content hash in memory and, when
// GSVIRT_CACHE_DIR names a directory, on disk.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gsgpu::compiler {

enum class BuildStatus {
  kSuccess,
  kInvalidOptions,   // an option clang does not take for OpenCL (CL_INVALID_BUILD_OPTIONS)
  kCompileError,     // clang or llvm-spirv refused the program (CL_BUILD_PROGRAM_FAILURE)
  kToolMissing,      // clang-14 or llvm-spirv-14 is not installed (CL_COMPILER_NOT_AVAILABLE)
  kInvalidBinary,    // SPIR-V given directly does not validate (CL_INVALID_VALUE / CL_INVALID_BINARY)
  kInternalError,    // temp files, fork/exec failures
};
const char* build_status_name(BuildStatus status);

// Where the tools are. Overridable with GSVIRT_CLANG, GSVIRT_LLVM_SPIRV, GSVIRT_SPIRV_VAL,
// GSVIRT_SPIRV_DIS, GSVIRT_SPIRV_LINK; otherwise found on PATH (clang-14, llvm-spirv-14, spirv-val,
// spirv-dis, spirv-link) and in
// /usr/lib/llvm-14/bin. An empty path means "not found".
struct Toolchain {
  std::string clang;
  std::string llvm_spirv;
  std::string spirv_val;
  std::string spirv_dis;
  std::string spirv_link;  // clLinkProgram of several units (spirv_link.h)
  std::string version;  // clang's and llvm-spirv's --version output: part of the cache key
  std::string resource_dir;  // clang's own headers (opencl-c.h): the only host headers a program sees
};
const Toolchain& toolchain();
// What toolchain() finds, looked up afresh (environment overrides included).
Toolchain discover_toolchain();
// Where clang-14 is (GSVIRT_CLANG, else clang-14 on PATH, else /usr/lib/llvm-14/bin/clang), without
// running it; "" when it is not there.
std::string find_clang();
// One line (no newline) saying that clang-14 is missing: where it was looked for and how to install
// it. `who` names what needs it ("the host executor preprocesses every program with it").
std::string clang_missing_message(std::string_view who);

// Translates build options into clang arguments. False, with the offending option in *error, for
// options OpenCL does not define.
bool translate_build_options(std::string_view options, std::vector<std::string>* clang_args,
                             std::string* error);

// clCompileProgram's embedded headers: (include name, text). A name is a relative path without
// "." or ".." parts; `#include "name"` finds it.
using EmbeddedHeaders = std::vector<std::pair<std::string, std::string>>;

// What the device offers a program beyond the compiler's fixed list (opencl_c_support.h).
struct FrontendDevice {
  // Images: __IMAGE_SUPPORT__ and the OpenCL C 3.0 feature __opencl_c_images (kOpenCLCImageFeatures).
  // Without them a program can still declare image arguments in OpenCL C 1.x (which always has the
  // types), as a device without images must allow.
  bool images = true;
};

// OpenCL C -> SPIR-V. The program sees the OpenCL headers, its embedded headers and the -I
// directories of `options` (which must come from a trusted caller: a host serving a guest strips
// them), nothing else of the host's file system. *log receives clang's and llvm-spirv's diagnostics (warnings too, on success).
BuildStatus compile_opencl_c(std::string_view source, std::string_view options, std::vector<uint32_t>* spirv,
                             std::string* log);
// The same with an explicit toolchain (tests: missing tools).
BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             std::vector<uint32_t>* spirv, std::string* log);
BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             const EmbeddedHeaders& headers, std::vector<uint32_t>* spirv, std::string* log);
BuildStatus compile_opencl_c(std::string_view source, std::string_view options, const EmbeddedHeaders& headers,
                             std::vector<uint32_t>* spirv, std::string* log);
BuildStatus compile_opencl_c(const Toolchain& tools, std::string_view source, std::string_view options,
                             const EmbeddedHeaders& headers, const FrontendDevice& device, std::vector<uint32_t>* spirv,
                             std::string* log);

// The OpenCL C preprocessor alone, in the same sandbox, for a vendor compiler that runs in the
// host's process and would open whatever a program names: *text is the program with every
// directive applied (includes from `headers` only), to be compiled with no -D/-U/-I options.
// `device_args` are clang options that describe the vendor's device (-D__OPENCL_VERSION__=...,
// -Xclang -cl-ext=...). kCompileError with clang's diagnostics in *log, also when the output
// holds a line the vendor's preprocessor would take as a directive (a macro expanding to
// "# include ..."), other than OpenCL's own pragmas.
BuildStatus preprocess_opencl_c(std::string_view source, std::string_view options, const EmbeddedHeaders& headers,
                                const std::vector<std::string>& device_args, std::string* text, std::string* log);

// Checks SPIR-V given directly: the module reader's checks, then spirv-val (OpenCL 1.2 environment)
// when installed. *log explains a rejection.
BuildStatus validate_spirv(std::span<const uint32_t> spirv, std::string* log);

// Disassembly by spirv-dis, or "" when it is not installed.
std::string disassemble_spirv(std::span<const uint32_t> spirv);

// Forgets the in-memory cache (tests).
void clear_frontend_cache();

}  // namespace gsgpu::compiler
