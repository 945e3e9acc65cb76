// Programs: sources, binaries and IL go to the host; builds run there synchronously and the
// app's callback is invoked once the call returns.
#include "guest/cl/program.h"

#include <algorithm>
#include <cstring>

#include "guest/cl/api.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"
#include "common/cl/program_includes.h"

namespace gsvirt::icd {
namespace {

using BuildCallback = void(CL_CALLBACK*)(cl_program, void*);

// Resolves the program's includes on this machine (program_includes.h): *host_options loses the
// -I words, and when the source includes files found here the host gets a new program of the
// inlined source in place of the old one.
cl_int resolve_includes(const char* api, cl_program program, const char* options, std::string* host_options) {
  std::vector<std::string> dirs;
  *host_options = cl::take_include_dirs(options ? options : "", &dirs);
  if (!program->has_source) return CL_SUCCESS;
  bool changed = false;
  const std::string text = cl::inline_includes(program->source, dirs, cl::define_options(options ? options : ""), &changed);
  if (!changed) return CL_SUCCESS;
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  const uint64_t id = connection->allocate_id();
  proto::Reply_clCreateProgramWithSource reply;
  const cl_int err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateProgramWithSource(w, want, id, program->context->guest_id, text);
      },
      proto::decode_reply_clCreateProgramWithSource, &reply);
  if (err != CL_SUCCESS) return err;
  const uint64_t old_id = program->guest_id;
  connection->send_batched("vcDestroyObject",
                           [old_id](WireWriter& w, bool want) { proto::encode_vcDestroyObject(w, want, old_id); });
  program->guest_id = id;
  return CL_SUCCESS;
}

cl_program new_program(cl_context context, uint64_t id, std::vector<cl_device_id> devices) {
  auto* program = new _cl_program;
  program->guest_id = id;
  program->context = context;
  program->devices = std::move(devices);
  retain_internal(context);
  registry().add(program);
  return program;
}

// Checks an optional device list against `allowed` and returns their ids (empty: all).
cl_int collect_device_ids(const char* api, cl_uint num_devices, const cl_device_id* device_list,
                          const std::vector<cl_device_id>& allowed, std::vector<uint64_t>* ids,
                          std::vector<cl_device_id>* devices) {
  if ((num_devices == 0) != (device_list == nullptr)) return refuse(api, "num_devices and device_list disagree", CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_devices; ++i) {
    if (!live(device_list[i]) || std::find(allowed.begin(), allowed.end(), device_list[i]) == allowed.end())
      return refuse(api, "device_list holds a device outside the context/program", CL_INVALID_DEVICE);
    ids->push_back(device_list[i]->guest_id);
    if (devices) devices->push_back(device_list[i]);
  }
  return CL_SUCCESS;
}

cl_int collect_program_ids(const char* api, cl_uint count, const cl_program* programs, std::vector<uint64_t>* ids) {
  if ((count == 0) != (programs == nullptr)) return refuse(api, "program count and list disagree", CL_INVALID_VALUE);
  for (cl_uint i = 0; i < count; ++i) {
    if (!live(programs[i])) return refuse(api, "program list holds an invalid program", CL_INVALID_PROGRAM);
    ids->push_back(programs[i]->guest_id);
  }
  return CL_SUCCESS;
}

template <class Reply>
cl_int forward_program_info(const char* api, cl_program program, cl_program_info param_name, size_t value_size,
                            void* value, size_t* size_ret) {
  return forward_info(
      api, value_size, value, size_ret,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetProgramInfo(w, want, program->guest_id, param_name, out);
      },
      proto::decode_reply_clGetProgramInfo);
}

// CL_PROGRAM_BINARIES: one vcGetProgramBinary per device whose pointer the app supplied.
cl_int get_program_binaries(const char* api, cl_program program, size_t value_size, void* value, size_t* size_ret) {
  size_t n = program->devices.size();
  size_t bytes = n * sizeof(unsigned char*);
  if (size_ret) *size_ret = bytes;
  if (!value) return CL_SUCCESS;
  if (value_size < bytes) return refuse(api, "param_value_size too small for CL_PROGRAM_BINARIES", CL_INVALID_VALUE);
  std::vector<size_t> sizes(n);
  cl_int err = forward_program_info<proto::Reply_clGetProgramInfo>(api, program, CL_PROGRAM_BINARY_SIZES,
                                                                    n * sizeof(size_t), sizes.data(), nullptr);
  if (err != CL_SUCCESS) return err;
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  auto** binaries = static_cast<unsigned char**>(value);
  for (size_t i = 0; i < n; ++i) {
    if (!binaries[i] || sizes[i] == 0) continue;
    proto::DataOut out;
    err = connection->data_out(sizes[i], &out);
    if (err != CL_SUCCESS) return err;
    proto::Reply_vcGetProgramBinary reply;
    err = connection->call(
        "vcGetProgramBinary",
        [&](WireWriter& w, bool want) { proto::encode_vcGetProgramBinary(w, want, program->guest_id, uint32_t(i), out); },
        proto::decode_reply_vcGetProgramBinary, &reply);
    if (err != CL_SUCCESS) return err;
    connection->copy_data_out(out, reply.binary, reply.binary_size, binaries[i], std::min<uint64_t>(sizes[i], reply.size_ret));
  }
  return CL_SUCCESS;
}

}  // namespace

std::string concatenate_source(cl_uint count, const char** strings, const size_t* lengths) {
  std::string source;
  for (cl_uint i = 0; i < count; ++i) {
    size_t length = lengths && lengths[i] ? lengths[i] : std::strlen(strings[i]);
    source.append(strings[i], length);
  }
  return source;
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_program gsvirt_clCreateProgramWithSource(cl_context context, cl_uint count, const char** strings,
                                            const size_t* lengths, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateProgramWithSource";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_program>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (count == 0 || !strings) return refuse_null<cl_program>(api, "count is 0 or strings is NULL", CL_INVALID_VALUE, errcode_ret);
  for (cl_uint i = 0; i < count; ++i)
    if (!strings[i]) return refuse_null<cl_program>(api, "strings holds a NULL string", CL_INVALID_VALUE, errcode_ret);
  std::string source = concatenate_source(count, strings, lengths);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_program>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateProgramWithSource reply;
  cl_int err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clCreateProgramWithSource(w, want, id, context->guest_id, source); },
      proto::decode_reply_clCreateProgramWithSource, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  cl_program program = new_program(context, id, context->devices);
  program->has_source = true;
  program->source = std::move(source);
  return program;
}

cl_program gsvirt_clCreateProgramWithBinary(cl_context context, cl_uint num_devices, const cl_device_id* device_list,
                                            const size_t* lengths, const unsigned char** binaries,
                                            cl_int* binary_status, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateProgramWithBinary";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_program>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (num_devices == 0 || !device_list) return refuse_null<cl_program>(api, "device_list", CL_INVALID_VALUE, errcode_ret);
  if (!lengths || !binaries) return refuse_null<cl_program>(api, "lengths or binaries is NULL", CL_INVALID_VALUE, errcode_ret);
  std::vector<uint64_t> device_ids;
  std::vector<cl_device_id> devices;
  cl_int err = collect_device_ids(api, num_devices, device_list, context->devices, &device_ids, &devices);
  if (err != CL_SUCCESS) return refuse_null<cl_program>(api, "device_list", err, errcode_ret);
  std::vector<proto::ByteSpan> spans(num_devices);
  for (cl_uint i = 0; i < num_devices; ++i) {
    if (!binaries[i] || lengths[i] == 0) {
      if (binary_status) binary_status[i] = CL_INVALID_VALUE;
      return refuse_null<cl_program>(api, "a binary is NULL or empty", CL_INVALID_VALUE, errcode_ret);
    }
    spans[i] = {binaries[i], lengths[i]};
  }
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_program>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateProgramWithBinary reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateProgramWithBinary(w, want, id, context->guest_id, device_ids.data(), device_ids.size(),
                                                spans.data(), spans.size(), num_devices);
      },
      proto::decode_reply_clCreateProgramWithBinary, &reply);
  if (binary_status)
    for (size_t i = 0; i < num_devices && i < reply.binary_status.size(); ++i) binary_status[i] = cl_int(reply.binary_status[i]);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  return new_program(context, id, std::move(devices));
}

cl_program gsvirt_clCreateProgramWithIL(cl_context context, const void* il, size_t length, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateProgramWithIL";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_program>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (!il || length == 0) return refuse_null<cl_program>(api, "il is NULL or length is 0", CL_INVALID_VALUE, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_program>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateProgramWithIL reply;
  cl_int err = connection->call(
      api, [&](WireWriter& w, bool want) { proto::encode_clCreateProgramWithIL(w, want, id, context->guest_id, il, length); },
      proto::decode_reply_clCreateProgramWithIL, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  return new_program(context, id, context->devices);
}

cl_program gsvirt_clCreateProgramWithBuiltInKernels(cl_context context, cl_uint num_devices,
                                                    const cl_device_id* device_list, const char* kernel_names,
                                                    cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clCreateProgramWithBuiltInKernels";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_program>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (num_devices == 0 || !device_list || !kernel_names)
    return refuse_null<cl_program>(api, "device_list or kernel_names", CL_INVALID_VALUE, errcode_ret);
  std::vector<uint64_t> device_ids;
  std::vector<cl_device_id> devices;
  cl_int err = collect_device_ids(api, num_devices, device_list, context->devices, &device_ids, &devices);
  if (err != CL_SUCCESS) return refuse_null<cl_program>(api, "device_list", err, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_program>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clCreateProgramWithBuiltInKernels reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCreateProgramWithBuiltInKernels(w, want, id, context->guest_id, device_ids.data(),
                                                        device_ids.size(), kernel_names);
      },
      proto::decode_reply_clCreateProgramWithBuiltInKernels, &reply);
  if (errcode_ret) *errcode_ret = err;
  if (err != CL_SUCCESS) return nullptr;
  return new_program(context, id, std::move(devices));
}

cl_int gsvirt_clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                             const char* options, BuildCallback pfn_notify, void* user_data) {
  IcdLock lock(icd_mutex());
  const char* api = "clBuildProgram";
  trace_call(api);
  if (!live(program)) return refuse(api, "program", CL_INVALID_PROGRAM);
  if (!pfn_notify && user_data) return refuse(api, "user_data without pfn_notify", CL_INVALID_VALUE);
  std::vector<uint64_t> device_ids;
  cl_int err = collect_device_ids(api, num_devices, device_list, program->devices, &device_ids, nullptr);
  if (err != CL_SUCCESS) return err;
  std::string host_options;
  err = resolve_includes(api, program, options, &host_options);
  if (err != CL_SUCCESS) return err;
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  proto::Reply_clBuildProgram reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clBuildProgram(w, want, program->guest_id, device_ids.empty() ? nullptr : device_ids.data(),
                                     device_ids.size(), host_options);
      },
      proto::decode_reply_clBuildProgram, &reply);
  if (pfn_notify) pfn_notify(program, user_data);  // the build is complete when the call returns
  return err;
}

cl_int gsvirt_clCompileProgram(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                               const char* options, cl_uint num_input_headers, const cl_program* input_headers,
                               const char** header_include_names, BuildCallback pfn_notify, void* user_data) {
  IcdLock lock(icd_mutex());
  const char* api = "clCompileProgram";
  trace_call(api);
  if (!live(program)) return refuse(api, "program", CL_INVALID_PROGRAM);
  if (!pfn_notify && user_data) return refuse(api, "user_data without pfn_notify", CL_INVALID_VALUE);
  std::vector<uint64_t> device_ids, header_ids;
  cl_int err = collect_device_ids(api, num_devices, device_list, program->devices, &device_ids, nullptr);
  if (err != CL_SUCCESS) return err;
  err = collect_program_ids(api, num_input_headers, input_headers, &header_ids);
  if (err != CL_SUCCESS) return err;
  if (num_input_headers && !header_include_names) return refuse(api, "header_include_names is NULL", CL_INVALID_VALUE);
  std::vector<std::string_view> names;
  for (cl_uint i = 0; i < num_input_headers; ++i) {
    if (!header_include_names[i]) return refuse(api, "header_include_names holds NULL", CL_INVALID_VALUE);
    names.emplace_back(header_include_names[i]);
  }
  std::string host_options;
  err = resolve_includes(api, program, options, &host_options);
  if (err != CL_SUCCESS) return err;
  Connection* connection = connection_for(api);
  if (!connection) return CL_OUT_OF_RESOURCES;
  proto::Reply_clCompileProgram reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clCompileProgram(w, want, program->guest_id, device_ids.empty() ? nullptr : device_ids.data(),
                                       device_ids.size(), host_options,
                                       header_ids.empty() ? nullptr : header_ids.data(), header_ids.size(),
                                       names.empty() ? nullptr : names.data(), names.size());
      },
      proto::decode_reply_clCompileProgram, &reply);
  if (pfn_notify) pfn_notify(program, user_data);
  return err;
}

cl_program gsvirt_clLinkProgram(cl_context context, cl_uint num_devices, const cl_device_id* device_list,
                                const char* options, cl_uint num_input_programs, const cl_program* input_programs,
                                BuildCallback pfn_notify, void* user_data, cl_int* errcode_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clLinkProgram";
  trace_call(api);
  if (!live(context)) return refuse_null<cl_program>(api, "context", CL_INVALID_CONTEXT, errcode_ret);
  if (!pfn_notify && user_data) return refuse_null<cl_program>(api, "user_data without pfn_notify", CL_INVALID_VALUE, errcode_ret);
  if (num_input_programs == 0 || !input_programs)
    return refuse_null<cl_program>(api, "no input programs", CL_INVALID_VALUE, errcode_ret);
  std::vector<uint64_t> device_ids, program_ids;
  std::vector<cl_device_id> devices;
  cl_int err = collect_device_ids(api, num_devices, device_list, context->devices, &device_ids, &devices);
  if (err == CL_SUCCESS) err = collect_program_ids(api, num_input_programs, input_programs, &program_ids);
  if (err != CL_SUCCESS) return refuse_null<cl_program>(api, "arguments", err, errcode_ret);
  Connection* connection = connection_for(api);
  if (!connection) return refuse_null<cl_program>(api, "no host connection", CL_OUT_OF_RESOURCES, errcode_ret);
  uint64_t id = connection->allocate_id();
  proto::Reply_clLinkProgram reply;
  err = connection->call(
      api,
      [&](WireWriter& w, bool want) {
        proto::encode_clLinkProgram(w, want, id, context->guest_id, device_ids.empty() ? nullptr : device_ids.data(),
                                    device_ids.size(), options ? options : "", program_ids.data(), program_ids.size());
      },
      proto::decode_reply_clLinkProgram, &reply);
  if (errcode_ret) *errcode_ret = err;
  // A failed link still yields a program object (to read its build log) when linking began.
  cl_program program = nullptr;
  if (err == CL_SUCCESS || err == CL_LINK_PROGRAM_FAILURE)
    program = new_program(context, id, devices.empty() ? context->devices : devices);
  if (pfn_notify && program) pfn_notify(program, user_data);
  return program;
}

cl_int gsvirt_clRetainProgram(cl_program program) {
  IcdLock lock(icd_mutex());
  trace_call("clRetainProgram");
  if (!live(program)) return refuse("clRetainProgram", "program", CL_INVALID_PROGRAM);
  retain_app(program);
  return CL_SUCCESS;
}

cl_int gsvirt_clReleaseProgram(cl_program program) {
  IcdLock lock(icd_mutex());
  trace_call("clReleaseProgram");
  if (!live(program)) return refuse("clReleaseProgram", "program", CL_INVALID_PROGRAM);
  return release_app(program);
}

cl_int gsvirt_clGetProgramInfo(cl_program program, cl_program_info param_name, size_t param_value_size,
                               void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetProgramInfo";
  trace_call(api);
  if (!live(program)) return refuse(api, "program", CL_INVALID_PROGRAM);
  switch (param_name) {
    case CL_PROGRAM_REFERENCE_COUNT:
      return put_value(cl_uint(program->app_refs()), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_CONTEXT:
      return put_value(program->context, param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_NUM_DEVICES:
      return put_value(cl_uint(program->devices.size()), param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_DEVICES:
      return put_array(program->devices, param_value_size, param_value, param_value_size_ret);
    case CL_PROGRAM_SOURCE:
      if (program->has_source)
        return put_string(program->source, param_value_size, param_value, param_value_size_ret);
      break;
    case CL_PROGRAM_BINARIES:
      return get_program_binaries(api, program, param_value_size, param_value, param_value_size_ret);
    default:
      break;
  }
  return forward_program_info<proto::Reply_clGetProgramInfo>(api, program, param_name, param_value_size, param_value,
                                                              param_value_size_ret);
}

cl_int gsvirt_clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info param_name,
                                    size_t param_value_size, void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetProgramBuildInfo";
  trace_call(api);
  if (!live(program)) return refuse(api, "program", CL_INVALID_PROGRAM);
  if (!live(device) || std::find(program->devices.begin(), program->devices.end(), device) == program->devices.end())
    return refuse(api, "device is not a device of the program", CL_INVALID_DEVICE);
  return forward_info(
      api, param_value_size, param_value, param_value_size_ret,
      [&](WireWriter& w, bool want, const proto::DataOut& out) {
        proto::encode_clGetProgramBuildInfo(w, want, program->guest_id, device->guest_id, param_name, out);
      },
      proto::decode_reply_clGetProgramBuildInfo);
}

cl_int gsvirt_clSetProgramReleaseCallback(cl_program program, void(CL_CALLBACK*)(cl_program, void*), void*) {
  IcdLock lock(icd_mutex());
  if (!live(program)) return refuse("clSetProgramReleaseCallback", "program", CL_INVALID_PROGRAM);
  // Deprecated in OpenCL 3.0; a 1.2 platform need not support it.
  return refuse("clSetProgramReleaseCallback", "not supported", CL_INVALID_OPERATION);
}
