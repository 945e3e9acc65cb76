// The renderer core as the specification of its guest-facing rules: resources, attachments,
// quotas, id checks, fence order, teardown. Driven through the echo test capset.
#include "host/renderer/renderer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/log.h"
#include "tests/host/renderer/echo_context.h"

namespace gsvirt::renderer {
namespace {

using test::kEchoCapsetId;

// Collects error lines so tests can check that refusals name the call and the field.
struct LogCapture {
  LogCapture() { set_log_sink([](const char* line, void* self) {
    static_cast<LogCapture*>(self)->lines.emplace_back(line);
  }, this); }
  ~LogCapture() { set_log_sink(nullptr, nullptr); }
  bool contains(const std::string& needle) const {
    for (const auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
  std::vector<std::string> lines;
};

class RendererTest : public ::testing::Test {
 protected:
  void SetUp() override { test::register_echo_capset(); }

  Renderer make(RendererLimits limits = {}) {
    return Renderer([this](uint32_t ctx, uint32_t ring, uint64_t fence) {
      retired.emplace_back(ctx, ring, fence);
    }, limits);
  }
  static BlobCreateInfo host_blob(uint32_t res_id, uint32_t ctx_id, uint64_t size) {
    BlobCreateInfo info;
    info.res_id = res_id;
    info.ctx_id = ctx_id;
    info.blob_mem = kBlobMemHost3d;
    info.blob_flags = kBlobFlagMappable;
    info.size = size;
    return info;
  }
  static int submit(Renderer& r, uint32_t ctx, const std::vector<uint32_t>& cmds) {
    return r.submit(ctx, cmds.data(), cmds.size() * 4);
  }

  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> retired;
  LogCapture log;
};

TEST_F(RendererTest, HostBlobIsMappedHereAndSharedThroughItsExportedFd) {
  Renderer r = make();
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  ASSERT_EQ(r.create_blob(host_blob(7, 1, 8192)), 0);
  void* map = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(r.get_map(7, &map, &size), 0);
  EXPECT_EQ(size, 8192u);
  int fd = -1;
  ASSERT_EQ(r.export_blob(7, &fd), 0);
  void* guest = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(guest, MAP_FAILED);
  std::memcpy(static_cast<char*>(guest) + 4000, "hello", 6);
  EXPECT_STREQ(static_cast<char*>(map) + 4000, "hello");
  // A guest holding the fd must not be able to shrink memory the host has mapped.
  EXPECT_NE(ftruncate(fd, 0), 0);
  munmap(guest, 8192);
  close(fd);
}

TEST_F(RendererTest, ContextMayOnlyUseAttachedResources) {
  Renderer r = make();
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  ASSERT_EQ(r.create_blob(host_blob(5, 1, 4096)), 0);
  std::vector<uint32_t> cmds;
  test::echo_set_reply(cmds, 5, 0);
  test::echo_echo(cmds, 42);
  EXPECT_LT(submit(r, 1, cmds), 0) << "resource 5 is not attached yet";

  ASSERT_EQ(r.create_context(2, kEchoCapsetId, "t2"), 0);
  ASSERT_EQ(r.attach_resource(2, 5), -EPERM) << "resource 5 belongs to context 1";
  EXPECT_TRUE(log.contains("ctx_attach_resource: res_handle"));

  ASSERT_EQ(r.create_context(3, kEchoCapsetId, "t3"), 0);
  ASSERT_EQ(r.attach_resource(3, 5), -EPERM);
  ASSERT_EQ(r.create_blob(host_blob(6, 3, 4096)), 0);
  ASSERT_EQ(r.attach_resource(3, 6), 0);
  std::vector<uint32_t> ok;
  test::echo_set_reply(ok, 6, 8);
  test::echo_echo(ok, 42);
  ASSERT_EQ(submit(r, 3, ok), 0);
  void* map;
  uint64_t size;
  ASSERT_EQ(r.get_map(6, &map, &size), 0);
  uint32_t slot[2];
  std::memcpy(slot, static_cast<uint8_t*>(map) + 8, 8);
  EXPECT_EQ(slot[0], 1u);
  EXPECT_EQ(slot[1], 42u);

  ASSERT_EQ(r.detach_resource(3, 6), 0);
  std::vector<uint32_t> after;
  test::echo_echo(after, 1);
  EXPECT_LT(submit(r, 3, after), 0) << "detach drops the context's reply resource";
}

TEST_F(RendererTest, BadIdsAndSizesAreRefusedWithTheField) {
  Renderer r = make();
  EXPECT_EQ(r.create_context(0, kEchoCapsetId, "t"), -EINVAL);
  EXPECT_EQ(r.create_context(1, 29, "t"), -EINVAL);
  EXPECT_TRUE(log.contains("context_create: capset_id"));
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  EXPECT_EQ(r.create_context(1, kEchoCapsetId, "t"), -EEXIST);
  EXPECT_EQ(r.create_blob(host_blob(0, 1, 4096)), -EINVAL);
  EXPECT_EQ(r.create_blob(host_blob(1, 1, 0)), -EINVAL);
  EXPECT_EQ(r.create_blob(host_blob(1, 1, ~0ull)), -E2BIG);
  EXPECT_TRUE(log.contains("resource_create_blob: size"));
  EXPECT_EQ(r.create_blob(host_blob(1, 9, 4096)), -ENOENT);
  EXPECT_TRUE(log.contains("resource_create_blob: ctx_id 9"));
  BlobCreateInfo bad_mem = host_blob(1, 1, 4096);
  bad_mem.blob_mem = 3;
  EXPECT_EQ(r.create_blob(bad_mem), -EINVAL);
  BlobCreateInfo bad_flags = host_blob(1, 1, 4096);
  bad_flags.blob_flags = 0x80;
  EXPECT_EQ(r.create_blob(bad_flags), -EINVAL);
  ASSERT_EQ(r.create_blob(host_blob(1, 1, 4096)), 0);
  EXPECT_EQ(r.create_blob(host_blob(1, 1, 4096)), -EEXIST);
  EXPECT_EQ(r.attach_resource(1, 99), -ENOENT);
  EXPECT_EQ(r.attach_resource(99, 1), -ENOENT);
  EXPECT_EQ(r.detach_resource(1, 1), -ENOENT);
  EXPECT_EQ(r.unref_resource(99), -ENOENT);
  EXPECT_EQ(r.submit(99, "x", 1), -ENOENT);
  EXPECT_EQ(r.create_fence(1, 64, 1), -EINVAL);
  EXPECT_TRUE(log.contains("context_create_fence: ring_idx"));
}

TEST_F(RendererTest, QuotasBoundResourcesAndBlobBytesPerContext) {
  RendererLimits limits;
  limits.max_resources_per_context = 3;
  limits.max_blob_bytes_per_context = 3 * 4096;
  Renderer r = make(limits);
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  ASSERT_EQ(r.create_blob(host_blob(1, 1, 8192)), 0);
  EXPECT_EQ(r.create_blob(host_blob(2, 1, 8192)), -ENOSPC);
  ASSERT_EQ(r.create_blob(host_blob(2, 1, 2048)), 0);
  ASSERT_EQ(r.create_blob(host_blob(3, 1, 1024)), 0);
  EXPECT_EQ(r.create_blob(host_blob(4, 1, 16)), -ENOSPC);
  EXPECT_TRUE(log.contains("resource quota"));
  ASSERT_EQ(r.unref_resource(1), 0);
  EXPECT_EQ(r.owned_blob_bytes(1), 3072u);
  EXPECT_EQ(r.create_blob(host_blob(4, 1, 8192)), 0) << "unref gives the quota back";
}

TEST_F(RendererTest, IovResourcesAttachAndDetachTheirPages) {
  Renderer r = make();
  std::vector<uint8_t> a(100), b(28);
  iovec iov[2] = {{a.data(), a.size()}, {b.data(), b.size()}};
  BlobCreateInfo info;
  info.res_id = 3;
  info.blob_mem = kBlobMemGuest;
  info.size = 128;
  info.iov = {iov, 1};
  EXPECT_EQ(r.create_blob(info), -EINVAL) << "iovecs must add up to size";
  info.iov = {};
  info.size = 128;
  ASSERT_EQ(r.create_blob(info), -EINVAL);
  info.iov = {iov, 2};
  ASSERT_EQ(r.create_blob(info), 0);
  EXPECT_EQ(r.attach_iov(3, {iov, 2}), -EBUSY);
  std::vector<iovec> detached;
  ASSERT_EQ(r.detach_iov(3, &detached), 0);
  ASSERT_EQ(detached.size(), 2u);
  EXPECT_EQ(detached[1].iov_base, b.data());
  EXPECT_EQ(r.attach_iov(3, {iov, 1}), -EINVAL);
  EXPECT_EQ(r.attach_iov(3, {iov, 2}), 0);
  int fd;
  EXPECT_EQ(r.export_blob(3, &fd), -EINVAL) << "iov resources have no memfd";
}

TEST_F(RendererTest, FencesRetireInOrderPerRing) {
  Renderer r = make();
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  std::vector<uint32_t> hold;
  test::echo_hold(hold, 1);
  ASSERT_EQ(submit(r, 1, hold), 0);
  ASSERT_EQ(r.create_fence(1, 1, 10), 0);
  ASSERT_EQ(r.create_fence(1, 1, 11), 0);
  ASSERT_EQ(r.create_fence(1, 1, 12), 0);
  ASSERT_EQ(r.create_fence(1, 0, 20), 0);
  ASSERT_EQ(retired.size(), 1u) << "ring 0 is idle, ring 1 is held";
  EXPECT_EQ(retired[0], std::make_tuple(1u, 0u, uint64_t{20}));

  // The context reports its two oldest fences (10, 11) as done: they retire, in order, 12 stays.
  std::vector<uint32_t> complete;
  test::echo_complete(complete, 1, 2);
  test::echo_hold(complete, 1);
  ASSERT_EQ(submit(r, 1, complete), 0);
  r.poll();
  ASSERT_EQ(retired.size(), 3u);
  EXPECT_EQ(retired[1], std::make_tuple(1u, 1u, uint64_t{10}));
  EXPECT_EQ(retired[2], std::make_tuple(1u, 1u, uint64_t{11}));
  EXPECT_TRUE(r.has_pending_fences());

  std::vector<uint32_t> release;
  test::echo_complete(release, 1, 1);
  ASSERT_EQ(submit(r, 1, release), 0);
  r.poll();
  ASSERT_EQ(retired.size(), 4u);
  EXPECT_EQ(retired[3], std::make_tuple(1u, 1u, uint64_t{12}));
  EXPECT_FALSE(r.has_pending_fences());
}

TEST_F(RendererTest, FatalContextRefusesLaterSubmits) {
  Renderer r = make();
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  std::vector<uint32_t> poison;
  test::echo_poison(poison);
  EXPECT_LT(submit(r, 1, poison), 0);
  std::vector<uint32_t> nop;
  test::echo_nop(nop);
  EXPECT_EQ(submit(r, 1, nop), -EIO);
  std::vector<uint32_t> truncated = {test::kEchoEcho, 40, 1};
  ASSERT_EQ(r.create_context(2, kEchoCapsetId, "t"), 0);
  EXPECT_LT(submit(r, 2, truncated), 0);
}

TEST_F(RendererTest, ContextDestroyFreesEverything) {
  int contexts_before = test::live_echo_contexts();
  {
    Renderer r = make();
    ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
    ASSERT_EQ(r.create_context(2, kEchoCapsetId, "t"), 0);
    for (uint32_t id = 1; id <= 10; id++) {
      ASSERT_EQ(r.create_blob(host_blob(id, 1, 4096)), 0);
      ASSERT_EQ(r.attach_resource(1, id), 0);
    }
    ASSERT_EQ(r.create_blob(host_blob(11, 2, 4096)), 0);
    EXPECT_EQ(test::echo_attached_resources(), 10);
    ASSERT_EQ(r.destroy_context(1), 0);
    EXPECT_EQ(test::echo_attached_resources(), 0);
    EXPECT_EQ(r.resource_count(), 1u) << "only context 2's blob is left";
    EXPECT_EQ(test::live_echo_contexts(), contexts_before + 1);
    EXPECT_EQ(r.destroy_context(1), -ENOENT);
  }
  EXPECT_EQ(test::live_echo_contexts(), contexts_before);
}

TEST_F(RendererTest, SubmitWorksOnACopyOfGuestMemory) {
  Renderer r = make();
  ASSERT_EQ(r.create_context(1, kEchoCapsetId, "t"), 0);
  RendererLimits small;
  EXPECT_EQ(r.submit(1, nullptr, small.max_submit_bytes + 4), -E2BIG);
  EXPECT_TRUE(log.contains("submit_cmd: size"));
}

}  // namespace
}  // namespace gsvirt::renderer
