// Local waits for user events (issue 12, point 5).
//
// Only the application sets a user event, and it does so through this ICD. The host refuses a
// blocking call that would wait for a user event it has not been told about (it never blocks on
// the guest), so before a blocking call (clWaitForEvents, clFinish, blocking reads and maps) the
// ICD waits here, with its lock released, until every user event that call may wait for is set:
// another application thread can then send clSetUserEventStatus, and the host wait that follows
// only waits for host work. A status set to an error wakes the wait as well; the host then
// reports the failure as OpenCL says (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, failed events).
//
// The ICD follows the rule the host applies (host/vcomp/user_events.cc): a command may wait for
// the user events of its wait list's events, transitively, and for those of every earlier command
// of its queue (out-of-order queues too: the host cannot know what the vendor driver reorders).
#pragma once

#include <functional>

#include "guest/cl/icd.h"

namespace gsvirt::icd {

// Adds what waiting for `event` may wait for: the event itself for a user event, else the user
// events its command may wait for.
void add_user_waits(cl_event event, UserWaits* waits);
// Drops duplicates and user events set to CL_COMPLETE (failed ones stay: they tell a waiter that
// the host may report an error for what depends on them).
void prune_user_waits(UserWaits* waits);
bool any_unset(const UserWaits& waits);
bool any_failed(const UserWaits& waits);

// Returns once `pending()` (called under the lock) names no unset user event. The caller holds the
// ICD lock through one IcdLock; it is released while waiting. From a nested call (a callback run
// under the lock, which OpenCL forbids to block) it returns CL_INVALID_OPERATION at once instead
// of waiting for ever.
cl_int wait_for_user_events(const char* api, const std::function<UserWaits()>& pending);

// A user event got its status: wakes the local waits.
void user_event_status_set(cl_event event, cl_int status);
// A user event is destroyed unset: nobody can set it now (the host fails what waits for it), so
// local waits for it end.
void abandon_user_event(cl_event event);

}  // namespace gsvirt::icd
