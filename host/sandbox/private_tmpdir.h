// A temporary directory of a sandboxed process's own (TMPDIR there): the compiler's files of one
// guest are out of reach of another's process. The parent makes it before the process starts and
// removes it after the process has ended.
#pragma once

#include <string>

namespace gsvirt::sandbox {

// Makes "$TMPDIR/<prefix>-XXXXXX" (/tmp when TMPDIR is unset or relative); "" on failure.
std::string make_private_tmpdir(const char* prefix);

// Removes a directory tree without following symbolic links; "" does nothing.
void remove_tree(const std::string& dir);

}  // namespace gsvirt::sandbox
