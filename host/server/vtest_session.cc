#include "host/server/vtest_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "common/checked_math.h"
#include "common/log.h"
#include "common/wire.h"
#include "host/renderer/capset_registry.h"

namespace gsvirt::server {
namespace {

using namespace gsvirt::vtest;

// Every refusal names the command and the field; the caller then drops the client.
bool refuse(uint32_t command, const char* field, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool refuse(uint32_t command, const char* field, const char* fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  log_error("vtest: %s: %s %s; dropping the client", vtest_command_name(command), field, why);
  return false;
}

// Reads a fixed-size request; the payload must be exactly `dwords` long.
bool expect_dwords(uint32_t command, std::span<const uint8_t> payload, uint32_t dwords) {
  if (payload.size() == uint64_t(dwords) * 4) return true;
  return refuse(command, "length", "is %zu dwords, expected %u", payload.size() / 4, dwords);
}


}  // namespace

const char* vtest_command_name(uint32_t command) {
  switch (command) {
    case kResourceUnref: return "RESOURCE_UNREF";
    case kCreateRenderer: return "CREATE_RENDERER";
    case kPingProtocolVersion: return "PING_PROTOCOL_VERSION";
    case kProtocolVersionCmd: return "PROTOCOL_VERSION";
    case kTransferGet2: return "TRANSFER_GET2";
    case kTransferPut2: return "TRANSFER_PUT2";
    case kGetParam: return "GET_PARAM";
    case kGetCapset: return "GET_CAPSET";
    case kContextInit: return "CONTEXT_INIT";
    case kResourceCreateBlob: return "RESOURCE_CREATE_BLOB";
    case kSyncCreate: return "SYNC_CREATE";
    case kSyncUnref: return "SYNC_UNREF";
    case kSyncRead: return "SYNC_READ";
    case kSyncWrite: return "SYNC_WRITE";
    case kSyncWait: return "SYNC_WAIT";
    case kSubmitCmd2: return "SUBMIT_CMD2";
    default: {
      thread_local char name[32];
      std::snprintf(name, sizeof name, "command %u", command);
      return name;
    }
  }
}

VtestSession::VtestSession(SessionLimits limits)
    : limits_(limits),
      renderer_([this](uint32_t, uint32_t ring, uint64_t fence_id) { on_fence_retired(ring, fence_id); },
                limits.renderer) {}

VtestSession::~VtestSession() {
  clear_replies();
  for (auto& w : waits_) close(w.write_fd);
}

void VtestSession::clear_replies() {
  for (auto& r : replies_)
    for (int fd : r.fds) close(fd);
  replies_.clear();
}

// The messages a client may send before the handshake is done, each with its exact length.
static bool handshake_message_fits(const VtestHeader& h) {
  switch (h.command) {
    case kCreateRenderer: return true;  // bounded by the name limit below
    case kPingProtocolVersion: return h.length == 0;
    case kProtocolVersionCmd: return h.length == kProtocolVersionDwords;
    default: return false;
  }
}

bool VtestSession::payload_bytes(const VtestHeader& h, uint64_t* bytes) const {
  uint64_t n = h.command == kCreateRenderer ? uint64_t(h.length) : uint64_t(h.length) * 4;
  if (!handshake_done() && !handshake_message_fits(h))
    return refuse(h.command, "command", "(length %u) arrived before the handshake was done",
                  h.length);
  if (h.command == kCreateRenderer && n > limits_.max_name_bytes)
    return refuse(h.command, "length", "%" PRIu64 " bytes exceeds the name limit %u", n,
                  limits_.max_name_bytes);
  if (n > limits_.max_payload_bytes)
    return refuse(h.command, "length", "%" PRIu64 " bytes exceeds the message limit %" PRIu64, n,
                  limits_.max_payload_bytes);
  *bytes = n;
  return true;
}

bool VtestSession::trailing_bytes(uint32_t command, std::span<const uint8_t> payload,
                                  uint64_t* bytes) {
  *bytes = 0;
  if (command != kTransferPut2) return true;
  uint8_t* at = nullptr;
  if (!transfer_target("TRANSFER_PUT2", payload, &at, bytes)) return false;
  // The loop buffers the data before handle(): bound it like any message.
  if (*bytes > limits_.max_payload_bytes)
    return refuse(kTransferPut2, "data_size", "%" PRIu64 " exceeds the message limit %" PRIu64,
                  *bytes, limits_.max_payload_bytes);
  return true;
}

bool VtestSession::handle(const VtestMessage& m) {
  if (!m.fds.empty())
    return refuse(m.command, "fds", "%zu file descriptors sent where none is expected",
                  m.fds.size());
  if (!renderer_created_ && m.command != kCreateRenderer)
    return refuse(m.command, "command", "arrived before CREATE_RENDERER");
  if (!handshake_done() && m.command != kCreateRenderer && m.command != kPingProtocolVersion &&
      m.command != kProtocolVersionCmd)
    return refuse(m.command, "command", "arrived before PROTOCOL_VERSION");
  if (m.command != kTransferPut2 && !m.trailing.empty())
    return refuse(m.command, "data", "trailing data on a command that takes none");
  log_debug(kDebugTransport, "vtest: %s (%zu bytes)", vtest_command_name(m.command),
            m.payload.size());
  switch (m.command) {
    case kCreateRenderer: return create_renderer(m.payload);
    case kPingProtocolVersion: return ping_protocol_version();
    case kProtocolVersionCmd: return protocol_version(m.payload);
    case kGetParam: return get_param(m.payload);
    case kGetCapset: return get_capset(m.payload);
    case kContextInit: return context_init(m.payload);
    case kResourceCreateBlob: return resource_create_blob(m.payload);
    case kResourceUnref: return resource_unref(m.payload);
    case kTransferGet2: return transfer_get2(m.payload);
    case kTransferPut2: return transfer_put2(m.payload, m.trailing);
    case kSyncCreate: return sync_create(m.payload);
    case kSyncUnref: return sync_unref(m.payload);
    case kSyncRead: return sync_read(m.payload);
    case kSyncWrite: return sync_write(m.payload);
    case kSyncWait: return sync_wait(m.payload);
    case kSubmitCmd2: return submit_cmd2(m.payload);
    default: return refuse(m.command, "command", "is not a vtest v3 command gsvirt serves");
  }
}

void VtestSession::reply(uint32_t command, std::initializer_list<uint32_t> words, int fd) {
  VtestReply r;
  WireWriter out(r.bytes);
  out.u32(uint32_t(words.size()));
  out.u32(command);
  for (uint32_t w : words) out.u32(w);
  if (fd >= 0) r.fds.push_back(fd);
  replies_.push_back(std::move(r));
}

bool VtestSession::create_renderer(std::span<const uint8_t> payload) {
  if (renderer_created_) return refuse(kCreateRenderer, "command", "sent twice");
  renderer_created_ = true;
  std::string name(payload.begin(), payload.end());
  name.resize(strnlen(name.c_str(), name.size()));
  log_debug(kDebugTransport, "vtest: client \"%s\"", name.c_str());
  return true;
}

bool VtestSession::ping_protocol_version() {
  reply(kPingProtocolVersion, {});
  return true;
}

bool VtestSession::protocol_version(std::span<const uint8_t> payload) {
  if (!expect_dwords(kProtocolVersionCmd, payload, kProtocolVersionDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t asked = in.u32("version");
  protocol_negotiated_ = true;
  reply(kProtocolVersionCmd, {asked < kProtocolVersion ? asked : kProtocolVersion});
  return true;
}

bool VtestSession::get_param(std::span<const uint8_t> payload) {
  if (!expect_dwords(kGetParam, payload, kGetParamDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t param = in.u32("param");
  // Unknown parameters are answered "not valid", as the protocol expects, not refused.
  if (param == kParamMaxTimelineCount)
    reply(kGetParam, {1, limits_.renderer.max_rings});
  else
    reply(kGetParam, {0, 0});
  return true;
}

bool VtestSession::get_capset(std::span<const uint8_t> payload) {
  if (!expect_dwords(kGetCapset, payload, kGetCapsetDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t capset_id = in.u32("capset_id"), version = in.u32("version");
  auto capset = renderer::find_capset(capset_id);
  // gsvirt convention: version 0 asks for the latest version the host has.
  if (capset && version == 0) version = capset->max_version;
  if (!capset || version > capset->max_version) {
    reply(kGetCapset, {0});
    return true;
  }
  std::vector<uint8_t> caps;
  capset->fill_caps(version, caps);
  VtestReply r;
  WireWriter out(r.bytes);
  auto dwords = align4(caps.size());
  out.u32(uint32_t(1 + *dwords / 4));
  out.u32(kGetCapset);
  out.u32(1);
  out.bytes(caps.data(), caps.size());
  replies_.push_back(std::move(r));
  return true;
}

bool VtestSession::context_init(std::span<const uint8_t> payload) {
  if (!expect_dwords(kContextInit, payload, kContextInitDwords)) return false;
  if (context_created_) return refuse(kContextInit, "command", "sent twice");
  WireReader in(payload.data(), payload.size());
  uint32_t capset_id = in.u32("capset_id");
  if (renderer_.create_context(kContextId, capset_id, "vtest") < 0)
    return refuse(kContextInit, "capset_id", "%u: no context could be created", capset_id);
  context_created_ = true;
  return true;
}

bool VtestSession::resource_create_blob(std::span<const uint8_t> payload) {
  if (!expect_dwords(kResourceCreateBlob, payload, kCreateBlobDwords)) return false;
  if (!context_created_) return refuse(kResourceCreateBlob, "command", "before CONTEXT_INIT");
  WireReader in(payload.data(), payload.size());
  uint32_t type = in.u32("type"), flags = in.u32("flags");
  uint64_t size = in.u64("size");
  uint64_t blob_id = in.u64("blob_id");
  // A vtest client has no guest pages to offer: only host memory shared as a memfd makes sense.
  if (type != kBlobTypeHost3d)
    return refuse(kResourceCreateBlob, "type", "%u is not HOST3D (2)", type);
  if (!(flags & kBlobFlagMappable))
    return refuse(kResourceCreateBlob, "flags", "0x%x lacks MAPPABLE", flags);
  if (next_res_id_ == 0) return refuse(kResourceCreateBlob, "res_id", "space is exhausted");
  renderer::BlobCreateInfo info;
  info.res_id = next_res_id_;
  info.ctx_id = kContextId;
  info.blob_mem = renderer::kBlobMemHost3d;
  info.blob_flags = flags;
  info.blob_id = blob_id;
  info.size = size;
  if (renderer_.create_blob(info) < 0) {
    // A size over a quota or the process's file-size limit is a request the host declines, not a
    // malformed message: the client gets res_id 0 and no fd, and keeps its connection (the
    // renderer allocated nothing and logged which limit).
    log_error("vtest: RESOURCE_CREATE_BLOB: size %" PRIu64 " (flags 0x%x, blob_id %" PRIu64
              "): the renderer refused the blob; answered with res_id 0", size, flags, blob_id);
    reply(kResourceCreateBlob, {0});
    return true;
  }
  int fd = -1;
  if (renderer_.attach_resource(kContextId, info.res_id) < 0 ||
      renderer_.export_blob(info.res_id, &fd) < 0) {
    renderer_.unref_resource(info.res_id);
    return refuse(kResourceCreateBlob, "res_id", "%u could not be attached or exported",
                  info.res_id);
  }
  next_res_id_++;
  reply(kResourceCreateBlob, {info.res_id}, fd);
  return true;
}

bool VtestSession::owns_resource(const char* command, uint32_t res_id) const {
  if (renderer_.is_attached(kContextId, res_id)) return true;
  log_error("vtest: %s: res_id %u is not a resource of this client; dropping the client", command,
            res_id);
  return false;
}

bool VtestSession::resource_unref(std::span<const uint8_t> payload) {
  if (!expect_dwords(kResourceUnref, payload, kResourceUnrefDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t res_id = in.u32("res_id");
  if (!owns_resource("RESOURCE_UNREF", res_id)) return false;
  renderer_.unref_resource(res_id);
  return true;
}

bool VtestSession::transfer_target(const char* command, std::span<const uint8_t> payload,
                                   uint8_t** at, uint64_t* size) {
  if (payload.size() != kTransfer2Dwords * 4) {
    log_error("vtest: %s: length is %zu dwords, expected %u; dropping the client", command,
              payload.size() / 4, kTransfer2Dwords);
    return false;
  }
  WireReader in(payload.data(), payload.size());
  uint32_t words[kTransfer2Dwords];
  for (uint32_t& w : words) w = in.u32("transfer");
  uint32_t res_id = words[kTransfer2ResId];
  uint64_t data_size = words[kTransfer2DataSize], offset = words[kTransfer2Offset];
  if (!owns_resource(command, res_id)) return false;
  void* map = nullptr;
  uint64_t res_size = 0;
  if (renderer_.get_map(res_id, &map, &res_size) < 0) return false;
  if (!range_within(offset, data_size, res_size)) {
    log_error("vtest: %s: offset %" PRIu64 " + data_size %" PRIu64
              " runs past resource %u of %" PRIu64 " bytes; dropping the client",
              command, offset, data_size, res_id, res_size);
    return false;
  }
  *at = static_cast<uint8_t*>(map) + offset;
  *size = data_size;
  return true;
}

bool VtestSession::transfer_get2(std::span<const uint8_t> payload) {
  uint8_t* at = nullptr;
  uint64_t size = 0;
  if (!transfer_target("TRANSFER_GET2", payload, &at, &size)) return false;
  VtestReply r;
  r.bytes.assign(at, at + size);
  replies_.push_back(std::move(r));
  return true;
}

bool VtestSession::transfer_put2(std::span<const uint8_t> payload, std::span<const uint8_t> data) {
  uint8_t* at = nullptr;
  uint64_t size = 0;
  if (!transfer_target("TRANSFER_PUT2", payload, &at, &size)) return false;
  if (data.size() != size)
    return refuse(kTransferPut2, "data_size", "%" PRIu64 " but %zu bytes followed", size,
                  data.size());
  if (size) std::memcpy(at, data.data(), size);
  return true;
}

bool VtestSession::sync_create(std::span<const uint8_t> payload) {
  if (!expect_dwords(kSyncCreate, payload, kSyncCreateDwords)) return false;
  if (syncs_.size() >= limits_.max_syncs)
    return refuse(kSyncCreate, "sync_id", "exceeds the limit of %u syncs", limits_.max_syncs);
  if (next_sync_id_ == 0) return refuse(kSyncCreate, "sync_id", "space is exhausted");
  WireReader in(payload.data(), payload.size());
  uint64_t value = in.u64("value");
  uint32_t id = next_sync_id_++;
  syncs_[id] = value;
  reply(kSyncCreate, {id});
  return true;
}

bool VtestSession::sync_unref(std::span<const uint8_t> payload) {
  if (!expect_dwords(kSyncUnref, payload, kSyncUnrefDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t id = in.u32("sync_id");
  if (!syncs_.erase(id)) return refuse(kSyncUnref, "sync_id", "%u names no sync", id);
  return true;
}

bool VtestSession::sync_read(std::span<const uint8_t> payload) {
  if (!expect_dwords(kSyncRead, payload, kSyncReadDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t id = in.u32("sync_id");
  auto it = syncs_.find(id);
  if (it == syncs_.end()) return refuse(kSyncRead, "sync_id", "%u names no sync", id);
  reply(kSyncRead, {uint32_t(it->second), uint32_t(it->second >> 32)});
  return true;
}

bool VtestSession::sync_write(std::span<const uint8_t> payload) {
  if (!expect_dwords(kSyncWrite, payload, kSyncWriteDwords)) return false;
  WireReader in(payload.data(), payload.size());
  uint32_t id = in.u32("sync_id");
  uint64_t value = in.u64("value");
  if (!syncs_.count(id)) return refuse(kSyncWrite, "sync_id", "%u names no sync", id);
  set_sync(id, value);
  signal_ready_waits();
  return true;
}

bool VtestSession::sync_wait(std::span<const uint8_t> payload) {
  if (payload.size() < kSyncWaitFixedDwords * 4 ||
      (payload.size() / 4 - kSyncWaitFixedDwords) % kSyncWaitEntryDwords != 0 ||
      payload.size() % 4 != 0)
    return refuse(kSyncWait, "length", "%zu bytes is not 2 + 3n dwords", payload.size());
  uint64_t count = (payload.size() / 4 - kSyncWaitFixedDwords) / kSyncWaitEntryDwords;
  if (count == 0 || count > limits_.max_wait_entries)
    return refuse(kSyncWait, "count", "%" PRIu64 " is not 1..%u", count, limits_.max_wait_entries);
  drop_abandoned_waits();
  if (waits_.size() >= limits_.max_pending_waits)
    return refuse(kSyncWait, "count", "too many pending waits (%u)", limits_.max_pending_waits);
  WireReader in(payload.data(), payload.size());
  uint32_t flags = in.u32("flags");
  (void)in.u32("timeout");  // the client polls the returned fd with its own timeout
  SyncWait wait;
  wait.any = flags & kSyncWaitFlagAny;
  for (uint64_t i = 0; i < count; i++) {
    uint32_t id = in.u32("sync_id");
    uint64_t value = in.u64("value");
    if (!syncs_.count(id)) return refuse(kSyncWait, "sync_id", "%u names no sync", id);
    wait.points.emplace_back(id, value);
  }
  // A socket pair rather than an eventfd: the session sees when the client closes its end.
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ends) != 0)
    return refuse(kSyncWait, "fd", "socketpair failed: %s", std::strerror(errno));
  wait.write_fd = ends[1];
  waits_.push_back(std::move(wait));
  reply(kSyncWait, {}, ends[0]);
  signal_ready_waits();
  return true;
}

bool VtestSession::submit_cmd2(std::span<const uint8_t> payload) {
  if (!context_created_) return refuse(kSubmitCmd2, "command", "before CONTEXT_INIT");
  WireReader in(payload.data(), payload.size());
  uint32_t count = in.u32("batch_count");
  if (!in.ok()) return refuse(kSubmitCmd2, "batch_count", "is missing");
  if (count > limits_.max_batches)
    return refuse(kSubmitCmd2, "batch_count", "%u exceeds %u", count, limits_.max_batches);
  const uint8_t* raw = in.array(count, sizeof(vtest::SubmitBatch), "batches");
  if (!raw) return refuse(kSubmitCmd2, "batch_count", "%u batches run past the message", count);
  for (uint32_t i = 0; i < count; i++) {
    vtest::SubmitBatch batch;
    std::memcpy(&batch, raw + i * sizeof batch, sizeof batch);
    if (!submit_batch(payload, batch)) return false;
  }
  return true;
}

bool VtestSession::submit_batch(std::span<const uint8_t> payload, const vtest::SubmitBatch& b) {
  if (b.flags & ~kSubmitFlagRingIdx)
    return refuse(kSubmitCmd2, "flags", "0x%x: fence fds are not offered", b.flags);
  if (b.num_in_syncobj || b.num_out_syncobj)
    return refuse(kSubmitCmd2, "num_in_syncobj", "DRM syncobjs are not offered");
  uint64_t dwords = payload.size() / 4;
  if (!range_within(b.cmd_offset, b.cmd_size, dwords))
    return refuse(kSubmitCmd2, "cmd_offset", "%u + cmd_size %u runs past %" PRIu64 " dwords",
                  b.cmd_offset, b.cmd_size, dwords);
  auto sync_dwords = checked_mul<uint64_t>(b.sync_count, kSyncWaitEntryDwords);
  if (!range_within(b.sync_offset, *sync_dwords, dwords))
    return refuse(kSubmitCmd2, "sync_offset", "%u + %u syncs runs past %" PRIu64 " dwords",
                  b.sync_offset, b.sync_count, dwords);
  uint32_t ring = (b.flags & kSubmitFlagRingIdx) ? b.ring_idx : 0;
  if (ring >= limits_.renderer.max_rings)
    return refuse(kSubmitCmd2, "ring_idx", "%u is not below %u", ring, limits_.renderer.max_rings);
  std::vector<std::pair<uint32_t, uint64_t>> points;
  WireReader syncs(payload.data() + uint64_t(b.sync_offset) * 4, *sync_dwords * 4);
  for (uint32_t i = 0; i < b.sync_count; i++) {
    uint32_t id = syncs.u32("sync_id");
    uint64_t value = syncs.u64("value");
    if (!syncs_.count(id)) return refuse(kSubmitCmd2, "sync_id", "%u names no sync", id);
    points.emplace_back(id, value);
  }
  if (renderer_.submit(kContextId, payload.data() + uint64_t(b.cmd_offset) * 4,
                       uint64_t(b.cmd_size) * 4) < 0)
    return refuse(kSubmitCmd2, "cmd", "stream was rejected by the context");
  if (points.empty()) return true;
  // The syncs are set when a fence behind this batch retires. As a VMM's fence context does, the
  // session numbers its fences itself (unique, increasing); the sync values are the client's own
  // timeline and mean nothing to the context.
  uint64_t fence_id = next_fence_id_++;
  auto& pending = ring_fences_[ring];
  pending.push_back({fence_id, std::move(points)});
  if (renderer_.create_fence(kContextId, ring, fence_id) < 0) {
    pending.pop_back();
    return refuse(kSubmitCmd2, "ring_idx", "%u: fence could not be created", ring);
  }
  return true;
}

// The renderer retires the fences of a ring in creation order, each once: `fence_id` is the
// oldest pending fence of the ring.
void VtestSession::on_fence_retired(uint32_t ring, uint64_t fence_id) {
  auto it = ring_fences_.find(ring);
  if (it == ring_fences_.end() || it->second.empty() || it->second.front().fence_id != fence_id) {
    log_error("vtest: ring %u retired fence %" PRIu64 ", which is not the ring's oldest pending fence", ring,
              fence_id);
    return;
  }
  PendingFence fence = std::move(it->second.front());
  it->second.pop_front();
  for (const auto& [id, value] : fence.syncs)
    if (syncs_.count(id)) set_sync(id, value);
  signal_ready_waits();
}

void VtestSession::set_sync(uint32_t sync_id, uint64_t value) { syncs_[sync_id] = value; }

bool VtestSession::wait_satisfied(const SyncWait& wait) const {
  size_t reached = 0;
  for (const auto& [id, value] : wait.points) {
    auto it = syncs_.find(id);
    // A sync unreferenced while waited on counts as reached: nothing can ever signal it.
    if (it == syncs_.end() || it->second >= value) reached++;
  }
  return wait.any ? reached > 0 : reached == wait.points.size();
}

void VtestSession::signal_ready_waits() {
  std::erase_if(waits_, [this](SyncWait& w) {
    if (!wait_satisfied(w)) return false;
    char one = 1;
    (void)!send(w.write_fd, &one, 1, MSG_NOSIGNAL);  // the client may have gone: no SIGPIPE
    close(w.write_fd);
    return true;
  });
}

// A wait whose client end every holder has closed reports POLLHUP on the session's end: nobody
// listens. (Until the reply carrying the client end is sent, the session itself holds that end.)
void VtestSession::drop_abandoned_waits() {
  std::vector<pollfd> ends;
  for (const auto& w : waits_) ends.push_back({w.write_fd, 0, 0});
  if (ends.empty() || ::poll(ends.data(), ends.size(), 0) <= 0) return;
  size_t i = 0;
  std::erase_if(waits_, [&](SyncWait& w) {
    if (!(ends[i++].revents & (POLLHUP | POLLERR))) return false;
    close(w.write_fd);
    return true;
  });
}

void VtestSession::poll() {
  renderer_.poll();
  signal_ready_waits();
}

size_t VtestSession::pending_work() const {
  size_t n = waits_.size();
  for (const auto& [ring, fences] : ring_fences_) n += fences.size();
  return n;
}

bool VtestSession::wants_poll() const { return renderer_.has_pending_fences() || !waits_.empty(); }

}  // namespace gsvirt::server
