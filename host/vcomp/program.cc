// Program commands: create from source / binary / IL / built-ins, build, compile, link, info.
#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// Wire strings are not NUL-terminated; OpenCL wants C strings.
std::string c_string(std::string_view s) { return std::string(s.data(), s.size()); }

}  // namespace


void VcompContext::dispatch_clCreateProgramWithSource(
    const proto::Args_clCreateProgramWithSource& args, proto::Out_clCreateProgramWithSource& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  // A terminated copy: a length of 0 tells OpenCL to look for a NUL, which the wire string
  // does not have (the executor would read past the command).
  std::string source = c_string(args.source);
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithSource(c->handle, 1, &text, nullptr, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clCreateProgramWithBinary(
    const proto::Args_clCreateProgramWithBinary& args, proto::Out_clCreateProgramWithBinary& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (devices.empty() || args.binaries.size() != devices.size()) {
    log_field_error("binaries", "needs one binary per device");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<size_t> lengths;
  std::vector<const unsigned char*> binaries;
  for (const auto& b : args.binaries) {
    lengths.push_back(size_t(b.size));
    binaries.push_back(b.data);
  }
  std::vector<cl_int> status(devices.size(), CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithBinary(c->handle, cl_uint(devices.size()), devices.data(),
                                                 lengths.data(), binaries.data(), status.data(), &err);
  out.result = err;
  out.binary_status.assign(status.begin(), status.end());
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clCreateProgramWithIL(const proto::Args_clCreateProgramWithIL& args,
                                                  proto::Out_clCreateProgramWithIL& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  if (!api().clCreateProgramWithIL) {
    out.result = CL_INVALID_OPERATION;
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithIL(c->handle, args.il.data, size_t(args.il.size), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clCreateProgramWithBuiltInKernels(
    const proto::Args_clCreateProgramWithBuiltInKernels& args,
    proto::Out_clCreateProgramWithBuiltInKernels& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::string names = c_string(args.kernel_names);
  cl_int err = CL_SUCCESS;
  cl_program p = api().clCreateProgramWithBuiltInKernels(c->handle, cl_uint(devices.size()),
                                                         devices.data(), names.c_str(), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clBuildProgram(const proto::Args_clBuildProgram& args,
                                           proto::Out_clBuildProgram& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::string options = c_string(args.options);
  out.result = api().clBuildProgram(p->handle, cl_uint(devices.size()),
                                    devices.empty() ? nullptr : devices.data(), options.c_str(),
                                    nullptr, nullptr);
}

void VcompContext::dispatch_clCompileProgram(const proto::Args_clCompileProgram& args,
                                             proto::Out_clCompileProgram& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  if (args.input_headers.count != args.header_include_names.size()) {
    log_field_error("header_include_names", "needs one name per input header");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<cl_program> headers;
  std::vector<std::string> names;
  for (uint64_t i = 0; i < args.input_headers.count; ++i) {
    auto* h = require<ProgramObject>(args.input_headers[i], "input_headers", CL_INVALID_PROGRAM, &out.result);
    if (!h) return;
    headers.push_back(h->handle);
    names.push_back(c_string(args.header_include_names[i]));
  }
  std::vector<const char*> name_ptrs;
  for (const auto& n : names) name_ptrs.push_back(n.c_str());
  std::string options = c_string(args.options);
  out.result = api().clCompileProgram(p->handle, cl_uint(devices.size()),
                                      devices.empty() ? nullptr : devices.data(), options.c_str(),
                                      cl_uint(headers.size()), headers.empty() ? nullptr : headers.data(),
                                      name_ptrs.empty() ? nullptr : name_ptrs.data(), nullptr, nullptr);
}

void VcompContext::dispatch_clLinkProgram(const proto::Args_clLinkProgram& args,
                                          proto::Out_clLinkProgram& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.program, "program", &out.result)) return;
  std::vector<cl_device_id> devices;
  if (!device_list(args.devices, &devices)) {
    out.result = CL_INVALID_DEVICE;
    return;
  }
  std::vector<cl_program> inputs;
  for (uint64_t i = 0; i < args.input_programs.count; ++i) {
    auto* in = require<ProgramObject>(args.input_programs[i], "input_programs", CL_INVALID_PROGRAM, &out.result);
    if (!in) return;
    inputs.push_back(in->handle);
  }
  std::string options = c_string(args.options);
  cl_int err = CL_SUCCESS;
  cl_program p = api().clLinkProgram(c->handle, cl_uint(devices.size()),
                                     devices.empty() ? nullptr : devices.data(), options.c_str(),
                                     cl_uint(inputs.size()), inputs.empty() ? nullptr : inputs.data(),
                                     nullptr, nullptr, &err);
  out.result = err;
  // A failed link may still return a program whose build log the app reads.
  if (p) bind(args.program, std::make_unique<ProgramObject>(executor_, p), "program");
}

void VcompContext::dispatch_clGetProgramInfo(const proto::Args_clGetProgramInfo& args,
                                             proto::Out_clGetProgramInfo& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  forward_info(
      InfoKind::kProgram, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetProgramInfo(p->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_vcGetProgramBinary(const proto::Args_vcGetProgramBinary& args,
                                               proto::Out_vcGetProgramBinary& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  size_t size = 0;
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARY_SIZES, 0, nullptr, &size);
  if (out.result != CL_SUCCESS) return;
  std::vector<size_t> sizes(size / sizeof(size_t));
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARY_SIZES, size, sizes.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  if (args.device_index >= sizes.size()) {
    log_field_error("device_index", "program has " + std::to_string(sizes.size()) + " devices");
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::vector<std::vector<unsigned char>> storage(sizes.size());
  std::vector<unsigned char*> pointers(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    storage[i].assign(sizes[i], 0);
    pointers[i] = storage[i].data();
  }
  out.result = api().clGetProgramInfo(p->handle, CL_PROGRAM_BINARIES,
                                      pointers.size() * sizeof(unsigned char*), pointers.data(), nullptr);
  if (out.result != CL_SUCCESS) return;
  const auto& binary = storage[args.device_index];
  out.size_ret = binary.size();
  if (args.binary.size == 0) return;
  uint8_t* dst = data_out(args.binary, binary.size(), &out.binary, "binary");
  if (!dst) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  std::copy(binary.begin(), binary.end(), dst);
}

void VcompContext::dispatch_clGetProgramBuildInfo(const proto::Args_clGetProgramBuildInfo& args,
                                                  proto::Out_clGetProgramBuildInfo& out) {
  auto* p = require<ProgramObject>(args.program, "program", CL_INVALID_PROGRAM, &out.result);
  if (!p) return;
  auto* d = require<DeviceObject>(args.device, "device", CL_INVALID_DEVICE, &out.result);
  if (!d) return;
  forward_info(
      InfoKind::kProgramBuild, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetProgramBuildInfo(p->handle, d->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
