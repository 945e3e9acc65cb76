// The library driven in the order Debian 13's QEMU 10.0 drives it (hw/display/virtio-gpu-virgl.c):
// capsets at device realize (before init), init at the first command, CONTEXT_INIT, HOST3D blobs
// created, attached and mapped into hostmem, EXECBUFFERs, fences written back from poll().
#include <CL/cl.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/wire.h"
#include "gsgpu_ctx_protocol.h"
#include "tests/host/virgl_abi/virgl_fixture.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::virgl_abi::testing {
namespace {

namespace vp = gsvirt::vcomp::proto;

constexpr uint32_t kCtx = 1;
constexpr uint32_t kReplyRes = 10, kBulkRes = 11;
constexpr uint64_t kReplySize = 4096, kBulkSize = 1 << 20;

TEST(VirglAbiCapsets, AnsweredBeforeInitAsQemuRealizeAsksThem) {
  VirglLibrary& lib = VirglLibrary::get();
  ASSERT_TRUE(lib.error.empty()) << lib.error;
  uint32_t ver = 99, size = 99;
  // Capset 1 is listed by QEMU whatever the library says; it answers "absent", so GET_CAPSET fails.
  lib.get_cap_set(1, &ver, &size);
  EXPECT_EQ(0u, ver);
  EXPECT_EQ(0u, size);
  // 2 is listed because a version is reported; it carries vcomp's capset.
  lib.get_cap_set(kVcompId, &ver, &size);
  EXPECT_EQ(vp::kWireVersion, ver);
  ASSERT_EQ(sizeof(vp::Capset), size);
  std::vector<uint8_t> caps(size, 0xee);
  lib.fill_caps(kVcompId, 0, caps.data());
  vp::Capset capset;
  std::memcpy(&capset, caps.data(), sizeof capset);
  EXPECT_EQ(vp::kWireVersion, capset.wire_version);
  EXPECT_EQ(0, std::memcmp(capset.xml_hash, vp::kXmlHash, sizeof capset.xml_hash));
  // 4 (listed by QEMU with venus=on when the size is not 0) carries the gsgpu native context.
  lib.get_cap_set(kGsgpuId, &ver, &size);
  EXPECT_EQ(gsgpu_ctx::proto::kWireVersion, ver);
  EXPECT_GT(size, 0u);
  // gsvirt's own ids are not offered unless a setting names them.
  lib.get_cap_set(vp::kCapsetId, &ver, &size);
  EXPECT_EQ(0u, size);
}

// The vcomp handshake a guest driver makes, through blobs mapped as QEMU maps them into hostmem.
TEST_F(VirglAbiTest, VcompRoundTripThroughMappedHost3dBlobs) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 4, "test"));
  ASSERT_EQ(0, create_blob(kReplyRes, kCtx, kReplySize));
  ASSERT_EQ(0, create_blob(kBulkRes, kCtx, kBulkSize));
  virgl_renderer_resource_info info;
  ASSERT_EQ(0, lib.resource_get_info(kReplyRes, &info));  // QEMU fails the blob without it
  EXPECT_EQ(-1, info.fd);                                  // no dma-buf: no scanout of it
  lib.ctx_attach_resource(kCtx, kReplyRes);
  lib.ctx_attach_resource(kCtx, kBulkRes);
  uint8_t* reply = map(kReplyRes, kReplySize);
  uint8_t* bulk = map(kBulkRes, kBulkSize);
  ASSERT_TRUE(reply && bulk);
  uint32_t map_info = 0;
  EXPECT_EQ(0, lib.resource_get_map_info(kReplyRes, &map_info));
  EXPECT_EQ(uint32_t(VIRGL_ABI_MAP_CACHE_CACHED), map_info);

  std::vector<uint8_t> cmds;
  WireWriter w(cmds);
  vp::encode_vcSetReplyBuffer(w, false, kReplyRes, 0, kReplySize);
  vp::DataOut name_out;
  name_out.mode = vp::kDataResource;
  name_out.size = 256;
  name_out.resource_id = kBulkRes;
  vp::encode_clGetPlatformInfo(w, true, CL_PLATFORM_NAME, name_out);
  ASSERT_EQ(0, submit(kCtx, cmds));

  vp::ReplyHeader header;
  std::memcpy(&header, reply, sizeof header);
  EXPECT_EQ(1u, header.seqno);
  WireReader r(reply + sizeof header, header.payload_size);
  vp::Reply_clGetPlatformInfo out;
  ASSERT_TRUE(vp::decode_reply_clGetPlatformInfo(r, &out));
  EXPECT_EQ(CL_SUCCESS, out.result);
  ASSERT_GT(out.size_ret, 1u);
  // The name was written by the host into the blob and read here through the VMM's mapping.
  EXPECT_EQ(out.size_ret - 1, strnlen(reinterpret_cast<const char*>(bulk), 256));

  // export_blob hands out the same pages (zero-copy): a write here shows there.
  uint32_t fd_type = 0;
  int fd = -1;
  ASSERT_EQ(0, lib.resource_export_blob(kBulkRes, &fd_type, &fd));
  EXPECT_EQ(uint32_t(VIRGL_ABI_BLOB_FD_TYPE_SHM), fd_type);
  void* other = mmap(nullptr, kBulkSize, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(MAP_FAILED, other);
  bulk[kBulkSize - 1] = 0x5a;
  EXPECT_EQ(0x5a, static_cast<uint8_t*>(other)[kBulkSize - 1]);
  munmap(other, kBulkSize);
  close(fd);

  // QEMU's unref: unmap, detach the iovecs (none for HOST3D), unref.
  EXPECT_EQ(0, lib.resource_unmap(kReplyRes));
  EXPECT_EQ(0, lib.resource_unmap(kBulkRes));
  iovec* iov = reinterpret_cast<iovec*>(1);
  int num_iovs = -1;
  lib.resource_detach_iov(kReplyRes, &iov, &num_iovs);
  EXPECT_EQ(nullptr, iov);
  EXPECT_EQ(0, num_iovs);
  lib.resource_unref(kReplyRes);
  lib.resource_unref(kBulkRes);
  lib.context_destroy(kCtx);
}

// QEMU puts a fenced command on its fence list after context_create_fence returns: a fence must
// come back from poll(), never from inside create_fence.
TEST_F(VirglAbiTest, FencesAreWrittenBackFromPollOnly) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  ASSERT_EQ(0, lib.context_create_fence(kCtx, VIRGL_ABI_FENCE_FLAG_MERGEABLE, 0, 77));
  ASSERT_EQ(0, lib.context_create_fence(kCtx, VIRGL_ABI_FENCE_FLAG_MERGEABLE, 3, 78));
  ASSERT_EQ(0, lib.create_fence(5, 0x0207));  // a ctx-0 fence (QEMU passes the command type)
  EXPECT_TRUE(recorder.context_fences.empty());
  EXPECT_TRUE(recorder.global_fences.empty());
  lib.poll();
  EXPECT_EQ((std::vector<WrittenFence>{{kCtx, 0, 77}, {kCtx, 3, 78}}), recorder.context_fences);
  EXPECT_EQ(std::vector<uint32_t>{5}, recorder.global_fences);
  lib.poll();  // nothing twice
  EXPECT_EQ(2u, recorder.context_fences.size());
  EXPECT_EQ(1u, recorder.global_fences.size());
}

// A fence queued outside poll makes the poll fd readable, so a VMM may sleep on it.
TEST_F(VirglAbiTest, PollFdIsReadableWhenAFenceWaits) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  int fd = lib.get_poll_fd();
  ASSERT_GE(fd, 0);
  ASSERT_EQ(0, lib.context_create_fence(kCtx, 0, 0, 9));
  uint64_t count = 0;
  EXPECT_EQ(ssize_t(sizeof count), read(fd, &count, sizeof count));  // non-blocking eventfd
  lib.poll();
  EXPECT_EQ((std::vector<WrittenFence>{{kCtx, 0, 9}}), recorder.context_fences);
}

// The native context goes by the other id; its blobs work the same way.
TEST_F(VirglAbiTest, GsgpuNativeContextOnItsCapset) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kGsgpuId, 0, nullptr));
  ASSERT_EQ(0, create_blob(kReplyRes, kCtx, kReplySize));
  lib.ctx_attach_resource(kCtx, kReplyRes);
  EXPECT_NE(nullptr, map(kReplyRes, kReplySize));
  EXPECT_EQ(0, lib.resource_unmap(kReplyRes));
  lib.resource_unref(kReplyRes);
}

// A GUEST blob's iovecs go back to QEMU as the very array it gave (it frees that array).
TEST_F(VirglAbiTest, GuestBlobIovecsComeBackAsGiven) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  std::vector<uint8_t> pages(2 * 4096);
  auto* iov = new iovec[2]{{pages.data(), 4096}, {pages.data() + 4096, 4096}};
  ASSERT_EQ(0, create_blob(20, kCtx, pages.size(), VIRGL_ABI_BLOB_MEM_GUEST, iov, 2));
  iovec* back = nullptr;
  int count = 0;
  lib.resource_detach_iov(20, &back, &count);
  EXPECT_EQ(iov, back);
  EXPECT_EQ(2, count);
  lib.resource_detach_iov(20, &back, &count);  // a second detach has nothing
  EXPECT_EQ(nullptr, back);
  // attach_iov takes the array again, and gives it back the same way.
  ASSERT_EQ(0, lib.resource_attach_iov(20, iov, 2));
  lib.resource_detach_iov(20, &back, &count);
  EXPECT_EQ(iov, back);
  delete[] iov;
  lib.resource_unref(20);
}

void capture_line(int level, const char* message, void* user) {
  (void)level;
  static_cast<std::vector<std::string>*>(user)->push_back(message);
}

// A guest program's exit as QEMU sees it: the context is destroyed (which releases its blobs in
// gsvirt) before the guest unmaps and unrefs them. Nothing there is an error worth a log line.
TEST_F(VirglAbiTest, GuestExitOrderIsQuiet) {
  std::vector<std::string> lines;
  lib.set_log_callback(capture_line, &lines, nullptr);
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  ASSERT_EQ(0, create_blob(kReplyRes, kCtx, kReplySize));
  std::vector<uint8_t> pages(4096);
  auto* iov = new iovec[1]{{pages.data(), pages.size()}};
  ASSERT_EQ(0, create_blob(kBulkRes, kCtx, 4096, VIRGL_ABI_BLOB_MEM_GUEST, iov, 1));
  lib.ctx_attach_resource(kCtx, kReplyRes);
  uint8_t* mapped = map(kReplyRes, kReplySize);
  lib.context_destroy(kCtx);
  mapped[0] = 1;  // QEMU's region still points here
  EXPECT_EQ(0, lib.resource_unmap(kReplyRes));
  iovec* back = nullptr;
  int count = 0;
  lib.resource_detach_iov(kBulkRes, &back, &count);
  EXPECT_EQ(iov, back);  // QEMU unmaps the guest's pages with it
  delete[] iov;
  lib.resource_unref(kReplyRes);
  lib.resource_unref(kBulkRes);
  lib.set_log_callback(nullptr, nullptr, nullptr);
  for (const std::string& line : lines) ADD_FAILURE() << line;
}

// What QEMU passes on for a Linux guest's console on virtio-gpu (the kernel's own DRM client): a
// virgl GL context and a 2D resource, refused, then named in later calls, which are refused
// without a line each (only the first "not supported" of each call is logged).
TEST_F(VirglAbiTest, GuestConsoleSequenceIsRefusedQuietly) {
  std::vector<std::string> lines;
  lib.set_log_callback(capture_line, &lines, nullptr);
  EXPECT_EQ(-ENOTSUP, lib.context_create(1, 0, ""));
  virgl_renderer_resource_create_args args{};
  args.handle = 2;
  args.target = 2;
  args.width = 1280;
  args.height = 800;
  EXPECT_EQ(-ENOTSUP, lib.resource_create(&args, nullptr, 0));
  std::vector<uint8_t> pages(4096);
  iovec iov{pages.data(), pages.size()};
  EXPECT_EQ(-EINVAL, lib.resource_attach_iov(2, &iov, 1));
  lib.ctx_attach_resource(1, 2);
  virgl_box box{0, 0, 0, 64, 64, 1};
  EXPECT_EQ(-ENOTSUP, lib.transfer_write_iov(2, 0, 0, 0, 0, &box, 0, nullptr, 0));
  virgl_renderer_resource_info_ext ext{};
  EXPECT_EQ(-EINVAL, lib.resource_get_info_ext(2, &ext));
  lib.ctx_detach_resource(1, 2);
  iovec* back = nullptr;
  int count = 0;
  lib.resource_detach_iov(2, &back, &count);
  EXPECT_EQ(nullptr, back);
  lib.resource_unref(2);
  lib.context_destroy(1);
  lib.set_log_callback(nullptr, nullptr, nullptr);
  for (const std::string& line : lines)
    if (line.find("is not supported") == std::string::npos) ADD_FAILURE() << line;
}

// QEMU's device reset: virgl_renderer_reset, then init again with the same cookie and callbacks.
TEST_F(VirglAbiTest, ResetDropsContextsAndInitAgainSucceeds) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  ASSERT_EQ(0, create_blob(kReplyRes, kCtx, kReplySize));
  uint8_t* mapped = map(kReplyRes, kReplySize);
  ASSERT_NE(nullptr, mapped);
  ASSERT_EQ(0, lib.context_create_fence(kCtx, 0, 0, 1));
  lib.reset();
  lib.poll();
  EXPECT_TRUE(recorder.context_fences.empty());  // dropped with the context, as QEMU dropped its list
  // QEMU 10.0's reset keeps its hostmem region of a mapped blob: the pages must stay valid.
  mapped[0] = 1;
  mapped[kReplySize - 1] = 2;
  std::vector<uint8_t> nop(12, 0);
  EXPECT_LT(lib.submit_cmd(nop.data(), kCtx, 3), 0);  // the context is gone
  EXPECT_EQ(0, lib.init(&recorder, 0, &callbacks));
  Recorder other;
  EXPECT_EQ(-EBUSY, lib.init(&other, 0, &callbacks));
  EXPECT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  EXPECT_EQ(0, create_blob(kReplyRes, kCtx, kReplySize));  // the id is free again
}

// Callbacks of version 1 or 2 have no write_context_fence: context fences are dropped (logged).
TEST_F(VirglAbiTest, OldCallbacksGetGlobalFencesOnly) {
  lib.cleanup(&recorder);
  virgl_renderer_callbacks old{};
  old.version = 1;
  old.write_fence = record_fence;
  ASSERT_EQ(0, lib.init(&recorder, 0, &old));
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  ASSERT_EQ(0, lib.context_create_fence(kCtx, 0, 0, 1));
  ASSERT_EQ(0, lib.create_fence(2, 0));
  lib.poll();
  EXPECT_TRUE(recorder.context_fences.empty());
  EXPECT_EQ(std::vector<uint32_t>{2}, recorder.global_fences);
}

}  // namespace
}  // namespace gsvirt::virgl_abi::testing
