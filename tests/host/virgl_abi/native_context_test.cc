// The gsgpu native context through the library, with work on the GPU: fences wait for it, and a
// context destroyed under it (a guest program killed mid-kernel) still has its fences written back,
// or QEMU would keep the fenced commands, and keep polling for them, until a device reset.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tests/host/gsgpu_ctx/ctx_harness.h"
#include "tests/host/virgl_abi/virgl_fixture.h"

namespace gsvirt::virgl_abi::testing {
namespace {

namespace gp = gsvirt::gsgpu_ctx::proto;
using gsvirt::gsgpu_ctx::test::Guest;
using gsvirt::gsgpu_ctx::test::GpuBuffer;
using gsvirt::gsgpu_ctx::test::kGateKernel;

constexpr uint32_t kCtx = 7;
constexpr uint64_t kResponseBytes = 64 << 10;
constexpr uint32_t kRspOff = gp::kFencePageSize;

class VirglAbiNativeTest : public VirglAbiTest {
 public:
  using VirglAbiTest::create_blob;
  using VirglAbiTest::map;
};

// A guest of the native context that reaches the library only through its ABI, as QEMU does.
class NativeGuest {
 public:
  NativeGuest(VirglAbiNativeTest& t, VirglLibrary& lib) : t_(t), lib_(lib) {}

  bool start() {
    if (lib_.context_create_with_flags(kCtx, kGsgpuId, 0, nullptr) != 0) return false;
    response_ = blob(kResponseBytes);
    gp::SetResponseBufferReq req{};
    req.res_id = next_res_ - 1;
    req.size = kResponseBytes;
    std::vector<uint8_t> s;
    gp::encode_set_response_buffer(s, 0, 0, req);
    if (send(s) != 0) return false;
    caps_ = call<gp::GetCapsRsp>([](auto& s, uint32_t q, uint32_t o) { gp::encode_get_caps(s, q, o, {}); }).caps;
    next_va_ = caps_.va_base + 0x100000;
    return caps_.page_size != 0;
  }

  // A HOST3D blob of the context, attached and mapped as QEMU maps it for the guest.
  uint8_t* blob(uint64_t size) {
    uint32_t res = next_res_++;
    EXPECT_EQ(0, t_.create_blob(res, kCtx, size));
    lib_.ctx_attach_resource(kCtx, int(res));
    return t_.map(res, size);
  }

  // A BO over a new blob, bound at the next VA; `words` are copied in.
  GpuBuffer buffer(const std::vector<uint32_t>& words, uint64_t size, uint32_t perms) {
    size = (size + caps_.page_size - 1) / caps_.page_size * caps_.page_size;
    GpuBuffer b;
    b.bo_id = next_bo_++;
    b.blob.res_id = next_res_;
    b.blob.map = blob(size);
    b.blob.size = size;
    std::memcpy(b.blob.map, words.data(), words.size() * 4);
    b.code_size = uint32_t(words.size() * 4);
    b.va = next_va_;
    next_va_ += size + 0x10000;
    gp::BoCreateReq bo{};
    bo.bo_id = b.bo_id;
    bo.res_id = b.blob.res_id;
    bo.size = size;
    EXPECT_EQ(0, call<gp::BoCreateRsp>([&](auto& s, uint32_t q, uint32_t o) { gp::encode_bo_create(s, q, o, bo); })
                     .status);
    gp::VaBindReq bind{};
    bind.bo_id = b.bo_id;
    bind.va = b.va;
    bind.size = size;
    bind.perms = perms;
    EXPECT_EQ(0, call<gp::VaBindRsp>([&](auto& s, uint32_t q, uint32_t o) { gp::encode_va_bind(s, q, o, bind); })
                     .status);
    return b;
  }

  int32_t submit(uint32_t ring, uint64_t ring_seqno, const std::vector<uint32_t>& bos,
                 const std::vector<uint32_t>& packets) {
    return call<gp::SubmitRsp>([&](auto& s, uint32_t q, uint32_t o) {
             auto r = Guest::submit_request(ring, ring_seqno, bos, packets, q, o);
             s.insert(s.end(), r.begin(), r.end());
           }).status;
  }

 private:
  int send(std::vector<uint8_t>& s) { return lib_.submit_cmd(s.data(), int(kCtx), int(s.size() / 4)); }

  template <typename Rsp, typename Encode>
  Rsp call(Encode encode) {
    const uint32_t seqno = ++seqno_;
    std::vector<uint8_t> s;
    encode(s, seqno, kRspOff);
    EXPECT_EQ(0, send(s));
    Rsp rsp{};
    EXPECT_EQ(seqno, gp::load_response_seqno(response_ + kRspOff)) << "no response";
    std::memcpy(&rsp, response_ + kRspOff, sizeof rsp);
    return rsp;
  }

  VirglAbiNativeTest& t_;
  VirglLibrary& lib_;
  uint8_t* response_ = nullptr;
  gp::Caps caps_{};
  uint32_t seqno_ = 0, next_res_ = 100, next_bo_ = 1;
  uint64_t next_va_ = 0;
};

TEST_F(VirglAbiNativeTest, ContextDestroyedWithWorkInFlightHasItsFencesWrittenBack) {
  NativeGuest g(*this, lib);
  ASSERT_TRUE(g.start());
  std::vector<uint32_t> code;
  std::string error;
  ASSERT_TRUE(gsgpu::isa::assemble(kGateKernel, &code, &error)) << error;
  GpuBuffer gate = g.buffer(code, code.size() * 4, gsgpu::drv::kVaRead | gsgpu::drv::kVaExecute);
  GpuBuffer flag = g.buffer({0}, 4096, gsgpu::drv::kVaRead);
  // The gate kernel runs until its flag is set: the fence behind it waits.
  ASSERT_EQ(0, g.submit(0, 1, {gate.bo_id, flag.bo_id}, Guest::dispatch(gate, flag, 4, 1, 1)));
  ASSERT_EQ(0, lib.context_create_fence(kCtx, VIRGL_ABI_FENCE_FLAG_MERGEABLE, 0, 42));
  lib.poll();
  EXPECT_TRUE(recorder.context_fences.empty()) << "the fence retired before its work";
  // Should destroying the context wait for its work, the gate opens after a while (through the
  // library's own mapping, which outlives the context); the fence must come back either way.
  std::mutex mutex;
  std::condition_variable destroyed;
  bool done = false;
  std::thread opener([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!destroyed.wait_for(lock, std::chrono::seconds(2), [&] { return done; }))
      __atomic_store_n(reinterpret_cast<uint32_t*>(flag.blob.map), 1u, __ATOMIC_RELEASE);
  });
  lib.context_destroy(kCtx);
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  destroyed.notify_one();
  opener.join();
  lib.poll();
  EXPECT_EQ((std::vector<WrittenFence>{{kCtx, 0, 42}}), recorder.context_fences);
}

}  // namespace
}  // namespace gsvirt::virgl_abi::testing
