#include "common/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

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

void emit(const char* prefix, const char* fmt, va_list ap) {
  char line[1024];
  int n = std::snprintf(line, sizeof line, "gsvirt: %s", prefix);
  if (n < 0) n = 0;
  std::vsnprintf(line + n, sizeof line - size_t(n), fmt, ap);
  std::lock_guard<std::mutex> lock(g_sink_mutex);
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

void log_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error: ", fmt, ap);
  va_end(ap);
}

void log_info(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap);
  va_end(ap);
}

void log_debug(DebugFlag f, const char* fmt, ...) {
  if (!debug_enabled(f)) return;
  va_list ap;
  va_start(ap, fmt);
  emit("", fmt, ap);
  va_end(ap);
}

}  // namespace gsvirt
