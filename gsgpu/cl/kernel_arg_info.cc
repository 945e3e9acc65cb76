// What SPIR-V does not keep of a kernel's declaration, read from the program source: argument type
// names and qualifiers for clGetKernelArgInfo (only for programs built with -cl-kernel-arg-info, as
// the spec asks) and vec_type_hint's type for CL_KERNEL_ATTRIBUTES. Declarations that hide behind
// macros are not understood: their kernels report CL_KERNEL_ARG_INFO_NOT_AVAILABLE and no hint.
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

// The index of `kernel_name` in its kernel declaration ("__kernel [attributes] void NAME ("), and
// of the "__kernel" that starts it; false when there is none.
bool find_kernel(const std::vector<std::string>& toks, const std::string& kernel_name, size_t* kernel_word,
                 size_t* name) {
  for (size_t i = 0; i + 3 < toks.size(); ++i) {
    if (toks[i] != "__kernel" && toks[i] != "kernel") continue;
    size_t j = i + 1;
    while (j < toks.size() && toks[j] != kernel_name && toks[j] != "{" && toks[j] != ";") ++j;
    if (j + 1 >= toks.size() || toks[j] != kernel_name || toks[j + 1] != "(") continue;
    *kernel_word = i;
    *name = j;
    return true;
  }
  return false;
}

// The parameters of the kernel whose name is at toks[name], or nullopt.
std::optional<std::vector<KernelArgType>> parse_parameters(const std::vector<std::string>& toks, size_t name) {
  std::vector<KernelArgType> params;
  std::vector<std::string> current;
  int depth = 0;
  for (size_t k = name + 2; k < toks.size(); ++k) {
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

// The type in "vec_type_hint ( TYPE )" among toks[begin, end), normalised like argument types.
std::string vec_type_hint_between(const std::vector<std::string>& toks, size_t begin, size_t end) {
  for (size_t i = begin; i + 3 < end; ++i) {
    if (toks[i] != "vec_type_hint" && toks[i] != "__vec_type_hint__") continue;
    if (toks[i + 1] != "(") return "";
    std::vector<std::string> words;
    for (size_t k = i + 2; k < end && toks[k] != ")"; ++k) words.push_back(toks[k]);
    std::string name = integer_type_name(words);
    if (name.empty() && words.size() == 1) name = words[0];
    return name;
  }
  return "";
}

}  // namespace

void attach_source_info(const std::string& source, bool arg_types, BuiltProgram* built) {
  if (source.size() > kMaxSourceScanned) return;
  const std::vector<std::string> toks = tokens_of(without_comments(source));
  for (auto& image : built->kernels) {
    size_t kernel_word = 0, name = 0;
    if (!find_kernel(toks, image->compiled.name, &kernel_word, &name)) continue;
    // Attributes may come before "__kernel" too: look back to the end of the previous declaration.
    size_t begin = kernel_word;
    while (begin > 0 && toks[begin - 1] != ";" && toks[begin - 1] != "}") --begin;
    image->vec_type_hint = vec_type_hint_between(toks, begin, name);
    if (!arg_types) continue;
    auto params = parse_parameters(toks, name);
    if (params && params->size() == image->compiled.args.size()) image->arg_types = std::move(*params);
  }
}

}  // namespace gsgpu::cl
