// The host connection: lazily opened, batches reply-less commands, checks every reply header.
#include "guest/cl/connection.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

constexpr uint64_t kStagingAlignment = 64;

std::unique_ptr<guest::Transport> default_transport(std::string* error) {
#ifdef GSVIRT_ICD_HAVE_TRANSPORT
  return guest::create_transport_from_env(error);
#else
  *error = "this build of the gsvirt ICD has no transport (guest/driver/transport was not built)";
  return nullptr;
#endif
}

struct ConnectionState {
  TransportFactory factory = default_transport;
  ConnectionLimits limits;
  std::unique_ptr<Connection> connection;
  bool failed = false;  // opening failed once: do not retry (and do not log again)
};

ConnectionState& state() {
  // Never destroyed: at exit, static destructors of an in-process host may already have run.
  static auto* s = new ConnectionState;
  return *s;
}

// At exit, commands still batched (typically the vcDestroyObject of the app's last releases)
// are sent, so the host frees those objects now rather than at context teardown.
void flush_at_exit() {
  auto& s = state();
  std::unique_lock<std::recursive_mutex> lock(icd_mutex(), std::try_to_lock);
  if (!lock.owns_lock() || !s.connection) return;  // exit() from inside a call: leave it
  s.connection->wait_idle("exit");
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

ConnectionLimits limits_from_env(ConnectionLimits limits) {
  const char* v = std::getenv("GSVIRT_TRANSFER_CHUNK_BYTES");
  if (!v || !*v) return limits;
  char* end = nullptr;
  unsigned long long bytes = std::strtoull(v, &end, 0);
  if (*end || bytes < kMinTransferChunkBytes || bytes > kMaxTransferChunkBytes) {
    log_error("gsvirt ICD: GSVIRT_TRANSFER_CHUNK_BYTES=%s is not a number of bytes in [%zu, %zu]; using %zu", v,
              kMinTransferChunkBytes, kMaxTransferChunkBytes, limits.transfer_chunk_bytes);
    return limits;
  }
  limits.transfer_chunk_bytes = size_t(bytes);
  return limits;
}

}  // namespace

bool capset_matches(const std::vector<uint8_t>& capset, std::string* error) {
  proto::Capset caps{};
  if (capset.size() < sizeof caps) {
    *error = "host capset " + std::to_string(proto::kCapsetId) + " is " + std::to_string(capset.size()) +
             " bytes, expected at least " + std::to_string(sizeof caps);
    return false;
  }
  std::memcpy(&caps, capset.data(), sizeof caps);
  std::string host_hash(caps.xml_hash, sizeof caps.xml_hash);
  if (caps.wire_version != proto::kWireVersion || host_hash != proto::kXmlHash) {
    *error = "protocol mismatch: host speaks vcomp wire version " + std::to_string(caps.wire_version) +
             " (vcomp.xml " + host_hash + "), this driver version " + std::to_string(proto::kWireVersion) +
             " (vcomp.xml " + proto::kXmlHash + "); rebuild guest and host from the same tree";
    return false;
  }
  return true;
}

bool reply_header_valid(const proto::ReplyHeader& header, uint32_t expected_seqno, size_t capacity,
                        std::string* error) {
  if (header.seqno != expected_seqno) {
    *error = "reply seqno " + std::to_string(header.seqno) + ", expected " + std::to_string(expected_seqno);
    return false;
  }
  if (header.payload_size > capacity) {
    *error = "reply payload of " + std::to_string(header.payload_size) + " bytes exceeds the reply buffer (" +
             std::to_string(capacity) + " bytes)";
    return false;
  }
  return true;
}

Connection* Connection::get() {
  auto& s = state();
  if (s.connection) return s.connection.get();
  if (s.failed) return nullptr;
  std::string error;
  auto transport = s.factory(&error);
  if (!transport) {
    log_error("gsvirt ICD: cannot reach the host: %s", error.c_str());
    s.failed = true;
    return nullptr;
  }
  std::unique_ptr<Connection> connection(new Connection(std::move(transport), s.limits));
  if (!connection->open(&error)) {
    log_error("gsvirt ICD: cannot open a vcomp context over %s: %s", connection->transport_->name(),
              error.c_str());
    s.failed = true;
    return nullptr;
  }
  s.connection = std::move(connection);
  static bool flush_registered = false;
  if (!flush_registered) flush_registered = std::atexit(flush_at_exit) == 0;
  return s.connection.get();
}

void Connection::set_transport_factory_for_testing(TransportFactory factory, ConnectionLimits limits) {
  auto& s = state();
  s.connection.reset();
  s.factory = factory ? std::move(factory) : TransportFactory(default_transport);
  s.limits = limits;
  s.failed = false;
}

Connection::Connection(std::unique_ptr<guest::Transport> transport, ConnectionLimits limits)
    : transport_(std::move(transport)), limits_(limits_from_env(limits)), sync_mode_(env_flag("GSVIRT_SYNC")) {}

Connection::~Connection() {
  if (!lost_ && (!batch_.empty() || unwaited_submit_)) submit(true, "teardown");
  if (staging_blob_.map) transport_->destroy_blob(staging_blob_);
  if (reply_blob_.map) transport_->destroy_blob(reply_blob_);
}

bool Connection::open(std::string* error) {
  if (!transport_->init_context(proto::kCapsetId)) {
    *error = "CONTEXT_INIT for capset " + std::to_string(proto::kCapsetId) + " failed: " + transport_->error();
    return false;
  }
  std::vector<uint8_t> capset;
  if (!transport_->get_capset(proto::kCapsetId, capset)) {
    *error = "GET_CAPSET " + std::to_string(proto::kCapsetId) + " failed: " + transport_->error();
    return false;
  }
  if (!capset_matches(capset, error)) return false;
  if (!transport_->create_blob(limits_.reply_bytes, &reply_blob_) || !reply_blob_.map) {
    *error = "cannot create the " + std::to_string(limits_.reply_bytes) + "-byte reply blob: " + transport_->error();
    return false;
  }
  std::memset(reply_blob_.map, 0, sizeof(proto::ReplyHeader));
  WireWriter w(batch_);
  proto::encode_vcSetReplyBuffer(w, false, reply_blob_.resource_id, 0, reply_blob_.size);
  proto::Reply_vcHandshake hello;
  cl_int err = call(
      "vcHandshake",
      [](WireWriter& ww, bool want) { proto::encode_vcHandshake(ww, want, proto::kWireVersion, proto::kXmlHash); },
      proto::decode_reply_vcHandshake, &hello);
  if (err != CL_SUCCESS) {
    *error = std::string("vcHandshake refused: ") + cl_error_name(err);
    return false;
  }
  executor_name_ = hello.executor_name;
  log_debug(kDebugGuest, "gsvirt ICD: connected over %s, host executor \"%s\"%s", transport_->name(),
            executor_name_.c_str(), sync_mode_ ? ", GSVIRT_SYNC" : "");
  return true;
}

cl_int Connection::submit(bool wait, const char* api) {
  if (lost_) return CL_OUT_OF_RESOURCES;
  if (batch_.empty() && !wait) return CL_SUCCESS;
  ++submit_count_;
  bool ok = transport_->submit(batch_.data(), batch_.size(), wait);
  batch_.clear();
  if (!ok) {
    log_error("gsvirt ICD: %s: transport %s failed: %s; the host connection is lost", api, transport_->name(),
              transport_->error().c_str());
    lost_ = true;
    return CL_OUT_OF_RESOURCES;
  }
  unwaited_submit_ = !wait;
  if (wait) staging_used_ = 0;  // every command that referenced staging data has run
  return CL_SUCCESS;
}

cl_int Connection::send_batched(const char* api, const Encoder& encode) {
  if (lost_) return CL_OUT_OF_RESOURCES;
  if (sync_mode_) return send_and_wait(api, encode);
  WireWriter w(batch_);
  encode(w, false);
  if (batch_.size() >= limits_.batch_bytes) return submit(false, api);
  return CL_SUCCESS;
}

cl_int Connection::send_and_wait(const char* api, const Encoder& encode) {
  proto::Reply_vcPing reply;  // every reply-less command answers with its result only
  return call(api, encode, proto::decode_reply_vcPing, &reply);
}

cl_int Connection::exchange(const char* api, const Encoder& encode, const Decoder& decode) {
  if (lost_) return CL_OUT_OF_RESOURCES;
  WireWriter w(batch_);
  encode(w, true);
  ++expected_seqno_;
  cl_int err = submit(true, api);
  if (err != CL_SUCCESS) return err;

  proto::ReplyHeader header;
  std::memcpy(&header, reply_blob_.map, sizeof header);
  std::string error;
  if (!reply_header_valid(header, expected_seqno_, reply_blob_.size - sizeof header, &error)) {
    log_error("gsvirt ICD: %s: %s; the host connection is lost", api, error.c_str());
    lost_ = true;
    return CL_OUT_OF_RESOURCES;
  }
  if (header.deferred_status != CL_SUCCESS) note_deferred(header.deferred_status, header.deferred_command);
  const auto* payload = static_cast<const uint8_t*>(reply_blob_.map) + sizeof header;
  if (header.output_pending) {
    // Taking the output reuses the reply buffer: the payload is decoded from a copy (its inline
    // bytes stay valid until the next exchange, as they would in the reply buffer).
    reply_copy_.assign(payload, payload + header.payload_size);
    payload = reply_copy_.data();
    if (!take_output(api)) return CL_OUT_OF_RESOURCES;
  }
  WireReader r(payload, header.payload_size);
  if (!decode(r)) {
    log_error("gsvirt ICD: %s: malformed reply: %s", api, r.error().c_str());
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

bool Connection::take_output(const char* api) {
  // The host caps what it holds; a few rounds take it all, and a host that keeps saying more is
  // pending cannot keep the application here.
  constexpr int kMaxRounds = 64;
  constexpr uint64_t kChunk = 32 * 1024;
  const uint64_t capacity = reply_blob_.size - sizeof(proto::ReplyHeader);
  for (int round = 0; round < kMaxRounds; ++round) {
    proto::DataOut out;
    out.size = std::min<uint64_t>(kChunk, capacity > 64 ? capacity - 64 : 0);
    WireWriter w(batch_);
    proto::encode_vcTakeOutput(w, true, out);
    ++expected_seqno_;
    if (submit(true, api) != CL_SUCCESS) return false;
    proto::ReplyHeader header;
    std::memcpy(&header, reply_blob_.map, sizeof header);
    std::string error;
    if (!reply_header_valid(header, expected_seqno_, capacity, &error)) {
      log_error("gsvirt ICD: %s: kernel output: %s; the host connection is lost", api, error.c_str());
      lost_ = true;
      return false;
    }
    WireReader r(static_cast<const uint8_t*>(reply_blob_.map) + sizeof header, header.payload_size);
    proto::Reply_vcTakeOutput reply;
    if (!proto::decode_reply_vcTakeOutput(r, &reply)) {
      log_error("gsvirt ICD: %s: malformed kernel output reply: %s", api, r.error().c_str());
      return false;
    }
    if (reply.text_size) std::fwrite(reply.text, 1, reply.text_size, stdout);
    if (!header.output_pending || !reply.text_size) break;
  }
  std::fflush(stdout);
  return true;
}

void Connection::note_deferred(int32_t status, uint32_t command) {
  const char* name = proto::command_name(command);
  log_error("gsvirt ICD: batched %s failed on the host with %s (%d); reported by the next clFlush/clFinish/"
            "clWaitForEvents (GSVIRT_SYNC=1 reports it at the call itself)",
            name ? name : "command", cl_error_name(status), status);
  if (deferred_error_ == CL_SUCCESS) deferred_error_ = status;
}

cl_int Connection::submit_batch() { return submit(false, "clFlush"); }

cl_int Connection::wait_idle(const char* api) {
  if (batch_.empty() && !unwaited_submit_) return CL_SUCCESS;
  proto::Reply_vcPing reply;
  return call(api, [](WireWriter& w, bool want) { proto::encode_vcPing(w, want); }, proto::decode_reply_vcPing,
              &reply);
}

cl_int Connection::take_deferred_error() {
  cl_int err = deferred_error_;
  deferred_error_ = CL_SUCCESS;
  return err;
}

cl_int Connection::reserve_staging(uint64_t size, uint64_t* offset) {
  if (size > limits_.transfer_chunk_bytes) {
    // Buffer transfers are split below this size (enqueue.cc); what still asks for more (an image
    // or rectangle, a buffer created from a host pointer) fails alone, the connection intact.
    log_error("gsvirt ICD: a transfer of %llu bytes in one piece exceeds the %zu-byte staging limit "
              "(GSVIRT_TRANSFER_CHUNK_BYTES; the host's client processes allow no larger blob)",
              (unsigned long long)size, limits_.transfer_chunk_bytes);
    return CL_OUT_OF_RESOURCES;
  }
  uint64_t start = (staging_used_ + kStagingAlignment - 1) & ~(kStagingAlignment - 1);
  if (staging_blob_.map && start + size <= staging_blob_.size) {
    *offset = start;
    staging_used_ = start + size;
    return CL_SUCCESS;
  }
  // The blob is full (or too small): let the host finish with what it holds, then reuse or grow it.
  cl_int err = wait_idle("staging");
  if (err != CL_SUCCESS) return err;
  staging_used_ = 0;
  if (!staging_blob_.map || size > staging_blob_.size) {
    uint64_t grown = std::max<uint64_t>({size, limits_.staging_min_bytes, staging_blob_.size * 2});
    grown = (grown + 0xfffff) & ~uint64_t{0xfffff};
    grown = std::max<uint64_t>(size, std::min<uint64_t>(grown, limits_.transfer_chunk_bytes));
    if (staging_blob_.map) transport_->destroy_blob(staging_blob_);
    staging_blob_ = {};
    if (!transport_->create_blob(grown, &staging_blob_) || !staging_blob_.map) {
      log_error("gsvirt ICD: cannot create a %llu-byte staging blob: %s", (unsigned long long)grown,
                transport_->error().c_str());
      staging_blob_ = {};
      return CL_OUT_OF_RESOURCES;
    }
  }
  *offset = 0;
  staging_used_ = size;
  return CL_SUCCESS;
}

cl_int Connection::data_in(const void* src, uint64_t size, proto::DataIn* out) {
  *out = {};
  if (size <= limits_.inline_bytes) {
    out->mode = proto::kDataInline;
    out->data = src;
    out->size = size;
    return CL_SUCCESS;
  }
  uint64_t offset = 0;
  cl_int err = reserve_staging(size, &offset);
  if (err != CL_SUCCESS) return err;
  std::memcpy(static_cast<uint8_t*>(staging_blob_.map) + offset, src, size);
  out->mode = proto::kDataResource;
  out->resource_id = staging_blob_.resource_id;
  out->offset = offset;
  out->size = size;
  return CL_SUCCESS;
}

cl_int Connection::data_out(uint64_t size, proto::DataOut* out) {
  *out = {};
  if (size <= limits_.inline_bytes) {
    out->mode = proto::kDataInline;
    out->size = size;
    return CL_SUCCESS;
  }
  uint64_t offset = 0;
  cl_int err = reserve_staging(size, &offset);
  if (err != CL_SUCCESS) return err;
  out->mode = proto::kDataResource;
  out->resource_id = staging_blob_.resource_id;
  out->offset = offset;
  out->size = size;
  return CL_SUCCESS;
}

void Connection::copy_data_out(const proto::DataOut& where, const uint8_t* inline_bytes, uint64_t inline_size,
                               void* dst, uint64_t size) {
  if (!dst || size == 0) return;
  if (where.mode == proto::kDataInline) {
    if (inline_bytes) std::memcpy(dst, inline_bytes, std::min(size, inline_size));
    return;
  }
  std::memcpy(dst, static_cast<const uint8_t*>(staging_blob_.map) + where.offset, std::min(size, where.size));
}

}  // namespace gsvirt::icd
