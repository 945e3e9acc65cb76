// Event commands: wait, status, user events, profiling.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clWaitForEvents(const proto::Args_clWaitForEvents& args,
                                            proto::Out_clWaitForEvents& out) {
  std::vector<cl_event> events;
  if (args.events.count == 0) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  if (!wait_list(args.events, &events)) {
    out.result = CL_INVALID_EVENT;
    return;
  }
  out.result = api().clWaitForEvents(cl_uint(events.size()), events.data());
}

void VcompContext::dispatch_clGetEventInfo(const proto::Args_clGetEventInfo& args,
                                           proto::Out_clGetEventInfo& out) {
  auto* e = lookup<EventObject>(args.event, "event");
  if (!e) {
    out.result = CL_INVALID_EVENT;
    return;
  }
  if (info_is_host_pointer(args.param_name)) {
    log_field_error("param_name", "handle-valued query is answered by the guest");
    out.result = CL_INVALID_VALUE;
    return;
  }
  forward_info(
      [&](size_t size, void* value, size_t* ret) {
        return api().clGetEventInfo(e->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clCreateUserEvent(const proto::Args_clCreateUserEvent& args,
                                              proto::Out_clCreateUserEvent& out) {
  auto* c = lookup<ContextObject>(args.context, "context");
  if (!c) {
    out.result = CL_INVALID_CONTEXT;
    return;
  }
  if (!check_new_id(args.event, "event")) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_event e = api().clCreateUserEvent(c->handle, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.event, std::make_unique<EventObject>(executor_, e), "event");
}

void VcompContext::dispatch_clSetUserEventStatus(const proto::Args_clSetUserEventStatus& args,
                                                 proto::Out_clSetUserEventStatus& out) {
  auto* e = lookup<EventObject>(args.event, "event");
  if (!e) {
    out.result = CL_INVALID_EVENT;
    return;
  }
  out.result = api().clSetUserEventStatus(e->handle, args.execution_status);
}

void VcompContext::dispatch_clGetEventProfilingInfo(const proto::Args_clGetEventProfilingInfo& args,
                                                    proto::Out_clGetEventProfilingInfo& out) {
  auto* e = lookup<EventObject>(args.event, "event");
  if (!e) {
    out.result = CL_INVALID_EVENT;
    return;
  }
  forward_info(
      [&](size_t size, void* value, size_t* ret) {
        return api().clGetEventProfilingInfo(e->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
