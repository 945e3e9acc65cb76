// Host objects behind guest ids: one wrapper per OpenCL object family, each owning one reference
// to its executor handle.
#pragma once

#include <cstdint>

#include "host/vcomp/executor.h"
#include "vcomp_protocol.h"

namespace gsvirt::vcomp {

using proto::ObjectType;

struct HostObject {
  explicit HostObject(ObjectType t) : type(t) {}
  virtual ~HostObject() = default;
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  const ObjectType type;
};

// A wrapper that releases its handle with the executor's release entry point.
template <ObjectType kType, typename Handle, cl_int (*const cl_icd_dispatch::*kRelease)(Handle)>
struct ClObject final : HostObject {
  static constexpr ObjectType kObjectType = kType;
  ClObject(const Executor* e, Handle h) : HostObject(kType), executor(e), handle(h) {}
  ~ClObject() override {
    if (handle && kRelease) (executor->api().*kRelease)(handle);
  }
  const Executor* executor;
  Handle handle;
};

// Devices of a platform are not reference counted in OpenCL 1.2 (root devices).
struct DeviceObject final : HostObject {
  static constexpr ObjectType kObjectType = ObjectType::kDevice;
  explicit DeviceObject(cl_device_id h) : HostObject(ObjectType::kDevice), handle(h) {}
  cl_device_id handle;
};

using ContextObject = ClObject<ObjectType::kContext, cl_context, &cl_icd_dispatch::clReleaseContext>;
using QueueObject =
    ClObject<ObjectType::kQueue, cl_command_queue, &cl_icd_dispatch::clReleaseCommandQueue>;
using MemObject = ClObject<ObjectType::kMem, cl_mem, &cl_icd_dispatch::clReleaseMemObject>;
using SamplerObject = ClObject<ObjectType::kSampler, cl_sampler, &cl_icd_dispatch::clReleaseSampler>;
using ProgramObject = ClObject<ObjectType::kProgram, cl_program, &cl_icd_dispatch::clReleaseProgram>;
using KernelObject = ClObject<ObjectType::kKernel, cl_kernel, &cl_icd_dispatch::clReleaseKernel>;
using EventObject = ClObject<ObjectType::kEvent, cl_event, &cl_icd_dispatch::clReleaseEvent>;

}  // namespace gsvirt::vcomp
