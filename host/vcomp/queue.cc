// Command-queue commands.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clCreateCommandQueue(const proto::Args_clCreateCommandQueue& args,
                                                 proto::Out_clCreateCommandQueue& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
  if (!d) return;
  if (!check_new_id(args.queue, "queue", &out.result)) return;
  cl_int err = CL_SUCCESS;
  cl_command_queue q = api().clCreateCommandQueue(c->handle, d->handle, args.properties, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.queue, std::make_unique<QueueObject>(executor_, q), "queue");
}

void VcompContext::dispatch_clFlush(const proto::Args_clFlush& args, proto::Out_clFlush& out) {
  auto* q = lookup<QueueObject>(args.queue, "queue");
  out.result = q ? api().clFlush(q->handle) : CL_INVALID_COMMAND_QUEUE;
}

void VcompContext::dispatch_clFinish(const proto::Args_clFinish& args, proto::Out_clFinish& out) {
  auto* q = lookup<QueueObject>(args.queue, "queue");
  if (!q) {
    out.result = CL_INVALID_COMMAND_QUEUE;
    return;
  }
  if (refuse_wait_on_guest(q->waits_on_user, &out.result)) return;  // user_events.cc
  out.result = api().clFinish(q->handle);
}

void VcompContext::dispatch_clGetCommandQueueInfo(const proto::Args_clGetCommandQueueInfo& args,
                                                  proto::Out_clGetCommandQueueInfo& out) {
  auto* q = require<QueueObject>(args.queue, "queue", CL_INVALID_COMMAND_QUEUE, &out.result);
  if (!q) return;
  forward_info(
      InfoKind::kQueue, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetCommandQueueInfo(q->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
