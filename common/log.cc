#include "common/log.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gsvirt {
namespace {

struct FlagName {
  const char* name;
  uint32_t flag;
};
constexpr FlagName kFlagNames[] = {
    {"commands", kDebugCommands}, {"transport", kDebugTransport}, {"resources", kDebugResources},
    {"guest", kDebugGuest},       {"gsgpu", kDebugGsgpu},         {"compiler", kDebugCompiler},
    {"all", ~0u},
};

uint32_t parse_debug_env() {
  const char* env = std::getenv("GSVIRT_DEBUG");
  if (!env) return 0;
  uint32_t flags = 0;
  const char* p = env;
  while (*p) {
    const char* end = std::strchr(p, ',');
    size_t len = end ? size_t(end - p) : std::strlen(p);
    for (const auto& f : kFlagNames)
      if (std::strlen(f.name) == len && std::strncmp(f.name, p, len) == 0) flags |= f.flag;
    if (!end) break;
    p = end + 1;
  }
  return flags;
}

std::atomic<uint32_t> g_flags{parse_debug_env()};
std::mutex g_sink_mutex;
LogSink g_sink = nullptr;
void* g_sink_user = nullptr;

// Error and info lines are limited per call site (format string): a burst, then a steady rate.
// A guest that makes every command fail must not flood the host's log; distinct messages still
// get through. Guarded by g_sink_mutex.
struct Bucket {
  double tokens = 0;
  std::chrono::steady_clock::time_point refilled;
  uint64_t suppressed = 0;
};
LogRateLimit g_limit;
std::unordered_map<const char*, Bucket> g_buckets;
Bucket g_overflow_bucket;  // call sites beyond kMaxBuckets share one
constexpr size_t kMaxBuckets = 4096;

// Whether a line of `fmt` may be written now; *suppressed: how many were dropped before it.
bool admit_locked(const char* fmt, uint64_t* suppressed) {
  *suppressed = 0;
  if (g_limit.burst == 0) return true;
  const auto now = std::chrono::steady_clock::now();
  auto it = g_buckets.find(fmt);
  Bucket* b = nullptr;
  if (it != g_buckets.end()) {
    b = &it->second;
  } else if (g_buckets.size() < kMaxBuckets) {
    b = &g_buckets[fmt];
    b->tokens = g_limit.burst;
    b->refilled = now;
  } else {
    b = &g_overflow_bucket;
  }
  const double elapsed = std::chrono::duration<double>(now - b->refilled).count();
  b->tokens = std::min<double>(g_limit.burst, b->tokens + elapsed * g_limit.per_second);
  b->refilled = now;
  if (b->tokens < 1) {
    ++b->suppressed;
    return false;
  }
  b->tokens -= 1;
  *suppressed = b->suppressed;
  b->suppressed = 0;
  return true;
}

// Control characters (a guest's terminal escapes, newlines that would forge a line of their own)
// are written as \xNN; the rest of the line is kept. In place, within `size` bytes.
void escape_controls(char* line, size_t size) {
  const auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::none_of(line, line + std::strlen(line), is_control)) return;  // the usual line
  std::string out;
  for (const char* p = line; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  if (out.size() >= size) out.resize(size - 1);
  std::memcpy(line, out.c_str(), out.size() + 1);
}

void emit(const char* prefix, const char* fmt, va_list ap, bool limited) {
  uint64_t suppressed = 0;
  if (limited) {
    // Before any formatting: a flood's dropped lines cost a lookup, not a format and an escape.
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    if (!admit_locked(fmt, &suppressed)) return;
  }
  char line[1024];
  int n = std::snprintf(line, sizeof line, "gsvirt: %s", prefix);
  if (n < 0) n = 0;
  std::vsnprintf(line + n, sizeof line - size_t(n), fmt, ap);
  escape_controls(line, sizeof line);
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  if (suppressed) {
    const size_t len = std::strlen(line);
    std::snprintf(line + len, sizeof line - len, " (%llu more like it suppressed)", (unsigned long long)suppressed);
  }
  if (g_sink) {
    g_sink(line, g_sink_user);
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
}

}  // namespace

uint32_t debug_flags() { return g_flags.load(std::memory_order_relaxed); }
void set_debug_flags(uint32_t flags) { g_flags.store(flags, std::memory_order_relaxed); }

void set_log_sink(LogSink sink, void* user) {
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = sink;
  g_sink_user = user;
}

LogRateLimit set_log_rate_limit(LogRateLimit limit) {
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  LogRateLimit old = g_limit;
  g_limit = limit;
  g_buckets.clear();
  g_overflow_bucket = Bucket{double(limit.burst), std::chrono::steady_clock::now(), 0};
  return old;
}

void log_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error: ", fmt, ap, true);
  va_end(ap);
}

void log_info(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap, true);
  va_end(ap);
}

void log_debug(DebugFlag f, const char* fmt, ...) {
  if (!debug_enabled(f)) return;
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap, false);  // asked for by the operator: not limited
  va_end(ap);
}

}  // namespace gsvirt
