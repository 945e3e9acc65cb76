// Runs a compiler tool without a shell, in a filesystem sandbox when the kernel allows one
// (tool_sandbox.h), with its output read through a pipe up to a cap, its time bounded by a
// deadline and its file sizes by RLIMIT_FSIZE; and the private temporary directory it works in.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace gsgpu::compiler {

// A mkdtemp directory removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The most a tool may print (stdout and stderr together) before it is stopped: a source that
// includes itself with #warnings makes clang print without end.
constexpr size_t kMaxToolOutput = size_t{1} << 20;
// How often a tool run checks, while it waits for the tool, whether its build was cancelled.
constexpr int kCancelCheckMs = 20;

struct ToolOptions {
  std::string work_dir;  // the tool's working directory; the only one it may write
  // More directories the tool may read (a trusted caller's include directories).
  std::vector<std::string> read_only_dirs;
  std::chrono::steady_clock::time_point deadline;  // the tool is killed at this time
  size_t max_output = kMaxToolOutput;
};

struct ToolRun {
  bool started = false;     // false: the program could not be executed (output says why)
  int exit_code = -1;       // -1 when killed by a signal
  bool timed_out = false;   // stopped at the deadline
  bool output_cut = false;  // stopped for printing more than max_output bytes
  bool cancelled = false;   // stopped (or not started) because the build was cancelled
  std::string output;       // stdout and stderr, interleaved, at most max_output bytes
};

// The deadline a build gets: GSVIRT_COMPILER_TIMEOUT seconds (default 60) from now, shared by
// every tool the build runs.
std::chrono::steady_clock::time_point build_deadline();

// Runs argv[0] (an absolute path) with argv in options.work_dir. The tool gets at most 4 GiB of
// address space, files of at most 256 MiB, no core dumps, a minimal environment, and (when
// tool_sandbox_available()) sees only the system library directories, options.read_only_dirs and
// options.work_dir. When the calling thread's work is cancelled (common/cancel.h: the client that
// asked for the build is gone) the tool's process group is killed within kCancelCheckMs, and no
// tool starts once it is.
ToolRun run_tool(const std::vector<std::string>& argv, const ToolOptions& options);

bool read_file(const std::string& path, std::string* out);
bool write_file(const std::string& path, const void* data, size_t size);

// Absolute path of an executable named `name` on PATH, or "".
std::string find_on_path(const std::string& name);

}  // namespace gsgpu::compiler
