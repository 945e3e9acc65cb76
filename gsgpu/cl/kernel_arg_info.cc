// Argument type names and qualifiers for clGetKernelArgInfo. SPIR-V keeps no OpenCL C type names,
// so they are read from the kernel's declaration in the program source (only for programs built
// with -cl-kernel-arg-info, as the spec asks). Declarations that hide behind macros are not
// understood: their kernels simply report CL_KERNEL_ARG_INFO_NOT_AVAILABLE.
#include <cctype>

#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

constexpr size_t kMaxSourceScanned = 4 << 20;

std::string without_comments(std::string_view src) {
  std::string out;
  out.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
      out += '\n';
    } else if (src.compare(i, 2, "/*") == 0) {
      const size_t end = src.find("*/", i + 2);
      i = end == std::string_view::npos ? src.size() : end + 1;
      out += ' ';
    } else {
      out += src[i];
    }
  }
  return out;
}

// Identifiers, "*", and single punctuation characters.
std::vector<std::string> tokens_of(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      out.push_back(std::string(1, char(c)));
      ++i;
    }
  }
  return out;
}

bool is_one_of(const std::string& t, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (t == w) return true;
  return false;
}

// The OpenCL C name of an integer type spelled with keywords in any order ("unsigned char",
// "char unsigned", "signed", "long unsigned int"): "uchar", "int", "ulong", as clang's kernel
// argument metadata names them. "" when `words` is not such a spelling.
std::string integer_type_name(const std::vector<std::string>& words) {
  bool is_unsigned = false;
  std::string base;
  for (const auto& w : words) {
    if (w == "unsigned") is_unsigned = true;
    else if (w == "signed") continue;              // OpenCL C's char is signed too
    else if (is_one_of(w, {"char", "short", "long"})) base = w;
    else if (w == "int") base = base.empty() ? "int" : base;  // "short int", "long int"
    else return "";
  }
  if (base.empty()) base = "int";  // "unsigned" or "signed" alone
  return (is_unsigned ? "u" : "") + base;
}

// One parameter's tokens -> (type name, type qualifier); false when it does not look like one.
bool parse_parameter(const std::vector<std::string>& toks, KernelArgType* out) {
  std::vector<std::string> type;
  bool pointer = false;
  out->qualifier = CL_KERNEL_ARG_TYPE_NONE;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (is_one_of(t, {"__global", "global", "__local", "local", "__constant", "constant", "__private", "private",
                      "__read_only", "read_only", "__write_only", "write_only", "__read_write", "read_write"})) {
      if (t == "__constant" || t == "constant") out->qualifier |= CL_KERNEL_ARG_TYPE_CONST;
      continue;
    }
    if (t == "const") out->qualifier |= CL_KERNEL_ARG_TYPE_CONST;
    else if (t == "volatile") out->qualifier |= CL_KERNEL_ARG_TYPE_VOLATILE;
    else if (t == "restrict" || t == "__restrict") out->qualifier |= CL_KERNEL_ARG_TYPE_RESTRICT;
    else if (t == "*") pointer = true;
    else if (t == "[" || t == "]" || t == "(" || t == ")") return false;
    else type.push_back(t);
  }
  if (type.size() < 2) return false;  // at least a type and a name
  type.pop_back();                   // the parameter's name
  out->name = integer_type_name(type);
  if (out->name.empty())
    for (const auto& t : type) out->name += (out->name.empty() ? "" : " ") + t;
  out->name += pointer ? "*" : "";
  return true;
}

// The parameters of `kernel_name`'s declaration, or nullopt.
std::optional<std::vector<KernelArgType>> parse_kernel(const std::vector<std::string>& toks,
                                                       const std::string& kernel_name) {
  for (size_t i = 0; i + 3 < toks.size(); ++i) {
    if (toks[i] != "__kernel" && toks[i] != "kernel") continue;
    // __kernel [attributes] void NAME ( ... )
    size_t j = i + 1;
    while (j < toks.size() && toks[j] != kernel_name && toks[j] != "{" && toks[j] != ";") ++j;
    if (j + 1 >= toks.size() || toks[j] != kernel_name || toks[j + 1] != "(") continue;
    std::vector<KernelArgType> params;
    std::vector<std::string> current;
    int depth = 0;
    for (size_t k = j + 2; k < toks.size(); ++k) {
      const std::string& t = toks[k];
      if (t == "(") ++depth;
      if (t == ")" && depth-- == 0) {
        if (!current.empty()) {
          KernelArgType a;
          if (!parse_parameter(current, &a)) return std::nullopt;
          params.push_back(a);
        }
        if (params.size() == 1 && params[0].name == "void") params.clear();
        return params;
      }
      if (t == "," && depth == 0) {
        KernelArgType a;
        if (!parse_parameter(current, &a)) return std::nullopt;
        params.push_back(a);
        current.clear();
      } else {
        current.push_back(t);
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

void attach_arg_types(const std::string& source, BuiltProgram* built) {
  if (source.size() > kMaxSourceScanned) return;
  const std::vector<std::string> toks = tokens_of(without_comments(source));
  for (auto& image : built->kernels) {
    auto params = parse_kernel(toks, image->compiled.name);
    if (params && params->size() == image->compiled.args.size()) image->arg_types = std::move(*params);
  }
}

}  // namespace gsgpu::cl
