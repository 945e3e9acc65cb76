// Contexts: created on the host with our platform translated away; everything else is local.
#include <algorithm>

#include "guest/cl/api.h"
#include "guest/cl/device.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

using NotifyFn = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);

// Checks the property list and produces the one the host gets: CL_CONTEXT_PLATFORM names our
// platform here, so it travels with value 0 and the host substitutes its own platform.
cl_int translate_context_properties(const char* api, const cl_context_properties* properties,
                                    std::vector<cl_context_properties>* kept, std::vector<uint64_t>* wire) {
  if (!properties) return CL_SUCCESS;
  bool seen_platform = false, seen_sync = false;
  size_t i = 0;
  for (; properties[i] != 0; i += 2) {
    cl_context_properties name = properties[i], value = properties[i + 1];
    if (name == CL_CONTEXT_PLATFORM) {
      if (seen_platform) return refuse(api, "CL_CONTEXT_PLATFORM given twice", CL_INVALID_PROPERTY);
      seen_platform = true;
      if (reinterpret_cast<cl_platform_id>(value) != the_platform())
        return refuse(api, "CL_CONTEXT_PLATFORM is not the gsvirt platform", CL_INVALID_PLATFORM);
      value = 0;
    } else if (name == CL_CONTEXT_INTEROP_USER_SYNC) {
      if (seen_sync) return refuse(api, "CL_CONTEXT_INTEROP_USER_SYNC given twice", CL_INVALID_PROPERTY);
      seen_sync = true;
    } else {
      return refuse(api, "unsupported context property", CL_INVALID_PROPERTY);
    }
    wire->push_back(uint64_t(name));
    wire->push_back(uint64_t(value));
  }
  wire->push_back(0);
  kept->assign(properties, properties + i + 1);
  return CL_SUCCESS;
}

cl_context create_context(const char* api, const cl_context_properties* properties,
                          const std::vector<cl_device_id>& devices, NotifyFn pfn_notify, void* user_data,
                          cl_int* errcode_ret) {
  if (!pfn_notify && user_data) return refuse_null<cl_context>(api, "user_data without pfn_notify", CL_INVALID_VALUE, errcode_ret);
  std::vector<cl_context_properties> kept;
  std::vector<uint64_t> wire_properties;
  cl_int err = translate_context_properties(api, properties, &kept, &wire_properties);
  if (err != CL_SUCCESS) return refuse_null<cl_context>(api, "properties", err, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_context>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  std::vector<uint64_t> device_ids;
  for (cl_device_id device : devices) device_ids.push_back(device->guest_id);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateContext reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateContext(w, want, id, wire_properties.empty() ? nullptr : wire_properties.data(),
                                      wire_properties.size(), device_ids.data(), device_ids.size());
      },
      proto::decode_reply_clCreateContext, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  auto* context = new _cl_context;
  context->guest_id = id;
  context->devices = devices;
  context->properties = std::move(kept);
  context->pfn_notify = pfn_notify;
  context->notify_user_data = user_data;
  registry().add(context);
  return context;
}

}  // namespace
}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_context gsvirt_clCreateContext(const cl_context_properties* properties, cl_uint num_devices,
                                  const cl_device_id* devices, NotifyFn pfn_notify, void* user_data,
                                  cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateContext";
  trace_call(api);
  if (!devices || num_devices == 0) return refuse_null<cl_context>(api, "devices is NULL or num_devices is 0", CL_INVALID_VALUE, errcode_ret);
  std::vector<cl_device_id> list;
  for (cl_uint i = 0; i < num_devices; ++i) {
    if (!live(devices[i])) return refuse_null<cl_context>(api, "devices holds an invalid device", CL_INVALID_DEVICE, errcode_ret);
    list.push_back(devices[i]);
  }
  return create_context(api, properties, list, pfn_notify, user_data, errcode_ret);
}

cl_context gsvirt_clCreateContextFromType(const cl_context_properties* properties, cl_device_type device_type,
                                          NotifyFn pfn_notify, void* user_data, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateContextFromType";
  trace_call(api);
  cl_int err = CL_SUCCESS;
  const auto* all = host_devices(api, &err);
  if (!all) return refuse_null<cl_context>(api, "no host devices", CL_DEVICE_NOT_FOUND, errcode_ret);
  auto matching = filter_devices(*all, device_type);
  if (matching.empty()) return refuse_null<cl_context>(api, "no device of that type", CL_DEVICE_NOT_FOUND, errcode_ret);
  return create_context(api, properties, matching, pfn_notify, user_data, errcode_ret);
}

cl_int gsvirt_clRetainContext(cl_context context) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainContext");
  if (!live(context)) return refuse("clRetainContext", "context", CL_INVALID_CONTEXT);
  retain_app(context);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseContext(cl_context context) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseContext");
  if (!live(context)) return refuse("clReleaseContext", "context", CL_INVALID_CONTEXT);
  return release_app(context);
}

cl_int gsvirt_clGetContextInfo(cl_context context, cl_context_info param_name, size_t param_value_size,
                               void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetContextInfo";
  trace_call(api);
  if (!live(context)) return refuse(api, "context", CL_INVALID_CONTEXT);
  switch (param_name) {
    case CL_CONTEXT_REFERENCE_COUNT:
      return put_value(cl_uint(context->app_refs()), param_value_size, param_value, param_value_size_ret);
    case CL_CONTEXT_NUM_DEVICES:
      return put_value(cl_uint(context->devices.size()), param_value_size, param_value, param_value_size_ret);
    case CL_CONTEXT_DEVICES:
      return put_array(context->devices, param_value_size, param_value, param_value_size_ret);
    case CL_CONTEXT_PROPERTIES:
      return put_array(context->properties, param_value_size, param_value, param_value_size_ret);
    default:
      return refuse(api, "param_name", CL_INVALID_VALUE);
  }
}

cl_int gsvirt_clSetContextDestructorCallback(cl_context context, void(CL_CALLBACK* pfn_notify)(cl_context, void*),
                                             void* user_data) {
  IcdLock lock(icd_mutex());
  const char* api = "clSetContextDestructorCallback";
  trace_call(api);
  if (!live(context)) return refuse(api, "context", CL_INVALID_CONTEXT);
  if (!pfn_notify) return refuse(api, "pfn_notify is NULL", CL_INVALID_VALUE);
  context->destructor_callbacks.push_back({pfn_notify, user_data});
  return CL_SUCCESS;
}
