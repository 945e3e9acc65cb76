#include "tests/host/renderer/echo_context.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "common/checked_math.h"
#include "common/wire.h"
#include "host/renderer/context.h"

namespace gsvirt::test {
namespace {

std::atomic<bool> g_block_enabled{false};
std::atomic<bool> g_open_enabled{false};

using renderer::Resource;

std::atomic<int> g_live_contexts{0};
std::atomic<int> g_attached{0};

class EchoContext final : public renderer::Context {
 public:
  explicit EchoContext(const renderer::ContextCreateInfo& info) : info_(info) { g_live_contexts++; }
  ~EchoContext() override {
    g_attached -= int(resources_.size());
    g_live_contexts--;
  }

  int submit_cmd(const void* data, size_t size) override {
    if (fatal_) return -EIO;
    WireReader in(data, size);
    while (in.ok() && in.remaining() > 0) {
      const uint8_t* start = in.position();
      uint32_t op = in.u32("op");
      uint32_t dwords = in.u32("size_in_dwords");
      if (!in.ok() || dwords < 2 || uint64_t(dwords) * 4 > size_t(in.remaining()) + 8) {
        fatal_ = true;
        return -EINVAL;
      }
      WireReader args(start + 8, size_t(dwords - 2) * 4);
      in.skip(uint64_t(dwords - 2) * 4, "args");
      if (!execute(op, args)) {
        fatal_ = true;
        return -EINVAL;
      }
    }
    return 0;
  }
  bool fatal() const override { return fatal_; }

  void attach_resource(std::shared_ptr<Resource> resource) override {
    if (resources_.emplace(resource->id, resource).second) g_attached++;
  }
  void detach_resource(uint32_t resource_id) override {
    if (resources_.erase(resource_id)) g_attached--;
    if (reply_res_ == resource_id) reply_res_ = 0;
  }
  bool submit_fence(uint32_t ring_idx, uint64_t fence_id) override {
    auto busy = busy_polls_.find(ring_idx);
    bool is_busy = busy != busy_polls_.end() && busy->second > 0;
    if (!held_rings_.count(ring_idx) && !is_busy) return true;
    kept_[ring_idx].push_back(fence_id);
    return false;
  }
  void retire_fences() override {
    for (auto& [ring, polls] : busy_polls_) {
      if (kept_[ring].empty() || held_rings_.count(ring)) continue;
      if (polls > 0 && --polls > 0) continue;
      report(ring, kept_[ring].size());
    }
  }

 private:
  bool execute(uint32_t op, WireReader& args) {
    switch (op) {
      case kEchoSetReply: {
        uint32_t res_id = args.u32("res_id"), offset = args.u32("offset");
        Resource* r = find(res_id);
        if (!args.ok() || !r || !r->host_map || !range_within(offset, 8, r->size)) return false;
        reply_res_ = res_id;
        reply_offset_ = offset;
        return true;
      }
      case kEchoEcho:
        return reply(args.u32("value")) && args.ok();
      case kEchoNop:
        return true;
      case kEchoSum: {
        uint32_t res_id = args.u32("res_id"), offset = args.u32("offset"), n = args.u32("size");
        Resource* r = find(res_id);
        if (!args.ok() || !r || !r->host_map || !range_within(offset, n, r->size)) return false;
        uint32_t sum = 0;
        for (uint32_t i = 0; i < n; i++) sum += r->host_map[offset + i];
        return reply(sum);
      }
      case kEchoHold:
        held_rings_.insert(args.u32("ring"));
        return args.ok();
      case kEchoComplete: {
        uint32_t ring = args.u32("ring"), count = args.u32("count");
        if (!args.ok()) return false;
        held_rings_.erase(ring);
        report(ring, count);
        return true;
      }
      case kEchoBusyFor: {
        uint32_t ring = args.u32("ring"), polls = args.u32("polls");
        if (!args.ok()) return false;
        busy_polls_[ring] = polls;
        return true;
      }
      case kEchoBlock:
        if (!g_block_enabled.load()) return false;
        // A host wait that nothing on the host ever completes.
        for (;;) poll(nullptr, 0, -1);
      case kEchoOpen: {
        uint32_t length = args.u32("length");
        const uint8_t* bytes = args.bytes(length, "path");
        if (!g_open_enabled.load() || !args.ok()) return false;
        std::string path(reinterpret_cast<const char*>(bytes), length);
        int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        int error = fd < 0 ? errno : 0;
        if (fd >= 0) close(fd);
        return reply(uint32_t(error));
      }
      default:  // includes kEchoPoison
        return false;
    }
  }

  // Reports the oldest `count` kept fences of `ring`, in creation order.
  void report(uint32_t ring, size_t count) {
    auto& kept = kept_[ring];
    for (; count > 0 && !kept.empty(); --count) {
      uint64_t fence_id = kept.front();
      kept.pop_front();
      if (info_.retire_fence) info_.retire_fence(info_.retire_cookie, info_.ctx_id, ring, fence_id);
    }
  }

  Resource* find(uint32_t res_id) {
    auto it = resources_.find(res_id);
    return it == resources_.end() ? nullptr : it->second.get();
  }

  bool reply(uint32_t value) {
    Resource* r = find(reply_res_);
    if (!r) return false;
    uint32_t slot[2] = {++seqno_, value};
    std::memcpy(r->host_map + reply_offset_, slot, sizeof slot);
    return true;
  }

  renderer::ContextCreateInfo info_;
  std::map<uint32_t, std::shared_ptr<Resource>> resources_;
  std::set<uint32_t> held_rings_;
  std::map<uint32_t, uint32_t> busy_polls_;
  std::map<uint32_t, std::deque<uint64_t>> kept_;  // fence ids not yet reported, per ring
  uint32_t reply_res_ = 0, reply_offset_ = 0, seqno_ = 0;
  bool fatal_ = false;
};

void fill_echo_caps(uint32_t version, std::vector<uint8_t>& out) {
  uint32_t caps[2] = {kEchoCapsMagic, version};
  out.assign(reinterpret_cast<uint8_t*>(caps), reinterpret_cast<uint8_t*>(caps) + sizeof caps);
}

std::unique_ptr<renderer::Context> create_echo(const renderer::ContextCreateInfo& info) {
  return std::make_unique<EchoContext>(info);
}

void push(std::vector<uint32_t>& cmds, std::initializer_list<uint32_t> words) {
  cmds.insert(cmds.end(), words);
}

}  // namespace

void register_echo_capset() {
  renderer::CapsetInfo info;
  info.capset_id = kEchoCapsetId;
  info.max_version = 1;
  info.fill_caps = fill_echo_caps;
  info.create = create_echo;
  (void)renderer::register_capset(info);
}

void set_echo_block_enabled(bool enabled) { g_block_enabled.store(enabled); }
void set_echo_open_enabled(bool enabled) { g_open_enabled.store(enabled); }

int live_echo_contexts() { return g_live_contexts.load(); }
int echo_attached_resources() { return g_attached.load(); }

void echo_set_reply(std::vector<uint32_t>& c, uint32_t res, uint32_t off) {
  push(c, {kEchoSetReply, 4, res, off});
}
void echo_echo(std::vector<uint32_t>& c, uint32_t v) { push(c, {kEchoEcho, 3, v}); }
void echo_nop(std::vector<uint32_t>& c) { push(c, {kEchoNop, 2}); }
void echo_sum(std::vector<uint32_t>& c, uint32_t res, uint32_t off, uint32_t size) {
  push(c, {kEchoSum, 5, res, off, size});
}
void echo_hold(std::vector<uint32_t>& c, uint32_t ring) { push(c, {kEchoHold, 3, ring}); }
void echo_complete(std::vector<uint32_t>& c, uint32_t ring, uint32_t count) {
  push(c, {kEchoComplete, 4, ring, count});
}
void echo_poison(std::vector<uint32_t>& c) { push(c, {kEchoPoison, 2}); }
void echo_block(std::vector<uint32_t>& c) { push(c, {kEchoBlock, 2}); }

void echo_busy_for(std::vector<uint32_t>& c, uint32_t ring, uint32_t polls) {
  push(c, {kEchoBusyFor, 4, ring, polls});
}
void echo_open(std::vector<uint32_t>& c, const std::string& path) {
  uint32_t words = uint32_t((path.size() + 3) / 4);
  push(c, {kEchoOpen, 3 + words, uint32_t(path.size())});
  size_t at = c.size();
  c.resize(at + words, 0);
  std::memcpy(c.data() + at, path.data(), path.size());
}

}  // namespace gsvirt::test
