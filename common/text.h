// printf-style appending to a std::string, for the readable text the device writes (the dispatch
// and draw dumps): one place that formats into a bounded line and appends what fit.
#pragma once

#include <cstdint>
#include <string>

namespace gsvirt {

// Appends the formatted text; a line longer than 511 characters is cut there.
void appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// A 64-bit value as 0x-prefixed lower-case hex (addresses and sizes in fault and log messages).
std::string hex(uint64_t value);

}  // namespace gsvirt
