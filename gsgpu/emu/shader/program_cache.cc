// The cache of pre-decoded programs (see program_cache.h).
#include "gsgpu/emu/shader/program_cache.h"

#include <cstring>

namespace gsgpu::shader {

const Program* ProgramCache::find(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                  uint32_t entry_offset) const {
  for (const Entry& e : entries_) {
    if (e.program && e.code_va == code_va && e.entry_offset == entry_offset && e.bytes.size() == code_size &&
        std::memcmp(e.bytes.data(), bytes, code_size) == 0) {
      return e.program.get();
    }
  }
  return nullptr;
}

const Program* ProgramCache::insert(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                    uint32_t entry_offset, std::unique_ptr<Program> program) {
  if (code_size > kMaxCachedCodeBytes) {
    uncached_ = std::move(program);
    return uncached_.get();
  }
  Entry& e = entries_[next_];
  next_ = (next_ + 1) % kEntries;
  e.code_va = code_va;
  e.entry_offset = entry_offset;
  e.bytes.assign(bytes, bytes + code_size);
  e.program = std::move(program);
  return e.program.get();
}

}  // namespace gsgpu::shader
