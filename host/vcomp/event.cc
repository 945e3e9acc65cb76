// Event commands: wait, status, user events, profiling.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {

void VcompContext::dispatch_clWaitForEvents(const proto::Args_clWaitForEvents& args,
                                            proto::Out_clWaitForEvents& out) {
  std::vector<cl_event> events;
  std::vector<uint64_t> waits_on_user;
  if (args.events.count == 0) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  if (!wait_list(args.events, &events, &waits_on_user)) {
    out.result = CL_INVALID_EVENT;
    return;
  }
  if (refuse_wait_on_guest(waits_on_user, &out.result)) return;  // user_events.cc
  out.result = api().clWaitForEvents(cl_uint(events.size()), events.data());
}

void VcompContext::dispatch_clGetEventInfo(const proto::Args_clGetEventInfo& args,
                                           proto::Out_clGetEventInfo& out) {
  auto* e = require<EventObject>(args.event, "event", CL_INVALID_EVENT, &out.result);
  if (!e) return;
  forward_info(
      InfoKind::kEvent, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetEventInfo(e->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clCreateUserEvent(const proto::Args_clCreateUserEvent& args,
                                              proto::Out_clCreateUserEvent& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.event, "event", &out.result)) return;
  if (unset_user_events_.size() >= kMaxUnsetUserEvents) {
    log_field_error("event", "quota of " + std::to_string(kMaxUnsetUserEvents) + " unset user events reached");
    out.result = CL_OUT_OF_RESOURCES;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_event e = api().clCreateUserEvent(c->handle, &err);
  out.result = err;
  if (err != CL_SUCCESS) return;
  auto object = std::make_unique<EventObject>(executor_, e);
  object->user_serial = ++last_user_serial_;
  const uint64_t serial = object->user_serial;
  unset_user_events_.emplace(serial, e);
  if (!bind(args.event, std::move(object), "event")) unset_user_events_.erase(serial);
}

void VcompContext::dispatch_clSetUserEventStatus(const proto::Args_clSetUserEventStatus& args,
                                                 proto::Out_clSetUserEventStatus& out) {
  auto* e = require<EventObject>(args.event, "event", CL_INVALID_EVENT, &out.result);
  if (!e) return;
  out.result = api().clSetUserEventStatus(e->handle, args.execution_status);
  if (out.result != CL_SUCCESS) return;
  unset_user_events_.erase(e->user_serial);  // waits on it may block now
  release_settled_events();
}

void VcompContext::dispatch_clGetEventProfilingInfo(const proto::Args_clGetEventProfilingInfo& args,
                                                    proto::Out_clGetEventProfilingInfo& out) {
  auto* e = require<EventObject>(args.event, "event", CL_INVALID_EVENT, &out.result);
  if (!e) return;
  forward_info(
      InfoKind::kEventProfiling, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetEventProfilingInfo(e->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
