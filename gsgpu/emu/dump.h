// Readable per-dispatch dumps (seed 001's "readable interface"): the DISPATCH packet dword by
// dword with field names, the decoded state, the counters, the outcome and the disassembled kernel.
// Format described in docs/emulator.md.
#pragma once

#include <string>

#include "gsgpu/emu/command_processor.h"

namespace gsgpu {

// `memory` is read (with Mmu::read, so a dump never records a fault) for the kernel code.
std::string format_dispatch_dump(const DispatchRecord& record, DispatchBackend& backend, const Mmu& memory);

// Text for a DUMP packet that arrives before any dispatch.
std::string format_empty_dump();

}  // namespace gsgpu
