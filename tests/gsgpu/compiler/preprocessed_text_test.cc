// The text the sandboxed preprocessing gives a vendor's compiler (host executor): the prelude of
// clang's OpenCL header macros and the directives that may stay.
#include "gsgpu/compiler/preprocessed_text.h"

#include <gtest/gtest.h>

namespace gsgpu::compiler {
namespace {

constexpr char kWithout[] = "#define __OPENCL_C_VERSION__ 120\n#define __SPIR64__ 1\n";
constexpr char kWith[] =
    "#define __OPENCL_C_VERSION__ 120\n"
    "#define CHAR_BIT 8\n"
    "#define INT_MIN (-2147483647-1)\n"
    "#define ULONG_MAX 0xffffffffffffffffUL\n"
    "#define M_PI_F 3.14159274101257324219f\n"
    "#define CLK_FILTER_LINEAR 0x20\n"
    "#define NAN as_float(INT_MAX)\n"
    "#define _OPENCL_BASE_H_ \n"
    "#define __kernel_exec(X,typen) __kernel __attribute__((work_group_size_hint(X, 1, 1)))\n"
    "#define vararg(fmt,...) printf(fmt, __VA_ARGS__)\n"
    "#define __SPIR64__ 1\n";

TEST(VendorMacroPrelude, DefinesOnlyTheHeadersMacros) {
  const std::string prelude = vendor_macro_prelude(kWith, kWithout);
  EXPECT_EQ(prelude.find("__OPENCL_C_VERSION__"), std::string::npos) << prelude;
  EXPECT_EQ(prelude.find("__SPIR64__"), std::string::npos) << prelude;
}

TEST(VendorMacroPrelude, FixedIntegersKeepTheirValueTheRestNameThemselves) {
  const std::string prelude = vendor_macro_prelude(kWith, kWithout);
  for (const char* line : {"#define CHAR_BIT 8\n", "#define INT_MIN (-2147483647-1)\n",
                           "#define ULONG_MAX 0xffffffffffffffffUL\n", "#define M_PI_F M_PI_F\n",
                           "#define CLK_FILTER_LINEAR CLK_FILTER_LINEAR\n", "#define NAN NAN\n",
                           "#define _OPENCL_BASE_H_\n", "#define __kernel_exec(X,typen) __kernel_exec(X,typen)\n",
                           "#define vararg(fmt,...) vararg(fmt,__VA_ARGS__)\n"})
    EXPECT_NE(prelude.find(line), std::string::npos) << line << " missing from\n" << prelude;
}

TEST(DropUnknownPragmas, KeepsOpenClPragmasBlanksOthers) {
  std::string text =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "  #pragma GCC dependency \"/etc/passwd\"\n"
      "#pragma A fool thinks himself to be wise\n"
      "kernel void k() {\n#pragma unroll 4\n}\n";
  const size_t size = text.size();
  EXPECT_EQ(drop_unknown_pragmas(&text), "");
  EXPECT_EQ(text.size(), size) << "lines keep their place";
  EXPECT_NE(text.find("#pragma OPENCL EXTENSION cl_khr_fp64"), std::string::npos);
  EXPECT_NE(text.find("#pragma unroll 4"), std::string::npos);
  EXPECT_EQ(text.find("dependency"), std::string::npos) << text;
  EXPECT_EQ(text.find("fool"), std::string::npos) << text;
}

TEST(DropUnknownPragmas, RefusesOtherDirectivesAndOtherSpellings) {
  for (const char* bad : {"#include \"/etc/passwd\"\n", "# define X 1\n", "%:pragma OPENCL EXTENSION all : enable\n",
                          "?" "?=pragma unroll\n", "#pragmaX\n"}) {
    std::string text = std::string("kernel void k() {}\n") + bad;
    EXPECT_NE(drop_unknown_pragmas(&text), "") << bad;
  }
}

}  // namespace
}  // namespace gsgpu::compiler
