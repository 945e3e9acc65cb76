// libFuzzer target: arbitrary bytes as ring contents and register writes for a small gsgpu device.
//
// Input layout:
//   byte 0       ring size selector: 16 << (b % 9) bytes (16 .. 4096)
//   byte 1       number of register writes (b % 8)
//   6 bytes each {u16 offset, u32 value}, applied after the harness programmed the ring, so they
//                may break the ring registers, force interrupts, reset the CP, write holes ...
//   the rest     copied to the start of the ring (RING_TAIL = its length, 4-aligned, inside the
//                ring) and into the executable data area behind it, so DISPATCH packets can run
//                fuzzed code.
// The device lives across inputs and is soft-reset before each one. Work is bounded (watchdog
// budget, work-items per dispatch) so every input finishes quickly. Invariants checked: the CP ends
// idle, halted or faulted, and a faulted CP has a recorded cause.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/log.h"
#include "gsgpu/emu/device.h"

namespace {

constexpr uint64_t kVaBase = 0x10000;
constexpr uint64_t kMappedBytes = 64 * 1024;
constexpr uint32_t kMaxBudget = 2000;

gsgpu::Device& device() {
  static std::unique_ptr<gsgpu::Device> d = [] {
    gsvirt::set_log_sink([](const char*, void*) {}, nullptr);  // faults are expected and frequent
    gsgpu::DeviceConfig c;
    c.name = "fuzz";
    c.shader_cores = 2;
    c.warp_width = 8;
    c.host_threads = 1;
    c.vram_size = 1 << 20;
    c.va_base = kVaBase;
    c.va_size = 1 << 24;
    c.cp_mode = gsgpu::CpMode::kManual;
    c.max_work_items_per_dispatch = 4096;
    std::string error;
    auto dev = gsgpu::Device::create(c, &error);
    if (!dev || !dev->mmu().map(kVaBase, kMappedBytes, 0, gsgpu::kPermAll, &error)) std::abort();
    return dev;
  }();
  return *d;
}

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  gsgpu::Device& d = device();
  d.reset();
  std::memset(d.mmu().vram(), 0, kMappedBytes);

  const uint32_t ring_size = 16u << (data[0] % 9);
  size_t writes = data[1] % 8;
  size_t pos = 2;
  const uint8_t* reg_writes = data + pos;
  if (size - pos < writes * 6) writes = (size - pos) / 6;
  pos += writes * 6;

  const uint8_t* ring_bytes = data + pos;
  const size_t ring_len = std::min<size_t>(size - pos, ring_size - 4);
  std::memcpy(d.mmu().vram(), ring_bytes, ring_len);
  std::memcpy(d.mmu().vram() + 4096, ring_bytes, std::min<size_t>(size - pos, kMappedBytes - 4096));

  namespace reg = gsgpu::hw::reg;
  d.write_register(reg::RING_BASE_LO, uint32_t(kVaBase));
  d.write_register(reg::RING_BASE_HI, 0);
  d.write_register(reg::RING_SIZE, ring_size);
  d.write_register(reg::RING_TAIL, uint32_t(ring_len & ~size_t{3}));
  d.write_register(reg::IRQ_MASK, ~0u);
  for (size_t i = 0; i < writes; ++i) {
    uint32_t offset = uint32_t(reg_writes[i * 6]) | (uint32_t(reg_writes[i * 6 + 1]) << 8);
    d.write_register(offset, read_u32(reg_writes + i * 6 + 2));
  }
  uint32_t budget = d.read_register(reg::WATCHDOG_BUDGET);
  if (budget == 0 || budget > kMaxBudget) d.poke_register(reg::WATCHDOG_BUDGET, kMaxBudget);
  d.write_register(reg::DOORBELL, 1);
  d.run_until_idle();

  gsgpu::CpState s = d.cp_state();
  if (s == gsgpu::CpState::kBusy) std::abort();
  if (s == gsgpu::CpState::kFaulted && !d.cp_fault()) std::abort();
  (void)d.dump_text();  // formatting the last dispatch must be safe whatever it was
  // What this input left in the device (its last dispatch's record, a fault) is freed now, not by
  // the next input's reset: libFuzzer runs every input that ends with more allocations than frees
  // a second time under the leak checker, which took 12 % of this target's time.
  d.reset();
  return 0;
}
