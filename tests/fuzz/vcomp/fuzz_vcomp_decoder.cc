// libFuzzer target: hostile vcomp command streams.
//
// Most inputs are read as a list of commands with well-formed headers around fuzzed arguments
// (byte 0 picks a known command, byte 1 its flags, byte 2 how many argument dwords follow), so
// the fuzzer spends its time inside argument decoding, id lookups and range checks instead of
// on header checks; inputs starting with 0xff are submitted raw, header and all. The context
// starts with a device (id 1) and a context (id 2) bound, so small ids name real objects. A fake
// executor stands in for an OpenCL implementation: what is fuzzed is gsvirt's code, not a driver.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/log.h"
#include "tests/host/vcomp/fake_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

using namespace gsvirt;
using namespace gsvirt::vcomp;

namespace {

const std::vector<uint32_t>& known_commands() {
  static const std::vector<uint32_t> ids = [] {
    std::vector<uint32_t> v;
    for (uint32_t id = 1; id < 1024; ++id)
      if (proto::command_name(id)) v.push_back(id);
    return v;
  }();
  return ids;
}

std::vector<uint8_t> structured_stream(const uint8_t* data, size_t size) {
  std::vector<uint8_t> out;
  WireWriter w(out);
  size_t pos = 0;
  while (pos + 3 <= size) {
    uint32_t id = known_commands()[data[pos] % known_commands().size()];
    uint32_t flags = data[pos + 1] & 1;
    size_t dwords = data[pos + 2];
    pos += 3;
    size_t bytes = dwords * 4 < size - pos ? dwords * 4 : (size - pos) & ~size_t{3};
    w.u32(id);
    w.u32(uint32_t(3 + bytes / 4));
    w.u32(flags);
    w.bytes(data + pos, bytes);
    pos += bytes;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static testing::FakeExecutor executor;
  static const bool quiet = [] {
    set_log_sink([](const char*, void*) {}, nullptr);
    return true;
  }();
  (void)quiet;
  // A small staging resource: zeroing the default 1 MiB was half of each run.
  testing::Harness h(&executor, 1, 512, 64 << 10);
  h.make_context();
  if (size > 0 && data[0] == 0xff) {
    h.submit(std::vector<uint8_t>(data + 1, data + size));
  } else {
    h.submit(structured_stream(data, size));
  }
  return 0;
}
