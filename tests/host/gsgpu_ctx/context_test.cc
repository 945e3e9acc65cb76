// The gsgpu native context doing real work through the renderer: the capset, GET_CAPS, a kernel
// from tests/gsgpu/emu/kernels run end to end on blob-backed BOs (zero-copy), fences retiring
// asynchronously through the fence page and the renderer, faults, counters, reset.
#include <chrono>
#include <thread>

#include "ctx_harness.h"
#include "host/renderer/capset_registry.h"
#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsvirt::gsgpu_ctx::test {
namespace {

using gsgpu::drv::kVaRead;
using gsgpu::drv::kVaWrite;

TEST(GsgpuCtx, CapsetCarriesVersionHashCapsAndLimits) {
  Host host;
  auto info = renderer::find_capset(kCapsetId);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->max_version, kWireVersion);
  std::vector<uint8_t> bytes;
  info->fill_caps(kWireVersion, bytes);
  ASSERT_EQ(bytes.size(), sizeof(Capset));
  Capset capset;
  std::memcpy(&capset, bytes.data(), sizeof capset);
  EXPECT_EQ(capset.wire_version, kWireVersion);
  EXPECT_EQ(capset.capset_size, sizeof(Capset));
  EXPECT_EQ(std::string(capset.xml_hash, 32), std::string(kXmlHash));
  EXPECT_EQ(capset.caps.chip_id, gsgpu::hw::reset::ID);
  EXPECT_EQ(capset.caps.version, gsgpu::hw::reset::VERSION);
  EXPECT_EQ(capset.caps.num_rings, test_config().num_rings);
  EXPECT_EQ(capset.caps.vram_size, test_config().vram_size);
  EXPECT_EQ(capset.caps.page_size, 4096u);
  EXPECT_EQ(capset.limits.max_bos, test_config().limits.max_bos);

  // GET_CAPS of a context answers the same.
  Guest g(host, 1);
  GetCapsRsp rsp = g.get_caps();
  EXPECT_EQ(rsp.status, 0);
  EXPECT_EQ(std::memcmp(&rsp.caps, &capset.caps, sizeof rsp.caps), 0);
  EXPECT_EQ(std::memcmp(&rsp.limits, &capset.limits, sizeof rsp.limits), 0);
}

TEST(GsgpuCtx, FencePageIsWrittenWhenTheResponseBufferIsSet) {
  Host host;
  Guest g(host, 1);
  FencePage page;
  std::memcpy(&page, g.response.map, sizeof page);
  EXPECT_EQ(page.magic, kFencePageMagic);
  EXPECT_EQ(page.num_rings, test_config().num_rings);
  for (const RingFence& r : page.rings) {
    EXPECT_EQ(r.retired_seqno, 0u);
    EXPECT_EQ(r.faulted_seqno, 0u);
  }
}

TEST(GsgpuCtx, ScaleKernelRunsEndToEndOnBlobMemory) {
  Host host;
  Guest g(host, 1);
  GpuBuffer code = g.kernel(read_kernel("scale.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  GpuBuffer x = g.buffer(4 * 32 * 10);
  ASSERT_EQ(x.blob.size, 4096u);
  prepare_scale(args, x, 320, 7);

  ASSERT_EQ(g.submit(1, 10, {code.bo_id, args.bo_id, x.bo_id}, Guest::dispatch(code, args, 12, 10, 32)),
            Status::kOk);
  // A renderer fence created behind the submission retires with it.
  ASSERT_EQ(g.renderer().create_fence(g.ctx_id, 1, 500), 0);
  ASSERT_TRUE(g.wait_retired(1, 10));
  EXPECT_EQ(g.fence(1).faulted_seqno, 0u);
  EXPECT_TRUE(host.wait_fence(g.ctx_id, 1, 500));
  // The results are in the guest's own mapping of the blob: the GPU wrote it in place.
  EXPECT_TRUE(scaled(x, 320, 7));

  Counters c = g.read_counters();
  EXPECT_EQ(c.submissions, 1u);
  EXPECT_EQ(c.dispatches, 1u);
  EXPECT_EQ(c.work_groups, 10u);
  EXPECT_GT(c.instructions, 0u);
  EXPECT_EQ(c.faults, 0u);
  ReadFaultsRsp f = g.read_faults();
  EXPECT_EQ(f.count, 0u);

  // A second run on another ring, same buffers.
  prepare_scale(args, x, 320, 3);
  ASSERT_EQ(g.submit(0, 1, {code.bo_id, args.bo_id, x.bo_id}, Guest::dispatch(code, args, 12, 10, 32)),
            Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 1));
  EXPECT_TRUE(scaled(x, 320, 3));
}

TEST(GsgpuCtx, DeviceMemoryBosWorkBesideBlobBackedOnes) {
  Host host;
  Guest g(host, 1);
  GpuBuffer code = g.kernel(read_kernel("scale.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  GpuBuffer x = g.buffer(4096);
  // A BO with no blob: the GPU sees it, the guest does not; used here as a scratch binding.
  ASSERT_EQ(g.bo_create(50, 0, 0, 8192), Status::kOk);
  ASSERT_EQ(g.va_bind(50, 0, g.caps.va_base + 0x40000000, 8192, kVaRead | kVaWrite), Status::kOk);
  prepare_scale(args, x, 64, 5);
  ASSERT_EQ(g.submit(0, 1, {code.bo_id, args.bo_id, x.bo_id, 50}, Guest::dispatch(code, args, 12, 2, 32)),
            Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 1));
  EXPECT_TRUE(scaled(x, 64, 5));
  EXPECT_EQ(g.va_unbind(g.caps.va_base + 0x40000000, 8192), Status::kOk);
  EXPECT_EQ(g.bo_destroy(50), Status::kOk);
}

TEST(GsgpuCtx, FencesRetireAsynchronously) {
  ContextConfig config = test_config();
  config.watchdog_budget = 20'000'000;  // the spinning warp runs for a while before its fault
  Host host(config);
  Guest g(host, 1);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  ASSERT_EQ(g.submit(2, 5, {spin.bo_id, args.bo_id}, Guest::dispatch(spin, args, 0, 1, 1)), Status::kOk);
  // Work is pending on the ring, so the fence waits for it.
  ASSERT_EQ(g.renderer().create_fence(g.ctx_id, 2, 77), 0);
  EXPECT_FALSE(host.has_retired(g.ctx_id, 2, 77));
  // A fence on an idle ring retires at once.
  ASSERT_EQ(g.renderer().create_fence(g.ctx_id, 3, 99), 0);
  EXPECT_TRUE(host.has_retired(g.ctx_id, 3, 99));
  // The spin ends with a watchdog fault; the fence retires anyway, and the page says it faulted.
  EXPECT_TRUE(host.wait_fence(g.ctx_id, 2, 77));
  EXPECT_EQ(g.fence(2).retired_seqno, 5u);
  EXPECT_EQ(g.fence(2).faulted_seqno, 5u);
}

// Fence ids are the guest's VMM's (a virtio-gpu fence context), unrelated to the seqnos the guest
// gives its submissions: each fence retires exactly when the submission it was created behind
// does, even when its id equals the seqno of an earlier submission that retires first.
TEST(GsgpuCtx, FencesRetireByTheirOwnIdsNotBySeqnos) {
  ContextConfig config = test_config();
  config.watchdog_budget = 0xffffffffu;                  // only the test ends a gate
  config.submit_time_budget_ns = uint64_t{60'000'000'000};
  Host host(config);
  Guest g(host, 1);
  renderer::Renderer& r = g.renderer();
  GpuBuffer gate = g.kernel(kGateKernel);
  GpuBuffer first = g.buffer(4096, kVaRead), second = g.buffer(4096, kVaRead);
  ASSERT_EQ(g.submit(1, 5, {gate.bo_id, first.bo_id}, Guest::dispatch(gate, first, 4, 1, 1)), Status::kOk);
  ASSERT_EQ(r.create_fence(g.ctx_id, 1, 1000), 0);
  ASSERT_EQ(g.submit(1, 6, {}, {}), Status::kOk);
  ASSERT_EQ(r.create_fence(g.ctx_id, 1, 1001), 0);
  ASSERT_EQ(g.submit(1, 7, {gate.bo_id, second.bo_id}, Guest::dispatch(gate, second, 4, 1, 1)), Status::kOk);
  ASSERT_EQ(r.create_fence(g.ctx_id, 1, 6), 0);
  ASSERT_EQ(r.create_fence(g.ctx_id, 2, 2000), 0);
  using Fences = std::vector<std::pair<uint32_t, uint64_t>>;
  EXPECT_EQ(host.retired_fences(g.ctx_id), (Fences{{2, 2000}})) << "ring 2 is idle, ring 1 is not";

  open_gate(first);
  ASSERT_TRUE(host.wait_fence(g.ctx_id, 1, 1001));
  EXPECT_EQ(g.fence(1).retired_seqno, 6u);
  for (int i = 0; i < 20; ++i) {
    r.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(host.retired_fences(g.ctx_id), (Fences{{2, 2000}, {1, 1000}, {1, 1001}}))
      << "fence 6 stands behind seqno 7, which is still running";

  open_gate(second);
  ASSERT_TRUE(host.wait_fence(g.ctx_id, 1, 6));
  EXPECT_EQ(g.fence(1).retired_seqno, 7u);
  EXPECT_EQ(g.fence(1).faulted_seqno, 0u);
  EXPECT_EQ(host.retired_fences(g.ctx_id), (Fences{{2, 2000}, {1, 1000}, {1, 1001}, {1, 6}}));
  EXPECT_FALSE(r.has_pending_fences());
}

// A fence created behind a submission that is refused after its seqno was admitted retires with
// it, in order.
TEST(GsgpuCtx, FencesBehindARefusedSubmissionRetireInOrder) {
  ContextConfig config = test_config();
  config.watchdog_budget = 0xffffffffu;
  config.submit_time_budget_ns = uint64_t{60'000'000'000};
  Host host(config);
  Guest g(host, 1);
  renderer::Renderer& r = g.renderer();
  GpuBuffer gate = g.kernel(kGateKernel);
  GpuBuffer flag = g.buffer(4096, kVaRead);
  ASSERT_EQ(g.submit(0, 1, {gate.bo_id, flag.bo_id}, Guest::dispatch(gate, flag, 4, 1, 1)), Status::kOk);
  ASSERT_EQ(r.create_fence(g.ctx_id, 0, 40), 0);
  EXPECT_EQ(g.submit(0, 2, {999}, {}), Status::kInvalidArgument) << "an unknown BO: refused, seqno 2 faults";
  ASSERT_EQ(r.create_fence(g.ctx_id, 0, 41), 0);
  EXPECT_EQ(g.submit(0, 3, {998}, {}), Status::kInvalidArgument);
  ASSERT_EQ(r.create_fence(g.ctx_id, 0, 42), 0);
  r.poll();
  EXPECT_TRUE(host.retired_fences(g.ctx_id).empty());
  open_gate(flag);
  ASSERT_TRUE(host.wait_fence(g.ctx_id, 0, 42));
  using Fences = std::vector<std::pair<uint32_t, uint64_t>>;
  EXPECT_EQ(host.retired_fences(g.ctx_id), (Fences{{0, 40}, {0, 41}, {0, 42}}));
  EXPECT_EQ(g.fence(0).retired_seqno, 3u);
  EXPECT_EQ(g.fence(0).faulted_seqno, 3u);
}

TEST(GsgpuCtx, EmptySubmissionsRetireLikeOthers) {
  Host host;
  Guest g(host, 1);
  ASSERT_EQ(g.submit(3, 8, {}, {}), Status::kOk);
  ASSERT_TRUE(g.wait_retired(3, 8));
  EXPECT_EQ(g.fence(3).faulted_seqno, 0u);
}

TEST(GsgpuCtx, FaultsAreReportedWithTheGuestSeqnoAndTheContextRecovers) {
  Host host;
  Guest g(host, 1);
  GpuBuffer code = g.kernel(read_kernel("scale.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  GpuBuffer x = g.buffer(4096);
  // x points at an unbound address: the store faults.
  uint64_t bad_va = g.caps.va_base + g.caps.va_size - 0x10000;
  std::memcpy(args.blob.map, &bad_va, 8);
  ASSERT_EQ(g.submit(0, 41, {code.bo_id, args.bo_id}, Guest::dispatch(code, args, 12, 1, 32)), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 41));
  EXPECT_EQ(g.fence(0).faulted_seqno, 41u);
  ReadFaultsRsp f = g.read_faults();
  EXPECT_EQ(f.status, 0);
  ASSERT_GE(f.count, 1u);
  EXPECT_EQ(f.faults[0].seqno, 41u);
  EXPECT_EQ(f.faults[0].ring, 0u);
  EXPECT_NE(f.faults[0].message[0], '\0');
  EXPECT_EQ(f.faults[0].message[kFaultMessageBytes - 1], '\0');

  // The next submission runs normally.
  prepare_scale(args, x, 32, 9);
  ASSERT_EQ(g.submit(0, 42, {code.bo_id, args.bo_id, x.bo_id}, Guest::dispatch(code, args, 12, 1, 32)),
            Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 42));
  EXPECT_EQ(g.fence(0).faulted_seqno, 41u);
  EXPECT_TRUE(scaled(x, 32, 9));
  EXPECT_GE(g.read_counters().faults, 1u);
}

TEST(GsgpuCtx, ASubmissionPastItsTimeBudgetIsStopped) {
  ContextConfig config = test_config();
  config.watchdog_budget = 0xffffffffu;  // the watchdog would take minutes
  config.submit_time_budget_ns = 100'000'000;
  Host host(config);
  Guest g(host, 1);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(g.submit(0, 1, {spin.bo_id, args.bo_id}, Guest::dispatch(spin, args, 0, 64, 32)), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 1, 20000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
  ReadFaultsRsp f = g.read_faults();
  ASSERT_GE(f.count, 1u);
  EXPECT_EQ(f.faults[0].kind, uint32_t(gsgpu::drv::FaultKind::kTimeout));
  EXPECT_EQ(f.faults[0].seqno, 1u);
  // The ring goes on.
  ASSERT_EQ(g.submit(0, 2, {}, {}), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 2));
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
}

TEST(GsgpuCtx, ResetStopsARunningSubmission) {
  ContextConfig config = test_config();
  config.watchdog_budget = 0xffffffffu;
  config.submit_time_budget_ns = 0;  // nothing but the reset stops it
  Host host(config);
  Guest g(host, 1);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  ASSERT_EQ(g.submit(0, 1, {spin.bo_id, args.bo_id}, Guest::dispatch(spin, args, 0, 64, 32)), Status::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(g.reset(), Status::kOk);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(g.fence(0).retired_seqno, 1u);
  EXPECT_EQ(g.fence(0).faulted_seqno, 1u);
}

TEST(GsgpuCtx, ManyFaultsAreReadInBatches) {
  Host host;
  Guest g(host, 1);
  GpuBuffer code = g.kernel(read_kernel("scale.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  uint64_t bad_va = g.caps.va_base + g.caps.va_size - 0x10000;
  std::memcpy(args.blob.map, &bad_va, 8);
  for (uint64_t s = 1; s <= 6; ++s)
    ASSERT_EQ(g.submit(0, s, {code.bo_id, args.bo_id}, Guest::dispatch(code, args, 12, 1, 32)), Status::kOk);
  ASSERT_TRUE(g.wait_retired(0, 6));
  ReadFaultsRsp first = g.read_faults();
  ASSERT_EQ(first.count, kMaxFaultsPerResponse);
  EXPECT_EQ(first.remaining, 6 - kMaxFaultsPerResponse);
  for (uint32_t i = 0; i < first.count; ++i) EXPECT_EQ(first.faults[i].seqno, i + 1);
  ReadFaultsRsp second = g.read_faults();
  EXPECT_EQ(second.count, 6 - kMaxFaultsPerResponse);
  EXPECT_EQ(second.remaining, 0u);
  EXPECT_EQ(second.faults[0].seqno, kMaxFaultsPerResponse + 1);
}

TEST(GsgpuCtx, ResetCancelsWhatIsQueued) {
  ContextConfig config = test_config();
  config.watchdog_budget = 5'000'000;
  Host host(config);
  Guest g(host, 1);
  GpuBuffer spin = g.kernel(read_kernel("spin.s"));
  GpuBuffer args = g.buffer(4096, kVaRead);
  for (uint64_t s = 1; s <= 3; ++s)
    ASSERT_EQ(g.submit(0, s, {spin.bo_id, args.bo_id}, Guest::dispatch(spin, args, 0, 1, 1)), Status::kOk);
  EXPECT_EQ(g.reset(), Status::kOk);
  // RESET returns once every cancelled submission has retired.
  EXPECT_EQ(g.fence(0).retired_seqno, 3u);
  EXPECT_EQ(g.fence(0).faulted_seqno, 3u);
  EXPECT_GE(g.read_counters().resets, 1u);
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::test
