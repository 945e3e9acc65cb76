// libFuzzer target: arbitrary bytes as a vcomp command stream.
//
// The first bytes split the input into several submissions so that state carries between them
// (objects created by one submission are named by the next). The fake executor stands in for an
// OpenCL implementation, so the fuzzer exercises decoding, id lookups, range checks and replies
// without a real driver's own bugs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/host/vcomp/fake_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

using namespace gsvirt;
using namespace gsvirt::vcomp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static testing::FakeExecutor executor;
  static bool quiet = [] {
    set_log_sink([](const char*, void*) {}, nullptr);
    return true;
  }();
  (void)quiet;
  testing::Harness h(&executor, 1, 512);
  size_t pos = 0;
  while (pos < size) {
    size_t chunk = data[pos] * 4u + 4u;  // submissions of 4..1024 bytes
    ++pos;
    if (chunk > size - pos) chunk = size - pos;
    std::vector<uint8_t> bytes(data + pos, data + pos + chunk);
    h.submit(bytes);
    pos += chunk;
  }
  return 0;
}
