// Command queues: commands queued in order, started when they are ready and completed from the
// front as their submissions retire (advance), from the enqueuing thread, clSetUserEventStatus or
// the runtime's completion thread. clFinish waits; clFlush sends launches held for a batch.
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

cl_command_queue new_queue(cl_context context, cl_device_id device, cl_command_queue_properties props,
                           cl_int* errcode_ret, std::vector<cl_queue_properties> properties_array = {}) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  auto* d = as<Device>(device, Kind::kDevice);
  if (!d || d->rt != c->rt) {
    set_error(errcode_ret, CL_INVALID_DEVICE);
    return nullptr;
  }
  constexpr cl_command_queue_properties kKnown = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                 CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_ON_DEVICE |
                                                 CL_QUEUE_ON_DEVICE_DEFAULT;
  if (props & ~kKnown) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  // Valid, but this device runs in order and has no device-side enqueue (no on-device queues).
  if (props & (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)) {
    set_error(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  auto* q = make_object<Queue>(c->rt, Kind::kQueue);
  q->context = c;
  retain_internal(c);
  q->properties = props;
  q->properties_array = std::move(properties_array);
  c->rt->queues.push_back(q);
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_command_queue>(q);
}

std::vector<Object*> held(cl_uint n, const cl_event* events) {
  std::vector<Object*> out;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    retain_internal(e);
    out.push_back(e);
  }
  return out;
}

// The command's wait list: some event not complete yet, all complete, or one failed.
enum class WaitState { kPending, kComplete, kFailed };

WaitState wait_state(const Command* c) {
  bool failed = false;
  for (const Object* w : c->waits) {
    const cl_int status = static_cast<const Event*>(w)->status;
    if (status > 0) return WaitState::kPending;
    failed |= status < 0;
  }
  return failed ? WaitState::kFailed : WaitState::kComplete;
}

void finish(Command* c, cl_int status) {
  c->status = status;
  c->state = Command::State::kFinished;
}

// Builds and submits a device command; on any refusal the command finishes with the error.
void launch(Runtime* rt, Command* c) {
  Submission sub;
  const cl_int err = c->launch(&sub);
  c->launch = nullptr;
  if (err < 0) return finish(c, err);
  c->event->submit = std::max(c->event->queued, rt->host_now_ns());
  std::string why;
  if (!rt->start_launch(c, std::move(sub), &why)) {
    log_error("gsgpu runtime: %s", why.c_str());
    SubmitOutcome refused;
    refused.fault = why;
    c->retire(refused);  // frees the command's per-dispatch objects
    c->retire = nullptr;
    return finish(c, CL_OUT_OF_RESOURCES);
  }
  c->state = Command::State::kInFlight;
  ++c->queue->in_flight;
  set_event_status(c->event, CL_SUBMITTED);
}

// Starts what can start in the queue, in order (from the first command not started yet); true
// when something changed.
bool start_ready(Runtime* rt, Queue* q) {
  bool progress = false;
  while (q->started < q->commands.size()) {
    Command* c = q->commands[q->started].get();
    const WaitState w = wait_state(c);
    if (w == WaitState::kPending) break;
    // Host work runs once everything before it has finished: every started command is in flight
    // or finished.
    if (c->work && w != WaitState::kFailed && q->in_flight) break;
    if (c->launch && w != WaitState::kFailed && !rt->can_submit(c->exact_counters)) break;
    ++q->started;
    if (w == WaitState::kFailed) {
      finish(c, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    } else if (c->work) {
      c->event->submit = std::max(c->event->queued, rt->host_now_ns());
      uint64_t cycles = 0;
      const cl_int status = c->work(&cycles);
      c->cycles = cycles;
      finish(c, status);
    } else {
      launch(rt, c);
    }
    progress = true;
  }
  return progress;
}

// Completes the finished commands at the front, in order; true when one completed.
bool complete_front(Queue* q) {
  bool progress = false;
  while (!q->commands.empty() && q->commands.front()->state == Command::State::kFinished) {
    std::unique_ptr<Command> c = std::move(q->commands.front());
    q->commands.pop_front();
    --q->started;
    c->event->command = nullptr;
    finish_event(c->event, c->status, c->cycles);  // runs its callbacks
    for (Object* o : c->waits) release_internal(o);
    for (Object* o : c->keep) release_internal(o);
    release_internal(c->event);
    progress = true;
  }
  return progress;
}

}  // namespace

void advance(Runtime* rt) {
  // Callbacks run from here may enqueue or set user events: they ask for another pass instead of
  // walking the queues while this one does.
  if (rt->advancing) {
    rt->advance_again = true;
    return;
  }
  rt->advancing = true;
  for (bool progress = true; progress;) {
    rt->advance_again = false;
    progress = false;
    // A command in one queue may wait for one in another: repeat until nothing moves.
    for (size_t i = 0; i < rt->queues.size(); ++i) {
      Queue* q = rt->queues[i];
      retain_internal(q);  // completing an event may drop the queue's last reference
      progress |= start_ready(rt, q);
      progress |= complete_front(q);
      release_internal(q);
    }
    progress |= rt->flush_held();
    progress |= rt->advance_again;
  }
  rt->advancing = false;
  if (!rt->notify_after_unlock) rt->notify_progress();
}

cl_int enqueue(Queue* q, CommandDesc desc, cl_uint n, const cl_event* waits, cl_event* event_out) {
  const cl_int err = check_wait_list(q->context, n, waits);
  if (err == CL_INVALID_EVENT_WAIT_LIST || err == CL_INVALID_CONTEXT) return err;
  if (desc.blocking && q->rt->in_callback) {
    log_once("enqueue", "a blocking command from an event callback would wait for itself; refused");
    return CL_INVALID_OPERATION;
  }
  if (desc.blocking && !q->rt->config().wait_for_user_events) {
    bool stalled = !q->commands.empty() && waits_for_user_event(q->commands.back()->event);
    for (cl_uint i = 0; i < n; ++i) stalled |= waits_for_user_event(as<Event>(waits[i], Kind::kEvent));
    if (stalled) {
      // Waiting here would block the only thread that can complete the user event.
      log_once("enqueue", "a blocking command waits behind a user event that is not complete; refused");
      return CL_INVALID_OPERATION;
    }
  }
  if (desc.blocking && err != CL_SUCCESS) return err;  // a blocking command reports a failed wait list itself
  auto c = std::make_unique<Command>();
  c->type = desc.type;
  c->queue = q;
  c->waits = held(n, waits);
  for (Object* o : desc.keep) retain_internal(o);
  c->keep = std::move(desc.keep);
  c->work = std::move(desc.work);
  c->launch = std::move(desc.launch);
  c->exact_counters = (q->properties & CL_QUEUE_PROFILING_ENABLE) || debug_enabled(kDebugGsgpu);
  // The new event's one application reference is the caller's (returned, or released below); the
  // command holds it until it completes.
  Event* e = new_event(q, desc.type);
  retain_internal(e);
  e->queued = q->rt->host_now_ns();
  e->command = c.get();
  c->event = e;
  q->commands.push_back(std::move(c));
  advance(q->rt);
  cl_int status = CL_SUCCESS;
  if (desc.blocking) {
    std::unique_lock lock(q->rt->mutex, std::adopt_lock);
    q->rt->wait_until(lock, [e] { return e->status <= 0; });
    lock.release();  // the caller's lock_guard still owns the mutex
    status = e->status < 0 ? e->status : CL_SUCCESS;
  }
  if (event_out && status == CL_SUCCESS)
    *event_out = handle_of<cl_event>(e);
  else
    release_app(e);
  return status;
}

cl_command_queue CL_API_CALL gsgpu_clCreateCommandQueue(cl_context context, cl_device_id device,
                                                        cl_command_queue_properties props, cl_int* errcode_ret) {
  return new_queue(context, device, props, errcode_ret);
}

cl_command_queue CL_API_CALL gsgpu_clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                                      const cl_queue_properties* props,
                                                                      cl_int* errcode_ret) {
  cl_command_queue_properties flags = 0;
  std::vector<cl_queue_properties> list;
  // Bounded: only CL_QUEUE_PROPERTIES is accepted (CL_QUEUE_SIZE needs an on-device queue), so a
  // real list is short.
  constexpr size_t kMaxEntries = 16;
  for (size_t i = 0; props; i += 2) {
    if (i >= kMaxEntries || (props[i] != 0 && props[i] != CL_QUEUE_PROPERTIES)) {
      set_error(errcode_ret, CL_INVALID_VALUE);
      return nullptr;
    }
    list.push_back(props[i]);
    if (props[i] == 0) break;
    list.push_back(props[i + 1]);
    flags = props[i + 1];
  }
  return new_queue(context, device, flags, errcode_ret, std::move(list));
}

cl_int CL_API_CALL gsgpu_clRetainCommandQueue(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  retain_app(q);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseCommandQueue(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  std::lock_guard lock(q->rt->mutex);
  return release_app(q);
}

cl_int CL_API_CALL gsgpu_clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param, size_t size,
                                               void* value, size_t* ret) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  switch (param) {
    case CL_QUEUE_CONTEXT: return put_value(handle_of<cl_context>(q->context), size, value, ret);
    case CL_QUEUE_DEVICE: return put_value(handle_of<cl_device_id>(q->rt->device_object), size, value, ret);
    case CL_QUEUE_REFERENCE_COUNT: return put_value(cl_uint(q->app_refs()), size, value, ret);
    case CL_QUEUE_PROPERTIES: return put_value(q->properties, size, value, ret);
    case CL_QUEUE_PROPERTIES_ARRAY: return put_array(q->properties_array, size, value, ret);
    // No device-side enqueue: the queue has no size (only device queues do), there is no default
    // device queue.
    case CL_QUEUE_SIZE: return CL_INVALID_COMMAND_QUEUE;
    case CL_QUEUE_DEVICE_DEFAULT: return put_value(cl_command_queue(nullptr), size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clFlush(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  std::lock_guard lock(q->rt->mutex);
  q->rt->flush_for_wait();
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clFinish(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  std::unique_lock lock(q->rt->mutex);
  if (!q->rt->config().wait_for_user_events && !q->commands.empty() &&
      waits_for_user_event(q->commands.back()->event)) {
    log_once("clFinish", "commands wait for a user event that is not complete; not waiting forever");
    return CL_INVALID_OPERATION;
  }
  if (q->rt->in_callback) {
    log_once("clFinish", "called from an event callback, which would wait for itself; refused");
    return CL_INVALID_OPERATION;
  }
  q->rt->wait_until(lock, [q] { return q->commands.empty(); });
  const cl_int err = q->pending_error;
  q->pending_error = CL_SUCCESS;
  return err;
}

}  // namespace gsgpu::cl
