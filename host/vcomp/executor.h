// Where vcomp runs OpenCL work.
//
// An executor is an OpenCL implementation reachable through the Khronos ICD dispatch table
// (cl_khr_icd): every handle it returns starts with a pointer to that table, so handlers call
// `api().clCreateBuffer(...)` whatever the executor. The host executor forwards to a real host
// platform (PoCL, a GPU driver); the gsgpu executor (a later issue) plugs in behind the same table.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace gsvirt::vcomp {

class Executor {
 public:
  virtual ~Executor() = default;
  // "host: Portable Computing Language" — reported in the handshake and logs.
  virtual const std::string& name() const = 0;
  virtual cl_platform_id platform() const = 0;
  virtual const cl_icd_dispatch& api() const = 0;

  // Whether each vcomp context gets an executor of its own (make_context_executor) instead of
  // sharing this one. The gsgpu executor does: every context then has its own runtime and device,
  // so its own GPU address space, VRAM and time budget (docs/security.md, issue 12 point 9).
  virtual bool isolates_contexts() const { return false; }
  // A new executor for one context, configured like this one; nullptr and *error when it cannot
  // be created. Only called when isolates_contexts().
  virtual std::unique_ptr<Executor> make_context_executor(std::string* error) {
    if (error) *error = "this executor is shared by its contexts";
    return nullptr;
  }
  // Hands the text its kernels print (OpenCL C printf) to `sink` instead of the host process's
  // stdout, so a remoting host can give it to its guest. An executor that cannot (a vendor driver
  // writing to the process's stdout itself) ignores it: docs/security.md says where that output goes.
  virtual void set_output_sink(std::function<void(std::string_view)> sink) { (void)sink; }
  // True when the executor's clSetKernelArg looks every handle up among its own live objects, so
  // that bytes which are not a handle are refused rather than dereferenced. vcomp then lets a
  // by-value argument of unknown type through (kernel_args.cc); otherwise it refuses pointer-sized
  // bytes for such an argument.
  virtual bool validates_arg_handles() const { return false; }
  // True when the executor's OpenCL C compiler runs in this process (a vendor ICD such as PoCL), where
  // a guest's #include could open host files: vcomp then preprocesses each program in the compiler
  // sandbox first (program.cc). gsgpu runs its compiler in that sandbox itself.
  virtual bool compiles_in_process() const { return true; }
};

// Executors are process-wide: loaded once, shared by every context of the process (a vtest server
// process serves one client; in-process mode serves the whole application).
//
// GSVIRT_EXECUTOR selects one: "gsgpu" (the emulated GPU; the default) or "host" (a host OpenCL
// platform, for acceleration). Returns nullptr and sets *error when none can be created.
Executor* default_executor(std::string* error);

// The host executor: loads the vendor ICDs listed in GSVIRT_HOST_VENDORS (a folder of *.icd files,
// default /etc/OpenCL/vendors) itself rather than through the application's loader, so that it
// works in-process next to an application whose loader only sees gsvirt. Picks the first platform
// whose name contains GSVIRT_HOST_PLATFORM (default: the first that is not gsvirt itself).
Executor* host_executor(std::string* error);

}  // namespace gsvirt::vcomp
