// The compiler against a hostile guest: OpenCL C and SPIR-V written to hit undefined behaviour in
// the code generator end in a compiled program or a clear error (run under UBSan in the sanitizer
// build, where the undefined behaviour itself fails the test); programs that name host files see
// none; a program that makes clang print without end is stopped with a bounded log.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/cancel.h"
#include "gsgpu/compiler/frontend.h"
#include "gsgpu/compiler/subprocess.h"
#include "gsgpu/compiler/tool_sandbox.h"
#include "tests/gsgpu/compiler/cl_harness.h"

namespace gsgpu::compiler::testing {
namespace {

// A constant index whose byte offset overflows int64_t: the folding wraps as the device's 64-bit
// address arithmetic does (was a signed multiply overflow).
TEST(CompilerHostileInput, Issue12HugeConstantIndexFoldsWithoutOverflow) {
  GSGPU_REQUIRE_FRONT_END();
  for (const char* index : {"0x6188888888888881L", "-0x7fffffffffffffffL", "0x4000000000000001L"}) {
    const std::string source = std::string("__kernel void k(__global int* p, __local int* l) {\n") +
                               "  p[" + index + "] = 1;\n  p[1] = p[" + index + "];\n"
                               "  l[" + index + "] = 2;\n  p[2] = l[" + index + "];\n}\n";
    CompiledProgram program;
    std::string log;
    EXPECT_EQ(build_opencl_c(source, "", &program, &log), BuildStatus::kSuccess) << index << "\n" << log;
  }
}

// OpConvertFToS with SaturatedConversion and a void result type: the saturation bounds were
// 1 << (width - 1) with width 0, a shift by -1. Word ids: %k 1, %x 2, %void 3, %float 4, %fn 5,
// %f1 6, %entry 7.
TEST(CompilerHostileInput, Issue12ConversionToANonIntegerTypeIsAClearError) {
  const std::vector<uint32_t> words = {
      0x07230203, 0x00010000, 0x00070000, 0x00000008, 0x00000000,
      0x00020011, 0x00000004,                          // OpCapability Addresses
      0x00020011, 0x00000006,                          // OpCapability Kernel
      0x00020011, 0x0000000b,                          // OpCapability Int64
      0x0003000e, 0x00000002, 0x00000002,              // OpMemoryModel Physical64 OpenCL
      0x0004000f, 0x00000006, 0x00000001, 0x0000006b,  // OpEntryPoint Kernel %k "k"
      0x00030047, 0x00000002, 0x0000001c,              // OpDecorate %x SaturatedConversion
      0x00020013, 0x00000003,                          // %void = OpTypeVoid
      0x00030016, 0x00000004, 0x00000020,              // %float = OpTypeFloat 32
      0x00030021, 0x00000005, 0x00000003,              // %fn = OpTypeFunction %void
      0x0004002b, 0x00000004, 0x00000006, 0x3fc00000,  // %f1 = OpConstant %float 1.5
      0x00050036, 0x00000003, 0x00000001, 0x00000000, 0x00000005,  // %k = OpFunction %void None %fn
      0x000200f8, 0x00000007,                          // %entry = OpLabel
      0x0004006e, 0x00000003, 0x00000002, 0x00000006,  // %x = OpConvertFToS %void %f1
      0x000100fd,                                      // OpReturn
      0x00010038,                                      // OpFunctionEnd
  };
  CompiledProgram program;
  std::string error;
  EXPECT_FALSE(compile_spirv(words, &program, &error));
  EXPECT_NE(error.find("is not an 8-, 16-, 32- or 64-bit integer"), std::string::npos) << error;
}

// The first line of a host file that every Linux host has and no build log should show.
std::string first_line_of_passwd() {
  std::ifstream in("/etc/passwd");
  std::string line;
  std::getline(in, line);
  return line;
}

// Runs `body` with the namespace sandbox, then with it turned off (clang's own file system limit
// alone, as on a kernel without user namespaces).
template <typename Body>
void with_and_without_sandbox(Body body) {
  body("sandbox");
  setenv("GSVIRT_COMPILER_SANDBOX", "0", 1);
  body("file-system overlay only");
  unsetenv("GSVIRT_COMPILER_SANDBOX");
}

TEST(CompilerHostileInput, Issue12IncludesOfHostFilesAreNotFound) {
  GSGPU_REQUIRE_FRONT_END();
  const std::string passwd = first_line_of_passwd();
  ASSERT_FALSE(passwd.empty());
  with_and_without_sandbox([&](const char* mode) {
    for (const char* include : {"\"/etc/passwd\"", "</etc/passwd>", "\"../../../../../../../../etc/passwd\""}) {
      CompiledProgram program;
      std::string log;
      const std::string source = std::string("#include ") + include + "\n__kernel void k(__global int* p) { p[0] = 1; }\n";
      EXPECT_EQ(build_opencl_c(source, "", &program, &log), BuildStatus::kCompileError) << mode << " " << include;
      EXPECT_NE(log.find("file not found"), std::string::npos) << mode << "\n" << log;
      EXPECT_EQ(log.find(passwd), std::string::npos) << mode << ": the log shows the host's /etc/passwd\n" << log;
    }
  });
}

TEST(CompilerHostileInput, Issue12HasIncludeCannotProbeHostPaths) {
  GSGPU_REQUIRE_FRONT_END();
  with_and_without_sandbox([&](const char* mode) {
    for (const char* path : {"/etc/passwd", "/proc/self/environ", "/usr/include/stdio.h", "/usr/lib/os-release"}) {
      const std::string source = std::string("#if __has_include(\"") + path + "\")\n#error the host file is visible\n#endif\n" +
                                 "__kernel void k(__global int* p) { p[0] = 2; }\n";
      CompiledProgram program;
      std::string log;
      EXPECT_EQ(build_opencl_c(source, "", &program, &log), BuildStatus::kSuccess) << mode << " " << path << "\n" << log;
    }
  });
}

TEST(CompilerHostileInput, Issue12EmbeddedHeadersAreTheOnlyHeaders) {
  GSGPU_REQUIRE_FRONT_END();
  with_and_without_sandbox([&](const char* mode) {
    std::vector<uint32_t> spirv;
    std::string log;
    const EmbeddedHeaders headers = {{"inc/values.h", "#define VALUE 7\n"}};
    EXPECT_EQ(compile_opencl_c("#include \"inc/values.h\"\n__kernel void k(__global int* p) { p[0] = VALUE; }\n", "",
                               headers, &spirv, &log),
              BuildStatus::kSuccess)
        << mode << "\n" << log;
    EXPECT_EQ(compile_opencl_c("#include \"x.h\"\n__kernel void k(__global int* p) { p[0] = 1; }\n", "",
                               {{"../x.h", ""}}, &spirv, &log),
              BuildStatus::kCompileError);
    EXPECT_NE(log.find("not a plain relative path"), std::string::npos) << log;
  });
}

// The sandbox itself (behind clang's file system limit): a tool run in it finds no host file.
TEST(CompilerHostileInput, Issue12SandboxedToolsSeeNoHostFiles) {
  if (!tool_sandbox_available()) GTEST_SKIP() << "this kernel offers no user namespaces";
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ToolOptions options;
  options.work_dir = dir.path();
  options.deadline = build_deadline();
  const ToolRun run = run_tool({"/bin/cat", "/etc/passwd", "/proc/self/environ", "/tmp"}, options);
  EXPECT_TRUE(run.started) << run.output;
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(run.output.find(first_line_of_passwd()), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("No such file"), std::string::npos) << run.output;
}

// A source that includes itself twice per level prints 2^depth warnings (clang's include depth
// limit ends the first one after 6 MB; the second never ends on its own): clang is stopped once its
// output passes the cap, well before the build's time limit, and the log stays bounded.
TEST(CompilerHostileInput, Issue12EndlessDiagnosticsAreCutAndTheBuildEnds) {
  GSGPU_REQUIRE_FRONT_END();
  setenv("GSVIRT_COMPILER_TIMEOUT", "20", 1);
  const std::string warning = "#warning this line is printed again and again with its include stack\n";
  for (const std::string& source : {warning + "#include __FILE__\n#include __FILE__\n",
                                    "#if __INCLUDE_LEVEL__ < 60\n" + warning + "#include __FILE__\n#include __FILE__\n#endif\n"}) {
    CompiledProgram program;
    std::string log;
    const auto start = std::chrono::steady_clock::now();
    const BuildStatus status = build_opencl_c(source, "", &program, &log);
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(status, BuildStatus::kCompileError);
    EXPECT_LE(log.size(), kMaxToolOutput);
    EXPECT_NE(log.find("printed more than"), std::string::npos) << log.substr(log.size() > 400 ? log.size() - 400 : 0);
    EXPECT_LT(seconds, 15) << "a hang detector, not a timing: the time limit would stop it at 20 s";
  }
  unsetenv("GSVIRT_COMPILER_TIMEOUT");
}

// A build whose client has gone is cancelled from another thread (the no-fork server's hang-up
// watcher, a context's destruction): the tool it waits for is killed at once instead of running
// to the build's deadline, and no further tool starts. A tool stand-in that would sleep 600 s.
TEST(CompilerHostileInput, Issue12ACancelledBuildStopsItsToolAtOnce) {
  auto token = std::make_shared<gsvirt::CancelToken>();
  gsvirt::CancelScope scope(token);
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ToolOptions options;
  options.work_dir = dir.path();
  options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);  // the hang detector
  std::thread canceller([token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    token->cancel();
  });
  const ToolRun run = run_tool({"/bin/sleep", "600"}, options);
  canceller.join();
  EXPECT_TRUE(run.cancelled) << run.output;
  EXPECT_FALSE(run.timed_out) << run.output;
  EXPECT_NE(run.output.find("cancelled"), std::string::npos) << run.output;
  const ToolRun next = run_tool({"/bin/true"}, options);
  EXPECT_FALSE(next.started);
  EXPECT_TRUE(next.cancelled);
  {
    // Process-wide work (the toolchain's discovery) runs shielded from the requester's departure.
    gsvirt::CancelShield shield;
    const ToolRun shielded = run_tool({"/bin/true"}, options);
    EXPECT_TRUE(shielded.started && shielded.exit_code == 0) << shielded.output;
  }
}

}  // namespace
}  // namespace gsgpu::compiler::testing
