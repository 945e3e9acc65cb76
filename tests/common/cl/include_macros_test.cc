// Computed #include operands expanded with the build options' -D macros (common/cl/include_macros.h).
#include "common/cl/include_macros.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "common/cl/program_includes.h"

namespace gsvirt::cl {
namespace {

struct Expanded {
  bool ok = false;
  std::string name;
  bool quoted = false;
};

Expanded expand(const std::vector<std::string>& defines, const std::string& operand) {
  Expanded e;
  e.ok = IncludeMacros(defines).expand(operand, &e.name, &e.quoted);
  return e;
}

TEST(IncludeMacros, HashcatsStringizedIncludePath) {
  const std::vector<std::string> defines = {"XM2S(x)=#x", "M2S(x)=XM2S(x)", "INCLUDE_PATH=/usr/share/app/OpenCL"};
  const Expanded e = expand(defines, "M2S(INCLUDE_PATH/inc_vendor.h)");
  ASSERT_TRUE(e.ok);
  EXPECT_EQ(e.name, "/usr/share/app/OpenCL/inc_vendor.h");
  EXPECT_TRUE(e.quoted);
  // Without the indirection the argument is stringized as written, as a compiler does.
  const Expanded raw = expand(defines, "XM2S(INCLUDE_PATH/inc_vendor.h)");
  ASSERT_TRUE(raw.ok);
  EXPECT_EQ(raw.name, "INCLUDE_PATH/inc_vendor.h");
}

TEST(IncludeMacros, ObjectLikeQuotedAndAngleForms) {
  EXPECT_EQ(expand({"HDR=\"a/b.h\""}, "HDR").name, "a/b.h");
  const Expanded angle = expand({"SYS=<sys/x.h>"}, "SYS");
  ASSERT_TRUE(angle.ok);
  EXPECT_EQ(angle.name, "sys/x.h");
  EXPECT_FALSE(angle.quoted);
  EXPECT_EQ(expand({"CAT(a,b)=a##b", "S(x)=#x", "X(x)=S(x)"}, "X(CAT(my,file).h)").name, "myfile.h");
  EXPECT_EQ(expand({"S(x)=#x"}, "S(a  b)").name, "a b") << "whitespace between tokens stringizes as one space";
}

TEST(IncludeMacros, WhatDoesNotExpandToANameIsRefused) {
  EXPECT_FALSE(expand({}, "UNDEFINED").ok);
  EXPECT_FALSE(expand({"N=42"}, "N").ok);
  EXPECT_FALSE(expand({"S(x)=#x"}, "S(unclosed").ok);
  EXPECT_FALSE(expand({"S(x)=#x"}, "S").ok) << "a function-like name without a call stays a name";
  // A self-referring macro stops, as C's rule against recursive expansion says.
  EXPECT_FALSE(expand({"A=A B", "B=A"}, "A").ok);
  // Exponential growth ends at the token budget instead of hanging the application's build.
  std::vector<std::string> bomb = {"M0=x x"};
  for (int i = 1; i < 40; ++i)
    bomb.push_back("M" + std::to_string(i) + "=M" + std::to_string(i - 1) + " M" + std::to_string(i - 1));
  EXPECT_FALSE(expand(bomb, "M39").ok);
}

TEST(IncludeMacros, DefineOptionsAreCollectedInEitherSpelling) {
  EXPECT_EQ(define_options("-DA=1 -D \"M2S(x)=XM2S(x)\" -I dir -D B -cl-fast-relaxed-math"),
            (std::vector<std::string>{"A=1", "M2S(x)=XM2S(x)", "B"}));
}

// A header with #pragma once named twice is inlined once, without its #pragma once line (clang
// warns about one "in main file", and PyOpenCL shows that warning to its user), and the lines
// after it keep their numbers.
TEST(InlineIncludes, PragmaOnceHeadersAreInlinedOnceWithoutThePragma) {
  char dir[] = "/tmp/gsvirt-includes-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string header = std::string(dir) + "/once.h";
  std::ofstream(header) << "#pragma once\n#define ONCE_VALUE 7\n";
  bool changed = false;
  const std::string out = inline_includes("#include \"once.h\"\n#include <once.h>\nint x = ONCE_VALUE;\n",
                                          {dir}, {}, &changed);
  EXPECT_TRUE(changed);
  EXPECT_EQ(out.find("pragma"), std::string::npos) << out;
  const size_t first = out.find("#define ONCE_VALUE 7");
  ASSERT_NE(first, std::string::npos) << out;
  EXPECT_EQ(out.find("#define ONCE_VALUE 7", first + 1), std::string::npos) << out;
  EXPECT_NE(out.find("#line 1 \"once.h\"\n\n#define ONCE_VALUE 7"), std::string::npos) << out;  // line 2 still
  EXPECT_NE(out.find("int x = ONCE_VALUE;"), std::string::npos) << out;
  unlink(header.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace gsvirt::cl
