// Devices: clGetDeviceIDs binds guest ids to every host device once, then filters locally.
#include "guest/cl/device.h"

#include <cstring>
#include <memory>

#include "guest/cl/api.h"
#include "guest/cl/forward.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

std::vector<cl_device_id>* g_devices = nullptr;  // never freed: root devices live for the process

cl_int query_device_type(Connection* connection, cl_device_id device) {
  proto::Reply_clGetDeviceInfo reply;
  proto::DataOut out;
  out.size = sizeof(cl_device_type);
  cl_int err = connection->call(
      "clGetDeviceInfo",
      [&](WireWriter& w, bool want) {
        proto::encode_clGetDeviceInfo(w, want, device->guest_id, CL_DEVICE_TYPE, out);
      },
      proto::decode_reply_clGetDeviceInfo, &reply);
  if (err != CL_SUCCESS) return err;
  if (reply.value_size != sizeof(cl_device_type)) return CL_OUT_OF_RESOURCES;
  std::memcpy(&device->type, reply.value, sizeof(cl_device_type));
  return CL_SUCCESS;
}

cl_int discover_devices(const char* api, std::vector<cl_device_id>* devices) {
  Connection* connection = connection_for(api);
  if (!connection) return CL_DEVICE_NOT_FOUND;
  // First ask how many there are, then bind that many fresh ids.
  proto::Reply_clGetDeviceIDs count;
  cl_int err = connection->call(
      "clGetDeviceIDs",
      [](WireWriter& w, bool want) { proto::encode_clGetDeviceIDs(w, want, CL_DEVICE_TYPE_ALL, nullptr, 0); },
      proto::decode_reply_clGetDeviceIDs, &count);
  if (err != CL_SUCCESS) return err;
  if (count.num_devices == 0) return CL_DEVICE_NOT_FOUND;
  std::vector<uint64_t> ids(count.num_devices);
  for (auto& id : ids) id = connection->allocate_id();
  proto::Reply_clGetDeviceIDs bound;
  err = connection->call(
      "clGetDeviceIDs",
      [&](WireWriter& w, bool want) {
        proto::encode_clGetDeviceIDs(w, want, CL_DEVICE_TYPE_ALL, ids.data(), ids.size());
      },
      proto::decode_reply_clGetDeviceIDs, &bound);
  if (err != CL_SUCCESS) return err;
  size_t n = std::min<size_t>(bound.num_devices, ids.size());
  for (size_t i = 0; i < n; ++i) {
    auto* device = new _cl_device_id;
    device->guest_id = ids[i];
    err = query_device_type(connection, device);
    if (err != CL_SUCCESS) {
      delete device;
      return err;
    }
    registry().add(device);
    devices->push_back(device);
  }
  return devices->empty() ? CL_DEVICE_NOT_FOUND : CL_SUCCESS;
}

// OpenCL 3.0's optional features whose entry points the protocol does not carry (SVM, pipes,
// device-side enqueue, sub-groups): this ICD refuses those entry points, so it reports the
// features absent, whatever the host device has. *answered is false for any other parameter.
cl_int absent_through_protocol(cl_device_info param, size_t size, void* value, size_t* size_ret, bool* answered) {
  *answered = true;
  switch (param) {
    case CL_DEVICE_SVM_CAPABILITIES: return put_value(cl_device_svm_capabilities(0), size, value, size_ret);
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      return put_value(cl_device_device_enqueue_capabilities(0), size, value, size_ret);
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      return put_value(cl_command_queue_properties(0), size, value, size_ret);
    case CL_DEVICE_PIPE_SUPPORT: return put_value(cl_bool(CL_FALSE), size, value, size_ret);
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_MAX_NUM_SUB_GROUPS: return put_value(cl_uint(0), size, value, size_ret);
  }
  *answered = false;
  return CL_INVALID_VALUE;
}

}  // namespace

const std::vector<cl_device_id>* host_devices(const char* api, cl_int* err) {
  if (g_devices) return g_devices;
  auto devices = std::make_unique<std::vector<cl_device_id>>();
  *err = discover_devices(api, devices.get());
  if (*err != CL_SUCCESS) return nullptr;
  g_devices = devices.release();
  return g_devices;
}

std::vector<cl_device_id> filter_devices(const std::vector<cl_device_id>& all, cl_device_type type) {
  std::vector<cl_device_id> out;
  if (type == CL_DEVICE_TYPE_DEFAULT) {
    if (!all.empty()) out.push_back(all.front());
    return out;
  }
  for (cl_device_id device : all)
    if (type == CL_DEVICE_TYPE_ALL || (device->type & type)) out.push_back(device);
  return out;
}

Connection* connection_for(const char* api) {
  Connection* connection = Connection::get();
  if (!connection) refuse(api, "no host connection", CL_OUT_OF_RESOURCES);
  return connection;
}

}  // namespace gsvirt::icd

using namespace gsvirt::icd;

cl_int gsvirt_clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type, cl_uint num_entries,
                             cl_device_id* devices, cl_uint* num_devices) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetDeviceIDs";
  trace_call(api);
  if (platform != the_platform()) return refuse(api, "platform", CL_INVALID_PLATFORM);
  constexpr cl_device_type kKnownTypes = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                         CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~kKnownTypes || device_type == 0))
    return refuse(api, "device_type", CL_INVALID_DEVICE_TYPE);
  if ((num_entries == 0 && devices) || (!devices && !num_devices))
    return refuse(api, "num_entries/devices/num_devices", CL_INVALID_VALUE);
  cl_int err = CL_SUCCESS;
  const auto* all = host_devices(api, &err);
  if (!all) return err == CL_OUT_OF_RESOURCES ? CL_DEVICE_NOT_FOUND : err;
  auto matching = filter_devices(*all, device_type);
  if (matching.empty()) return CL_DEVICE_NOT_FOUND;
  if (devices)
    for (size_t i = 0; i < matching.size() && i < num_entries; ++i) devices[i] = matching[i];
  if (num_devices) *num_devices = cl_uint(matching.size());
  return CL_SUCCESS;
}

cl_int gsvirt_clGetDeviceInfo(cl_device_id device, cl_device_info param_name, size_t param_value_size,
                              void* param_value, size_t* param_value_size_ret) {
  IcdLock lock(icd_mutex());
  const char* api = "clGetDeviceInfo";
  trace_call(api);
  if (!live(device)) return refuse(api, "device", CL_INVALID_DEVICE);
  switch (param_name) {
    // Handle-typed answers never come from the host: they would be host handles. Partition
    // properties are the host's (clinfo must match it) even though clCreateSubDevices is refused.
    case CL_DEVICE_PLATFORM:
      return put_value(the_platform(), param_value_size, param_value, param_value_size_ret);
    case CL_DEVICE_PARENT_DEVICE:
      return put_value(cl_device_id(nullptr), param_value_size, param_value, param_value_size_ret);
    case CL_DEVICE_REFERENCE_COUNT:
      return put_value(cl_uint(1), param_value_size, param_value, param_value_size_ret);
    case CL_DEVICE_TYPE:
      return put_value(device->type, param_value_size, param_value, param_value_size_ret);
    default: break;
  }
  bool answered = false;
  cl_int err = absent_through_protocol(param_name, param_value_size, param_value, param_value_size_ret, &answered);
  if (answered) return err;
  auto from_host = [&](size_t size, void* value, size_t* size_ret) {
    return forward_info(
        api, size, value, size_ret,
        [&](WireWriter& w, bool want, const proto::DataOut& out) {
          proto::encode_clGetDeviceInfo(w, want, device->guest_id, param_name, out);
        },
        proto::decode_reply_clGetDeviceInfo);
  };
  if (param_name != CL_DEVICE_EXECUTION_CAPABILITIES)
    return from_host(param_value_size, param_value, param_value_size_ret);
  // A native kernel is a function pointer of the application: clEnqueueNativeKernel is refused (the
  // host never runs a function a guest names), so the capability is never reported, whatever the
  // host device has (PoCL has it).
  cl_device_exec_capabilities capabilities = 0;
  err = from_host(sizeof capabilities, &capabilities, nullptr);
  if (err != CL_SUCCESS) return err;
  return put_value(cl_device_exec_capabilities(capabilities & ~cl_device_exec_capabilities(CL_EXEC_NATIVE_KERNEL)),
                   param_value_size, param_value, param_value_size_ret);
}

cl_int gsvirt_clRetainDevice(cl_device_id device) {
  IcdLock lock(icd_mutex());
  if (!live(device)) return refuse("clRetainDevice", "device", CL_INVALID_DEVICE);
  return CL_SUCCESS;  // root devices are not reference counted
}

cl_int gsvirt_clReleaseDevice(cl_device_id device) {
  IcdLock lock(icd_mutex());
  if (!live(device)) return refuse("clReleaseDevice", "device", CL_INVALID_DEVICE);
  return CL_SUCCESS;
}

cl_int gsvirt_clCreateSubDevices(cl_device_id in_device, const cl_device_partition_property*, cl_uint,
                                 cl_device_id*, cl_uint*) {
  IcdLock lock(icd_mutex());
  if (!live(in_device)) return refuse("clCreateSubDevices", "in_device", CL_INVALID_DEVICE);
  // vcomp.xml has no clCreateSubDevices command yet.
  return refuse("clCreateSubDevices", "partitioning is not supported", CL_INVALID_VALUE);
}
