// The DRAW fuzz target's generated seeds (seeds.py) through its harness in the ordinary build: every
// seed keeps the harness's invariants, the golden-scene seeds (draw-*) render fragments without a
// fault and the hostile ones (fault-*) end in a CP fault, so a change of the input format that
// leaves the seeds behind shows here rather than as a silent loss of coverage.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/gsgpu_draw/draw_harness.h"

namespace gsgpu::fuzz {
namespace {

std::vector<std::filesystem::path> seeds() {
  const char* dir = std::getenv("GSVIRT_DRAW_SEEDS");
  std::vector<std::filesystem::path> out;
  if (!dir) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DrawFuzzSeeds, GoldenScenesDrawAndHostileOnesFault) {
  const std::vector<std::filesystem::path> files = seeds();
  ASSERT_GE(files.size(), 30u) << "GSVIRT_DRAW_SEEDS must name seeds.py's output";
  DrawHarness harness;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const DrawOutcome out = harness.run(bytes.data(), bytes.size());
    const std::string name = path.filename().string();
    EXPECT_FALSE(out.broken) << name << ": " << *out.broken;
    if (name.starts_with("draw-")) {
      EXPECT_FALSE(out.faulted) << name << ": " << out.fault;
      EXPECT_GT(out.fragments_written, 0u) << name;
      // The capturing seeds write their primitives (a strip's two triangles, a list's one); the
      // short buffer, the offset at its end and every seed that does not capture: none.
      const uint64_t captured = name == "draw-xfb_strip_positions"       ? 2
                                : name == "draw-xfb_program_two_buffers" ? 1
                                                                         : 0;
      EXPECT_EQ(out.primitives_captured, captured) << name;
    } else if (name.starts_with("fault-")) {
      EXPECT_TRUE(out.faulted) << name << " drew " << out.fragments_written << " fragments";
    }
    std::printf("[seed] %-40s %s %s%s\n", name.c_str(), out.faulted ? "fault:" : "ok", out.fault.c_str(),
                out.primitives_captured ? (" (" + std::to_string(out.primitives_captured) + " captured)").c_str() : "");
  }
}

}  // namespace
}  // namespace gsgpu::fuzz
