// The shader cores' cache of pre-decoded programs.
//
// A draw dispatches the same vertex and fragment programs once per batch, hundreds of times per
// frame, and each dispatch decoded and validated every instruction of its code again (predecode:
// 3 % of a frame of small triangles). The cache keeps the last few programs with the code words
// they were decoded from. A dispatch reuses an entry only when its code address, entry offset and
// the code words now in GPU memory are all the same as the entry's: the words are compared on
// every lookup, so code the guest rewrote between dispatches is decoded afresh. Only what depends
// on nothing but those is cached (the decoded instructions, the entry index, the registers the
// code names); checks against a dispatch's other parameters stay per dispatch (shader_core.cc).
// Not thread-safe: the cores lock it; programs are shared, so that a dispatch keeps its program
// while another dispatch, running at the same time, replaces the entry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "gsgpu/emu/shader/warp.h"

namespace gsgpu::shader {

class ProgramCache {
 public:
  // Code larger than this is decoded per dispatch, not kept (bounds the cache's memory).
  static constexpr uint64_t kMaxCachedCodeBytes = 64 * 1024;
  static constexpr size_t kEntries = 4;

  // The program decoded from exactly these `code_size` bytes at `code_va` with this entry offset,
  // or nullptr.
  std::shared_ptr<const Program> find(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                      uint32_t entry_offset) const;
  // Keeps `program` (decoded from `bytes`) in place of the oldest entry, when the code is small
  // enough; returns it either way.
  std::shared_ptr<const Program> insert(uint64_t code_va, const uint8_t* bytes, uint64_t code_size,
                                        uint32_t entry_offset, std::shared_ptr<const Program> program);

 private:
  struct Entry {
    uint64_t code_va = 0;
    uint32_t entry_offset = 0;
    std::vector<uint8_t> bytes;  // the code the program was decoded from
    std::shared_ptr<const Program> program;
  };
  std::array<Entry, kEntries> entries_;
  size_t next_ = 0;  // the entry insert() replaces next (round robin)
};

}  // namespace gsgpu::shader
