// Building command-processor packets and feeding a device's ring: the driver's side of the
// protocol in command_processor.h, shared by gsgpu-run, the tests and the fuzzer. Layouts come from
// the generated gsgpu_hw.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/emu/dispatch_backend.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu {

class Device;

// Thin wrappers over protocol/gsgpu/packets.h (the one encoder) taking the emulator's types.
hw::DispatchPacket to_dispatch_packet(const DispatchRequest& request);
std::vector<uint32_t> make_nop_packet(uint32_t size_dwords = 1);
// instruction_budget is not part of the packet (it comes from WATCHDOG_BUDGET).
std::vector<uint32_t> make_dispatch_packet(const DispatchRequest& request);
std::vector<uint32_t> make_sync_packet(uint32_t flags, uint64_t fence_va, uint64_t fence_value);
std::vector<uint32_t> make_dump_packet(uint32_t flags, uint64_t buffer_va, uint32_t buffer_size);
std::vector<uint32_t> make_halt_packet();

// Writes packets into a ring the device reads, the way a driver does: at RING_TAIL, wrapping at
// the end of the ring, then publishes the new tail. The ring memory must be mapped.
class RingWriter {
 public:
  // Programs RING_BASE / RING_SIZE and starts writing at the current RING_HEAD.
  RingWriter(Device& device, uint64_t ring_va, uint32_t ring_size);

  // Copies the packet at the tail and advances RING_TAIL. False (nothing written) when the packet
  // does not fit in the free space (head - tail - 4, one slot kept empty so full != empty).
  bool write(const std::vector<uint32_t>& packet, std::string* error = nullptr);
  // Writes DOORBELL.
  void kick();
  uint32_t tail() const { return tail_; }

 private:
  Device& device_;
  uint64_t ring_va_;
  uint32_t ring_size_;
  uint32_t tail_ = 0;
};

}  // namespace gsgpu
