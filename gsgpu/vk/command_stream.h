// The queue's command stream (docs/vulkan-driver.md "Batching"): the device packets of a
// submission's run of device commands (DRAW, DISPATCH, REPORT, SYNC) collected into one drv
// submission instead of one submission and one wait per command, with their state blocks and
// constants sub-allocated from pooled BOs (the arena) instead of a BO created, mapped and freed per
// command.
//
// A run ends (the stream is flushed: submitted and waited for) where the host must see the device's
// results or the device the host's: before a host command (a transfer, a render pass's load-op
// clears, a query copy), at a vkCmdWaitEvents, before the host reads memory that a dispatch of the
// run may have written (indirect arguments, indices), and at the end of the submission. Flushing
// waits, so the arena is free again after every flush; its BOs are kept for the next run.
//
// Faults: after each packet the stream writes the packet's number to a progress word (a SYNC), so a
// fault is attributed to the packet that raised it; that command is reported lost (the log line the
// per-command submissions gave) and the packets after it are submitted again from the next
// command, so one bad draw in a run costs that draw only, as before.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gsgpu/drv/drv.h"

namespace gsgpu::vk {

struct Device;

// A piece of the arena: its GPU address (read-only to the device) and its CPU bytes.
struct StreamSpan {
  uint64_t va = 0;
  uint8_t* bytes = nullptr;
};

// One packet of the stream with what the log calls it and the command it belongs to (a dispatch in
// slabs is several packets of one command: a fault in one loses the rest of that command).
struct StreamPacket {
  uint32_t first_dword = 0, end_dword = 0;  // its words and its progress SYNC
  uint32_t command = 0;
  const char* what = "";
};

// A BO of the arena, bound read-only at `va` and mapped at `bytes`.
struct ArenaBlock {
  drv::BoHandle bo = 0;
  uint64_t va = 0;
  uint8_t* bytes = nullptr;
};

class CommandStream {
 public:
  // Arena blocks are this large; a run that would need more than kMaxBlocks is flushed first.
  static constexpr uint64_t kBlockBytes = uint64_t{256} << 10;
  static constexpr size_t kMaxBlocks = 16;
  // Dwords of one run at most (the drv backends take 65536 per submission, the local one's ring
  // fits that with a DUMP after every draw): a longer run is flushed first.
  static constexpr size_t kMaxDwords = 16384;
  // What allocate leaves free for the packet that will use the span (a DISPATCH and its SYNC).
  static constexpr size_t kPacketRoom = 64;

  // `bytes` (at most kBlockBytes) of state at a 256-byte aligned address, zeroed; flushes the
  // stream first when the arena is full. nullopt (with a log line naming `what`) when no BO or
  // address space is left.
  std::optional<StreamSpan> allocate(Device* device, uint64_t bytes, const char* what);
  // A new command: the packets appended until the next call belong to it.
  void begin_command() { ++command_; }
  // Appends whole packets of the current command and the BOs they use (0s are skipped).
  // `writes_buffers`: the packet may write buffer memory (a dispatch), so host reads of buffers
  // must flush first (host_reads_buffers).
  void append(Device* device, const std::vector<uint32_t>& packet, std::initializer_list<drv::BoHandle> bos,
              const char* what, bool writes_buffers);
  // Before the host reads buffer memory the device may write: flushes when a dispatch is pending.
  void host_reads_buffers(Device* device) {
    if (writes_buffers_) flush(device);
  }
  // Submits the pending packets as one drv submission and waits for it (faults: above); the
  // arena is free again afterwards. Nothing to do when nothing is pending.
  void flush(Device* device);
  bool empty() const { return packets_.empty(); }
  // Frees the arena's and the progress word's BOs (vkDestroyDevice; the stream must be empty).
  void release(Device* device);

  // Transform feedback's four write offsets (XFB_BUFFER OFFSET_VA): 32-bit words in the progress
  // word's page, which every submission maps read / write; their GPU address in *va. nullptr
  // when the page could not be had. The host may touch them only with the stream flushed.
  uint32_t* xfb_offsets(Device* device, uint64_t* va);

  // Whether the stream's last drv submission faulted (its seqno then cannot be a fence's point).
  bool last_faulted() const { return last_faulted_; }

 private:
  bool ensure_progress_word(Device* device);
  std::optional<ArenaBlock> new_block(Device* device);
  // Submits packets_[from ..] once; the packet index a fault stopped at, or packets_.size().
  size_t submit_from(Device* device, size_t from);

  std::vector<uint32_t> words_;
  std::vector<StreamPacket> packets_;
  std::vector<drv::BoHandle> bos_;
  bool writes_buffers_ = false;
  uint32_t command_ = 0;
  std::vector<ArenaBlock> blocks_;
  size_t block_ = 0;       // the block being filled
  uint64_t block_used_ = 0;
  drv::BoHandle progress_bo_ = 0;
  uint64_t progress_va_ = 0;
  volatile uint64_t* progress_ = nullptr;
  bool last_faulted_ = false;
};

}  // namespace gsgpu::vk
