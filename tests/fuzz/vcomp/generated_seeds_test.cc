// protocol/vcomp/gen_vcomp_seeds.py derives well-formed command streams from vcomp.xml (the seeds
// of the vcomp fuzz targets). Each stream of both targets' sets goes through the real decoder on a
// fake executor: none may make the context fatal (a framing or argument-encoding error), and the
// all_commands stream names every command of the protocol. GSVIRT_SEED_BUNDLES names the two
// bundles meson had the generator write (decoder set, gsgpu set), separated by ':'.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "tests/host/vcomp/fake_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

namespace gsvirt::vcomp::testing {
namespace {

std::vector<std::string> bundles() {
  std::vector<std::string> out;
  const char* env = std::getenv("GSVIRT_SEED_BUNDLES");
  std::string list = env ? env : "";
  for (size_t at = 0; at < list.size();) {
    size_t end = list.find(':', at);
    if (end == std::string::npos) end = list.size();
    out.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

struct Stream {
  std::string name;
  std::vector<uint8_t> commands;
};

std::vector<Stream> read_bundle(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  WireReader r(bytes.data(), bytes.size());
  std::vector<Stream> streams;
  while (r.ok() && r.remaining() > 0) {
    Stream s;
    uint32_t name_size = r.u32("name");
    const uint8_t* name = r.bytes(name_size, "name");
    uint32_t size = r.u32("stream");
    const uint8_t* data = r.bytes(size, "stream");
    if (!name || !data) break;
    s.name.assign(reinterpret_cast<const char*>(name), name_size);
    s.commands.assign(data, data + size);
    streams.push_back(std::move(s));
  }
  EXPECT_TRUE(r.ok()) << path << ": " << r.error();
  return streams;
}

// The command ids of a stream, walking its headers.
std::vector<uint32_t> command_ids(const std::vector<uint8_t>& stream) {
  std::vector<uint32_t> ids;
  WireReader r(stream.data(), stream.size());
  while (r.ok() && r.remaining() >= 12) {
    uint32_t id = r.u32("id");
    uint32_t dwords = r.u32("size");
    r.u32("flags");
    if (dwords < 3) break;
    r.bytes(uint64_t(dwords - 3) * 4, "arguments");
    ids.push_back(id);
  }
  return ids;
}

TEST(GeneratedSeeds, EveryStreamDecodesWithoutAFatalError) {
  ASSERT_EQ(bundles().size(), 2u) << "GSVIRT_SEED_BUNDLES=DECODER_BUNDLE:GSGPU_BUNDLE";
  FakeExecutor executor;
  for (const std::string& bundle : bundles()) {
    std::vector<Stream> streams = read_bundle(bundle);
    EXPECT_GT(streams.size(), 50u) << bundle;
    for (const Stream& s : streams) {
      Harness h(&executor, 1, 8192);
      h.make_context();
      h.submit(s.commands);
      EXPECT_FALSE(h.context().fatal()) << bundle << ": " << s.name << ": " << h.context().fatal_message();
      EXPECT_FALSE(command_ids(s.commands).empty()) << s.name;
    }
  }
}

TEST(GeneratedSeeds, AllCommandsStreamNamesEveryCommand) {
  ASSERT_FALSE(bundles().empty());
  std::set<uint32_t> seen;
  for (const Stream& s : read_bundle(bundles()[0]))
    if (s.name == "all_commands")
      for (uint32_t id : command_ids(s.commands)) seen.insert(id);
  for (uint32_t id = 1; id < 1024; ++id) {
    if (!proto::command_name(id)) continue;
    EXPECT_TRUE(seen.count(id)) << proto::command_name(id);
  }
}

}  // namespace
}  // namespace gsvirt::vcomp::testing
