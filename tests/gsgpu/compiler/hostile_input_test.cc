// The compiler against a hostile guest: OpenCL C and SPIR-V written to hit undefined behaviour in
// the code generator end in a compiled program or a clear error (run under UBSan in the sanitizer
// build, where the undefined behaviour itself fails the test).
#include <string>
#include <vector>

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

}  // namespace
}  // namespace gsgpu::compiler::testing
