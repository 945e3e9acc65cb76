// Contexts: the one device of the gsgpu platform, with optional properties.
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

using Notify = void(CL_CALLBACK*)(const char*, const void*, size_t, void*);

// Checks a property list; only CL_CONTEXT_PLATFORM (ours) and CL_CONTEXT_INTEROP_USER_SYNC are known.
cl_int check_properties(Runtime* rt, const cl_context_properties* props, std::vector<cl_context_properties>* out) {
  out->clear();
  if (!props) return CL_SUCCESS;
  // Bounded: a list longer than this is not a real property list.
  for (size_t i = 0; i < 64; i += 2) {
    if (props[i] == 0) {
      out->push_back(0);
      return CL_SUCCESS;
    }
    const cl_context_properties key = props[i], v = props[i + 1];
    if (key == CL_CONTEXT_PLATFORM) {
      if (reinterpret_cast<Platform*>(v) != rt->platform) return CL_INVALID_PLATFORM;
    } else if (key != CL_CONTEXT_INTEROP_USER_SYNC) {
      return CL_INVALID_PROPERTY;
    }
    for (size_t j = 0; j < i; j += 2)
      if ((*out)[j] == key) return CL_INVALID_PROPERTY;  // the spec: a property given twice
    out->push_back(key);
    out->push_back(v);
  }
  return CL_INVALID_PROPERTY;
}

cl_context new_context(Runtime* rt, const cl_context_properties* props, Notify notify, void* data,
                       cl_int* errcode_ret) {
  std::vector<cl_context_properties> list;
  cl_int err = check_properties(rt, props, &list);
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  auto* c = make_object<Context>(rt, Kind::kContext);
  c->properties = std::move(list);
  c->notify = notify;
  c->notify_data = data;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_context>(c);
}

// The runtime a property list names, or the one runtime of the process when it names none.
Runtime* runtime_of(const cl_context_properties* props) {
  for (size_t i = 0; props && i < 64 && props[i]; i += 2)
    if (props[i] == CL_CONTEXT_PLATFORM) {
      auto* p = as<Platform>(reinterpret_cast<void*>(props[i + 1]), Kind::kPlatform);
      return p ? p->rt : nullptr;
    }
  return nullptr;
}

}  // namespace

cl_context CL_API_CALL gsgpu_clCreateContext(const cl_context_properties* props, cl_uint n,
                                             const cl_device_id* devices, Notify notify, void* data,
                                             cl_int* errcode_ret) {
  if (n == 0 || !devices || (!notify && data)) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  Runtime* rt = nullptr;
  for (cl_uint i = 0; i < n; ++i) {
    auto* d = as<Device>(devices[i], Kind::kDevice);
    if (!d || (rt && d->rt != rt)) {
      set_error(errcode_ret, CL_INVALID_DEVICE);
      return nullptr;
    }
    rt = d->rt;
  }
  std::lock_guard lock(rt->mutex);
  return new_context(rt, props, notify, data, errcode_ret);
}

cl_context CL_API_CALL gsgpu_clCreateContextFromType(const cl_context_properties* props, cl_device_type type,
                                                     Notify notify, void* data, cl_int* errcode_ret) {
  Runtime* rt = runtime_of(props);
  if (!rt) {
    // Without CL_CONTEXT_PLATFORM there is no way to tell which executor instance is meant.
    set_error(errcode_ret, CL_INVALID_PLATFORM);
    return nullptr;
  }
  cl_device_id device = nullptr;
  cl_int err = gsgpu_clGetDeviceIDs(handle_of<cl_platform_id>(rt->platform), type, 1, &device, nullptr);
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  return gsgpu_clCreateContext(props, 1, &device, notify, data, errcode_ret);
}

cl_int CL_API_CALL gsgpu_clRetainContext(cl_context context) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) return CL_INVALID_CONTEXT;
  retain_app(c);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseContext(cl_context context) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) return CL_INVALID_CONTEXT;
  std::lock_guard lock(c->rt->mutex);
  return release_app(c);
}

cl_int CL_API_CALL gsgpu_clSetContextDestructorCallback(cl_context context, void(CL_CALLBACK* fn)(cl_context, void*),
                                                        void* data) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) return CL_INVALID_CONTEXT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard lock(c->rt->mutex);
  c->destructors.emplace_back(fn, data);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clGetContextInfo(cl_context context, cl_context_info param, size_t size, void* value,
                                          size_t* ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) return CL_INVALID_CONTEXT;
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return put_value(cl_uint(c->app_refs()), size, value, ret);
    case CL_CONTEXT_NUM_DEVICES: return put_value(cl_uint(1), size, value, ret);
    case CL_CONTEXT_DEVICES: return put_value(handle_of<cl_device_id>(c->rt->device_object), size, value, ret);
    case CL_CONTEXT_PROPERTIES:
      return put_info(c->properties.data(), c->properties.size() * sizeof(cl_context_properties), size, value,
                      ret);
  }
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
