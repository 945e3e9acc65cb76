// Events. Commands run at enqueue, so a command's event is complete (or failed) when the enqueue
// returns; only user events can be pending. Profiling times: docs/gsgpu-executor.md.
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

Event* make_event(Runtime* rt, Context* c, Queue* q, cl_command_type type) {
  auto* e = make_object<Event>(rt, Kind::kEvent);
  e->context = c;
  retain(c);
  if (q) {
    e->queue = q;
    retain(q);
  }
  e->command_type = type;
  return e;
}

void run_callbacks(Event* e) {
  // Callbacks for CL_COMPLETE also run when the event ends in error (the spec).
  auto pending = std::move(e->callbacks);
  e->callbacks.clear();
  for (const auto& cb : pending) {
    if (e->status <= cb.when)
      cb.fn(handle_of<cl_event>(e), e->status, cb.data);
    else
      e->callbacks.push_back(cb);
  }
}

}  // namespace

Event* new_event(Queue* q, cl_command_type type) { return make_event(q->rt, q->context, q, type); }

void set_event_status(Event* e, cl_int status) {
  e->status = status;
  run_callbacks(e);
}

cl_int check_wait_list(Context* context, cl_uint n, const cl_event* events, bool* pending) {
  *pending = false;
  if ((n == 0) != (events == nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  bool failed = false;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    if (!e || e->context != context) return CL_INVALID_EVENT_WAIT_LIST;
    failed |= e->status < 0;
    *pending |= e->status > 0;
  }
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

void finish_event(Event* e, cl_int status, uint64_t cycles) {
  e->submit = std::max(e->queued, e->rt->host_now_ns());
  if (e->queue->properties & CL_QUEUE_PROFILING_ENABLE) e->rt->schedule(e->submit, cycles, &e->start, &e->end);
  set_event_status(e, status < 0 ? status : CL_COMPLETE);
}

void complete_command(Queue* q, cl_command_type type, cl_int status, uint64_t cycles, cl_event* event_out) {
  if (!event_out) return;
  Event* e = new_event(q, type);
  const bool profiling = q->properties & CL_QUEUE_PROFILING_ENABLE;
  e->queued = e->submit = q->rt->host_now_ns();
  // Without profiling the device timeline is not advanced by this command's record.
  if (profiling) q->rt->schedule(e->submit, cycles, &e->start, &e->end);
  e->status = status < 0 ? status : CL_COMPLETE;
  *event_out = handle_of<cl_event>(e);
}

cl_int CL_API_CALL gsgpu_clWaitForEvents(cl_uint n, const cl_event* events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  Context* context = nullptr;
  bool failed = false;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    if (!e) return CL_INVALID_EVENT;
    if (context && e->context != context) return CL_INVALID_CONTEXT;
    context = e->context;
    std::lock_guard lock(e->rt->mutex);
    if (e->status > 0) {
      log_once("clWaitForEvents", "waiting for a user event that is not complete would block forever");
      return CL_INVALID_OPERATION;
    }
    failed |= e->status < 0;
  }
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetEventInfo(cl_event event, cl_event_info param, size_t size, void* value, size_t* ret) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  std::lock_guard lock(e->rt->mutex);
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return put_value(handle_of<cl_command_queue>(e->queue), size, value, ret);
    case CL_EVENT_CONTEXT: return put_value(handle_of<cl_context>(e->context), size, value, ret);
    case CL_EVENT_COMMAND_TYPE: return put_value(e->command_type, size, value, ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: return put_value(e->status, size, value, ret);
    case CL_EVENT_REFERENCE_COUNT: return put_value(cl_uint(e->app_refs()), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clRetainEvent(cl_event event) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  retain(e);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseEvent(cl_event event) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  std::lock_guard lock(e->rt->mutex);
  release(e);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size, void* value,
                                                 size_t* ret) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  std::lock_guard lock(e->rt->mutex);
  if (!e->queue || !(e->queue->properties & CL_QUEUE_PROFILING_ENABLE) || e->status != CL_COMPLETE)
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return put_value(e->queued, size, value, ret);
    case CL_PROFILING_COMMAND_SUBMIT: return put_value(e->submit, size, value, ret);
    case CL_PROFILING_COMMAND_START: return put_value(e->start, size, value, ret);
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE: return put_value(e->end, size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_event CL_API_CALL gsgpu_clCreateUserEvent(cl_context context, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  Event* e = make_event(c->rt, c, nullptr, CL_COMMAND_USER);
  e->status = CL_SUBMITTED;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_event>(e);
}

cl_int CL_API_CALL gsgpu_clSetUserEventStatus(cl_event event, cl_int status) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e || e->command_type != CL_COMMAND_USER) return CL_INVALID_EVENT;
  if (status > 0) return CL_INVALID_VALUE;  // CL_COMPLETE or a negative error only
  std::lock_guard lock(e->rt->mutex);
  if (e->status <= 0) return CL_INVALID_OPERATION;  // set once
  set_event_status(e, status);
  run_ready_commands(e->rt);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clSetEventCallback(cl_event event, cl_int when,
                                            void(CL_CALLBACK* fn)(cl_event, cl_int, void*), void* data) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  if (!fn || (when != CL_COMPLETE && when != CL_SUBMITTED && when != CL_RUNNING)) return CL_INVALID_VALUE;
  std::lock_guard lock(e->rt->mutex);
  e->callbacks.push_back({when, fn, data});
  run_callbacks(e);
  return CL_SUCCESS;
}

}  // namespace gsgpu::cl
