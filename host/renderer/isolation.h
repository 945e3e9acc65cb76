// Which contexts run in a context worker process of their own (worker_context.h) rather than in
// the renderer's process (a VMM, gsvirt-server --no-fork, an in-process guest): the policy that
// context types consult in their factory (issue 12 point 1, docs/security.md).
#pragma once

namespace gsvirt::renderer {

enum class Isolation {
  kHostExecutor,  // vcomp contexts whose executor is the host executor (the default)
  kEveryVcomp,    // every vcomp context, gsgpu executor too
  kOff,           // none: guests are trusted, or debugging (like gsvirt-server --no-sandbox)
};

// GSVIRT_ISOLATION: "host" (default), "vcomp" or "off"; anything else is the default, logged.
Isolation isolation_setting();

// Called by a process that already serves one guest inside the process sandbox (a vtest client
// process, a context worker): its contexts stay in it, with no further worker.
void mark_process_sandboxed();
bool process_sandboxed();

}  // namespace gsvirt::renderer
