// libFuzzer target: a byte stream as a vtest client would send it, framed and handled exactly as
// gsvirt-server's socket loop does (payload_bytes -> trailing_bytes -> handle), with the echo test
// capset behind CONTEXT_INIT. A stream that ends mid-message is a client that disconnected.
//
// The first input byte picks a prologue: odd = the session starts after the handshake
// (CREATE_RENDERER, PROTOCOL_VERSION) and CONTEXT_INIT(echo), so the fuzzer spends its time on resources, syncs and submits.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "common/log.h"
#include "host/server/vtest_session.h"
#include "tests/host/renderer/echo_context.h"

namespace {

using namespace gsvirt;

server::SessionLimits fuzz_limits() {
  server::SessionLimits limits;
  // Small quotas keep each run fast; the checks are the same code paths.
  limits.renderer.max_blob_size = 1 << 20;
  limits.renderer.max_blob_bytes_per_context = 4 << 20;
  limits.renderer.max_resources_per_context = 64;
  limits.max_syncs = 64;
  return limits;
}

void start_session(server::VtestSession& session) {
  session.handle({vtest::kCreateRenderer, {}, {}, {}});
  uint32_t version = vtest::kProtocolVersion;
  session.handle({vtest::kProtocolVersionCmd, {reinterpret_cast<uint8_t*>(&version), 4}, {}, {}});
  uint32_t capset = test::kEchoCapsetId;
  session.handle({vtest::kContextInit, {reinterpret_cast<uint8_t*>(&capset), 4}, {}, {}});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool once = [] {
    test::register_echo_capset();
    set_log_sink([](const char*, void*) {}, nullptr);  // refusals are expected, keep output clean
    return true;
  }();
  (void)once;
  if (size == 0) return 0;
  server::VtestSession session(fuzz_limits());
  if (data[0] & 1) start_session(session);
  std::span<const uint8_t> in(data + 1, size - 1);
  while (in.size() >= vtest::kHeaderBytes) {
    server::VtestHeader header;
    std::memcpy(&header.length, in.data(), 4);
    std::memcpy(&header.command, in.data() + 4, 4);
    in = in.subspan(vtest::kHeaderBytes);
    uint64_t payload_size = 0, trailing_size = 0;
    if (!session.payload_bytes(header, &payload_size) || payload_size > in.size()) break;
    auto payload = in.first(payload_size);
    in = in.subspan(payload_size);
    if (!session.trailing_bytes(header.command, payload, &trailing_size) ||
        trailing_size > in.size())
      break;
    auto trailing = in.first(trailing_size);
    in = in.subspan(trailing_size);
    bool ok = session.handle({header.command, payload, trailing, {}});
    session.poll();
    session.clear_replies();  // closes blob and wait fds handed to the "client"
    if (!ok) break;
  }
  return 0;
}
