// libFuzzer target: one DRAW per input with structure-aware state (tests/fuzz/gsgpu_draw/draw_harness.h
// describes the input and the invariants). A broken invariant aborts with its description, which
// libFuzzer reports as a crash. GSVIRT_FUZZ_LOG=1 prints each input's outcome (triage, and checking
// that seeds draw).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "common/log.h"
#include "tests/fuzz/gsgpu_draw/draw_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool log = std::getenv("GSVIRT_FUZZ_LOG") != nullptr;
  static gsgpu::fuzz::DrawHarness& harness = *[] {
    if (!log) gsvirt::set_log_sink([](const char*, void*) {}, nullptr);  // faults are expected and frequent
    return new gsgpu::fuzz::DrawHarness();
  }();
  const gsgpu::fuzz::DrawOutcome out = harness.run(data, size);
  if (log) {
    std::fprintf(stderr, "[drawfuzz] %s, %" PRIu64 " fragments written%s%s\n", out.faulted ? "fault" : "ok",
                 out.fragments_written, out.faulted ? ": " : "", out.fault.c_str());
  }
  if (out.broken) {
    std::fprintf(stderr, "fuzz_gsgpu_draw: invariant broken: %s\n", out.broken->c_str());
    std::abort();
  }
  return 0;
}
