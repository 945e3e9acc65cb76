// Command queues: created on the host; info and reference counts local; flush/finish report the
// deferred errors of batched commands.
#include <algorithm>

#include "guest/cl/api.h"
#include "guest/cl/deferred_reads.h"
#include "guest/cl/event.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"
#include "guest/cl/user_waits.h"

namespace gsvirt::icd {
namespace {

cl_command_queue create_queue(const char* api, cl_context context, cl_device_id device,
                              cl_command_queue_properties properties, cl_int* errcode_ret) {
  if (!live(context)) return refuse_null<cl_command_queue>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (!live(device) || std::find(context->devices.begin(), context->devices.end(), device) == context->devices.end())
    return refuse_null<cl_command_queue>(api, "device is not in the context", CL_INVALID_DEVICE, errcode_ret);
  constexpr cl_command_queue_properties kKnown =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (properties & ~kKnown) return refuse_null<cl_command_queue>(api, "properties", CL_INVALID_VALUE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_command_queue>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateCommandQueue reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateCommandQueue(w, want, id, context->guest_id, device->guest_id, properties);
      },
      proto::decode_reply_clCreateCommandQueue, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  auto* queue = new _cl_command_queue;
  queue->guest_id = id;
  queue->context = context;
  queue->device = device;
  queue->properties = properties;
  retain_internal(context);
  registry().add(queue);
  return queue;
}

// Sends the batch and waits for `queue` to drain (clFinish on the host), first waiting here,
// without the ICD lock, until every user event its commands may wait for is set.
cl_int finish_queue(const char* api, cl_command_queue queue) {
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  retain_internal(queue);  // the app may release it on another thread while this one waits
  cl_int err = wait_for_user_events(api, [queue] {
    UserWaits waits = queue->waits_on_user;  // other threads may enqueue more meanwhile
    prune_user_waits(&waits);
    return waits;
  });
  release_internal(queue);
  if (err != CL_SUCCESS) return err;
  proto::Reply_clFinish reply;
  err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clFinish(w, want, queue->guest_id); },
      proto::decode_reply_clFinish, &reply);
  if (err == CL_SUCCESS) complete_queue_events(queue);
  cl_int deferred = connection->take_deferred_error();
  return err != CL_SUCCESS ? err : deferred;
}

}  // namespace
}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_command_queue gsvirt_clCreateCommandQueue(cl_context context, cl_device_id device,
                                             cl_command_queue_properties properties, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateCommandQueue");
  return create_queue("clCreateCommandQueue", context, device, properties, errcode_ret);
}

cl_command_queue gsvirt_clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                           const cl_queue_properties* properties,
                                                           cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateCommandQueueWithProperties";
  trace_call(api);
  // OpenCL 2.0 spelling of clCreateCommandQueue: only CL_QUEUE_PROPERTIES maps onto 1.2.
  cl_command_queue_properties flags = 0;
  std::vector<cl_queue_properties> kept;
  if (properties) {
    size_t i = 0;
    for (; properties[i] != 0; i += 2) {
      if (properties[i] == CL_QUEUE_PROPERTIES) {
        flags = cl_command_queue_properties(properties[i + 1]);
        if (flags & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT))
          return refuse_null<cl_command_queue>(api, "on-device queues", CL_INVALID_QUEUE_PROPERTIES, errcode_ret);
      } else {
        return refuse_null<cl_command_queue>(api, "unsupported queue property", CL_INVALID_VALUE, errcode_ret);
      }
    }
    kept.assign(properties, properties + i + 1);
  }
  cl_command_queue queue = create_queue(api, context, device, flags, errcode_ret);
  if (queue) queue->properties_array = std::move(kept);
  return queue;
}

cl_int gsvirt_clRetainCommandQueue(cl_command_queue queue) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainCommandQueue");
  if (!live(queue)) return refuse("clRetainCommandQueue", "command_queue", CL_INVALID_COMMAND_QUEUE);
  retain_app(queue);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseCommandQueue(cl_command_queue queue) {
  IcdLock lock(icd_mutex());
  const char* api = "clReleaseCommandQueue";
  trace_call(api);
  if (!live(queue)) return refuse(api, "command_queue", CL_INVALID_COMMAND_QUEUE);
  // The last release flushes; when events wait for callbacks or reads for their bytes, finish so that
  // they run (unless the queue waits for a user event nobody has set: then they cannot run, and
  // waiting would not end).
  bool undelivered = !queue->events_with_callbacks.empty() || has_undelivered_reads(queue);
  if (queue->app_refs() == 1 && undelivered && !any_unset(queue->waits_on_user))
    finish_queue(api, queue);
  return release_app(queue);
}

cl_int gsvirt_clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info param_name,
                                    size_t param_value_size, void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetCommandQueueInfo";
  trace_call(api);
  if (!live(queue)) return refuse(api, "command_queue", CL_INVALID_COMMAND_QUEUE);
  switch (param_name) {
    case CL_QUEUE_CONTEXT:
      return put_value(queue->context, param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_DEVICE:
      return put_value(queue->device, param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_REFERENCE_COUNT:
      return put_value(cl_uint(queue->app_refs()), param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_PROPERTIES:
      return put_value(queue->properties, param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_PROPERTIES_ARRAY:
      return put_array(queue->properties_array, param_value_size, param_value, param_value_size_ret);
    case CL_QUEUE_DEVICE_DEFAULT:
      return put_value(cl_command_queue(nullptr), param_value_size, param_value, param_value_size_ret);
    default:
      return forward_info(
          api, param_value_size, param_value, param_value_size_ret,
          [&](WireWriter& w, bool want, const proto::DataOut& out) {
            proto::encode_clGetCommandQueueInfo(w, want, queue->guest_id, param_name, out);
          },
          proto::decode_reply_clGetCommandQueueInfo);
  }
}

cl_int gsvirt_clFlush(cl_command_queue queue) {
  IcdLock lock(icd_mutex());
  const char* api = "clFlush";
  trace_call(api);
  if (!live(queue)) return refuse(api, "command_queue", CL_INVALID_COMMAND_QUEUE);
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  proto::Reply_clFlush reply;
  cl_int err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clFlush(w, want, queue->guest_id); },
      proto::decode_reply_clFlush, &reply);
  cl_int deferred = connection->take_deferred_error();
  return err != CL_SUCCESS ? err : deferred;
}

cl_int gsvirt_clFinish(cl_command_queue queue) {
  IcdLock lock(icd_mutex());
  trace_call("clFinish");
  if (!live(queue)) return refuse("clFinish", "command_queue", CL_INVALID_COMMAND_QUEUE);
  return finish_queue("clFinish", queue);
}
