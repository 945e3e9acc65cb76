// VtestSession without a socket: the vtest v3 messages gsvirt serves, and how each bad one is
// refused.
#include "host/server/vtest_session.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "tests/host/renderer/echo_context.h"

namespace gsvirt::server {
namespace {

using namespace gsvirt::vtest;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { test::register_echo_capset(); }

  // Frames and handles one message the way the socket loop does.
  bool send(std::vector<uint32_t> words, std::vector<uint8_t> trailing = {},
            std::vector<int> fds = {}) {
    VtestHeader h{words.at(0), words.at(1)};
    uint64_t payload = 0;
    if (!session.payload_bytes(h, &payload)) return false;
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(words.data()) + 8;
    if (payload > (words.size() - 2) * 4) return false;
    std::span<const uint8_t> p(bytes, payload);
    uint64_t extra = 0;
    if (!session.trailing_bytes(h.command, p, &extra) || extra != trailing.size()) return false;
    return session.handle({h.command, p, trailing, fds});
  }
  std::vector<uint32_t> reply_words(size_t i = 0) {
    auto& b = session.replies().at(i).bytes;
    std::vector<uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    return w;
  }
  // CREATE_RENDERER and PROTOCOL_VERSION, replies dropped.
  void handshake(uint32_t name = 0x74736574) {
    ASSERT_TRUE(send({4, kCreateRenderer, name}));
    ASSERT_TRUE(send({1, kProtocolVersionCmd, kProtocolVersion}));
    session.clear_replies();
  }
  void start(uint32_t capset = test::kEchoCapsetId) {
    handshake();
    ASSERT_TRUE(send({1, kContextInit, capset}));
  }
  // Creates a blob and returns {res_id, host-side mapping through the fd}.
  std::pair<uint32_t, uint8_t*> blob(uint32_t size) {
    session.clear_replies();
    EXPECT_TRUE(send({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, size, 0, 0, 0}));
    auto& r = session.replies().at(0);
    EXPECT_EQ(r.fds.size(), 1u);
    void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fds.at(0), 0);
    uint32_t id = reply_words()[2];
    session.clear_replies();
    return {id, static_cast<uint8_t*>(map)};
  }
  uint64_t read_sync(uint32_t id) {
    session.clear_replies();
    EXPECT_TRUE(send({1, kSyncRead, id}));
    auto w = reply_words();
    session.clear_replies();
    return uint64_t(w[3]) << 32 | w[2];
  }
  // SUBMIT_CMD2 with one batch of `cmds` that sets `sync` to `value` (sync 0: none).
  bool submit(const std::vector<uint32_t>& cmds, uint32_t sync = 0, uint64_t value = 0,
              uint32_t flags = 0, uint32_t ring = 0) {
    uint32_t sync_count = sync ? 1 : 0;
    std::vector<uint32_t> m = {uint32_t(1 + 8 + cmds.size() + 3 * sync_count), kSubmitCmd2, 1,
                               flags, 9, uint32_t(cmds.size()), uint32_t(9 + cmds.size()),
                               sync_count, ring, 0, 0};
    m.insert(m.end(), cmds.begin(), cmds.end());
    if (sync) m.insert(m.end(), {sync, uint32_t(value), uint32_t(value >> 32)});
    return send(m);
  }

  VtestSession session;
};

TEST_F(SessionTest, HandshakeRepliesFollowTheProtocol) {
  ASSERT_TRUE(send({4, kCreateRenderer, 0x74736574}));
  ASSERT_TRUE(send({0, kPingProtocolVersion}));
  ASSERT_TRUE(send({1, kProtocolVersionCmd, 7}));
  ASSERT_TRUE(send({1, kGetParam, kParamMaxTimelineCount}));
  ASSERT_TRUE(send({1, kGetParam, 99}));
  EXPECT_EQ(reply_words(0), (std::vector<uint32_t>{0, kPingProtocolVersion}));
  EXPECT_EQ(reply_words(1), (std::vector<uint32_t>{1, kProtocolVersionCmd, 3}));
  EXPECT_EQ(reply_words(2), (std::vector<uint32_t>{2, kGetParam, 1, 64}));
  EXPECT_EQ(reply_words(3), (std::vector<uint32_t>{2, kGetParam, 0, 0}));
}

TEST_F(SessionTest, GetCapsetReportsRegisteredCapsetsOnly) {
  handshake(0);
  ASSERT_TRUE(send({2, kGetCapset, test::kEchoCapsetId, 0}));
  ASSERT_TRUE(send({2, kGetCapset, 29, 0}));
  ASSERT_TRUE(send({2, kGetCapset, test::kEchoCapsetId, 5}));
  EXPECT_EQ(reply_words(0), (std::vector<uint32_t>{3, kGetCapset, 1, test::kEchoCapsMagic, 1}));
  EXPECT_EQ(reply_words(1), (std::vector<uint32_t>{1, kGetCapset, 0}));
  EXPECT_EQ(reply_words(2), (std::vector<uint32_t>{1, kGetCapset, 0}));
}

TEST_F(SessionTest, SubmitRunsCommandsAndSetsSyncs) {
  start();
  auto [res, map] = blob(4096);
  ASSERT_NE(map, MAP_FAILED);
  ASSERT_TRUE(send({2, kSyncCreate, 5, 0}));
  uint32_t sync = reply_words()[2];
  session.clear_replies();
  EXPECT_EQ(read_sync(sync), 5u);
  std::vector<uint32_t> cmds;
  test::echo_set_reply(cmds, res, 64);
  test::echo_echo(cmds, 0x1234);
  ASSERT_TRUE(submit(cmds, sync, 0x100000007ull));
  EXPECT_EQ(read_sync(sync), 0x100000007ull);
  uint32_t slot[2];
  std::memcpy(slot, map + 64, 8);
  EXPECT_EQ(slot[1], 0x1234u);
  munmap(map, 4096);
}

TEST_F(SessionTest, SyncWaitFdIsSignalledWhenAHeldRingCompletes) {
  start();
  ASSERT_TRUE(send({2, kSyncCreate, 0, 0}));
  uint32_t sync = reply_words()[2];
  session.clear_replies();
  std::vector<uint32_t> hold;
  test::echo_hold(hold, 2);
  ASSERT_TRUE(submit(hold, sync, 1, kSubmitFlagRingIdx, 2));
  EXPECT_EQ(read_sync(sync), 0u) << "ring 2 is busy";
  ASSERT_TRUE(send({5, kSyncWait, 0, 0, sync, 1, 0}));
  ASSERT_EQ(session.replies().at(0).fds.size(), 1u);
  int fd = session.replies()[0].fds[0];
  session.replies()[0].fds.clear();
  session.clear_replies();
  pollfd p{fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  EXPECT_TRUE(session.wants_poll());
  std::vector<uint32_t> complete;
  test::echo_complete(complete, 2, 1);
  ASSERT_TRUE(submit(complete));
  session.poll();
  EXPECT_EQ(poll(&p, 1, 0), 1);
  EXPECT_EQ(read_sync(sync), 1u);
  EXPECT_FALSE(session.wants_poll());
  close(fd);
}

// Takes the fd of the newest SYNC_WAIT reply out of the session's queue.
int take_wait_fd(VtestSession& session) {
  auto& fds = session.replies().back().fds;
  EXPECT_EQ(fds.size(), 1u);
  int fd = fds.empty() ? -1 : fds[0];
  fds.clear();
  session.clear_replies();
  return fd;
}

// A context that reports its own retirements completes exactly the batches whose fences it
// reported, on that ring only, whatever sync values other rings use.
TEST_F(SessionTest, ARetiredFenceCompletesThatRingsBatchesOnly) {
  start();
  ASSERT_TRUE(send({2, kSyncCreate, 0, 0}));
  ASSERT_TRUE(send({2, kSyncCreate, 0, 0}));
  uint32_t ring2_sync = reply_words(0)[2], ring0_sync = reply_words(1)[2];
  session.clear_replies();
  std::vector<uint32_t> hold, nop;
  test::echo_hold(hold, 2);
  test::echo_nop(nop);
  ASSERT_TRUE(submit(hold, ring2_sync, 1, kSubmitFlagRingIdx, 2));
  ASSERT_TRUE(submit(nop, ring2_sync, 2, kSubmitFlagRingIdx, 2));
  ASSERT_TRUE(submit(nop, ring0_sync, 1, kSubmitFlagRingIdx, 0));
  ASSERT_TRUE(submit(nop, ring0_sync, 2, kSubmitFlagRingIdx, 0));
  EXPECT_EQ(read_sync(ring0_sync), 2u);
  EXPECT_EQ(read_sync(ring2_sync), 0u);
  // Ring 2 reports its first fence (the batch setting 1) done and stays busy with the second.
  std::vector<uint32_t> partly;
  test::echo_complete(partly, 2, 1);
  test::echo_hold(partly, 2);
  ASSERT_TRUE(submit(partly));
  session.poll();
  EXPECT_EQ(read_sync(ring2_sync), 1u);
  std::vector<uint32_t> rest;
  test::echo_complete(rest, 2, 1);
  ASSERT_TRUE(submit(rest));
  session.poll();
  EXPECT_EQ(read_sync(ring2_sync), 2u);
  EXPECT_EQ(session.pending_work(), 0u);
}

// A value only the guest can write (SYNC_WRITE): the server answers SYNC_WAIT at once with an
// fd and goes on serving the client, which then writes the value itself.
TEST_F(SessionTest, SyncWaitOnAGuestWrittenValueDoesNotBlockTheServer) {
  start();
  ASSERT_TRUE(send({2, kSyncCreate, 0, 0}));
  uint32_t sync = reply_words()[2];
  session.clear_replies();
  ASSERT_TRUE(send({5, kSyncWait, 0, 1000, sync, 9, 0}));
  int fd = take_wait_fd(session);
  pollfd p{fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  EXPECT_EQ(read_sync(sync), 0u) << "later messages are still served";
  EXPECT_FALSE(session.wants_timer()) << "no fence pending: nothing to poll on a timer";
  ASSERT_TRUE(send({3, kSyncWrite, sync, 9, 0}));
  EXPECT_EQ(poll(&p, 1, 0), 1);
  EXPECT_EQ(session.pending_wait_count(), 0u);
  close(fd);
}

// A client that stops waiting (its timeout ran out) closes the fd; the session forgets that wait
// instead of counting it against the limit, so timed-out waits never exhaust it.
TEST_F(SessionTest, AbandonedSyncWaitsAreDropped) {
  start();
  ASSERT_TRUE(send({2, kSyncCreate, 0, 0}));
  uint32_t sync = reply_words()[2];
  session.clear_replies();
  SessionLimits limits;
  for (uint32_t i = 0; i < limits.max_pending_waits * 2; i++) {
    ASSERT_TRUE(send({5, kSyncWait, 0, 1, sync, 1, 0})) << "wait " << i;
    close(take_wait_fd(session));
  }
  EXPECT_LE(session.pending_wait_count(), 1u);
  // Waits someone still listens to are kept, and count against the limit.
  std::vector<int> fds;
  for (uint32_t i = 0; i < limits.max_pending_waits; i++) {
    ASSERT_TRUE(send({5, kSyncWait, 0, 1, sync, 1, 0}));
    fds.push_back(take_wait_fd(session));
  }
  EXPECT_FALSE(send({5, kSyncWait, 0, 1, sync, 1, 0})) << "the limit still holds";
  for (int fd : fds) close(fd);
}

TEST_F(SessionTest, TransfersCopyInsideTheResourceOnly) {
  start();
  auto [res, map] = blob(4096);
  std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  ASSERT_TRUE(send({10, kTransferPut2, res, 0, 0, 0, 0, 0, 0, 0, 5, 100}, data));
  EXPECT_EQ(map[102], 3);
  ASSERT_TRUE(send({10, kTransferGet2, res, 0, 0, 0, 0, 0, 0, 0, 5, 100}));
  EXPECT_EQ(session.replies().at(0).bytes, data);
  session.clear_replies();
  uint64_t extra = 0;
  uint32_t past_end[10] = {res, 0, 0, 0, 0, 0, 0, 0, 8, 4092};
  EXPECT_FALSE(session.trailing_bytes(
      kTransferPut2, {reinterpret_cast<uint8_t*>(past_end), sizeof past_end}, &extra));
  EXPECT_FALSE(send({10, kTransferGet2, res, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff}));
  munmap(map, 4096);
}

TEST_F(SessionTest, HostileMessagesAreRefused) {
  EXPECT_FALSE(send({0, kPingProtocolVersion})) << "before CREATE_RENDERER";
}

// Until PROTOCOL_VERSION, only the handshake's own small messages are taken: a header that
// announces a large payload is refused before a byte of it is buffered.
TEST_F(SessionTest, Issue12LargeOrOtherMessagesBeforeTheHandshakeAreRefused) {
  uint64_t n = 0;
  EXPECT_FALSE(session.payload_bytes({0x1000000, kSubmitCmd2}, &n)) << "64 MiB before anything";
  ASSERT_TRUE(send({4, kCreateRenderer, 0}));
  EXPECT_FALSE(session.payload_bytes({0x1000000, kSubmitCmd2}, &n)) << "64 MiB after the name";
  EXPECT_FALSE(session.payload_bytes({1, kPingProtocolVersion}, &n)) << "a ping with a payload";
  EXPECT_FALSE(session.payload_bytes({2, kProtocolVersionCmd}, &n)) << "a long version message";
  EXPECT_FALSE(session.payload_bytes({1, kContextInit}, &n)) << "CONTEXT_INIT";
  EXPECT_FALSE(session.payload_bytes({1, kGetParam}, &n)) << "GET_PARAM";
  uint32_t capset = test::kEchoCapsetId;
  EXPECT_FALSE(session.handle({kContextInit, {reinterpret_cast<uint8_t*>(&capset), 4}, {}, {}}))
      << "handled directly, still refused";
  ASSERT_TRUE(send({0, kPingProtocolVersion}));
  ASSERT_TRUE(send({1, kProtocolVersionCmd, kProtocolVersion}));
  EXPECT_TRUE(session.handshake_done());
  EXPECT_TRUE(session.payload_bytes({0x1000000, kSubmitCmd2}, &n)) << "allowed after the handshake";
}

TEST_F(SessionTest, HostileMessagesAfterHandshakeAreRefused) {
  start();
  auto [res, map] = blob(4096);
  munmap(map, 4096);
  int fd = dup(0);
  EXPECT_FALSE(send({0, kPingProtocolVersion}, {}, {fd})) << "fd where none is expected";
  close(fd);
  EXPECT_FALSE(send({0, 99})) << "unknown command";
  EXPECT_FALSE(send({4, kCreateRenderer, 0})) << "second CREATE_RENDERER";
  EXPECT_FALSE(send({1, kContextInit, test::kEchoCapsetId})) << "second CONTEXT_INIT";
  EXPECT_FALSE(send({2, kProtocolVersionCmd, 3, 3})) << "wrong length";
  EXPECT_FALSE(send({1, kResourceUnref, res + 1})) << "resource not owned";
  EXPECT_FALSE(send({6, kResourceCreateBlob, kBlobTypeGuest, kBlobFlagMappable, 4096, 0, 0, 0}));
  EXPECT_FALSE(send({6, kResourceCreateBlob, kBlobTypeHost3d, 0, 4096, 0, 0, 0})) << "unmappable";
  EXPECT_FALSE(send({1, kSyncRead, 77})) << "unknown sync";
  EXPECT_FALSE(send({3, kSyncWait, 0, 0, 1})) << "sync wait of 2 + 1 dwords";
  EXPECT_FALSE(send({2, kSyncWait, 0, 0})) << "sync wait of no syncs";
  uint64_t n = 0;
  EXPECT_FALSE(session.payload_bytes({0xffffffff, kSubmitCmd2}, &n)) << "huge length";
  EXPECT_FALSE(session.payload_bytes({1000, kCreateRenderer}, &n)) << "long name";
  // SUBMIT_CMD2 batches that point past the message, overflow, or ask for fence fds.
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, 0, 9, 100, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, 0, 0xffffffff, 2, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, 0, 9, 0, 9, 0x80000000, 0, 0, 0}));
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, kSubmitFlagInFenceFd, 9, 0, 9, 0, 0, 0, 0}));
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, kSubmitFlagRingIdx, 9, 0, 9, 0, 64, 0, 0}));
  EXPECT_FALSE(send({1, kSubmitCmd2, 0xffffffff}));
  EXPECT_FALSE(send({9, kSubmitCmd2, 1, 0, 9, 0, 9, 0, 0, 1, 0})) << "syncobjs";
  std::vector<uint32_t> poison;
  test::echo_poison(poison);
  EXPECT_FALSE(submit(poison)) << "stream rejected by the context";
}

// A blob past a quota is a request the host declines, not a broken message: res_id 0, no fd, and
// the session goes on (an application's one oversized transfer must not cost it its connection).
TEST_F(SessionTest, BlobsPastTheQuotaAreAnsweredWithResourceZeroAndTheSessionGoesOn) {
  start();
  EXPECT_TRUE(send({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, 0, 0x40000000, 0, 0}))
      << "a 2^62-byte blob";
  ASSERT_EQ(session.replies().size(), 1u);
  EXPECT_TRUE(session.replies().at(0).fds.empty());
  EXPECT_EQ(reply_words(), (std::vector<uint32_t>{1, kResourceCreateBlob, 0}));
  auto [res, map] = blob(4096);
  EXPECT_NE(res, 0u) << "the next blob within the quota is created";
  ASSERT_NE(map, MAP_FAILED);
  munmap(map, 4096);
}

TEST_F(SessionTest, ContextInitWithUnknownCapsetIsRefused) {
  handshake(0);
  EXPECT_FALSE(send({1, kContextInit, 29}));
  EXPECT_FALSE(send({6, kResourceCreateBlob, kBlobTypeHost3d, kBlobFlagMappable, 4096, 0, 0, 0}))
      << "no context";
}

TEST_F(SessionTest, SessionEndFreesItsResources) {
  int before = test::live_echo_contexts();
  {
    VtestSession s;
    VtestMessage create{kCreateRenderer, {}, {}, {}};
    ASSERT_TRUE(s.handle(create));
    uint32_t version = kProtocolVersion;
    ASSERT_TRUE(s.handle({kProtocolVersionCmd, {reinterpret_cast<uint8_t*>(&version), 4}, {}, {}}));
    uint32_t capset = test::kEchoCapsetId;
    ASSERT_TRUE(s.handle({kContextInit, {reinterpret_cast<uint8_t*>(&capset), 4}, {}, {}}));
    EXPECT_EQ(test::live_echo_contexts(), before + 1);
  }
  EXPECT_EQ(test::live_echo_contexts(), before);
}

}  // namespace
}  // namespace gsvirt::server
