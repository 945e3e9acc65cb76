// A VMM as QEMU 10.0 is one: callbacks of version 3 that record the fences written back, and
// helpers that make the calls hw/display/virtio-gpu-virgl.c makes.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/host/virgl_abi/virgl_library.h"

namespace gsvirt::virgl_abi::testing {

struct WrittenFence {
  uint32_t ctx_id, ring_idx;
  uint64_t fence_id;
  bool operator==(const WrittenFence&) const = default;
};

struct Recorder {
  std::vector<WrittenFence> context_fences;
  std::vector<uint32_t> global_fences;
};

inline void record_fence(void* cookie, uint32_t fence) {
  static_cast<Recorder*>(cookie)->global_fences.push_back(fence);
}

inline void record_context_fence(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  static_cast<Recorder*>(cookie)->context_fences.push_back({ctx_id, ring_idx, fence_id});
}

// The default capset ids (capset_map.h); the test runs with neither setting in its environment.
constexpr uint32_t kVcompId = 2;
constexpr uint32_t kGsgpuId = 4;

class VirglAbiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(lib.error.empty()) << lib.error;
    callbacks.version = 3;  // what QEMU 10.0 passes without an EGL display
    callbacks.write_fence = record_fence;
    callbacks.write_context_fence = record_context_fence;
    ASSERT_EQ(0, lib.init(&recorder, 0, &callbacks));
  }
  void TearDown() override {
    if (lib.cleanup) lib.cleanup(&recorder);
  }

  int create_blob(uint32_t res, uint32_t ctx, uint64_t size, uint32_t blob_mem = VIRGL_ABI_BLOB_MEM_HOST3D,
                  const iovec* iov = nullptr, uint32_t num_iovs = 0) {
    virgl_renderer_resource_create_blob_args args{};
    args.res_handle = res;
    args.ctx_id = ctx;
    args.blob_mem = blob_mem;
    args.blob_flags = 1;  // MAPPABLE, as the guest driver asks
    args.size = size;
    args.iovecs = iov;
    args.num_iovs = num_iovs;
    return lib.resource_create_blob(&args);
  }

  int submit(uint32_t ctx, std::vector<uint8_t> bytes) {
    return lib.submit_cmd(bytes.data(), int(ctx), int(bytes.size() / 4));
  }

  uint8_t* map(uint32_t res, uint64_t expected_size) {
    void* addr = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(0, lib.resource_map(res, &addr, &size));
    EXPECT_EQ(expected_size, size);
    return static_cast<uint8_t*>(addr);
  }

  VirglLibrary& lib = VirglLibrary::get();
  virgl_renderer_callbacks callbacks{};
  Recorder recorder;
};

}  // namespace gsvirt::virgl_abi::testing
