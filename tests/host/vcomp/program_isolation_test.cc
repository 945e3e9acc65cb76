// A hostile guest's programs against both executors: #includes and build options that name host
// files find nothing, and the build log shows none of the host's files. The gsgpu executor runs
// its compiler in the sandbox; on the host executor (PoCL) vcomp preprocesses in that sandbox and
// the vendor compiles text with nothing left to open.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "gsgpu/compiler/frontend.h"
#include "host/vcomp/gsgpu_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

std::string first_line_of_passwd() {
  std::ifstream in("/etc/passwd");
  std::string line;
  std::getline(in, line);
  return line;
}

class ProgramIsolationTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const auto& t = gsgpu::compiler::toolchain();
    if (t.clang.empty() || t.llvm_spirv.empty()) GTEST_SKIP() << "clang-14 / llvm-spirv-14 not installed";
    std::string error;
    if (std::string(GetParam()) == "gsgpu") {
      GsgpuExecutorConfig config;
      config.shader_cores = 1;
      config.vram_mb = 16;
      owned_ = make_gsgpu_executor(config, &error);
      executor_ = owned_.get();
    } else {
      executor_ = host_executor(&error);
    }
    if (!executor_) GTEST_SKIP() << "no " << GetParam() << " executor: " << error;
    harness_ = std::make_unique<Harness>(executor_, 1, 1 << 16);
    context_ = harness_->make_context(&device_);
    ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  }

  // Creates a program from `source`, builds it with `options`; returns the build's result.
  int32_t build(const std::string& source, const std::string& options, uint64_t* program_out = nullptr) {
    const uint64_t program = harness_->next_id();
    harness_->send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, program, context_, source); });
    EXPECT_EQ(harness_->last_result(), CL_SUCCESS);
    harness_->send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device_, 1, options); });
    if (program_out) *program_out = program;
    return harness_->last_result();
  }

  std::string build_log(uint64_t program) {
    proto::DataOut log_out{proto::kDataInline, 60000};
    harness_->send([&](WireWriter& w) {
      proto::encode_clGetProgramBuildInfo(w, true, program, device_, CL_PROGRAM_BUILD_LOG, log_out);
    });
    proto::Reply_clGetProgramBuildInfo log;
    WireReader r = harness_->payload();
    EXPECT_TRUE(proto::decode_reply_clGetProgramBuildInfo(r, &log));
    return std::string(reinterpret_cast<const char*>(log.value), log.value_size);
  }

  std::unique_ptr<Executor> owned_;
  Executor* executor_ = nullptr;
  std::unique_ptr<Harness> harness_;
  uint64_t device_ = 0, context_ = 0;
};

TEST_P(ProgramIsolationTest, Issue12IncludeOfAHostFileShowsNothingOfIt) {
  const std::string passwd = first_line_of_passwd();
  ASSERT_FALSE(passwd.empty());
  for (const char* include : {"\"/etc/passwd\"", "</etc/passwd>", "\"../../../../../../../../etc/passwd\""}) {
    uint64_t program = 0;
    EXPECT_NE(build(std::string("#include ") + include + "\n__kernel void k(__global int* p) { p[0] = 1; }\n", "",
                    &program),
              CL_SUCCESS)
        << include;
    const std::string log = build_log(program);
    EXPECT_EQ(log.find(passwd), std::string::npos) << include << ": the build log shows /etc/passwd\n" << log;
    EXPECT_NE(log.find("not found"), std::string::npos) << log;
  }
}

TEST_P(ProgramIsolationTest, Issue12HasIncludeSeesNoHostFile) {
  for (const char* path : {"/etc/passwd", "/etc/hostname", "/proc/self/environ"}) {
    const std::string source = std::string("#if __has_include(\"") + path + "\")\n#error visible\n#endif\n" +
                               "__kernel void k(__global int* p) { p[0] = 2; }\n";
    EXPECT_EQ(build(source, ""), CL_SUCCESS) << path;
  }
}

TEST_P(ProgramIsolationTest, Issue12IncludeDirectoryOptionsAreRefused) {
  const std::string source = "#include \"passwd\"\n__kernel void k(__global int* p) { p[0] = 1; }\n";
  for (const char* options : {"-I /etc", "-I/etc", "-include /etc/passwd", "-DX=\"a -include /etc/passwd\"",
                              "-isystem /etc", "-Xclang -load"}) {
    EXPECT_EQ(build(source, options), CL_INVALID_BUILD_OPTIONS) << options;
  }
}

// The rules cost ordinary programs nothing: macros from options and the device still work.
TEST_P(ProgramIsolationTest, Issue12OrdinaryOptionsStillWork) {
  const std::string source =
      "#ifndef __OPENCL_VERSION__\n#error no version\n#endif\n"
      "#pragma OPENCL EXTENSION all : disable\n"
      "__kernel void k(__global int* p) { p[0] = FACTOR; }\n";
  EXPECT_EQ(build(source, "-D FACTOR=3 -cl-mad-enable -DUNUSED -cl-std=CL1.2"), CL_SUCCESS);
  EXPECT_EQ(build(source, ""), CL_BUILD_PROGRAM_FAILURE) << "FACTOR is undefined";
}

// OpenCL's header macros are defined for #ifdef and #if as the vendor's compiler would see them
// (the CTS's test_basic kernel_preprocessor_macros), and still expand on the vendor's side.
TEST_P(ProgramIsolationTest, Issue13HeaderMacrosAreSeenByThePreprocessing) {
  const std::string source =
      "#ifndef __kernel_exec\n#error __kernel_exec is not defined\n#endif\n"
      "#if CHAR_BIT != 8 || INT_MAX != 2147483647 || !defined(M_PI_F) || !defined(CLK_NORMALIZED_COORDS_TRUE)\n"
      "#error the header's constants are missing\n#endif\n"
      "__kernel_exec(1, float4) void k(__global float* p) { p[0] = M_PI_F + (float)CHAR_BIT; }\n";
  uint64_t program = 0;
  EXPECT_EQ(build(source, "", &program), CL_SUCCESS) << build_log(program);
}

// A pragma the compiler does not know is ignored, as C says, instead of failing the build (the
// CTS's test_compiler preprocessor_pragma); the vendor never sees it.
TEST_P(ProgramIsolationTest, Issue13UnknownPragmasAreIgnored) {
  const std::string source =
      "#pragma A fool thinks himself to be wise, but a wise man knows himself to be a fool.\n"
      "#pragma OPENCL EXTENSION all : disable\n"
      "__kernel void k(__global int* p) {\n#pragma unroll 2\n  for (int i = 0; i < 4; ++i) p[i] = i;\n}\n";
  uint64_t program = 0;
  EXPECT_EQ(build(source, "", &program), CL_SUCCESS) << build_log(program);
}

// A rebuild with other -D options preprocesses the guest's source again (the CTS's test_compiler
// options_build_macro), and CL_PROGRAM_SOURCE gives the guest back its own text.
TEST_P(ProgramIsolationTest, Issue13RebuildAppliesTheNewMacros) {
  const std::string source = "#ifndef WANTED\n#error WANTED is not defined\n#endif\n"
                             "__kernel void k(__global int* p) { p[0] = WANTED; }\n";
  uint64_t program = 0;
  ASSERT_EQ(build(source, "-DWANTED=5", &program), CL_SUCCESS) << build_log(program);
  harness_->send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device_, 1, ""); });
  EXPECT_EQ(harness_->last_result(), CL_BUILD_PROGRAM_FAILURE) << "the second build kept WANTED";
  harness_->send([&](WireWriter& w) { proto::encode_clBuildProgram(w, true, program, &device_, 1, "-DWANTED=7"); });
  EXPECT_EQ(harness_->last_result(), CL_SUCCESS) << build_log(program);
  proto::DataOut source_out{proto::kDataInline, 4096};
  harness_->send(
      [&](WireWriter& w) { proto::encode_clGetProgramInfo(w, true, program, CL_PROGRAM_SOURCE, source_out); });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  proto::Reply_clGetProgramInfo info;
  WireReader r = harness_->payload();
  ASSERT_TRUE(proto::decode_reply_clGetProgramInfo(r, &info));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(info.value), info.value_size), source + '\0');
}

// A program of clCompileProgram + clLinkProgram keeps the argument metadata that vcomp needs to
// take a memory object for a pointer argument (the CTS's test_compiler execute_after_* sub-tests).
TEST_P(ProgramIsolationTest, Issue13LinkedKernelsTakeMemoryObjects) {
  const uint64_t object = harness_->next_id();
  const std::string source = "__kernel void k(__global int* p, int v) { p[get_global_id(0)] = v; }\n";
  harness_->send([&](WireWriter& w) { proto::encode_clCreateProgramWithSource(w, true, object, context_, source); });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  harness_->send([&](WireWriter& w) {
    proto::encode_clCompileProgram(w, true, object, &device_, 1, "", nullptr, 0, nullptr, 0);
  });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS) << build_log(object);
  const uint64_t linked = harness_->next_id();
  harness_->send([&](WireWriter& w) {
    proto::encode_clLinkProgram(w, true, linked, context_, &device_, 1, "", &object, 1);
  });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  const uint64_t kernel = harness_->next_id();
  harness_->send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, kernel, linked, "k"); });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  const uint64_t buffer = harness_->next_id();
  harness_->send([&](WireWriter& w) {
    proto::encode_clCreateBuffer(w, true, buffer, context_, CL_MEM_READ_WRITE, 64, proto::DataIn{});
  });
  ASSERT_EQ(harness_->last_result(), CL_SUCCESS);
  harness_->send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, kernel, 0, 1, 8, buffer, nullptr, 0); });
  EXPECT_EQ(harness_->last_result(), CL_SUCCESS);
  const int32_t value = 7;
  harness_->send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, kernel, 1, 0, 4, 0, &value, 4); });
  EXPECT_EQ(harness_->last_result(), CL_SUCCESS);
  // The metadata still refuses what does not fit: value bytes for the pointer.
  const uint64_t forged = 0x1000;
  harness_->send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, kernel, 0, 0, 8, 0, &forged, 8); });
  EXPECT_NE(harness_->last_result(), CL_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Executors, ProgramIsolationTest, ::testing::Values("gsgpu", "host"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace gsvirt::vcomp::testing
