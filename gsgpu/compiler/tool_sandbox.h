// The filesystem sandbox the compiler tools run in. Guest OpenCL C names files (#include
// "/etc/shadow", __has_include probes) and clang opens what it names; in the sandbox the tool's
// root is an empty tmpfs in a new user and mount namespace with only the system library
// directories (read-only, for the tool's own code and clang's OpenCL headers), the caller's
// read-only directories and the build's work directory bound in: nothing else of the host exists.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gsgpu::compiler {

// What the child does to enter the sandbox, prepared in the parent: after fork, a process of a
// multi-threaded server may only make system calls, so every path is built beforehand.
struct SandboxPlan {
  struct Bind {
    std::string source;  // an absolute host path
    std::string target;  // the same path under the new root
    bool writable = false;
    unsigned long lock_flags = 0;  // mount flags a user namespace must keep on a remount
  };
  std::string root;  // the tmpfs mount point (inside the work directory)
  std::vector<std::string> directories;  // created under the new root, parents first
  std::vector<std::pair<std::string, std::string>> symlinks;  // (target, link) e.g. /lib -> usr/lib
  std::vector<Bind> binds;  // in mount order
  std::string uid_map, gid_map;
  std::string work_dir;
};

// Whether this kernel lets an unprivileged process build the sandbox (user namespaces allowed);
// probed once. GSVIRT_COMPILER_SANDBOX=0 turns the sandbox off (tests of the fallback).
bool tool_sandbox_available();
// Records that a process could not enter the sandbox after all (a seccomp filter installed after
// the probe, in a forked client process): later runs go without it.
void tool_sandbox_refused(const char* step, int error);

// Prepares the sandbox for running `tool` in `work_dir`. False, with *error, when a path is
// unusable.
bool plan_tool_sandbox(const std::string& tool, const std::string& work_dir,
                       const std::vector<std::string>& read_only_dirs, SandboxPlan* plan, std::string* error);

// In the child, after fork and before exec: enters the sandbox. 0, or the errno of the step that
// failed (*step names it: a string literal).
int enter_tool_sandbox(const SandboxPlan& plan, const char** step);

}  // namespace gsgpu::compiler
