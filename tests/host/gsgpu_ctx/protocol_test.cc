// The gsgpu_ctx wire format as generated from protocol/gsgpu_ctx/gsgpu_ctx.xml: what the guest's
// encoders produce is what the host's decoder hands to its handlers, and every malformed stream
// stops the decoder with an error naming the request and the field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_decoder.h"

namespace gsvirt::gsgpu_ctx::proto {
namespace {

// Records what the decoder hands over; answers every request with Status::kOk.
class Recorder final : public Handlers {
 public:
  std::vector<std::string> names;
  std::vector<uint32_t> seqnos;
  std::vector<std::string> refused;
  std::vector<std::vector<uint8_t>> responses;
  Submit last_submit{};
  std::vector<uint32_t> submit_bos, submit_packets;
  BoCreateReq last_bo_create{};
  bool skip_all = false;

  bool begin_request(const ReqHeader& hdr, const char* name, uint32_t rsp_size) override {
    names.push_back(name);
    seqnos.push_back(hdr.seqno);
    EXPECT_EQ(rsp_size, response_size(hdr.cmd));
    return !skip_all;
  }
  void refuse_field(const char* field, const std::string& why) override {
    refused.push_back(std::string(field) + ": " + why);
  }
  void end_request(const ReqHeader&, const void* rsp, uint32_t size) override {
    auto* p = static_cast<const uint8_t*>(rsp);
    responses.emplace_back(p, p + size);
  }
  Status handle_set_response_buffer(const SetResponseBuffer&, SetResponseBufferRsp*) override {
    return Status::kOk;
  }
  Status handle_get_caps(const GetCaps&, GetCapsRsp* rsp) override {
    rsp->caps.chip_id = 0x47534750;
    return Status::kOk;
  }
  Status handle_bo_create(const BoCreate& r, BoCreateRsp*) override {
    last_bo_create = r.req;
    return Status::kOk;
  }
  Status handle_bo_destroy(const BoDestroy&, BoDestroyRsp*) override { return Status::kOk; }
  Status handle_va_bind(const VaBind&, VaBindRsp*) override { return Status::kOk; }
  Status handle_va_unbind(const VaUnbind&, VaUnbindRsp*) override { return Status::kOk; }
  Status handle_submit(const Submit& r, SubmitRsp*) override {
    last_submit = r;
    r.bos.copy_to(&submit_bos);
    r.packets.copy_to(&submit_packets);
    return Status::kFaulted;  // any status travels back
  }
  Status handle_read_faults(const ReadFaults&, ReadFaultsRsp*) override { return Status::kOk; }
  Status handle_read_counters(const ReadCounters&, ReadCountersRsp*) override { return Status::kOk; }
  Status handle_reset(const Reset&, ResetRsp*) override { return Status::kOk; }
};

std::vector<uint8_t> submit_stream(uint32_t bo_count, uint32_t dword_count) {
  std::vector<uint32_t> bos(bo_count), packets(dword_count);
  for (uint32_t i = 0; i < bo_count; ++i) bos[i] = 100 + i;
  for (uint32_t i = 0; i < dword_count; ++i) packets[i] = 0xabc00000u + i;
  SubmitReq req{};
  req.ring = 2;
  req.ring_seqno = 77;
  req.bo_count = bo_count;
  req.dword_count = dword_count;
  std::vector<uint8_t> out;
  encode_submit(out, 5, kFencePageSize, req, bos.data(), packets.data());
  return out;
}

void patch_u32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  std::memcpy(bytes.data() + at, &value, 4);
}

TEST(GsgpuCtxProtocol, CapsetIdComesFromTheHardwareDescription) {
  EXPECT_EQ(kCapsetId, gsgpu::hw::kCapsetId);
  EXPECT_EQ(kCapsetId, 17u);
  EXPECT_EQ(sizeof kXmlHash, 33u);
  EXPECT_EQ(sizeof(FencePage), kFencePageSize);
}

TEST(GsgpuCtxProtocol, EncodedRequestsDecodeToTheSameFields) {
  std::vector<uint8_t> stream;
  BoCreateReq bo{};
  bo.bo_id = 9;
  bo.res_id = 3;
  bo.res_offset = 4096;
  bo.size = 8192;
  encode_bo_create(stream, 1, 0, bo);
  encode_get_caps(stream, 2, 512, GetCapsReq{});
  std::vector<uint8_t> submit = submit_stream(2, 3);
  stream.insert(stream.end(), submit.begin(), submit.end());

  Recorder rec;
  std::string error;
  ASSERT_TRUE(dispatch_requests(rec, stream.data(), stream.size(), &error)) << error;
  EXPECT_EQ(rec.names, (std::vector<std::string>{"BO_CREATE", "GET_CAPS", "SUBMIT"}));
  EXPECT_EQ(rec.seqnos, (std::vector<uint32_t>{1, 2, 5}));
  EXPECT_EQ(rec.last_bo_create.bo_id, 9u);
  EXPECT_EQ(rec.last_bo_create.res_id, 3u);
  EXPECT_EQ(rec.last_bo_create.res_offset, 4096u);
  EXPECT_EQ(rec.last_bo_create.size, 8192u);
  EXPECT_EQ(rec.last_submit.req.ring, 2u);
  EXPECT_EQ(rec.last_submit.req.ring_seqno, 77u);
  EXPECT_EQ(rec.submit_bos, (std::vector<uint32_t>{100, 101}));
  EXPECT_EQ(rec.submit_packets, (std::vector<uint32_t>{0xabc00000u, 0xabc00001u, 0xabc00002u}));

  // Responses carry the request's seqno and the handler's status, zeroes elsewhere.
  ASSERT_EQ(rec.responses.size(), 3u);
  GetCapsRsp caps;
  ASSERT_EQ(rec.responses[1].size(), sizeof caps);
  std::memcpy(&caps, rec.responses[1].data(), sizeof caps);
  EXPECT_EQ(caps.seqno, 2u);
  EXPECT_EQ(caps.status, int32_t(Status::kOk));
  EXPECT_EQ(caps.caps.chip_id, 0x47534750u);
  EXPECT_EQ(caps.caps.vram_size, 0u);
  SubmitRsp sub;
  std::memcpy(&sub, rec.responses[2].data(), sizeof sub);
  EXPECT_EQ(sub.seqno, 5u);
  EXPECT_EQ(sub.status, int32_t(Status::kFaulted));
}

TEST(GsgpuCtxProtocol, EmptyStreamIsWellFormed) {
  Recorder rec;
  std::string error;
  EXPECT_TRUE(dispatch_requests(rec, nullptr, 0, &error));
  EXPECT_TRUE(rec.names.empty());
}

TEST(GsgpuCtxProtocol, NonZeroPadIsRefusedWithoutReachingTheHandler) {
  std::vector<uint8_t> stream;
  BoCreateReq bo{};
  bo.bo_id = 9;
  bo.pad0 = 1;
  encode_bo_create(stream, 1, 0, bo);
  Recorder rec;
  std::string error;
  ASSERT_TRUE(dispatch_requests(rec, stream.data(), stream.size(), &error)) << error;
  EXPECT_EQ(rec.last_bo_create.bo_id, 0u);
  ASSERT_EQ(rec.refused.size(), 1u);
  EXPECT_EQ(rec.refused[0], "pad0: must be 0");
  BoCreateRsp rsp;
  std::memcpy(&rsp, rec.responses[0].data(), sizeof rsp);
  EXPECT_EQ(rsp.status, int32_t(Status::kInvalidArgument));
}

TEST(GsgpuCtxProtocol, SkippedRequestsReachNoHandler) {
  std::vector<uint8_t> stream = submit_stream(1, 1);
  Recorder rec;
  rec.skip_all = true;
  std::string error;
  ASSERT_TRUE(dispatch_requests(rec, stream.data(), stream.size(), &error));
  EXPECT_EQ(rec.names.size(), 1u);
  EXPECT_TRUE(rec.responses.empty());
  EXPECT_EQ(rec.last_submit.req.ring_seqno, 0u);
}

struct Malformed {
  const char* what;
  std::vector<uint8_t> stream;
  const char* error_part;
};

TEST(GsgpuCtxProtocol, MalformedStreamsStopWithTheRequestAndField) {
  std::vector<Malformed> cases;
  std::vector<uint8_t> ok = submit_stream(2, 4);
  cases.push_back({"truncated header", std::vector<uint8_t>(ok.begin(), ok.begin() + 12), "header: truncated"});
  {
    auto s = ok;
    patch_u32(s, 0, 999);
    cases.push_back({"unknown cmd", s, "cmd: unknown id 999"});
  }
  {
    auto s = ok;
    patch_u32(s, 4, uint32_t(s.size()) - 2);
    cases.push_back({"len not 4-aligned", s, "SUBMIT at byte 0: len:"});
  }
  {
    auto s = ok;
    patch_u32(s, 4, 8);
    cases.push_back({"len below the fixed part", s, "is not a multiple of 4 of at least 40"});
  }
  {
    auto s = ok;
    patch_u32(s, 4, uint32_t(s.size()) + 4);
    cases.push_back({"len past the end", s, "runs past the end"});
  }
  {
    auto s = ok;
    patch_u32(s, offsetof(SubmitReq, dword_count), 5);
    cases.push_back({"array count larger than len", s, "4 * dword_count 5"});
  }
  {
    auto s = ok;
    patch_u32(s, offsetof(SubmitReq, bo_count), 0xffffffffu);
    cases.push_back({"huge array count", s, "4 * bo_count 4294967295"});
  }
  {
    std::vector<uint8_t> s;
    encode_reset(s, 1, 0, ResetReq{});
    s.resize(s.size() + 4);
    patch_u32(s, 4, uint32_t(s.size()));
    cases.push_back({"fixed request longer than its fields", s, "RESET at byte 0: len: 20 is not 16"});
  }
  {
    std::vector<uint8_t> s;
    encode_reset(s, 1, 0, ResetReq{});
    s.insert(s.end(), ok.begin(), ok.end() - 4);
    cases.push_back({"second request truncated", s, "SUBMIT at byte 16"});
  }
  for (const Malformed& c : cases) {
    Recorder rec;
    std::string error;
    EXPECT_FALSE(dispatch_requests(rec, c.stream.data(), c.stream.size(), &error)) << c.what;
    EXPECT_NE(error.find(c.error_part), std::string::npos) << c.what << ": " << error;
    EXPECT_EQ(rec.last_submit.req.ring_seqno, 0u) << c.what;
  }
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::proto
