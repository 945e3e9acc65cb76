#include "gsgpu/compiler/preprocessed_text.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>
#include <vector>

namespace gsgpu::compiler {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

struct MacroLine {
  std::string_view name;
  std::string_view params;  // "(X,typen)" for a function-like macro, else empty
  std::string_view body;
};

// "#define NAME(params) body" as `clang -E -dM` prints it.
bool parse_define(std::string_view line, MacroLine* out) {
  static constexpr std::string_view kDefine = "#define ";
  if (line.substr(0, kDefine.size()) != kDefine) return false;
  line.remove_prefix(kDefine.size());
  const size_t name_end = std::min(line.find_first_of(" ("), line.size());
  out->name = line.substr(0, name_end);
  line.remove_prefix(name_end);
  out->params = {};
  if (!line.empty() && line.front() == '(') {
    const size_t close = line.find(')');
    if (close == std::string_view::npos) return false;
    out->params = line.substr(0, close + 1);
    line.remove_prefix(close + 1);
  }
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  out->body = line;
  return !out->name.empty();
}

// An integer constant expression of literals only: "8", "(-2147483647-1)", "0xffffffffffffffffUL".
bool integer_literal_expression(std::string_view body) {
  if (body.empty() || body.find_first_of("0123456789") == std::string_view::npos) return false;
  if (!(std::isdigit(static_cast<unsigned char>(body.front())) || body.front() == '(' || body.front() == '-'))
    return false;
  return std::all_of(body.begin(), body.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == 'x' || c == 'X' || c == 'u' || c == 'U' ||
           c == 'l' || c == 'L' || c == '(' || c == ')' || c == '-' || c == '+' || c == ' ';
  });
}

// The arguments of a function-like macro as its expansion names them: "(X,...)" -> "(X,__VA_ARGS__)".
std::string self_call(std::string_view params) {
  std::string out(params);
  if (const size_t dots = out.find("..."); dots != std::string::npos) {
    const bool named = dots > 0 && out[dots - 1] != ',' && out[dots - 1] != '(';
    out.replace(dots, 3, named ? "" : "__VA_ARGS__");
  }
  return out;
}

}  // namespace

std::string vendor_macro_prelude(std::string_view with_header, std::string_view without_header) {
  const std::vector<std::string_view> base = lines_of(without_header);
  const std::unordered_set<std::string_view> builtin(base.begin(), base.end());
  std::string prelude;
  for (std::string_view line : lines_of(with_header)) {
    MacroLine macro;
    if (builtin.count(line) || !parse_define(line, &macro)) continue;
    prelude += "#define ";
    prelude += macro.name;
    prelude += macro.params;
    if (macro.body.empty()) {
      // nothing to expand: the same on every implementation
    } else if (macro.params.empty() && macro.name.substr(0, 4) != "CLK_" && integer_literal_expression(macro.body)) {
      prelude += " ";
      prelude += macro.body;
    } else {
      prelude += " ";
      prelude += macro.name;
      prelude += self_call(macro.params);
    }
    prelude += "\n";
  }
  return prelude;
}

std::string drop_unknown_pragmas(std::string* text) {
  for (size_t start = 0; start < text->size();) {
    const size_t end = std::min(text->find('\n', start), text->size());
    std::string_view line = std::string_view(*text).substr(start, end - start);
    const size_t line_start = start;
    start = end + 1;
    const size_t first = line.find_first_not_of(" \t\f\v\r");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    const bool hash = line.front() == '#' || line.substr(0, 2) == "%:" || line.substr(0, 3) == "?" "?=";
    if (!hash) continue;
    // Digraph and trigraph spellings are refused whatever follows: no program needs them.
    if (line.front() != '#') return std::string(line.substr(0, 200));
    std::string_view rest = line.substr(1);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    const bool pragma = rest.substr(0, 6) == "pragma" && (rest.size() == 6 || rest[6] == ' ' || rest[6] == '\t');
    if (!pragma) return std::string(line.substr(0, 200));
    bool known = false;
    for (std::string_view allowed : {"pragma OPENCL ", "pragma unroll", "pragma nounroll", "pragma clang loop "})
      known = known || rest.substr(0, allowed.size()) == allowed;
    if (!known) std::fill(text->begin() + line_start, text->begin() + end, ' ');
  }
  return "";
}

}  // namespace gsgpu::compiler
