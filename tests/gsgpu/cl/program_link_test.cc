// clLinkProgram of several compiled objects (CTS test_compiler two_file_regular_struct_access and
// friends): each unit is its own translation unit, so both may define the same struct; a function
// declared in one and defined in the other is found; one defined twice is a link error with a log.
// Libraries of several units keep their exports, link again, and survive a binary round trip.
#include <string>
#include <vector>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

constexpr char kUnitA[] = R"(
struct bar { int x; int y; };
int combine(struct bar* b);
kernel void first(global int* out) {
  struct bar b = {3, 4};
  out[0] = combine(&b);
}
)";

constexpr char kUnitB[] = R"(
struct bar { int x; int y; };
int combine(struct bar* b) { return b->x * 10 + b->y; }
kernel void second(global int* out) {
  struct bar b = {5, 6};
  out[1] = combine(&b);
}
)";

class ProgramLinkTest : public GsgpuExecutorTest {
 protected:
  cl_program compiled(const char* text, const char* options = "") {
    cl_int err = CL_SUCCESS;
    cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    programs_.push_back(p);
    EXPECT_EQ(api().clCompileProgram(p, 1, &device_, options, 0, nullptr, nullptr, nullptr, nullptr), CL_SUCCESS)
        << build_log(p);
    return p;
  }
  cl_program link(std::vector<cl_program> inputs, const char* options, cl_int* err) {
    cl_program p = api().clLinkProgram(context_, 1, &device_, options, cl_uint(inputs.size()), inputs.data(), nullptr,
                                       nullptr, err);
    if (p) programs_.push_back(p);
    return p;
  }
  // Runs `first` and `second` of `p` and expects each unit's struct and the shared function.
  void expect_both_kernels_run(cl_program p) {
    cl_mem out = buffer_of(std::vector<int>{-1, -1});
    const size_t one = 1;
    for (const char* name : {"first", "second"}) {
      cl_kernel k = kernel(p, name);
      ASSERT_NE(k, nullptr);
      arg(k, 0, out);
      ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
    }
    const std::vector<int> got = read<int>(out, 2);
    EXPECT_EQ(got[0], 34);
    EXPECT_EQ(got[1], 56);
  }
  cl_program reload(cl_program p, cl_int* err) {
    size_t size = 0;
    EXPECT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), CL_SUCCESS);
    std::vector<unsigned char> bytes(size);
    unsigned char* dst = bytes.data();
    EXPECT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof dst, &dst, nullptr), CL_SUCCESS);
    const unsigned char* data = bytes.data();
    cl_program again = api().clCreateProgramWithBinary(context_, 1, &device_, &size, &data, nullptr, err);
    if (again) programs_.push_back(again);
    return again;
  }
};

TEST_F(ProgramLinkTest, TwoUnitsDefiningTheSameStructLink) {
  REQUIRE_COMPILER();
  cl_int err = CL_SUCCESS;
  cl_program linked = link({compiled(kUnitA), compiled(kUnitB)}, "", &err);
  ASSERT_EQ(err, CL_SUCCESS) << (linked ? build_log(linked) : "");
  expect_both_kernels_run(linked);
  // The executable's binary builds again.
  cl_program again = reload(linked, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(api().clBuildProgram(again, 1, &device_, "", nullptr, nullptr), CL_SUCCESS) << build_log(again);
  expect_both_kernels_run(again);
}

TEST_F(ProgramLinkTest, EachUnitKeepsItsOwnCompileOptions) {
  REQUIRE_COMPILER();
  const char* a = "int value(void);\nkernel void first(global int* o) { o[0] = value() + UNIT_A; }\n";
  const char* b = "int value(void) { return UNIT_B; }\nkernel void second(global int* o) { o[1] = UNIT_B; }\n";
  cl_int err = CL_SUCCESS;
  cl_program linked = link({compiled(a, "-D UNIT_A=30"), compiled(b, "-DUNIT_B=4")}, "", &err);
  ASSERT_EQ(err, CL_SUCCESS) << (linked ? build_log(linked) : "");
  cl_mem out = buffer_of(std::vector<int>{-1, -1});
  const size_t one = 1;
  cl_kernel k = kernel(linked, "first");
  arg(k, 0, out);
  ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
  EXPECT_EQ(read<int>(out, 2)[0], 34);
}

TEST_F(ProgramLinkTest, AFunctionDefinedTwiceIsALinkErrorWithALog) {
  REQUIRE_COMPILER();
  const char* twice = "struct bar { int x; int y; };\nint combine(struct bar* b) { return 0; }\n";
  cl_int err = CL_SUCCESS;
  cl_program linked = link({compiled(kUnitB), compiled(twice)}, "", &err);
  EXPECT_EQ(err, CL_LINK_PROGRAM_FAILURE);
  ASSERT_NE(linked, nullptr);
  EXPECT_NE(build_log(linked).find("combine"), std::string::npos) << build_log(linked);
  cl_build_status status = CL_BUILD_SUCCESS;
  EXPECT_EQ(api().clGetProgramBuildInfo(linked, device_, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_BUILD_ERROR);
}

TEST_F(ProgramLinkTest, AnUnresolvedFunctionFailsTheExecutableNotTheLibrary) {
  REQUIRE_COMPILER();
  const char* other = "kernel void second(global int* o) { o[1] = 1; }\n";
  cl_int err = CL_SUCCESS;
  cl_program executable = link({compiled(kUnitA), compiled(other)}, "", &err);
  EXPECT_EQ(err, CL_LINK_PROGRAM_FAILURE);
  cl_program library = link({compiled(kUnitA), compiled(other)}, "-create-library", &err);
  EXPECT_EQ(err, CL_SUCCESS) << (library ? build_log(library) : "");
  (void)executable;
}

TEST_F(ProgramLinkTest, ALibraryOfTwoUnitsLinksWithAThirdAndReloads) {
  REQUIRE_COMPILER();
  const char* third = "int combine(int);\nkernel void third(global int* o) { o[0] = combine(7); }\n";
  const char* lib_a = "int twice(int v) { return 2 * v; }\n";
  const char* lib_b = "int twice(int v);\nint combine(int v) { return twice(v) + 1; }\n";
  cl_int err = CL_SUCCESS;
  cl_program library = link({compiled(lib_a), compiled(lib_b)}, "-create-library", &err);
  ASSERT_EQ(err, CL_SUCCESS) << (library ? build_log(library) : "");
  cl_program_binary_type type = 0;
  EXPECT_EQ(api().clGetProgramBuildInfo(library, device_, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(type, cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
  cl_program reloaded = reload(library, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  for (cl_program lib : {library, reloaded}) {
    cl_program linked = link({compiled(third), lib}, "", &err);
    ASSERT_EQ(err, CL_SUCCESS) << (linked ? build_log(linked) : "");
    cl_mem out = buffer_of(std::vector<int>{-1});
    const size_t one = 1;
    cl_kernel k = kernel(linked, "third");
    arg(k, 0, out);
    ASSERT_EQ(run(k, 1, &one, &one), CL_SUCCESS);
    EXPECT_EQ(read<int>(out, 1)[0], 15);
  }
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
