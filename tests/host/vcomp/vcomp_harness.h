// Drives a VcompContext the way a guest would: commands encoded with the generated guest
// encoders, replies read back from an attached reply resource.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "host/vcomp/vcomp_context.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::vcomp::testing {

inline std::shared_ptr<renderer::Resource> make_resource(uint32_t id, std::vector<uint8_t>& memory) {
  auto r = std::make_shared<renderer::Resource>();
  r->id = id;
  r->size = memory.size();
  r->host_map = memory.data();
  return r;
}

class Harness {
 public:
  static constexpr uint32_t kReplyResource = 1;
  static constexpr uint32_t kStagingResource = 2;

  Harness(Executor* executor, uint32_t ctx_id = 1, size_t reply_size = 4096, size_t staging_size = 1 << 20)
      : reply_mem_(reply_size, 0), staging_mem_(staging_size, 0),
        ctx_(std::make_unique<VcompContext>(ctx_id, executor)) {
    ctx_->attach_resource(make_resource(kReplyResource, reply_mem_));
    ctx_->attach_resource(make_resource(kStagingResource, staging_mem_));
    std::vector<uint8_t> cmd;
    WireWriter w(cmd);
    proto::encode_vcSetReplyBuffer(w, false, kReplyResource, 0, reply_mem_.size());
    submit(cmd);
  }

  VcompContext& context() { return *ctx_; }
  std::vector<uint8_t>& staging() { return staging_mem_; }

  int submit(const std::vector<uint8_t>& bytes) { return ctx_->submit_cmd(bytes.data(), bytes.size()); }

  // Encodes one command with `encode(w)` and submits it alone.
  template <typename Encode>
  int send(Encode encode) {
    std::vector<uint8_t> cmd;
    WireWriter w(cmd);
    encode(w);
    return submit(cmd);
  }

  proto::ReplyHeader header() const {
    proto::ReplyHeader h;
    std::memcpy(&h, reply_mem_.data(), sizeof h);
    return h;
  }
  // The payload of the last reply.
  WireReader payload() const {
    return WireReader(reply_mem_.data() + sizeof(proto::ReplyHeader), header().payload_size);
  }

  uint64_t next_id() { return ++last_id_; }

  // Common set-up: binds the first device and creates a context; returns the context id.
  uint64_t make_context(uint64_t* device_out = nullptr) {
    uint64_t device = next_id();
    send([&](WireWriter& w) { proto::encode_clGetDeviceIDs(w, true, CL_DEVICE_TYPE_ALL, &device, 1); });
    uint64_t context = next_id();
    send([&](WireWriter& w) {
      proto::encode_clCreateContext(w, true, context, nullptr, 0, &device, 1);
    });
    if (device_out) *device_out = device;
    return context;
  }

  int32_t last_result() {
    WireReader r = payload();
    return r.i32("result");
  }

 private:
  std::vector<uint8_t> reply_mem_;
  std::vector<uint8_t> staging_mem_;
  std::unique_ptr<VcompContext> ctx_;
  uint64_t last_id_ = 0;
};

}  // namespace gsvirt::vcomp::testing
