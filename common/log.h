// Logging and GSVIRT_DEBUG flags.
//
// GSVIRT_DEBUG is a comma-separated list of flags (e.g. "commands,transport").
// Errors are always printed; debug lines only for the flags that are set.
#pragma once

#include <cstdarg>
#include <cstdint>

namespace gsvirt {

enum DebugFlag : uint32_t {
  kDebugCommands = 1u << 0,   // host logs every decoded command with ids and result
  kDebugTransport = 1u << 1,  // transport messages (vtest, drm, inproc)
  kDebugResources = 1u << 2,  // resource and blob life cycle
  kDebugGuest = 1u << 3,      // guest ICD calls
  kDebugGsgpu = 1u << 4,      // emulator
  kDebugCompiler = 1u << 5,   // SPIR-V -> gsgpu compiler dumps
};

// Parsed once from GSVIRT_DEBUG; tests may override it.
uint32_t debug_flags();
void set_debug_flags(uint32_t flags);
inline bool debug_enabled(DebugFlag f) { return (debug_flags() & f) != 0; }

// Log sink: defaults to stderr. Tests install a capturing sink to assert messages.
using LogSink = void (*)(const char* line, void* user);
void set_log_sink(LogSink sink, void* user);

// Error and info lines are rate-limited per format string: `burst` lines at once, then
// `per_second` (0 burst: no limit); a line after suppressed ones says how many were dropped.
// Control characters in every line (a guest's strings included) are written as \xNN.
struct LogRateLimit {
  uint32_t burst = 100;
  double per_second = 10;
};
// Replaces the limit (resetting every call site's count); returns the previous one.
LogRateLimit set_log_rate_limit(LogRateLimit limit);

void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(DebugFlag f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace gsvirt
