// The queue's command stream: one drv submission per run of device commands, state from pooled
// BOs, faults attributed through a progress word (command_stream.h, docs/vulkan-driver.md
// "Batching"). The caller holds Device::mutex for every call.
#include "gsgpu/vk/command_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "gsgpu/drv/packets.h"
#include "gsgpu/vk/binding_objects.h"
#include "gsgpu/vk/objects.h"

namespace gsgpu::vk {
namespace {

constexpr uint64_t kSpanAlign = 256;  // the largest alignment a state block needs (64 for blocks, 16 constants)

// Binds a fresh BO of `size` bytes at a new VA with `perms`; nullopt when either runs out.
std::optional<ArenaBlock> bind_new_bo(Device* device, uint64_t size, uint32_t perms) {
  drv::Device& drv = *device->drv;
  ArenaBlock block;
  if (drv.bo_create(size, 0, &block.bo) != drv::Status::kOk) return std::nullopt;
  std::optional<uint64_t> va = device->va->allocate(size);
  if (!va || drv.va_bind(block.bo, 0, *va, size, perms) != drv::Status::kOk) {
    if (va) device->va->free(*va);
    drv.bo_free(block.bo);
    return std::nullopt;
  }
  block.va = *va;
  block.bytes = static_cast<uint8_t*>(drv.bo_map(block.bo));
  return block;
}

void unbind_and_free(Device* device, uint64_t va, uint64_t size, drv::BoHandle bo) {
  device->drv->va_unbind(va, size);
  device->va->free(va);
  device->drv->bo_free(bo);
}

}  // namespace

std::optional<ArenaBlock> CommandStream::new_block(Device* device) {
  return bind_new_bo(device, kBlockBytes, drv::kVaRead);
}

std::optional<StreamSpan> CommandStream::allocate(Device* device, uint64_t bytes, const char* what) {
  const uint64_t size = (bytes + kSpanAlign - 1) / kSpanAlign * kSpanAlign;
  if (size == 0 || size > kBlockBytes) {
    log_refusal(what, std::to_string(bytes) + " bytes of state, over the arena's block", "skipped");
    return std::nullopt;
  }
  if (block_ < blocks_.size() && block_used_ + size > kBlockBytes) {
    ++block_;
    block_used_ = 0;
  }
  // A full arena or a long run is flushed before the span is handed out (never after: the
  // packet that will use it must be submitted before the arena is reused).
  if (block_ == kMaxBlocks || words_.size() + kPacketRoom > kMaxDwords) {
    flush(device);  // resets block_ to 0: every block is free again
  }
  if (block_ == blocks_.size()) {
    std::optional<ArenaBlock> block = new_block(device);
    if (!block) {
      log_refusal(what, "no memory or GPU address space for its state blocks", "skipped");
      return std::nullopt;
    }
    blocks_.push_back(*block);
  }
  const ArenaBlock& b = blocks_[block_];
  StreamSpan span{b.va + block_used_, b.bytes + block_used_};
  block_used_ += size;
  std::memset(span.bytes, 0, size);
  return span;
}

bool CommandStream::ensure_progress_word(Device* device) {
  if (progress_ != nullptr) return true;
  std::optional<ArenaBlock> word = bind_new_bo(device, device->drv->caps().page_size, drv::kVaRead | drv::kVaWrite);
  if (!word) return false;
  progress_bo_ = word->bo;
  progress_va_ = word->va;
  progress_ = reinterpret_cast<volatile uint64_t*>(word->bytes);
  return true;
}

uint32_t* CommandStream::xfb_offsets(Device* device, uint64_t* va) {
  constexpr uint64_t kXfbOffsetsAt = 64;  // after the progress word, in its page
  if (!ensure_progress_word(device)) return nullptr;
  *va = progress_va_ + kXfbOffsetsAt;
  return reinterpret_cast<uint32_t*>(const_cast<uint64_t*>(progress_) + kXfbOffsetsAt / 8);
}

void CommandStream::append(Device* device, const std::vector<uint32_t>& packet,
                           std::initializer_list<drv::BoHandle> bos, const char* what, bool writes_buffers) {
  if (!ensure_progress_word(device)) {
    log_refusal(what, "no memory for the stream's progress word", "skipped");
    return;
  }
  // A packet without arena state (REPORT, SYNC) may flush here; one with state had its room
  // reserved by allocate.
  if (words_.size() + packet.size() + kPacketRoom > kMaxDwords + kPacketRoom / 2) flush(device);
  StreamPacket p{uint32_t(words_.size()), 0, command_, what};
  words_.insert(words_.end(), packet.begin(), packet.end());
  // Once the packet has finished (the command processor runs packets in order, each to the end),
  // the progress word says so: a fault leaves it at the last packet that completed.
  drv::append_sync(&words_, drv::kSyncWriteFence | drv::kSyncFence64, progress_va_, packets_.size() + 1);
  p.end_dword = uint32_t(words_.size());
  packets_.push_back(p);
  for (drv::BoHandle bo : bos) {
    if (bo != 0 && std::find(bos_.begin(), bos_.end(), bo) == bos_.end()) bos_.push_back(bo);
  }
  writes_buffers_ = writes_buffers_ || writes_buffers;
}

size_t CommandStream::submit_from(Device* device, size_t from) {
  drv::Device& drv = *device->drv;
  *progress_ = from;
  const uint32_t first = packets_[from].first_dword;
  for (const ArenaBlock& b : blocks_) {
    if (std::find(bos_.begin(), bos_.end(), b.bo) == bos_.end()) bos_.push_back(b.bo);
  }
  bos_.push_back(progress_bo_);
  drv::SubmitDesc desc{device->queue.ring, words_.data() + first, uint32_t(words_.size() - first), bos_.data(),
                       uint32_t(bos_.size())};
  bos_.pop_back();
  uint64_t seqno = 0;
  drv::Status status = drv.submit(desc, &seqno);
  if (status == drv::Status::kOk) {
    device->queue.last_seqno = seqno;
    status = drv.fence_wait(device->queue.ring, seqno, UINT64_MAX);
  }
  last_faulted_ = status != drv::Status::kOk;
  if (status == drv::Status::kOk) return packets_.size();
  // The packet that faulted: the first one whose progress write did not land.
  const uint64_t done = *progress_;
  const size_t faulted = size_t(std::min<uint64_t>(std::max<uint64_t>(done, from), packets_.size() - 1));
  std::string why = std::string("the device refused or faulted it (") + drv::status_name(status) + ")";
  for (const drv::FaultInfo& f : drv.read_faults()) why += ": " + f.message;
  log_refusal(packets_[faulted].what, why, "lost");
  if (status != drv::Status::kFaulted) return packets_.size();  // refused whole: nothing ran
  return faulted;
}

void CommandStream::flush(Device* device) {
  size_t next = 0;
  while (next < packets_.size()) {
    const size_t faulted = submit_from(device, next);
    if (faulted >= packets_.size()) break;
    // The rest of the faulted command is lost with it; the next command goes on.
    next = faulted + 1;
    while (next < packets_.size() && packets_[next].command == packets_[faulted].command) ++next;
  }
  words_.clear();
  packets_.clear();
  bos_.clear();
  writes_buffers_ = false;
  block_ = 0;
  block_used_ = 0;
}

void CommandStream::release(Device* device) {
  for (const ArenaBlock& b : blocks_) unbind_and_free(device, b.va, kBlockBytes, b.bo);
  blocks_.clear();
  if (progress_ != nullptr) unbind_and_free(device, progress_va_, device->drv->caps().page_size, progress_bo_);
  progress_ = nullptr;
}

}  // namespace gsgpu::vk
