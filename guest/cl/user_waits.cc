// Local waits for user events: see user_waits.h.
#include "guest/cl/user_waits.h"

#include <algorithm>
#include <condition_variable>

#include "common/log.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

// Status given to a user event destroyed unset (the host fails it with an error of its own).
constexpr cl_int kAbandonedStatus = CL_INVALID_EVENT;

std::condition_variable_any& user_event_set_cv() {
  // Never destroyed, like the ICD lock: a wait may still run while the process exits.
  static auto* cv = new std::condition_variable_any;
  return *cv;
}

// The caller's hold on the ICD lock, as the BasicLockable the condition variable releases and
// takes back (keeping IcdLock's per-thread count right).
class CallerHold {
 public:
  void lock() {
    icd_mutex().lock();
    ++IcdLock::depth();
  }
  void unlock() {
    --IcdLock::depth();
    icd_mutex().unlock();
  }
};

}  // namespace

void add_user_waits(cl_event event, UserWaits* waits) {
  if (event->user_state) {
    waits->push_back(event->user_state);
    return;
  }
  waits->insert(waits->end(), event->waits_on_user.begin(), event->waits_on_user.end());
}

void prune_user_waits(UserWaits* waits) {
  std::sort(waits->begin(), waits->end());
  waits->erase(std::unique(waits->begin(), waits->end()), waits->end());
  waits->erase(std::remove_if(waits->begin(), waits->end(), [](const auto& s) { return s->status == CL_COMPLETE; }),
               waits->end());
}

bool any_unset(const UserWaits& waits) {
  return std::any_of(waits.begin(), waits.end(), [](const auto& s) { return !s->set(); });
}

bool any_failed(const UserWaits& waits) {
  return std::any_of(waits.begin(), waits.end(), [](const auto& s) { return s->status < 0; });
}

cl_int wait_for_user_events(const char* api, const std::function<UserWaits()>& pending) {
  if (!any_unset(pending())) return CL_SUCCESS;
  if (IcdLock::depth() != 1)
    return refuse(api, "would wait for a user event that is not set from a callback (which holds the ICD lock)",
                  CL_INVALID_OPERATION);
  log_debug(kDebugGuest, "%s: waits for user events that are not set yet, without the ICD lock", api);
  CallerHold hold;
  user_event_set_cv().wait(hold, [&] { return !any_unset(pending()); });
  return CL_SUCCESS;
}

void user_event_status_set(cl_event event, cl_int status) {
  if (!event->user_state) return;
  event->user_state->status = status;
  user_event_set_cv().notify_all();
}

void abandon_user_event(cl_event event) {
  if (!event->user_state || event->user_state->set()) return;
  user_event_status_set(event, kAbandonedStatus);
}

}  // namespace gsvirt::icd
