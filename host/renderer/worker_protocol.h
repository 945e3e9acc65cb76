// The messages between a worker context (the proxy in the renderer's process, worker_context.h)
// and its context worker process (host/worker), over a connected unix stream socket.
//
// Every message is a Header and `size` body bytes. Bodies are the packed structs below, each of
// an exact size, except SUBMIT's (the command bytes). ATTACH carries the blob's memfd as
// SCM_RIGHTS. Both sides check every field; the proxy treats the worker as compromised: a reply
// of the wrong op or size, an fd from the worker, a fence the proxy did not hand it, or no answer
// before the time limit makes the context fatal and the worker is killed.
//
// proxy -> worker                         worker -> proxy
//   CREATE {ctx_id, capset_id, name}        CREATED {result}
//   SUBMIT <command bytes>                  SUBMITTED {result, fatal}
//   ATTACH {res_id, size} + memfd           (no reply: the worker logs a mapping it cannot make)
//   DETACH {res_id}                         (no reply)
//   FENCE {ring_idx, fence_id}              FENCE_SUBMITTED {ring_idx, done, fence_id}
//   POLL {}                                 POLLED {} after the RETIRED of what completed
//                                           RETIRED {ring_idx, fence_id}, at any time
// Messages are answered in order; RETIRED may come before any reply.
#pragma once

#include <cstdint>

namespace gsvirt::renderer::worker {

enum Op : uint32_t {
  kCreate = 1,
  kSubmit = 2,
  kAttach = 3,
  kDetach = 4,
  kFence = 5,
  kPoll = 6,
  kCreated = 101,
  kSubmitted = 102,
  kFenceSubmitted = 103,
  kPolled = 104,
  kRetired = 105,
};

struct Header {
  uint32_t op;
  uint32_t size;  // body bytes that follow
};
static_assert(sizeof(Header) == 8);

constexpr uint32_t kNameBytes = 64;

struct CreateBody {
  uint32_t ctx_id;
  uint32_t capset_id;
  char name[kNameBytes];  // NUL-terminated within the array
};
struct AttachBody {
  uint32_t res_id;
  uint32_t reserved;  // 0
  uint64_t size;      // bytes the worker maps; the memfd must be at least this large
};
struct DetachBody {
  uint32_t res_id;
  uint32_t reserved;
};
struct FenceBody {
  uint32_t ring_idx;
  uint32_t reserved;
  uint64_t fence_id;
};

struct CreatedBody {
  int32_t result;  // 0, or a negative errno
  uint32_t reserved;
};
struct SubmittedBody {
  int32_t result;  // 0, or a negative errno
  uint32_t fatal;  // 0 or 1: the context is fatal now
};
struct FenceSubmittedBody {
  uint32_t ring_idx;  // echoes FENCE
  uint32_t done;      // 0 or 1: complete already (the proxy retires it at once)
  uint64_t fence_id;  // echoes FENCE
};
struct RetiredBody {
  uint32_t ring_idx;
  uint32_t reserved;
  uint64_t fence_id;  // a pending fence of that ring: it and every fence before it retire
};

static_assert(sizeof(CreateBody) == 72 && sizeof(AttachBody) == 16 && sizeof(DetachBody) == 8 &&
              sizeof(FenceBody) == 16 && sizeof(CreatedBody) == 8 && sizeof(SubmittedBody) == 8 &&
              sizeof(FenceSubmittedBody) == 16 && sizeof(RetiredBody) == 16);

// Largest body either side accepts: a submission (RendererLimits::max_submit_bytes) and nothing
// else comes near it. Replies from the worker are at most 16 bytes.
constexpr uint32_t kMaxBodyBytes = 64u << 20;
constexpr uint32_t kMaxReplyBytes = 16;

// The worker's socket: the proxy hands it over as this descriptor number.
constexpr int kWorkerSocketFd = 3;

}  // namespace gsvirt::renderer::worker
