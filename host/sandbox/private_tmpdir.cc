#include "host/sandbox/private_tmpdir.h"

#include <ftw.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace gsvirt::sandbox {

std::string make_private_tmpdir(const char* prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base == '/' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  return mkdtemp(buffer.data()) ? std::string(buffer.data()) : std::string();
}

void remove_tree(const std::string& dir) {
  if (dir.empty()) return;
  nftw(dir.c_str(), [](const char* path, const struct stat*, int, FTW*) { return std::remove(path); },
       16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace gsvirt::sandbox
