// Shared fixtures for the gsgpu/drv tests: a small local device, kernels assembled with
// gsgpu/isa, BOs bound at chosen VAs, one-dispatch submissions. Only drv.h / packets.h are used
// to drive the device, as a userspace driver would.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/log.h"
#include "gsgpu/drv/drv.h"
#include "gsgpu/drv/packets.h"
#include "gsgpu/isa/assembler.h"
#include "tests/common/log_capture.h"

namespace gsgpu::drv::test {

using gsvirt::testing::LogCapture;

inline LocalConfig small_config() {
  LocalConfig c;
  c.name = "drvtest";
  c.shader_cores = 2;
  c.warp_width = 8;
  c.vram_size = uint64_t{8} << 20;
  c.num_rings = 2;
  return c;
}

inline std::unique_ptr<LocalDevice> open_device(const LocalConfig& config = small_config()) {
  std::string error;
  auto device = open_local(config, &error);
  EXPECT_TRUE(device) << error;
  return device;
}

// x[i] = x[i] * k in place; arguments: x (64-bit address) at 0, k (u32) at 8.
inline constexpr const char* kScaleKernel = R"(
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b32 s4, s[0:1], 8
  v_special v[0:1], global_id_x
  v_shl_b64 v[2:3], v[0:1], 2
  v_add_u64 v[2:3], v[2:3], s[2:3]
  global_load_b32 v4, v[2:3], 0
  v_mul_lo_u32 v4, v4, s4
  global_store_b32 v[2:3], v4, 0
  s_end
)";

inline constexpr const char* kSpinKernel = "spin:\n  s_nop\n  s_jump spin\n";

// A BO bound at a VA, with its CPU mapping.
struct Buffer {
  BoHandle bo = 0;
  uint64_t va = 0;
  uint64_t size = 0;
  uint8_t* cpu = nullptr;
};

// Places BOs at increasing VAs of one device and builds dispatches of assembled kernels.
class Driver {
 public:
  explicit Driver(Device& device) : device_(device), next_va_(device.caps().va_base + 0x100000) {}

  Buffer buffer(uint64_t size, uint32_t perms = kVaRead | kVaWrite) {
    Buffer b;
    EXPECT_EQ(device_.bo_create(size, 0, &b.bo), Status::kOk);
    b.size = device_.bo_size(b.bo);
    b.va = next_va_;
    next_va_ += b.size + 0x10000;  // unbound pages between buffers
    EXPECT_EQ(device_.va_bind(b.bo, 0, b.va, b.size, perms), Status::kOk);
    b.cpu = static_cast<uint8_t*>(device_.bo_map(b.bo));
    return b;
  }

  Buffer kernel(const char* source) {
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_TRUE(isa::assemble(source, &words, &error)) << error;
    Buffer b = buffer(words.size() * 4, kVaRead | kVaExecute);
    std::memcpy(b.cpu, words.data(), words.size() * 4);
    code_size_ = uint32_t(words.size() * 4);
    return b;
  }

  // One-dimensional dispatch of `groups` x `group_size` work-items.
  DispatchPacket dispatch(const Buffer& code, const Buffer& args, uint32_t arg_size, uint32_t groups,
                          uint32_t group_size) const {
    DispatchPacket d;
    d.code_va = code.va;
    d.code_size = code_size_;
    d.arg_va = args.va;
    d.arg_size = arg_size;
    d.grid_size[0] = groups;
    d.group_size[0] = group_size;
    return d;
  }

  Status submit(uint32_t ring, const std::vector<uint32_t>& packets, const std::vector<BoHandle>& bos,
                uint64_t* seqno) {
    SubmitDesc desc;
    desc.ring = ring;
    desc.packets = packets.data();
    desc.dwords = uint32_t(packets.size());
    desc.bos = bos.data();
    desc.bo_count = uint32_t(bos.size());
    return device_.submit(desc, seqno);
  }

 private:
  Device& device_;
  uint64_t next_va_;
  uint32_t code_size_ = 0;
};

// The scale kernel's arguments: x's address, then k.
inline void write_scale_args(const Buffer& args, uint64_t x_va, uint32_t k) {
  std::memcpy(args.cpu, &x_va, 8);
  std::memcpy(args.cpu + 8, &k, 4);
}

}  // namespace gsgpu::drv::test
