// A context worker that serves the echo test context (capset 30), with BLOCK and OPEN turned on:
// what worker_context_test.cc starts in place of gsvirt-context-worker.
#include "host/worker/worker.h"
#include "tests/host/renderer/echo_context.h"

namespace {

void register_echo() {
  gsvirt::test::set_echo_block_enabled(true);
  gsvirt::test::set_echo_open_enabled(true);
  gsvirt::test::register_echo_capset();
}

}  // namespace

int main(int argc, char** argv) { return gsvirt::worker::run_context_worker(argc, argv, &register_echo); }
