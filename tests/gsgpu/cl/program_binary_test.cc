// Program binaries of compiled objects and libraries (CTS test_compiler's serialize / reload and
// program_binary_type): they keep their type and what a later link needs, including the embedded
// headers; a binary whose parts do not fit its size is CL_INVALID_BINARY (the bytes are hostile).
#include <cstring>
#include <string>
#include <vector>

#include "tests/gsgpu/cl/executor_fixture.h"

namespace gsvirt::vcomp::testing {
namespace {

class ProgramBinaryTest : public GsgpuExecutorTest {
 protected:
  std::vector<unsigned char> binary_of(cl_program p) {
    size_t size = 0;
    EXPECT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), CL_SUCCESS);
    std::vector<unsigned char> bytes(size);
    unsigned char* dst = bytes.data();
    EXPECT_EQ(api().clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof dst, &dst, nullptr), CL_SUCCESS);
    return bytes;
  }
  cl_program from_binary(const std::vector<unsigned char>& bytes, cl_int* err) {
    const unsigned char* data = bytes.data();
    const size_t size = bytes.size();
    cl_int status = CL_SUCCESS;
    cl_program p = api().clCreateProgramWithBinary(context_, 1, &device_, &size, &data, &status, err);
    if (p) programs_.push_back(p);
    return p;
  }
  cl_program_binary_type type_of(cl_program p) {
    cl_program_binary_type t = 0;
    EXPECT_EQ(api().clGetProgramBuildInfo(p, device_, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, nullptr), CL_SUCCESS);
    return t;
  }
  // A compiled object whose source includes an embedded header.
  cl_program compiled_object() {
    const char* header_text = "#define VALUE 42\n";
    const char* text = "#include \"value.h\"\n__kernel void k(__global int* p) { p[0] = VALUE; }";
    cl_int err = CL_SUCCESS;
    cl_program header = api().clCreateProgramWithSource(context_, 1, &header_text, nullptr, &err);
    programs_.push_back(header);
    cl_program p = api().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
    programs_.push_back(p);
    const char* name = "value.h";
    EXPECT_EQ(api().clCompileProgram(p, 1, &device_, "", 1, &header, &name, nullptr, nullptr), CL_SUCCESS);
    return p;
  }
};

TEST_F(ProgramBinaryTest, ACompiledObjectsBinaryReloadsAsAnObjectAndLinks) {
  REQUIRE_COMPILER();
  cl_program object = compiled_object();
  cl_int err = CL_SUCCESS;
  cl_program reloaded = from_binary(binary_of(object), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(type_of(reloaded), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT));
  // The header travelled with it: the link finds value.h.
  cl_program linked = api().clLinkProgram(context_, 1, &device_, "", 1, &reloaded, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(linked);
  cl_kernel k = api().clCreateKernel(linked, "k", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  if (k) api().clReleaseKernel(k);
  // A library made from it reloads as a library.
  cl_program library = api().clLinkProgram(context_, 1, &device_, "-create-library", 1, &reloaded, nullptr, nullptr,
                                           &err);
  ASSERT_EQ(err, CL_SUCCESS);
  programs_.push_back(library);
  cl_program library_again = from_binary(binary_of(library), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(type_of(library_again), cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
}

TEST_F(ProgramBinaryTest, AnObjectBinaryWhosePartsOverrunItIsInvalid) {
  REQUIRE_COMPILER();
  std::vector<unsigned char> bytes = binary_of(compiled_object());
  // Header (16 bytes), no options, then the count of embedded headers and the first name's size.
  ASSERT_GT(bytes.size(), 24u);
  cl_int err = CL_SUCCESS;
  for (uint32_t bad : {0xffffffffu, 257u}) {  // a count past the limit
    std::vector<unsigned char> b = bytes;
    std::memcpy(b.data() + 16, &bad, sizeof bad);
    EXPECT_EQ(from_binary(b, &err), nullptr);
    EXPECT_EQ(err, CL_INVALID_BINARY);
  }
  std::vector<unsigned char> b = bytes;
  const uint32_t huge = 0xfffffff0u;  // a name longer than the binary
  std::memcpy(b.data() + 20, &huge, sizeof huge);
  EXPECT_EQ(from_binary(b, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BINARY);
  b.assign(bytes.begin(), bytes.begin() + 22);  // cut inside the first name's size
  EXPECT_EQ(from_binary(b, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BINARY);
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
