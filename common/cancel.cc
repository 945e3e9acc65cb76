// Cancellation scopes: a per-thread chain of tokens (cancel.h).
#include "common/cancel.h"

namespace gsvirt {
namespace {

thread_local const CancelScope* t_innermost = nullptr;

}  // namespace

CancelScope::CancelScope(std::shared_ptr<const CancelToken> token) : token_(std::move(token)), outer_(t_innermost) {
  t_innermost = this;
}

CancelScope::~CancelScope() { t_innermost = outer_; }

bool work_cancelled() {
  for (const CancelScope* scope = t_innermost; scope; scope = scope->outer_) {
    if (!scope->token_) return false;  // a shield
    if (scope->token_->cancelled()) return true;
  }
  return false;
}

}  // namespace gsvirt
