// The one path by which emulated hardware touches GPU memory.
//
// Every emulator memory access (command-processor fetch, shader load/store/atomic, instruction
// fetch, dumps) asks this interface for a host pointer. The MMU (gsgpu/emu/mmu.h) implements it;
// tests may use a flat implementation. An access must lie entirely inside one mapping: the
// implementation returns nullptr otherwise and records the fault (address, size, access type) so
// that nothing outside a mapping is ever read or written.
#pragma once

#include <cstdint>

namespace gsgpu {

enum class Access : uint8_t { kRead, kWrite, kExecute, kAtomic };

const char* access_name(Access a);

struct MemoryFault {
  uint64_t address = 0;
  uint64_t size = 0;
  Access access = Access::kRead;
};

class GpuMemory {
 public:
  virtual ~GpuMemory() = default;

  // Host pointer valid for `size` bytes at GPU virtual address `va`, or nullptr when any byte of
  // [va, va + size) is unmapped or the access is not permitted (the fault is recorded and, in the
  // device, raised as an interrupt). Must be safe to call from several shader-core threads.
  virtual uint8_t* translate(uint64_t va, uint64_t size, Access access) = 0;

  // The whole mapping that contains `va` and permits `access`, so that hot loops (a shader core
  // walking a buffer) can check bounds themselves and skip a lookup per access. Valid until the
  // mappings change; whoever changes them during a dispatch keeps the old memory alive until it
  // ends (the MMU's users do; see mmu.h). Returns false (and records nothing)
  // when no such mapping exists; the caller then reports the fault with report_fault.
  struct Range {
    uint64_t va_begin = 0;
    uint64_t va_end = 0;  // exclusive
    uint8_t* host = nullptr;  // host address of va_begin
  };
  virtual bool lookup_range(uint64_t va, Access access, Range* out) = 0;

  // Records a fault that a caller detected with a cached Range.
  virtual void report_fault(const MemoryFault& fault) = 0;
};

}  // namespace gsgpu
