// What a hostile guest can make QEMU pass to the library (QEMU forwards ids, sizes, flags and
// command bytes unchecked), and what gsvirt has nothing for: every call gets an error, none crashes.
#include <cerrno>

#include "common/wire.h"
#include "tests/host/virgl_abi/virgl_fixture.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::virgl_abi::testing {
namespace {

constexpr uint32_t kCtx = 1;

TEST_F(VirglAbiTest, HostileCapsetsNotOfferedAreRefused) {
  for (uint32_t id : {0u, 1u, 3u, 5u, 16u, 17u, 31u, 255u})
    EXPECT_EQ(-EINVAL, lib.context_create_with_flags(kCtx, id, 0, nullptr)) << "capset " << id;
  EXPECT_EQ(-EINVAL, lib.context_create_with_flags(kCtx, 0x100 | kVcompId, 0, nullptr));  // unknown flag bits
  uint8_t caps[64];
  std::memset(caps, 0xee, sizeof caps);
  lib.fill_caps(1, 0, caps);  // not offered: nothing written
  lib.fill_caps(kVcompId, 0, nullptr);
  EXPECT_EQ(0xee, caps[0]);
  lib.get_cap_set(kVcompId, nullptr, nullptr);
}

TEST_F(VirglAbiTest, HostileContextIds) {
  EXPECT_LT(lib.context_create_with_flags(0, kVcompId, 0, nullptr), 0);  // 0 is reserved
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0xffffffff, "name without terminator..."));
  EXPECT_LT(lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr), 0);  // in use
  lib.context_destroy(999);
  lib.context_destroy(kCtx);
  lib.context_destroy(kCtx);
}

TEST_F(VirglAbiTest, HostileBlobsAreRefused) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  EXPECT_LT(create_blob(1, kCtx, 0), 0);                  // size 0
  EXPECT_LT(create_blob(1, kCtx, uint64_t(1) << 40), 0);  // over the renderer's limit
  EXPECT_LT(create_blob(1, 77, 4096), 0);                 // no such context
  EXPECT_LT(create_blob(1, 0, 4096), 0);                  // HOST3D needs a context
  EXPECT_LT(create_blob(1, kCtx, 4096, 3), 0);            // HOST3D_GUEST
  EXPECT_LT(create_blob(1, kCtx, 4096, 4), 0);            // GUEST_VRAM
  EXPECT_LT(create_blob(0, kCtx, 4096), 0);               // resource id 0
  iovec short_iov{nullptr, 100};
  EXPECT_LT(create_blob(1, kCtx, 4096, VIRGL_ABI_BLOB_MEM_GUEST, &short_iov, 1), 0);  // iovecs != size
  EXPECT_EQ(-EINVAL, lib.resource_create_blob(nullptr));
  virgl_renderer_resource_info info;
  EXPECT_EQ(-EINVAL, lib.resource_get_info(1, &info));  // nothing was created
  ASSERT_EQ(0, create_blob(1, kCtx, 4096));
  EXPECT_EQ(-EEXIST, create_blob(1, kCtx, 4096));
  EXPECT_EQ(-EINVAL, lib.resource_get_info(1, nullptr));
  EXPECT_EQ(-EINVAL, lib.resource_get_info(-5, &info));
  lib.resource_unref(12345);
  lib.resource_unref(1);
  lib.resource_unref(1);
}

TEST_F(VirglAbiTest, HostileMapsAreRefused) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  void* addr = nullptr;
  uint64_t size = 0;
  EXPECT_EQ(-EINVAL, lib.resource_map(5, &addr, &size));  // no such resource
  std::vector<uint8_t> pages(4096);
  iovec iov{pages.data(), pages.size()};
  ASSERT_EQ(0, create_blob(6, kCtx, 4096, VIRGL_ABI_BLOB_MEM_GUEST, &iov, 1));
  EXPECT_EQ(-EINVAL, lib.resource_map(6, &addr, &size));  // GUEST memory is the guest's own
  ASSERT_EQ(0, create_blob(7, kCtx, 4096));
  EXPECT_EQ(-EINVAL, lib.resource_unmap(7));  // not mapped
  ASSERT_EQ(0, lib.resource_map(7, &addr, &size));
  EXPECT_EQ(-EBUSY, lib.resource_map(7, &addr, &size));  // QEMU would add a second region
  EXPECT_EQ(-EINVAL, lib.resource_map(7, nullptr, &size));
  uint32_t map_info;
  EXPECT_EQ(-EINVAL, lib.resource_get_map_info(6, &map_info));
  EXPECT_EQ(-EINVAL, lib.resource_get_map_info(7, nullptr));
  EXPECT_EQ(0, lib.resource_unmap(7));
  EXPECT_EQ(-EINVAL, lib.resource_unmap(7));
  iovec* back = nullptr;
  int count = 0;
  lib.resource_detach_iov(6, &back, &count);
  EXPECT_EQ(&iov, back);
  lib.resource_unref(6);
  lib.resource_unref(7);
}

// A context destroyed while QEMU still maps its blob into the guest (one guest process exits
// while another holds the blob): the renderer frees the blob, QEMU's region still points at the
// library's mapping, which must stay valid until QEMU unmaps.
TEST_F(VirglAbiTest, HostileContextDestroyedUnderAMappedBlob) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  ASSERT_EQ(0, create_blob(8, kCtx, 8192));
  uint8_t* mapped = map(8, 8192);
  ASSERT_NE(nullptr, mapped);
  mapped[0] = 0x11;
  lib.context_destroy(kCtx);
  EXPECT_EQ(0x11, mapped[0]);  // still the blob's pages
  mapped[8191] = 0x22;
  virgl_renderer_resource_info info;
  EXPECT_EQ(0, lib.resource_get_info(8, &info));  // QEMU still knows the resource
  EXPECT_EQ(0, lib.resource_unmap(8));
  lib.resource_unref(8);
  EXPECT_EQ(-EINVAL, lib.resource_get_info(8, &info));
}

TEST_F(VirglAbiTest, HostileSubmissionsFailCleanly) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  std::vector<uint8_t> garbage(256);
  for (size_t i = 0; i < garbage.size(); i++) garbage[i] = uint8_t(i * 37 + 11);
  EXPECT_LT(lib.submit_cmd(garbage.data(), 99, 64), 0);  // no such context
  EXPECT_LT(lib.submit_cmd(garbage.data(), kCtx, -1), 0);
  EXPECT_LT(lib.submit_cmd(garbage.data(), kCtx, 64), 0);  // a malformed stream: the context turns fatal
  EXPECT_LT(lib.submit_cmd(garbage.data(), kCtx, 64), 0);
  // Another context is untouched.
  ASSERT_EQ(0, lib.context_create_with_flags(2, kVcompId, 0, nullptr));
  std::vector<uint8_t> empty(4, 0);
  EXPECT_EQ(0, lib.submit_cmd(empty.data(), 2, 0));
}

TEST_F(VirglAbiTest, HostileFencesAreRefused) {
  ASSERT_EQ(0, lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr));
  EXPECT_LT(lib.context_create_fence(99, 0, 0, 1), 0);    // no such context
  EXPECT_LT(lib.context_create_fence(kCtx, 0, 64, 1), 0);  // ring out of range
  EXPECT_EQ(-EINVAL, lib.context_create_fence(kCtx, 2, 0, 1));  // unknown flag
  lib.poll();
  EXPECT_TRUE(recorder.context_fences.empty());
}

TEST_F(VirglAbiTest, HostileResourceOfAnotherContextIsNotAttached) {
  ASSERT_EQ(0, lib.context_create_with_flags(1, kVcompId, 0, nullptr));
  ASSERT_EQ(0, lib.context_create_with_flags(2, kVcompId, 0, nullptr));
  ASSERT_EQ(0, create_blob(30, 1, 4096));
  lib.ctx_attach_resource(2, 30);  // refused by the renderer (logged); void in the ABI
  lib.ctx_detach_resource(2, 30);
  lib.ctx_attach_resource(2, 777);
  lib.ctx_detach_resource(777, 30);
  // ctx 2 cannot make the host write into it: the call fails, the blob keeps its bytes.
  uint8_t* victim = map(30, 4096);
  ASSERT_NE(nullptr, victim);
  std::memset(victim, 0xab, 4096);
  ASSERT_EQ(0, create_blob(31, 2, 4096));
  lib.ctx_attach_resource(2, 31);
  uint8_t* reply = map(31, 4096);
  ASSERT_NE(nullptr, reply);
  namespace vp = gsvirt::vcomp::proto;
  std::vector<uint8_t> cmds;
  WireWriter w(cmds);
  vp::encode_vcSetReplyBuffer(w, false, 31, 0, 4096);
  vp::DataOut into_victim;
  into_victim.mode = vp::kDataResource;
  into_victim.size = 256;
  into_victim.resource_id = 30;
  vp::encode_clGetPlatformInfo(w, true, 0x0902 /* CL_PLATFORM_NAME */, into_victim);
  submit(2, cmds);
  vp::ReplyHeader header;
  std::memcpy(&header, reply, sizeof header);
  if (header.seqno == 1) {
    WireReader r(reply + sizeof header, header.payload_size);
    vp::Reply_clGetPlatformInfo out;
    ASSERT_TRUE(vp::decode_reply_clGetPlatformInfo(r, &out));
    EXPECT_NE(0, out.result);
  }
  for (int i = 0; i < 4096; i++) ASSERT_EQ(0xab, victim[i]) << "byte " << i;
  EXPECT_EQ(0, lib.resource_unmap(30));
  EXPECT_EQ(0, lib.resource_unmap(31));
}

TEST_F(VirglAbiTest, UnsupportedCallsAnswerNotSupported) {
  virgl_renderer_resource_create_args args{};
  args.handle = 40;
  args.target = 2;
  args.width = args.height = 64;
  EXPECT_EQ(-ENOTSUP, lib.resource_create(&args, nullptr, 0));  // RESOURCE_CREATE_2D (the guest's console)
  EXPECT_EQ(-ENOTSUP, lib.resource_create(nullptr, nullptr, 0));
  std::vector<uint8_t> pages(4096);
  iovec iov{pages.data(), pages.size()};
  EXPECT_EQ(-EINVAL, lib.resource_attach_iov(40, &iov, 1));  // QEMU then frees its mapping
  virgl_renderer_resource_info_ext ext{};
  EXPECT_EQ(-EINVAL, lib.resource_get_info_ext(40, &ext));  // SET_SCANOUT answers INVALID_RESOURCE_ID
  EXPECT_EQ(-ENOTSUP, lib.context_create(3, 4, "virgl"));
  virgl_box box{0, 0, 0, 64, 64, 1};
  EXPECT_EQ(-ENOTSUP, lib.transfer_write_iov(40, 0, 0, 0, 0, &box, 0, nullptr, 0));
  EXPECT_EQ(-ENOTSUP, lib.transfer_read_iov(40, 0, 0, 0, 0, &box, 0, nullptr, 0));
  uint32_t width = 7, height = 7;
  EXPECT_EQ(nullptr, lib.get_cursor_data(40, &width, &height));
  int fd = 0;
  EXPECT_LT(lib.get_fd_for_texture(1, &fd), 0);
  virgl_renderer_resource_import_blob_args import{};
  EXPECT_EQ(-ENOTSUP, lib.resource_import_blob(&import));
  EXPECT_EQ(-ENOTSUP, lib.execute(nullptr, 0));
  lib.force_ctx_0();
}

TEST_F(VirglAbiTest, CallsBeforeInitFailCleanly) {
  lib.cleanup(&recorder);
  std::vector<uint8_t> bytes(16);
  EXPECT_LT(lib.context_create_with_flags(kCtx, kVcompId, 0, nullptr), 0);
  EXPECT_LT(lib.submit_cmd(bytes.data(), kCtx, 4), 0);
  EXPECT_LT(create_blob(1, kCtx, 4096), 0);
  EXPECT_LT(lib.create_fence(1, 0), 0);
  EXPECT_LT(lib.context_create_fence(kCtx, 0, 0, 1), 0);
  lib.poll();
  lib.reset();
  lib.cleanup(&recorder);
  EXPECT_EQ(-EINVAL, lib.init(&recorder, 0, nullptr));
  uint32_t ver = 0, size = 0;
  lib.get_cap_set(kVcompId, &ver, &size);  // QEMU's realize asks before init
  EXPECT_GT(size, 0u);
}

}  // namespace
}  // namespace gsvirt::virgl_abi::testing
