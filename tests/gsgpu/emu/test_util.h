// Shared fixtures for the gsgpu device tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"
#include "gsgpu/emu/device.h"
#include "gsgpu/emu/packets.h"
#include "tests/common/log_capture.h"

namespace gsgpu::test {

using gsvirt::testing::LogCapture;

// A DISPATCH backend that records what it was asked and returns a scripted outcome.
class FakeBackend final : public DispatchBackend {
 public:
  struct Script {
    std::vector<DispatchRequest> requests;
    DispatchOutcome next_outcome;
  };
  explicit FakeBackend(std::shared_ptr<Script> script) : script_(std::move(script)) {}
  const char* name() const override { return "fake"; }
  DispatchOutcome dispatch(const DispatchRequest& request, GpuMemory&) override {
    script_->requests.push_back(request);
    return script_->next_outcome;
  }
  std::string disassemble(const uint32_t* words, size_t count) override {
    std::string out;
    for (size_t i = 0; i < count; ++i) out += "  fake_op " + std::to_string(words[i]) + "\n";
    return out;
  }

 private:
  std::shared_ptr<Script> script_;
};

inline DeviceConfig small_config(CpMode mode = CpMode::kManual) {
  DeviceConfig c;
  c.shader_cores = 2;
  c.warp_width = 8;
  c.vram_size = 1u << 20;
  c.va_base = 0x10000;
  c.va_size = 1u << 24;
  c.cp_mode = mode;
  return c;
}

inline std::unique_ptr<Device> make_device(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend = nullptr) {
  std::string error;
  auto device = Device::create(config, std::move(backend), &error);
  EXPECT_TRUE(device) << error;
  return device;
}

inline uint64_t must_buffer(Device& d, uint64_t size, uint32_t perms = kPermReadWrite) {
  std::string error;
  auto va = d.create_buffer(size, perms, &error);
  EXPECT_TRUE(va) << error;
  return va.value_or(0);
}

}  // namespace gsgpu::test
