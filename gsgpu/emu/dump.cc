#include "gsgpu/emu/dump.h"

#include <cinttypes>
#include <vector>

#include "common/text.h"

namespace gsgpu {
namespace {

// Kernels above this size are summarised rather than disassembled in full; a dump must stay
// readable and bounded whatever a guest puts in CODE_SIZE.
constexpr uint32_t kMaxDisassembledBytes = 64 * 1024;

using gsvirt::appendf;

void append_packet(std::string* out, const DispatchRecord& r) {
  const hw::PacketInfo* info = hw::find_packet(hw::pkt::DISPATCH::OPCODE);
  appendf(out, "packet @ ring offset 0x%x: %s (%u dwords)\n", r.ring_offset, info->name, info->size_dwords);
  for (uint32_t i = 0; i < info->size_dwords; ++i)
    appendf(out, "  [%2u] %-20s = 0x%08x\n", i, info->dword_names[i], r.packet[i]);
}

void append_state(std::string* out, const DispatchRequest& q) {
  appendf(out, "state:\n");
  appendf(out, "  code            va 0x%" PRIx64 ", %u bytes, entry +0x%x\n", q.code_va, q.code_size,
          q.entry_offset);
  appendf(out, "  arguments       va 0x%" PRIx64 ", %u bytes\n", q.arg_va, q.arg_size);
  appendf(out, "  grid            %u x %u x %u work-groups\n", q.grid_size[0], q.grid_size[1], q.grid_size[2]);
  appendf(out, "  work-group      %u x %u x %u work-items\n", q.group_size[0], q.group_size[1],
          q.group_size[2]);
  appendf(out, "  global offset   %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n", q.global_offset[0],
          q.global_offset[1], q.global_offset[2]);
  appendf(out, "  local memory    %u bytes per work-group\n", q.local_mem_size);
  appendf(out, "  private memory  %u bytes per work-item\n", q.private_mem_size);
  appendf(out, "  watchdog        %" PRIu64 " instructions per warp%s\n", q.instruction_budget,
          q.instruction_budget == 0 ? " (shader-core default)" : "");
}

void append_outcome(std::string* out, const DispatchRecord& r) {
  const DispatchCounterValues& c = r.outcome.counters;
  appendf(out, "counters:\n");
  appendf(out, "  instructions_issued       %" PRIu64 "\n", c.instructions_issued);
  appendf(out, "  active_lane_instructions  %" PRIu64 "\n", c.active_lane_instructions);
  appendf(out, "  cycles                    %" PRIu64 "\n", c.cycles);
  appendf(out, "  work_groups               %" PRIu64 "\n", c.work_groups);
  appendf(out, "  faults                    %u\n", c.faults);
  appendf(out, "  cp_packets_before         %" PRIu64 "\n", r.cp_packets_before);
  appendf(out, "  host_seconds              %.6f\n", r.host_seconds);
  if (!r.outcome.fault) {
    appendf(out, "result: ok\n");
    return;
  }
  const DispatchFault& f = *r.outcome.fault;
  appendf(out, "result: fault %s at pc 0x%" PRIx64 " in group (%u, %u, %u)", dispatch_fault_name(f.kind), f.pc,
          f.group_id[0], f.group_id[1], f.group_id[2]);
  if (f.kind == DispatchFaultKind::kMemory)
    appendf(out, ", %s of %" PRIu64 " bytes at va 0x%" PRIx64, access_name(f.memory.access), f.memory.size,
            f.memory.address);
  out->append(": ");
  out->append(f.message);
  out->append("\n");
}

// A run of one word at the end of the code (zero padding up to CODE_SIZE, a guest's fill) is shown
// for its first kShownRunWords words and then counted: a 64 KiB kernel of padding gave a line per
// word, 16k alike, and formatting them was 40 % of the command-processor fuzzer's time. Runs
// shorter than kFoldedRunWords are shown whole.
constexpr size_t kFoldedRunWords = 64;
constexpr size_t kShownRunWords = 8;  // more than the longest instruction (3 words)

// Where the run of words equal to the last one starts (0 for an empty or uniform kernel).
size_t trailing_run_start(const std::vector<uint32_t>& words) {
  size_t start = words.size();
  while (start > 0 && words[start - 1] == words.back()) --start;
  return start;
}

void append_kernel(std::string* out, const DispatchRecord& r, DispatchBackend& backend, const Mmu& memory) {
  const DispatchRequest& q = r.request;
  uint32_t bytes = std::min(q.code_size, kMaxDisassembledBytes) & ~3u;
  appendf(out, "kernel (%u bytes at va 0x%" PRIx64 "%s):\n", q.code_size, q.code_va,
          bytes < q.code_size ? ", truncated" : "");
  std::vector<uint32_t> words(bytes / 4);
  if (!memory.read(q.code_va, words.data(), bytes)) {
    out->append("  <kernel code not readable through the MMU>\n");
    return;
  }
  size_t shown = words.size();
  const size_t run = trailing_run_start(words);
  if (words.size() - run >= kFoldedRunWords) shown = run + kShownRunWords;
  out->append(backend.disassemble(words.data(), shown));
  if (!out->empty() && out->back() != '\n') out->push_back('\n');
  if (shown < words.size())
    appendf(out, "  ... 0x%08x repeated to the end of the code: %zu more words (+0x%zx to +0x%zx) not shown\n",
            words.back(), words.size() - shown, shown * 4, words.size() * 4);
}

}  // namespace

std::string format_dispatch_dump(const DispatchRecord& record, DispatchBackend& backend, const Mmu& memory) {
  std::string out;
  appendf(&out, "=== gsgpu dispatch dump #%" PRIu64 " (backend: %s) ===\n", record.sequence, backend.name());
  append_packet(&out, record);
  append_state(&out, record.request);
  append_outcome(&out, record);
  append_kernel(&out, record, backend, memory);
  out.append("=== end of dump ===\n");
  return out;
}

std::string format_empty_dump() { return "=== gsgpu dispatch dump: no dispatch since reset ===\n"; }

const char* dispatch_fault_name(DispatchFaultKind kind) {
  switch (kind) {
    case DispatchFaultKind::kNone: return "none";
    case DispatchFaultKind::kMemory: return "memory";
    case DispatchFaultKind::kWatchdog: return "watchdog";
    case DispatchFaultKind::kIllegalInstruction: return "illegal-instruction";
    case DispatchFaultKind::kPcOutOfRange: return "pc-out-of-range";
    case DispatchFaultKind::kBadDispatch: return "bad-dispatch";
    case DispatchFaultKind::kNotSupported: return "not-supported";
    case DispatchFaultKind::kCancelled: return "cancelled";
    case DispatchFaultKind::kBadDescriptor: return "bad-descriptor";
  }
  return "unknown";
}

}  // namespace gsgpu
