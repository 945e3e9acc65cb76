// A hostile guest against the gsgpu native context: every bad id, range, ring, seqno, length and
// quota gets a clear status and a log line naming the request and field, never a crash; malformed
// streams make the context fatal; faults and hangs stay inside their context while another
// context keeps getting correct results; responses carry nothing but the response.
#include <thread>

#include "ctx_harness.h"

namespace gsvirt::gsgpu_ctx::test {
namespace {

using gsgpu::drv::kVaExecute;
using gsgpu::drv::kVaRead;
using gsgpu::drv::kVaWrite;

class GsgpuCtxHostile : public ::testing::Test {
 protected:
  Host host_;
  LogCapture log_;
};

TEST_F(GsgpuCtxHostile, BadBoIdsAreRefused) {
  Guest g(host_, 1);
  Blob b = g.blob(8192);
  EXPECT_EQ(g.bo_create(0, b.res_id, 0, 4096), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_CREATE: bo_id: 0 is not a BO id")) << log_.all();
  ASSERT_EQ(g.bo_create(7, b.res_id, 0, 4096), Status::kOk);
  EXPECT_EQ(g.bo_create(7, b.res_id, 4096, 4096), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_CREATE: bo_id: id 7 is already bound")) << log_.all();
  EXPECT_EQ(g.bo_destroy(8), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_DESTROY: bo_id: unknown id 8")) << log_.all();
  EXPECT_EQ(g.va_bind(8, 0, g.caps.va_base, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("VA_BIND: bo_id: unknown id 8")) << log_.all();
  EXPECT_EQ(g.bo_destroy(7), Status::kOk);
  EXPECT_EQ(g.bo_destroy(7), Status::kInvalidArgument) << "double destroy";
  // The id is free again once destroyed.
  EXPECT_EQ(g.bo_create(7, b.res_id, 0, 4096), Status::kOk);
}

TEST_F(GsgpuCtxHostile, BadBlobRangesAndFlagsAreRefused) {
  Guest g(host_, 1);
  Blob b = g.blob(8192);
  EXPECT_EQ(g.bo_create(1, 999, 0, 4096), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_CREATE: res_id: resource 999 is not attached")) << log_.all();
  EXPECT_EQ(g.bo_create(1, b.res_id, 4096, 8192), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_CREATE: size: range 4096 + 8192 is outside resource")) << log_.all();
  EXPECT_EQ(g.bo_create(1, b.res_id, UINT64_MAX - 4095, 8192), Status::kInvalidArgument);
  EXPECT_EQ(g.bo_create(1, b.res_id, 100, 4096), Status::kInvalidArgument);
  EXPECT_EQ(g.bo_create(1, b.res_id, 0, 100), Status::kInvalidArgument);
  EXPECT_EQ(g.bo_create(1, b.res_id, 0, 0), Status::kInvalidArgument);
  EXPECT_EQ(g.bo_create(1, b.res_id, 0, 4096, 1), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("BO_CREATE: flags: unknown bits 1")) << log_.all();
  EXPECT_EQ(g.bo_create(1, 0, 4096, 4096), Status::kInvalidArgument) << "res_offset without a resource";
  EXPECT_EQ(g.bo_create(1, 0, 0, UINT64_MAX), Status::kInvalidArgument);
  // A guest-memory (iov) resource has no host mapping to import.
  uint8_t pages[8192];
  iovec iov{pages, sizeof pages};
  renderer::BlobCreateInfo info;
  info.res_id = 500;
  info.ctx_id = g.ctx_id;
  info.blob_mem = renderer::kBlobMemGuest;
  info.size = sizeof pages;
  info.iov = {&iov, 1};
  ASSERT_EQ(g.renderer().create_blob(info), 0);
  ASSERT_EQ(g.renderer().attach_resource(g.ctx_id, 500), 0);
  EXPECT_EQ(g.bo_create(1, 500, 0, 4096), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("has no host mapping")) << log_.all();
}

TEST_F(GsgpuCtxHostile, IdsAndResourcesOfAnotherContextAreUnknown) {
  Guest a(host_, 1);
  Guest b(host_, 2);
  GpuBuffer a_buf = a.buffer(4096);
  // B knows nothing of A's BO id...
  EXPECT_EQ(b.va_bind(a_buf.bo_id, 0, b.caps.va_base, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(b.bo_destroy(a_buf.bo_id), Status::kInvalidArgument);
  EXPECT_EQ(b.submit(0, 1, {a_buf.bo_id}, {0x00010000u}), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("SUBMIT: bos: unknown BO id")) << log_.all();
  // ...nor of A's blob: the renderer will not attach it to B, and B cannot name it.
  EXPECT_EQ(b.renderer().attach_resource(b.ctx_id, a_buf.blob.res_id), -EPERM);
  EXPECT_EQ(b.bo_create(9, a_buf.blob.res_id, 0, 4096), Status::kInvalidArgument);
  // A's BO is untouched.
  EXPECT_EQ(a.bo_destroy(a_buf.bo_id), Status::kOk);
}

TEST_F(GsgpuCtxHostile, BadVaBindsAreRefused) {
  Guest g(host_, 1);
  GpuBuffer buf = g.buffer(16384);
  const uint64_t base = g.caps.va_base + 0x20000000;
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base, 4096, 0), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("VA_BIND: perms")) << log_.all();
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base, 4096, 8), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base + 1, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base, 4095, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base, 0, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 8192, base, 16384, kVaRead), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("VA_BIND: bo_offset: range 8192 + 16384 is outside BO")) << log_.all();
  EXPECT_EQ(g.va_bind(buf.bo_id, UINT64_MAX - 4095, base, 8192, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, g.caps.va_base - 4096, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, g.caps.va_base + g.caps.va_size - 4096, 8192, kVaRead),
            Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, UINT64_MAX - 4095, 8192, kVaRead), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("is outside the VA window")) << log_.all();
  // Overlaps are the device's to refuse.
  ASSERT_EQ(g.va_bind(buf.bo_id, 0, base, 8192, kVaRead), Status::kOk);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base + 4096, 8192, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_bind(buf.bo_id, 0, base - 4096, 8192, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(g.va_unbind(base, 4096 * 3), Status::kInvalidArgument);
  EXPECT_EQ(g.va_unbind(base, 0), Status::kInvalidArgument);
  EXPECT_EQ(g.va_unbind(base, 8192), Status::kOk);
  EXPECT_EQ(g.va_unbind(base, 8192), Status::kInvalidArgument) << "already unbound";
}

TEST_F(GsgpuCtxHostile, RingsAndSeqnosOutOfRangeAreRefusedWithoutTouchingTheTimeline) {
  Guest g(host_, 1);
  std::vector<uint32_t> nop = {0x00010000u};  // NOP, 1 dword
  EXPECT_EQ(g.submit(test_config().num_rings, 1, {}, nop), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("SUBMIT: ring: ring 4 is out of range")) << log_.all();
  EXPECT_EQ(g.submit(UINT32_MAX, 1, {}, nop), Status::kInvalidArgument);
  EXPECT_EQ(g.submit(0, 0, {}, nop), Status::kInvalidArgument) << "seqno 0 never increases";
  ASSERT_EQ(g.submit(0, 5, {}, nop), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 5));
  EXPECT_EQ(g.submit(0, 5, {}, nop), Status::kInvalidArgument);
  EXPECT_EQ(g.submit(0, 4, {}, nop), Status::kInvalidArgument);
  EXPECT_TRUE(log_.contains("SUBMIT: ring_seqno: seqno 4 of ring 0 does not increase (last 5)")) << log_.all();
  EXPECT_EQ(g.fence(0).retired_seqno, 5u);
  EXPECT_EQ(g.fence(0).faulted_seqno, 0u);
  // Seqnos are per ring.
  EXPECT_EQ(g.submit(1, 2, {}, nop), Status::kOk);
  ASSERT_TRUE(g.wait_retired(1, 2));
}

TEST_F(GsgpuCtxHostile, RefusedSubmissionsRetireAsFaultedInOrder) {
  Guest g(host_, 1);
  std::vector<uint32_t> nop = {0x00010000u};
  EXPECT_EQ(g.submit(0, 1, {12345}, nop), Status::kInvalidArgument);
  EXPECT_EQ(g.fence(0).retired_seqno, 1u) << "nothing before it: it retires at once";
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
  std::vector<uint8_t> flagged = Guest::submit_request(0, 2, {}, nop);
  flagged[offsetof(SubmitReq, flags)] = 1;
  EXPECT_EQ(g.send(flagged), 0);
  EXPECT_TRUE(log_.contains("SUBMIT: flags: unknown bits 1")) << log_.all();
  EXPECT_EQ(g.fence(0).retired_seqno, 2u);
  // A device refusal (a packet that would halt the command processor) retires the same way.
  std::vector<uint32_t> halt;
  gsgpu::hw::append_halt(&halt);
  EXPECT_NE(g.submit(0, 3, {}, halt), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 3));
  EXPECT_EQ(g.fence(0).faulted_seqno, 3u);
  // And the ring still works.
  EXPECT_EQ(g.submit(0, 4, {}, nop), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 4));
  EXPECT_EQ(g.fence(0).faulted_seqno, 3u);
}

TEST_F(GsgpuCtxHostile, MalformedStreamsMakeTheContextFatal) {
  struct Case {
    const char* what;
    std::function<std::vector<uint8_t>()> stream;
    const char* log;
  };
  std::vector<Case> cases = {
      {"truncated header", [] { return std::vector<uint8_t>(12, 0); }, "header: truncated"},
      {"unknown cmd", [] { std::vector<uint8_t> s(16, 0); s[0] = 200; s[4] = 16; return s; }, "cmd: unknown id 200"},
      {"len too small", [] {
         std::vector<uint8_t> s;
         encode_reset(s, 0, 0, ResetReq{});
         s[4] = 8;
         return s;
       }, "RESET at byte 0: len: 8"},
      {"oversized len", [] {
         std::vector<uint8_t> s;
         encode_reset(s, 0, 0, ResetReq{});
         s[4] = 32;
         return s;
       }, "runs past the end"},
      {"array count past len", [] {
         auto s = Guest::submit_request(0, 1, {}, {0x00010000u});
         uint32_t huge = 1u << 30;
         std::memcpy(s.data() + offsetof(SubmitReq, dword_count), &huge, 4);
         return s;
       }, "4 * dword_count 1073741824"},
  };
  uint32_t ctx_id = 10;
  for (const Case& c : cases) {
    Guest g(host_, ctx_id++);
    EXPECT_EQ(g.send(c.stream()), -EINVAL) << c.what;
    EXPECT_TRUE(log_.contains(c.log)) << c.what << "\n" << log_.all();
    EXPECT_TRUE(log_.contains("fatal")) << c.what;
    // Sticky: a well-formed request is refused too.
    std::vector<uint8_t> ok;
    encode_reset(ok, 0, 0, ResetReq{});
    EXPECT_LT(g.send(ok), 0) << c.what;
  }
}

TEST_F(GsgpuCtxHostile, RequestsBeforeAMalformedOneAreExecuted) {
  Guest g(host_, 1);
  Blob b = g.blob(4096);
  BoCreateReq req{};
  req.bo_id = 3;
  req.res_id = b.res_id;
  req.size = 4096;
  std::vector<uint8_t> s;
  encode_bo_create(s, 0, 0, req);
  s.resize(s.size() + 8, 0xff);  // garbage after it
  EXPECT_EQ(g.send(s), -EINVAL);
  // The context is fatal now; destroying it frees the BO (ASan checks nothing leaks).
  EXPECT_EQ(g.renderer().destroy_context(g.ctx_id), 0);
}

TEST_F(GsgpuCtxHostile, ResponsesThatCannotBeDeliveredSkipTheRequest) {
  Guest g(host_, 1);
  Blob b = g.blob(4096);
  BoCreateReq req{};
  req.bo_id = 3;
  req.res_id = b.res_id;
  req.size = 4096;
  for (uint32_t rsp_off : {8u, 260u, uint32_t(Guest::kResponseBytes - 4), 0xfffffff8u}) {
    std::vector<uint8_t> s;
    encode_bo_create(s, 77, rsp_off, req);
    EXPECT_EQ(g.send(s), 0);
  }
  EXPECT_TRUE(log_.contains("BO_CREATE: rsp_off:")) << log_.all();
  EXPECT_TRUE(log_.contains("the request is not executed")) << log_.all();
  // None of them created the BO.
  EXPECT_EQ(g.bo_destroy(3), Status::kInvalidArgument);
  // Nothing was written into the fence page.
  EXPECT_EQ(g.fence(0).retired_seqno, 0u);
  FencePage page;
  std::memcpy(&page, g.response.map, sizeof page);
  EXPECT_EQ(page.magic, kFencePageMagic);
}

TEST_F(GsgpuCtxHostile, BadResponseBuffersAreRefused) {
  Host& host = host_;
  ASSERT_EQ(host.renderer().create_context(1, kCapsetId, "raw"), 0);
  auto set = [&](uint32_t res_id, uint64_t offset, uint64_t size) {
    SetResponseBufferReq req{};
    req.res_id = res_id;
    req.offset = offset;
    req.size = size;
    std::vector<uint8_t> s;
    encode_set_response_buffer(s, 0, 0, req);
    return host.renderer().submit(1, s.data(), s.size());
  };
  EXPECT_EQ(set(42, 0, 4096), 0);  // a refusal is not fatal
  EXPECT_TRUE(log_.contains("SET_RESPONSE_BUFFER: res_id: resource 42 is not attached")) << log_.all();
  renderer::BlobCreateInfo info;
  info.res_id = 42;
  info.ctx_id = 1;
  info.blob_mem = renderer::kBlobMemHost3d;
  info.size = 8192;
  ASSERT_EQ(host.renderer().create_blob(info), 0);
  ASSERT_EQ(host.renderer().attach_resource(1, 42), 0);
  EXPECT_EQ(set(42, 4, 1024), 0);
  EXPECT_TRUE(log_.contains("SET_RESPONSE_BUFFER: offset: 4 is not 8-aligned")) << log_.all();
  EXPECT_EQ(set(42, 0, 64), 0);
  EXPECT_TRUE(log_.contains("SET_RESPONSE_BUFFER: size: 64 is below")) << log_.all();
  EXPECT_EQ(set(42, 4096, 8192), 0);
  EXPECT_EQ(set(42, UINT64_MAX - 7, 1024), 0);
  EXPECT_TRUE(log_.contains("is outside resource 42")) << log_.all();
  // None took effect: a request that wants a response is skipped.
  std::vector<uint8_t> s;
  encode_get_caps(s, 1, 256, GetCapsReq{});
  EXPECT_EQ(host.renderer().submit(1, s.data(), s.size()), 0);
  EXPECT_TRUE(log_.contains("GET_CAPS: rsp_off: no response buffer is set")) << log_.all();
  void* map = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(host.renderer().get_map(42, &map, &size), 0);
  for (uint64_t i = 0; i < size; ++i) ASSERT_EQ(static_cast<uint8_t*>(map)[i], 0) << i;
}

TEST_F(GsgpuCtxHostile, ResponsesCarryOnlyTheResponse) {
  Guest g(host_, 1);
  // Fill the response area with a pattern: a response overwrites exactly its own bytes, and
  // every byte of it the host did not set is zero.
  std::memset(g.response.map + Guest::kRspOff, 0xa5, 4096);
  std::vector<uint8_t> s;
  encode_read_faults(s, 9, Guest::kRspOff, ReadFaultsReq{});
  ASSERT_EQ(g.send(s), 0);
  const uint8_t* rsp = g.response.map + Guest::kRspOff;
  EXPECT_EQ(load_response_seqno(rsp), 9u);
  for (size_t i = 4; i < sizeof(ReadFaultsRsp); ++i) ASSERT_EQ(rsp[i], 0) << "byte " << i;
  for (size_t i = sizeof(ReadFaultsRsp); i < 4096; ++i) ASSERT_EQ(rsp[i], 0xa5) << "byte " << i;
  // A refused request answers its status only.
  std::memset(g.response.map + Guest::kRspOff, 0xa5, 4096);
  BoDestroyReq d{};
  d.bo_id = 1234;
  s.clear();
  encode_bo_destroy(s, 10, Guest::kRspOff, d);
  ASSERT_EQ(g.send(s), 0);
  BoDestroyRsp out;
  std::memcpy(&out, rsp, sizeof out);
  EXPECT_EQ(out.seqno, 10u);
  EXPECT_EQ(out.status, int32_t(Status::kInvalidArgument));
  EXPECT_EQ(rsp[sizeof out], 0xa5);
}

TEST_F(GsgpuCtxHostile, PadFieldsMustBeZero) {
  Guest g(host_, 1);
  BoDestroyRsp rsp = g.call<BoDestroyRsp>([](auto& s, uint32_t q, uint32_t o) {
    BoDestroyReq req{};
    req.bo_id = 1;
    req.pad0 = 5;
    encode_bo_destroy(s, q, o, req);
  });
  EXPECT_EQ(rsp.status, int32_t(Status::kInvalidArgument));
  EXPECT_TRUE(log_.contains("BO_DESTROY: pad0: must be 0")) << log_.all();
}

TEST_F(GsgpuCtxHostile, BoDestroyedWhileASubmissionUsesItKeepsItsMemory) {
  Guest g(host_, 1);
  GpuBuffer code = g.kernel(read_kernel("scale.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  const uint32_t n = 32 * 256;
  GpuBuffer x = g.buffer(n * 4);
  prepare_scale(args, x, n, 3);
  // Submit, destroy every BO it uses in the same stream, and detach the blobs: the running
  // submission keeps the memory (ASan would see a use after unmap otherwise).
  std::vector<uint8_t> s = Guest::submit_request(0, 1, {code.bo_id, args.bo_id, x.bo_id},
                                                 Guest::dispatch(code, args, 12, 256, 32));
  for (uint32_t id : {code.bo_id, args.bo_id}) {
    BoDestroyReq d{};
    d.bo_id = id;
    encode_bo_destroy(s, 0, 0, d);
  }
  ASSERT_EQ(g.send(s), 0);
  // x's blob goes away under the running submission: detach and unref.
  ASSERT_EQ(g.renderer().detach_resource(g.ctx_id, x.blob.res_id), 0);
  ASSERT_EQ(g.renderer().unref_resource(x.blob.res_id), 0);
  ASSERT_TRUE(g.wait_retired(0, 1));
  // Whatever it computed, the ids are gone.
  EXPECT_EQ(g.bo_destroy(code.bo_id), Status::kInvalidArgument);
  EXPECT_EQ(g.bo_destroy(x.bo_id), Status::kInvalidArgument);
  // The response blob can be detached too: the context stops writing into it.
  ASSERT_EQ(g.renderer().detach_resource(g.ctx_id, g.response.res_id), 0);
  std::vector<uint8_t> caps;
  encode_get_caps(caps, 1, Guest::kRspOff, GetCapsReq{});
  EXPECT_EQ(g.send(caps), 0);
  EXPECT_TRUE(log_.contains("GET_CAPS: rsp_off: no response buffer is set")) << log_.all();
}

TEST_F(GsgpuCtxHostile, ContextDestroyedWithWorkInFlight) {
  Guest g(host_, 1);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  for (uint64_t s = 1; s <= 4; ++s)
    ASSERT_EQ(g.submit(s % 2, s, {spin.bo_id, args.bo_id}, Guest::dispatch(spin, args, 0, 2, 32)), Status::kOk);
  ASSERT_EQ(g.renderer().create_fence(g.ctx_id, 0, 4), 0);
  EXPECT_EQ(g.renderer().destroy_context(g.ctx_id), 0);
  g.renderer().poll();
}

TEST(GsgpuCtxQuotas, QuotasAreEnforced) {
  ContextConfig config = test_config();
  config.limits.max_bos = 2;
  config.limits.max_bo_bytes = 3 * 4096;
  config.limits.max_submit_dwords = 32;
  config.limits.max_submit_bos = 1;
  config.limits.max_pending_submits = 1;
  config.watchdog_budget = 2'000'000;
  Host host(config);
  LogCapture log;
  Guest g(host, 1);
  Blob b = g.blob(4 * 4096);
  EXPECT_EQ(g.bo_create(1, b.res_id, 0, 8192), Status::kOk);
  EXPECT_EQ(g.bo_create(2, b.res_id, 8192, 8192), Status::kOutOfMemory);
  EXPECT_TRUE(log.contains("exceed the context's BO byte quota")) << log.all();
  EXPECT_EQ(g.bo_create(2, b.res_id, 8192, 4096), Status::kOk);
  EXPECT_EQ(g.bo_create(3, 0, 0, 4096), Status::kOutOfMemory);
  EXPECT_TRUE(log.contains("BO_CREATE: bo_id: the context already has 2 BOs (quota 2)")) << log.all();
  EXPECT_EQ(g.submit(0, 1, {}, std::vector<uint32_t>(33, 0x00010000u)), Status::kOutOfMemory);
  EXPECT_TRUE(log.contains("SUBMIT: dword_count: 33 is above the quota of 32")) << log.all();
  EXPECT_EQ(g.submit(0, 2, {1, 2}, {0x00010000u}), Status::kOutOfMemory);
  EXPECT_EQ(g.fence(0).faulted_seqno, 2u);
  // One submission in flight at most: a spinning kernel holds the slot.
  ASSERT_EQ(g.bo_destroy(1), Status::kOk);
  ASSERT_EQ(g.bo_destroy(2), Status::kOk);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  (void)args;
  ASSERT_EQ(g.submit(0, 3, {spin.bo_id}, Guest::dispatch(spin, spin, 0, 1, 1)), Status::kOk);
  EXPECT_EQ(g.submit(0, 4, {spin.bo_id}, Guest::dispatch(spin, spin, 0, 1, 1)), Status::kOutOfMemory);
  EXPECT_TRUE(log.contains("submissions are still running (quota 1)")) << log.all();
  ASSERT_TRUE(g.wait_retired(0, 4));
  EXPECT_EQ(g.fence(0).faulted_seqno, 4u);
}

TEST(GsgpuCtxIsolation, FaultsAndHangsStayInTheirContext) {
  Host host;
  LogCapture log;
  Guest bad(host, 1);
  Guest good(host, 2);
  GpuBuffer spin = bad.kernel(read_kernel("spin.s"));
  GpuBuffer bad_args = bad.buffer(4096, kVaRead);
  GpuBuffer bad_code = bad.kernel(read_kernel("scale.s"));
  uint64_t nowhere = bad.caps.va_base + bad.caps.va_size - 0x10000;
  std::memcpy(bad_args.blob.map, &nowhere, 8);

  GpuBuffer code = good.kernel(read_kernel("scale.s"));
  GpuBuffer args = good.buffer(4096, kVaRead);
  const uint32_t n = 32 * 64;
  GpuBuffer x = good.buffer(n * 4);

  // The bad context hangs (watchdog), faults and resets while the good one computes.
  std::vector<uint8_t> storm;
  for (uint64_t s = 1; s <= 6; ++s) {
    auto req = s % 2 ? Guest::submit_request(0, s, {spin.bo_id}, Guest::dispatch(spin, bad_args, 0, 2, 32))
                     : Guest::submit_request(0, s, {bad_code.bo_id, bad_args.bo_id},
                                             Guest::dispatch(bad_code, bad_args, 12, 4, 32));
    storm.insert(storm.end(), req.begin(), req.end());
  }
  ASSERT_EQ(bad.send(storm), 0);
  for (uint64_t s = 1; s <= 5; ++s) {
    prepare_scale(args, x, n, uint32_t(s + 1));
    ASSERT_EQ(good.submit(0, s, {code.bo_id, args.bo_id, x.bo_id}, Guest::dispatch(code, args, 12, 64, 32)),
              Status::kOk);
    ASSERT_TRUE(good.wait_retired(0, s));
    EXPECT_EQ(good.fence(0).faulted_seqno, 0u);
    ASSERT_TRUE(scaled(x, n, uint32_t(s + 1))) << "round " << s;
  }
  // The first two (a watchdog fault and a memory fault) have happened; the reset cancels the rest.
  ASSERT_TRUE(bad.wait_retired(0, 2));
  EXPECT_GE(bad.fence(0).faulted_seqno, 2u);
  EXPECT_EQ(bad.reset(), Status::kOk);
  EXPECT_EQ(bad.fence(0).retired_seqno, 6u);
  EXPECT_GT(bad.fence(0).faulted_seqno, 0u);
  EXPECT_EQ(good.read_counters().faults, 0u);
  EXPECT_EQ(good.read_counters().resets, 0u);
  EXPECT_GE(bad.read_counters().faults, 1u);
  // The bad context works again after its reset.
  GpuBuffer bx = bad.buffer(4096);
  prepare_scale(bad_args, bx, 32, 4);
  ASSERT_EQ(bad.submit(0, 7, {bad_code.bo_id, bad_args.bo_id, bx.bo_id},
                       Guest::dispatch(bad_code, bad_args, 12, 1, 32)),
            Status::kOk);
  ASSERT_TRUE(bad.wait_retired(0, 7));
  EXPECT_TRUE(scaled(bx, 32, 4));
}

TEST(GsgpuCtxIsolation, TwoContextsRunAtTheSameTime) {
  Host host;
  Guest a(host, 1);
  Guest b(host, 2);
  struct Work {
    GpuBuffer code, args, x;
  };
  auto setup = [](Guest& g, uint32_t k) {
    Work w{g.kernel(read_kernel("scale.s")), g.buffer(4096, kVaRead), g.buffer(32 * 128 * 4)};
    prepare_scale(w.args, w.x, 32 * 128, k);
    return w;
  };
  Work wa = setup(a, 3), wb = setup(b, 11);
  ASSERT_EQ(a.submit(0, 1, {wa.code.bo_id, wa.args.bo_id, wa.x.bo_id}, Guest::dispatch(wa.code, wa.args, 12, 128, 32)),
            Status::kOk);
  ASSERT_EQ(b.submit(0, 1, {wb.code.bo_id, wb.args.bo_id, wb.x.bo_id}, Guest::dispatch(wb.code, wb.args, 12, 128, 32)),
            Status::kOk);
  ASSERT_TRUE(a.wait_retired(0, 1));
  ASSERT_TRUE(b.wait_retired(0, 1));
  EXPECT_TRUE(scaled(wa.x, 32 * 128, 3));
  EXPECT_TRUE(scaled(wb.x, 32 * 128, 11));
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::test
