// Running a recorded dispatch at vkQueueSubmit (docs/vulkan-driver.md "Compute"). The constant
// buffer (push constants, descriptor table, then the slab's base group and the dispatch's group
// counts) is written into the command stream's arena (mapped read-only), and a DISPATCH packet
// naming it and the pipeline's code joins the stream, as a draw's does (command_stream.h).
//
// A dispatch larger than the device's work-item limit per DISPATCH (drv::Caps::
// max_work_items_per_dispatch) runs as slabs of whole groups, each its own packet with the slab's
// global offset; the program adds the slab's base group to the cores' group id (WorkgroupId) and
// reads the whole dispatch's counts (NumWorkgroups), so the slabs compute what one packet would.
//
// vkCmdDispatchIndirect's counts are read from the buffer's memory here, when the queue reaches the
// command, after flushing the stream if it holds a dispatch: every earlier command of the
// submission has finished, so counts a compute shader or a transfer wrote just before are used. They come from
// memory the application (or a shader) controls, so they are checked like a direct dispatch's.
#include <algorithm>
#include <cstring>
#include <string>

#include "gsgpu/vk/binding_objects.h"
#include "protocol/gsgpu/packets.h"

namespace gsgpu::vk {
namespace {

// The invocations one vkCmdDispatch may ask for: 2^32 (e.g. 65535 x 65535 groups of 1): the
// driver's bound, not the device's, so that a dispatch of 65535^3 groups (each dimension within
// maxComputeWorkGroupCount) is refused instead of holding the queue for days.
constexpr uint64_t kMaxDispatchInvocations = uint64_t{1} << 32;

// The counts of an indirect dispatch (VkDispatchIndirectCommand, 12 bytes), checked; false with *why.
bool read_indirect_counts(const DispatchCommand& d, std::array<uint32_t, 3>* count, std::string* why) {
  if (!read_indirect_words(d.indirect, d.indirect_offset, 3, "VkDispatchIndirectCommand", count->data(), why)) {
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    if ((*count)[i] > kMaxComputeGroupCount) {
      return *why = "group count " + std::to_string((*count)[i]) + " from the buffer, over maxComputeWorkGroupCount",
             false;
    }
  }
  return true;
}

struct Slab {
  std::array<uint32_t, 3> first{}, size{};
};

// Slabs of whole groups, each at most `max_groups` groups: whole planes when they fit, else rows,
// else runs of a row. The caller bounds the dispatch, so there are few.
std::vector<Slab> slabs_of(const std::array<uint32_t, 3>& count, uint64_t max_groups) {
  const uint64_t x = count[0], y = count[1], z = count[2];
  const uint64_t sx = std::min(x, max_groups);
  const uint64_t sy = sx == x ? std::min(y, max_groups / x) : 1;
  const uint64_t sz = sx == x && sy == y ? std::min(z, max_groups / (x * y)) : 1;
  std::vector<Slab> slabs;
  for (uint64_t k = 0; k < z; k += sz)
    for (uint64_t j = 0; j < y; j += sy)
      for (uint64_t i = 0; i < x; i += sx)
        slabs.push_back(Slab{{uint32_t(i), uint32_t(j), uint32_t(k)},
                             {uint32_t(std::min(sx, x - i)), uint32_t(std::min(sy, y - j)), uint32_t(std::min(sz, z - k))}});
  return slabs;
}

// The slab's DISPATCH: its groups, the global offset of its first invocation, the program's memory.
hw::DispatchPacket slab_packet(const ComputePipeline& p, const std::array<uint32_t, 3>& base, const Slab& s,
                               uint64_t constants_va) {
  hw::DispatchPacket packet;
  packet.code_va = p.code_va;
  packet.code_size = p.code_size;
  packet.arg_va = constants_va;
  packet.arg_size = kComputeConstantBytes;
  for (int i = 0; i < 3; ++i) {
    packet.grid_size[i] = s.size[i];
    packet.group_size[i] = p.group_size[i];
    packet.global_offset[i] = (uint64_t{base[i]} + s.first[i]) * p.group_size[i];
  }
  packet.local_mem_size = p.local_bytes;
  packet.private_mem_size = p.private_bytes;
  return packet;
}

// Writes each slab's constant buffer into the stream's arena and appends its DISPATCH; the slabs
// are one command of the stream, so a fault in one loses the rest of the dispatch.
void append_slabs(Device* device, const DispatchCommand& d, const std::array<uint32_t, 3>& count) {
  CommandStream& stream = device->stream;
  const ComputePipeline& p = *d.pipeline;
  const uint64_t group = uint64_t{p.group_size[0]} * p.group_size[1] * p.group_size[2];
  const uint64_t max_groups = std::max<uint64_t>(1, device->drv->caps().max_work_items_per_dispatch / group);
  const std::vector<Slab> slabs = slabs_of(count, max_groups);
  stream.begin_command();
  for (const Slab& s : slabs) {
    std::optional<StreamSpan> span = stream.allocate(device, kComputeConstantBytes, "vkQueueSubmit: dispatch");
    if (!span) return;
    std::memcpy(span->bytes, d.constants.data(), d.constants.size());
    for (int i = 0; i < 3; ++i) {
      const uint32_t first = d.base[i] + s.first[i];  // below 65535: checked at recording / reading
      std::memcpy(span->bytes + kDispatchBaseAt + 4 * i, &first, 4);
      std::memcpy(span->bytes + kDispatchCountAt + 4 * i, &count[i], 4);
    }
    // A dispatch writes storage buffers: host reads of buffers after it flush the stream first.
    stream.append(device, hw::encode_dispatch(slab_packet(p, d.base, s, span->va)), {p.code_bo},
                  "vkQueueSubmit: dispatch", true);
  }
}

}  // namespace

void run(Device* device, const DispatchCommand& d) {
  const char* command = d.indirect != nullptr ? "vkCmdDispatchIndirect" : "vkCmdDispatch";
  std::array<uint32_t, 3> count = d.count;
  std::string why;
  if (d.indirect != nullptr) device->stream.host_reads_buffers(device);  // what earlier dispatches wrote
  if (d.indirect != nullptr && !read_indirect_counts(d, &count, &why)) return log_refusal(command, why, "dispatch skipped");
  if (count[0] == 0 || count[1] == 0 || count[2] == 0) return;  // nothing to run
  const ComputePipeline& p = *d.pipeline;
  const uint64_t invocations = uint64_t{count[0]} * count[1] * count[2] * p.group_size[0] * p.group_size[1] * p.group_size[2];
  if (invocations > kMaxDispatchInvocations) {
    return log_refusal(command, std::to_string(invocations) + " invocations, over the driver's 2^32 per dispatch",
                       "dispatch skipped");
  }
  append_slabs(device, d, count);
}

}  // namespace gsgpu::vk
