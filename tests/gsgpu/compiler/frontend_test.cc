// The OpenCL C front end: diagnostics become the build log, build options are honoured or refused,
// results are cached, a missing toolchain is reported, and SPIR-V given directly is validated.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "gsgpu/compiler/opencl_c_support.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

const char* kScaleKernel = R"(
  __kernel void scale(__global int* p) { p[get_global_id(0)] *= FACTOR; })";

TEST(FrontEnd, SyntaxErrorGivesBuildFailureWithClangsMessage) {
  GSGPU_REQUIRE_FRONT_END();
  CompiledProgram program;
  std::string log;
  const BuildStatus status = build_opencl_c("__kernel void f(__global int* p) { p[0] = 1 }", "", &program, &log);
  EXPECT_EQ(status, BuildStatus::kCompileError);
  EXPECT_NE(log.find("error: expected ';'"), std::string::npos) << log;
  EXPECT_NE(log.find("<program source>:1:"), std::string::npos) << "the log names the source, not a temp file: " << log;
  EXPECT_EQ(program.log, log);
}

TEST(FrontEnd, DefineOptionIsHonoured) {
  GSGPU_REQUIRE_FRONT_END();
  ClRunner cl;
  ASSERT_TRUE(cl.build(kScaleKernel, "-D FACTOR=3 -cl-mad-enable"));
  const uint64_t vp = cl.memory.upload(std::vector<int32_t>{1, 2, 3, 4});
  cl.run_ok("scale", {Arg::buffer(vp)}, NDRange::linear(4, 4));
  EXPECT_EQ(cl.memory.download<int32_t>(vp, 4), (std::vector<int32_t>{3, 6, 9, 12}));
  CompiledProgram program;
  std::string log;
  EXPECT_EQ(build_opencl_c(kScaleKernel, "", &program, &log), BuildStatus::kCompileError) << "FACTOR undefined";
  EXPECT_NE(log.find("FACTOR"), std::string::npos) << log;
}

TEST(FrontEnd, WarningsFollowWAndWerror) {
  GSGPU_REQUIRE_FRONT_END();
  const char* source = "__kernel void f(__global int* p) { int unused_variable; p[0] = 1; }";
  const std::string with_warning = "-Wunused-variable";  // not an OpenCL option: refused
  CompiledProgram program;
  std::string log;
  EXPECT_EQ(build_opencl_c(source, with_warning, &program, &log), BuildStatus::kInvalidOptions);
  EXPECT_NE(log.find("-Wunused-variable"), std::string::npos) << log;
  // clang warns by default about a non-void function that can end without a return.
  const char* warns = "int helper(int a) { if (a) return 1; }\n"
                      "__kernel void g(__global int* p) { p[0] = helper(p[1]); }";
  EXPECT_EQ(build_opencl_c(warns, "", &program, &log), BuildStatus::kSuccess) << log;
  EXPECT_NE(log.find("warning:"), std::string::npos) << log;
  EXPECT_EQ(build_opencl_c(warns, "-w", &program, &log), BuildStatus::kSuccess) << log;
  EXPECT_EQ(log.find("warning:"), std::string::npos) << log;
  EXPECT_EQ(build_opencl_c(warns, "-Werror", &program, &log), BuildStatus::kCompileError) << log;
  EXPECT_NE(log.find("error:"), std::string::npos) << log;
}

// clang predefines cl_khr_fp16 and cl_khr_fp64 for SPIR targets whatever the device has; programs
// that choose kernels with #ifdef (clpeak's half kernels) then failed to build. Only the compiler's
// own list (opencl_c_support.h) is predefined, in every language version.
TEST(FrontEnd, OnlyTheDevicesExtensionsArePredefined) {
  GSGPU_REQUIRE_FRONT_END();
  const char* probe = R"(
    #if !defined(cl_khr_global_int32_base_atomics) || !defined(cl_khr_int64_base_atomics)
    #error the device's own extensions must stay defined
    #endif
    #if defined(cl_khr_fp16) || defined(cl_khr_gl_msaa_sharing) || defined(cl_khr_depth_images)
    #error an extension the device lacks is defined
    #endif
    __kernel void f(__global int* p) { p[0] = 1; })";
  for (const char* options : {"", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL3.0"}) {
    CompiledProgram program;
    std::string log;
    EXPECT_EQ(build_opencl_c(probe, options, &program, &log), BuildStatus::kSuccess) << options << ": " << log;
  }
  const std::string extensions = GSGPU_OPENCL_C_EXTENSIONS;
  EXPECT_EQ(extensions.find("cl_khr_fp16"), std::string::npos) << "no half arithmetic: cl_khr_fp16 is not offered";
}

TEST(FrontEnd, OptionTranslation) {
  std::vector<std::string> args;
  std::string error;
  ASSERT_TRUE(translate_build_options("-DA=1 -I /tmp -cl-std=CL1.1 -cl-fast-relaxed-math -cl-kernel-arg-info", &args, &error));
  EXPECT_EQ(args, (std::vector<std::string>{"-DA=1", "-I", "/tmp", "-cl-fast-relaxed-math", "-cl-std=CL1.1", "-O2"}));
  args.clear();
  ASSERT_TRUE(translate_build_options("-cl-opt-disable -D \"B=a b\"", &args, &error));
  EXPECT_EQ(args, (std::vector<std::string>{"-D", "B=a b", "-cl-std=CL1.2", "-O0"}));
  EXPECT_FALSE(translate_build_options("-cl-std=CL9.9", &args, &error));
  EXPECT_NE(error.find("CL9.9"), std::string::npos);
  EXPECT_FALSE(translate_build_options("-D", &args, &error));
  EXPECT_FALSE(translate_build_options("--shell-escape", &args, &error));
  EXPECT_NE(error.find("--shell-escape"), std::string::npos);
}

TEST(FrontEnd, ResultsAreCachedInMemoryAndOnDisk) {
  GSGPU_REQUIRE_FRONT_END();
  char dir_template[] = "/tmp/gsgpu-cache-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  setenv("GSVIRT_CACHE_DIR", dir_template, 1);
  clear_frontend_cache();
  std::vector<uint32_t> first, second, third;
  std::string log;
  const std::string source = "__kernel void k(__global int* p) { p[0] = 4242; }";
  ASSERT_EQ(compile_opencl_c(source, "", &first, &log), BuildStatus::kSuccess) << log;
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_template)) files += entry.path().extension() == ".spv";
  EXPECT_EQ(files, 1u);
  ASSERT_EQ(compile_opencl_c(source, "", &second, &log), BuildStatus::kSuccess);
  EXPECT_EQ(first, second);
  clear_frontend_cache();  // now only the disk copy is left
  ASSERT_EQ(compile_opencl_c(source, "", &third, &log), BuildStatus::kSuccess);
  EXPECT_EQ(first, third);
  std::vector<uint32_t> other;
  ASSERT_EQ(compile_opencl_c(source, "-DX", &other, &log), BuildStatus::kSuccess);
  files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_template)) files += entry.path().extension() == ".spv";
  EXPECT_EQ(files, 2u) << "different options are a different cache entry";
  unsetenv("GSVIRT_CACHE_DIR");
  std::filesystem::remove_all(dir_template);
}

TEST(FrontEnd, MissingToolsAreReported) {
  Toolchain none;
  std::vector<uint32_t> spirv;
  std::string log;
  EXPECT_EQ(compile_opencl_c(none, kScaleKernel, "", &spirv, &log), BuildStatus::kToolMissing);
  EXPECT_NE(log.find("clang-14"), std::string::npos) << log;
  EXPECT_NE(log.find("llvm-spirv-14"), std::string::npos) << log;
  setenv("GSVIRT_CLANG", "/nonexistent/clang", 1);
  EXPECT_TRUE(discover_toolchain().clang.empty());
  unsetenv("GSVIRT_CLANG");
}

TEST(FrontEnd, SpirvGivenDirectlyIsValidatedAndCompiled) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<uint32_t> spirv;
  std::string log;
  ASSERT_EQ(compile_opencl_c("__kernel void k(__global int* p) { p[get_global_id(0)] = 7; }", "", &spirv, &log),
            BuildStatus::kSuccess);
  CompiledProgram program;
  ASSERT_EQ(build_spirv(spirv, &program, &log), BuildStatus::kSuccess) << log;
  ASSERT_EQ(program.kernels.size(), 1u);
  EXPECT_EQ(program.kernels[0].name, "k");
  std::vector<uint32_t> broken = spirv;
  broken[0] = 0x12345678;
  EXPECT_EQ(build_spirv(broken, &program, &log), BuildStatus::kInvalidBinary);
  EXPECT_NE(log.find("bad magic"), std::string::npos) << log;
}

TEST(FrontEnd, UnsupportedFeaturesNameWhatIsMissing) {
  GSGPU_REQUIRE_FRONT_END();
  CompiledProgram program;
  std::string log;
  // printf is supported, but only with literal formats and %s arguments (printf_test.cc).
  EXPECT_EQ(build_opencl_c(R"(__kernel void p(__constant char* s) { printf("%s\n", s); })", "", &program, &log),
            BuildStatus::kCompileError);
  EXPECT_NE(log.find("printf"), std::string::npos) << log;
  // half arithmetic (cl_khr_fp16, which the device does not report; vstore_half_rtz and the other
  // conversions are supported since issue 13 point 3).
  EXPECT_EQ(build_opencl_c("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                           "__kernel void h(__global half* x) { x[0] = x[0] * x[1]; }", "", &program, &log),
            BuildStatus::kCompileError);
  EXPECT_NE(log.find("cl_khr_fp16"), std::string::npos) << log;
}

TEST(FrontEnd, AToolThatNeverFinishesIsStopped) {
  GSGPU_REQUIRE_FRONT_END();
  // A guest program whose macros expand to 10^9 tokens: clang would work for a very long time.
  std::string source;
  source += "#define X0 1+1+1+1+1+1+1+1+1+1\n";
  for (int i = 1; i <= 8; ++i) {
    source += "#define X" + std::to_string(i) + " X" + std::to_string(i - 1);
    for (int k = 1; k < 10; ++k) source += "+X" + std::to_string(i - 1);
    source += "\n";
  }
  source += "__kernel void k(__global int* p) { p[0] = X8; }\n";
  setenv("GSVIRT_COMPILER_TIMEOUT", "2", 1);
  CompiledProgram program;
  std::string log;
  const auto start = std::chrono::steady_clock::now();
  const BuildStatus status = build_opencl_c(source, "", &program, &log);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
  unsetenv("GSVIRT_COMPILER_TIMEOUT");
  EXPECT_NE(status, BuildStatus::kSuccess);
  EXPECT_LT(seconds, 30);
  EXPECT_NE(log.find("did not finish within 2 s"), std::string::npos) << log;
}

TEST(FrontEnd, ConcurrentBuildsAreIndependent) {
  GSGPU_REQUIRE_FRONT_END();
  std::vector<std::thread> threads;
  std::vector<int> ok(6, 0);
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([t, &ok] {
      const std::string source = "__kernel void k" + std::to_string(t) + "(__global int* p) { p[0] = " + std::to_string(t) + "; }";
      CompiledProgram program;
      std::string log;
      ok[t] = build_opencl_c(source, t % 2 ? "-DODD" : "", &program, &log) == BuildStatus::kSuccess &&
              program.kernels.size() == 1 && program.kernels[0].name == "k" + std::to_string(t);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 6; ++t) EXPECT_TRUE(ok[t]) << t;
}

}  // namespace
}  // namespace gsgpu::compiler::testing
