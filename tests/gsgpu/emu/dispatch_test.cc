// DISPATCH on the real shader cores through the command processor: results, counters, the DUMP
// disassembly, and kernels that misbehave (endless loops, jumps out of their code, bad memory,
// illegal words) ending in reported faults on a device that stays usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "gsgpu/isa/assembler.h"
#include "test_util.h"

namespace gsgpu {
namespace {

using test::LogCapture;
using test::must_buffer;

constexpr const char* kVectorAdd = R"(
; c[i] = a[i] + b[i]; arguments: a, b, c as 64-bit addresses
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b64 s[4:5], s[0:1], 8
  s_load_b64 s[6:7], s[0:1], 16
  v_special v[0:1], global_id_x
  v_shl_b64 v[2:3], v[0:1], 2
  v_add_u64 v[4:5], v[2:3], s[2:3]
  global_load_b32 v6, v[4:5], 0
  v_add_u64 v[4:5], v[2:3], s[4:5]
  global_load_b32 v7, v[4:5], 0
  v_add_u32 v8, v6, v7
  v_add_u64 v[4:5], v[2:3], s[6:7]
  global_store_b32 v[4:5], v8, 0
  s_end
)";

class DispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DeviceConfig c = test::small_config(CpMode::kThread);
    c.shader_cores = 2;
    c.warp_width = 16;
    c.host_threads = 2;
    device_ = test::make_device(c);
    ring_va_ = must_buffer(*device_, 4096, kPermRead);
    fence_va_ = must_buffer(*device_, 4096);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
    device_->set_irq_callback([this](const IrqEvent& e) {
      std::lock_guard lock(mutex_);
      irqs_.push_back(e.cause);
    });
    device_->write_register(hw::reg::IRQ_MASK, irq_defined_bits());
  }
  void TearDown() override { device_->set_irq_callback(nullptr); }

  uint64_t load_kernel(const char* source) {
    std::vector<uint32_t> words;
    std::string error;
    EXPECT_TRUE(isa::assemble(source, &words, &error)) << error;
    uint64_t va = must_buffer(*device_, words.size() * 4, kPermRead | kPermExecute);
    EXPECT_TRUE(device_->mmu().write(va, words.data(), words.size() * 4));
    code_size_ = uint32_t(words.size() * 4);
    return va;
  }
  uint64_t upload(const std::vector<uint32_t>& data) {
    uint64_t va = must_buffer(*device_, data.size() * 4);
    EXPECT_TRUE(device_->mmu().write(va, data.data(), data.size() * 4));
    return va;
  }
  std::vector<uint32_t> download(uint64_t va, size_t count) {
    std::vector<uint32_t> out(count);
    EXPECT_TRUE(device_->mmu().read(va, out.data(), count * 4));
    return out;
  }
  // DISPATCH + SYNC(fence = `fence`), run, and say whether the fence landed.
  bool run_dispatch(const DispatchRequest& q, uint64_t fence) {
    std::string error;
    EXPECT_TRUE(ring_->write(make_dispatch_packet(q), &error)) << error;
    EXPECT_TRUE(ring_->write(make_sync_packet(hw::pkt::SYNC::FLAGS_WRITE_FENCE_MASK | hw::pkt::SYNC::FLAGS_FENCE_64BIT_MASK |
                                                  hw::pkt::SYNC::FLAGS_RAISE_IRQ_MASK,
                                              fence_va_, fence),
                             &error))
        << error;
    ring_->kick();
    device_->run_until_idle();
    uint64_t value = 0;
    device_->mmu().read(fence_va_, &value, 8);
    return value == fence;
  }
  DispatchRequest request(uint64_t code_va, uint32_t groups, uint32_t group_size, uint64_t arg_va = 0,
                          uint32_t arg_size = 0) {
    DispatchRequest q;
    q.code_va = code_va;
    q.code_size = code_size_;
    q.arg_va = arg_va;
    q.arg_size = arg_size;
    q.grid_size[0] = groups;
    q.group_size[0] = group_size;
    return q;
  }
  bool saw(IrqCause c) {
    std::lock_guard lock(mutex_);
    return std::find(irqs_.begin(), irqs_.end(), c) != irqs_.end();
  }
  DispatchFaultKind shader_fault_kind() {
    return DispatchFaultKind((device_->read_register(hw::reg::SHADER_FAULT_INFO) &
                              hw::field::SHADER_FAULT_INFO::KIND_MASK) >>
                             hw::field::SHADER_FAULT_INFO::KIND_SHIFT);
  }
  void reset_cp() {
    device_->write_register(hw::reg::CP_CONTROL, hw::field::CP_CONTROL::RESET_MASK);
    ring_ = std::make_unique<RingWriter>(*device_, ring_va_, 4096);
  }
  // Runs the vector add and checks every element: the device is fully usable.
  void expect_vector_add_works(uint64_t fence) {
    const uint32_t n = 200;
    std::vector<uint32_t> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = i * 3 + 1;
      b[i] = 0x10000 * i;
    }
    uint64_t a_va = upload(a), b_va = upload(b), c_va = upload(std::vector<uint32_t>(n, 0xffffffff));
    uint64_t args_va = upload({uint32_t(a_va), uint32_t(a_va >> 32), uint32_t(b_va), uint32_t(b_va >> 32),
                               uint32_t(c_va), uint32_t(c_va >> 32)});
    uint64_t code_va = load_kernel(kVectorAdd);
    ASSERT_TRUE(run_dispatch(request(code_va, 5, 40, args_va, 24), fence))
        << cp_state_name(device_->cp_state()) << " " << (device_->cp_fault() ? device_->cp_fault()->message : "");
    std::vector<uint32_t> c = download(c_va, n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
  }

  std::unique_ptr<Device> device_;
  std::unique_ptr<RingWriter> ring_;
  uint64_t ring_va_ = 0, fence_va_ = 0;
  uint32_t code_size_ = 0;
  std::mutex mutex_;
  std::vector<IrqCause> irqs_;
};

TEST_F(DispatchTest, VectorAddComputesEveryElementAndCounts) {
  expect_vector_add_works(1);
  EXPECT_TRUE(saw(IrqCause::kFence));
  auto record = device_->last_dispatch();
  ASSERT_TRUE(record);
  EXPECT_FALSE(record->outcome.fault);
  const DispatchCounterValues& c = record->outcome.counters;
  EXPECT_EQ(c.work_groups, 5u);
  EXPECT_EQ(c.faults, 0u);
  // 5 groups of 40 items in warps of 16: 3 warps per group, the last one 8 lanes wide.
  const uint64_t warps = 5 * 3;
  EXPECT_EQ(c.instructions_issued % warps, 0u);
  const uint64_t per_warp = c.instructions_issued / warps;
  EXPECT_EQ(c.active_lane_instructions, per_warp * 200);
  EXPECT_GT(c.cycles, 0u);
  EXPECT_EQ(device_->read_register(hw::reg::DISPATCH_COUNT), 1u);
  // The same counters through the performance registers.
  auto reg64 = [&](uint32_t lo, uint32_t hi) {
    return uint64_t(device_->read_register(lo)) | (uint64_t(device_->read_register(hi)) << 32);
  };
  EXPECT_EQ(reg64(hw::reg::PERF_INSTRUCTIONS_LO, hw::reg::PERF_INSTRUCTIONS_HI), c.instructions_issued);
  EXPECT_EQ(reg64(hw::reg::PERF_LANE_INSTRUCTIONS_LO, hw::reg::PERF_LANE_INSTRUCTIONS_HI), c.active_lane_instructions);
  EXPECT_EQ(reg64(hw::reg::PERF_CYCLES_LO, hw::reg::PERF_CYCLES_HI), c.cycles);
  EXPECT_EQ(device_->read_register(hw::reg::PERF_WORK_GROUPS), 5u);
}

// A load from a scalar (uniform) address reads once and writes every active lane, and only those:
// lanes a branch left out keep their values, in full warps and in a last warp of 8 of 16 lanes.
TEST_F(DispatchTest, UniformLoadsWriteEveryActiveLaneAndNoOther) {
  const char* kernel = R"(
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b64 s[4:5], s[0:1], 8
  s_load_b64 s[6:7], s[0:1], 16
  s_load_b64 s[8:9], s[0:1], 24
  v_special v[0:1], global_id_x
  v_mov_b32 v2, 0x7
  v_mov_b32 v6, 0x9
  v_mov_b32 v7, 0xb
  const_load_b32 v8, s[0:1], 44
  v_and_b32 v3, v0, 0x1
  v_branch_z v3, skip, skip
  const_load_b32 v2, s[0:1], 32
  const_load_b64 v[6:7], s[0:1], 36
skip:
  v_shl_b64 v[4:5], v[0:1], 2
  v_add_u64 v[10:11], v[4:5], s[2:3]
  global_store_b32 v[10:11], v2, 0
  v_add_u64 v[10:11], v[4:5], s[4:5]
  global_store_b32 v[10:11], v6, 0
  v_add_u64 v[10:11], v[4:5], s[6:7]
  global_store_b32 v[10:11], v7, 0
  v_add_u64 v[10:11], v[4:5], s[8:9]
  global_store_b32 v[10:11], v8, 0
  s_end
)";
  const uint32_t n = 120;  // 3 groups of 40: warps of 16, 16 and 8 lanes
  uint64_t out[4];
  for (uint64_t& va : out) va = upload(std::vector<uint32_t>(n, 0xffffffff));
  std::vector<uint32_t> args;
  for (uint64_t va : out) args.insert(args.end(), {uint32_t(va), uint32_t(va >> 32)});
  args.insert(args.end(), {0x11111111, 0x22222222, 0x33333333, 0x44444444});  // bytes 32, 36, 40, 44
  uint64_t args_va = upload(args);
  ASSERT_TRUE(run_dispatch(request(load_kernel(kernel), 3, 40, args_va, uint32_t(args.size() * 4)), 9));
  const std::vector<uint32_t> a = download(out[0], n), b = download(out[1], n), c = download(out[2], n),
                              d = download(out[3], n);
  for (uint32_t i = 0; i < n; ++i) {
    const bool loaded = i % 2 == 1;
    EXPECT_EQ(a[i], loaded ? 0x11111111u : 7u) << i;
    EXPECT_EQ(b[i], loaded ? 0x22222222u : 9u) << i;
    EXPECT_EQ(c[i], loaded ? 0x33333333u : 11u) << i;
    EXPECT_EQ(d[i], 0x44444444u) << i;
  }
}

TEST_F(DispatchTest, DumpContainsTheDisassembledKernel) {
  expect_vector_add_works(1);
  std::string text = device_->dump_text();
  for (const char* needle : {"DISPATCH (22 dwords)", "5 x 1 x 1 work-groups", "40 x 1 x 1 work-items",
                             "global_load_b32 v6, v[4:5], 0", "v_add_u32 v8, v6, v7", "s_end", "result: ok"})
    EXPECT_NE(text.find(needle), std::string::npos) << "missing '" << needle << "' in\n" << text;
}

// Padding after the kernel (CODE_SIZE past s_end) is counted in the dump, not listed word by word;
// a short run of one word is still listed.
TEST_F(DispatchTest, DumpCountsTrailingPaddingInsteadOfListingIt) {
  for (const size_t padding : {size_t{4092}, size_t{16}}) {
    std::vector<uint32_t> words;
    std::string error;
    ASSERT_TRUE(isa::assemble("  s_nop\n  s_end\n", &words, &error)) << error;
    const size_t kernel_words = words.size();
    words.resize(kernel_words + padding, 0);
    const uint64_t code_va = must_buffer(*device_, words.size() * 4, kPermRead | kPermExecute);
    ASSERT_TRUE(device_->mmu().write(code_va, words.data(), words.size() * 4));
    code_size_ = uint32_t(words.size() * 4);
    ASSERT_TRUE(run_dispatch(request(code_va, 1, 1), 3 + padding));
    const std::string text = device_->dump_text();
    const size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
    const size_t folded = text.find("0x00000000 repeated to the end of the code");
    EXPECT_NE(text.find("s_end"), std::string::npos) << text;
    if (padding > 64) {
      ASSERT_NE(folded, std::string::npos) << text.substr(0, 4000);
      size_t run_start = words.size();  // the zero run may begin inside the kernel's last instruction
      while (run_start > 0 && words[run_start - 1] == 0) --run_start;
      const std::string count = std::to_string(words.size() - run_start - 8) + " more words";
      EXPECT_NE(text.find(count), std::string::npos) << text.substr(folded);
      EXPECT_LT(lines, 100u);
    } else {
      EXPECT_EQ(folded, std::string::npos);
      EXPECT_GT(lines, kernel_words + padding);
    }
    reset_cp();
  }
}

TEST_F(DispatchTest, EndlessLoopTripsTheWatchdog) {
  device_->write_register(hw::reg::WATCHDOG_BUDGET, 10000);
  uint64_t code_va = load_kernel("spin:\n  s_nop\n  s_jump spin\n");
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(code_va, 2, 32), 7)) << "no fence after a faulted dispatch";
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_EQ(device_->cp_fault()->cause, CpFaultCause::kDispatchFault);
  EXPECT_EQ(shader_fault_kind(), DispatchFaultKind::kWatchdog);
  EXPECT_TRUE(saw(IrqCause::kShaderFault));
  EXPECT_NE(device_->dump_text().find("result: fault watchdog"), std::string::npos);
  reset_cp();
  expect_vector_add_works(2);
}

TEST_F(DispatchTest, JumpOutOfTheCodeIsAFault) {
  uint64_t code_va = load_kernel("  s_jump pc+4096\n  s_end\n");
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(code_va, 1, 8), 3));
  EXPECT_EQ(shader_fault_kind(), DispatchFaultKind::kPcOutOfRange);
  uint64_t pc = uint64_t(device_->read_register(hw::reg::SHADER_FAULT_PC_LO)) |
                (uint64_t(device_->read_register(hw::reg::SHADER_FAULT_PC_HI)) << 32);
  EXPECT_TRUE(pc == code_va || pc == code_va + 4096) << "the jump or its target, got " << pc;
  EXPECT_TRUE(saw(IrqCause::kShaderFault));
  reset_cp();
  expect_vector_add_works(4);
}

TEST_F(DispatchTest, StoreToUnmappedMemoryFaultsWithTheAddress) {
  const uint64_t bad = device_->properties().config.va_base + 0xf00000;
  std::vector<uint32_t> args = {uint32_t(bad), uint32_t(bad >> 32)};
  uint64_t args_va = upload(args);
  uint64_t code_va = load_kernel(R"(
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  v_mov_b64 v[0:1], s[2:3]
  v_mov_b32 v2, 5
  global_store_b32 v[0:1], v2, 0
  s_end
)");
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(code_va, 1, 4, args_va, 8), 5));
  EXPECT_EQ(shader_fault_kind(), DispatchFaultKind::kMemory);
  EXPECT_TRUE(saw(IrqCause::kShaderFault));
  EXPECT_TRUE(saw(IrqCause::kMmuFault));
  EXPECT_EQ(device_->read_register(hw::reg::MMU_FAULT_ADDR_LO), uint32_t(bad));
  uint32_t info = device_->read_register(hw::reg::MMU_FAULT_INFO);
  EXPECT_EQ((info & hw::field::MMU_FAULT_INFO::ACCESS_MASK) >> hw::field::MMU_FAULT_INFO::ACCESS_SHIFT,
            uint32_t(Access::kWrite));
  reset_cp();
  expect_vector_add_works(6);
}

// Image instructions through the MMU (docs/isa.md section 8b): a load reads the texels of a
// descriptor in a device buffer; a descriptor field the texture unit refuses is
// SHADER_FAULT_INFO.KIND 8, named in the dump, and the device runs the next dispatch after a reset.
TEST_F(DispatchTest, ImageLoadWorksAndARefusedDescriptorIsKind8) {
  namespace d = hw::blk::IMAGE_DESC;
  const std::vector<uint32_t> texels = {0x3fc00000, 1, 2, 3, 0x40200000, 5, 6, 7};  // 2x1 RGBA float
  const uint64_t texels_va = upload(texels);
  auto descriptor = [&](uint32_t width) {
    std::vector<uint32_t> w(d::SIZE_DWORDS, 0);
    w[d::BASE_VA_LO] = uint32_t(texels_va);
    w[d::BASE_VA_HI] = uint32_t(texels_va >> 32);
    w[d::FORMAT] = hw::put_field(d::FORMAT_CHANNEL_ORDER_RGBA, d::FORMAT_CHANNEL_ORDER_MASK, d::FORMAT_CHANNEL_ORDER_SHIFT) |
                   hw::put_field(d::FORMAT_DATA_TYPE_FLOAT, d::FORMAT_DATA_TYPE_MASK, d::FORMAT_DATA_TYPE_SHIFT) |
                   hw::put_field(d::FORMAT_TYPE_IMAGE_2D, d::FORMAT_TYPE_MASK, d::FORMAT_TYPE_SHIFT) |
                   hw::put_field(1, d::FORMAT_MIP_LEVELS_MASK, d::FORMAT_MIP_LEVELS_SHIFT);
    w[d::WIDTH] = width;
    w[d::HEIGHT] = w[d::DEPTH] = w[d::ARRAY_SIZE] = 1;
    w[d::ROW_PITCH] = 32;
    return upload(w);
  };
  const uint64_t out_va = upload(std::vector<uint32_t>(8, 0xffffffff));
  const uint64_t code_va = load_kernel(R"(
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b64 s[4:5], s[0:1], 8
  v_special v8, local_id_x
  v_mov_b32 v9, 0
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_image_load v[12:15], s[2:3], v[8:11]
  v_shl_b32 v1, v8, 4
  v_zext_u64_u32 v[2:3], v1
  v_add_u64 v[4:5], v[2:3], s[4:5]
  global_store_b32 v[4:5], v12, 0
  global_store_b32 v[4:5], v13, 4
  global_store_b32 v[4:5], v14, 8
  global_store_b32 v[4:5], v15, 12
  s_end
)");
  const uint64_t good = descriptor(2);
  const uint64_t good_args = upload({uint32_t(good), uint32_t(good >> 32), uint32_t(out_va), uint32_t(out_va >> 32)});
  ASSERT_TRUE(run_dispatch(request(code_va, 1, 2, good_args, 16), 13));
  EXPECT_EQ(download(out_va, 8), texels);

  const uint64_t bad = descriptor(0);
  const uint64_t bad_args = upload({uint32_t(bad), uint32_t(bad >> 32), uint32_t(out_va), uint32_t(out_va >> 32)});
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(code_va, 1, 2, bad_args, 16), 14));
  EXPECT_EQ(shader_fault_kind(), DispatchFaultKind::kBadDescriptor);
  EXPECT_EQ(uint32_t(DispatchFaultKind::kBadDescriptor), 8u);
  EXPECT_TRUE(saw(IrqCause::kShaderFault));
  const std::string dump = device_->dump_text();
  EXPECT_NE(dump.find("bad-descriptor"), std::string::npos) << dump;
  EXPECT_NE(dump.find("WIDTH"), std::string::npos) << dump;
  reset_cp();
  expect_vector_add_works(15);
}

TEST_F(DispatchTest, IllegalInstructionWordsAreAFault) {
  uint64_t code_va = load_kernel(".word 0xffffffff, 0xffffffff\n  s_end\n");
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(code_va, 1, 1), 9));
  EXPECT_EQ(shader_fault_kind(), DispatchFaultKind::kIllegalInstruction);
  reset_cp();
  expect_vector_add_works(10);
}

TEST_F(DispatchTest, KernelCodeWithoutExecutePermissionFaults) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(isa::assemble("  s_end\n", &words, &error)) << error;
  uint64_t va = upload(words);  // read/write, not executable
  code_size_ = uint32_t(words.size() * 4);
  LogCapture log;
  EXPECT_FALSE(run_dispatch(request(va, 1, 1), 11));
  EXPECT_EQ(device_->cp_state(), CpState::kFaulted);
  EXPECT_TRUE(saw(IrqCause::kMmuFault) || saw(IrqCause::kShaderFault));
  reset_cp();
  expect_vector_add_works(12);
}

}  // namespace
}  // namespace gsgpu
