// Events: guest-allocated ids, local info, callbacks run when the guest observes a status.
//
// The host never calls back into the guest, so a callback runs when the guest itself learns that
// the status was reached: clWaitForEvents, clFinish on the event's queue, a blocking call that
// returns the event, clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS), clSetUserEventStatus.
#include "guest/cl/event.h"

#include <algorithm>

#include "guest/cl/api.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"
#include "guest/cl/user_waits.h"

namespace gsvirt::icd {
namespace {

size_t g_unset_user_events = 0;

cl_event new_event(cl_context context, cl_command_queue queue, cl_command_type type, uint64_t guest_id) {
  auto* event = new _cl_event;
  event->guest_id = guest_id;
  event->context = context;
  event->queue = queue;
  event->command_type = type;
  retain_internal(context);
  if (queue) retain_internal(queue);
  registry().add(event);
  return event;
}

void forget_pending(cl_event event) {
  if (!event->queue) return;
  auto& pending = event->queue->events_with_callbacks;
  auto it = std::find(pending.begin(), pending.end(), event);
  if (it == pending.end()) return;
  pending.erase(it);
  release_internal(event);  // may destroy it when the app released it already
}

// Asks the host for the event's status (a query, never a wait) and observes it.
cl_int observe_status_from_host(const char* api, cl_event event, cl_int* status_out = nullptr) {
  cl_int status = CL_QUEUED;
  cl_int err = forward_info(
      api, sizeof status, &status, nullptr,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetEventInfo(w, want, event->guest_id, CL_EVENT_COMMAND_EXECUTION_STATUS, out);
      },
      proto::decode_reply_clGetEventInfo);
  if (err != CL_SUCCESS) return err;
  observe_event_status(event, status);
  if (status_out) *status_out = status;
  return CL_SUCCESS;
}

}  // namespace

bool user_events_pending() { return g_unset_user_events > 0; }

void forget_user_event(cl_event event) {
  if (event->command_type == CL_COMMAND_USER && !event->user_status_set && g_unset_user_events) --g_unset_user_events;
}

cl_int collect_event_ids(const char* api, cl_context context, cl_uint num_events, const cl_event* events,
                         cl_int invalid_event_code, std::vector<uint64_t>* ids) {
  ids->clear();
  if ((num_events == 0) != (events == nullptr)) return refuse(api, "num_events and the event list disagree", invalid_event_code);
  for (cl_uint i = 0; i < num_events; ++i) {
    cl_event event = live(events[i]);
    if (!event) return refuse(api, "event list holds an invalid event", invalid_event_code);
    if (context && event->context != context) return refuse(api, "event from another context", CL_INVALID_CONTEXT);
    ids->push_back(event->guest_id);
  }
  return CL_SUCCESS;
}

cl_int begin_enqueue(const char* api, cl_command_queue queue, cl_uint num_events, const cl_event* wait_list,
                     cl_event* event, EnqueueCommon* common) {
  trace_call(api);
  if (!live(queue)) return refuse(api, "command_queue", CL_INVALID_COMMAND_QUEUE);
  cl_int err = collect_event_ids(api, queue->context, num_events, wait_list, CL_INVALID_EVENT_WAIT_LIST,
                                 &common->wait_ids);
  if (err != CL_SUCCESS) return err;
  for (cl_uint i = 0; i < num_events; ++i) add_user_waits(wait_list[i], &common->list_waits);
  prune_user_waits(&common->list_waits);
  common->connection = connection_for(api);
  if (!common->connection) return CL_OUT_OF_RESOURCES;
  common->event_id = event ? common->connection->allocate_id() : 0;
  return CL_SUCCESS;
}

void note_enqueued(const EnqueueCommon& common, cl_command_queue queue) {
  UserWaits& waits = queue->waits_on_user;
  waits.insert(waits.end(), common.list_waits.begin(), common.list_waits.end());
  prune_user_waits(&waits);
  ++queue->commands_enqueued;
}

void finish_enqueue(const EnqueueCommon& common, cl_command_queue queue, cl_command_type type, cl_event* event,
                    bool completed) {
  note_enqueued(common, queue);
  // The host ran it: in an in-order queue every command before it is complete too.
  if (completed && !(queue->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
    deliver_reads_up_to("a command the host ran at once", queue, queue->commands_enqueued - 1);
  if (!event) return;
  *event = new_event(queue->context, queue, type, common.event_id);
  (*event)->waits_on_user = queue->waits_on_user;
  (*event)->queue_seq = queue->commands_enqueued;
  if (completed) (*event)->observed_status = CL_COMPLETE;
}

UserWaits command_user_waits(cl_command_queue queue, const EnqueueCommon& common) {
  UserWaits waits = queue->waits_on_user;
  waits.insert(waits.end(), common.list_waits.begin(), common.list_waits.end());
  prune_user_waits(&waits);
  return waits;
}

cl_int wait_before_host_blocks(const char* api, cl_bool blocking, cl_command_queue queue, cl_mem mem,
                               const EnqueueCommon& common) {
  // Recomputed on every wake-up: other threads may enqueue more in front of this command meanwhile.
  auto pending = [&] { return command_user_waits(queue, common); };
  if (!any_unset(pending())) return CL_SUCCESS;
  if (!blocking)  // callers defer such reads (deferred_reads.h) before they get here
    return refuse(api, "a non-blocking read behind a user event that is not set (the host reads at once)",
                  CL_INVALID_OPERATION);
  // The app may release them on another thread while this one waits (the command holds them).
  retain_internal(queue);
  retain_internal(mem);
  cl_int err = wait_for_user_events(api, pending);
  release_internal(mem);
  release_internal(queue);
  return err;
}

void observe_event_status(cl_event event, cl_int status) {
  bool advanced = status < 0 ? event->observed_status >= 0 : status < event->observed_status;
  if (!advanced) return;
  // A deferred read's bytes are in the app's memory before it can see the command complete.
  if (status == CL_COMPLETE)
    deliver_reads_completed_with("observing a command's completion", event);
  else if (status < 0)
    drop_read_of(event);
  event->observed_status = status;
  // Callbacks may release the event: work on a copy and keep the event alive meanwhile.
  retain_internal(event);
  std::vector<EventCallback> due;
  auto& callbacks = event->callbacks;
  for (auto it = callbacks.begin(); it != callbacks.end();) {
    if (status <= it->trigger_status) {
      due.push_back(*it);
      it = callbacks.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& callback : due) callback.fn(event, status < 0 ? status : callback.trigger_status, callback.user_data);
  if (event->callbacks.empty()) forget_pending(event);
  release_internal(event);
}

void complete_queue_events(cl_command_queue queue) {
  deliver_reads_up_to("clFinish", queue, queue->commands_enqueued);
  // observe_event_status edits the list; the events in it hold a reference on themselves.
  auto pending = queue->events_with_callbacks;
  for (cl_event event : pending) {
    // Behind a user event set to an error the command may have failed: its callbacks get the
    // status the host knows.
    if (any_failed(event->waits_on_user))
      observe_status_from_host("clFinish", event);
    else
      observe_event_status(event, CL_COMPLETE);
  }
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_int gsvirt_clWaitForEvents(cl_uint num_events, const cl_event* event_list) {
  IcdLock lock(icd_mutex());
  const char* api = "clWaitForEvents";
  trace_call(api);
  if (num_events == 0 || !event_list) return refuse(api, "num_events is 0 or event_list is NULL", CL_INVALID_VALUE);
  std::vector<uint64_t> ids;
  cl_int err = collect_event_ids(api, nullptr, num_events, event_list, CL_INVALID_EVENT, &ids);
  if (err != CL_SUCCESS) return err;
  cl_context context = event_list[0]->context;
  for (cl_uint i = 0; i < num_events; ++i)
    if (event_list[i]->context != context) return refuse(api, "events of different contexts", CL_INVALID_CONTEXT);
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  // What these events may wait for is fixed (their commands are queued): wait here, without the
  // lock, for its user events, so that another thread can set them and the host never sees an
  // unset one. The events stay alive meanwhile whatever other threads release.
  UserWaits waits;
  for (cl_uint i = 0; i < num_events; ++i) {
    add_user_waits(event_list[i], &waits);
    retain_internal(event_list[i]);
  }
  prune_user_waits(&waits);
  err = wait_for_user_events(api, [&] { return waits; });
  if (err == CL_SUCCESS) {
    proto::Reply_clWaitForEvents reply;
    err = connection->call(
        api, [&](WireWriter& w, bool want) { proto::encode_clWaitForEvents(w, want, ids.data(), ids.size()); },
        proto::decode_reply_clWaitForEvents, &reply);
  }
  for (cl_uint i = 0; i < num_events; ++i) {
    if (err == CL_SUCCESS)
      observe_event_status(event_list[i], CL_COMPLETE);
    else if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
      observe_status_from_host(api, event_list[i]);  // which failed: their callbacks run with it
    release_internal(event_list[i]);
  }
  cl_int deferred = connection->take_deferred_error();
  return err != CL_SUCCESS ? err : deferred;
}

cl_int gsvirt_clGetEventInfo(cl_event event, cl_event_info param_name, size_t param_value_size, void* param_value,
                             size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetEventInfo";
  trace_call(api);
  if (!live(event)) return refuse(api, "event", CL_INVALID_EVENT);
  switch (param_name) {
    case CL_EVENT_COMMAND_QUEUE:
      return put_value(event->queue, param_value_size, param_value, param_value_size_ret);
    case CL_EVENT_CONTEXT:
      return put_value(event->context, param_value_size, param_value, param_value_size_ret);
    case CL_EVENT_COMMAND_TYPE:
      return put_value(event->command_type, param_value_size, param_value, param_value_size_ret);
    case CL_EVENT_REFERENCE_COUNT:
      return put_value(cl_uint(event->app_refs()), param_value_size, param_value, param_value_size_ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      cl_int status = CL_QUEUED;
      cl_int err = observe_status_from_host(api, event, &status);
      if (err != CL_SUCCESS) return err;
      return put_value(status, param_value_size, param_value, param_value_size_ret);
    }
    default:
      return refuse(api, "param_name", CL_INVALID_VALUE);
  }
}

cl_int gsvirt_clRetainEvent(cl_event event) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainEvent");
  if (!live(event)) return refuse("clRetainEvent", "event", CL_INVALID_EVENT);
  retain_app(event);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseEvent(cl_event event) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseEvent");
  if (!live(event)) return refuse("clReleaseEvent", "event", CL_INVALID_EVENT);
  return release_app(event);
}

cl_int gsvirt_clGetEventProfilingInfo(cl_event event, cl_profiling_info param_name, size_t param_value_size,
                                      void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetEventProfilingInfo";
  trace_call(api);
  if (!live(event)) return refuse(api, "event", CL_INVALID_EVENT);
  if (!event->queue) return refuse(api, "user events have no profiling info", CL_PROFILING_INFO_NOT_AVAILABLE);
  return forward_info(
      api, param_value_size, param_value, param_value_size_ret,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetEventProfilingInfo(w, want, event->guest_id, param_name, out);
      },
      proto::decode_reply_clGetEventProfilingInfo);
}

cl_event gsvirt_clCreateUserEvent(cl_context context, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateUserEvent";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_event>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_event>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateUserEvent reply;
  cl_int err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clCreateUserEvent(w, want, id, context->guest_id); },
      proto::decode_reply_clCreateUserEvent, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  cl_event event = new_event(context, nullptr, CL_COMMAND_USER, id);
  event->observed_status = CL_SUBMITTED;
  event->user_state = std::make_shared<UserEventState>();
  ++g_unset_user_events;
  return event;
}

cl_int gsvirt_clSetUserEventStatus(cl_event event, cl_int execution_status) {
  IcdLock lock(icd_mutex());
  const char* api = "clSetUserEventStatus";
  trace_call(api);
  if (!live(event) || event->command_type != CL_COMMAND_USER) return refuse(api, "event", CL_INVALID_EVENT);
  if (execution_status > CL_COMPLETE) return refuse(api, "execution_status must be CL_COMPLETE or negative", CL_INVALID_VALUE);
  if (event->user_status_set) return refuse(api, "status already set", CL_INVALID_OPERATION);
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  proto::Reply_clSetUserEventStatus reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clSetUserEventStatus(w, want, event->guest_id, execution_status);
      },
      proto::decode_reply_clSetUserEventStatus, &reply);
  if (err != CL_SUCCESS) return err;
  forget_user_event(event);
  event->user_status_set = true;
  user_event_status_set(event, execution_status);  // wakes local waits (user_waits.h)
  observe_event_status(event, execution_status);
  return CL_SUCCESS;
}

cl_int gsvirt_clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
                                 void(CL_CALLBACK* pfn_notify)(cl_event, cl_int, void*), void* user_data) {
  IcdLock lock(icd_mutex());
  const char* api = "clSetEventCallback";
  trace_call(api);
  if (!live(event)) return refuse(api, "event", CL_INVALID_EVENT);
  if (!pfn_notify) return refuse(api, "pfn_notify is NULL", CL_INVALID_VALUE);
  if (command_exec_callback_type != CL_COMPLETE && command_exec_callback_type != CL_RUNNING &&
      command_exec_callback_type != CL_SUBMITTED)
    return refuse(api, "command_exec_callback_type", CL_INVALID_VALUE);
  if (event->observed_status <= command_exec_callback_type) {
    // Already observed: the spec lets the callback run at once.
    pfn_notify(event, event->observed_status < 0 ? event->observed_status : command_exec_callback_type, user_data);
    return CL_SUCCESS;
  }
  event->callbacks.push_back({command_exec_callback_type, pfn_notify, user_data});
  if (event->queue) {
    auto& pending = event->queue->events_with_callbacks;
    if (std::find(pending.begin(), pending.end(), event) == pending.end()) {
      pending.push_back(event);
      retain_internal(event);  // callbacks run even if the app releases the event first
    }
  }
  return CL_SUCCESS;
}
