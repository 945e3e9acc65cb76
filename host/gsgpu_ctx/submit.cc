// SUBMIT: packets on one of the context's rings, with the guest's seqno for that ring.
//
// The ring and seqno are checked first; once they are admitted the submission takes its place on
// the ring's timeline whatever happens next (a refusal retires it as faulted, in order). The
// packets and BO ids are copied out of the stream before anything is checked, and the device
// validates every packet again as it executes (a bad one is a command fault of this context).
#include "common/log.h"
#include "host/gsgpu_ctx/context.h"

namespace gsvirt::gsgpu_ctx {

proto::Status GsgpuContext::handle_submit(const proto::Submit& r, proto::SubmitRsp*) {
  const proto::SubmitReq& q = r.req;
  std::string why;
  if (!timelines_.admit(q.ring, q.ring_seqno, &why))
    return refuse(q.ring >= config_.num_rings ? "ring" : "ring_seqno", why);

  auto refused = [&](const char* field, const std::string& reason, proto::Status status) {
    timelines_.refuse(q.ring, q.ring_seqno);
    return refuse(field, reason + " (seqno " + std::to_string(q.ring_seqno) + " retires as faulted)", status);
  };
  const proto::Limits& limits = config_.limits;
  if (q.flags != 0) return refused("flags", "unknown bits " + std::to_string(q.flags), proto::Status::kInvalidArgument);
  if (q.dword_count > limits.max_submit_dwords)
    return refused("dword_count", std::to_string(q.dword_count) + " is above the quota of " +
                                      std::to_string(limits.max_submit_dwords), proto::Status::kOutOfMemory);
  if (q.bo_count > limits.max_submit_bos)
    return refused("bo_count", std::to_string(q.bo_count) + " is above the quota of " +
                                   std::to_string(limits.max_submit_bos), proto::Status::kOutOfMemory);
  if (timelines_.in_flight() >= limits.max_pending_submits)
    return refused("ring", std::to_string(timelines_.in_flight()) + " submissions are still running (quota " +
                               std::to_string(limits.max_pending_submits) + ")", proto::Status::kOutOfMemory);
  // The counts are the request's fixed part (already copied by the decoder): refuse an oversized
  // submission before copying its arrays.
  r.packets.copy_to(&packet_copy_);
  std::vector<uint32_t> bo_ids;
  r.bos.copy_to(&bo_ids);
  submit_handles_.clear();
  for (uint32_t id : bo_ids) {
    const BoEntry* bo = bos_.find(id);
    if (!bo) return refused("bos", "unknown BO id " + std::to_string(id), proto::Status::kInvalidArgument);
    submit_handles_.push_back(bo->handle);
  }

  gsgpu::drv::SubmitDesc desc;
  desc.ring = q.ring;
  desc.packets = packet_copy_.data();
  desc.dwords = uint32_t(packet_copy_.size());
  desc.bos = submit_handles_.data();
  desc.bo_count = uint32_t(submit_handles_.size());
  gsgpu::drv::Status s = timelines_.submit(*device_, desc, q.ring_seqno);
  if (s != gsgpu::drv::Status::kOk)
    return refuse("packets", std::string("the device refused the submission (") + gsgpu::drv::status_name(s) +
                                 "); seqno " + std::to_string(q.ring_seqno) + " retires as faulted", from_drv(s));
  return proto::Status::kOk;
}

}  // namespace gsvirt::gsgpu_ctx
