// The gsgpu command processor (CP): fetches packets from a ring buffer in GPU memory and runs them.
//
// Ring protocol (registers in gsgpu.xml): the driver writes packets at RING_TAIL (a byte offset
// into the ring at RING_BASE of RING_SIZE bytes), advances RING_TAIL and writes DOORBELL. The CP
// consumes packets from RING_HEAD until head == tail; packets may wrap around the end of the ring.
// Every packet read goes through the MMU. Everything between head and tail must be whole packets:
// a packet that does not fit before the tail, an unknown opcode, a size that does not match the
// opcode, a non-zero reserved field or a bad field value is a CP fault: the CP stops (CP_STATUS =
// faulted), records the cause, opcode and head in CP_FAULT_INFO / CP_FAULT_HEAD, raises CP_FAULT,
// and ignores doorbells until CP_CONTROL.RESET or a device reset. A dispatch whose kernel faults
// also stops the CP (so that no later fence claims success), raising SHADER_FAULT instead.
//
// Threading: in CpMode::kThread a CP thread processes the ring after each doorbell, as hardware
// does; in CpMode::kManual the doorbell only records the request and run_until_idle() processes it
// on the caller's thread, which makes a library user's run fully deterministic and debuggable.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "gsgpu/emu/irq.h"
#include "gsgpu/emu/mmu.h"
#include "gsgpu/emu/program_runner.h"
#include "gsgpu/emu/registers.h"

namespace gsgpu {

enum class CpMode { kThread, kManual };

// What one DRAW may cost, so that a hostile command stream cannot hold the device for hours: vertex
// invocations (count x instances), fragments, and its vertex and fragment programs' instructions per
// warp and for the whole draw. A draw past a limit ends in a draw fault. The defaults leave room for
// real applications; fuzzers set them low so that every input runs in milliseconds.
struct DrawLimits {
  uint64_t vertex_invocations = graphics::GeometryEngine::kDefaultVertexLimit;
  uint64_t fragments = graphics::GraphicsPipeline::kDefaultFragmentBudget;
  uint64_t warp_instructions = BackendProgramRunner::kDefaultWarpInstructionBudget;
  uint64_t draw_instructions = BackendProgramRunner::kDefaultDrawInstructionBudget;
};

// CP_STATUS.STATE values.
enum class CpState : uint32_t { kIdle = 0, kBusy = 1, kHalted = 2, kFaulted = 3 };
const char* cp_state_name(CpState s);

// CP_FAULT_INFO.CAUSE values.
enum class CpFaultCause : uint32_t {
  kNone = 0,
  kUnknownOpcode = 1,
  kBadSize = 2,
  kPastTail = 3,
  kRingUnreadable = 4,
  kBadRingRegisters = 5,
  kBadField = 6,
  kMemoryFault = 7,
  kDispatchFault = 8,
  kDrawFault = 9,
};
const char* cp_fault_cause_name(CpFaultCause c);

struct CpFault {
  CpFaultCause cause = CpFaultCause::kNone;
  uint32_t head = 0;    // ring byte offset of the packet
  uint32_t opcode = 0;  // of the packet (0 when the header could not be read)
  std::string message;  // names the packet, field and value
};

struct CpCounters {
  uint64_t doorbells = 0;
  uint64_t packets = 0;  // completed
  uint64_t dispatches = 0;
  uint64_t syncs = 0;
  uint64_t dumps = 0;
  uint64_t draws = 0;
  uint64_t reports = 0;
  uint64_t faults = 0;  // CP faults + faulted dispatches
};

// Everything known about the last DISPATCH packet, for counters and DUMP.
struct DispatchRecord {
  uint64_t sequence = 0;  // 1 for the first dispatch since the last reset
  uint32_t ring_offset = 0;
  std::array<uint32_t, hw::pkt::DISPATCH::SIZE_DWORDS> packet{};
  DispatchRequest request;
  DispatchOutcome outcome;
  uint64_t cp_packets_before = 0;  // CP packet count when the dispatch started
  double host_seconds = 0;
};

// The last DRAW packet: its state as decoded from the blocks, counters and outcome, for DUMP.
struct DrawRecord {
  uint64_t sequence = 0;  // 1 for the first draw since the last reset
  uint32_t ring_offset = 0;
  std::array<uint32_t, hw::pkt::DRAW::SIZE_DWORDS> packet{};
  graphics::DrawState state;
  graphics::DrawResult result;
};

using DumpSink = std::function<void(std::string_view text)>;

class CommandProcessor {
 public:
  CommandProcessor(RegisterFile& registers, InterruptController& irq, Mmu& memory,
                   DispatchBackend& backend, CpMode mode, uint64_t max_work_items_per_dispatch,
                   const DrawLimits& draw_limits = {});
  ~CommandProcessor();
  CommandProcessor(const CommandProcessor&) = delete;
  CommandProcessor& operator=(const CommandProcessor&) = delete;

  CpMode mode() const { return mode_; }
  // How the following DRAWs are computed (Device::create sets it from DeviceConfig::draw_mode).
  void set_draw_mode(graphics::DrawMode mode) { draw_mode_ = mode; }

  // DOORBELL was written.
  void ring_doorbell();
  // kManual: processes every pending doorbell on this thread. kThread: waits until the CP thread
  // has processed every doorbell rung so far.
  void run_until_idle();
  // CP_CONTROL.RESET: back to idle with head = tail = 0, fault cleared (waits for a running batch).
  // `while_stopped`, when given, runs while no batch can run (the device's soft reset of the
  // register file); a full reset also forgets the counters and the last dispatch.
  void reset(const std::function<void()>& while_stopped = nullptr, bool full = false);

  void set_dump_sink(DumpSink sink);

  CpState state() const;
  std::optional<CpFault> fault() const;
  CpCounters counters() const;
  std::optional<DispatchRecord> last_dispatch() const;
  std::optional<DrawRecord> last_draw() const;
  // The DUMP text for the last dispatch (what a DUMP packet would write now).
  std::string dump_text() const;

 private:
  struct Ring;
  struct Packet;

  void process_pending();
  void process_ring();
  std::optional<Ring> load_ring();
  bool read_ring_dword(const Ring& ring, uint32_t index, uint32_t* out);
  bool fetch_packet(const Ring& ring, Packet* packet);
  void retire(const Ring& ring, const Packet& packet);
  bool execute(const Packet& packet);
  bool execute_dispatch(const Packet& packet);
  void publish_counters(const DispatchCounterValues& counters);
  bool execute_draw(const Packet& packet);
  bool read_draw_arguments(const Packet& packet, graphics::DrawParams* draw);
  bool read_draw_byte_count(const Packet& packet, graphics::DrawParams* draw);
  bool execute_sync(const Packet& packet);
  bool execute_dump(const Packet& packet);
  bool execute_report(const Packet& packet);
  // The device-wide counters REPORT writes: the clock advances by `ticks` nominal cycles, the
  // samples-passed counter by `samples` (both wrap at 2^64, as 64-bit hardware counters do).
  void advance_counters(uint64_t ticks, uint64_t samples);
  // XFB_WRITTEN / XFB_NEEDED: a draw's transform-feedback primitives (queries read them by REPORT).
  void advance_xfb_counters(const graphics::XfbCounters& xfb);
  uint64_t report_counter(uint32_t counter) const;
  void enter_fault(CpFaultCause cause, uint32_t head, uint32_t opcode, std::string message);
  void set_state(CpState s);
  void thread_loop();

  RegisterFile& registers_;
  InterruptController& irq_;
  Mmu& memory_;
  DispatchBackend& backend_;
  const CpMode mode_;
  const uint64_t max_work_items_;
  const DrawLimits draw_limits_;
  graphics::DrawMode draw_mode_ = graphics::DrawMode::kReference;
  graphics::DrawScratch draw_scratch_;  // what one draw allocates and the next reuses

  std::mutex process_mutex_;  // one batch at a time; reset waits for it

  mutable std::mutex state_mutex_;  // guards everything below
  std::condition_variable work_;
  std::condition_variable idle_;
  uint64_t doorbells_rung_ = 0;
  uint64_t doorbells_done_ = 0;
  bool stopping_ = false;
  std::optional<CpFault> fault_;
  CpCounters counters_;
  std::optional<DispatchRecord> last_dispatch_;
  std::optional<DrawRecord> last_draw_;
  DumpSink dump_sink_;

  std::thread thread_;  // kThread only
};

}  // namespace gsgpu
