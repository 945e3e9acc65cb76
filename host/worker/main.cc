// gsvirt-context-worker: started by the renderer for each isolated context (host/worker/worker.h).
#include "host/capi/builtin_capsets.h"
#include "host/worker/worker.h"

int main(int argc, char** argv) {
  return gsvirt::worker::run_context_worker(argc, argv, &gsvirt::renderer::register_builtin_capsets);
}
