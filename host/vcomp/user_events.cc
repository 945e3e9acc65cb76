// User events and waits the guest alone can end (issue 12, points 5 and 10).
//
// Only the guest completes a user event, and it does so with a later command of the same stream.
// A host call that blocks until the event is set (clWaitForEvents, clFinish, the blocking reads
// and writes vcomp executes) therefore stops the decoder that would read that command: the
// server process hangs for good, and a multi-threaded application that waits on one thread and
// sets the event on another deadlocks. vcomp tracks, per queue and per event, which unset user
// events their commands may wait for (transitively, through wait lists and the queue's order) and
// refuses a blocking call that would wait for one; everything that does not block (enqueues,
// markers, flushes, status queries) goes on as before, so an application that sets its user
// events before it waits works unchanged.
//
// A user event the guest can no longer set (destroyed unset, or its context ended) is failed, so
// the commands behind it complete with an error and release their memory objects and VRAM.
#include "host/vcomp/handler_util.h"

#include <algorithm>

namespace gsvirt::vcomp {

std::vector<uint64_t> VcompContext::still_unset(std::vector<uint64_t> serials) const {
  std::sort(serials.begin(), serials.end());
  serials.erase(std::unique(serials.begin(), serials.end()), serials.end());
  serials.erase(std::remove_if(serials.begin(), serials.end(),
                               [&](uint64_t s) { return unset_user_events_.count(s) == 0; }),
                serials.end());
  return serials;
}

void VcompContext::add_user_waits(const EventObject& event, std::vector<uint64_t>* waits_on_user) const {
  if (event.user_serial && unset_user_events_.count(event.user_serial)) waits_on_user->push_back(event.user_serial);
  for (uint64_t serial : event.waits_on_user)
    if (unset_user_events_.count(serial)) waits_on_user->push_back(serial);
}

bool VcompContext::refuse_wait_on_guest(const std::vector<uint64_t>& waits_on_user, int32_t* result) {
  std::vector<uint64_t> pending = still_unset(waits_on_user);
  if (pending.empty()) return false;
  log_field_error("wait_list", "would block on " + std::to_string(pending.size()) +
                                   " user event(s) the guest has not set; the host does not wait for the guest "
                                   "(set user events before waiting)");
  *result = CL_INVALID_OPERATION;
  return true;
}

bool VcompContext::refuse_blocking_enqueue(const Enqueue& e, int32_t* result) {
  if (refuse_wait_on_guest(e.waits_on_user, result)) return true;
  if (e.waits.empty()) return false;
  // Nothing here waits for the guest any more, so this wait ends with the host's own work.
  if (api().clWaitForEvents(e.wait_count(), e.wait_events()) != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    return false;
  *result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return true;
}

void VcompContext::abandon_user_event(EventObject& event) {
  auto it = unset_user_events_.find(event.user_serial);
  if (event.user_serial == 0 || it == unset_user_events_.end()) return;
  api().clSetUserEventStatus(event.handle, kAbandonedStatus);
  unset_user_events_.erase(it);
  release_settled_events();
}

void VcompContext::hold_while_waiting(cl_event event, std::vector<uint64_t> waits_on_user) {
  waits_on_user = still_unset(std::move(waits_on_user));
  if (waits_on_user.empty()) {
    api().clReleaseEvent(event);
    return;
  }
  held_events_.push_back({event, std::move(waits_on_user)});
}

void VcompContext::release_settled_events() {
  auto settled = [&](HeldEvent& held) {
    held.waits_on_user = still_unset(std::move(held.waits_on_user));
    if (!held.waits_on_user.empty()) return false;
    api().clReleaseEvent(held.handle);
    return true;
  };
  held_events_.erase(std::remove_if(held_events_.begin(), held_events_.end(), settled), held_events_.end());
}

}  // namespace gsvirt::vcomp
