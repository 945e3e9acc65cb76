// The C API as a VMM would drive it: init with callbacks, capsets, context with capset flags,
// blobs, attach, submit, fences through write_context_fence, cleanup.
#include "gsvirt_renderer.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tests/host/renderer/echo_context.h"

namespace {

using namespace gsvirt::test;

struct FenceLog {
  std::vector<std::pair<uint32_t, uint64_t>> fences;
};

void write_context_fence(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  (void)ctx_id;
  static_cast<FenceLog*>(cookie)->fences.emplace_back(ring_idx, fence_id);
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_echo_capset();
    gsvirt_renderer_callbacks cb{GSVIRT_RENDERER_CALLBACKS_VERSION, write_context_fence};
    ASSERT_EQ(gsvirt_renderer_init(&log_, 0, &cb), 0);
  }
  void TearDown() override { gsvirt_renderer_cleanup(&log_); }
  FenceLog log_;
};

TEST_F(CApiTest, CapsetsAreReportedWithTheirSize) {
  uint32_t max_ver = 9, max_size = 9;
  gsvirt_renderer_get_cap_set(kEchoCapsetId, &max_ver, &max_size);
  EXPECT_EQ(max_ver, 1u);
  ASSERT_EQ(max_size, 8u);
  uint32_t caps[2] = {};
  ASSERT_EQ(gsvirt_renderer_fill_caps(kEchoCapsetId, 1, caps), 0);
  EXPECT_EQ(caps[0], kEchoCapsMagic);
  EXPECT_EQ(gsvirt_renderer_fill_caps(kEchoCapsetId, 2, caps), -EINVAL);
  gsvirt_renderer_get_cap_set(28, &max_ver, &max_size);
  EXPECT_EQ(max_ver, 0u);
  EXPECT_EQ(max_size, 0u);
}

TEST_F(CApiTest, SecondInitIsRefused) {
  EXPECT_EQ(gsvirt_renderer_init(nullptr, 0, nullptr), -EBUSY);
}

TEST_F(CApiTest, ContextBlobSubmitAndFenceRoundTrip) {
  EXPECT_EQ(gsvirt_renderer_context_create_with_flags(1, 0x100 | kEchoCapsetId, 4, "test"), -EINVAL);
  ASSERT_EQ(gsvirt_renderer_context_create_with_flags(1, kEchoCapsetId, 4, "test"), 0);
  gsvirt_renderer_resource_create_blob_args args{};
  args.res_handle = 3;
  args.ctx_id = 1;
  args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
  args.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
  args.size = 4096;
  ASSERT_EQ(gsvirt_renderer_resource_create_blob(&args), 0);
  ASSERT_EQ(gsvirt_renderer_ctx_attach_resource(1, 3), 0);
  std::vector<uint32_t> cmds;
  echo_set_reply(cmds, 3, 16);
  echo_echo(cmds, 0xabcd);
  ASSERT_EQ(gsvirt_renderer_submit_cmd(cmds.data(), 1, int(cmds.size())), 0);
  EXPECT_EQ(gsvirt_renderer_submit_cmd(cmds.data(), 1, -1), -EINVAL);
  ASSERT_EQ(gsvirt_renderer_context_create_fence(1, 0, 0, 77), 0);
  ASSERT_EQ(log_.fences.size(), 1u);
  EXPECT_EQ(log_.fences[0], std::make_pair(0u, uint64_t{77}));

  void* map = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(gsvirt_renderer_resource_get_map(3, &map, &size), 0);
  uint32_t slot[2];
  std::memcpy(slot, static_cast<uint8_t*>(map) + 16, 8);
  EXPECT_EQ(slot[1], 0xabcdu);
  uint32_t fd_type = 0;
  int fd = -1;
  ASSERT_EQ(gsvirt_renderer_resource_export_blob(3, &fd_type, &fd), 0);
  EXPECT_EQ(fd_type, uint32_t{GSVIRT_RENDERER_BLOB_FD_TYPE_SHM});
  close(fd);
  ASSERT_EQ(gsvirt_renderer_ctx_detach_resource(1, 3), 0);
  ASSERT_EQ(gsvirt_renderer_resource_unref(3), 0);
  EXPECT_EQ(gsvirt_renderer_resource_unref(3), -ENOENT);
  ASSERT_EQ(gsvirt_renderer_context_destroy(1), 0);
}

// An asynchronous context's retirement makes the poll fd readable; poll delivers the fence on
// that ring only, and drains the fd.
TEST_F(CApiTest, PollFdWakesWhenAContextRetiresWork) {
  int fd = gsvirt_renderer_get_poll_fd();
  ASSERT_GE(fd, 0);
  ASSERT_EQ(gsvirt_renderer_context_create_with_flags(1, kEchoCapsetId, 4, "test"), 0);
  std::vector<uint32_t> hold;
  echo_hold(hold, 3);
  ASSERT_EQ(gsvirt_renderer_submit_cmd(hold.data(), 1, int(hold.size())), 0);
  ASSERT_EQ(gsvirt_renderer_context_create_fence(1, 0, 3, 5), 0);
  ASSERT_EQ(gsvirt_renderer_context_create_fence(1, 0, 0, 6), 0);
  ASSERT_EQ(log_.fences.size(), 1u) << "ring 0 is idle, ring 3 is held";
  EXPECT_EQ(log_.fences[0], std::make_pair(0u, uint64_t{6}));
  pollfd p{fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  std::vector<uint32_t> complete;
  echo_complete(complete, 3, 1);
  ASSERT_EQ(gsvirt_renderer_submit_cmd(complete.data(), 1, int(complete.size())), 0);
  EXPECT_EQ(poll(&p, 1, 0), 1);
  gsvirt_renderer_poll();
  ASSERT_EQ(log_.fences.size(), 2u);
  EXPECT_EQ(log_.fences[1], std::make_pair(3u, uint64_t{5}));
  EXPECT_EQ(poll(&p, 1, 0), 0) << "poll drained the fd";
  EXPECT_EQ(gsvirt_renderer_context_create_fence(1, 0, 64, 7), -EINVAL) << "ring out of range";
  ASSERT_EQ(gsvirt_renderer_context_destroy(1), 0);
}

TEST(CApiNoInit, CallsBeforeInitAreRefused) {
  EXPECT_EQ(gsvirt_renderer_get_poll_fd(), -1);
  EXPECT_EQ(gsvirt_renderer_context_destroy(1), -EINVAL);
  EXPECT_EQ(gsvirt_renderer_resource_unref(1), -EINVAL);
}

}  // namespace
