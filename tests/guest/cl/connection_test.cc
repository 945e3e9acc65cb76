// The host connection against a scripted transport: opening, batching, seqno and deferred-error
// handling, staging, GSVIRT_SYNC. No host runs: the fake answers every reply-bearing command.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "guest/cl/connection.h"
#include "guest/cl/objects.h"

namespace gsvirt::icd {
namespace {

struct SentCommand {
  uint32_t id;
  bool want_reply;
  std::vector<uint8_t> args;
};

// What the fake host saw and how it should answer; shared with the test after the connection
// took ownership of the transport.
struct FakeHost {
  std::vector<SentCommand> commands;
  std::vector<bool> submit_waits;
  std::map<uint32_t, int32_t> results;  // command id -> result (default CL_SUCCESS)
  int32_t fail_next_batched = 0;        // reported as the deferred error of the next reply
  uint32_t seqno = 0;
  int seqno_skew = 0;                   // corrupts the published seqno
  bool capset_matches = true;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> blobs;
  guest::Blob reply_blob;
  int32_t deferred_status = 0;
  uint32_t deferred_command = 0;
};

class FakeTransport : public guest::Transport {
 public:
  explicit FakeTransport(FakeHost* host) : host_(host) {}
  const char* name() const override { return "fake"; }

 protected:
  bool do_get_capset(uint32_t, std::vector<uint8_t>& out) override {
    proto::Capset caps{};
    caps.wire_version = proto::kWireVersion;
    std::memcpy(caps.xml_hash, proto::kXmlHash, sizeof caps.xml_hash);
    if (!host_->capset_matches) caps.xml_hash[0] ^= 1;
    out.resize(sizeof caps);
    std::memcpy(out.data(), &caps, sizeof caps);
    return true;
  }
  bool do_init_context(uint32_t, uint32_t) override { return true; }
  bool do_create_blob(uint64_t size, guest::Blob* out) override {
    host_->blobs.push_back(std::make_unique<std::vector<uint8_t>>(size));
    out->resource_id = uint32_t(host_->blobs.size());
    out->map = host_->blobs.back()->data();
    out->size = size;
    return true;
  }
  void do_destroy_blob(const guest::Blob&) override {}
  // Everything runs at once, so every point is reached when its submit returns.
  bool do_submit(uint32_t, const void* cmds, size_t size, uint64_t point) override {
    host_->submit_waits.push_back(waiting_);
    reached_ = std::max(reached_, point);
    WireReader r(cmds, size);
    while (r.remaining() >= 12) {
      SentCommand c;
      c.id = r.u32("id");
      uint32_t dwords = r.u32("size");
      c.want_reply = r.u32("flags") & proto::kFlagWantReply;
      const uint8_t* args = r.bytes((dwords - 3) * 4, "args");
      c.args.assign(args, args + (dwords - 3) * 4);
      host_->commands.push_back(c);
      if (c.id == uint32_t(proto::CommandId::vcSetReplyBuffer)) {
        uint32_t res;
        std::memcpy(&res, c.args.data(), 4);
        host_->reply_blob = {res, host_->blobs[res - 1]->data(), host_->blobs[res - 1]->size()};
      }
      if (c.want_reply) {
        answer(c);
      } else if (host_->fail_next_batched && !host_->deferred_status) {
        host_->deferred_status = host_->fail_next_batched;
        host_->deferred_command = c.id;
        host_->fail_next_batched = 0;
      }
    }
    return true;
  }
  uint64_t do_poll(uint32_t) override { return reached_; }
  guest::WaitResult do_wait(uint32_t, uint64_t point, uint64_t, std::unique_lock<std::mutex>&) override {
    return point <= reached_ ? guest::WaitResult::kReached : guest::WaitResult::kError;
  }
  bool do_submit_and_wait(const void* cmds, size_t size, uint64_t point,
                          std::unique_lock<std::mutex>&) override {
    waiting_ = true;
    bool ok = do_submit(0, cmds, size, point);
    waiting_ = false;
    return ok;
  }

 private:
  void answer(const SentCommand& c) {
    std::vector<uint8_t> payload;
    WireWriter w(payload);
    auto it = host_->results.find(c.id);
    w.i32(it == host_->results.end() ? 0 : it->second);
    if (c.id == uint32_t(proto::CommandId::vcHandshake)) {
      w.u32(proto::kWireVersion);
      w.u64(4);
      w.bytes("fake", 4);
    }
    proto::ReplyHeader h{};
    h.seqno = ++host_->seqno + host_->seqno_skew;
    h.deferred_status = host_->deferred_status;
    h.deferred_command = host_->deferred_command;
    h.payload_size = uint32_t(payload.size());
    host_->deferred_status = 0;
    host_->deferred_command = 0;
    auto* map = static_cast<uint8_t*>(host_->reply_blob.map);
    std::memcpy(map + sizeof h, payload.data(), payload.size());
    std::memcpy(map, &h, sizeof h);
  }
  FakeHost* host_;
  bool waiting_ = false;
  uint64_t reached_ = 0;
};

class ConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override { open({}); }
  void TearDown() override {
    IcdLock lock(icd_mutex());
    Connection::set_transport_factory_for_testing(nullptr);
    unsetenv("GSVIRT_SYNC");
  }
  void open(ConnectionLimits limits) {
    host_ = std::make_unique<FakeHost>();
    FakeHost* host = host_.get();
    IcdLock lock(icd_mutex());
    Connection::set_transport_factory_for_testing(
        [host](std::string*) { return std::make_unique<FakeTransport>(host); }, limits);
  }
  Connection* connection() {
    IcdLock lock(icd_mutex());
    return Connection::get();
  }
  static cl_int destroy(Connection* c, uint64_t id) {
    return c->send_batched("vcDestroyObject",
                           [id](WireWriter& w, bool want) { proto::encode_vcDestroyObject(w, want, id); });
  }
  static cl_int ping(Connection* c) {
    proto::Reply_vcPing reply;
    return c->call("vcPing", [](WireWriter& w, bool want) { proto::encode_vcPing(w, want); },
                   proto::decode_reply_vcPing, &reply);
  }
  std::unique_ptr<FakeHost> host_;
};

TEST_F(ConnectionTest, OpensWithReplyBufferAndHandshakeInOneSubmit) {
  Connection* c = connection();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->executor_name(), "fake");
  ASSERT_EQ(host_->commands.size(), 2u);
  EXPECT_EQ(host_->commands[0].id, uint32_t(proto::CommandId::vcSetReplyBuffer));
  EXPECT_FALSE(host_->commands[0].want_reply);
  EXPECT_EQ(host_->commands[1].id, uint32_t(proto::CommandId::vcHandshake));
  EXPECT_TRUE(host_->commands[1].want_reply);
  EXPECT_EQ(host_->submit_waits, std::vector<bool>{true});
  EXPECT_EQ(c->expected_seqno(), 1u);
}

TEST_F(ConnectionTest, IdsArePerConnectionMonotonicAndNonZero) {
  Connection* c = connection();
  uint64_t a = c->allocate_id(), b = c->allocate_id();
  EXPECT_NE(a, 0u);
  EXPECT_EQ(b, a + 1);
}

TEST_F(ConnectionTest, BatchedCommandsTravelWithTheNextWaitingOne) {
  Connection* c = connection();
  size_t before = host_->submit_waits.size();
  for (uint64_t id = 1; id <= 3; ++id) EXPECT_EQ(destroy(c, id), CL_SUCCESS);
  EXPECT_EQ(host_->submit_waits.size(), before);  // nothing sent yet
  EXPECT_GT(c->batched_bytes(), 0u);
  EXPECT_EQ(ping(c), CL_SUCCESS);
  EXPECT_EQ(host_->submit_waits.size(), before + 1);
  EXPECT_EQ(host_->commands.size(), 2u + 4u);
  EXPECT_EQ(host_->commands.back().id, uint32_t(proto::CommandId::vcPing));
  EXPECT_EQ(c->batched_bytes(), 0u);
}

TEST_F(ConnectionTest, AFullBatchIsSentWithoutWaiting) {
  ConnectionLimits limits;
  limits.batch_bytes = 100;  // a destroy is 20 bytes: the fifth fills the batch
  open(limits);
  Connection* c = connection();
  for (uint64_t id = 1; id <= 5; ++id) destroy(c, id);
  ASSERT_EQ(host_->submit_waits.size(), 2u);
  EXPECT_FALSE(host_->submit_waits[1]);
  EXPECT_EQ(c->batched_bytes(), 0u);
  // wait_idle must now wait even with an empty batch: the host may still be running it.
  EXPECT_EQ(c->wait_idle("test"), CL_SUCCESS);
  EXPECT_TRUE(host_->submit_waits.back());
}

TEST_F(ConnectionTest, DeferredErrorIsReportedOnceByTheNextReply) {
  Connection* c = connection();
  host_->fail_next_batched = CL_INVALID_KERNEL_ARGS;
  EXPECT_EQ(destroy(c, 9), CL_SUCCESS);
  EXPECT_EQ(c->take_deferred_error(), CL_SUCCESS);  // the host has not run it yet
  EXPECT_EQ(ping(c), CL_SUCCESS);
  EXPECT_EQ(c->take_deferred_error(), CL_INVALID_KERNEL_ARGS);
  EXPECT_EQ(c->take_deferred_error(), CL_SUCCESS);
}

TEST_F(ConnectionTest, CommandResultIsReturnedByCall) {
  Connection* c = connection();
  host_->results[uint32_t(proto::CommandId::vcPing)] = CL_INVALID_VALUE;
  EXPECT_EQ(ping(c), CL_INVALID_VALUE);
}

TEST_F(ConnectionTest, WrongSeqnoLosesTheConnection) {
  Connection* c = connection();
  host_->seqno_skew = 1;
  EXPECT_EQ(ping(c), CL_OUT_OF_RESOURCES);
  host_->seqno_skew = 0;
  size_t sent = host_->commands.size();
  EXPECT_EQ(ping(c), CL_OUT_OF_RESOURCES);  // fails fast, nothing more is sent
  EXPECT_EQ(host_->commands.size(), sent);
}

TEST_F(ConnectionTest, CapsetMismatchRefusesToConnect) {
  host_->capset_matches = false;
  EXPECT_EQ(connection(), nullptr);
  EXPECT_TRUE(host_->commands.empty());
}

TEST_F(ConnectionTest, LargeDataGoesThroughAReusedStagingBlob) {
  ConnectionLimits limits;
  limits.inline_bytes = 16;
  limits.staging_min_bytes = 1 << 20;
  open(limits);
  Connection* c = connection();
  std::vector<uint8_t> small(16, 1), large(4096, 2);
  proto::DataIn in;
  ASSERT_EQ(c->data_in(small.data(), small.size(), &in), CL_SUCCESS);
  EXPECT_EQ(in.mode, proto::kDataInline);
  size_t blobs = host_->blobs.size();
  ASSERT_EQ(c->data_in(large.data(), large.size(), &in), CL_SUCCESS);
  EXPECT_EQ(in.mode, proto::kDataResource);
  EXPECT_EQ(host_->blobs.size(), blobs + 1);
  const auto& staging = *host_->blobs.back();
  EXPECT_EQ(staging[in.offset], 2);
  proto::DataIn second;
  ASSERT_EQ(c->data_in(large.data(), large.size(), &second), CL_SUCCESS);
  EXPECT_EQ(second.resource_id, in.resource_id);
  EXPECT_GE(second.offset, in.offset + large.size());  // both ranges are live until a wait
  // A transfer larger than the blob replaces it with a bigger one (after a wait).
  std::vector<uint8_t> huge((1 << 20) + 1, 3);
  ASSERT_EQ(c->data_in(huge.data(), huge.size(), &in), CL_SUCCESS);
  EXPECT_EQ(host_->blobs.size(), blobs + 2);
  EXPECT_GE(host_->blobs.back()->size(), huge.size());
}

TEST_F(ConnectionTest, SyncModeWaitsForEveryCommand) {
  setenv("GSVIRT_SYNC", "1", 1);
  open({});
  Connection* c = connection();
  ASSERT_TRUE(c->sync_mode());
  host_->results[uint32_t(proto::CommandId::vcDestroyObject)] = CL_INVALID_VALUE;
  EXPECT_EQ(destroy(c, 5), CL_INVALID_VALUE);
  EXPECT_TRUE(host_->commands.back().want_reply);
}

}  // namespace
}  // namespace gsvirt::icd
