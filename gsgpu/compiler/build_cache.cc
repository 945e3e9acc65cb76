#include "gsgpu/compiler/build_cache.h"

#include <cstdlib>
#include <cstring>

#include "gsgpu/compiler/subprocess.h"

namespace gsgpu::compiler {
namespace {

// Two FNV-1a streams with different offset bases: not cryptographic, but a cache collision needs
// both 64-bit halves to collide, and the cache holds only what this host compiled itself.
struct Fnv {
  uint64_t state;
  void add(const void* data, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
      state ^= bytes[i];
      state *= 0x100000001b3ull;
    }
  }
};

std::string cache_dir() {
  const char* dir = std::getenv("GSVIRT_CACHE_DIR");
  return dir && *dir ? dir : "";
}

}  // namespace

std::string BuildCache::key(std::initializer_list<std::string_view> parts) {
  Fnv a{0xcbf29ce484222325ull}, b{0x84222325cbf29ce4ull};
  for (std::string_view part : parts) {
    const uint64_t size = part.size();
    a.add(&size, sizeof size);
    b.add(&size, sizeof size);
    a.add(part.data(), part.size());
    b.add(part.data(), part.size());
    b.state = (b.state << 17) | (b.state >> 47);  // decorrelate the streams between parts
  }
  char hex[33];
  snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(a.state),
           static_cast<unsigned long long>(b.state));
  return hex;
}

bool BuildCache::lookup(const std::string& key, std::vector<uint32_t>* spirv, std::string* log) {
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.age);
    *spirv = it->second.spirv;
    *log = it->second.log;
    return true;
  }
  const std::string dir = cache_dir();
  if (dir.empty()) return false;
  std::string bytes, text;
  if (!read_file(dir + "/" + key + ".spv", &bytes) || bytes.empty() || bytes.size() % 4 != 0) return false;
  read_file(dir + "/" + key + ".log", &text);
  Entry entry;
  entry.spirv.resize(bytes.size() / 4);
  std::memcpy(entry.spirv.data(), bytes.data(), bytes.size());
  entry.log = text;
  *spirv = entry.spirv;
  *log = entry.log;
  remember(key, std::move(entry));
  return true;
}

void BuildCache::store(const std::string& key, const std::vector<uint32_t>& spirv, const std::string& log) {
  remember(key, Entry{spirv, log, {}});
  const std::string dir = cache_dir();
  if (dir.empty()) return;
  // Written under a temporary name and renamed, so a concurrent reader never sees half a file.
  const std::string base = dir + "/" + key;
  const std::string tmp = base + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
  if (write_file(tmp + ".log", log.data(), log.size())) std::rename((tmp + ".log").c_str(), (base + ".log").c_str());
  if (write_file(tmp + ".spv", spirv.data(), spirv.size() * 4)) std::rename((tmp + ".spv").c_str(), (base + ".spv").c_str());
}

void BuildCache::remember(const std::string& key, Entry entry) {
  if (auto it = entries_.find(key); it != entries_.end()) {
    lru_.erase(it->second.age);
    entries_.erase(it);
  }
  lru_.push_front(key);
  entry.age = lru_.begin();
  entries_.emplace(key, std::move(entry));
  while (entries_.size() > capacity_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
}

void BuildCache::clear() {
  entries_.clear();
  lru_.clear();
}

}  // namespace gsgpu::compiler
