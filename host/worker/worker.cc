#include "host/worker/worker.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/log.h"
#include "host/renderer/capset_registry.h"
#include "host/renderer/context.h"
#include "host/renderer/isolation.h"
#include "host/renderer/worker_channel.h"
#include "host/sandbox/sandbox.h"

namespace gsvirt::worker {
namespace {

namespace proto = renderer::worker;
using renderer::Resource;

struct Arguments {
  sandbox::SandboxOptions sandbox;
  bool ok = true;
};

Arguments parse_arguments(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    auto number = [&](uint64_t* out) {
      char* end = nullptr;
      if (i + 1 >= argc) return false;
      *out = std::strtoull(argv[++i], &end, 10);
      return *end == '\0';
    };
    uint64_t mib = 0;
    if (arg == "--no-sandbox") a.sandbox.enabled = false;
    else if (arg == "--cpu-seconds") a.ok = a.ok && number(&a.sandbox.cpu_seconds);
    else if (arg == "--memory-mib" && number(&mib)) a.sandbox.memory_bytes = mib ? mib << 20 : sandbox::kMemoryOfTheHost;
    else a.ok = false;
  }
  return a;
}

class Worker {
 public:
  explicit Worker(int fd) : channel_(fd) {}
  int serve();

 private:
  static void on_retired(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id);
  void reply(uint32_t op, const void* body, size_t size);
  // Each handler checks the message's size and fields; false ends the worker (the proxy sent
  // something it never sends).
  bool create(const proto::Message& m);
  bool attach(proto::Message& m);
  bool handle(proto::Message& m);
  template <typename Body>
  bool body_of(const proto::Message& m, Body* body) {
    if (m.body.size() != sizeof *body || !m.fds.empty()) return false;
    std::memcpy(body, m.body.data(), sizeof *body);
    return true;
  }

  proto::Channel channel_;
  std::mutex send_mutex_;  // replies (this thread) and RETIRED (the context's threads)
  std::unique_ptr<renderer::Context> context_;
  std::map<uint32_t, std::shared_ptr<Resource>> resources_;
};

void Worker::reply(uint32_t op, const void* body, size_t size) {
  std::lock_guard<std::mutex> lock(send_mutex_);
  if (channel_.send(op, body, size, std::nullopt) != proto::IoStatus::kOk) _exit(0);  // proxy gone
}

void Worker::on_retired(void* cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id) {
  (void)ctx_id;
  proto::RetiredBody body{ring_idx, 0, fence_id};
  static_cast<Worker*>(cookie)->reply(proto::kRetired, &body, sizeof body);
}

bool Worker::create(const proto::Message& m) {
  proto::CreateBody body;
  if (m.op != proto::kCreate || !body_of(m, &body)) return false;
  body.name[sizeof body.name - 1] = '\0';
  proto::CreatedBody created{0, 0};
  auto capset = renderer::find_capset(body.capset_id);
  renderer::ContextCreateInfo info;
  info.ctx_id = body.ctx_id;
  info.capset_id = body.capset_id;
  info.debug_name = body.name;
  info.retire_fence = &Worker::on_retired;
  info.retire_cookie = this;
  if (capset) context_ = capset->create(info);
  if (!context_) {
    log_error("context worker: capset %u: %s", body.capset_id, capset ? "the context type created no context" : "not registered");
    created.result = capset ? -ENOMEM : -EINVAL;
  }
  reply(proto::kCreated, &created, sizeof created);
  return context_ != nullptr;
}

void unmap_resource(Resource* r) {
  if (r->host_map) munmap(r->host_map, r->size);
  if (r->fd >= 0) close(r->fd);
  delete r;
}

// The blob's memfd, mapped here as the renderer's process maps it.
bool Worker::attach(proto::Message& m) {
  proto::AttachBody body;
  if (m.body.size() != sizeof body || m.fds.size() != 1) return false;
  std::memcpy(&body, m.body.data(), sizeof body);
  int fd = m.take_fd();
  struct stat st{};
  if (body.reserved != 0 || body.size == 0 || body.size > SIZE_MAX || resources_.count(body.res_id) ||
      fstat(fd, &st) != 0 || uint64_t(st.st_size) < body.size) {
    close(fd);
    return false;
  }
  void* map = mmap(nullptr, size_t(body.size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    log_error("context worker: resource %u: mmap of %zu bytes failed (%s); the context cannot use it",
              body.res_id, size_t(body.size), std::strerror(errno));
    close(fd);
    return true;
  }
  std::shared_ptr<Resource> r(new Resource, unmap_resource);
  r->id = body.res_id;
  r->size = body.size;
  r->host_map = static_cast<uint8_t*>(map);
  r->fd = fd;
  resources_[body.res_id] = r;
  context_->attach_resource(std::move(r));
  return true;
}

bool Worker::handle(proto::Message& m) {
  switch (m.op) {
    case proto::kSubmit: {
      if (!m.fds.empty()) return false;
      int r = context_->submit_cmd(m.body.data(), m.body.size());
      proto::SubmittedBody done{r, context_->fatal() ? 1u : 0u};
      reply(proto::kSubmitted, &done, sizeof done);
      return true;
    }
    case proto::kAttach:
      return attach(m);
    case proto::kDetach: {
      proto::DetachBody body;
      if (!body_of(m, &body) || body.reserved != 0) return false;
      if (resources_.erase(body.res_id)) context_->detach_resource(body.res_id);
      return true;
    }
    case proto::kFence: {
      proto::FenceBody body;
      if (!body_of(m, &body) || body.reserved != 0) return false;
      bool done = context_->submit_fence(body.ring_idx, body.fence_id);
      proto::FenceSubmittedBody answer{body.ring_idx, done ? 1u : 0u, body.fence_id};
      reply(proto::kFenceSubmitted, &answer, sizeof answer);
      return true;
    }
    case proto::kPoll:
      if (!m.body.empty() || !m.fds.empty()) return false;
      context_->retire_fences();
      reply(proto::kPolled, nullptr, 0);
      return true;
    default:
      return false;
  }
}

int Worker::serve() {
  proto::Message m;
  proto::IoStatus s = channel_.receive(&m, proto::kMaxBodyBytes, std::nullopt);
  if (s != proto::IoStatus::kOk) return 0;
  if (!create(m)) return 1;
  while ((s = channel_.receive(&m, proto::kMaxBodyBytes, std::nullopt)) == proto::IoStatus::kOk) {
    if (!handle(m)) {
      log_error("context worker: message %u of %zu bytes is malformed; ending", m.op, m.body.size());
      return 1;
    }
  }
  return s == proto::IoStatus::kClosed ? 0 : 1;
}

// The proxy closing the socket (its context destroyed, its process gone) ends the worker at
// once, even while a command runs.
void watch_for_hangup(int fd) {
  std::thread([fd] {
    for (;;) {
      pollfd p{fd, POLLRDHUP, 0};
      if (::poll(&p, 1, -1) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) _exit(0);
    }
  }).detach();
}

}  // namespace

int run_context_worker(int argc, char** argv, void (*register_capsets)()) {
  constexpr int fd = proto::kWorkerSocketFd;
  // Nothing of the process that started us but the socket.
  close_range(fd + 1, UINT_MAX, 0);
  struct stat st{};
  Arguments args = parse_arguments(argc, argv);
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) || !args.ok) {
    log_error("context worker: started without its socket or with unknown arguments");
    return 2;
  }
  sandbox::SandboxReport report;
  if (!sandbox::enter_sandbox(args.sandbox, &report)) {
    log_error("context worker: sandbox failed (%s)", report.error.c_str());
    return 2;
  }
  // Threads only now: the seccomp filter applies to the threads created after it.
  watch_for_hangup(fd);
  renderer::mark_process_sandboxed();
  register_capsets();
  Worker worker(fd);
  // Objects of the context are left to the exit: the process and everything it mapped go at once.
  _exit(worker.serve());
}

}  // namespace gsvirt::worker
