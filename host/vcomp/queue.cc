// Command-queue commands.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clCreateCommandQueue(const proto::Args_clCreateCommandQueue& args,
                                                 proto::Out_clCreateCommandQueue& out) {
  auto* c = lookup<ContextObject>(args.context, "context");
  if (!c) {
    out.result = CL_INVALID_CONTEXT;
    return;
  }
  auto* d = lookup<DeviceObject>(args.device, "device");
  if (!d) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (!check_new_id(args.queue, "queue")) {
    out.result = CL_INVALID_VALUE;
    return;
  }
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
  out.result = q ? api().clFinish(q->handle) : CL_INVALID_COMMAND_QUEUE;
}

void VcompContext::dispatch_clGetCommandQueueInfo(const proto::Args_clGetCommandQueueInfo& args,
                                                  proto::Out_clGetCommandQueueInfo& out) {
  auto* q = lookup<QueueObject>(args.queue, "queue");
  if (!q) {
    out.result = CL_INVALID_COMMAND_QUEUE;
    return;
  }
  if (info_is_host_pointer(args.param_name)) {
    log_field_error("param_name", "handle-valued query is answered by the guest");
    out.result = CL_INVALID_VALUE;
    return;
  }
  forward_info(
      [&](size_t size, void* value, size_t* ret) {
        return api().clGetCommandQueueInfo(q->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
