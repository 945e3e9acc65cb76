// The guest end of one gsgpu native context (capset 17, protocol/gsgpu_ctx): the transport, the
// response buffer with its fence page, the batch of requests that need no response, and the
// synchronous exchanges of those that do.
//
// Rings: the context gets the device's rings plus one more, the control ring, on which batches
// and synchronous requests travel. The host's context has no work on that ring, so its fences
// retire as soon as the requests before them ran: waiting for a control point is a round trip.
// Submissions go on the device ring they name, with the drv seqno as the transport's point, so a
// fence wait is a wait on the transport's timeline (docs/guest-driver.md).
//
// Not thread-safe: VirtioDevice serialises every call but the transport waits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "guest/transport/transport.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

namespace gsgpu::virtio {

namespace proto = gsvirt::gsgpu_ctx::proto;

class Channel {
 public:
  // Response buffer: the fence page, then one response slot for synchronous requests.
  static constexpr uint32_t kResponseBlobBytes = 4096;
  static constexpr uint32_t kResponseOffset = proto::kFencePageSize;
  // A batch is sent once it holds this much, whatever comes next.
  static constexpr size_t kBatchFlushBytes = 256 * 1024;

  explicit Channel(std::unique_ptr<gsvirt::guest::Transport> transport);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // GET_CAPSET (wire version and XML hash must match this build), CONTEXT_INIT with the device's
  // rings + the control ring, the response blob and SET_RESPONSE_BUFFER. false and *error when
  // the host cannot serve this guest.
  bool open(std::string* error);

  const proto::Capset& capset() const { return capset_; }
  uint32_t device_rings() const { return device_rings_; }
  gsvirt::guest::Transport& transport() { return *transport_; }
  // The transport failed (or the host refused the stream): every later call fails fast.
  bool lost() const { return lost_; }

  // Requests without a response are appended here (generated encode_* functions, rsp_off 0).
  std::vector<uint8_t>& batch() { return batch_; }
  // Sends the batch on the control ring when it has grown past kBatchFlushBytes.
  bool flush_if_full();
  // Sends whatever is batched (control ring, no point).
  bool flush();
  // Sends the batch, which ends with a SUBMIT request, on device ring `ring` with point `seqno`.
  bool send_submit(uint32_t ring, uint64_t seqno);
  // Appends one request with a response (encode(out, seqno, rsp_off)), sends the batch on the
  // control ring, waits for it, and copies `rsp_size` bytes of the response to `rsp`. false when
  // the transport failed or the host wrote no response (it refused the request: see its log).
  template <typename Encode>
  bool call(const char* what, Encode encode, void* rsp, size_t rsp_size) {
    if (!prepare_call(rsp_size)) return false;
    encode(batch_, call_seqno_, kResponseOffset);
    return finish_call(what, rsp, rsp_size);
  }

  // The host's fence page entry of a device ring (no round trip).
  proto::RingFence ring_fence(uint32_t ring) const;

  // A blob whose BO was destroyed: unreferenced once the batch carrying the BO_DESTROY was sent,
  // so the host never sees the resource go before the request.
  void destroy_blob_after_flush(const gsvirt::guest::Blob& blob);
  bool create_blob(uint64_t size, gsvirt::guest::Blob* out);

  const std::string& error() const { return error_; }

 private:
  bool check_capset(std::string* error);
  bool send(uint32_t ring, uint64_t point);
  bool prepare_call(size_t rsp_size);
  bool finish_call(const char* what, void* rsp, size_t rsp_size);
  bool lose(const std::string& why);

  std::unique_ptr<gsvirt::guest::Transport> transport_;
  proto::Capset capset_{};
  uint32_t device_rings_ = 0;
  uint32_t control_ring_ = 0;
  gsvirt::guest::Blob response_{};
  std::vector<uint8_t> batch_;
  std::vector<gsvirt::guest::Blob> blobs_to_destroy_;
  uint32_t call_seqno_ = 0;
  uint64_t control_point_ = 0;
  bool lost_ = false;
  std::string error_;
};

}  // namespace gsgpu::virtio
