// The gsgpu native context behind gsvirt-server's message handling (VtestSession, no socket).
// The session numbers its renderer fences itself, as a VMM's fence context does: neither the
// guest's seqnos nor the sync values a batch sets are fence ids, and each batch's syncs are set
// exactly when the submission it carries has retired, in ring order.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "ctx_harness.h"
#include "host/server/vtest_session.h"

namespace gsvirt::gsgpu_ctx::test {
namespace {

using namespace gsvirt::vtest;
using gsgpu::drv::kVaExecute;
using gsgpu::drv::kVaRead;

// One vtest client of capset 17, driven message by message.
class VtestGuest {
 public:
  VtestGuest() {
    EXPECT_TRUE(send({4, kCreateRenderer, 0x74736574}));
    EXPECT_TRUE(send({1, kProtocolVersionCmd, kProtocolVersion}));  // the handshake's end
    session_.clear_replies();
    EXPECT_TRUE(send({1, kContextInit, kCapsetId}));
    response_ = blob(64 << 10);
    SetResponseBufferReq req{};
    req.res_id = response_.res_id;
    req.size = response_.size;
    std::vector<uint8_t> s;
    encode_set_response_buffer(s, 0, 0, req);
    EXPECT_TRUE(submit(s));
    caps_ = call<GetCapsRsp>([](auto& s, uint32_t q, uint32_t o) { encode_get_caps(s, q, o, GetCapsReq{}); }).caps;
  }
  ~VtestGuest() {
    for (const Blob& b : blobs_) munmap(b.map, b.size);
  }

  server::VtestSession& session() { return session_; }

  // Frames and handles one message the way the socket loop does.
  bool send(const std::vector<uint32_t>& words) {
    server::VtestHeader h{words.at(0), words.at(1)};
    uint64_t payload = 0;
    if (!session_.payload_bytes(h, &payload) || payload > (words.size() - 2) * 4) return false;
    std::span<const uint8_t> p(reinterpret_cast<const uint8_t*>(words.data()) + 8, payload);
    return session_.handle({h.command, p, {}, {}});
  }
  std::vector<uint32_t> reply_words(size_t i = 0) {
    auto& b = session_.replies().at(i).bytes;
    std::vector<uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    return w;
  }

  Blob blob(uint64_t size) {
    session_.clear_replies();
    EXPECT_TRUE(send({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, uint32_t(size), 0, 0, 0}));
    auto& r = session_.replies().at(0);
    EXPECT_EQ(r.fds.size(), 1u);
    Blob b;
    b.res_id = reply_words()[2];
    b.size = size;
    b.map = static_cast<uint8_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds.at(0), 0));
    EXPECT_NE(b.map, MAP_FAILED);
    session_.clear_replies();
    blobs_.push_back(b);
    return b;
  }
  uint32_t create_sync() {
    session_.clear_replies();
    EXPECT_TRUE(send({2, kSyncCreate, 0, 0}));
    uint32_t id = reply_words()[2];
    session_.clear_replies();
    return id;
  }
  uint64_t read_sync(uint32_t id) {
    session_.clear_replies();
    EXPECT_TRUE(send({1, kSyncRead, id}));
    auto w = reply_words();
    session_.clear_replies();
    return uint64_t(w[3]) << 32 | w[2];
  }
  // Polls the session until `sync` reaches `value`; false after `timeout_ms`.
  bool wait_sync(uint32_t sync, uint64_t value, int timeout_ms = 30000) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
      session_.poll();
      if (read_sync(sync) >= value) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  // SUBMIT_CMD2: one batch of requests on `ring`, setting `sync` to `value` (sync 0: none).
  bool submit(const std::vector<uint8_t>& requests, uint32_t ring = 0, uint32_t sync = 0, uint64_t value = 0) {
    EXPECT_EQ(requests.size() % 4, 0u);
    uint32_t dwords = uint32_t(requests.size() / 4), syncs = sync ? 1 : 0;
    std::vector<uint32_t> m = {1 + kSubmitBatchDwords + dwords + 3 * syncs, kSubmitCmd2, 1,
                               kSubmitFlagRingIdx, 1 + kSubmitBatchDwords, dwords,
                               1 + kSubmitBatchDwords + dwords, syncs, ring, 0, 0};
    m.resize(m.size() + dwords);
    // An empty batch has no data() to copy from (memcpy from NULL is UB even for 0 bytes).
    if (dwords) std::memcpy(m.data() + m.size() - dwords, requests.data(), requests.size());
    if (sync) m.insert(m.end(), {sync, uint32_t(value), uint32_t(value >> 32)});
    return send(m);
  }

  template <typename Rsp>
  Rsp call(const std::function<void(std::vector<uint8_t>&, uint32_t seqno, uint32_t rsp_off)>& encode) {
    const uint32_t seqno = ++request_seqno_;
    std::memset(response_.map + kFencePageSize, 0, sizeof(Rsp));
    std::vector<uint8_t> s;
    encode(s, seqno, kFencePageSize);
    EXPECT_TRUE(submit(s));
    EXPECT_EQ(load_response_seqno(response_.map + kFencePageSize), seqno) << "no response";
    Rsp rsp{};
    std::memcpy(&rsp, response_.map + kFencePageSize, sizeof rsp);
    return rsp;
  }

  // A blob-backed BO bound at the next free VA.
  GpuBuffer buffer(uint64_t size, uint32_t perms) {
    GpuBuffer b;
    b.bo_id = next_bo_id_++;
    b.blob = blob(size);
    b.va = caps_.va_base + 0x100000 * b.bo_id;
    BoCreateReq create{};
    create.bo_id = b.bo_id;
    create.res_id = b.blob.res_id;
    create.size = size;
    EXPECT_EQ(call<BoCreateRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_bo_create(s, q, o, create); }).status, 0);
    VaBindReq bind{};
    bind.bo_id = b.bo_id;
    bind.va = b.va;
    bind.size = size;
    bind.perms = perms;
    EXPECT_EQ(call<VaBindRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_va_bind(s, q, o, bind); }).status, 0);
    return b;
  }
  GpuBuffer kernel(const std::string& source) {
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_TRUE(gsgpu::isa::assemble(source, &words, &error)) << error;
    GpuBuffer b = buffer(4096, kVaRead | kVaExecute);
    std::memcpy(b.blob.map, words.data(), words.size() * 4);
    b.code_size = uint32_t(words.size() * 4);
    return b;
  }

  RingFence fence(uint32_t ring) const { return load_ring_fence(response_.map, ring); }

 private:
  server::VtestSession session_;
  std::vector<Blob> blobs_;
  Blob response_;
  Caps caps_{};
  uint32_t request_seqno_ = 0;
  uint32_t next_bo_id_ = 1;
};

// A gate submission: runs until its flag is set.
std::vector<uint8_t> gate_request(uint64_t ring_seqno, const GpuBuffer& gate, const GpuBuffer& flag) {
  return Guest::submit_request(1, ring_seqno, {gate.bo_id, flag.bo_id}, Guest::dispatch(gate, flag, 4, 1, 1));
}

TEST(GsgpuCtxVtest, BatchSyncsFollowTheirOwnSubmissionsNotTheSeqnos) {
  ContextConfig config = test_config();
  config.watchdog_budget = 0xffffffffu;  // only the test ends a gate
  config.submit_time_budget_ns = uint64_t{60'000'000'000};
  register_capset();
  set_context_config(config);
  LogCapture log;
  VtestGuest g;
  GpuBuffer gate = g.kernel(kGateKernel);
  GpuBuffer first = g.buffer(4096, kVaRead), second = g.buffer(4096, kVaRead);
  uint32_t ring1 = g.create_sync(), ring2 = g.create_sync();

  // Seqnos 5, 6, 7 on ring 1 with sync values 3, 4 and 6: the last batch's value is the seqno of
  // the one before it, which retires first.
  ASSERT_TRUE(g.submit(gate_request(5, gate, first), 1, ring1, 3));
  ASSERT_TRUE(g.submit(Guest::submit_request(1, 6, {}, {}), 1, ring1, 4));
  ASSERT_TRUE(g.submit(gate_request(7, gate, second), 1, ring1, 6));
  ASSERT_TRUE(g.submit({}, 2, ring2, 2000));
  EXPECT_EQ(g.read_sync(ring2), 2000u) << "nothing runs on ring 2: its batch completes at once";
  EXPECT_EQ(g.read_sync(ring1), 0u);

  open_gate(first);
  ASSERT_TRUE(g.wait_sync(ring1, 4));
  EXPECT_EQ(g.fence(1).retired_seqno, 6u);
  for (int i = 0; i < 20; ++i) {
    g.session().poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(g.read_sync(ring1), 4u) << "the third batch waits for seqno 7, which is still running";

  open_gate(second);
  ASSERT_TRUE(g.wait_sync(ring1, 6));
  EXPECT_EQ(g.fence(1).retired_seqno, 7u);
  EXPECT_EQ(g.session().pending_work(), 0u);
  EXPECT_FALSE(log.contains("not the ring's oldest pending fence")) << log.all();
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::test
