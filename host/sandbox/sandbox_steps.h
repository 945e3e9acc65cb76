// The steps of enter_sandbox(), one file each (internal to host/sandbox).
#pragma once

#include <string>
#include <vector>

namespace gsvirt::sandbox {

// Landlock ABI version of the running kernel; 0 when it has none (or it is disabled).
int landlock_abi();

struct FilesystemView {
  std::vector<std::string> read_paths;   // read and execute
  std::vector<std::string> write_paths;  // read, write, create, remove beneath
};

// The paths a sandboxed process keeps, from the built-in lists and the (scrubbed) environment.
FilesystemView sandbox_filesystem_view(const std::vector<std::string>& extra_read_paths);

// Restricts the calling process (and every process it starts) to `view`. Missing paths are
// skipped. Returns false with `error` set when the kernel refused a step.
bool restrict_filesystem(int abi, const FilesystemView& view, std::string* error);

// Installs the system-call deny-list; no_new_privs must already be set.
bool install_syscall_filter(std::string* error);

}  // namespace gsvirt::sandbox
