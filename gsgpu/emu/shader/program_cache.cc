// The cache of pre-decoded programs (see program_cache.h).
#include "gsgpu/emu/shader/program_cache.h"

#include <cstring>

namespace gsgpu::shader {

std::shared_ptr<const Program> ProgramCache::find(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                                  uint32_t entry_offset) const {
  for (const Entry& e : entries_) {
    if (e.program && e.code_va == code_va && e.entry_offset == entry_offset && e.bytes.size() == code_size &&
        std::memcmp(e.bytes.data(), bytes, code_size) == 0) {
      return e.program;
    }
  }
  return nullptr;
}

std::shared_ptr<const Program> ProgramCache::insert(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                                    uint32_t entry_offset, std::shared_ptr<const Program> program) {
  if (code_size > kMaxCachedCodeBytes) return program;
  Entry& e = entries_[next_];
  next_ = (next_ + 1) % kEntries;
  e.code_va = code_va;
  e.entry_offset = entry_offset;
  e.bytes.assign(bytes, bytes + code_size);
  e.program = std::move(program);
  return e.program;
}

}  // namespace gsgpu::shader
