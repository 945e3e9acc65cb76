// The native context's device takes its shape from the same GSGPU_* variables, through the same
// parser, as remote mode's gsgpu runtime. Run with GSGPU_CORES=3 GSGPU_WARP=16 GSGPU_VRAM_MB=64
// GSGPU_MAX_WORK_ITEMS=100000 set (meson does), before anything registers the context type.
#include <cstdlib>

#include "ctx_harness.h"
#include "gsgpu/drv/drv.h"
#include "gsgpu/cl/gsgpu_cl.h"
#include "host/renderer/capset_registry.h"

namespace gsvirt::gsgpu_ctx::test {
namespace {

TEST(GsgpuCtxEnv, AContextsDeviceHasTheShapeTheEnvironmentGives) {
  ASSERT_STREQ(std::getenv("GSGPU_CORES"), "3") << "run through meson, which sets the environment";
  Host host(std::nullopt);
  Guest g(host, 1);
  EXPECT_EQ(g.caps.shader_cores, 3u);
  EXPECT_EQ(g.caps.warp_width, 16u);
  EXPECT_EQ(g.caps.vram_size, uint64_t{64} << 20);
  EXPECT_EQ(g.caps.max_work_items_per_dispatch, 100000u);

  // The capset the guest reads first says the same.
  auto capset = renderer::find_capset(kCapsetId);
  ASSERT_TRUE(capset);
  std::vector<uint8_t> bytes;
  capset->fill_caps(capset->max_version, bytes);
  Capset c{};
  ASSERT_EQ(bytes.size(), sizeof c);
  std::memcpy(&c, bytes.data(), sizeof c);
  EXPECT_EQ(c.caps.shader_cores, 3u);

  // Remote mode's runtime reads the same shape.
  gsgpu::cl::RuntimeConfig remote = gsgpu::cl::config_from_env();
  EXPECT_EQ(remote.shader_cores, g.caps.shader_cores);
  EXPECT_EQ(remote.warp_width, g.caps.warp_width);
  EXPECT_EQ(remote.vram_mb << 20, g.caps.vram_size);
  EXPECT_EQ(remote.max_work_items, g.caps.max_work_items_per_dispatch);
}

TEST(GsgpuCtxEnv, UnusableValuesKeepTheDefaultsWithALogLine) {
  LogCapture log;
  const char* saved = std::getenv("GSGPU_WARP");
  std::string warp = saved ? saved : "";
  setenv("GSGPU_WARP", "24", 1);
  setenv("GSGPU_CORES", "0", 1);
  ContextConfig c = context_config_from_env();
  EXPECT_EQ(c.warp_width, ContextConfig{}.warp_width);
  EXPECT_EQ(c.shader_cores, ContextConfig{}.shader_cores);
  EXPECT_EQ(c.vram_size, uint64_t{64} << 20) << "the usable ones still apply";
  EXPECT_TRUE(log.contains("GSGPU_WARP=24 is not a power of two")) << log.all();
  EXPECT_TRUE(log.contains("GSGPU_CORES=\"0\" is not in 1..256")) << log.all();
  setenv("GSGPU_WARP", warp.c_str(), 1);
  setenv("GSGPU_CORES", "3", 1);
}

TEST(GsgpuCtxEnv, ModeIsFastOrReferenceAndAnythingElseKeepsTheBaseWithALogLine) {
  LogCapture log;
  setenv("GSGPU_MODE", "fast", 1);
  EXPECT_TRUE(context_config_from_env().fast_draws);
  EXPECT_TRUE(gsgpu::drv::local_config_from_env().fast_draws) << "remote mode's parser is the same";
  setenv("GSGPU_MODE", "reference", 1);
  EXPECT_FALSE(context_config_from_env().fast_draws);
  setenv("GSGPU_MODE", "turbo", 1);
  gsgpu::drv::LocalConfig base;
  base.fast_draws = true;
  EXPECT_TRUE(gsgpu::drv::local_config_from_env(base).fast_draws) << "an unusable value keeps the base";
  EXPECT_TRUE(log.contains("GSGPU_MODE=\"turbo\" is neither fast nor reference; keeping fast")) << log.all();
  unsetenv("GSGPU_MODE");
  EXPECT_FALSE(context_config_from_env().fast_draws) << "reference is the default";
}

TEST(GsgpuCtxEnv, DefaultsAreRemoteModes) {
  ContextConfig c;
  gsgpu::cl::RuntimeConfig remote;
  EXPECT_EQ(c.shader_cores, remote.shader_cores);
  EXPECT_EQ(c.warp_width, remote.warp_width);
  EXPECT_EQ(c.vram_size, remote.vram_mb << 20);
  EXPECT_EQ(c.watchdog_budget, remote.watchdog_budget);
  EXPECT_EQ(c.max_work_items_per_dispatch, remote.max_work_items);
}

// A submission's wall-clock budget is the operator's to set (hashcat's autotuning runs kernels of
// several seconds on the emulated GPU); 60 s unless GSGPU_SUBMIT_TIME_MS says otherwise, 0: none.
TEST(GsgpuCtxEnv, SubmissionTimeBudgetComesFromTheEnvironment) {
  EXPECT_EQ(ContextConfig{}.submit_time_budget_ns, uint64_t{60'000'000'000});
  setenv("GSGPU_SUBMIT_TIME_MS", "1500", 1);
  EXPECT_EQ(context_config_from_env().submit_time_budget_ns, uint64_t{1'500'000'000});
  setenv("GSGPU_SUBMIT_TIME_MS", "0", 1);
  EXPECT_EQ(context_config_from_env().submit_time_budget_ns, 0u);
  unsetenv("GSGPU_SUBMIT_TIME_MS");
  EXPECT_EQ(context_config_from_env().submit_time_budget_ns, uint64_t{60'000'000'000});
}

}  // namespace
}  // namespace gsvirt::gsgpu_ctx::test
