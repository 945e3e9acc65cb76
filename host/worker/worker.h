// The context worker: the process in which one isolated context runs (issue 12 point 1).
//
// Started by a WorkerContext (host/renderer/worker_context.h) with its socket as fd 3. It closes
// every other descriptor, enters the process sandbox (host/sandbox) before it reads a message,
// creates the context the proxy asks for with the context types `register_capsets` registers,
// and serves it (host/renderer/worker_protocol.h) until the proxy closes the socket. It ends as
// soon as the proxy is gone, even in the middle of a command.
#pragma once

namespace gsvirt::worker {

// Command line: [--cpu-seconds N] [--memory-mib N] [--no-sandbox]. Returns the exit status.
int run_context_worker(int argc, char** argv, void (*register_capsets)());

}  // namespace gsvirt::worker
