// Platform and device commands.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "host/vcomp/extension_allow_list.h"
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// Query(param, size, value, size_ret), as clGetPlatformInfo / clGetDeviceInfo of one object.
using InfoQuery = std::function<cl_int(cl_uint, size_t, void*, size_t*)>;

// The guest's view of an object's extension list (string or _WITH_VERSION array, `param`), from
// both of the executor's answers filtered by the allow-list; the executor's error when the string
// fails, or when the array is asked for and the object has none.
cl_int guest_extension_bytes(const InfoQuery& query, cl_uint names_param, cl_uint versions_param, cl_uint param,
                             std::vector<uint8_t>* bytes) {
  size_t size = 0;
  cl_int err = query(names_param, 0, nullptr, &size);
  std::string names(size, '\0');
  if (err == CL_SUCCESS && size) err = query(names_param, size, names.data(), nullptr);
  if (err != CL_SUCCESS) return err;
  names.resize(strnlen(names.c_str(), names.size()));
  size_t versions_size = 0;
  bool has_versions = query(versions_param, 0, nullptr, &versions_size) == CL_SUCCESS;
  std::vector<cl_name_version> versions(versions_size / sizeof(cl_name_version));
  if (has_versions && !versions.empty())
    has_versions = query(versions_param, versions.size() * sizeof(cl_name_version), versions.data(), nullptr) ==
                   CL_SUCCESS;
  if (!has_versions) versions.clear();
  if (param == versions_param && !has_versions) return CL_INVALID_VALUE;
  GuestExtensions guest = guest_extensions(names, versions.data(), versions.size(), has_versions);
  if (param == names_param) {
    bytes->assign(guest.names.begin(), guest.names.end());
    bytes->push_back(0);
  } else {
    const auto* raw = reinterpret_cast<const uint8_t*>(guest.with_version.data());
    bytes->assign(raw, raw + guest.with_version.size() * sizeof(cl_name_version));
  }
  return CL_SUCCESS;
}

// Answers a query from bytes already computed, as an executor would.
cl_int answer_from(const std::vector<uint8_t>& bytes, size_t size, void* value, size_t* size_ret) {
  if (size_ret) *size_ret = bytes.size();
  if (!value) return CL_SUCCESS;
  if (size < bytes.size()) return CL_INVALID_VALUE;
  if (!bytes.empty()) std::memcpy(value, bytes.data(), bytes.size());
  return CL_SUCCESS;
}

// Forwards an info query, or answers an extension list through the allow-list.
template <class Forward>
void info_with_guest_extensions(const InfoQuery& query, cl_uint names_param, cl_uint versions_param, cl_uint param,
                                Forward forward) {
  if (param != names_param && param != versions_param) {
    forward([&](size_t size, void* value, size_t* ret) { return query(param, size, value, ret); });
    return;
  }
  std::vector<uint8_t> bytes;
  cl_int err = guest_extension_bytes(query, names_param, versions_param, param, &bytes);
  forward([&](size_t size, void* value, size_t* ret) {
    return err != CL_SUCCESS ? err : answer_from(bytes, size, value, ret);
  });
}

}  // namespace

void VcompContext::dispatch_clGetPlatformInfo(const proto::Args_clGetPlatformInfo& args,
                                              proto::Out_clGetPlatformInfo& out) {
  cl_platform_id p = executor_->platform();
  InfoQuery query = [&](cl_uint param, size_t size, void* value, size_t* ret) {
    return api().clGetPlatformInfo(p, param, size, value, ret);
  };
  info_with_guest_extensions(query, CL_PLATFORM_EXTENSIONS, CL_PLATFORM_EXTENSIONS_WITH_VERSION, args.param_name,
                             [&](auto answer) {
                               forward_info(InfoKind::kPlatform, args.param_name, answer, args.value, &out.value,
                                            &out.size_ret, &out.result);
                             });
}

void VcompContext::dispatch_clGetDeviceIDs(const proto::Args_clGetDeviceIDs& args,
                                           proto::Out_clGetDeviceIDs& out) {
  cl_uint count = 0;
  out.result = api().clGetDeviceIDs(executor_->platform(), args.device_type, 0, nullptr, &count);
  if (out.result != CL_SUCCESS) return;
  out.num_devices = count;
  if (args.devices.count == 0) return;
  std::vector<cl_device_id> handles(count);
  out.result = api().clGetDeviceIDs(executor_->platform(), args.device_type, count,
                                    handles.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  uint64_t n = std::min<uint64_t>(count, args.devices.count);
  for (uint64_t i = 0; i < n; ++i) {
    if (!bind(args.devices[i], std::make_unique<DeviceObject>(handles[i]), "devices")) {
      out.result = CL_INVALID_VALUE;
      return;
    }
    device_ids_.emplace(handles[i], args.devices[i]);
  }
}

void VcompContext::dispatch_clGetDeviceInfo(const proto::Args_clGetDeviceInfo& args,
                                            proto::Out_clGetDeviceInfo& out) {
  auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
  if (!d) return;
  InfoQuery query = [&](cl_uint param, size_t size, void* value, size_t* ret) {
    return api().clGetDeviceInfo(d->handle, param, size, value, ret);
  };
  info_with_guest_extensions(query, CL_DEVICE_EXTENSIONS, CL_DEVICE_EXTENSIONS_WITH_VERSION, args.param_name,
                             [&](auto answer) {
                               forward_info(InfoKind::kDevice, args.param_name, answer, args.value, &out.value,
                                            &out.size_ret, &out.result);
                             });
}

}  // namespace gsvirt::vcomp
