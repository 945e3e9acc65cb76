// A program's #includes name files of the machine the application runs on, never the host's: the
// host refuses -I options and its compiler sees no file of its own (nor does the sandboxed compiler
// of the native runtime). So they are resolved in the application's process — by the remoting ICD
// (guest/cl) and by the gsgpu runtime when it is the application's own (the native ICD,
// RuntimeConfig::resolve_includes_locally) — as a local compiler would: the -I directories are taken out of the build options, and each
// `#include "name"` / `<name>` that names a readable file (relative to the including file's
// directory, the current directory for the program itself, then the -I directories in order; or
// an absolute path) is replaced by that file's text between #line markers, recursively; a computed
// `#include MACRO(...)` is first expanded with the options' -D macros (include_macros.h). Includes
// inside conditionals are inlined inside them, so the conditions still choose. A directive that
// names no file here (a missing file, an include computed from the source's own macros) is left
// for the host to report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gsvirt::cl {

// The options without their -I words; *dirs gets the directories in order.
std::string take_include_dirs(std::string_view options, std::vector<std::string>* dirs);

// The definitions of the options' -D words, without the -D ("NAME=body"), in order.
std::vector<std::string> define_options(std::string_view options);

// `source` with the files its #includes name inlined; *changed says whether any was. Computed
// includes are expanded with the -D macros `defines` (include_macros.h).
std::string inline_includes(const std::string& source, const std::vector<std::string>& dirs,
                            const std::vector<std::string>& defines, bool* changed);

}  // namespace gsvirt::cl
