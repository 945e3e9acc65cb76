// Cancelling long work whose requester is gone (issue 12, point 4).
//
// A compiler build can run for up to its deadline. When the client that asked for it has gone (a
// vtest client hung up in a server that serves clients in its own process, a context was
// destroyed) nobody waits for the result: the build is cancelled instead, and the tool it runs is
// killed at once. The layer that learns of the departure owns a CancelToken and cancels it, from
// any thread; the thread doing the work runs it inside a CancelScope naming that token, and the
// work (gsgpu/compiler's tool runner) checks work_cancelled() while it waits.
#pragma once

#include <atomic>
#include <memory>

namespace gsvirt {

class CancelToken {
 public:
  void cancel() { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

// While it lives, work on the constructing thread counts as cancelled when `token` is. Scopes
// nest (a session's around a context's): any cancelled token of the thread's scopes counts. A
// scope without a token (CancelShield) hides the scopes around it.
class CancelScope {
 public:
  explicit CancelScope(std::shared_ptr<const CancelToken> token);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  friend bool work_cancelled();
  std::shared_ptr<const CancelToken> token_;
  const CancelScope* outer_;
};

// Work whose result outlives the requester (process-wide state such as the compiler's toolchain
// discovery, which every later client shares) runs inside a shield: it is never cancelled.
class CancelShield : public CancelScope {
 public:
  CancelShield() : CancelScope(nullptr) {}
};

// True when a token of the calling thread's scopes, up to the innermost shield, is cancelled.
bool work_cancelled();

}  // namespace gsvirt
