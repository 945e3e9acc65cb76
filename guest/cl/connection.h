// The guest's one connection to a host vcomp context: transport, reply blob, command batch,
// staging blob for bulk data, guest object ids and the deferred error of batched commands.
//
// Created lazily by the first call that needs the host (never by platform queries: ocl-icd calls
// those while it initialises, and an in-process host executor may itself call into the loader).
// Not thread-safe by itself: callers hold icd_mutex().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/wire.h"
#include "guest/cl/icd.h"
#include "guest/transport/transport.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::icd {

namespace proto = gsvirt::vcomp::proto;
using gsvirt::WireReader;
using gsvirt::WireWriter;

struct ConnectionLimits {
  size_t batch_bytes = 256 * 1024;    // a batch this large is sent without waiting
  size_t inline_bytes = 64 * 1024;    // bulk data up to this size travels inside the command
  size_t reply_bytes = 1024 * 1024;   // the reply blob
  size_t staging_min_bytes = 4 * 1024 * 1024;
  // The largest staging blob, and so the largest piece of one transfer: a host's client process
  // may create no file (a blob's memfd) past its RLIMIT_FSIZE (1 GiB by default,
  // docs/security.md), so reads and writes of buffers move in pieces of at most this size.
  // GSVIRT_TRANSFER_CHUNK_BYTES replaces it (kMinTransferChunkBytes .. kMaxTransferChunkBytes).
  size_t transfer_chunk_bytes = 256 * 1024 * 1024;
};

constexpr size_t kMinTransferChunkBytes = 4096;
constexpr size_t kMaxTransferChunkBytes = 512 * 1024 * 1024;

// Checks the capset a host reports against this driver's wire version and XML hash; on
// mismatch returns false with a message naming both sides.
bool capset_matches(const std::vector<uint8_t>& capset, std::string* error);
// Checks a reply header: seqno equals `expected_seqno`, payload fits `capacity` bytes.
bool reply_header_valid(const proto::ReplyHeader& header, uint32_t expected_seqno, size_t capacity,
                        std::string* error);

using TransportFactory = std::function<std::unique_ptr<guest::Transport>(std::string* error)>;

class Connection {
 public:
  using Encoder = std::function<void(WireWriter&, bool want_reply)>;
  using Decoder = std::function<bool(WireReader&)>;

  // The process's connection, created on first use; nullptr when the host cannot be reached
  // (the reason is logged once). Caller holds icd_mutex().
  static Connection* get();
  // Tests: replace the transport source (and drop the current connection, if any).
  static void set_transport_factory_for_testing(TransportFactory factory, ConnectionLimits limits = {});

  ~Connection();

  uint64_t allocate_id() { return next_guest_id_++; }
  const std::string& executor_name() const { return executor_name_; }
  bool sync_mode() const { return sync_mode_; }

  // A reply="false" command: appended to the batch and sent later (or at once when the batch is
  // full). With GSVIRT_SYNC=1 it is sent and waited for, and its own result is returned.
  cl_int send_batched(const char* api, const Encoder& encode);

  // A reply="false" command sent with kFlagWantReply and waited for: returns its own result.
  cl_int send_and_wait(const char* api, const Encoder& encode);

  // A reply="true" command: sends everything batched plus this command, waits, checks the reply
  // header and decodes the payload. Returns a transport/protocol failure, else CL_SUCCESS.
  cl_int exchange(const char* api, const Encoder& encode, const Decoder& decode);

  // exchange() for a generated decode_reply_<command>; returns the command's own result.
  template <class Reply>
  cl_int call(const char* api, const Encoder& encode, bool (*decode)(WireReader&, Reply*), Reply* reply) {
    cl_int err = exchange(api, encode, [&](WireReader& r) { return decode(r, reply); });
    return err != CL_SUCCESS ? err : reply->result;
  }

  // Sends the batch without waiting (clFlush's guest half; a full batch).
  cl_int submit_batch();
  // Returns once the host has executed every command sent so far.
  cl_int wait_idle(const char* api);
  // The first failure of a batched command the host reported since the last take (then cleared).
  cl_int take_deferred_error();

  // Bulk data in: inline up to the limit, else copied into the staging blob.
  cl_int data_in(const void* src, uint64_t size, proto::DataIn* out);
  // Bulk data out: inline capacity up to the limit, else a staging range.
  cl_int data_out(uint64_t size, proto::DataOut* out);
  // After the exchange: copies what the host wrote (inline reply bytes or staging) to `dst`.
  void copy_data_out(const proto::DataOut& where, const uint8_t* inline_bytes, uint64_t inline_size,
                     void* dst, uint64_t size);

  // Statistics for tests.
  uint64_t submit_count() const { return submit_count_; }
  uint32_t expected_seqno() const { return expected_seqno_; }
  size_t batched_bytes() const { return batch_.size(); }
  const ConnectionLimits& limits() const { return limits_; }

 private:
  Connection(std::unique_ptr<guest::Transport> transport, ConnectionLimits limits);
  bool open(std::string* error);
  cl_int submit(bool wait, const char* api);
  cl_int reserve_staging(uint64_t size, uint64_t* offset);
  void note_deferred(int32_t status, uint32_t command);
  // The host holds kernel output for this context: takes it (vcTakeOutput, until none is left)
  // and writes it to this process's stdout, where the application expects its kernels' printf.
  bool take_output(const char* api);

  std::unique_ptr<guest::Transport> transport_;
  ConnectionLimits limits_;
  bool sync_mode_ = false;
  bool lost_ = false;  // the transport failed: every later call fails fast
  guest::Blob reply_blob_;
  guest::Blob staging_blob_;
  uint64_t staging_used_ = 0;
  std::vector<uint8_t> batch_;
  // A reply's payload, copied out of the reply buffer while kernel output is taken through it.
  std::vector<uint8_t> reply_copy_;
  bool unwaited_submit_ = false;  // something was sent with wait=false since the last wait
  uint32_t expected_seqno_ = 0;   // reply-bearing commands sent so far
  uint64_t submit_count_ = 0;
  uint64_t next_guest_id_ = 1;
  cl_int deferred_error_ = CL_SUCCESS;
  std::string executor_name_;
};

}  // namespace gsvirt::icd
