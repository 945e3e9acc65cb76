// The text that the sandboxed preprocessing hands to a vendor's OpenCL C compiler (a host
// executor such as PoCL, whose compiler runs where the guest must not name files): what is
// defined before the guest's source, and which directives may be left in it.
#pragma once

#include <string>
#include <string_view>

namespace gsgpu::compiler {

// A header for the preprocessing that defines the macros of clang's OpenCL header (those in
// `with_header` that are not in `without_header`, both `clang -E -dM` listings: __kernel_exec,
// CHAR_BIT, M_PI_F, ...), so that a program's #ifdef / defined() see what the vendor's own header
// defines. Each is defined to itself: the vendor's compiler gets the macro's name and expands it
// with its own header (sampler constants, NAN, ... are its own). Macros with an empty body stay
// empty, and integer constants that OpenCL C fixes (CHAR_BIT, INT_MAX, ...) keep their value so
// that #if can compare them; CLK_* are the implementation's, so they are named, not valued.
std::string vendor_macro_prelude(std::string_view with_header, std::string_view without_header);

// Checks the directives left in preprocessed text, which the vendor's compiler preprocesses again:
// the pragmas OpenCL C programs use (OPENCL, unroll, clang loop) stay, any other #pragma becomes a
// blank line (unknown pragmas are ignored anyway, and some name files: GCC dependency, clang
// module import), and any other directive is refused: the first such line, or "" when none is left.
std::string drop_unknown_pragmas(std::string* text);

}  // namespace gsgpu::compiler
