#include "gsgpu/emu/packets.h"

#include "gsgpu/emu/device.h"

namespace gsgpu {
namespace {

std::vector<uint32_t> packet_of(uint32_t opcode, uint32_t size_dwords) {
  std::vector<uint32_t> p(size_dwords, 0);
  p[0] = hw::make_packet_header(opcode, size_dwords);
  return p;
}

void put64(std::vector<uint32_t>& p, uint32_t lo, uint32_t hi, uint64_t v) {
  p[lo] = uint32_t(v);
  p[hi] = uint32_t(v >> 32);
}

}  // namespace

std::vector<uint32_t> make_nop_packet(uint32_t size_dwords) {
  return packet_of(hw::pkt::NOP::OPCODE, size_dwords == 0 ? 1 : size_dwords);
}

std::vector<uint32_t> make_dispatch_packet(const DispatchRequest& q) {
  namespace P = hw::pkt::DISPATCH;
  std::vector<uint32_t> p = packet_of(P::OPCODE, P::SIZE_DWORDS);
  put64(p, P::CODE_VA_LO, P::CODE_VA_HI, q.code_va);
  p[P::CODE_SIZE] = q.code_size;
  p[P::ENTRY_OFFSET] = q.entry_offset;
  put64(p, P::ARG_VA_LO, P::ARG_VA_HI, q.arg_va);
  p[P::ARG_SIZE] = q.arg_size;
  p[P::GRID_X] = q.grid_size[0];
  p[P::GRID_Y] = q.grid_size[1];
  p[P::GRID_Z] = q.grid_size[2];
  p[P::GROUP_X] = q.group_size[0];
  p[P::GROUP_Y] = q.group_size[1];
  p[P::GROUP_Z] = q.group_size[2];
  put64(p, P::GLOBAL_OFFSET_X_LO, P::GLOBAL_OFFSET_X_HI, q.global_offset[0]);
  put64(p, P::GLOBAL_OFFSET_Y_LO, P::GLOBAL_OFFSET_Y_HI, q.global_offset[1]);
  put64(p, P::GLOBAL_OFFSET_Z_LO, P::GLOBAL_OFFSET_Z_HI, q.global_offset[2]);
  p[P::LOCAL_MEM_SIZE] = q.local_mem_size;
  p[P::PRIVATE_MEM_SIZE] = q.private_mem_size;
  return p;
}

std::vector<uint32_t> make_sync_packet(uint32_t flags, uint64_t fence_va, uint64_t fence_value) {
  namespace P = hw::pkt::SYNC;
  std::vector<uint32_t> p = packet_of(P::OPCODE, P::SIZE_DWORDS);
  p[P::FLAGS] = flags;
  put64(p, P::FENCE_VA_LO, P::FENCE_VA_HI, fence_va);
  put64(p, P::FENCE_VALUE_LO, P::FENCE_VALUE_HI, fence_value);
  return p;
}

std::vector<uint32_t> make_dump_packet(uint32_t flags, uint64_t buffer_va, uint32_t buffer_size) {
  namespace P = hw::pkt::DUMP;
  std::vector<uint32_t> p = packet_of(P::OPCODE, P::SIZE_DWORDS);
  p[P::FLAGS] = flags;
  put64(p, P::BUFFER_VA_LO, P::BUFFER_VA_HI, buffer_va);
  p[P::BUFFER_SIZE] = buffer_size;
  return p;
}

std::vector<uint32_t> make_halt_packet() { return packet_of(hw::pkt::HALT::OPCODE, hw::pkt::HALT::SIZE_DWORDS); }

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
