#include "gsgpu/emu/packets.h"

#include "gsgpu/emu/device.h"

namespace gsgpu {

// The wire encoding lives once, in protocol/gsgpu/packets.cc; these keep the emulator's
// DispatchRequest-based names for its tools and tests.
hw::DispatchPacket to_dispatch_packet(const DispatchRequest& q) {
  hw::DispatchPacket p;
  p.code_va = q.code_va;
  p.code_size = q.code_size;
  p.entry_offset = q.entry_offset;
  p.arg_va = q.arg_va;
  p.arg_size = q.arg_size;
  for (int i = 0; i < 3; ++i) {
    p.grid_size[i] = q.grid_size[i];
    p.group_size[i] = q.group_size[i];
    p.global_offset[i] = q.global_offset[i];
  }
  p.local_mem_size = q.local_mem_size;
  p.private_mem_size = q.private_mem_size;
  return p;
}

std::vector<uint32_t> make_nop_packet(uint32_t size_dwords) { return hw::encode_nop(size_dwords); }
std::vector<uint32_t> make_dispatch_packet(const DispatchRequest& q) { return hw::encode_dispatch(to_dispatch_packet(q)); }
std::vector<uint32_t> make_sync_packet(uint32_t flags, uint64_t fence_va, uint64_t fence_value) {
  return hw::encode_sync(flags, fence_va, fence_value);
}
std::vector<uint32_t> make_dump_packet(uint32_t flags, uint64_t buffer_va, uint32_t buffer_size) {
  return hw::encode_dump(flags, buffer_va, buffer_size);
}
std::vector<uint32_t> make_halt_packet() { return hw::encode_halt(); }

RingWriter::RingWriter(Device& device, uint64_t ring_va, uint32_t ring_size)
    : device_(device), ring_va_(ring_va), ring_size_(ring_size) {
  device_.write_register(hw::reg::RING_BASE_LO, uint32_t(ring_va));
  device_.write_register(hw::reg::RING_BASE_HI, uint32_t(ring_va >> 32));
  device_.write_register(hw::reg::RING_SIZE, ring_size);
  // Continue where the command processor is: after a CP reset that is 0, otherwise the ring may
  // already hold consumed packets.
  tail_ = device_.read_register(hw::reg::RING_HEAD) % ring_size;
  device_.write_register(hw::reg::RING_TAIL, tail_);
}

bool RingWriter::write(const std::vector<uint32_t>& packet, std::string* error) {
  uint32_t head = device_.read_register(hw::reg::RING_HEAD);
  uint64_t bytes = uint64_t(packet.size()) * 4;
  uint64_t free_bytes = (uint64_t(head) + ring_size_ - tail_ - 4) % ring_size_;
  if (bytes > free_bytes) {
    if (error) *error = "ring full: packet of " + std::to_string(bytes) + " bytes, " + std::to_string(free_bytes) + " free";
    return false;
  }
  uint32_t tail = tail_;
  for (uint32_t word : packet) {
    if (!device_.mmu().write(ring_va_ + tail, &word, 4)) {
      if (error) *error = "ring memory at offset " + std::to_string(tail) + " is not mapped";
      return false;
    }
    tail = (tail + 4) % ring_size_;
  }
  tail_ = tail;
  device_.write_register(hw::reg::RING_TAIL, tail_);
  return true;
}

void RingWriter::kick() { device_.write_register(hw::reg::DOORBELL, 1); }

}  // namespace gsgpu
