#include "protocol/gsgpu/packets.h"

namespace gsgpu::hw {
namespace {

// Appends a zeroed packet of `size_dwords` with its header; returns where it starts (valid until
// `out` grows again).
uint32_t* start_packet(std::vector<uint32_t>* out, uint32_t opcode, uint32_t size_dwords) {
  size_t at = out->size();
  out->resize(at + size_dwords, 0);
  (*out)[at] = make_packet_header(opcode, size_dwords);
  return out->data() + at;
}

void put64(uint32_t* p, uint32_t lo, uint32_t hi, uint64_t v) {
  p[lo] = uint32_t(v);
  p[hi] = uint32_t(v >> 32);
}

template <typename Append>
std::vector<uint32_t> encoded(Append append) {
  std::vector<uint32_t> out;
  append(&out);
  return out;
}

}  // namespace

void append_nop(std::vector<uint32_t>* out, uint32_t size_dwords) {
  start_packet(out, pkt::NOP::OPCODE, size_dwords == 0 ? 1 : size_dwords);
}

void append_dispatch(std::vector<uint32_t>* out, const DispatchPacket& q) {
  namespace P = pkt::DISPATCH;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
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
}

void append_sync(std::vector<uint32_t>* out, uint32_t flags, uint64_t fence_va, uint64_t fence_value) {
  namespace P = pkt::SYNC;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  p[P::FLAGS] = flags;
  put64(p, P::FENCE_VA_LO, P::FENCE_VA_HI, fence_va);
  put64(p, P::FENCE_VALUE_LO, P::FENCE_VALUE_HI, fence_value);
}

void append_dump(std::vector<uint32_t>* out, uint32_t flags, uint64_t buffer_va, uint32_t buffer_size) {
  namespace P = pkt::DUMP;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  p[P::FLAGS] = flags;
  put64(p, P::BUFFER_VA_LO, P::BUFFER_VA_HI, buffer_va);
  p[P::BUFFER_SIZE] = buffer_size;
}

void append_halt(std::vector<uint32_t>* out) { start_packet(out, pkt::HALT::OPCODE, pkt::HALT::SIZE_DWORDS); }

void append_draw(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va) {
  namespace P = pkt::DRAW;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  put64(p, P::DRAW_INFO_VA_LO, P::DRAW_INFO_VA_HI, draw_info_va);
  put64(p, P::PIPE_STATE_VA_LO, P::PIPE_STATE_VA_HI, pipe_state_va);
  put64(p, P::SHADER_STATE_VA_LO, P::SHADER_STATE_VA_HI, shader_state_va);
}

void append_report(std::vector<uint32_t>* out, uint32_t counter, uint64_t value_va, bool write_availability,
                   uint64_t avail_va, uint32_t avail_value) {
  namespace P = pkt::REPORT;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  p[P::FLAGS] = put_field(counter, P::FLAGS_COUNTER_MASK, P::FLAGS_COUNTER_SHIFT) |
                (write_availability ? P::FLAGS_WRITE_AVAILABILITY_MASK : 0);
  put64(p, P::VALUE_VA_LO, P::VALUE_VA_HI, value_va);
  put64(p, P::AVAIL_VA_LO, P::AVAIL_VA_HI, write_availability ? avail_va : 0);
  p[P::AVAIL_VALUE] = write_availability ? avail_value : 0;
}

std::vector<uint32_t> encode_report(uint32_t counter, uint64_t value_va, bool write_availability, uint64_t avail_va,
                                    uint32_t avail_value) {
  return encoded(
      [&](std::vector<uint32_t>* o) { append_report(o, counter, value_va, write_availability, avail_va, avail_value); });
}

std::vector<uint32_t> encode_nop(uint32_t size_dwords) {
  return encoded([&](std::vector<uint32_t>* o) { append_nop(o, size_dwords); });
}
std::vector<uint32_t> encode_dispatch(const DispatchPacket& packet) {
  return encoded([&](std::vector<uint32_t>* o) { append_dispatch(o, packet); });
}
std::vector<uint32_t> encode_sync(uint32_t flags, uint64_t fence_va, uint64_t fence_value) {
  return encoded([&](std::vector<uint32_t>* o) { append_sync(o, flags, fence_va, fence_value); });
}
std::vector<uint32_t> encode_dump(uint32_t flags, uint64_t buffer_va, uint32_t buffer_size) {
  return encoded([&](std::vector<uint32_t>* o) { append_dump(o, flags, buffer_va, buffer_size); });
}
std::vector<uint32_t> encode_halt() { return encoded(append_halt); }
std::vector<uint32_t> encode_draw(uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va) {
  return encoded([&](std::vector<uint32_t>* o) { append_draw(o, draw_info_va, pipe_state_va, shader_state_va); });
}

void append_draw_indirect(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va,
                          uint64_t shader_state_va, uint64_t args_va) {
  namespace P = pkt::DRAW_INDIRECT;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  put64(p, P::DRAW_INFO_VA_LO, P::DRAW_INFO_VA_HI, draw_info_va);
  put64(p, P::PIPE_STATE_VA_LO, P::PIPE_STATE_VA_HI, pipe_state_va);
  put64(p, P::SHADER_STATE_VA_LO, P::SHADER_STATE_VA_HI, shader_state_va);
  put64(p, P::ARGS_VA_LO, P::ARGS_VA_HI, args_va);
}
std::vector<uint32_t> encode_draw_indirect(uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va,
                                           uint64_t args_va) {
  return encoded([&](std::vector<uint32_t>* o) {
    append_draw_indirect(o, draw_info_va, pipe_state_va, shader_state_va, args_va);
  });
}

void append_draw_byte_count(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va,
                            uint64_t shader_state_va, uint64_t counter_va, uint32_t counter_offset,
                            uint32_t vertex_stride) {
  namespace P = pkt::DRAW_BYTE_COUNT;
  uint32_t* p = start_packet(out, P::OPCODE, P::SIZE_DWORDS);
  put64(p, P::DRAW_INFO_VA_LO, P::DRAW_INFO_VA_HI, draw_info_va);
  put64(p, P::PIPE_STATE_VA_LO, P::PIPE_STATE_VA_HI, pipe_state_va);
  put64(p, P::SHADER_STATE_VA_LO, P::SHADER_STATE_VA_HI, shader_state_va);
  put64(p, P::COUNTER_VA_LO, P::COUNTER_VA_HI, counter_va);
  p[P::COUNTER_OFFSET] = counter_offset;
  p[P::VERTEX_STRIDE] = vertex_stride;
}
std::vector<uint32_t> encode_draw_byte_count(uint64_t draw_info_va, uint64_t pipe_state_va,
                                             uint64_t shader_state_va, uint64_t counter_va,
                                             uint32_t counter_offset, uint32_t vertex_stride) {
  return encoded([&](std::vector<uint32_t>* o) {
    append_draw_byte_count(o, draw_info_va, pipe_state_va, shader_state_va, counter_va, counter_offset,
                           vertex_stride);
  });
}

}  // namespace gsgpu::hw
