// A vcomp guest over the public C API (include/gsvirt_renderer.h), as a VMM exposes gsvirt: a
// context on capset 16 with a reply blob and a data blob, mapped here as the guest maps them.
// Shared by the security tests that attack through the C API.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "common/wire.h"
#include "gsvirt_renderer.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::security {

namespace proto = vcomp::proto;

constexpr uint32_t kCtx = 1;
constexpr uint32_t kReplyRes = 10;
constexpr uint32_t kDataRes = 11;
constexpr uint64_t kBlobSize = 64 * 1024;

// A vcomp guest over the C API: a context on capset 16 with a reply blob and a data blob, both
// host-visible and mapped here as the guest would map them.
class VcompGuest {
 public:
  VcompGuest() {
    EXPECT_EQ(gsvirt_renderer_context_create_with_flags(kCtx, proto::kCapsetId, 4, "hack"), 0);
    reply_ = create_blob(kReplyRes);
    data_ = create_blob(kDataRes);
    send([](WireWriter& w) { proto::encode_vcSetReplyBuffer(w, false, kReplyRes, 0, kBlobSize); });
  }
  ~VcompGuest() { gsvirt_renderer_context_destroy(kCtx); }

  static uint8_t* create_blob(uint32_t res, uint32_t ctx = kCtx) {
    gsvirt_renderer_resource_create_blob_args args{};
    args.res_handle = res;
    args.ctx_id = ctx;
    args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
    args.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
    args.size = kBlobSize;
    EXPECT_EQ(gsvirt_renderer_resource_create_blob(&args), 0);
    EXPECT_EQ(gsvirt_renderer_ctx_attach_resource(int(ctx), int(res)), 0);
    void* map = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(gsvirt_renderer_resource_get_map(res, &map, &size), 0);
    return static_cast<uint8_t*>(map);
  }

  // Encodes one command and submits it; the C API's return value.
  int send(const std::function<void(WireWriter&)>& encode) {
    std::vector<uint8_t> cmd;
    WireWriter w(cmd);
    encode(w);
    return gsvirt_renderer_submit_cmd(cmd.data(), int(kCtx), int(cmd.size() / 4));
  }
  // The result of the last reply-bearing command, checking that it is a new reply.
  int32_t result() {
    proto::ReplyHeader h;
    std::memcpy(&h, reply_, sizeof h);
    EXPECT_GT(h.seqno, last_seqno_) << "no new reply";
    last_seqno_ = h.seqno;
    WireReader r(reply_ + sizeof h, h.payload_size);
    return r.i32("result");
  }
  WireReader payload() const {
    proto::ReplyHeader h;
    std::memcpy(&h, reply_, sizeof h);
    return WireReader(reply_ + sizeof h, h.payload_size);
  }
  uint64_t id() { return ++last_id_; }

  // Platform, device, context and queue: the objects every attack below starts from.
  void open_queue() {
    device = id();
    ASSERT_EQ(send([&](WireWriter& w) { proto::encode_clGetDeviceIDs(w, true, CL_DEVICE_TYPE_ALL, &device, 1); }), 0);
    ASSERT_EQ(result(), CL_SUCCESS);
    context = id();
    send([&](WireWriter& w) { proto::encode_clCreateContext(w, true, context, nullptr, 0, &device, 1); });
    ASSERT_EQ(result(), CL_SUCCESS);
    queue = id();
    send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, queue, context, device, 0); });
    ASSERT_EQ(result(), CL_SUCCESS);
  }
  int32_t create_buffer(uint64_t buffer, uint64_t size) {
    send([&](WireWriter& w) { proto::encode_clCreateBuffer(w, true, buffer, context, CL_MEM_READ_WRITE, size, {}); });
    return result();
  }
  // Blocking read of [offset, offset + size) of `buffer` into the data blob at `blob_offset`.
  int32_t read_to_blob(uint64_t buffer, uint64_t offset, uint64_t size, uint64_t blob_offset,
                       uint32_t res = kDataRes) {
    proto::DataOut out;
    out.mode = proto::kDataResource;
    out.resource_id = res;
    out.offset = blob_offset;
    out.size = size;
    send([&](WireWriter& w) {
      proto::encode_clEnqueueReadBuffer(w, true, queue, buffer, offset, size, nullptr, 0, 0, out);
    });
    return result();
  }
  int32_t write_from_blob(uint64_t buffer, uint64_t size, uint64_t blob_offset, uint32_t res = kDataRes) {
    proto::DataIn in;
    in.mode = proto::kDataResource;
    in.resource_id = res;
    in.offset = blob_offset;
    in.size = size;
    send([&](WireWriter& w) {
      proto::encode_clEnqueueWriteBuffer(w, true, queue, buffer, 1, 0, size, in, nullptr, 0, 0);
    });
    return result();
  }
  int32_t destroy(uint64_t object) {
    send([&](WireWriter& w) { proto::encode_vcDestroyObject(w, true, object); });
    return result();
  }
  bool fatal() {
    // A fatal context refuses every later submission.
    return send([](WireWriter& w) { proto::encode_vcPing(w, true); }) != 0;
  }

  uint8_t* reply_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t device = 0, context = 0, queue = 0;

 private:
  uint32_t last_seqno_ = 0;
  uint64_t last_id_ = 0;
};

}  // namespace gsvirt::security
