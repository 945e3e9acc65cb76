#include "gsgpu/compiler/half_builtins.h"

namespace gsgpu::compiler {
namespace {

constexpr const char* kSizes[] = {"", "2", "3", "4", "8", "16"};
constexpr const char* kRoundings[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
constexpr const char* kWritableSpaces[] = {"__global", "__local", "__private"};

std::string build() {
  std::string text =
      "#ifndef cl_khr_fp16\n"
      "#define GSGPU_HALF_OVERLOAD __attribute__((overloadable))\n";
  // Loads: from every address space, __constant included.
  for (const char* space : {"__global", "__local", "__private", "__constant"}) {
    for (const char* n : kSizes) {
      const std::string result = std::string("float") + n;
      text += result + " GSGPU_HALF_OVERLOAD vload_half" + n + "(size_t, const " + space + " half*);\n";
      if (*n != '\0')  // the aligned forms exist for vectors only
        text += result + " GSGPU_HALF_OVERLOAD vloada_half" + n + "(size_t, const " + space + " half*);\n";
    }
  }
  // Stores: float data always, double data with cl_khr_fp64.
  for (const char* data : {"float", "double"}) {
    if (std::string(data) == "double") text += "#ifdef cl_khr_fp64\n";
    for (const char* space : kWritableSpaces) {
      for (const char* n : kSizes) {
        for (const char* mode : kRoundings) {
          const std::string parameters = std::string("(") + data + n + ", size_t, " + space + " half*);\n";
          text += std::string("void GSGPU_HALF_OVERLOAD vstore_half") + n + mode + parameters;
          if (*n != '\0') text += std::string("void GSGPU_HALF_OVERLOAD vstorea_half") + n + mode + parameters;
        }
      }
    }
    if (std::string(data) == "double") text += "#endif\n";
  }
  text += "#undef GSGPU_HALF_OVERLOAD\n#endif\n";
  return text;
}

}  // namespace

const std::string& half_builtin_declarations() {
  static const std::string text = build();
  return text;
}

}  // namespace gsgpu::compiler
