// libFuzzer target: hostile gsgpu native-context request streams, through the renderer core into
// a real context on a real (small, short-watchdog) emulated device.
//
// Each input gets a fresh context with a response blob (resource 1), a data blob (resource 2)
// holding the input's first bytes (so DISPATCH packets can point at fuzzed code), BO 1 over the
// data blob bound read/write/execute at the start of the VA window, and BO 2 in device memory.
//
// Input format: byte 0 = 0xff submits the rest raw, header and all. Otherwise the input is a list
// of requests with well-formed headers around fuzzed fields, so the fuzzer spends its time in the
// handlers rather than on framing: per request, one byte picks the request, one byte the response
// slot (odd: a response at 256 + 8 * (byte >> 1)), then the fixed fields follow verbatim; SUBMIT's
// bo_count and dword_count are cut to 8 and 64 and its arrays read from the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <sys/prctl.h>

#include "common/log.h"
#include "host/gsgpu_ctx/gsgpu_ctx.h"
#include "host/renderer/renderer.h"
#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

using namespace gsvirt;
using namespace gsvirt::gsgpu_ctx::proto;

namespace {

constexpr uint32_t kCtx = 1;
constexpr uint64_t kBlobBytes = 64 << 10;

const std::vector<uint32_t>& request_ids() {
  static const std::vector<uint32_t> ids = [] {
    std::vector<uint32_t> v;
    for (uint32_t id = 1; id < 256; ++id)
      if (request_name(id)) v.push_back(id);
    return v;
  }();
  return ids;
}

// Copies up to `n` input bytes into `dst` (zero-filling the rest) and advances.
void take(const uint8_t*& p, const uint8_t* end, void* dst, size_t n) {
  size_t have = std::min(n, size_t(end - p));
  std::memcpy(dst, p, have);
  std::memset(static_cast<uint8_t*>(dst) + have, 0, n - have);
  p += have;
}

std::vector<uint8_t> structured_stream(const uint8_t* p, const uint8_t* end) {
  std::vector<uint8_t> out;
  while (end - p >= 2) {
    const uint32_t id = request_ids()[p[0] % request_ids().size()];
    const uint32_t rsp_off = (p[1] & 1) ? kFencePageSize + 8 * (p[1] >> 1) : 0;
    p += 2;
    const uint32_t fixed = request_fixed_size(id);
    std::vector<uint8_t> req(fixed);
    take(p, end, req.data() + sizeof(ReqHeader), fixed - sizeof(ReqHeader));
    uint64_t arrays = 0;
    if (id == uint32_t(RequestId::kSubmit)) {
      SubmitReq s;
      std::memcpy(&s, req.data(), sizeof s);
      s.bo_count %= 8;
      s.dword_count %= 64;
      std::memcpy(req.data(), &s, sizeof s);
      arrays = (uint64_t(s.bo_count) + s.dword_count) * 4;
    }
    ReqHeader hdr{id, uint32_t(fixed + arrays), uint32_t(out.size()), rsp_off};
    std::memcpy(req.data(), &hdr, sizeof hdr);
    req.resize(fixed + arrays);
    take(p, end, req.data() + fixed, arrays);
    out.insert(out.end(), req.begin(), req.end());
  }
  return out;
}

renderer::Renderer& host() {
  static renderer::Renderer* r = [] {
    set_log_sink([](const char*, void*) {}, nullptr);
    // Each input's device maps its VRAM anew, asking for transparent huge pages: the first touch
    // (zeroing BO 2) then cleared a whole 2 MiB page per input, 12 % of this target's time. Small
    // pages clear only what is touched; nothing the decoder checks depends on the page size.
    (void)prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
    gsgpu_ctx::register_capset();
    gsgpu_ctx::ContextConfig config;
    config.shader_cores = 1;
    config.warp_width = 8;
    config.vram_size = uint64_t{4} << 20;
    config.watchdog_budget = 20000;
    config.submit_time_budget_ns = 50'000'000;
    config.max_work_items_per_dispatch = 4096;
    config.limits.max_bos = 16;
    config.limits.max_bo_bytes = uint64_t{1} << 20;
    config.limits.max_pending_submits = 8;
    gsgpu_ctx::set_context_config(config);
    return new renderer::Renderer();
  }();
  return *r;
}

void blob(uint32_t res_id, const uint8_t* init, size_t init_size) {
  renderer::BlobCreateInfo info;
  info.res_id = res_id;
  info.ctx_id = kCtx;
  info.blob_mem = renderer::kBlobMemHost3d;
  info.size = kBlobBytes;
  host().create_blob(info);
  host().attach_resource(kCtx, res_id);
  void* map = nullptr;
  uint64_t size = 0;
  if (init_size && host().get_map(res_id, &map, &size) == 0)
    std::memcpy(map, init, std::min<size_t>(init_size, size));
}

// Response buffer, BO 1 over resource 2 bound RWX at the VA window's start, BO 2 in VRAM.
std::vector<uint8_t> setup_stream() {
  std::vector<uint8_t> s;
  SetResponseBufferReq rb{};
  rb.res_id = 1;
  rb.size = kBlobBytes;
  encode_set_response_buffer(s, 0, 0, rb);
  GetCapsReq caps{};
  encode_get_caps(s, 0, kFencePageSize, caps);
  BoCreateReq bo{};
  bo.bo_id = 1;
  bo.res_id = 2;
  bo.size = kBlobBytes;
  encode_bo_create(s, 0, 0, bo);
  bo.bo_id = 2;
  bo.res_id = 0;
  bo.size = 8192;
  encode_bo_create(s, 0, 0, bo);
  return s;
}

void bind_bo1(void* response_map) {
  GetCapsRsp caps;
  std::memcpy(&caps, static_cast<uint8_t*>(response_map) + kFencePageSize, sizeof caps);
  std::vector<uint8_t> s;
  VaBindReq bind{};
  bind.bo_id = 1;
  bind.perms = 7;
  bind.va = caps.caps.va_base;
  bind.size = kBlobBytes;
  encode_va_bind(s, 0, 0, bind);
  host().submit(kCtx, s.data(), s.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  renderer::Renderer& r = host();
  if (r.create_context(kCtx, kCapsetId, "fuzz") != 0) return 0;
  blob(1, nullptr, 0);
  blob(2, data, std::min<size_t>(size, 4096));
  std::vector<uint8_t> setup = setup_stream();
  r.submit(kCtx, setup.data(), setup.size());
  void* response_map = nullptr;
  uint64_t response_size = 0;
  r.get_map(1, &response_map, &response_size);
  bind_bo1(response_map);

  std::vector<uint8_t> stream = size > 0 && data[0] == 0xff ? std::vector<uint8_t>(data + 1, data + size)
                                                            : structured_stream(data, data + size);
  r.submit(kCtx, stream.data(), stream.size());
  r.create_fence(kCtx, 0, 1);
  r.poll();
  // Destroying the context waits for what the device still runs (bounded by the watchdog and the
  // dispatch size limit) and releases every blob.
  r.destroy_context(kCtx);
  r.poll();
  return 0;
}
