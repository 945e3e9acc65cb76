#include "guest/gsgpu/channel.h"

#include <cstring>

#include "common/log.h"

namespace gsgpu::virtio {

using gsvirt::guest::Blob;
using gsvirt::guest::WaitResult;

Channel::Channel(std::unique_ptr<gsvirt::guest::Transport> transport) : transport_(std::move(transport)) {}

Channel::~Channel() {
  if (!lost_) flush();
  for (const Blob& blob : blobs_to_destroy_) transport_->destroy_blob(blob);
  if (response_.map) transport_->destroy_blob(response_);
}

bool Channel::check_capset(std::string* error) {
  std::vector<uint8_t> bytes;
  if (!transport_->get_capset(proto::kCapsetId, bytes)) {
    *error = "GET_CAPSET " + std::to_string(proto::kCapsetId) + " failed: " + transport_->error();
    return false;
  }
  if (bytes.size() < sizeof capset_) {
    *error = "the host's capset " + std::to_string(proto::kCapsetId) + " is " + std::to_string(bytes.size()) +
             " bytes, not the " + std::to_string(sizeof capset_) + " of this guest";
    return false;
  }
  std::memcpy(&capset_, bytes.data(), sizeof capset_);
  if (capset_.wire_version != proto::kWireVersion ||
      std::memcmp(capset_.xml_hash, proto::kXmlHash, sizeof capset_.xml_hash) != 0) {
    *error = "the host speaks gsgpu_ctx wire version " + std::to_string(capset_.wire_version) + " (XML " +
             std::string(capset_.xml_hash, sizeof capset_.xml_hash) + "), this guest " +
             std::to_string(proto::kWireVersion) + " (XML " + proto::kXmlHash + "): rebuild one of them";
    return false;
  }
  const proto::Caps& caps = capset_.caps;
  if (caps.num_rings == 0 || caps.num_rings > proto::kMaxRings || caps.page_size == 0 ||
      (caps.page_size & (caps.page_size - 1)) != 0 || caps.page_size > Channel::kResponseBlobBytes) {
    *error = "the host's caps are unusable (num_rings " + std::to_string(caps.num_rings) + ", page_size " +
             std::to_string(caps.page_size) + ")";
    return false;
  }
  return true;
}

bool Channel::open(std::string* error) {
  if (!check_capset(error)) return false;
  device_rings_ = capset_.caps.num_rings;
  control_ring_ = device_rings_;
  if (!transport_->init_context(proto::kCapsetId, device_rings_ + 1)) {
    *error = "CONTEXT_INIT for capset " + std::to_string(proto::kCapsetId) + " failed: " + transport_->error();
    return false;
  }
  if (!transport_->create_blob(kResponseBlobBytes, &response_) || !response_.map) {
    *error = "cannot create the response blob: " + transport_->error();
    return false;
  }
  proto::SetResponseBufferReq req{};
  req.res_id = response_.resource_id;
  req.offset = 0;
  req.size = kResponseBlobBytes;
  proto::encode_set_response_buffer(batch_, 0, 0, req);
  // GET_CAPS answers through the buffer just set: proof that the host took it.
  proto::GetCapsRsp caps{};
  if (!call("GET_CAPS", [](auto& out, uint32_t seqno, uint32_t rsp_off) {
        proto::encode_get_caps(out, seqno, rsp_off, proto::GetCapsReq{});
      }, &caps, sizeof caps)) {
    *error = "the host did not answer through the response buffer: " + error_;
    return false;
  }
  const auto* page = static_cast<const proto::FencePage*>(response_.map);
  if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) != proto::kFencePageMagic) {
    *error = "the host wrote no fence page";
    return false;
  }
  return true;
}

bool Channel::lose(const std::string& why) {
  if (!lost_) gsvirt::log_error("gsgpu virtio: %s; the device is lost", why.c_str());
  lost_ = true;
  error_ = why;
  return false;
}

bool Channel::send(uint32_t ring, uint64_t point) {
  if (lost_) return false;
  bool ok = transport_->submit_on_ring(ring, batch_.data(), batch_.size(), point);
  batch_.clear();
  for (const Blob& blob : blobs_to_destroy_) transport_->destroy_blob(blob);
  blobs_to_destroy_.clear();
  if (!ok) return lose(std::string("transport ") + transport_->name() + ": " + transport_->error());
  return true;
}

bool Channel::flush_if_full() { return batch_.size() < kBatchFlushBytes || flush(); }

bool Channel::flush() {
  if (batch_.empty() && blobs_to_destroy_.empty()) return !lost_;
  return send(control_ring_, 0);
}

bool Channel::send_submit(uint32_t ring, uint64_t seqno) { return send(ring, seqno); }

bool Channel::prepare_call(size_t rsp_size) {
  if (lost_) return false;
  if (rsp_size < sizeof(proto::RspHeader) || kResponseOffset + rsp_size > kResponseBlobBytes)
    return lose("a response of " + std::to_string(rsp_size) + " bytes does not fit the response buffer");
  // Never 0, so a response slot left from an earlier call cannot pass for this one.
  if (++call_seqno_ == 0) ++call_seqno_;
  auto* slot = static_cast<uint8_t*>(response_.map) + kResponseOffset;
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), 0u, __ATOMIC_RELAXED);
  return true;
}

bool Channel::finish_call(const char* what, void* rsp, size_t rsp_size) {
  uint64_t point = ++control_point_;
  if (!send(control_ring_, point)) return false;
  // The host answers the control ring as soon as it has run the requests: poll first (vtest: one
  // SYNC_READ), wait only when the answer is not there yet.
  if (transport_->poll_point(control_ring_) < point &&
      transport_->wait_point(control_ring_, point, gsvirt::guest::kWaitForever) != WaitResult::kReached)
    return lose(std::string(what) + ": waiting for the host failed: " + transport_->error());
  const auto* slot = static_cast<const uint8_t*>(response_.map) + kResponseOffset;
  if (proto::load_response_seqno(slot) != call_seqno_) {
    error_ = std::string(what) + ": the host wrote no response (it refused the request; see its log)";
    gsvirt::log_error("gsgpu virtio: %s", error_.c_str());
    return false;
  }
  std::memcpy(rsp, slot, rsp_size);
  return true;
}

proto::RingFence Channel::ring_fence(uint32_t ring) const {
  if (!response_.map) return {};
  return proto::load_ring_fence(response_.map, ring);
}

void Channel::destroy_blob_after_flush(const Blob& blob) { blobs_to_destroy_.push_back(blob); }

bool Channel::create_blob(uint64_t size, Blob* out) {
  if (lost_) return false;
  if (transport_->create_blob(size, out) && out->map) return true;
  error_ = transport_->error();
  return false;
}

}  // namespace gsgpu::virtio
