// Computed includes (`#include MACRO(args)`, C11 6.10.2p4): the operand is macro-expanded and must
// then be a "name" or a <name>. Real OpenCL programs do this with macros from their build options:
// hashcat builds with -D "XM2S(x)=#x" -D "M2S(x)=XM2S(x)" -D INCLUDE_PATH=<its kernel dir> and
// writes `#include M2S(INCLUDE_PATH/inc_vendor.h)` in every kernel. Since includes are resolved on
// the application's side (program_includes.h), such operands are expanded there, with the
// object-like and function-like macros the -D options define (stringizing `#`, pasting `##`,
// rescanning, no recursion into a macro being expanded). Macros that the source's own #defines
// make are not known here; such an include is left for the host, which reports it not found.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gsvirt::cl {

class IncludeMacros {
 public:
  // The definitions of the -D options, without the -D: "NAME", "NAME=body", "NAME(a,b)=body".
  explicit IncludeMacros(const std::vector<std::string>& definitions);

  // The operand of a computed #include, expanded: the file name and whether it was quoted.
  // False when the expansion is not a single "name" or <name>.
  bool expand(std::string_view operand, std::string* name, bool* quoted) const;

  struct Token {
    std::string text;
    bool space_before = false;  // whitespace preceded it (stringizing keeps one space there)
    bool identifier = false;
  };

 private:
  struct Macro {
    bool function_like = false;
    std::vector<std::string> params;
    std::vector<Token> body;
  };
  void define(std::string_view definition);
  std::vector<Token> expand_tokens(const std::vector<Token>& in, const std::vector<std::string>& hidden,
                                   size_t depth, size_t* budget) const;
  std::vector<Token> substitute(const Macro& macro, const std::vector<std::vector<Token>>& args,
                                const std::vector<std::string>& hidden, size_t depth, size_t* budget) const;

  std::map<std::string, Macro, std::less<>> macros_;
};

// The preprocessing tokens of `text` (identifiers, numbers, string and character literals,
// `##`, single punctuators).
std::vector<IncludeMacros::Token> preprocessing_tokens(std::string_view text);

}  // namespace gsvirt::cl
