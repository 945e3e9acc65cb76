#include "common/cl/include_macros.h"

#include <algorithm>
#include <cctype>

namespace gsvirt::cl {
namespace {

// A program's own options cannot harm the host, but an exponential macro set must not hang the
// application's build either.
constexpr size_t kMaxDepth = 64;
constexpr size_t kTokenBudget = size_t{1} << 16;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// One token of `text` at `i`: its length.
size_t token_length(std::string_view text, size_t i) {
  const char c = text[i];
  size_t j = i + 1;
  if (ident_start(c)) {
    while (j < text.size() && ident_char(text[j])) ++j;
  } else if (std::isdigit(static_cast<unsigned char>(c)) ||
             (c == '.' && j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))) {
    while (j < text.size() && (ident_char(text[j]) || text[j] == '.' ||
                               ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
      ++j;
  } else if (c == '"' || c == '\'') {
    while (j < text.size() && text[j] != c) j += text[j] == '\\' ? 2 : 1;
    j = std::min(j + 1, text.size());
  } else if (c == '#' && j < text.size() && text[j] == '#') {
    ++j;
  }
  return j - i;
}

std::string stringize(const std::vector<IncludeMacros::Token>& tokens) {
  std::string out = "\"";
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0 && tokens[i].space_before) out.push_back(' ');
    const bool literal = tokens[i].text[0] == '"' || tokens[i].text[0] == '\'';
    for (char c : tokens[i].text) {
      if (literal && (c == '"' || c == '\\')) out.push_back('\\');
      out.push_back(c);
    }
  }
  return out + "\"";
}

int param_index(const std::vector<std::string>& params, const IncludeMacros::Token& t) {
  if (!t.identifier) return -1;
  const auto it = std::find(params.begin(), params.end(), t.text);
  return it == params.end() ? -1 : static_cast<int>(it - params.begin());
}

// The arguments of a call whose '(' is at `open`; *close gets the index of its ')'. False if it
// does not close.
bool call_arguments(const std::vector<IncludeMacros::Token>& in, size_t open,
                    std::vector<std::vector<IncludeMacros::Token>>* args, size_t* close) {
  args->assign(1, {});
  int depth = 0;
  for (size_t i = open + 1; i < in.size(); ++i) {
    const std::string& t = in[i].text;
    if (t == ")" && depth == 0) {
      *close = i;
      return true;
    }
    if (t == "(") ++depth;
    if (t == ")") --depth;
    if (t == "," && depth == 0) {
      args->emplace_back();
      continue;
    }
    args->back().push_back(in[i]);
  }
  return false;
}

}  // namespace

std::vector<IncludeMacros::Token> preprocessing_tokens(std::string_view text) {
  std::vector<IncludeMacros::Token> tokens;
  bool space = false;
  for (size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      space = true;
      ++i;
      continue;
    }
    const size_t n = token_length(text, i);
    tokens.push_back({std::string(text.substr(i, n)), space, ident_start(text[i])});
    space = false;
    i += n;
  }
  return tokens;
}

IncludeMacros::IncludeMacros(const std::vector<std::string>& definitions) {
  for (const std::string& d : definitions) define(d);
}

void IncludeMacros::define(std::string_view definition) {
  const size_t eq = definition.find('=');
  std::string_view head = definition.substr(0, eq);
  Macro macro;
  const std::string_view body = eq == std::string_view::npos ? std::string_view("1") : definition.substr(eq + 1);
  macro.body = preprocessing_tokens(body);
  if (!macro.body.empty()) macro.body[0].space_before = false;
  const size_t paren = head.find('(');
  if (paren != std::string_view::npos) {
    if (head.back() != ')') return;  // not a definition a compiler would take either
    macro.function_like = true;
    for (const Token& t : preprocessing_tokens(head.substr(paren + 1, head.size() - paren - 2)))
      if (t.identifier) macro.params.push_back(t.text);
    head = head.substr(0, paren);
  }
  if (head.empty() || !ident_start(head[0])) return;
  macros_[std::string(head)] = std::move(macro);
}

std::vector<IncludeMacros::Token> IncludeMacros::substitute(const Macro& macro,
                                                            const std::vector<std::vector<Token>>& args,
                                                            const std::vector<std::string>& hidden, size_t depth,
                                                            size_t* budget) const {
  std::vector<Token> out;
  const std::vector<Token>& body = macro.body;
  for (size_t i = 0; i < body.size(); ++i) {
    const bool pasted_after = i + 1 < body.size() && body[i + 1].text == "##";
    const bool pasted_before = i > 0 && body[i - 1].text == "##";
    if (body[i].text == "#" && i + 1 < body.size()) {
      const int p = param_index(macro.params, body[i + 1]);
      if (p >= 0 && static_cast<size_t>(p) < args.size()) {
        out.push_back({stringize(args[p]), body[i].space_before, false});
        ++i;
        continue;
      }
    }
    if (body[i].text == "##") continue;
    const int p = param_index(macro.params, body[i]);
    std::vector<Token> piece;
    if (p < 0 || static_cast<size_t>(p) >= args.size()) piece = {body[i]};
    else if (pasted_after || pasted_before) piece = args[p];
    else piece = expand_tokens(args[p], hidden, depth + 1, budget);
    if (!piece.empty()) piece[0].space_before = body[i].space_before;
    if (pasted_before && !out.empty() && !piece.empty()) {
      out.back().text += piece[0].text;  // the paste makes one token of the two spellings
      piece.erase(piece.begin());
    }
    out.insert(out.end(), piece.begin(), piece.end());
  }
  return out;
}

std::vector<IncludeMacros::Token> IncludeMacros::expand_tokens(const std::vector<Token>& in,
                                                               const std::vector<std::string>& hidden, size_t depth,
                                                               size_t* budget) const {
  std::vector<Token> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (*budget == 0) return out;
    --*budget;
    const auto it = in[i].identifier ? macros_.find(in[i].text) : macros_.end();
    if (it == macros_.end() || depth >= kMaxDepth ||
        std::find(hidden.begin(), hidden.end(), in[i].text) != hidden.end()) {
      out.push_back(in[i]);
      continue;
    }
    const bool space_before = in[i].space_before;
    std::vector<std::string> inner_hidden = hidden;
    inner_hidden.push_back(in[i].text);
    std::vector<Token> replaced;
    if (!it->second.function_like) {
      replaced = it->second.body;
    } else {
      std::vector<std::vector<Token>> args;
      size_t close = 0;
      if (i + 1 >= in.size() || in[i + 1].text != "(" || !call_arguments(in, i + 1, &args, &close)) {
        out.push_back(in[i]);  // a function-like macro's name without a call is not expanded
        continue;
      }
      replaced = substitute(it->second, args, hidden, depth, budget);
      i = close;
    }
    std::vector<Token> expanded = expand_tokens(replaced, inner_hidden, depth + 1, budget);
    if (!expanded.empty()) expanded[0].space_before = space_before;
    out.insert(out.end(), expanded.begin(), expanded.end());
  }
  return out;
}

bool IncludeMacros::expand(std::string_view operand, std::string* name, bool* quoted) const {
  size_t budget = kTokenBudget;
  const std::vector<Token> tokens = expand_tokens(preprocessing_tokens(operand), {}, 0, &budget);
  if (budget == 0 || tokens.empty()) return false;
  if (tokens.size() == 1 && tokens[0].text.size() > 2 && tokens[0].text.front() == '"' &&
      tokens[0].text.back() == '"') {
    *name = tokens[0].text.substr(1, tokens[0].text.size() - 2);
    *quoted = true;
    return true;
  }
  if (tokens.size() < 3 || tokens.front().text != "<" || tokens.back().text != ">") return false;
  name->clear();
  for (size_t i = 1; i + 1 < tokens.size(); ++i) {
    if (i > 1 && tokens[i].space_before) name->push_back(' ');
    *name += tokens[i].text;
  }
  *quoted = false;
  return true;
}

}  // namespace gsvirt::cl
