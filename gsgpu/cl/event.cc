// Events. A command's event completes when its command finishes (queue.cc: device commands when
// their fence retires); callbacks run then, under the runtime mutex. Explicit waits block until
// the events complete, except on a user event nobody can set any more (refused). Profiling times:
// docs/gsgpu-executor.md.
#include <unordered_set>

#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

Event* make_event(Runtime* rt, Context* c, Queue* q, cl_command_type type) {
  auto* e = make_object<Event>(rt, Kind::kEvent);
  e->context = c;
  retain_internal(c);
  if (q) {
    e->queue = q;
    retain_internal(q);
  }
  e->command_type = type;
  return e;
}

void run_callbacks(Event* e) {
  // Callbacks for CL_COMPLETE also run when the event ends in error (the spec).
  auto pending = std::move(e->callbacks);
  e->callbacks.clear();
  retain_internal(e);  // a callback may release the application's last reference
  ++e->rt->in_callback;
  for (const auto& cb : pending) {
    if (e->status <= cb.when)
      cb.fn(handle_of<cl_event>(e), e->status, cb.data);
    else
      e->callbacks.push_back(cb);
  }
  --e->rt->in_callback;
  release_internal(e);
}

// Commands this one cannot start before: the pending commands its wait list names, and those
// before it in its queue.
void push_blockers(const Command* c, std::vector<const Command*>* todo) {
  for (const Object* w : c->waits) {
    const auto* e = static_cast<const Event*>(w);
    if (e->status > 0 && e->command) todo->push_back(e->command);
  }
  for (const auto& before : c->queue->commands) {
    if (before.get() == c) break;
    todo->push_back(before.get());
  }
}

}  // namespace

Event* new_event(Queue* q, cl_command_type type) { return make_event(q->rt, q->context, q, type); }

void set_event_status(Event* e, cl_int status) {
  e->status = status;
  run_callbacks(e);
}

cl_int check_wait_list(Context* context, cl_uint n, const cl_event* events) {
  if ((n == 0) != (events == nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  bool failed = false;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    if (!e) return CL_INVALID_EVENT_WAIT_LIST;
    if (e->context != context) return CL_INVALID_CONTEXT;  // the spec, for every enqueue
    failed |= e->status < 0;
  }
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

bool waits_for_user_event(const Event* e) {
  if (e->status <= 0) return false;
  if (!e->queue) return true;  // a user event not set yet
  std::vector<const Command*> todo;
  if (e->command) todo.push_back(e->command);
  std::unordered_set<const Command*> seen;
  while (!todo.empty()) {
    const Command* c = todo.back();
    todo.pop_back();
    // Submitted or finished commands complete by themselves.
    if (!seen.insert(c).second || c->state != Command::State::kWaiting) continue;
    for (const Object* w : c->waits) {
      const auto* we = static_cast<const Event*>(w);
      if (we->status > 0 && !we->queue) return true;
    }
    push_blockers(c, &todo);
  }
  return false;
}

void finish_event(Event* e, cl_int status, uint64_t cycles) {
  // Commands that never started (a failed wait list) were submitted when they finished.
  if (!e->submit) e->submit = std::max(e->queued, e->rt->host_now_ns());
  // Without profiling the device timeline is not advanced by this command's record.
  if (e->queue->properties & CL_QUEUE_PROFILING_ENABLE) e->rt->schedule(e->submit, cycles, &e->start, &e->end);
  set_event_status(e, status < 0 ? status : CL_COMPLETE);
}

cl_int CL_API_CALL gsgpu_clWaitForEvents(cl_uint n, const cl_event* events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  Context* context = nullptr;
  std::vector<Event*> list;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    if (!e) return CL_INVALID_EVENT;
    if (context && e->context != context) return CL_INVALID_CONTEXT;
    context = e->context;
    list.push_back(e);
  }
  Runtime* rt = context->rt;
  std::unique_lock lock(rt->mutex);
  for (Event* e : list) {
    if (!rt->config().wait_for_user_events && waits_for_user_event(e)) {
      log_once("clWaitForEvents", "waiting for a user event that is not complete would block forever");
      return CL_INVALID_OPERATION;
    }
  }
  if (rt->in_callback) {
    log_once("clWaitForEvents", "called from an event callback, which would wait for itself; refused");
    return CL_INVALID_OPERATION;
  }
  rt->wait_until(lock, [&list] {
    for (const Event* e : list)
      if (e->status > 0) return false;
    return true;
  });
  for (const Event* e : list)
    if (e->status < 0) return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return CL_SUCCESS;
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
  retain_app(e);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseEvent(cl_event event) {
  auto* e = as<Event>(event, Kind::kEvent);
  if (!e) return CL_INVALID_EVENT;
  std::lock_guard lock(e->rt->mutex);
  return release_app(e);
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
  advance(e->rt);
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
