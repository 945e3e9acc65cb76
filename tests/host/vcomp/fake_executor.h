// A small in-memory executor for decoder tests and the fuzzer: enough of the ICD dispatch table
// to create and release objects and to answer queries, with live-object accounting so tests can
// check that a context releases everything it created.
#pragma once

#include <atomic>

#include "host/vcomp/executor.h"

namespace gsvirt::vcomp::testing {

class FakeExecutor final : public Executor {
 public:
  FakeExecutor();
  const std::string& name() const override { return name_; }
  cl_platform_id platform() const override { return platform_; }
  const cl_icd_dispatch& api() const override { return table_; }
  bool compiles_in_process() const override { return false; }  // it compiles nothing

  // A vendor device parameter whose value is the device handle (a host pointer).
  static constexpr cl_device_info kVendorHandleParam = 0x4fff;

  // Objects created through this executor and not yet released (devices excluded).
  static int live_objects();

  // Programs build from any source; every kernel has this signature.
  static constexpr char kKernelSource[] =
      "__kernel void k(__global float* buffer, ulong value, __local float* scratch, sampler_t sampler) {}";
  // clSetKernelArg calls whose object argument held bytes that are not a live handle (a real
  // driver would have dereferenced them), and whose by-value argument held a live handle (a host
  // address handed to a kernel).
  static int bogus_handles();
  // Blocking calls (clWaitForEvents, blocking reads) made while they wait for a user event that
  // is not set (a real driver blocks the server until the guest sets it, if ever), and user events
  // released without a status (a real driver keeps the commands behind them forever).
  static int blocking_waits_on_user();
  static int unset_user_events_released();
  static int handles_as_values();

 private:
  std::string name_ = "fake";
  cl_icd_dispatch table_{};
  cl_platform_id platform_;
};

}  // namespace gsvirt::vcomp::testing
