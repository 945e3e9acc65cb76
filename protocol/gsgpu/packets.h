// The command processor's packet encoder: the wire format of gsgpu.xml's <packets>, for every
// driver that builds command streams (the emulator's tools and tests, gsgpu/drv users such as the
// OpenCL runtime, the guest's native-context driver). Depends on the generated gsgpu_hw.h only, so
// userspace drivers use it without including anything of the emulator.
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu::hw {

// The fields of a DISPATCH packet (gsgpu.xml), in host form.
struct DispatchPacket {
  uint64_t code_va = 0;
  uint32_t code_size = 0;  // bytes, a non-zero multiple of 4
  uint32_t entry_offset = 0;
  uint64_t arg_va = 0;
  uint32_t arg_size = 0;
  uint32_t grid_size[3] = {1, 1, 1};   // work-groups
  uint32_t group_size[3] = {1, 1, 1};  // work-items per group
  uint64_t global_offset[3] = {0, 0, 0};
  uint32_t local_mem_size = 0;    // bytes per work-group
  uint32_t private_mem_size = 0;  // bytes per work-item
};

// Each append_* adds one whole packet at the end of `out`; encode_* returns it alone.
void append_nop(std::vector<uint32_t>* out, uint32_t size_dwords = 1);  // 0 is taken as 1
void append_dispatch(std::vector<uint32_t>* out, const DispatchPacket& packet);
// flags: pkt::SYNC::FLAGS_* (WRITE_FENCE, FENCE_64BIT, RAISE_IRQ).
void append_sync(std::vector<uint32_t>* out, uint32_t flags, uint64_t fence_va, uint64_t fence_value);
// flags: pkt::DUMP::FLAGS_* (TO_BUFFER, TO_HOST).
void append_dump(std::vector<uint32_t>* out, uint32_t flags, uint64_t buffer_va, uint32_t buffer_size);
void append_halt(std::vector<uint32_t>* out);
// A DRAW with the addresses of its DRAW_INFO, PIPE_STATE and SHADER_STATE blocks (gsgpu.xml <blocks>).
void append_draw(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va);

// A REPORT (gsgpu.xml): once all earlier work is complete, the counter (pkt::REPORT::FLAGS_COUNTER_*) as
// 64 bits at value_va, then, when write_availability, avail_value as 64 bits at avail_va.
void append_report(std::vector<uint32_t>* out, uint32_t counter, uint64_t value_va, bool write_availability = false,
                   uint64_t avail_va = 0, uint32_t avail_value = 0);
std::vector<uint32_t> encode_report(uint32_t counter, uint64_t value_va, bool write_availability = false,
                                    uint64_t avail_va = 0, uint32_t avail_value = 0);

std::vector<uint32_t> encode_nop(uint32_t size_dwords = 1);
std::vector<uint32_t> encode_dispatch(const DispatchPacket& packet);
std::vector<uint32_t> encode_draw(uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va);
// DRAW_INDIRECT: a DRAW whose counts the command processor reads at `args_va` when it runs it.
void append_draw_indirect(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va,
                          uint64_t shader_state_va, uint64_t args_va);
std::vector<uint32_t> encode_draw_indirect(uint64_t draw_info_va, uint64_t pipe_state_va, uint64_t shader_state_va,
                                           uint64_t args_va);
// DRAW_BYTE_COUNT: a DRAW of (counter at `counter_va` - counter_offset) / vertex_stride vertices, the
// counter read by the command processor when it runs it (vkCmdDrawIndirectByteCountEXT).
void append_draw_byte_count(std::vector<uint32_t>* out, uint64_t draw_info_va, uint64_t pipe_state_va,
                            uint64_t shader_state_va, uint64_t counter_va, uint32_t counter_offset,
                            uint32_t vertex_stride);
std::vector<uint32_t> encode_draw_byte_count(uint64_t draw_info_va, uint64_t pipe_state_va,
                                             uint64_t shader_state_va, uint64_t counter_va,
                                             uint32_t counter_offset, uint32_t vertex_stride);
std::vector<uint32_t> encode_sync(uint32_t flags, uint64_t fence_va, uint64_t fence_value);
std::vector<uint32_t> encode_dump(uint32_t flags, uint64_t buffer_va, uint32_t buffer_size);
std::vector<uint32_t> encode_halt();

}  // namespace gsgpu::hw
