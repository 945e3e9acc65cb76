// Captures the project's log lines while alive, so tests can assert what was logged (the sink is
// process-global: one capture at a time).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"

namespace gsvirt::testing {

class LogCapture {
 public:
  LogCapture() { set_log_sink(&LogCapture::sink, this); }
  ~LogCapture() { set_log_sink(nullptr, nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }
  bool contains(const std::string& needle) const { return count(needle) > 0; }
  // Every line, one a line (for failure messages).
  std::string all() const {
    std::string out;
    for (const std::string& line : lines()) out += line + "\n";
    return out;
  }
  // How many lines contain `needle`.
  size_t count(const std::string& needle) const {
    size_t n = 0;
    for (const std::string& line : lines()) n += line.find(needle) != std::string::npos;
    return n;
  }

 private:
  static void sink(const char* line, void* self) {
    auto* me = static_cast<LogCapture*>(self);
    std::lock_guard lock(me->mutex_);
    me->lines_.emplace_back(line);
  }
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace gsvirt::testing
