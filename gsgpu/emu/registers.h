// The gsgpu register file: storage and access rules for the registers declared in gsgpu.xml.
//
// Seed 000's middle layer: at creation the emulator knows every register's offset, so it keeps a
// presence map with one entry per 4-byte slot of the aperture; an access to a slot with no register
// (a hole) is refused and reported by the caller instead of being silently ignored. External
// accesses (the driver, through Device::read_register/write_register) obey the access rules;
// internal accesses (device logic setting a read-only status register) bypass them.
// Every register is an atomic so that the command-processor thread, the interrupt thread and the
// driver may touch the file at the same time.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>

#include "protocol/gsgpu/gsgpu_hw.h"

namespace gsgpu {

enum class RegisterAccessResult {
  kOk,
  kHole,       // no register at that offset
  kReadOnly,   // external write to a read-only register
  kUnaligned,  // offset not a multiple of 4
};

const char* register_access_result_name(RegisterAccessResult r);

class RegisterFile {
 public:
  // Aperture size in bytes: offsets at or beyond it are holes too.
  static constexpr uint32_t kApertureBytes = hw::kRegisterSpaceBytes;

  // Registers start at their XML reset values; registers marked reset="config" start at 0 until
  // reset() gives them their configured values.
  RegisterFile();

  // Every register back to its reset value; `config_value` supplies reset="config" registers.
  void reset(const std::function<uint32_t(const hw::RegisterInfo&)>& config_value);

  // The register declared at `offset`, or nullptr for a hole (or an unaligned offset).
  static const hw::RegisterInfo* info(uint32_t offset);
  static bool exists(uint32_t offset) { return info(offset) != nullptr; }

  // Seed 000: most registers use the standard handlers (an atomic load or store); a register with
  // behaviour on write (a doorbell, a reset bit) gets a write handler, run after the standard
  // store with the value written. Handlers are installed once, before the device is used.
  using WriteHandler = std::function<void(uint32_t value)>;
  void set_write_handler(uint32_t offset, WriteHandler handler);

  // External accesses. A write to a w1c register clears the bits written as 1; a write-only
  // register keeps nothing (reads return 0); then the register's write handler runs (kOk only).
  RegisterAccessResult external_read(uint32_t offset, uint32_t* value) const;
  RegisterAccessResult external_write(uint32_t offset, uint32_t value);

  // Internal accesses: no access rules. `offset` must name a register (checked: a bad offset in
  // device code is a programming error and aborts).
  uint32_t load(uint32_t offset) const;
  void store(uint32_t offset, uint32_t value);
  void set_bits(uint32_t offset, uint32_t bits);
  void clear_bits(uint32_t offset, uint32_t bits);
  uint32_t increment(uint32_t offset);  // returns the new value
  void store64(uint32_t offset_lo, uint32_t offset_hi, uint64_t value);
  uint64_t load64(uint32_t offset_lo, uint32_t offset_hi) const;

 private:
  static constexpr size_t kSlots = kApertureBytes / 4;
  std::atomic<uint32_t>& slot(uint32_t offset);
  const std::atomic<uint32_t>& slot(uint32_t offset) const;

  std::array<std::atomic<uint32_t>, kSlots> values_{};
  std::array<WriteHandler, kSlots> write_handlers_{};
};

}  // namespace gsgpu
