// Drives gsgpu native contexts the way a guest does: through the renderer core (blobs, attach,
// submit, fences), with requests built by the generated encoders and responses and fences read
// from the response blob. Kernels are assembled with gsgpu/isa and their packets built with
// protocol/gsgpu/packets.h, as the guest's userspace driver builds them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/log.h"
#include "gsgpu/drv/drv.h"
#include "gsgpu/isa/assembler.h"
#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "host/renderer/renderer.h"
#include "protocol/gsgpu/packets.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"
#include "tests/common/log_capture.h"

namespace gsvirt::gsgpu_ctx::test {

using namespace proto;

using gsvirt::testing::LogCapture;

inline std::string read_kernel(const char* name) {
  std::ifstream in(std::string(GSGPU_KERNELS_DIR) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << "cannot read " << GSGPU_KERNELS_DIR << "/" << name;
  return s.str();
}

inline ContextConfig test_config() {
  ContextConfig c;
  c.vram_size = uint64_t{16} << 20;
  c.watchdog_budget = 200000;  // a spinning warp faults within a fraction of a second
  return c;
}

// A renderer with the native context registered, recording the fences it retires.
class Host {
 public:
  // config nullopt: contexts get what register_capset() read from the environment.
  explicit Host(std::optional<ContextConfig> config = test_config())
      : renderer_([this](uint32_t ctx, uint32_t ring, uint64_t fence) {
          std::lock_guard lock(mutex_);
          retired_.push_back({ctx, ring, fence});
        }) {
    register_capset();
    if (config) set_context_config(*config);
  }
  renderer::Renderer& renderer() { return renderer_; }
  uint32_t next_res_id() { return next_res_id_++; }

  struct Retired {
    uint32_t ctx, ring;
    uint64_t fence;
  };
  // (ring, fence id) of every fence of `ctx` retired so far, in the order they retired.
  std::vector<std::pair<uint32_t, uint64_t>> retired_fences(uint32_t ctx) {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<uint32_t, uint64_t>> out;
    for (const Retired& r : retired_)
      if (r.ctx == ctx) out.emplace_back(r.ring, r.fence);
    return out;
  }
  bool has_retired(uint32_t ctx, uint32_t ring, uint64_t fence) {
    std::lock_guard lock(mutex_);
    for (const Retired& r : retired_)
      if (r.ctx == ctx && r.ring == ring && r.fence == fence) return true;
    return false;
  }
  // Polls the renderer until the fence has retired; false after `timeout_ms`.
  bool wait_fence(uint32_t ctx, uint32_t ring, uint64_t fence, int timeout_ms = 30000) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
      renderer_.poll();
      if (has_retired(ctx, ring, fence)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

 private:
  std::mutex mutex_;
  std::vector<Retired> retired_;
  renderer::Renderer renderer_;
  uint32_t next_res_id_ = 1;
};

struct Blob {
  uint32_t res_id = 0;
  uint8_t* map = nullptr;
  uint64_t size = 0;
};

// A blob-backed BO bound at a VA: the guest writes and reads it through `blob.map`, the GPU at `va`.
struct GpuBuffer {
  uint32_t bo_id = 0;
  Blob blob;
  uint64_t va = 0;
  uint32_t code_size = 0;  // kernels: bytes of code
};

// One guest context: its response blob (fence page + responses), requests and helpers.
class Guest {
 public:
  static constexpr uint32_t kRspOff = kFencePageSize;
  static constexpr uint64_t kResponseBytes = 64 << 10;

  Guest(Host& host, uint32_t ctx_id) : host_(host), ctx_id(ctx_id) {
    EXPECT_EQ(host_.renderer().create_context(ctx_id, kCapsetId, "test"), 0);
    response = blob(kResponseBytes);
    SetResponseBufferReq req{};
    req.res_id = response.res_id;
    req.size = kResponseBytes;
    std::vector<uint8_t> s;
    encode_set_response_buffer(s, 0, 0, req);
    EXPECT_EQ(send(s), 0);
    caps = get_caps().caps;
    next_va_ = caps.va_base + 0x100000;
  }

  renderer::Renderer& renderer() { return host_.renderer(); }

  Blob blob(uint64_t size) {
    Blob b;
    b.res_id = host_.next_res_id();
    renderer::BlobCreateInfo info;
    info.res_id = b.res_id;
    info.ctx_id = ctx_id;
    info.blob_mem = renderer::kBlobMemHost3d;
    info.blob_flags = renderer::kBlobFlagMappable;
    info.size = size;
    EXPECT_EQ(renderer().create_blob(info), 0);
    EXPECT_EQ(renderer().attach_resource(ctx_id, b.res_id), 0);
    void* map = nullptr;
    EXPECT_EQ(renderer().get_map(b.res_id, &map, &b.size), 0);
    b.map = static_cast<uint8_t*>(map);
    return b;
  }

  int send(const std::vector<uint8_t>& stream) { return renderer().submit(ctx_id, stream.data(), stream.size()); }

  // Sends one request with its response at kRspOff and returns the response; the response slot
  // is cleared first, so a request that answered nothing is seen as seqno 0.
  template <typename Rsp>
  Rsp call(const std::function<void(std::vector<uint8_t>&, uint32_t seqno, uint32_t rsp_off)>& encode) {
    const uint32_t seqno = ++request_seqno_;
    std::memset(response.map + kRspOff, 0, sizeof(Rsp));
    std::vector<uint8_t> s;
    encode(s, seqno, kRspOff);
    EXPECT_EQ(send(s), 0);
    Rsp rsp{};
    EXPECT_EQ(load_response_seqno(response.map + kRspOff), seqno) << "no response";
    std::memcpy(&rsp, response.map + kRspOff, sizeof rsp);
    return rsp;
  }
  static Status status_of(int32_t s) { return Status(s); }

  GetCapsRsp get_caps() {
    return call<GetCapsRsp>([](auto& s, uint32_t q, uint32_t o) { encode_get_caps(s, q, o, GetCapsReq{}); });
  }
  Status bo_create(uint32_t bo_id, uint32_t res_id, uint64_t res_offset, uint64_t size, uint32_t flags = 0) {
    BoCreateReq req{};
    req.bo_id = bo_id;
    req.res_id = res_id;
    req.res_offset = res_offset;
    req.size = size;
    req.flags = flags;
    auto rsp = call<BoCreateRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_bo_create(s, q, o, req); });
    return status_of(rsp.status);
  }
  Status bo_destroy(uint32_t bo_id) {
    BoDestroyReq req{};
    req.bo_id = bo_id;
    auto rsp = call<BoDestroyRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_bo_destroy(s, q, o, req); });
    return status_of(rsp.status);
  }
  Status va_bind(uint32_t bo_id, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) {
    VaBindReq req{};
    req.bo_id = bo_id;
    req.bo_offset = bo_offset;
    req.va = va;
    req.size = size;
    req.perms = perms;
    return status_of(call<VaBindRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_va_bind(s, q, o, req); }).status);
  }
  Status va_unbind(uint64_t va, uint64_t size) {
    VaUnbindReq req{};
    req.va = va;
    req.size = size;
    auto rsp = call<VaUnbindRsp>([&](auto& s, uint32_t q, uint32_t o) { encode_va_unbind(s, q, o, req); });
    return status_of(rsp.status);
  }
  static std::vector<uint8_t> submit_request(uint32_t ring, uint64_t ring_seqno, const std::vector<uint32_t>& bos,
                                             const std::vector<uint32_t>& packets, uint32_t seqno = 0,
                                             uint32_t rsp_off = 0) {
    SubmitReq req{};
    req.ring = ring;
    req.ring_seqno = ring_seqno;
    req.bo_count = uint32_t(bos.size());
    req.dword_count = uint32_t(packets.size());
    std::vector<uint8_t> s;
    encode_submit(s, seqno, rsp_off, req, bos.data(), packets.data());
    return s;
  }
  Status submit(uint32_t ring, uint64_t ring_seqno, const std::vector<uint32_t>& bos,
                const std::vector<uint32_t>& packets) {
    return status_of(call<SubmitRsp>([&](auto& s, uint32_t q, uint32_t o) {
                       auto r = submit_request(ring, ring_seqno, bos, packets, q, o);
                       s.insert(s.end(), r.begin(), r.end());
                     }).status);
  }
  ReadFaultsRsp read_faults() {
    return call<ReadFaultsRsp>([](auto& s, uint32_t q, uint32_t o) { encode_read_faults(s, q, o, ReadFaultsReq{}); });
  }
  Counters read_counters() {
    return call<ReadCountersRsp>([](auto& s, uint32_t q, uint32_t o) {
             encode_read_counters(s, q, o, ReadCountersReq{});
           }).counters;
  }
  Status reset() {
    return status_of(call<ResetRsp>([](auto& s, uint32_t q, uint32_t o) { encode_reset(s, q, o, ResetReq{}); }).status);
  }

  RingFence fence(uint32_t ring) const { return load_ring_fence(response.map, ring); }
  // Polls the fence page until `seqno` of `ring` has retired; false after `timeout_ms`.
  bool wait_retired(uint32_t ring, uint64_t seqno, int timeout_ms = 30000) const {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
      if (fence(ring).retired_seqno >= seqno) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  // A blob-backed BO of `size` bytes (rounded up to pages) bound at the next free VA.
  GpuBuffer buffer(uint64_t size, uint32_t perms = gsgpu::drv::kVaRead | gsgpu::drv::kVaWrite) {
    size = page_round(size);
    GpuBuffer b;
    b.bo_id = next_bo_id_++;
    b.blob = blob(size);
    EXPECT_EQ(bo_create(b.bo_id, b.blob.res_id, 0, size), Status::kOk);
    b.va = next_va_;
    next_va_ += size + 0x10000;  // unbound pages between buffers
    EXPECT_EQ(va_bind(b.bo_id, 0, b.va, size, perms), Status::kOk);
    return b;
  }
  GpuBuffer kernel(const std::string& source) {
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_TRUE(gsgpu::isa::assemble(source, &words, &error)) << error;
    GpuBuffer b = buffer(words.size() * 4, gsgpu::drv::kVaRead | gsgpu::drv::kVaExecute);
    std::memcpy(b.blob.map, words.data(), words.size() * 4);
    b.code_size = uint32_t(words.size() * 4);
    return b;
  }
  uint64_t page_round(uint64_t n) const { return (n + caps.page_size - 1) / caps.page_size * caps.page_size; }

  // One dispatch of `kernel` over groups x group_size work-items with `args`.
  static std::vector<uint32_t> dispatch(const GpuBuffer& kernel, const GpuBuffer& args, uint32_t arg_size,
                                        uint32_t groups, uint32_t group_size) {
    gsgpu::hw::DispatchPacket d;
    d.code_va = kernel.va;
    d.code_size = kernel.code_size;
    d.arg_va = args.va;
    d.arg_size = arg_size;
    d.grid_size[0] = groups;
    d.group_size[0] = group_size;
    std::vector<uint32_t> packets;
    gsgpu::hw::append_dispatch(&packets, d);
    return packets;
  }

  Host& host_;
  const uint32_t ctx_id;
  Blob response;
  Caps caps{};

 private:
  uint32_t request_seqno_ = 0;
  uint32_t next_bo_id_ = 1;
  uint64_t next_va_ = 0;
};

// Runs until the u32 its argument pointer points at is not 0: a submission the test ends when it
// chooses (dispatch it with a 4-byte flag buffer as its arguments, one work-item).
constexpr const char* kGateKernel = R"(
.kernel gate
  s_special s[0:1], arg_ptr
wait:
  s_load_b32 s2, s[0:1], 0
  s_cbranch_z s2, wait
  s_end
)";

inline void open_gate(const GpuBuffer& flag) {
  __atomic_store_n(reinterpret_cast<uint32_t*>(flag.blob.map), 1u, __ATOMIC_RELEASE);
}

// x = 0, 1, 2, ... and the scale kernel's arguments (x's address at 0, k at 8).
inline void prepare_scale(const GpuBuffer& args, const GpuBuffer& x, uint32_t n, uint32_t k) {
  auto* v = reinterpret_cast<uint32_t*>(x.blob.map);
  for (uint32_t i = 0; i < n; ++i) v[i] = i;
  std::memcpy(args.blob.map, &x.va, 8);
  std::memcpy(args.blob.map + 8, &k, 4);
}

inline ::testing::AssertionResult scaled(const GpuBuffer& x, uint32_t n, uint32_t k) {
  auto* v = reinterpret_cast<const uint32_t*>(x.blob.map);
  for (uint32_t i = 0; i < n; ++i)
    if (v[i] != i * k)
      return ::testing::AssertionFailure() << "element " << i << " is " << v[i] << ", expected " << i * k;
  return ::testing::AssertionSuccess();
}

}  // namespace gsvirt::gsgpu_ctx::test
