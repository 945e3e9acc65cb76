#include "gsgpu/emu/registers.h"

#include <cstdio>
#include <cstdlib>

namespace gsgpu {
namespace {

// Seed 000's presence map: one entry per 4-byte slot, pointing at the register declared there.
struct PresenceMap {
  std::array<const hw::RegisterInfo*, RegisterFile::kApertureBytes / 4> slots{};
  constexpr PresenceMap() {
    for (const hw::RegisterInfo& r : hw::kRegisters) slots[r.offset / 4] = &r;
  }
};
constexpr PresenceMap kPresence;

}  // namespace

const char* register_access_result_name(RegisterAccessResult r) {
  switch (r) {
    case RegisterAccessResult::kOk: return "ok";
    case RegisterAccessResult::kHole: return "hole";
    case RegisterAccessResult::kReadOnly: return "read-only";
    case RegisterAccessResult::kUnaligned: return "unaligned";
  }
  return "unknown";
}

RegisterFile::RegisterFile() {
  reset([](const hw::RegisterInfo&) { return 0u; });
}

void RegisterFile::reset(const std::function<uint32_t(const hw::RegisterInfo&)>& config_value) {
  for (const hw::RegisterInfo& r : hw::kRegisters)
    slot(r.offset).store(r.reset_from_config ? config_value(r) : r.reset, std::memory_order_relaxed);
}

const hw::RegisterInfo* RegisterFile::info(uint32_t offset) {
  if (offset % 4 != 0 || offset >= kApertureBytes) return nullptr;
  return kPresence.slots[offset / 4];
}

RegisterAccessResult RegisterFile::external_read(uint32_t offset, uint32_t* value) const {
  if (offset % 4 != 0) return RegisterAccessResult::kUnaligned;
  const hw::RegisterInfo* r = info(offset);
  if (!r) return RegisterAccessResult::kHole;
  *value = r->access == hw::RegisterAccess::kWriteOnly ? 0 : slot(offset).load(std::memory_order_acquire);
  return RegisterAccessResult::kOk;
}

RegisterAccessResult RegisterFile::external_write(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0) return RegisterAccessResult::kUnaligned;
  const hw::RegisterInfo* r = info(offset);
  if (!r) return RegisterAccessResult::kHole;
  switch (r->access) {
    case hw::RegisterAccess::kReadOnly:
      return RegisterAccessResult::kReadOnly;
    case hw::RegisterAccess::kReadWrite:
      slot(offset).store(value, std::memory_order_release);
      break;
    case hw::RegisterAccess::kWrite1Clear:
      slot(offset).fetch_and(~value, std::memory_order_acq_rel);
      break;
    case hw::RegisterAccess::kWriteOnly:
      break;  // a trigger: the handler is all there is
  }
  if (const WriteHandler& handler = write_handlers_[offset / 4]) handler(value);
  return RegisterAccessResult::kOk;
}

void RegisterFile::set_write_handler(uint32_t offset, WriteHandler handler) {
  slot(offset);  // aborts on an offset that is no register: a device programming error
  write_handlers_[offset / 4] = std::move(handler);
}

std::atomic<uint32_t>& RegisterFile::slot(uint32_t offset) {
  if (!info(offset)) {
    std::fprintf(stderr, "gsgpu: internal register access at 0x%03x, which is no register\n", offset);
    std::abort();
  }
  return values_[offset / 4];
}

const std::atomic<uint32_t>& RegisterFile::slot(uint32_t offset) const {
  return const_cast<RegisterFile*>(this)->slot(offset);
}

uint32_t RegisterFile::load(uint32_t offset) const { return slot(offset).load(std::memory_order_acquire); }
void RegisterFile::store(uint32_t offset, uint32_t value) { slot(offset).store(value, std::memory_order_release); }
void RegisterFile::set_bits(uint32_t offset, uint32_t bits) { slot(offset).fetch_or(bits, std::memory_order_acq_rel); }
void RegisterFile::clear_bits(uint32_t offset, uint32_t bits) {
  slot(offset).fetch_and(~bits, std::memory_order_acq_rel);
}
uint32_t RegisterFile::increment(uint32_t offset) { return slot(offset).fetch_add(1, std::memory_order_acq_rel) + 1; }

void RegisterFile::store64(uint32_t offset_lo, uint32_t offset_hi, uint64_t value) {
  store(offset_lo, uint32_t(value));
  store(offset_hi, uint32_t(value >> 32));
}

uint64_t RegisterFile::load64(uint32_t offset_lo, uint32_t offset_hi) const {
  return uint64_t(load(offset_lo)) | (uint64_t(load(offset_hi)) << 32);
}

}  // namespace gsgpu
