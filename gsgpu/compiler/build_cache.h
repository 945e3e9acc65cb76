// Cache of front-end results (SPIR-V and the build log), keyed by a hash of everything that
// determines them: source, options and the tool versions. An in-memory LRU, backed by files in
// $GSVIRT_CACHE_DIR when that names a writable directory.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gsgpu::compiler {

class BuildCache {
 public:
  explicit BuildCache(size_t capacity) : capacity_(capacity) {}

  // 128-bit content hash as 32 hex digits; each part is length-prefixed so that ("ab","c") and
  // ("a","bc") differ.
  static std::string key(std::initializer_list<std::string_view> parts);

  bool lookup(const std::string& key, std::vector<uint32_t>* spirv, std::string* log);
  void store(const std::string& key, const std::vector<uint32_t>& spirv, const std::string& log);
  void clear();

 private:
  struct Entry {
    std::vector<uint32_t> spirv;
    std::string log;
    std::list<std::string>::iterator age;
  };
  void remember(const std::string& key, Entry entry);

  size_t capacity_;
  std::list<std::string> lru_;  // most recent first
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace gsgpu::compiler
