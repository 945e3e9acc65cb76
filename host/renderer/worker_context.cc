#include "host/renderer/worker_context.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "common/log.h"
#include "host/sandbox/private_tmpdir.h"

namespace gsvirt::renderer {

using worker::IoStatus;

namespace {

// A reply's result must be 0 or an errno the kernel could give.
bool plausible_result(int32_t result) { return result <= 0 && result >= -4095; }

const char* op_name(uint32_t op) {
  switch (op) {
    case worker::kCreated: return "CREATED";
    case worker::kSubmitted: return "SUBMITTED";
    case worker::kFenceSubmitted: return "FENCE_SUBMITTED";
    case worker::kPolled: return "POLLED";
    case worker::kRetired: return "RETIRED";
    default: return "an unknown message";
  }
}

std::string exit_description(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

// The temporary directories of live workers. A context normally removes its own; the C API's
// renderer is never destroyed at exit (host/capi/gsvirt_renderer.cc), so what is left then goes here.
class LiveTmpdirs {
 public:
  ~LiveTmpdirs() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& dir : dirs_) sandbox::remove_tree(dir);
  }
  void add(const std::string& dir) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!dir.empty()) dirs_.insert(dir);
  }
  void remove(const std::string& dir) {
    sandbox::remove_tree(dir);
    std::lock_guard<std::mutex> lock(mutex_);
    dirs_.erase(dir);
  }

 private:
  std::mutex mutex_;
  std::set<std::string> dirs_;
};

LiveTmpdirs& live_tmpdirs() {
  static LiveTmpdirs dirs;
  return dirs;
}

}  // namespace

WorkerContext::WorkerContext(const ContextCreateInfo& info, int socket_fd, pid_t pid, int timeout_ms,
                             std::string tmpdir)
    : ctx_id_(info.ctx_id), retire_fence_(info.retire_fence), retire_cookie_(info.retire_cookie),
      channel_(socket_fd), pid_(pid), timeout_ms_(timeout_ms), tmpdir_(std::move(tmpdir)) {
  // A descriptor for the process itself: kill and wait reach this worker even if its pid is
  // reused after an exit that someone else reaped.
  if (pid_ > 0) pidfd_ = int(syscall(SYS_pidfd_open, pid_, 0));
  live_tmpdirs().add(tmpdir_);
}

WorkerContext::~WorkerContext() {
  end_worker();
  live_tmpdirs().remove(tmpdir_);
}

worker::Deadline WorkerContext::deadline() const {
  return worker::Clock::now() + std::chrono::milliseconds(timeout_ms_);
}

// The worker has nothing to save: it is killed, never asked. Waiting is bounded too (a process in
// an uninterruptible driver call may take a moment to die); one not reaped in time is left to
// the system as a zombie rather than hang the renderer.
void WorkerContext::end_worker() {
  channel_.close_now();
  if (pid_ <= 0) return;
  if (pidfd_ >= 0) {
    syscall(SYS_pidfd_send_signal, pidfd_, SIGKILL, nullptr, 0);
    pollfd p{pidfd_, POLLIN, 0};
    while (::poll(&p, 1, 5000) < 0 && errno == EINTR) {
    }
  } else {
    kill(pid_, SIGKILL);
  }
  int status = 0;
  pid_t reaped = waitpid(pid_, &status, pidfd_ >= 0 ? WNOHANG : 0);
  if (reaped == pid_)
    log_debug(kDebugTransport, "renderer: ctx %u: context worker %d %s", ctx_id_, pid_,
              exit_description(status).c_str());
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  pid_ = -1;
}

void WorkerContext::fail(const std::string& why) {
  if (fatal_) return;
  fatal_ = true;
  fatal_message_ = why;
  // How the worker ended says more than "the connection closed" (a crash, the CPU limit).
  std::string how;
  if (pid_ > 0) {
    int status = 0;
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      if (::poll(&p, 1, 100) > 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
        how = " (the worker " + exit_description(status) + ")";
        close(pidfd_);
        pidfd_ = -1;
        pid_ = -1;
      }
    }
  }
  log_error("renderer: ctx %u: context worker: %s%s; the context is lost", ctx_id_, why.c_str(),
            how.c_str());
  end_worker();
  // Nothing will complete now: let every guest wait on this context end.
  for (auto& [ring_idx, fences] : pending_)
    if (!fences.empty() && retire_fence_) retire_fence_(retire_cookie_, ctx_id_, ring_idx, fences.back());
  pending_.clear();
}

bool WorkerContext::send(uint32_t op, const void* body, size_t size, const void* tail,
                         size_t tail_size, int pass_fd) {
  if (fatal_) return false;
  IoStatus s = channel_.send(op, body, size, deadline(), tail, tail_size, pass_fd);
  if (s == IoStatus::kOk) return true;
  fail(std::string("sending a request: ") + worker::io_status_name(s));
  return false;
}

bool WorkerContext::await_reply(uint32_t op, size_t size, worker::Message* reply) {
  worker::Deadline until = deadline();
  for (;;) {
    IoStatus s = channel_.receive(reply, worker::kMaxReplyBytes, until);
    if (s != IoStatus::kOk) {
      fail(std::string("waiting for ") + op_name(op) + ": " + worker::io_status_name(s));
      return false;
    }
    if (!reply->fds.empty()) {
      fail(std::string("sent descriptors with ") + op_name(reply->op));
      return false;
    }
    if (reply->op == worker::kRetired) {
      if (!on_retired(*reply)) return false;
      continue;
    }
    if (reply->op != op || reply->body.size() != size) {
      fail(std::string("answered ") + op_name(reply->op) + " of " + std::to_string(reply->body.size()) +
           " bytes where " + op_name(op) + " of " + std::to_string(size) + " was due");
      return false;
    }
    return true;
  }
}

// A retirement must name a fence the proxy handed this worker and that is still pending on that
// ring; it retires that fence and every one before it, as Renderer::signal_through does.
bool WorkerContext::on_retired(const worker::Message& message) {
  worker::RetiredBody r;
  if (message.body.size() != sizeof r) {
    fail("sent RETIRED of " + std::to_string(message.body.size()) + " bytes");
    return false;
  }
  std::memcpy(&r, message.body.data(), sizeof r);
  auto ring = pending_.find(r.ring_idx);
  auto& fences = ring == pending_.end() ? pending_[r.ring_idx] : ring->second;
  auto it = std::find(fences.begin(), fences.end(), r.fence_id);
  if (r.reserved != 0 || it == fences.end()) {
    char why[128];
    std::snprintf(why, sizeof why, "retired fence %" PRIu64 " of ring %u, which is not pending there",
                  r.fence_id, r.ring_idx);
    fail(why);
    return false;
  }
  fences.erase(fences.begin(), std::next(it));
  if (retire_fence_) retire_fence_(retire_cookie_, ctx_id_, r.ring_idx, r.fence_id);
  return true;
}

int WorkerContext::create(uint32_t capset_id, const char* debug_name) {
  worker::CreateBody body{};
  body.ctx_id = ctx_id_;
  body.capset_id = capset_id;
  if (debug_name) std::strncpy(body.name, debug_name, sizeof body.name - 1);
  if (!send(worker::kCreate, &body, sizeof body) ||
      !await_reply(worker::kCreated, sizeof(worker::CreatedBody), &reply_))
    return -EIO;
  worker::CreatedBody created;
  std::memcpy(&created, reply_.body.data(), sizeof created);
  if (!plausible_result(created.result) || created.reserved != 0) {
    fail("answered CREATE with result " + std::to_string(created.result));
    return -EIO;
  }
  if (created.result < 0) fail("could not create the context (" + std::string(std::strerror(-created.result)) + ")");
  return created.result;
}

int WorkerContext::submit_cmd(const void* data, size_t size) {
  if (fatal_) return -EIO;
  if (size > worker::kMaxBodyBytes) return -E2BIG;
  if (!send(worker::kSubmit, nullptr, 0, data, size) ||
      !await_reply(worker::kSubmitted, sizeof(worker::SubmittedBody), &reply_))
    return -EIO;
  worker::SubmittedBody done;
  std::memcpy(&done, reply_.body.data(), sizeof done);
  if (!plausible_result(done.result) || done.fatal > 1) {
    fail("answered SUBMIT with result " + std::to_string(done.result) + ", fatal " +
         std::to_string(done.fatal));
    return -EIO;
  }
  if (done.fatal) {
    // The context itself refused the stream and said why in the worker; it is of no further use.
    fatal_message_ = "the context is in a fatal state";
    fatal_ = true;
    end_worker();
  }
  return done.result;
}

int WorkerContext::check_attach(const Resource& resource) {
  if (resource.fd >= 0) return 0;
  log_error("renderer: ctx %u: resource %u has no memfd (guest pages given as iovecs): a context "
            "that runs in a worker process cannot reach it; use a HOST3D blob", ctx_id_, resource.id);
  return -ENOTSUP;
}

void WorkerContext::attach_resource(std::shared_ptr<Resource> resource) {
  if (fatal_ || resource->fd < 0) return;
  worker::AttachBody body{resource->id, 0, resource->size};
  send(worker::kAttach, &body, sizeof body, nullptr, 0, resource->fd);
}

void WorkerContext::detach_resource(uint32_t resource_id) {
  if (fatal_) return;
  worker::DetachBody body{resource_id, 0};
  send(worker::kDetach, &body, sizeof body);
}

bool WorkerContext::submit_fence(uint32_t ring_idx, uint64_t fence_id) {
  if (fatal_) return true;  // nothing runs any more: the fence must not keep a guest waiting
  worker::FenceBody body{ring_idx, 0, fence_id};
  if (!send(worker::kFence, &body, sizeof body) ||
      !await_reply(worker::kFenceSubmitted, sizeof(worker::FenceSubmittedBody), &reply_))
    return true;
  worker::FenceSubmittedBody answer;
  std::memcpy(&answer, reply_.body.data(), sizeof answer);
  if (answer.ring_idx != ring_idx || answer.fence_id != fence_id || answer.done > 1) {
    fail("answered FENCE with another fence or state");
    return true;
  }
  if (answer.done) return true;
  pending_[ring_idx].push_back(fence_id);
  return false;
}

void WorkerContext::retire_fences() {
  bool any = false;
  for (const auto& [ring_idx, fences] : pending_) any = any || !fences.empty();
  if (fatal_ || !any) return;
  if (!send(worker::kPoll, nullptr, 0)) return;
  await_reply(worker::kPolled, 0, &reply_);
}

}  // namespace gsvirt::renderer
