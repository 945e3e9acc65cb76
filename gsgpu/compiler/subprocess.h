// Runs a tool without a shell (posix_spawn), its stdout and stderr captured through a file in a
// private temporary directory, and that directory's lifetime.
#pragma once

#include <string>
#include <vector>

namespace gsgpu::compiler {

// A mkdtemp directory removed with its files on destruction.
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

struct ToolRun {
  bool started = false;  // false: the program could not be executed (output says why)
  int exit_code = -1;    // -1 when killed by a signal
  bool timed_out = false;  // stopped after GSVIRT_COMPILER_TIMEOUT seconds
  std::string output;    // stdout and stderr, interleaved
};

// Runs argv[0] (an absolute path) with argv; output captured through `capture_path`. The tool gets
// at most 4 GiB of address space and GSVIRT_COMPILER_TIMEOUT seconds (default 120).
ToolRun run_tool(const std::vector<std::string>& argv, const std::string& capture_path);

bool read_file(const std::string& path, std::string* out);
bool write_file(const std::string& path, const void* data, size_t size);

// Absolute path of an executable named `name` on PATH, or "".
std::string find_on_path(const std::string& name);

}  // namespace gsgpu::compiler
