// Sampler objects: how a kernel's read_image* addresses and filters an image. A sampler holds only
// its three properties; clSetKernelArg turns them into the value the kernel reads (kernel.cc).
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

bool valid_addressing(cl_addressing_mode mode) {
  switch (mode) {
    case CL_ADDRESS_NONE:
    case CL_ADDRESS_CLAMP_TO_EDGE:
    case CL_ADDRESS_CLAMP:
    case CL_ADDRESS_REPEAT:
    case CL_ADDRESS_MIRRORED_REPEAT: return true;
    default: return false;
  }
}

bool valid_filter(cl_filter_mode mode) { return mode == CL_FILTER_NEAREST || mode == CL_FILTER_LINEAR; }

cl_sampler create_sampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing,
                          cl_filter_mode filter, std::vector<cl_sampler_properties> properties, cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  cl_int err = CL_SUCCESS;
  if ((normalized != CL_TRUE && normalized != CL_FALSE) || !valid_addressing(addressing) || !valid_filter(filter))
    err = CL_INVALID_VALUE;
  if (err == CL_SUCCESS && !c->rt->config().image_support) {
    log_once("clCreateSampler", "images are not supported (CL_DEVICE_IMAGE_SUPPORT is false)");
    err = CL_INVALID_OPERATION;
  }
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  auto* s = make_object<Sampler>(c->rt, Kind::kSampler);
  s->context = c;
  retain_internal(c);
  s->normalized_coords = normalized;
  s->addressing_mode = addressing;
  s->filter_mode = filter;
  s->properties = std::move(properties);
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_sampler>(s);
}

}  // namespace

cl_sampler CL_API_CALL gsgpu_clCreateSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing,
                                             cl_filter_mode filter, cl_int* errcode_ret) {
  return create_sampler(context, normalized, addressing, filter, {}, errcode_ret);
}

cl_sampler CL_API_CALL gsgpu_clCreateSamplerWithProperties(cl_context context, const cl_sampler_properties* props,
                                                           cl_int* errcode_ret) {
  // The defaults the spec gives each property left out.
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> list;
  bool seen[3] = {false, false, false};
  // Each known property at most once (three pairs and the terminator are all a list can hold).
  for (size_t i = 0; props && props[i] != 0; i += 2) {
    const cl_sampler_properties name = props[i], v = props[i + 1];
    int which = name == CL_SAMPLER_NORMALIZED_COORDS ? 0 : name == CL_SAMPLER_ADDRESSING_MODE ? 1
              : name == CL_SAMPLER_FILTER_MODE      ? 2 : -1;
    if (which < 0 || seen[which] || (which == 0 && v != CL_TRUE && v != CL_FALSE)) {
      set_error(errcode_ret, as<Context>(context, Kind::kContext) ? CL_INVALID_VALUE : CL_INVALID_CONTEXT);
      return nullptr;
    }
    seen[which] = true;
    if (which == 0) normalized = cl_bool(v);
    if (which == 1) addressing = cl_addressing_mode(v);
    if (which == 2) filter = cl_filter_mode(v);
    list.insert(list.end(), {name, v});
  }
  if (props) list.push_back(0);  // CL_SAMPLER_PROPERTIES: the list as given
  return create_sampler(context, normalized, addressing, filter, std::move(list), errcode_ret);
}

cl_int CL_API_CALL gsgpu_clRetainSampler(cl_sampler sampler) {
  auto* s = as<Sampler>(sampler, Kind::kSampler);
  if (!s) return CL_INVALID_SAMPLER;
  retain_app(s);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseSampler(cl_sampler sampler) {
  auto* s = as<Sampler>(sampler, Kind::kSampler);
  if (!s) return CL_INVALID_SAMPLER;
  std::lock_guard lock(s->rt->mutex);
  return release_app(s);
}

cl_int CL_API_CALL gsgpu_clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param, size_t size, void* value,
                                          size_t* ret) {
  auto* s = as<Sampler>(sampler, Kind::kSampler);
  if (!s) return CL_INVALID_SAMPLER;
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: return put_value(cl_uint(s->app_refs()), size, value, ret);
    case CL_SAMPLER_CONTEXT: return put_value(handle_of<cl_context>(s->context), size, value, ret);
    case CL_SAMPLER_NORMALIZED_COORDS: return put_value(s->normalized_coords, size, value, ret);
    case CL_SAMPLER_ADDRESSING_MODE: return put_value(s->addressing_mode, size, value, ret);
    case CL_SAMPLER_FILTER_MODE: return put_value(s->filter_mode, size, value, ret);
    case CL_SAMPLER_PROPERTIES: return put_array(s->properties, size, value, ret);
  }
  return CL_INVALID_VALUE;
}

}  // namespace gsgpu::cl
