// Command queues. Commands run to completion when they are enqueued (in order by construction),
// so flush and finish have nothing left to wait for.
#include "host/vcomp/gsgpu_executor/entry_points.h"

namespace gsvirt::vcomp::gsgpu_exec {
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
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_command_queue>(q);
}

}  // namespace

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
    case CL_QUEUE_REFERENCE_COUNT: return put_value(cl_uint(q->refs.load()), size, value, ret);
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
  const cl_int err = q->pending_error;
  q->pending_error = CL_SUCCESS;
  return err;
}

}  // namespace gsvirt::vcomp::gsgpu_exec
