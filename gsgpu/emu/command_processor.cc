#include "gsgpu/emu/command_processor.h"

#include <chrono>
#include <cstdarg>
#include <cinttypes>
#include <cstring>

#include "common/checked_math.h"
#include "common/log.h"
#include "gsgpu/emu/draw_byte_count.h"
#include "gsgpu/emu/draw_state.h"
#include "gsgpu/emu/dump.h"
#include "gsgpu/emu/program_runner.h"
#include "gsgpu/emu/graphics/draw_dump.h"

namespace gsgpu {
namespace {

namespace hdr = hw::PACKET_HEADER;

// Ring size bounds: at least room for a few packets, at most what a guest may make the CP walk.
constexpr uint32_t kMinRingBytes = 16;
constexpr uint32_t kMaxRingBytes = 16u << 20;
// The longest fixed-size packet; NOP is the only variable-size one and its payload is skipped.
constexpr uint32_t kMaxFixedPacketDwords = 32;
static_assert(hw::pkt::DISPATCH::SIZE_DWORDS <= kMaxFixedPacketDwords);

uint32_t field(uint32_t value, uint32_t mask, uint32_t shift) { return (value & mask) >> shift; }

std::string text_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string text_printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

const char* packet_name(uint32_t opcode) {
  const hw::PacketInfo* info = hw::find_packet(opcode);
  return info ? info->name : "unknown";
}

struct HeaderProblem {
  CpFaultCause cause;
  std::string message;
};

// What is wrong with a packet header (`info` is nullptr for an unknown opcode), if anything.
std::optional<HeaderProblem> check_header(const hw::PacketInfo* info, uint32_t header, uint32_t bytes_before_tail) {
  const uint32_t opcode = field(header, hdr::OPCODE_MASK, hdr::OPCODE_SHIFT);
  const uint32_t size_dwords = field(header, hdr::SIZE_DWORDS_MASK, hdr::SIZE_DWORDS_SHIFT);
  if (!info)
    return HeaderProblem{CpFaultCause::kUnknownOpcode,
                         text_printf("header 0x%08x: opcode 0x%02x is no packet", header, opcode)};
  const bool size_ok = size_dwords != 0 && (info->variable_size ? size_dwords >= info->size_dwords
                                                                : size_dwords == info->size_dwords);
  if (!size_ok)
    return HeaderProblem{CpFaultCause::kBadSize,
                         text_printf("%s: SIZE_DWORDS %u, expected %s%u", info->name, size_dwords,
                                     info->variable_size ? "at least " : "", info->size_dwords)};
  if (field(header, hdr::RESERVED_MASK, hdr::RESERVED_SHIFT) != 0)
    return HeaderProblem{CpFaultCause::kBadField,
                         text_printf("%s: header 0x%08x has non-zero RESERVED bits", info->name, header)};
  // Everything between head and tail must be whole packets (the driver publishes the tail last).
  if (uint64_t{size_dwords} * 4 > bytes_before_tail)
    return HeaderProblem{CpFaultCause::kPastTail,
                         text_printf("%s: %u dwords but only %u bytes before RING_TAIL", info->name, size_dwords,
                                     bytes_before_tail)};
  return std::nullopt;
}

}  // namespace

const char* cp_state_name(CpState s) {
  switch (s) {
    case CpState::kIdle: return "idle";
    case CpState::kBusy: return "busy";
    case CpState::kHalted: return "halted";
    case CpState::kFaulted: return "faulted";
  }
  return "unknown";
}

const char* cp_fault_cause_name(CpFaultCause c) {
  switch (c) {
    case CpFaultCause::kNone: return "none";
    case CpFaultCause::kUnknownOpcode: return "unknown opcode";
    case CpFaultCause::kBadSize: return "bad packet size";
    case CpFaultCause::kPastTail: return "packet runs past RING_TAIL";
    case CpFaultCause::kRingUnreadable: return "ring not readable";
    case CpFaultCause::kBadRingRegisters: return "bad ring registers";
    case CpFaultCause::kBadField: return "bad packet field";
    case CpFaultCause::kMemoryFault: return "memory fault";
    case CpFaultCause::kDispatchFault: return "dispatch faulted";
    case CpFaultCause::kDrawFault: return "draw faulted";
  }
  return "unknown";
}

struct CommandProcessor::Ring {
  uint64_t base = 0;
  uint32_t size = 0;
  uint32_t head = 0;
  uint32_t tail = 0;
};

struct CommandProcessor::Packet {
  uint32_t head = 0;  // ring byte offset
  uint32_t opcode = 0;
  uint32_t size_dwords = 0;
  std::array<uint32_t, kMaxFixedPacketDwords> dwords{};  // [0] = header; NOP payload not read
};

CommandProcessor::CommandProcessor(RegisterFile& registers, InterruptController& irq, Mmu& memory,
                                   DispatchBackend& backend, CpMode mode, uint64_t max_work_items_per_dispatch,
                                   const DrawLimits& draw_limits)
    : registers_(registers),
      irq_(irq),
      memory_(memory),
      backend_(backend),
      mode_(mode),
      max_work_items_(max_work_items_per_dispatch),
      draw_limits_(draw_limits) {
  if (mode_ == CpMode::kThread) thread_ = std::thread([this] { thread_loop(); });
}

CommandProcessor::~CommandProcessor() {
  {
    std::lock_guard lock(state_mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CommandProcessor::ring_doorbell() {
  {
    std::lock_guard lock(state_mutex_);
    ++doorbells_rung_;
    ++counters_.doorbells;
  }
  work_.notify_one();
}

void CommandProcessor::thread_loop() {
  std::unique_lock lock(state_mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || doorbells_done_ < doorbells_rung_; });
    if (stopping_) return;
    uint64_t target = doorbells_rung_;
    lock.unlock();
    process_pending();
    lock.lock();
    doorbells_done_ = std::max(doorbells_done_, target);
    idle_.notify_all();
  }
}

void CommandProcessor::run_until_idle() {
  std::unique_lock lock(state_mutex_);
  uint64_t target = doorbells_rung_;
  if (mode_ == CpMode::kThread) {
    idle_.wait(lock, [&] { return doorbells_done_ >= target || stopping_; });
    return;
  }
  if (doorbells_done_ >= target) return;
  lock.unlock();
  process_pending();
  lock.lock();
  doorbells_done_ = std::max(doorbells_done_, target);
}

void CommandProcessor::reset(const std::function<void()>& while_stopped, bool full) {
  std::lock_guard process_lock(process_mutex_);
  if (while_stopped) while_stopped();
  registers_.store(hw::reg::RING_HEAD, 0);
  registers_.store(hw::reg::RING_TAIL, 0);
  registers_.store(hw::reg::CP_FAULT_INFO, 0);
  registers_.store(hw::reg::CP_FAULT_HEAD, 0);
  set_state(CpState::kIdle);
  std::lock_guard lock(state_mutex_);
  fault_.reset();
  if (full) {
    counters_ = CpCounters{};
    last_dispatch_.reset();
    last_draw_.reset();
  }
  doorbells_done_ = doorbells_rung_;  // doorbells rung before the reset refer to the old ring
  idle_.notify_all();
}

void CommandProcessor::set_dump_sink(DumpSink sink) {
  std::lock_guard lock(state_mutex_);
  dump_sink_ = std::move(sink);
}

CpState CommandProcessor::state() const {
  return CpState(field(registers_.load(hw::reg::CP_STATUS), hw::field::CP_STATUS::STATE_MASK,
                       hw::field::CP_STATUS::STATE_SHIFT));
}

std::optional<CpFault> CommandProcessor::fault() const {
  std::lock_guard lock(state_mutex_);
  return fault_;
}

CpCounters CommandProcessor::counters() const {
  std::lock_guard lock(state_mutex_);
  return counters_;
}

std::optional<DispatchRecord> CommandProcessor::last_dispatch() const {
  std::lock_guard lock(state_mutex_);
  return last_dispatch_;
}

std::string CommandProcessor::dump_text() const {
  std::optional<DispatchRecord> record = last_dispatch();
  std::string text = record ? format_dispatch_dump(*record, backend_, memory_) : format_empty_dump();
  if (std::optional<DrawRecord> draw = last_draw()) {
    text += text_printf("\nDRAW #%" PRIu64 " at ring offset 0x%x\n", draw->sequence, draw->ring_offset);
    text += graphics::format_draw(draw->state, draw->result);
    // What the draws so far have added to the counters that queries read (REPORT).
    text += text_printf("device counters: SAMPLES_PASSED %" PRIu64 ", CLOCK %" PRIu64 "\n",
                        registers_.load64(hw::reg::SAMPLES_PASSED_LO, hw::reg::SAMPLES_PASSED_HI),
                        registers_.load64(hw::reg::CLOCK_LO, hw::reg::CLOCK_HI));
  }
  return text;
}

std::optional<DrawRecord> CommandProcessor::last_draw() const {
  std::lock_guard lock(state_mutex_);
  return last_draw_;
}

// DRAW: decode and check the state blocks, then run the graphics blocks (gsgpu/emu/graphics). A bad
// block is a CP fault naming the block and field; a draw that faults while running (a fetch past a
// buffer, an unmapped target, a budget) is a CP fault of cause kDrawFault. Either way the CP stops, so
// that no later fence claims success.
// DRAW_INDIRECT's arguments, read through the MMU now (every earlier packet has completed, so a
// dispatch before it in the ring may have written them) and checked as the driver checks a direct
// draw's: they come from memory any shader or client may write. False after entering the fault.
bool CommandProcessor::read_draw_arguments(const Packet& packet, graphics::DrawParams* draw) {
  namespace P = hw::pkt::DRAW_INDIRECT;
  const uint64_t va = uint64_t{packet.dwords[P::ARGS_VA_LO]} | uint64_t{packet.dwords[P::ARGS_VA_HI]} << 32;
  const uint32_t words = draw->indexed ? 5 : 4;
  if (va % 4 != 0) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode,
                text_printf("DRAW_INDIRECT: ARGS_VA 0x%" PRIx64 " not 4-byte aligned", va));
    return false;
  }
  const uint8_t* bytes = memory_.translate(va, words * 4, Access::kRead);
  if (bytes == nullptr) {
    enter_fault(CpFaultCause::kMemoryFault, packet.head, packet.opcode,
                text_printf("DRAW_INDIRECT: ARGS_VA 0x%" PRIx64 " (%u bytes) is not mapped readable", va, words * 4));
    return false;
  }
  uint32_t w[5] = {};
  std::memcpy(w, bytes, words * 4);
  draw->count = w[0];
  draw->instance_count = w[1];
  if (draw->indexed) {
    draw->first_index = w[2];
    draw->vertex_offset = static_cast<int32_t>(w[3]);
    draw->first_instance = w[4];
  } else {
    draw->first_vertex = w[2];
    draw->first_instance = w[3];
  }
  const char* bad = draw_count_problem(*draw, draw_limits_.vertex_invocations);
  if (bad == nullptr) return true;
  enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode,
              text_printf("DRAW_INDIRECT: arguments %u, %u, %u, %u at 0x%" PRIx64 ": %s", w[0], w[1], w[2], w[3], va,
                          bad));
  return false;
}

// DRAW_BYTE_COUNT's count, from the counter its packet names (draw_byte_count.h). False after
// entering the fault.
bool CommandProcessor::read_draw_byte_count(const Packet& packet, graphics::DrawParams* draw) {
  namespace P = hw::pkt::DRAW_BYTE_COUNT;
  ByteCountSource source;
  source.counter_va = uint64_t{packet.dwords[P::COUNTER_VA_LO]} | uint64_t{packet.dwords[P::COUNTER_VA_HI]} << 32;
  source.counter_offset = packet.dwords[P::COUNTER_OFFSET];
  source.vertex_stride = packet.dwords[P::VERTEX_STRIDE];
  std::optional<DrawCountFault> fault =
      gsgpu::read_draw_byte_count(memory_, source, draw_limits_.vertex_invocations, draw);
  if (!fault) return true;
  enter_fault(fault->cause, packet.head, packet.opcode, std::move(fault->message));
  return false;
}

// DRAW, DRAW_INDIRECT and DRAW_BYTE_COUNT: the three state-block addresses are the same dwords in all.
bool CommandProcessor::execute_draw(const Packet& packet) {
  namespace P = hw::pkt::DRAW;
  static_assert(P::DRAW_INFO_VA_LO == hw::pkt::DRAW_INDIRECT::DRAW_INFO_VA_LO &&
                P::SHADER_STATE_VA_HI == hw::pkt::DRAW_INDIRECT::SHADER_STATE_VA_HI);
  static_assert(P::DRAW_INFO_VA_LO == hw::pkt::DRAW_BYTE_COUNT::DRAW_INFO_VA_LO &&
                P::SHADER_STATE_VA_HI == hw::pkt::DRAW_BYTE_COUNT::SHADER_STATE_VA_HI);
  DrawRecord record;
  record.ring_offset = packet.head;
  std::copy_n(packet.dwords.begin(), record.packet.size(), record.packet.begin());
  auto va = [&](uint32_t lo, uint32_t hi) { return uint64_t{packet.dwords[lo]} | uint64_t{packet.dwords[hi]} << 32; };
  DrawStateError error;
  const uint64_t draw_info_va = va(P::DRAW_INFO_VA_LO, P::DRAW_INFO_VA_HI);
  const uint64_t pipe_state_va = va(P::PIPE_STATE_VA_LO, P::PIPE_STATE_VA_HI);
  const uint64_t shader_state_va = va(P::SHADER_STATE_VA_LO, P::SHADER_STATE_VA_HI);
  if (!decode_draw_state(memory_, draw_info_va, pipe_state_va, shader_state_va, &record.state, &error)) {
    enter_fault(error.memory ? CpFaultCause::kMemoryFault : CpFaultCause::kBadField, packet.head, packet.opcode,
                "DRAW: " + error.message);
    return false;
  }
  if (packet.opcode == hw::pkt::DRAW_INDIRECT::OPCODE) {
    if (!read_draw_arguments(packet, &record.state.draw)) return false;
    if (record.state.draw.count == 0 || record.state.draw.instance_count == 0) return true;
  }
  if (packet.opcode == hw::pkt::DRAW_BYTE_COUNT::OPCODE) {
    if (!read_draw_byte_count(packet, &record.state.draw)) return false;
    if (record.state.draw.count == 0 || record.state.draw.instance_count == 0) return true;
  }
  graphics::GraphicsPipeline pipeline(memory_);
  pipeline.set_vertex_limit(draw_limits_.vertex_invocations);
  pipeline.set_fragment_budget(draw_limits_.fragments);
  pipeline.set_mode(draw_mode_);
  pipeline.set_scratch(&draw_scratch_);  // draws run one at a time, on this thread
  pipeline.set_cancel_check([this] { return backend_.cancel_requested(); });
  BackendProgramRunner program_runner(backend_, memory_, draw_limits_.warp_instructions,
                                      draw_limits_.draw_instructions);
  pipeline.set_program_runner(&program_runner);
  record.result = pipeline.draw(record.state);
  // What the draw did counts even when it faulted part-way (hardware counters do not roll back).
  const graphics::DrawCounters& dc = record.result.counters;
  advance_counters(dc.geometry.vertices + dc.merge.fragments_in, dc.merge.fragments_written);
  advance_xfb_counters(record.result.xfb);
  {
    std::lock_guard lock(state_mutex_);
    record.sequence = ++counters_.draws;
    last_draw_ = record;
  }
  if (!record.result.fault) return true;
  enter_fault(CpFaultCause::kDrawFault, packet.head, packet.opcode,
              text_printf("DRAW #%" PRIu64 ": %s", record.sequence, record.result.fault->c_str()));
  return false;
}

void CommandProcessor::set_state(CpState s) {
  registers_.store(hw::reg::CP_STATUS, (uint32_t(s) << hw::field::CP_STATUS::STATE_SHIFT) &
                                           hw::field::CP_STATUS::STATE_MASK);
}

void CommandProcessor::enter_fault(CpFaultCause cause, uint32_t head, uint32_t opcode, std::string message) {
  registers_.store(hw::reg::CP_FAULT_INFO,
                   ((uint32_t(cause) << hw::field::CP_FAULT_INFO::CAUSE_SHIFT) & hw::field::CP_FAULT_INFO::CAUSE_MASK) |
                       ((opcode << hw::field::CP_FAULT_INFO::OPCODE_SHIFT) & hw::field::CP_FAULT_INFO::OPCODE_MASK));
  registers_.store(hw::reg::CP_FAULT_HEAD, head);
  set_state(CpState::kFaulted);
  gsvirt::log_error("gsgpu cp: fault at ring offset 0x%x (%s packet): %s: %s", head, packet_name(opcode),
                    cp_fault_cause_name(cause), message.c_str());
  {
    std::lock_guard lock(state_mutex_);
    fault_ = CpFault{cause, head, opcode, std::move(message)};
    ++counters_.faults;
  }
  // A faulted kernel is reported as a shader fault (raised by execute_dispatch); everything else
  // is the command stream's fault.
  if (cause != CpFaultCause::kDispatchFault) irq_.raise(IrqCause::kCpFault);
}

void CommandProcessor::process_pending() {
  std::lock_guard process_lock(process_mutex_);
  process_ring();
}

void CommandProcessor::process_ring() {
  CpState s = state();
  if (s == CpState::kHalted || s == CpState::kFaulted) {
    gsvirt::log_debug(gsvirt::kDebugGsgpu, "gsgpu cp: doorbell ignored, command processor is %s", cp_state_name(s));
    return;
  }
  set_state(CpState::kBusy);
  for (;;) {
    // Re-read every time: the driver may move RING_TAIL while earlier packets run.
    std::optional<Ring> ring = load_ring();
    if (!ring) return;
    if (ring->head == ring->tail) break;
    Packet packet;
    if (!fetch_packet(*ring, &packet) || !execute(packet)) return;
    retire(*ring, packet);
    if (packet.opcode == hw::pkt::HALT::OPCODE) {
      set_state(CpState::kHalted);
      gsvirt::log_debug(gsvirt::kDebugGsgpu, "gsgpu cp: HALT at ring offset 0x%x", packet.head);
      irq_.raise(IrqCause::kHalt);
      return;
    }
  }
  set_state(CpState::kIdle);
}

std::optional<CommandProcessor::Ring> CommandProcessor::load_ring() {
  Ring r{registers_.load64(hw::reg::RING_BASE_LO, hw::reg::RING_BASE_HI), registers_.load(hw::reg::RING_SIZE),
         registers_.load(hw::reg::RING_HEAD), registers_.load(hw::reg::RING_TAIL)};
  bool size_ok = r.size >= kMinRingBytes && r.size <= kMaxRingBytes && r.size % 4 == 0;
  bool base_ok = r.base % 4 == 0 && gsvirt::checked_add(r.base, uint64_t{r.size}).has_value();
  bool offsets_ok = r.tail < r.size && r.tail % 4 == 0 && r.head < r.size;
  if (size_ok && base_ok && offsets_ok) return r;
  enter_fault(CpFaultCause::kBadRingRegisters, r.head, 0,
              text_printf("RING_BASE 0x%" PRIx64 ", RING_SIZE %u, RING_HEAD %u, RING_TAIL %u: size must be a multiple "
                          "of 4 in [%u, %u], base 4-byte aligned, head and tail inside the ring",
                          r.base, r.size, r.head, r.tail, kMinRingBytes, kMaxRingBytes));
  return std::nullopt;
}

bool CommandProcessor::read_ring_dword(const Ring& ring, uint32_t index, uint32_t* out) {
  // Packets may wrap around the end of the ring.
  uint64_t offset = (uint64_t{ring.head} + uint64_t{index} * 4) % ring.size;
  const uint8_t* p = memory_.translate(ring.base + offset, 4, Access::kRead);
  if (!p) return false;
  std::memcpy(out, p, 4);
  return true;
}

bool CommandProcessor::fetch_packet(const Ring& ring, Packet* packet) {
  packet->head = ring.head;
  if (!read_ring_dword(ring, 0, &packet->dwords[0])) {
    enter_fault(CpFaultCause::kRingUnreadable, ring.head, 0,
                text_printf("packet header at va 0x%" PRIx64 " is not mapped readable", ring.base + ring.head));
    return false;
  }
  const uint32_t header = packet->dwords[0];
  packet->opcode = field(header, hdr::OPCODE_MASK, hdr::OPCODE_SHIFT);
  packet->size_dwords = field(header, hdr::SIZE_DWORDS_MASK, hdr::SIZE_DWORDS_SHIFT);
  const hw::PacketInfo* info = hw::find_packet(packet->opcode);
  if (auto problem = check_header(info, header, (ring.tail + ring.size - ring.head) % ring.size)) {
    enter_fault(problem->cause, ring.head, packet->opcode, std::move(problem->message));
    return false;
  }
  // NOP payloads are never read: their size is all that matters.
  const uint32_t to_read = info->variable_size ? 1 : packet->size_dwords;
  for (uint32_t i = 1; i < to_read; ++i) {
    if (!read_ring_dword(ring, i, &packet->dwords[i])) {
      enter_fault(CpFaultCause::kRingUnreadable, ring.head, packet->opcode,
                  text_printf("%s: dword %u (%s) is not mapped readable", info->name, i, info->dword_names[i]));
      return false;
    }
  }
  return true;
}

void CommandProcessor::retire(const Ring& ring, const Packet& packet) {
  registers_.store(hw::reg::RING_HEAD,
                   uint32_t((uint64_t{ring.head} + uint64_t{packet.size_dwords} * 4) % ring.size));
  registers_.increment(hw::reg::CP_PACKETS);
  advance_counters(1, 0);  // every packet takes a cycle of the command processor
  std::lock_guard lock(state_mutex_);
  ++counters_.packets;
}

bool CommandProcessor::execute(const Packet& packet) {
  gsvirt::log_debug(gsvirt::kDebugGsgpu, "gsgpu cp: %s at ring offset 0x%x (%u dwords)", packet_name(packet.opcode),
                    packet.head, packet.size_dwords);
  switch (packet.opcode) {
    case hw::pkt::NOP::OPCODE: return true;
    case hw::pkt::HALT::OPCODE: return true;  // the state change happens once the head moved past it
    case hw::pkt::DISPATCH::OPCODE: return execute_dispatch(packet);
    case hw::pkt::SYNC::OPCODE: return execute_sync(packet);
    case hw::pkt::DRAW::OPCODE: return execute_draw(packet);
    case hw::pkt::DRAW_INDIRECT::OPCODE: return execute_draw(packet);
    case hw::pkt::DRAW_BYTE_COUNT::OPCODE: return execute_draw(packet);
    case hw::pkt::DUMP::OPCODE: return execute_dump(packet);
    case hw::pkt::REPORT::OPCODE: return execute_report(packet);
  }
  // find_packet accepted it, so the XML has a packet this switch does not know.
  enter_fault(CpFaultCause::kUnknownOpcode, packet.head, packet.opcode,
              text_printf("%s: declared in gsgpu.xml but not implemented by this command processor", packet_name(packet.opcode)));
  return false;
}

namespace {

DispatchRequest decode_dispatch(const uint32_t* d) {
  namespace P = hw::pkt::DISPATCH;
  auto u64 = [&](uint32_t lo, uint32_t hi) { return uint64_t(d[lo]) | (uint64_t(d[hi]) << 32); };
  DispatchRequest q;
  q.code_va = u64(P::CODE_VA_LO, P::CODE_VA_HI);
  q.code_size = d[P::CODE_SIZE];
  q.entry_offset = d[P::ENTRY_OFFSET];
  q.arg_va = u64(P::ARG_VA_LO, P::ARG_VA_HI);
  q.arg_size = d[P::ARG_SIZE];
  q.grid_size[0] = d[P::GRID_X];
  q.grid_size[1] = d[P::GRID_Y];
  q.grid_size[2] = d[P::GRID_Z];
  q.group_size[0] = d[P::GROUP_X];
  q.group_size[1] = d[P::GROUP_Y];
  q.group_size[2] = d[P::GROUP_Z];
  q.global_offset[0] = u64(P::GLOBAL_OFFSET_X_LO, P::GLOBAL_OFFSET_X_HI);
  q.global_offset[1] = u64(P::GLOBAL_OFFSET_Y_LO, P::GLOBAL_OFFSET_Y_HI);
  q.global_offset[2] = u64(P::GLOBAL_OFFSET_Z_LO, P::GLOBAL_OFFSET_Z_HI);
  q.local_mem_size = d[P::LOCAL_MEM_SIZE];
  q.private_mem_size = d[P::PRIVATE_MEM_SIZE];
  return q;
}

// Empty when the packet's fields are self-consistent; the shader core checks the rest (limits on
// group size, local memory) and reports kBadDispatch.
std::string check_dispatch(const DispatchRequest& q, uint64_t max_work_items) {
  if (q.code_size == 0 || q.code_size % 4)
    return text_printf("CODE_SIZE %u must be a non-zero multiple of 4", q.code_size);
  if (q.entry_offset >= q.code_size || q.entry_offset % 4)
    return text_printf("ENTRY_OFFSET %u must be 4-byte aligned and below CODE_SIZE %u", q.entry_offset, q.code_size);
  if (!gsvirt::checked_add(q.code_va, uint64_t{q.code_size}) || !gsvirt::checked_add(q.arg_va, uint64_t{q.arg_size}))
    return text_printf("code or argument range wraps around the address space");
  const char* axes = "XYZ";
  for (int i = 0; i < 3; ++i) {
    if (q.grid_size[i] == 0) return text_printf("GRID_%c is 0", axes[i]);
    if (q.group_size[i] == 0) return text_printf("GROUP_%c is 0", axes[i]);
  }
  uint64_t items = 1;
  for (int i = 0; i < 3; ++i) {
    auto grown = gsvirt::checked_mul(items, uint64_t{q.grid_size[i]});
    if (grown) grown = gsvirt::checked_mul(*grown, uint64_t{q.group_size[i]});
    if (!grown || *grown > max_work_items)
      return text_printf("grid %u x %u x %u of groups %u x %u x %u exceeds the device limit of %" PRIu64 " work-items",
                    q.grid_size[0], q.grid_size[1], q.grid_size[2], q.group_size[0], q.group_size[1], q.group_size[2],
                    max_work_items);
    items = *grown;
  }
  return {};
}

}  // namespace

bool CommandProcessor::execute_dispatch(const Packet& packet) {
  DispatchRecord record;
  record.ring_offset = packet.head;
  std::copy_n(packet.dwords.begin(), record.packet.size(), record.packet.begin());
  record.request = decode_dispatch(packet.dwords.data());
  record.request.instruction_budget = registers_.load(hw::reg::WATCHDOG_BUDGET);
  std::string problem = check_dispatch(record.request, max_work_items_);
  if (!problem.empty()) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode, "DISPATCH: " + problem);
    return false;
  }
  {
    std::lock_guard lock(state_mutex_);
    record.sequence = counters_.dispatches + 1;
    record.cp_packets_before = counters_.packets;
  }
  auto start = std::chrono::steady_clock::now();
  record.outcome = backend_.dispatch(record.request, memory_);
  record.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  registers_.increment(hw::reg::DISPATCH_COUNT);
  publish_counters(record.outcome.counters);
  advance_counters(record.outcome.counters.cycles, 0);
  {
    std::lock_guard lock(state_mutex_);
    ++counters_.dispatches;
    last_dispatch_ = record;
  }
  if (!record.outcome.fault) return true;

  const DispatchFault& f = *record.outcome.fault;
  registers_.store(hw::reg::SHADER_FAULT_INFO, (uint32_t(f.kind) << hw::field::SHADER_FAULT_INFO::KIND_SHIFT) &
                                                   hw::field::SHADER_FAULT_INFO::KIND_MASK);
  registers_.store64(hw::reg::SHADER_FAULT_PC_LO, hw::reg::SHADER_FAULT_PC_HI, f.pc);
  enter_fault(CpFaultCause::kDispatchFault, packet.head, packet.opcode,
              text_printf("DISPATCH #%" PRIu64 ": %s fault at pc 0x%" PRIx64 " in group (%u, %u, %u): %s", record.sequence,
                     dispatch_fault_name(f.kind), f.pc, f.group_id[0], f.group_id[1], f.group_id[2], f.message.c_str()));
  irq_.raise(IrqCause::kShaderFault);
  return false;
}

void CommandProcessor::publish_counters(const DispatchCounterValues& c) {
  registers_.store64(hw::reg::PERF_INSTRUCTIONS_LO, hw::reg::PERF_INSTRUCTIONS_HI, c.instructions_issued);
  registers_.store64(hw::reg::PERF_LANE_INSTRUCTIONS_LO, hw::reg::PERF_LANE_INSTRUCTIONS_HI, c.active_lane_instructions);
  registers_.store64(hw::reg::PERF_CYCLES_LO, hw::reg::PERF_CYCLES_HI, c.cycles);
  registers_.store(hw::reg::PERF_WORK_GROUPS, uint32_t(std::min<uint64_t>(c.work_groups, 0xffffffffu)));
}

bool CommandProcessor::execute_sync(const Packet& packet) {
  namespace P = hw::pkt::SYNC;
  const uint32_t* d = packet.dwords.data();
  constexpr uint32_t kKnownFlags = P::FLAGS_WRITE_FENCE_MASK | P::FLAGS_FENCE_64BIT_MASK | P::FLAGS_RAISE_IRQ_MASK;
  uint32_t flags = d[P::FLAGS];
  if (flags & ~kKnownFlags) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode, text_printf("SYNC: FLAGS 0x%08x has unknown bits", flags));
    return false;
  }
  // Every earlier packet has completed: DISPATCH runs to completion before the CP moves on.
  uint64_t va = uint64_t(d[P::FENCE_VA_LO]) | (uint64_t(d[P::FENCE_VA_HI]) << 32);
  uint64_t value = uint64_t(d[P::FENCE_VALUE_LO]) | (uint64_t(d[P::FENCE_VALUE_HI]) << 32);
  if (flags & P::FLAGS_WRITE_FENCE_MASK) {
    uint32_t width = (flags & P::FLAGS_FENCE_64BIT_MASK) ? 8 : 4;
    if (va % width) {
      enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode,
                  text_printf("SYNC: FENCE_VA 0x%" PRIx64 " not aligned to the %u-byte fence", va, width));
      return false;
    }
    uint8_t* p = memory_.translate(va, width, Access::kWrite);
    if (!p) {
      enter_fault(CpFaultCause::kMemoryFault, packet.head, packet.opcode,
                  text_printf("SYNC: fence va 0x%" PRIx64 " (%u bytes) is not mapped writable", va, width));
      return false;
    }
    std::memcpy(p, &value, width);  // little-endian host: the low dword first
  }
  registers_.store64(hw::reg::FENCE_LAST_LO, hw::reg::FENCE_LAST_HI, value);
  {
    std::lock_guard lock(state_mutex_);
    ++counters_.syncs;
  }
  if (flags & P::FLAGS_RAISE_IRQ_MASK) irq_.raise(IrqCause::kFence);
  return true;
}

void CommandProcessor::advance_counters(uint64_t ticks, uint64_t samples) {
  registers_.store64(hw::reg::CLOCK_LO, hw::reg::CLOCK_HI,
                     registers_.load64(hw::reg::CLOCK_LO, hw::reg::CLOCK_HI) + ticks);
  if (samples == 0) return;
  registers_.store64(hw::reg::SAMPLES_PASSED_LO, hw::reg::SAMPLES_PASSED_HI,
                     registers_.load64(hw::reg::SAMPLES_PASSED_LO, hw::reg::SAMPLES_PASSED_HI) + samples);
}

void CommandProcessor::advance_xfb_counters(const graphics::XfbCounters& xfb) {
  registers_.store64(hw::reg::XFB_WRITTEN_LO, hw::reg::XFB_WRITTEN_HI,
                     registers_.load64(hw::reg::XFB_WRITTEN_LO, hw::reg::XFB_WRITTEN_HI) + xfb.written);
  registers_.store64(hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI,
                     registers_.load64(hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI) + xfb.needed);
}

// The device counter a REPORT's COUNTER field names (checked to be one of them).
uint64_t CommandProcessor::report_counter(uint32_t counter) const {
  namespace P = hw::pkt::REPORT;
  switch (counter) {
    case P::FLAGS_COUNTER_CLOCK: return registers_.load64(hw::reg::CLOCK_LO, hw::reg::CLOCK_HI);
    case P::FLAGS_COUNTER_XFB_WRITTEN: return registers_.load64(hw::reg::XFB_WRITTEN_LO, hw::reg::XFB_WRITTEN_HI);
    case P::FLAGS_COUNTER_XFB_NEEDED: return registers_.load64(hw::reg::XFB_NEEDED_LO, hw::reg::XFB_NEEDED_HI);
    default: return registers_.load64(hw::reg::SAMPLES_PASSED_LO, hw::reg::SAMPLES_PASSED_HI);
  }
}

// REPORT: every earlier packet has completed (the CP runs packets to completion in order), so the
// counter holds their work. Both addresses are checked before anything is written, so a fault
// never leaves a value without its availability or the reverse; the value is written first, so a
// reader that sees the availability also sees the value.
bool CommandProcessor::execute_report(const Packet& packet) {
  namespace P = hw::pkt::REPORT;
  const uint32_t* d = packet.dwords.data();
  constexpr uint32_t kKnownFlags = P::FLAGS_COUNTER_MASK | P::FLAGS_WRITE_AVAILABILITY_MASK;
  const uint32_t flags = d[P::FLAGS];
  const uint32_t counter = field(flags, P::FLAGS_COUNTER_MASK, P::FLAGS_COUNTER_SHIFT);
  if ((flags & ~kKnownFlags) || counter > P::FLAGS_COUNTER_XFB_NEEDED) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode,
                text_printf("REPORT: FLAGS 0x%08x: unknown bits or COUNTER %u", flags, counter));
    return false;
  }
  const bool avail = flags & P::FLAGS_WRITE_AVAILABILITY_MASK;
  const uint64_t value_va = uint64_t(d[P::VALUE_VA_LO]) | (uint64_t(d[P::VALUE_VA_HI]) << 32);
  const uint64_t avail_va = uint64_t(d[P::AVAIL_VA_LO]) | (uint64_t(d[P::AVAIL_VA_HI]) << 32);
  if (value_va % 8 || (avail && avail_va % 8)) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode,
                text_printf("REPORT: VALUE_VA 0x%" PRIx64 " or AVAIL_VA 0x%" PRIx64 " not 8-byte aligned", value_va,
                            avail_va));
    return false;
  }
  uint8_t* value_p = memory_.translate(value_va, 8, Access::kWrite);
  uint8_t* avail_p = avail ? memory_.translate(avail_va, 8, Access::kWrite) : nullptr;
  if (!value_p || (avail && !avail_p)) {
    enter_fault(CpFaultCause::kMemoryFault, packet.head, packet.opcode,
                text_printf("REPORT: %s va 0x%" PRIx64 " (8 bytes) is not mapped writable",
                            value_p ? "AVAIL" : "VALUE", value_p ? avail_va : value_va));
    return false;
  }
  const uint64_t value = report_counter(counter);
  std::memcpy(value_p, &value, 8);  // little-endian host: the low dword first
  if (avail) {
    const uint64_t avail_value = d[P::AVAIL_VALUE];
    std::memcpy(avail_p, &avail_value, 8);
  }
  std::lock_guard lock(state_mutex_);
  ++counters_.reports;
  return true;
}

bool CommandProcessor::execute_dump(const Packet& packet) {
  namespace P = hw::pkt::DUMP;
  const uint32_t* d = packet.dwords.data();
  constexpr uint32_t kKnownFlags = P::FLAGS_TO_BUFFER_MASK | P::FLAGS_TO_HOST_MASK;
  uint32_t flags = d[P::FLAGS];
  uint64_t va = uint64_t(d[P::BUFFER_VA_LO]) | (uint64_t(d[P::BUFFER_VA_HI]) << 32);
  uint32_t size = d[P::BUFFER_SIZE];
  if (flags & ~kKnownFlags) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode, text_printf("DUMP: FLAGS 0x%08x has unknown bits", flags));
    return false;
  }
  if ((flags & P::FLAGS_TO_BUFFER_MASK) && size == 0) {
    enter_fault(CpFaultCause::kBadField, packet.head, packet.opcode, "DUMP: TO_BUFFER with BUFFER_SIZE 0");
    return false;
  }
  std::string text = dump_text();
  if (flags & P::FLAGS_TO_BUFFER_MASK) {
    uint8_t* p = memory_.translate(va, size, Access::kWrite);
    if (!p) {
      enter_fault(CpFaultCause::kMemoryFault, packet.head, packet.opcode,
                  text_printf("DUMP: buffer va 0x%" PRIx64 " (%u bytes) is not mapped writable", va, size));
      return false;
    }
    // Truncated to fit and always NUL-terminated, so a reader never runs off the buffer.
    size_t n = std::min<size_t>(text.size(), size_t(size) - 1);
    std::memcpy(p, text.data(), n);
    p[n] = 0;
  }
  DumpSink sink;
  {
    std::lock_guard lock(state_mutex_);
    ++counters_.dumps;
    sink = dump_sink_;
  }
  if ((flags & P::FLAGS_TO_HOST_MASK) && sink) sink(text);
  return true;
}

}  // namespace gsgpu
