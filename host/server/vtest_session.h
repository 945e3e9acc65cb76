// One vtest client's state and the handling of its messages, apart from any socket.
//
// The socket loop (vtest_server.cc) and the fuzzer (tests/fuzz/vtest) frame messages the same way:
//   1. payload_bytes(header)           how many bytes follow the header (or refuse the header);
//   2. trailing_bytes(command, payload) data that follows outside the length (TRANSFER_PUT2);
//   3. handle(message)                 act on it, queue replies.
// Any refusal logs the command and the field, and the client must then be dropped: the session
// stays consistent and its destructor frees every context, resource, sync and fd.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "host/renderer/renderer.h"
#include "protocol/vtest/vtest_protocol.h"

namespace gsvirt::server {

struct VtestHeader {
  uint32_t length = 0;
  uint32_t command = 0;
};

struct VtestMessage {
  uint32_t command = 0;
  std::span<const uint8_t> payload;
  std::span<const uint8_t> trailing;  // TRANSFER_PUT2 data
  std::span<const int> fds;           // received with the message (never expected)
};

// A reply to send: bytes, plus fds passed with them (owned by the reply until sent).
struct VtestReply {
  std::vector<uint8_t> bytes;
  std::vector<int> fds;
};

struct SessionLimits {
  uint64_t max_payload_bytes = (64ull << 20) + 4096;
  uint32_t max_syncs = 1024;
  uint32_t max_pending_waits = 64;
  uint32_t max_wait_entries = 64;
  uint32_t max_batches = 64;
  uint32_t max_name_bytes = 256;
  renderer::RendererLimits renderer;
};

class VtestSession {
 public:
  explicit VtestSession(SessionLimits limits = {});
  ~VtestSession();
  VtestSession(const VtestSession&) = delete;
  VtestSession& operator=(const VtestSession&) = delete;

  // Before the handshake (CREATE_RENDERER, then PROTOCOL_VERSION; PING_PROTOCOL_VERSION may come
  // between) only those small messages are accepted, so a client that has not yet shown it speaks
  // vtest cannot make the server buffer anything large.
  bool payload_bytes(const VtestHeader& header, uint64_t* bytes) const;
  bool trailing_bytes(uint32_t command, std::span<const uint8_t> payload, uint64_t* bytes);
  // false: protocol violation, drop the client.
  bool handle(const VtestMessage& message);

  // Replies queued by handle(), in order. The caller sends them and calls clear_replies(), which
  // closes any fd still held.
  std::vector<VtestReply>& replies() { return replies_; }
  void clear_replies();

  // Delivers fences of asynchronous contexts; the loop calls it while wants_poll() is true: when
  // poll_fd() is readable (a context reported a retirement) and, while wants_timer(), on a timer
  // (contexts that report completion only when the renderer polls them).
  void poll();
  bool wants_poll() const;
  bool wants_timer() const { return renderer_.has_pending_fences(); }
  int poll_fd() const { return renderer_.poll_fd(); }
  // Fences and sync waits still pending (the loop's measure of progress).
  size_t pending_work() const;

  bool handshake_done() const { return renderer_created_ && protocol_negotiated_; }
  const renderer::Renderer& renderer() const { return renderer_; }
  size_t sync_count() const { return syncs_.size(); }
  size_t pending_wait_count() const { return waits_.size(); }

  static constexpr uint32_t kContextId = 1;

 private:
  // A SYNC_WAIT in progress: the client holds one end of a socket pair, readable once the wait is
  // satisfied; the session keeps the other. A client that stops waiting (a timeout) closes its
  // end, and the session then drops the wait (its end hangs up), so waits that time out never
  // pile up.
  struct SyncWait {
    int write_fd = -1;
    bool any = false;
    std::vector<std::pair<uint32_t, uint64_t>> points;  // sync id, value to reach
  };

  bool create_renderer(std::span<const uint8_t> payload);
  bool ping_protocol_version();
  bool protocol_version(std::span<const uint8_t> payload);
  bool get_param(std::span<const uint8_t> payload);
  bool get_capset(std::span<const uint8_t> payload);
  bool context_init(std::span<const uint8_t> payload);
  bool resource_create_blob(std::span<const uint8_t> payload);
  bool resource_unref(std::span<const uint8_t> payload);
  bool transfer_get2(std::span<const uint8_t> payload);
  bool transfer_put2(std::span<const uint8_t> payload, std::span<const uint8_t> data);
  bool sync_create(std::span<const uint8_t> payload);
  bool sync_unref(std::span<const uint8_t> payload);
  bool sync_read(std::span<const uint8_t> payload);
  bool sync_write(std::span<const uint8_t> payload);
  bool sync_wait(std::span<const uint8_t> payload);
  bool submit_cmd2(std::span<const uint8_t> payload);
  bool submit_batch(std::span<const uint8_t> payload, const vtest::SubmitBatch& batch);

  // Resolves a transfer's resource and range; logs and fails when it is not this client's.
  bool transfer_target(const char* command, std::span<const uint8_t> payload, uint8_t** at,
                       uint64_t* size);
  bool owns_resource(const char* command, uint32_t res_id) const;
  void reply(uint32_t command, std::initializer_list<uint32_t> words, int fd = -1);
  void on_fence_retired(uint32_t ring, uint64_t fence_id);
  void set_sync(uint32_t sync_id, uint64_t value);
  void signal_ready_waits();
  void drop_abandoned_waits();
  bool wait_satisfied(const SyncWait& wait) const;

  SessionLimits limits_;
  renderer::Renderer renderer_;
  bool renderer_created_ = false;
  bool protocol_negotiated_ = false;
  bool context_created_ = false;
  uint32_t next_res_id_ = 1;
  uint32_t next_sync_id_ = 1;
  std::map<uint32_t, uint64_t> syncs_;
  // A batch's syncs, set when the fence created behind it retires.
  struct PendingFence {
    uint64_t fence_id = 0;
    std::vector<std::pair<uint32_t, uint64_t>> syncs;  // sync id, value
  };
  std::map<uint32_t, std::deque<PendingFence>> ring_fences_;  // per ring, in creation order
  uint64_t next_fence_id_ = 1;  // the session's fence ids, unique over all rings
  std::vector<SyncWait> waits_;
  std::vector<VtestReply> replies_;
};

// Name of a vtest command for log lines ("SUBMIT_CMD2", or "command 99").
const char* vtest_command_name(uint32_t command);

}  // namespace gsvirt::server
