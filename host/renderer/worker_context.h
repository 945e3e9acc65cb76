// A context that runs in a context worker process of its own (issue 12 point 1).
//
// The proxy (WorkerContext, in the renderer's process: a VMM, gsvirt-server --no-fork, an
// in-process guest) starts the worker with fork + exec (posix_spawn) of gsvirt-context-worker,
// over a socketpair; the worker enters the process sandbox (host/sandbox), creates the real context
// and serves the proxy's messages (worker_protocol.h). exec, not a bare fork: the worker starts
// from a clean image, so it holds none of the renderer process's memory (guest RAM, other
// contexts' blobs, keys), threads or locks, and its environment is only what drivers need.
//
// Blobs are shared by passing their memfd; resources without one (guest pages given as iovecs)
// cannot reach the worker and are refused (-ENOTSUP). The worker is compromised by design: every
// reply is checked, every wait has a time limit, and a worker that ends, times out or sends
// anything unexpected makes the context fatal (sticky; its pending fences retire so no guest
// waits forever) and is killed. The worker is killed when the context is destroyed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "host/renderer/context.h"
#include "host/renderer/worker_channel.h"

namespace gsvirt::renderer {

struct WorkerOptions {
  std::string worker_path;     // "" : GSVIRT_CONTEXT_WORKER, then the installed, then the built one
  uint32_t capset_id = 0;      // the capset the worker creates; 0: the proxy's own
  int timeout_ms = 300000;     // longest wait for one answer (GSVIRT_WORKER_TIMEOUT_S)
  uint64_t cpu_seconds = 3600;  // the worker's RLIMIT_CPU (GSVIRT_WORKER_CPU_SECONDS); 0: none
  uint64_t memory_mib = 0;      // its RLIMIT_DATA (GSVIRT_WORKER_MEMORY_MIB); 0: the host's memory
  bool sandbox = true;          // false only for debugging (GSVIRT_WORKER_SANDBOX=0)
};

// The options the environment asks for (the variables named above).
WorkerOptions worker_options_from_environment();

// Where the worker executable is: the options' path, GSVIRT_CONTEXT_WORKER, the installed one,
// the one in the build tree; "" when none is there.
std::string find_worker_binary(const WorkerOptions& options);

class WorkerContext final : public Context {
 public:
  // Adopts `socket_fd` (connected to a worker) and the worker's process (`pid`, or -1 when the
  // other end is not a process of ours, as in tests); `tmpdir` is removed when it ends.
  WorkerContext(const ContextCreateInfo& info, int socket_fd, pid_t pid, int timeout_ms,
                std::string tmpdir = {});
  ~WorkerContext() override;

  // CREATE: asks the worker for the context; 0 or a negative errno (the context is unusable).
  int create(uint32_t capset_id, const char* debug_name);

  int submit_cmd(const void* data, size_t size) override;
  bool fatal() const override { return fatal_; }
  int check_attach(const Resource& resource) override;
  void attach_resource(std::shared_ptr<Resource> resource) override;
  void detach_resource(uint32_t resource_id) override;
  bool submit_fence(uint32_t ring_idx, uint64_t fence_id) override;
  void retire_fences() override;

  pid_t pid() const { return pid_; }
  const std::string& fatal_message() const { return fatal_message_; }

 private:
  // Waits for the reply `op` with a body of exactly `size` bytes, handling RETIRED messages that
  // come first. false (and the context fatal) on anything else.
  bool await_reply(uint32_t op, size_t size, worker::Message* reply);
  bool send(uint32_t op, const void* body, size_t size, const void* tail = nullptr,
            size_t tail_size = 0, int pass_fd = -1);
  bool on_retired(const worker::Message& message);
  // Sticky: logs `why`, kills the worker and retires every pending fence.
  void fail(const std::string& why);
  void end_worker();
  worker::Deadline deadline() const;

  const uint32_t ctx_id_;
  const FenceRetireFn retire_fence_;
  void* const retire_cookie_;
  worker::Channel channel_;
  pid_t pid_;
  int pidfd_ = -1;
  const int timeout_ms_;
  const std::string tmpdir_;
  // Fences handed to the worker that it has not retired yet, per ring, oldest first.
  std::map<uint32_t, std::deque<uint64_t>> pending_;
  worker::Message reply_;
  bool fatal_ = false;
  std::string fatal_message_;
};

// Starts a worker for a new context: nullptr (logged) when it cannot be started or cannot
// create the context.
std::unique_ptr<Context> start_worker_context(const ContextCreateInfo& info,
                                              const WorkerOptions& options);

}  // namespace gsvirt::renderer
