// The sandbox a process that serves a guest enters before it reads a byte from the guest: a vtest
// client process (after fork) and a context worker (host/worker, after exec). The process is
// treated as compromised by design (it runs guest-chosen work through vendor drivers and
// compilers); the sandbox limits what a compromise reaches:
//   - no secrets: the environment is cut to what OpenCL drivers, the compiler and gsvirt read;
//   - no other process: not dumpable, no ptrace, no core dumps (the caller closes every fd but
//     its own connection);
//   - filesystem (Landlock, where the kernel has it): read-only system and driver files,
//     read-write temporary and cache directories, nothing else (no home, no /etc/passwd);
//   - system calls (seccomp-bpf deny-list): no ptrace, mount, kexec, bpf, modules, keyrings...;
//   - resources (rlimits): CPU seconds, data memory, file size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gsvirt::sandbox {

// SandboxOptions::memory_bytes: as much as the host has (physical memory).
constexpr uint64_t kMemoryOfTheHost = ~0ull;

struct SandboxOptions {
  bool enabled = true;
  uint64_t cpu_seconds = 3600;                 // RLIMIT_CPU; 0: unlimited
  uint64_t memory_bytes = kMemoryOfTheHost;    // RLIMIT_DATA; 0: unlimited (always, under ASan)
  uint64_t file_bytes = 1ull << 30;      // RLIMIT_FSIZE; 0: unlimited
  bool landlock = true;                  // restrict the filesystem when the kernel supports it
  // Beside the built-in lists and the GSVIRT_SANDBOX_READ / GSVIRT_SANDBOX_WRITE path lists.
  std::vector<std::string> extra_read_paths;
};

struct SandboxReport {
  bool landlock_applied = false;
  int landlock_abi = 0;  // 0: the kernel has no Landlock
  bool seccomp_applied = false;
  std::string error;  // first failure of a required step
};

// Applies every step to the calling process (single-threaded: after fork, before any thread
// starts). Returns false when a required step failed (the caller must not serve the guest);
// a kernel without Landlock is logged, not a failure.
bool enter_sandbox(const SandboxOptions& options, SandboxReport* report = nullptr);

// Removes every environment variable that no driver, compiler or gsvirt itself reads.
void scrub_environment();
// True for a variable scrub_environment() keeps.
bool environment_variable_kept(const std::string& name);

}  // namespace gsvirt::sandbox
