// Transport costs, each beside its reference in the same run:
//   round trip of a small submit with wait   inproc (target <= 2 us), vtest (target <= 20 us)
//   no-reply commands, batched guest-side     vtest, calls/s (target >= 2 M/s)
//   64 MiB through a blob vs memcpy of 64 MiB (target >= 50%)
// The host side is the echo test capset; vtest runs gsvirt-server's loop in a child process.
#include <benchmark/benchmark.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "guest/transport/transport.h"
#include "host/server/vtest_session.h"
#include "tests/host/renderer/echo_context.h"
#include "tests/host/server/test_server.h"

namespace {

using namespace gsvirt;
using guest::Blob;
using guest::Transport;

constexpr uint64_t k64MiB = 64ull << 20;

// One connection with an echo context and a reply blob, shared by the benchmarks of a transport.
struct Connection {
  std::unique_ptr<test::TestServer> server;
  std::unique_ptr<Transport> transport;
  Blob reply{};

  explicit Connection(bool vtest) {
    test::register_echo_capset();
    std::string error;
    if (vtest) {
      server = std::make_unique<test::TestServer>(true);
      transport = guest::create_vtest_transport(server->socket_path(), &error);
    } else {
      transport = guest::create_inproc_transport(&error);
    }
    if (!transport || !transport->init_context(test::kEchoCapsetId) ||
        !transport->create_blob(4096, &reply))
      std::abort();
    std::vector<uint32_t> cmds;
    test::echo_set_reply(cmds, reply.resource_id, 0);
    transport->submit(cmds.data(), cmds.size() * 4, true);
  }
  ~Connection() { transport->destroy_blob(reply); }
};

Connection& connection(bool vtest) {
  static Connection inproc(false);
  static Connection over_vtest(true);
  return vtest ? over_vtest : inproc;
}

void BM_RoundTrip(benchmark::State& state, bool vtest) {
  Connection& c = connection(vtest);
  std::vector<uint32_t> cmds;
  test::echo_echo(cmds, 0);
  uint32_t value = 0;
  for (auto _ : state) {
    cmds[2] = ++value;
    if (!c.transport->submit(cmds.data(), cmds.size() * 4, true)) state.SkipWithError("submit");
  }
  uint32_t slot[2];
  std::memcpy(slot, c.reply.map, sizeof slot);
  if (slot[1] != value) state.SkipWithError("reply does not match the last echo");
}
// Reference for the vtest round trip: the floor the OS sets, 16 bytes to a child process over a
// unix socket pair and 16 bytes back, with nothing done on either side.
void BM_SocketPingPong(benchmark::State& state) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
  pid_t child = fork();
  if (child == 0) {
    close(sv[0]);
    char buf[16];
    while (read(sv[1], buf, sizeof buf) == ssize_t(sizeof buf))
      if (write(sv[1], buf, sizeof buf) != ssize_t(sizeof buf)) break;
    _exit(0);
  }
  close(sv[1]);
  char buf[16] = {};
  for (auto _ : state) {
    if (write(sv[0], buf, sizeof buf) != ssize_t(sizeof buf) ||
        read(sv[0], buf, sizeof buf) != ssize_t(sizeof buf))
      state.SkipWithError("ping-pong");
  }
  close(sv[0]);
  waitpid(child, nullptr, 0);
}
BENCHMARK(BM_SocketPingPong)->UseRealTime();

// gsvirt-server's own share of a vtest round trip: the SUBMIT_CMD2 (echo + sync point) and the
// SYNC_READ behind it, handled by a VtestSession in this process, no socket.
void BM_ServerSideOfRoundTrip(benchmark::State& state) {
  using namespace gsvirt::vtest;
  test::register_echo_capset();
  server::VtestSession session;
  uint32_t capset = test::kEchoCapsetId;
  session.handle({kCreateRenderer, {}, {}, {}});
  uint32_t version = kProtocolVersion;
  session.handle({kProtocolVersionCmd, {reinterpret_cast<uint8_t*>(&version), 4}, {}, {}});
  session.handle({kContextInit, {reinterpret_cast<uint8_t*>(&capset), 4}, {}, {}});
  uint32_t create_sync[2] = {0, 0};
  session.handle({kSyncCreate, {reinterpret_cast<uint8_t*>(create_sync), 8}, {}, {}});
  session.clear_replies();
  uint64_t value = 0;
  // count, batch{flags, cmd_offset, cmd_size, sync_offset, sync_count, ring, 0, 0}, nop, sync
  uint32_t submit[1 + 8 + 2 + 3] = {1, 0, 9, 2, 11, 1, 0, 0, 0, test::kEchoNop, 2, 1, 0, 0};
  uint32_t read_sync = 1;
  for (auto _ : state) {
    submit[12] = uint32_t(++value);
    bool ok = session.handle({kSubmitCmd2, {reinterpret_cast<uint8_t*>(submit), sizeof submit}, {}, {}}) &&
              session.handle({kSyncRead, {reinterpret_cast<uint8_t*>(&read_sync), 4}, {}, {}});
    if (!ok || session.replies().size() != 1) state.SkipWithError("session refused the messages");
    session.clear_replies();
  }
}
BENCHMARK(BM_ServerSideOfRoundTrip);
BENCHMARK_CAPTURE(BM_RoundTrip, inproc, false)->UseRealTime();
BENCHMARK_CAPTURE(BM_RoundTrip, vtest, true)->UseRealTime();

// Commands queued guest-side and sent `batch` at a time with no reply; one wait at the end.
void BM_NoReplyCalls(benchmark::State& state, bool vtest) {
  Connection& c = connection(vtest);
  const size_t batch = size_t(state.range(0));
  std::vector<uint32_t> cmds;
  cmds.reserve(batch * 2);
  for (auto _ : state) {
    test::echo_nop(cmds);
    if (cmds.size() == batch * 2) {
      c.transport->submit(cmds.data(), cmds.size() * 4, false);
      cmds.clear();
    }
  }
  test::echo_nop(cmds);
  c.transport->submit(cmds.data(), cmds.size() * 4, true);
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK_CAPTURE(BM_NoReplyCalls, vtest, true)->Arg(1)->Arg(64)->Arg(1024)->UseRealTime();
BENCHMARK_CAPTURE(BM_NoReplyCalls, inproc, false)->Arg(1)->Arg(1024)->UseRealTime();

// Reference: plain memcpy of 64 MiB between two buffers of this process.
void BM_Memcpy64MiB(benchmark::State& state) {
  std::vector<uint8_t> src(k64MiB, 1), dst(k64MiB, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), k64MiB);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * k64MiB));
}
BENCHMARK(BM_Memcpy64MiB)->Unit(benchmark::kMillisecond)->UseRealTime();

// 64 MiB written into a blob and handed to the host with a waited submit; the host checksums a
// page at each end to prove it sees the data in place (the blob is shared memory, no second copy).
void BM_Blob64MiB(benchmark::State& state, bool vtest) {
  Connection& c = connection(vtest);
  Blob blob;
  if (!c.transport->create_blob(k64MiB, &blob)) {
    state.SkipWithError("create_blob");
    return;
  }
  std::vector<uint8_t> src(k64MiB, 1);
  std::vector<uint32_t> cmds;
  test::echo_sum(cmds, blob.resource_id, 0, 4096);
  test::echo_sum(cmds, blob.resource_id, uint32_t(k64MiB - 4096), 4096);
  for (auto _ : state) {
    std::memcpy(blob.map, src.data(), k64MiB);
    c.transport->submit(cmds.data(), cmds.size() * 4, true);
  }
  uint32_t slot[2];
  std::memcpy(slot, c.reply.map, sizeof slot);
  if (slot[1] != 4096) state.SkipWithError("host did not see the data");
  state.SetBytesProcessed(int64_t(state.iterations() * k64MiB));
  c.transport->destroy_blob(blob);
}
BENCHMARK_CAPTURE(BM_Blob64MiB, inproc, false)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Blob64MiB, vtest, true)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
