// Host objects behind guest ids: one wrapper per OpenCL object family, each owning one reference
// to its executor handle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// What vcomp knows about each argument of a kernel, from the executor's kernel metadata
// (kernel_args.h): which kind of value clSetKernelArg may pass for it.
enum class KernelArgClass : uint8_t {
  kValue,          // by-value bytes
  kBuffer,         // a __global / __constant pointer: a buffer object or NULL
  kMemAny,         // a __global object whose type name is unknown: any memory object or NULL
  kImage,          // an image object (image_type below, or 0 when any image type will do)
  kPipe,           // a pipe object
  kSampler,        // a sampler object
  kLocal,          // a __local pointer: a size, no value
  kPrivateUnknown, // by value, but the type name is unknown (it could be a sampler or an image)
  kUnsupported,    // queue_t, clk_event_t, reserve_id_t: host handles the guest cannot name
  kUnknown,        // no metadata at all
};
struct KernelArgSpec {
  KernelArgClass cls = KernelArgClass::kUnknown;
  cl_mem_object_type image_type = 0;
};

// Extra state a wrapper may carry beside its handle.
struct NoExtra {};
struct ProgramExtra {
  // The options of the last build or compile as the guest gave them, when the host added
  // -cl-kernel-arg-info to them (CL_PROGRAM_BUILD_OPTIONS answers with these).
  std::optional<std::string> guest_options;
  // The guest's source, kept where the executor's compiler runs in this process: every build
  // preprocesses it again (the vendor's program holds the text of the last preprocessing, whose
  // -D macros are already applied), and CL_PROGRAM_SOURCE answers with it.
  std::optional<std::string> guest_source;
  // Set when the last build could not even be preprocessed because a tool is missing on the host:
  // CL_PROGRAM_BUILD_LOG answers with this rather than the vendor's log of the stand-in program.
  std::optional<std::string> host_build_log;
};
// User events the guest has not set yet are known by serial (never reused, unlike handles);
// queues and events record the serials of those that their commands may still wait for, so that
// the host never blocks on something only the guest can complete (user_events.cc).
struct QueueExtra {
  std::vector<uint64_t> waits_on_user;
};
struct EventExtra {
  uint64_t user_serial = 0;  // a user event's serial; 0 for events of commands
  std::vector<uint64_t> waits_on_user;
};
struct KernelExtra {
  std::vector<KernelArgSpec> args;  // one per argument, filled when the kernel is created
  // The host added -cl-kernel-arg-info to its program's options, not the guest: the guest is
  // told what it would be told without the flag (CL_KERNEL_ARG_INFO_NOT_AVAILABLE).
  bool arg_info_hidden = false;
};

// A wrapper that releases its handle with the executor's release entry point.
template <ObjectType kType, typename Handle, cl_int (*const cl_icd_dispatch::*kRelease)(Handle),
          typename Extra = NoExtra>
struct ClObject final : HostObject, Extra {
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
    ClObject<ObjectType::kQueue, cl_command_queue, &cl_icd_dispatch::clReleaseCommandQueue, QueueExtra>;
using MemObject = ClObject<ObjectType::kMem, cl_mem, &cl_icd_dispatch::clReleaseMemObject>;
using SamplerObject = ClObject<ObjectType::kSampler, cl_sampler, &cl_icd_dispatch::clReleaseSampler>;
using ProgramObject =
    ClObject<ObjectType::kProgram, cl_program, &cl_icd_dispatch::clReleaseProgram, ProgramExtra>;
using KernelObject =
    ClObject<ObjectType::kKernel, cl_kernel, &cl_icd_dispatch::clReleaseKernel, KernelExtra>;
using EventObject = ClObject<ObjectType::kEvent, cl_event, &cl_icd_dispatch::clReleaseEvent, EventExtra>;

}  // namespace gsvirt::vcomp
