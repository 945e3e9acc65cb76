// The virtio backend of gsgpu/drv against the real gsgpu native context (host/gsgpu_ctx), in
// process and over vtest to a server loop in a child process: real kernels, zero-copy BOs, ring
// timelines, faults, the checks made in the guest before anything is sent, a host that goes away.
#include "guest/gsgpu/virtio_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"
#include "tests/gsgpu/drv/drv_test_util.h"
#include "tests/host/server/test_server.h"

namespace gsgpu::drv {
namespace {

using gsvirt::guest::Transport;
using test::Buffer;
using test::Driver;
using test::LogCapture;
namespace proto = gsvirt::gsgpu_ctx::proto;

constexpr uint64_t kForever = UINT64_MAX;

void fill_iota(const Buffer& x, uint32_t n) {
  auto* v = reinterpret_cast<uint32_t*>(x.cpu);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
}

class VirtioDeviceTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    // Registered before the test server forks: its child serves the same context type.
    gsvirt::gsgpu_ctx::register_capset();
    open();
  }
  void open() {
    driver_.reset();
    device_.reset();
    std::string error;
    std::unique_ptr<Transport> transport;
    if (std::strcmp(GetParam(), "vtest") == 0) {
      if (!server_) server_ = std::make_unique<gsvirt::test::TestServer>(true);
      transport = gsvirt::guest::create_vtest_transport(server_->socket_path(), &error);
    } else {
      transport = gsvirt::guest::create_inproc_transport(&error);
    }
    ASSERT_TRUE(transport) << error;
    device_ = open_virtio(std::move(transport), &error);
    ASSERT_TRUE(device_) << error;
    driver_ = std::make_unique<Driver>(*device_);
  }
  // x[i] = i * k for n = groups * 32 elements, as one dispatch.
  std::vector<uint32_t> scale(const Buffer& code, const Buffer& args, const Buffer& x, uint32_t groups, uint32_t k) {
    fill_iota(x, groups * 32);
    test::write_scale_args(args, x.va, k);
    std::vector<uint32_t> packets;
    append_dispatch(&packets, driver_->dispatch(code, args, 12, groups, 32));
    return packets;
  }
  void expect_scaled(const Buffer& x, uint32_t n, uint32_t k) {
    auto* v = reinterpret_cast<const uint32_t*>(x.cpu);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(v[i], i * k) << "element " << i;
  }

  std::unique_ptr<gsvirt::test::TestServer> server_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Driver> driver_;
};

TEST_P(VirtioDeviceTest, CapsAreTheHostDevicesRegisters) {
  const Caps& caps = device_->caps();
  gsvirt::gsgpu_ctx::ContextConfig host = gsvirt::gsgpu_ctx::context_config();
  EXPECT_STREQ(device_->backend_name(), "virtio");
  EXPECT_NE(caps.chip_id, 0u);
  EXPECT_EQ(caps.shader_cores, host.shader_cores);
  EXPECT_EQ(caps.warp_width, host.warp_width);
  EXPECT_EQ(caps.num_rings, host.num_rings);
  EXPECT_GT(caps.va_size, 0u);
  EXPECT_GT(caps.max_work_group_size, 0u);
  EXPECT_EQ(caps.page_size, 4096u);
}

// The kernel reads and writes the guest's own mapping of the blob behind each BO: no copies.
TEST_P(VirtioDeviceTest, AKernelRunsOnTheHostOverTheGuestsMemory) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4 * 32 * 10);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 10, 7), {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
  EXPECT_EQ(seqno, 1u);
  ASSERT_EQ(device_->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_EQ(device_->fence_poll(0), 1u);
  EXPECT_EQ(device_->fence_poll(1), 0u);
  expect_scaled(x, 320, 7);
  Counters c = device_->counters();
  EXPECT_EQ(c.submissions, 1u);
  EXPECT_EQ(c.dispatches, 1u);
  EXPECT_EQ(c.work_groups, 10u);
  EXPECT_GT(c.cycles, 0u);
  EXPECT_TRUE(device_->read_faults().empty());
}

TEST_P(VirtioDeviceTest, TimelinesOfTwoRingsRetireInOrder) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  std::vector<uint32_t> packets = scale(code, args, x, 1, 1);
  std::vector<uint64_t> last(2, 0);
  for (int i = 0; i < 20; ++i) {
    uint32_t ring = i % 3 == 0 ? 1 : 0;
    uint64_t seqno = 0;
    ASSERT_EQ(driver_->submit(ring, packets, {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
    EXPECT_EQ(seqno, last[ring] + 1);
    last[ring] = seqno;
    EXPECT_LE(device_->fence_poll(ring), seqno);
  }
  ASSERT_EQ(device_->fence_wait(1, last[1], kForever), Status::kOk);
  ASSERT_EQ(device_->fence_wait(0, last[0], kForever), Status::kOk);
  EXPECT_EQ(device_->fence_poll(0), last[0]);
  for (uint64_t s = 1; s <= last[0]; ++s) EXPECT_EQ(device_->fence_wait(0, s, 0), Status::kOk) << s;
  EXPECT_EQ(device_->counters().submissions, 20u);
  uint64_t empty = 0;
  ASSERT_EQ(driver_->submit(1, {}, {}, &empty), Status::kOk);
  EXPECT_EQ(device_->fence_wait(1, empty, kForever), Status::kOk) << "an empty submission retires too";
}

// A submission that faults retires as kFaulted, with its fault record; the ones around it run.
TEST_P(VirtioDeviceTest, AFaultStaysWithItsSubmission) {
  LogCapture log;
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  Buffer bad_args = driver_->buffer(4096, kVaRead);
  uint64_t before = 0, faulting = 0, after = 0;
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 1, 2), {code.bo, args.bo, x.bo}, &before), Status::kOk);
  test::write_scale_args(bad_args, device_->caps().va_base + device_->caps().va_size - 4096, 3);  // unbound
  std::vector<uint32_t> bad;
  append_dispatch(&bad, driver_->dispatch(code, bad_args, 12, 1, 32));
  ASSERT_EQ(driver_->submit(0, bad, {code.bo, bad_args.bo}, &faulting), Status::kOk);
  ASSERT_EQ(device_->fence_wait(0, faulting, kForever), Status::kFaulted);
  ASSERT_EQ(device_->fence_wait(0, before, kForever), Status::kOk);
  expect_scaled(x, 32, 2);
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 1, 5), {code.bo, args.bo, x.bo}, &after), Status::kOk);
  ASSERT_EQ(device_->fence_wait(0, after, kForever), Status::kOk);
  expect_scaled(x, 32, 5);
  std::vector<FaultInfo> faults = device_->read_faults();
  ASSERT_EQ(faults.size(), 1u) << log.all();
  EXPECT_EQ(faults[0].kind, FaultKind::kMemory);
  EXPECT_EQ(faults[0].ring, 0u);
  EXPECT_EQ(faults[0].seqno, faulting);
  EXPECT_FALSE(faults[0].message.empty());
  EXPECT_TRUE(device_->read_faults().empty()) << "read once";
  EXPECT_EQ(device_->counters().faults, 1u);
}

// Freeing the BOs of a submission still in flight is allowed; the host keeps their memory.
TEST_P(VirtioDeviceTest, BosFreedWhileInFlightStayUntilRetired) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4 * 32 * 64);
  Buffer result = driver_->buffer(4096);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 64, 3), {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
  EXPECT_EQ(device_->bo_free(code.bo), Status::kOk);
  EXPECT_EQ(device_->bo_free(args.bo), Status::kOk);
  EXPECT_EQ(device_->bo_free(x.bo), Status::kOk);
  EXPECT_EQ(device_->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_EQ(device_->bo_map(x.bo), nullptr);
  // The VA range of a freed BO is free again.
  EXPECT_EQ(device_->va_bind(result.bo, 0, x.va, 4096, kVaRead), Status::kOk);
}

// Every rule of drv.h is checked in the guest: the call is refused at once, naming the field,
// and nothing reaches the host.
TEST_P(VirtioDeviceTest, BadCallsAreRefusedInTheGuest) {
  Buffer a = driver_->buffer(8192);
  LogCapture log;
  const Caps& caps = device_->caps();
  BoHandle bo = 0;
  EXPECT_EQ(device_->bo_create(0, 0, &bo), Status::kInvalidArgument);
  EXPECT_EQ(device_->bo_create(4096, 1, &bo), Status::kInvalidArgument);
  EXPECT_EQ(device_->bo_create(caps.max_bo_size + 1, 0, &bo), Status::kInvalidArgument);
  EXPECT_EQ(device_->va_bind(a.bo, 0, a.va, 4096, kVaRead), Status::kInvalidArgument) << "overlap";
  EXPECT_EQ(device_->va_bind(a.bo, 0, a.va + 0x100000 + 1, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(device_->va_bind(a.bo, 4096, a.va + 0x100000, 8192, kVaRead), Status::kInvalidArgument) << "past the BO";
  EXPECT_EQ(device_->va_bind(a.bo, 0, caps.va_base + caps.va_size, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(device_->va_bind(a.bo, 0, a.va + 0x100000, 4096, 0), Status::kInvalidArgument);
  EXPECT_EQ(device_->va_bind(999, 0, a.va + 0x100000, 4096, kVaRead), Status::kInvalidArgument);
  EXPECT_EQ(device_->va_unbind(a.va, 3 * 4096), Status::kInvalidArgument) << "not entirely bound";
  EXPECT_EQ(device_->bo_free(999), Status::kInvalidArgument);
  EXPECT_EQ(device_->bo_map(999), nullptr);
  EXPECT_EQ(device_->bo_size(999), 0u);
  std::vector<uint32_t> nop = encode_nop();
  uint64_t seqno = 0;
  EXPECT_EQ(driver_->submit(caps.num_rings, nop, {}, &seqno), Status::kInvalidArgument);
  EXPECT_EQ(driver_->submit(0, nop, {999}, &seqno), Status::kInvalidArgument);
  EXPECT_EQ(device_->fence_wait(0, 1, 0), Status::kInvalidArgument) << "never issued";
  EXPECT_EQ(device_->fence_wait(caps.num_rings, 1, 0), Status::kInvalidArgument);
  EXPECT_TRUE(log.contains("gsgpu virtio: va_bind: range")) << log.all();
  EXPECT_TRUE(log.contains("gsgpu virtio: submit: bos[0] is an unknown handle")) << log.all();
  // Good calls after bad ones: splitting a binding by unbinding its middle works.
  EXPECT_EQ(device_->va_unbind(a.va + 4096, 4096), Status::kOk);
  EXPECT_EQ(device_->va_bind(a.bo, 4096, a.va + 4096, 4096, kVaRead), Status::kOk);
  ASSERT_EQ(driver_->submit(0, nop, {a.bo}, &seqno), Status::kOk);
  EXPECT_EQ(device_->fence_wait(0, seqno, kForever), Status::kOk);
  EXPECT_FALSE(log.contains("gsgpu_ctx")) << "the host refused nothing:\n" << log.all();
}

// Waits of up to 2 ms watch the fence page instead of asking the transport (the runtime's direct
// wait): they time out while the kernel runs, and see the outcome, completed or cancelled, once the
// host wrote it there.
TEST_P(VirtioDeviceTest, ShortWaitsSeeTheFencePage) {
  // The spinning kernel must outlast the waits below on a loaded machine: no watchdog for it (the
  // host's 2 s time budget still ends it; the reset below comes first).
  const gsvirt::gsgpu_ctx::ContextConfig saved = gsvirt::gsgpu_ctx::context_config();
  gsvirt::gsgpu_ctx::ContextConfig endless_config = saved;
  endless_config.watchdog_budget = 0xffffffff;
  gsvirt::gsgpu_ctx::set_context_config(endless_config);
  server_.reset();  // a vtest server forked from now on serves the new configuration
  open();
  gsvirt::gsgpu_ctx::set_context_config(saved);
  Buffer spin = driver_->kernel(test::kSpinKernel);
  std::vector<uint32_t> endless;
  append_dispatch(&endless, driver_->dispatch(spin, spin, 0, 8, 32));
  uint64_t running = 0;
  ASSERT_EQ(driver_->submit(0, endless, {spin.bo}, &running), Status::kOk);
  EXPECT_EQ(device_->fence_wait(0, running, 1'000'000), Status::kTimeout);
  EXPECT_EQ(device_->fence_wait(0, running, 0), Status::kTimeout);
  EXPECT_EQ(device_->reset(), Status::kOk);
  EXPECT_EQ(device_->fence_wait(0, running, 1'000'000), Status::kFaulted) << "cancelled by the reset";

  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  uint64_t quick = 0;
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 1, 6), {code.bo, args.bo, x.bo}, &quick), Status::kOk);
  Status s = Status::kTimeout;
  for (int tries = 0; tries < 20000 && s == Status::kTimeout; ++tries) s = device_->fence_wait(0, quick, 1'000'000);
  ASSERT_EQ(s, Status::kOk);
  expect_scaled(x, 32, 6);
}

TEST_P(VirtioDeviceTest, ResetKeepsBosAndBindings) {
  Buffer code = driver_->kernel(test::kScaleKernel);
  Buffer args = driver_->buffer(4096, kVaRead);
  Buffer x = driver_->buffer(4096);
  EXPECT_EQ(device_->reset(), Status::kOk);
  uint64_t seqno = 0;
  ASSERT_EQ(driver_->submit(0, scale(code, args, x, 1, 4), {code.bo, args.bo, x.bo}, &seqno), Status::kOk);
  ASSERT_EQ(device_->fence_wait(0, seqno, kForever), Status::kOk);
  expect_scaled(x, 32, 4);
}

INSTANTIATE_TEST_SUITE_P(Transports, VirtioDeviceTest, ::testing::Values("inproc", "vtest"),
                         [](const auto& info) { return std::string(info.param); });

// The server goes away: calls report kDeviceLost instead of hanging or crashing.
TEST(VirtioDevice, AHostThatGoesAwayIsDeviceLost) {
  gsvirt::gsgpu_ctx::register_capset();
  gsvirt::test::TestServer server(true);
  std::string error;
  auto device = open_virtio(gsvirt::guest::create_vtest_transport(server.socket_path(), &error), &error);
  ASSERT_TRUE(device) << error;
  Driver driver(*device);
  Buffer x = driver.buffer(4096);
  ASSERT_EQ(server.stop(), 0);
  LogCapture log;
  std::vector<uint32_t> nop = encode_nop();
  uint64_t seqno = 0;
  Status submitted = driver.submit(0, nop, {x.bo}, &seqno);
  if (submitted == Status::kOk) submitted = device->fence_wait(0, seqno, kForever);
  EXPECT_EQ(submitted, Status::kDeviceLost);
  EXPECT_EQ(device->bo_create(4096, 0, &x.bo), Status::kDeviceLost);
}

// A transport whose host answers capset 17 with another wire format.
class OtherHostTransport final : public Transport {
 public:
  explicit OtherHostTransport(bool same_hash) : same_hash_(same_hash) {}
  const char* name() const override { return "other-host"; }

 protected:
  bool do_get_capset(uint32_t, std::vector<uint8_t>& out) override {
    proto::Capset caps{};
    caps.wire_version = proto::kWireVersion + (same_hash_ ? 1 : 0);
    std::memcpy(caps.xml_hash, proto::kXmlHash, sizeof caps.xml_hash);
    if (!same_hash_) caps.xml_hash[0] ^= 1;
    out.resize(sizeof caps);
    std::memcpy(out.data(), &caps, sizeof caps);
    return true;
  }
  bool do_init_context(uint32_t, uint32_t) override { return fail("other-host: not reached"); }
  bool do_create_blob(uint64_t, gsvirt::guest::Blob*) override { return false; }
  void do_destroy_blob(const gsvirt::guest::Blob&) override {}
  bool do_submit(uint32_t, const void*, size_t, uint64_t) override { return false; }
  uint64_t do_poll(uint32_t) override { return 0; }
  gsvirt::guest::WaitResult do_wait(uint32_t, uint64_t, uint64_t, std::unique_lock<std::mutex>&) override {
    return gsvirt::guest::WaitResult::kError;
  }

 private:
  bool same_hash_;
};

TEST(VirtioDevice, AHostOfAnotherWireFormatIsRefused) {
  for (bool same_hash : {false, true}) {
    std::string error;
    EXPECT_FALSE(open_virtio(std::make_unique<OtherHostTransport>(same_hash), &error));
    EXPECT_NE(error.find("wire version"), std::string::npos) << error;
    EXPECT_NE(error.find("rebuild one of them"), std::string::npos) << error;
  }
  std::string error;
  EXPECT_FALSE(open_virtio(nullptr, &error));
  EXPECT_NE(error.find("no transport"), std::string::npos) << error;
}

}  // namespace
}  // namespace gsgpu::drv
