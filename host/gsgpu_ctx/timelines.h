// The rings of one native context as the guest sees them: every submission carries the guest's
// own seqno for its ring, and retires in ring order on the device thread. Timelines maps device
// seqnos to guest seqnos and publishes what retired (and what faulted) in the fence page at the
// start of the response buffer. The renderer's fences are a separate timeline with ids the guest's
// VMM chose: a fence is attached to the last submission of its ring when it is created and
// reported (ContextCreateInfo::retire_fence, that exact id) once that submission has retired.
//
// A submission refused after its ring and seqno were admitted still takes its place on the
// timeline: it retires, as faulted, right after the submissions before it, so a guest waiting for
// its seqno never waits forever.
//
// Thread safety: the decoder thread admits, submits, refuses and moves the response buffer; the
// device thread calls retired(). One mutex guards all of it; the device is never called under it
// except for submit(), which the device thread never waits on (on_retire runs unlocked there).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gsgpu/drv/drv.h"
#include "host/renderer/context.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

namespace gsvirt::gsgpu_ctx {

// Where responses and the fence page go: [offset, offset + size) of an attached blob.
struct ResponseBuffer {
  std::shared_ptr<renderer::Resource> resource;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint8_t* base() const { return resource ? resource->host_map + offset : nullptr; }
};

class Timelines {
 public:
  Timelines(uint32_t ctx_id, uint32_t num_rings, renderer::FenceRetireFn retire_fence, void* cookie);

  // Moves the response buffer (resource null: none) and writes the whole fence page into it.
  void set_response_buffer(const ResponseBuffer& buffer);
  ResponseBuffer response_buffer() const;
  // Drops the response buffer when it lives in `res_id` (the resource is being detached).
  void drop_response_buffer_of(uint32_t res_id);

  // Whether a submission may take `guest_seqno` on `ring`: the ring exists and the seqno is above
  // every earlier one of the ring. On true the seqno is taken: the submission must follow with
  // submit() or refuse().
  bool admit(uint32_t ring, uint64_t guest_seqno, std::string* why);
  // Hands an admitted submission to the device. On failure it is refused (see refuse()).
  gsgpu::drv::Status submit(gsgpu::drv::Device& device, const gsgpu::drv::SubmitDesc& desc,
                            uint64_t guest_seqno);
  // An admitted submission that will not run: it retires as faulted after the ones before it.
  void refuse(uint32_t ring, uint64_t guest_seqno);

  // Submissions handed to the device that have not retired, over all rings.
  uint32_t in_flight() const;
  // Renderer fence `fence_id` on `ring`: true when nothing admitted on the ring is still waiting
  // to retire (any ring the device does not have is idle), so it retires now; otherwise it is
  // reported once the ring's newest admitted submission retires, after the fences before it.
  bool attach_fence(uint32_t ring, uint64_t fence_id);
  // Waits until every submission handed to the device has retired here (the device reports a
  // retirement just after its own bookkeeping); false after `timeout_ms`.
  bool wait_all_retired(int timeout_ms);
  // Per ring, the newest device seqno retire() has seen (0: none).
  std::vector<uint64_t> retired_device_seqnos() const;
  // The guest seqno of a device submission (0 when it is no longer known).
  uint64_t guest_seqno_of(uint32_t ring, uint64_t device_seqno) const;

  // LocalConfig::on_retire: the device retired `device_seqno` of `ring`.
  void retired(uint32_t ring, uint64_t device_seqno, gsgpu::drv::Status outcome);

 private:
  struct Pending {
    uint64_t device_seqno;  // 0: refused, retires with the entry before it
    uint64_t guest_seqno;
    std::vector<uint64_t> fence_ids = {};  // renderer fences created right after it, in order
  };
  struct Ring {
    uint64_t last_admitted = 0;
    uint64_t retired_device_seqno = 0;
    std::deque<Pending> pending;
    uint64_t retired = 0;
    uint64_t faulted = 0;
    std::deque<Pending> recent_faults;  // device -> guest seqno of the newest faulted submissions
  };

  void refuse_locked(uint32_t ring, uint64_t guest_seqno);
  // Publishes ring progress: the fence page, then the renderer fences of what retired, in order.
  // Caller holds mutex_.
  void publish_locked(uint32_t ring, const std::vector<uint64_t>& fence_ids);
  void write_ring_locked(uint32_t ring);
  void remember_fault_locked(Ring& r, const Pending& p);

  const uint32_t ctx_id_;
  const renderer::FenceRetireFn retire_fence_;
  void* const cookie_;
  mutable std::mutex mutex_;
  std::condition_variable all_retired_;
  std::vector<Ring> rings_;
  uint32_t in_flight_ = 0;
  ResponseBuffer buffer_;
};

}  // namespace gsvirt::gsgpu_ctx
