// Command queues. Commands run to completion when they are enqueued (in order by construction),
// so flush and finish have nothing left to wait for.
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

cl_command_queue new_queue(cl_context context, cl_device_id device, cl_command_queue_properties props,
                           cl_int* errcode_ret) {
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
  constexpr cl_command_queue_properties kKnown =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (props & ~kKnown) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    set_error(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);  // valid, but this device runs in order
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  auto* q = make_object<Queue>(c->rt, Kind::kQueue);
  q->context = c;
  retain(c);
  q->properties = props;
  c->rt->queues.push_back(q);
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_command_queue>(q);
}

std::vector<Object*> retained(cl_uint n, const cl_event* events) {
  std::vector<Object*> out;
  for (cl_uint i = 0; i < n; ++i) {
    auto* e = as<Event>(events[i], Kind::kEvent);
    retain(e);
    out.push_back(e);
  }
  return out;
}

void defer(Queue* q, cl_command_type type, cl_uint n, const cl_event* waits, std::vector<Object*> keep, Work work,
           cl_event* event_out) {
  DeferredCommand d;
  d.type = type;
  d.waits = retained(n, waits);
  for (Object* o : keep) retain(o);
  d.keep = std::move(keep);
  d.work = std::move(work);
  d.event = new_event(q, type);  // the queue's reference
  d.event->queued = q->rt->host_now_ns();
  d.event->status = CL_QUEUED;
  if (event_out) {
    retain(d.event);
    *event_out = handle_of<cl_event>(d.event);
  }
  q->deferred.push_back(std::move(d));
}

// Runs the queue's front commands whose wait lists are complete; true when one ran.
bool run_ready(Queue* q) {
  bool ran = false;
  // Releasing a finished command's event may drop the last reference to the queue.
  retain(q);
  while (!q->deferred.empty()) {
    bool ready = true, failed = false;
    for (Object* w : q->deferred.front().waits) {
      const cl_int status = static_cast<Event*>(w)->status;
      ready &= status <= 0;
      failed |= status < 0;
    }
    if (!ready) break;
    DeferredCommand d = std::move(q->deferred.front());
    q->deferred.pop_front();
    uint64_t cycles = 0;
    const cl_int status = failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : d.work(&cycles);
    finish_event(d.event, status, cycles);
    for (Object* o : d.waits) release(o);
    for (Object* o : d.keep) release(o);
    release(d.event);
    ran = true;
  }
  release(q);
  return ran;
}

}  // namespace

cl_int submit(Queue* q, cl_command_type type, cl_uint n, const cl_event* waits, bool deferrable,
              std::vector<Object*> keep, Work work, cl_event* event_out) {
  bool pending = false;
  const cl_int err = check_wait_list(q->context, n, waits, &pending);
  if (err == CL_INVALID_EVENT_WAIT_LIST) return err;
  if (pending || !q->deferred.empty()) {
    if (!deferrable) {
      // Waiting here would block the only thread that can complete the user event.
      log_once("enqueue", "a blocking command waits behind a user event that is not complete; refused");
      return CL_INVALID_OPERATION;
    }
    defer(q, type, n, waits, std::move(keep), std::move(work), event_out);
    return CL_SUCCESS;
  }
  // A blocking command reports a failed wait list itself; others through their event.
  if (err != CL_SUCCESS && !deferrable) return err;
  uint64_t cycles = 0;
  const cl_int status = err != CL_SUCCESS ? err : work(&cycles);
  if (!deferrable && status < 0) return status;  // the caller waited for it: it sees the error
  complete_command(q, type, status, cycles, event_out);
  return CL_SUCCESS;
}

void run_ready_commands(Runtime* rt) {
  // A command deferred in one queue may wait for one deferred in another: repeat until stable.
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < rt->queues.size(); ++i) progress |= run_ready(rt->queues[i]);
  }
}

cl_command_queue CL_API_CALL gsgpu_clCreateCommandQueue(cl_context context, cl_device_id device,
                                                        cl_command_queue_properties props, cl_int* errcode_ret) {
  return new_queue(context, device, props, errcode_ret);
}

cl_command_queue CL_API_CALL gsgpu_clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                                      const cl_queue_properties* props,
                                                                      cl_int* errcode_ret) {
  cl_command_queue_properties flags = 0;
  for (size_t i = 0; props && i < 16 && props[i]; i += 2) {
    if (props[i] != CL_QUEUE_PROPERTIES) {
      set_error(errcode_ret, CL_INVALID_VALUE);
      return nullptr;
    }
    flags = props[i + 1];
  }
  return new_queue(context, device, flags, errcode_ret);
}

cl_int CL_API_CALL gsgpu_clRetainCommandQueue(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  retain(q);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseCommandQueue(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  std::lock_guard lock(q->rt->mutex);
  release(q);
  return CL_SUCCESS;
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
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clFlush(cl_command_queue queue) {
  return as<Queue>(queue, Kind::kQueue) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL gsgpu_clFinish(cl_command_queue queue) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  std::lock_guard lock(q->rt->mutex);
  if (!q->deferred.empty()) {
    log_once("clFinish", "commands wait for a user event that is not complete; not waiting forever");
    return CL_INVALID_OPERATION;
  }
  const cl_int err = q->pending_error;
  q->pending_error = CL_SUCCESS;
  return err;
}

}  // namespace gsgpu::cl
