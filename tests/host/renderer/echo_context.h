// "echo": a small context type for tests and benches of the renderer core, the vtest server and
// the transports. It is registered under a test-only capset id, never by gsvirt-server itself.
//
// A command is {u32 op, u32 size_in_dwords (header included), args...}; several per submit.
//   SET_REPLY(res_id, offset)      replies go to an attached host blob at offset (8 bytes)
//   ECHO(value)                    writes {u32 seqno, u32 value} into the reply slot
//   NOP()                          does nothing (batched no-reply traffic)
//   SUM(res_id, offset, size)      writes {seqno, byte sum of that range} into the reply slot
//   HOLD(ring)                     fences created on the ring from now on are kept, not retired
//   COMPLETE(ring, count)          reports the oldest `count` kept fences of the ring (their ids,
//                                  through the retire callback) and stops holding the ring
//   BUSY_FOR(ring, polls)          fences created on the ring are kept until the renderer has
//                                  polled the context `polls` more times, then all are reported
//                                  (an asynchronous context that finishes only when asked)
// Fences on a ring neither held nor busy retire at once (a synchronous context).
//   POISON()                       sets the sticky fatal state
//   BLOCK()                        never returns: the context's thread waits forever, as in a
//                                  driver wait that only the guest could complete
//   OPEN(length, path bytes)       writes {seqno, 0 or the errno} of opening the path read-only:
//                                  what a compromised context could reach (tests of the sandbox)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gsvirt::test {

constexpr uint32_t kEchoCapsetId = 30;
constexpr uint32_t kEchoCapsMagic = 0x4f484345;  // "ECHO"

enum EchoOp : uint32_t {
  kEchoSetReply = 1,
  kEchoEcho = 2,
  kEchoNop = 3,
  kEchoSum = 4,
  kEchoHold = 5,
  kEchoComplete = 6,
  kEchoPoison = 7,
  kEchoBusyFor = 8,
  kEchoBlock = 9,
  kEchoOpen = 10,
};

// Registers the echo capset once per process; safe to call repeatedly.
void register_echo_capset();
// BLOCK is refused (a failed command) unless a test turns it on, so the vtest fuzzer, which
// drives the echo context with arbitrary commands, never finds a wait that is meant to be endless.
// Set it before the server forks.
void set_echo_block_enabled(bool enabled);
// OPEN is refused the same way unless turned on (only the sandbox tests' worker does).
void set_echo_open_enabled(bool enabled);

// Live echo contexts and resources they hold, to prove that teardown frees everything.
int live_echo_contexts();
int echo_attached_resources();

// Command builders.
void echo_set_reply(std::vector<uint32_t>& cmds, uint32_t res_id, uint32_t offset);
void echo_echo(std::vector<uint32_t>& cmds, uint32_t value);
void echo_nop(std::vector<uint32_t>& cmds);
void echo_sum(std::vector<uint32_t>& cmds, uint32_t res_id, uint32_t offset, uint32_t size);
void echo_hold(std::vector<uint32_t>& cmds, uint32_t ring);
void echo_complete(std::vector<uint32_t>& cmds, uint32_t ring, uint32_t count);
void echo_poison(std::vector<uint32_t>& cmds);
void echo_busy_for(std::vector<uint32_t>& cmds, uint32_t ring, uint32_t polls);
void echo_open(std::vector<uint32_t>& cmds, const std::string& path);
void echo_block(std::vector<uint32_t>& cmds);

}  // namespace gsvirt::test
