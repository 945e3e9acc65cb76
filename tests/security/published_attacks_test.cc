// The classes of attack published against virglrenderer, tried on gsvirt as a VMM exposes it:
// through the public C API (include/gsvirt_renderer.h) and a vcomp context on the real gsgpu
// executor. Each class gets errors only; the host keeps serving and its memory stays its own.
//   1. out-of-bounds reads and writes through resource ranges (transfer boxes and offsets),
//   2. double frees through ids that are reused or released twice,
//   3. uninitialised host memory returned to the guest,
//   4. NULL dereferences through unknown ids.
// docs/security.md ("Published attack classes") maps each test to the rule that stops it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "common/wire.h"
#include "gsvirt_renderer.h"
#include "tests/common/log_capture.h"
#include "tests/security/capi_vcomp_guest.h"
#include "vcomp_protocol_guest.h"

namespace gsvirt::security {
namespace {

using testing::LogCapture;

class PublishedAttacks : public ::testing::Test {
 protected:
  void SetUp() override {
    gsvirt_renderer_callbacks cb{GSVIRT_RENDERER_CALLBACKS_VERSION, nullptr};
    ASSERT_EQ(gsvirt_renderer_init(nullptr, 0, &cb), 0);
  }
  void TearDown() override { gsvirt_renderer_cleanup(nullptr); }
};

// Class 1: ranges of a resource given by the guest (cf. virglrenderer's transfer-box overflows).
TEST_F(PublishedAttacks, OutOfBoundsRangesOfResourcesAreRefused) {
  LogCapture log;
  VcompGuest g;
  g.open_queue();
  const uint64_t buffer = g.id();
  ASSERT_EQ(g.create_buffer(buffer, 4096), CL_SUCCESS);
  std::memset(g.data_, 0x5a, kBlobSize);
  // Past the end, straddling the end, and an offset that wraps around when the size is added.
  const uint64_t bad_offsets[] = {kBlobSize, kBlobSize - 16, UINT64_MAX - 8, uint64_t{1} << 63};
  for (uint64_t off : bad_offsets) {
    EXPECT_NE(g.read_to_blob(buffer, 0, 64, off), CL_SUCCESS) << "read into the blob at " << off;
    EXPECT_NE(g.write_from_blob(buffer, 64, off), CL_SUCCESS) << "write from the blob at " << off;
  }
  // A range of the buffer itself past its end.
  EXPECT_NE(g.read_to_blob(buffer, 4096 - 8, 64, 0), CL_SUCCESS);
  EXPECT_NE(g.read_to_blob(buffer, UINT64_MAX - 8, 64, 0), CL_SUCCESS);
  // A blob of another context (created and attached there) is not this context's to name.
  ASSERT_EQ(gsvirt_renderer_context_create_with_flags(2, proto::kCapsetId, 5, "other"), 0);
  uint8_t* other = VcompGuest::create_blob(30, 2);
  std::memset(other, 0x77, kBlobSize);
  EXPECT_NE(g.read_to_blob(buffer, 0, 64, 0, 30), CL_SUCCESS);
  for (uint64_t i = 0; i < kBlobSize; ++i) ASSERT_EQ(other[i], 0x77) << "the other context's blob, byte " << i;
  for (uint64_t i = 0; i < kBlobSize; ++i) ASSERT_EQ(g.data_[i], 0x5a) << "nothing was written, byte " << i;
  // A reply buffer set past its blob is refused; replies keep going where they went.
  g.send([](WireWriter& w) { proto::encode_vcSetReplyBuffer(w, false, kReplyRes, kBlobSize - 8, 4096); });
  g.send([](WireWriter& w) { proto::encode_vcPing(w, true); });
  EXPECT_EQ(g.result(), CL_SUCCESS);
  // The context works after all of it.
  std::memset(g.data_, 0x11, 64);
  ASSERT_EQ(g.write_from_blob(buffer, 64, 0), CL_SUCCESS);
  ASSERT_EQ(g.read_to_blob(buffer, 0, 64, 1024), CL_SUCCESS);
  EXPECT_EQ(std::memcmp(g.data_, g.data_ + 1024, 64), 0);
  EXPECT_EQ(gsvirt_renderer_resource_unref(30), 0);
  EXPECT_EQ(gsvirt_renderer_context_destroy(2), 0);
}

// Class 2: ids reused while live, or released twice (cf. the double free through a reused
// resource id).
TEST_F(PublishedAttacks, ReusedAndTwiceReleasedIdsAreRefused) {
  LogCapture log;
  VcompGuest g;
  g.open_queue();
  // Resources: a second blob under a live id, unref twice, attach and detach twice.
  gsvirt_renderer_resource_create_blob_args args{};
  args.res_handle = kDataRes;
  args.ctx_id = kCtx;
  args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
  args.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
  args.size = 4096;
  EXPECT_LT(gsvirt_renderer_resource_create_blob(&args), 0);
  void* map = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(gsvirt_renderer_resource_get_map(kDataRes, &map, &size), 0);
  EXPECT_EQ(map, g.data_) << "the live blob is untouched";
  EXPECT_EQ(size, kBlobSize);
  args.res_handle = 20;
  ASSERT_EQ(gsvirt_renderer_resource_create_blob(&args), 0);
  EXPECT_EQ(gsvirt_renderer_ctx_attach_resource(kCtx, 20), 0);
  EXPECT_EQ(gsvirt_renderer_ctx_detach_resource(kCtx, 20), 0);
  EXPECT_LT(gsvirt_renderer_ctx_detach_resource(kCtx, 20), 0);
  EXPECT_EQ(gsvirt_renderer_resource_unref(20), 0);
  EXPECT_EQ(gsvirt_renderer_resource_unref(20), -ENOENT);
  // Contexts: a second context under a live id; destroyed twice.
  EXPECT_LT(gsvirt_renderer_context_create_with_flags(kCtx, proto::kCapsetId, 4, "dupe"), 0);
  ASSERT_EQ(gsvirt_renderer_context_create_with_flags(3, proto::kCapsetId, 1, "x"), 0);
  EXPECT_EQ(gsvirt_renderer_context_destroy(3), 0);
  EXPECT_LT(gsvirt_renderer_context_destroy(3), 0);
  // vcomp objects: a buffer created under a live id, released twice, used after release.
  const uint64_t buffer = g.id(), queue_id_reused = g.queue;
  ASSERT_EQ(g.create_buffer(buffer, 4096), CL_SUCCESS);
  EXPECT_NE(g.create_buffer(buffer, 8192), CL_SUCCESS);
  EXPECT_NE(g.create_buffer(queue_id_reused, 8192), CL_SUCCESS) << "an id of another object type";
  std::memset(g.data_, 0x42, 4096);
  ASSERT_EQ(g.write_from_blob(buffer, 4096, 0), CL_SUCCESS) << "the first buffer survived";
  EXPECT_EQ(g.destroy(buffer), CL_SUCCESS);
  EXPECT_NE(g.destroy(buffer), CL_SUCCESS);
  EXPECT_NE(g.read_to_blob(buffer, 0, 64, 0), CL_SUCCESS) << "use after release";
  EXPECT_FALSE(g.fatal());
}

// Class 3: memory the guest reads before anything was written to it.
TEST_F(PublishedAttacks, FreshMemoryReadsAsZeros) {
  // Heap and mapping reuse: blobs and buffers freed just before are filled first.
  for (int round = 0; round < 2; ++round) {
    VcompGuest g;
    for (uint64_t i = 0; i < kBlobSize; ++i)
      ASSERT_EQ(g.data_[i], 0) << "round " << round << ": a new blob, byte " << i;
    g.open_queue();
    const uint64_t buffer = g.id();
    ASSERT_EQ(g.create_buffer(buffer, kBlobSize), CL_SUCCESS);
    std::memset(g.data_, 0xa5, kBlobSize);
    ASSERT_EQ(g.read_to_blob(buffer, 0, kBlobSize, 0), CL_SUCCESS);
    for (uint64_t i = 0; i < kBlobSize; ++i)
      ASSERT_EQ(g.data_[i], 0) << "round " << round << ": a new buffer read back, byte " << i;
    // Leave garbage behind for the next round to not see.
    std::memset(g.data_, 0xee, kBlobSize);
    ASSERT_EQ(g.write_from_blob(buffer, kBlobSize, 0), CL_SUCCESS);
  }
  // An info query answered into a larger buffer: the bytes after the value are not host memory.
  VcompGuest g;
  g.open_queue();
  std::memset(g.reply_ + 64, 0xcc, kBlobSize - 64);
  proto::DataOut out;
  out.size = 4096;  // inline, in the reply
  g.send([&](WireWriter& w) { proto::encode_clGetDeviceInfo(w, true, g.device, CL_DEVICE_NAME, out); });
  ASSERT_EQ(g.result(), CL_SUCCESS);
  proto::ReplyHeader h;
  std::memcpy(&h, g.reply_, sizeof h);
  WireReader r = g.payload();
  r.i32("result");
  const uint64_t value_size = r.u64("value");
  ASSERT_GT(value_size, 0u);
  ASSERT_LT(value_size, 4096u) << "the reply carries the value, not the capacity";
  const uint8_t* name = r.bytes(value_size, "value");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(name[value_size - 1], 0) << "a C string";
  EXPECT_EQ(std::strlen(reinterpret_cast<const char*>(name)) + 1, value_size);
}

// Class 4: ids that name nothing (cf. the NULL dereferences through unknown resource ids).
TEST_F(PublishedAttacks, UnknownIdsAreErrorsNotDereferences) {
  LogCapture log;
  VcompGuest g;
  std::vector<uint32_t> cmd(4, 0);
  EXPECT_LT(gsvirt_renderer_submit_cmd(cmd.data(), 999, 4), 0);
  EXPECT_LT(gsvirt_renderer_ctx_attach_resource(kCtx, 999), 0);
  EXPECT_LT(gsvirt_renderer_ctx_attach_resource(999, int(kDataRes)), 0);
  EXPECT_LT(gsvirt_renderer_ctx_detach_resource(999, int(kDataRes)), 0);
  EXPECT_LT(gsvirt_renderer_context_create_fence(999, 0, 0, 1), 0);
  EXPECT_LT(gsvirt_renderer_context_destroy(999), 0);
  EXPECT_LT(gsvirt_renderer_resource_unref(999), 0);
  uint32_t fd_type = 0;
  int fd = -1;
  EXPECT_LT(gsvirt_renderer_resource_export_blob(999, &fd_type, &fd), 0);
  EXPECT_EQ(fd, -1);
  void* map = nullptr;
  uint64_t size = 0;
  EXPECT_LT(gsvirt_renderer_resource_get_map(999, &map, &size), 0);
  iovec* iov = nullptr;
  int n = 0;
  EXPECT_LT(gsvirt_renderer_resource_detach_iov(999, &iov, &n), 0);
  EXPECT_LT(gsvirt_renderer_resource_attach_iov(999, nullptr, 0), 0);
  gsvirt_renderer_resource_create_blob_args args{};
  args.res_handle = 40;
  args.ctx_id = 999;
  args.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
  args.size = 4096;
  EXPECT_LT(gsvirt_renderer_resource_create_blob(&args), 0) << "a host blob of an unknown context";

  g.open_queue();
  const uint64_t unknown[] = {0, 999, UINT64_MAX, g.context /* right id, wrong type */};
  for (uint64_t id : unknown) {
    const uint64_t fresh = g.id();
    proto::DataOut out;
    out.size = 64;
    g.send([&](WireWriter& w) { proto::encode_clGetMemObjectInfo(w, true, id, CL_MEM_SIZE, out); });
    EXPECT_EQ(g.result(), CL_INVALID_MEM_OBJECT) << id;
    EXPECT_NE(g.read_to_blob(id, 0, 64, 0), CL_SUCCESS) << id;
    g.send([&](WireWriter& w) { proto::encode_clFinish(w, true, id == g.context ? g.device : id); });
    EXPECT_EQ(g.result(), CL_INVALID_COMMAND_QUEUE) << id;
    g.send([&](WireWriter& w) { proto::encode_clCreateKernel(w, true, fresh, id, "k"); });
    EXPECT_EQ(g.result(), CL_INVALID_PROGRAM) << id;
    const uint32_t value = 7;
    g.send([&](WireWriter& w) { proto::encode_clSetKernelArg(w, true, id, 0, 0, 4, 0, &value, 4); });
    EXPECT_EQ(g.result(), CL_INVALID_KERNEL) << id;
    const uint64_t not_a_context = id == g.context ? g.queue : id;
    g.send([&](WireWriter& w) { proto::encode_clCreateCommandQueue(w, true, fresh, not_a_context, g.device, 0); });
    EXPECT_EQ(g.result(), CL_INVALID_CONTEXT) << id;
  }
  EXPECT_FALSE(g.fatal()) << "unknown ids are API errors, not a broken stream";
}

}  // namespace
}  // namespace gsvirt::security
