// Per-runtime byte quotas (issue 12 point 7). vcomp gives each guest context a runtime of its own,
// so these bound what one guest context makes the host hold; docs/gsgpu-executor.md "Quotas".
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace gsgpu::cl {

// Bytes in use against a limit. Thread-safe (launch arguments are given back on the completion
// thread).
class ByteQuota {
 public:
  // `name` is what the log calls it ("program bytes", with the variable that sets it).
  ByteQuota(std::string name, uint64_t limit) : name_(std::move(name)), limit_(limit) {}
  // Takes `bytes` when they fit under the limit; otherwise false and a log line naming the quota
  // and `what` asked (only the first refusal is logged when `log_once`).
  bool charge(uint64_t bytes, const char* what, bool log_once = false);
  void release(uint64_t bytes) { used_.fetch_sub(bytes); }
  uint64_t used() const { return used_.load(); }
  uint64_t limit() const { return limit_; }

 private:
  const std::string name_;
  const uint64_t limit_;
  std::atomic<uint64_t> used_{0};
  std::atomic<bool> refused_once_{false};
};

// Bytes held against a quota for as long as this lives (a program's texts, a queued launch's
// arguments); the quota outlives the holder through the shared pointer.
class QuotaHold {
 public:
  QuotaHold() = default;
  explicit QuotaHold(std::shared_ptr<ByteQuota> quota) : quota_(std::move(quota)) {}
  QuotaHold(QuotaHold&& o) noexcept : quota_(std::move(o.quota_)), bytes_(o.bytes_) { o.bytes_ = 0; }
  QuotaHold& operator=(QuotaHold&& o) noexcept {
    if (this != &o) {
      give_back();
      quota_ = std::move(o.quota_);
      bytes_ = o.bytes_;
      o.bytes_ = 0;
    }
    return *this;
  }
  ~QuotaHold() { give_back(); }
  // Holds `bytes` instead of what it held; false (nothing changed, logged) when the growth does
  // not fit.
  bool resize(uint64_t bytes, const char* what) {
    if (!quota_) return true;
    if (bytes > bytes_ && !quota_->charge(bytes - bytes_, what)) return false;
    if (bytes < bytes_) quota_->release(bytes_ - bytes);
    bytes_ = bytes;
    return true;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void give_back() {
    if (quota_ && bytes_) quota_->release(bytes_);
    bytes_ = 0;
  }
  std::shared_ptr<ByteQuota> quota_;
  uint64_t bytes_ = 0;
};

}  // namespace gsgpu::cl
