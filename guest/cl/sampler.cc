// Samplers: created on the host, described locally.
#include "guest/cl/api.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

cl_sampler create_sampler(const char* api, cl_context context, cl_bool normalized_coords,
                          cl_addressing_mode addressing_mode, cl_filter_mode filter_mode, cl_int* errcode_ret) {
  if (!live(context)) return refuse_null<cl_sampler>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (addressing_mode < CL_ADDRESS_NONE || addressing_mode > CL_ADDRESS_MIRRORED_REPEAT)
    return refuse_null<cl_sampler>(api, "addressing_mode", CL_INVALID_VALUE, errcode_ret);
  if (filter_mode != CL_FILTER_NEAREST && filter_mode != CL_FILTER_LINEAR)
    return refuse_null<cl_sampler>(api, "filter_mode", CL_INVALID_VALUE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_sampler>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateSampler reply;
  cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateSampler(w, want, id, context->guest_id, normalized_coords ? 1 : 0, addressing_mode,
                                      filter_mode);
      },
      proto::decode_reply_clCreateSampler, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  auto* sampler = new _cl_sampler;
  sampler->guest_id = id;
  sampler->context = context;
  sampler->normalized_coords = normalized_coords ? CL_TRUE : CL_FALSE;
  sampler->addressing_mode = addressing_mode;
  sampler->filter_mode = filter_mode;
  retain_internal(context);
  registry().add(sampler);
  return sampler;
}

}  // namespace
}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_sampler gsvirt_clCreateSampler(cl_context context, cl_bool normalized_coords, cl_addressing_mode addressing_mode,
                                  cl_filter_mode filter_mode, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  trace_call("clCreateSampler");
  return create_sampler("clCreateSampler", context, normalized_coords, addressing_mode, filter_mode, errcode_ret);
}

cl_sampler gsvirt_clCreateSamplerWithProperties(cl_context context, const cl_sampler_properties* properties,
                                                cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateSamplerWithProperties";
  trace_call(api);
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> kept;
  if (properties) {
    size_t i = 0;
    for (; properties[i] != 0; i += 2) {
      switch (properties[i]) {
        case CL_SAMPLER_NORMALIZED_COORDS: normalized = cl_bool(properties[i + 1]); break;
        case CL_SAMPLER_ADDRESSING_MODE: addressing = cl_addressing_mode(properties[i + 1]); break;
        case CL_SAMPLER_FILTER_MODE: filter = cl_filter_mode(properties[i + 1]); break;
        default: return refuse_null<cl_sampler>(api, "unsupported sampler property", CL_INVALID_VALUE, errcode_ret);
      }
    }
    kept.assign(properties, properties + i + 1);
  }
  cl_sampler sampler = create_sampler(api, context, normalized, addressing, filter, errcode_ret);
  if (sampler) sampler->properties = std::move(kept);
  return sampler;
}

cl_int gsvirt_clRetainSampler(cl_sampler sampler) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainSampler");
  if (!live(sampler)) return refuse("clRetainSampler", "sampler", CL_INVALID_SAMPLER);
  retain_app(sampler);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseSampler(cl_sampler sampler) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseSampler");
  if (!live(sampler)) return refuse("clReleaseSampler", "sampler", CL_INVALID_SAMPLER);
  return release_app(sampler);
}

cl_int gsvirt_clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name, size_t param_value_size,
                               void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetSamplerInfo";
  trace_call(api);
  if (!live(sampler)) return refuse(api, "sampler", CL_INVALID_SAMPLER);
  auto value = [&](const auto& v) { return put_value(v, param_value_size, param_value, param_value_size_ret); };
  switch (param_name) {
    case CL_SAMPLER_REFERENCE_COUNT: return value(cl_uint(sampler->app_refs()));
    case CL_SAMPLER_CONTEXT: return value(sampler->context);
    case CL_SAMPLER_NORMALIZED_COORDS: return value(sampler->normalized_coords);
    case CL_SAMPLER_ADDRESSING_MODE: return value(sampler->addressing_mode);
    case CL_SAMPLER_FILTER_MODE: return value(sampler->filter_mode);
    case CL_SAMPLER_PROPERTIES:
      return put_array(sampler->properties, param_value_size, param_value, param_value_size_ret);
    default: return refuse(api, "param_name", CL_INVALID_VALUE);
  }
}
