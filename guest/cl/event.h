// Events: what every enqueue shares (wait lists, the event it returns) and status observation.
#pragma once

#include <vector>

#include "guest/cl/connection.h"
#include "guest/cl/icd.h"

namespace gsvirt::icd {

// What an enqueue call carries besides its own arguments.
struct EnqueueCommon {
  Connection* connection = nullptr;
  std::vector<uint64_t> wait_ids;
  UserWaits list_waits;   // user events the wait list's events may wait for (user_waits.h)
  uint64_t event_id = 0;  // 0 when the app passed event == NULL
};

// Validates the queue and the wait list (live events of the queue's context) and allocates the
// id of the event to return. Returns the CL error to report.
cl_int begin_enqueue(const char* api, cl_command_queue queue, cl_uint num_events, const cl_event* wait_list,
                     cl_event* event, EnqueueCommon* common);
// After the command was sent: notes what it may wait for (note_enqueued), creates the event object
// (when asked for) and stores it in *event.
// `completed`: the guest knows the command finished (blocking calls), so completion callbacks fire.
void finish_enqueue(const EnqueueCommon& common, cl_command_queue queue, cl_command_type type, cl_event* event,
                    bool completed);
// The command was sent: the queue's later commands may wait for the user events this one may.
void note_enqueued(const EnqueueCommon& common, cl_command_queue queue);
// The user events not yet set that a command about to be enqueued on `queue` may wait for: its wait
// list's and its queue's (in order), pruned of those set already.
UserWaits command_user_waits(cl_command_queue queue, const EnqueueCommon& common);
// Before a command the host executes blocking (reads, maps that read): when it may wait for a user
// event that is not set, waits for it without the ICD lock if the app asked for a blocking call;
// a non-blocking one is refused (CL_INVALID_OPERATION), as the host would refuse it, instead of
// blocking a thread that may be the one to set the event.
// `mem`, the object the command reads, is kept alive meanwhile, like the queue.
cl_int wait_before_host_blocks(const char* api, cl_bool blocking, cl_command_queue queue, cl_mem mem,
                               const EnqueueCommon& common);

// Wait-list checks shared with clWaitForEvents: every event live (CL_INVALID_EVENT_WAIT_LIST or
// CL_INVALID_EVENT), in `context` when given (CL_INVALID_CONTEXT).
cl_int collect_event_ids(const char* api, cl_context context, cl_uint num_events, const cl_event* events,
                         cl_int invalid_event_code, std::vector<uint64_t>* ids);

// True while some user event has not been given its status. The host executes writes blocking,
// so a write that (directly or through its queue) waits on such an event would stall the host
// context, including the clSetUserEventStatus that would release it; enqueue.cc then writes
// through a temporary buffer and a non-blocking copy instead.
bool user_events_pending();
// A user event is destroyed or got its status: it no longer counts as pending.
void forget_user_event(cl_event event);

// Records a status the guest observed and runs the callbacks it triggers.
void observe_event_status(cl_event event, cl_int status);
// clFinish returned: every command of `queue` is complete.
void complete_queue_events(cl_command_queue queue);

}  // namespace gsvirt::icd
