// A gsgpu device: the emulated GPU as a library (seed 000's upper layer).
//
// A Device owns its register file, interrupt controller, MMU with VRAM, and command processor.
// The embedding program (a driver under test, host/gsgpu_ctx, gsgpu-run) drives it like hardware:
// 32-bit register reads and writes at offsets from gsgpu.xml, memory set up through the MMU, work
// submitted through the ring and the doorbell, completion seen through fences and interrupts.
//
// Register access rules: an access to an offset with no register (a hole) or an unaligned one,
// and a write to a read-only register, do nothing else than being reported: a log line naming the
// offset, ERROR_COUNT incremented, ERROR_INFO set, and the REG_ACCESS interrupt raised (delivered
// when the driver unmasked it in IRQ_MASK: that is the "optional interrupt"). Reads of holes return
// kHoleReadValue. poke_register/peek_register bypass all rules for device-internal use and tests.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gsgpu/emu/command_processor.h"
#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/irq.h"
#include "gsgpu/emu/mmu.h"
#include "gsgpu/emu/registers.h"

namespace gsgpu {

struct DeviceConfig {
  std::string name = "gsgpu0";  // prefixes log lines
  uint32_t shader_cores = 4;
  uint32_t warp_width = 32;
  uint32_t host_threads = 0;  // 0 = one per shader core, bounded by the host's hardware threads
  uint64_t vram_size = uint64_t{64} << 20;
  uint64_t va_base = 0x1000;
  uint64_t va_size = (uint64_t{4} << 30) - 0x1000;
  CpMode cp_mode = CpMode::kThread;
  // A DISPATCH whose grid x group product exceeds this is refused as a bad field: the host bounds
  // the work a (possibly hostile) command stream can ask for. Fuzzers set it low.
  uint64_t max_work_items_per_dispatch = uint64_t{1} << 40;
  // What one DRAW may cost (vertex invocations, fragments, program instructions per warp and per
  // draw); past it the draw faults. Fuzzers set these low too.
  DrawLimits draw_limits;
  // Reference (the default: tests) or fast draws (docs/graphics.md "Reference and fast modes").
  graphics::DrawMode draw_mode = graphics::DrawMode::kReference;
  // Nominal shader clock (CFG_CLOCK_MHZ): what turns the functional cycle counts into time.
  uint32_t clock_mhz = 1000;
};

struct DeviceProperties {
  std::string name;
  uint32_t chip_id = 0;   // the ID register
  uint32_t version = 0;   // the VERSION register
  uint32_t capset_id = 0;  // for the native context
  DeviceConfig config;
  uint32_t register_count = 0;
  uint32_t register_aperture_bytes = 0;
  std::string backend;  // what executes DISPATCH
};

// ERROR_INFO.KIND values.
enum class RegisterErrorKind : uint32_t { kNone = 0, kHoleRead = 1, kHoleWrite = 2, kReadOnlyWrite = 3, kUnaligned = 4 };

class Device {
 public:
  static constexpr uint32_t kHoleReadValue = 0xdeadbeef;

  // nullptr (and *error) when the configuration is unusable (zero cores, warp width not a power of
  // two in 1..64, bad VA space or VRAM size).
  static std::unique_ptr<Device> create(const DeviceConfig& config, std::string* error);
  // Same, with a chosen DISPATCH backend (tests, tools); nullptr backend = the shader cores.
  static std::unique_ptr<Device> create(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend,
                                        std::string* error);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // --- upper layer: what a driver does with the hardware ---
  uint32_t read_register(uint32_t offset);
  void write_register(uint32_t offset, uint32_t value);
  const DeviceProperties& properties() const { return properties_; }

  // Interrupt callback, run on the interrupt thread (see irq.h). Unbind before the callback's
  // captures die.
  void set_irq_callback(IrqCallback callback);
  // Forced mode through the API (the same as writing IRQ_FORCE).
  void force_interrupt(IrqCause cause);
  // Waits until every interrupt raised so far has been delivered.
  void wait_for_interrupts();

  // Where DUMP packets with TO_HOST go.
  void set_dump_sink(DumpSink sink);

  // Processes (kManual) or waits for (kThread) every doorbell rung so far, then delivers the
  // interrupts that raised.
  void run_until_idle();

  // CONTROL.SOFT_RESET: registers back to reset values, command processor idle with an empty ring,
  // MMU fault log cleared, dispatch record dropped. Mappings and VRAM contents stay.
  void reset();

  // --- internal access (no access rules), for device logic and tests ---
  uint32_t peek_register(uint32_t offset) const { return registers_.load(offset); }
  void poke_register(uint32_t offset, uint32_t value) { registers_.store(offset, value); }

  // --- state and counters ---
  Mmu& mmu() { return *mmu_; }
  VramAllocator& vram_allocator() { return vram_allocator_; }
  CommandProcessor& command_processor() { return *cp_; }
  CpState cp_state() const { return cp_->state(); }
  std::optional<CpFault> cp_fault() const { return cp_->fault(); }
  CpCounters cp_counters() const { return cp_->counters(); }
  std::optional<DispatchRecord> last_dispatch() const { return cp_->last_dispatch(); }
  std::string dump_text() const { return cp_->dump_text(); }
  uint64_t register_errors() const { return register_errors_; }

  // Convenience for tools and tests: allocates VRAM and maps it at va_base + physical offset.
  // Returns the VA, or nullopt with *error.
  std::optional<uint64_t> create_buffer(uint64_t size, uint32_t perms, std::string* error);

 private:
  Device(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend);
  uint32_t config_register_value(const hw::RegisterInfo& r) const;
  void report_register_error(RegisterErrorKind kind, uint32_t offset, uint32_t value);
  void install_write_handlers();
  void on_mmu_fault(const MemoryFault& fault);

  DeviceConfig config_;
  DeviceProperties properties_;
  RegisterFile registers_;
  InterruptController irq_;
  std::unique_ptr<Mmu> mmu_;
  VramAllocator vram_allocator_;
  std::unique_ptr<DispatchBackend> backend_;
  std::unique_ptr<CommandProcessor> cp_;
  std::atomic<uint64_t> register_errors_{0};
};

}  // namespace gsgpu
