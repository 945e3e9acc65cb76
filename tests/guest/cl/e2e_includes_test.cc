// Programs that include the application's own headers (-I <dir>, as PyOpenCL passes it, and paths
// relative to the including file): the ICD reads them on the application's side, since the host
// refuses -I and sees no file of the guest.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "e2e_fixture.h"

namespace gsvirt::icd::test {
namespace {

class AppHeaders {
 public:
  AppHeaders() {
    std::string templ = std::filesystem::temp_directory_path().string() + "/gsvirt-app-headers-XXXXXX";
    if (mkdtemp(templ.data())) dir_ = templ;
  }
  ~AppHeaders() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  void write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = std::filesystem::path(dir_) / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

int run_value_kernel(cl_program program) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "value", &err);
  EXPECT_EQ(err, CL_SUCCESS);
  cl_mem out = clCreateBuffer(cl_env().context, CL_MEM_WRITE_ONLY, sizeof(int), nullptr, &err);
  EXPECT_EQ(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  size_t one = 1;
  EXPECT_EQ(clEnqueueNDRangeKernel(cl_env().queue, kernel, 1, nullptr, &one, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  int value = -1;
  EXPECT_EQ(clEnqueueReadBuffer(cl_env().queue, out, CL_TRUE, 0, sizeof value, &value, 0, nullptr, nullptr), CL_SUCCESS);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  return value;
}

TEST(IcdIncludes, IncludeDirectoriesAreReadOnTheApplicationsSide) {
  AppHeaders headers;
  ASSERT_FALSE(headers.dir().empty());
  headers.write("values.h", "#pragma once\n#include \"sub/more.h\"\n#define VALUE (BASE + 2)\n");
  headers.write("sub/more.h", "#ifndef MORE_H\n#define MORE_H\n#define BASE 40\n#endif\n");
  const std::string source =
      "#include <values.h>\n#include \"values.h\"\n"
      "__kernel void value(__global int* out) { out[0] = VALUE; }\n";
  for (const std::string& options : {"-I " + headers.dir(), "-I" + headers.dir() + " -DUNUSED=1",
                                     "-I \"" + headers.dir() + "\""}) {
    cl_program program = build_program(source.c_str(), options.c_str());
    ASSERT_NE(program, nullptr) << options;
    EXPECT_EQ(run_value_kernel(program), 42) << options;
    clReleaseProgram(program);
  }
}

// hashcat's pattern: the include path comes from -D options and is stringized by macros the
// options also define, so the operand names a file only after expansion on this side.
TEST(IcdIncludes, ComputedIncludesExpandWithTheOptionsMacros) {
  AppHeaders headers;
  ASSERT_FALSE(headers.dir().empty());
  headers.write("inc_values.h", "#define VALUE 42\n");
  const std::string source =
      "#include M2S(INCLUDE_PATH/inc_values.h)\n"
      "__kernel void value(__global int* out) { out[0] = VALUE; }\n";
  const std::string options = "-D \"XM2S(x)=#x\" -D \"M2S(x)=XM2S(x)\" -D INCLUDE_PATH=" + headers.dir();
  cl_program program = build_program(source.c_str(), options.c_str());
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(run_value_kernel(program), 42);
  clReleaseProgram(program);
}

}  // namespace
}  // namespace gsvirt::icd::test
