// The gsgpu driver interface: what a kernel driver offers its userspace (the analog of a DRM
// driver's uAPI, or Vortex's vortex.h). Userspace drivers (gsgpu/cl, later gsgpu/vk) use this and
// nothing else of the device: no file above gsgpu/drv includes a gsgpu/emu header.
//
// One Device is one open client of the GPU (a DRM file descriptor): it has its own GPU virtual
// address space, its own buffer objects and its own rings, and its faults and resets stay inside it.
//
//   caps       read from the device's ID / configuration / limit registers at open
//   BOs        create / free / CPU map; freed objects live on until no submission uses them
//   VA         bind a BO range at a GPU virtual address the client chooses, unbind
//   submit     a chunk of command-processor packets (protocol/gsgpu/gsgpu.xml) on a ring, with
//              the BOs it uses; returns the submission's seqno on that ring's timeline at once
//   fences     poll or wait for a seqno; every ring's timeline retires in order
//   faults     what went wrong, and which submission it was; the device recovers by itself
//   counters   what the device did for this client
//
// Two backends: local (the emulator in this process; work runs on the device's own thread) and
// virtio (the same calls encoded for the gsgpu native context, guest/gsgpu). docs/driver.md.
//
// Threading: every call may be made from any thread; calls are serialised per Device where needed.
// All values are checked: a bad handle, range, ring or size is Status::kInvalidArgument (with a
// log line naming the call and field), never undefined behaviour.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gsgpu::drv {

enum class Status : int32_t {
  kOk = 0,
  kInvalidArgument = 1,  // bad handle, size, flag, range, ring or packet chunk
  kOutOfMemory = 2,      // no VRAM / host memory left, or a per-client quota reached
  kTimeout = 3,          // a wait ended before its fence retired
  kFaulted = 4,          // the submission faulted (see read_faults) or was cancelled by a reset
  kDeviceLost = 5,       // the device is gone (virtio: transport error, fatal host context)
  kNotSupported = 6,     // the backend does not offer this call
};
const char* status_name(Status status);

// Read from the device's registers when the Device is opened (virtio: from the native context's
// capset, which the host fills from the same registers).
struct Caps {
  uint32_t chip_id = 0;   // ID register
  uint32_t version = 0;   // VERSION register (MAJOR << 16 | MINOR)
  uint32_t shader_cores = 0;
  uint32_t warp_width = 0;
  uint64_t vram_size = 0;
  uint64_t va_base = 0;  // the client's GPU VA window [va_base, va_base + va_size)
  uint64_t va_size = 0;
  uint32_t max_work_group_size = 0;        // work-items per group
  uint32_t max_local_mem_size = 0;         // bytes per group
  uint32_t max_private_mem_size = 0;       // bytes per work-item
  uint64_t max_work_items_per_dispatch = 0;
  uint32_t clock_mhz = 0;                  // nominal shader clock (cycles -> time)
  uint32_t num_rings = 0;                  // rings 0 .. num_rings - 1
  uint64_t max_bo_size = 0;
  uint32_t page_size = 0;                  // VA and BO granularity
};

// A buffer object of one Device; 0 is never a valid handle.
using BoHandle = uint32_t;

// GPU access rights of a VA binding (the same bits as the MMU's segment permissions).
enum VaPerm : uint32_t {
  kVaRead = 1u << 0,
  kVaWrite = 1u << 1,
  kVaExecute = 1u << 2,
};

struct SubmitDesc {
  uint32_t ring = 0;
  // Whole command-processor packets (DISPATCH, SYNC, DUMP, NOP; see gsgpu/drv/packets.h). The
  // backend appends its own fence write; packets must not halt the command processor.
  const uint32_t* packets = nullptr;
  uint32_t dwords = 0;
  // Every BO the packets use (code, arguments, buffers, the ring of a DUMP): they stay alive until
  // the submission retires even if freed meanwhile.
  const BoHandle* bos = nullptr;
  uint32_t bo_count = 0;
};

enum class FaultKind : uint32_t {
  kCommand = 1,  // malformed packet: CP_FAULT (detail = CP_FAULT_INFO.CAUSE)
  kShader = 2,   // a dispatch faulted: watchdog, illegal instruction, ... (detail = SHADER_FAULT_INFO.KIND)
  kMemory = 3,   // an access outside the client's bindings or rights (address = the faulting VA)
  kTimeout = 4,  // the submission ran past its time budget and was stopped
};
const char* fault_kind_name(FaultKind kind);

struct FaultInfo {
  FaultKind kind = FaultKind::kCommand;
  uint32_t ring = 0;
  uint64_t seqno = 0;    // the submission that faulted
  uint32_t detail = 0;   // the register field named above
  uint64_t address = 0;  // faulting VA (kMemory)
  uint64_t pc = 0;       // faulting instruction (kShader, kMemory from a shader)
  std::string message;   // readable: what, where, which packet / group
};

struct Counters {
  uint64_t submissions = 0;  // retired, faulted ones included
  uint64_t packets = 0;
  uint64_t dispatches = 0;
  uint64_t instructions = 0;       // warp instructions issued
  uint64_t lane_instructions = 0;  // active lanes summed over issued instructions
  uint64_t cycles = 0;             // device cycles of the dispatches (timing model: functional)
  uint64_t work_groups = 0;
  uint64_t faults = 0;
  uint64_t resets = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const char* backend_name() const = 0;  // "local", "virtio"
  virtual const Caps& caps() const = 0;

  // --- buffer objects ---
  // A zero-filled object of `size` bytes (rounded up to the page size). `flags` is reserved (0).
  virtual Status bo_create(uint64_t size, uint32_t flags, BoHandle* out) = 0;
  // Removes the object's VA bindings and the handle now; its memory lives until every
  // submission that names it has retired.
  virtual Status bo_free(BoHandle bo) = 0;
  // The CPU mapping of the whole object (page aligned), valid until bo_free; nullptr for a bad
  // handle. Coherent with the GPU at submission and retirement boundaries.
  virtual void* bo_map(BoHandle bo) = 0;
  virtual uint64_t bo_size(BoHandle bo) = 0;  // 0 for a bad handle

  // --- GPU virtual addresses (this client's address space) ---
  // Maps [bo_offset, bo_offset + size) of `bo` at `va`. Page aligned, inside the BO and inside
  // [caps.va_base, caps.va_base + caps.va_size), not overlapping another binding; perms != 0.
  virtual Status va_bind(BoHandle bo, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) = 0;
  // Removes [va, va + size), which must be exactly covered by bindings.
  virtual Status va_unbind(uint64_t va, uint64_t size) = 0;

  // --- submission and fences ---
  // Queues the packets; *seqno is the submission's point on the ring's timeline (1, 2, ...).
  // Returns at once (the local backend runs work on the device's own thread).
  virtual Status submit(const SubmitDesc& desc, uint64_t* seqno) = 0;
  // The highest seqno of `ring` that has retired (completed, faulted or cancelled); 0 = none.
  virtual uint64_t fence_poll(uint32_t ring) = 0;
  // Waits until `seqno` of `ring` has retired, at most timeout_ns (UINT64_MAX: no limit).
  // kOk: it completed; kFaulted: it faulted or was cancelled; kTimeout; kInvalidArgument for a
  // ring out of range or a seqno never issued.
  virtual Status fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) = 0;

  // --- faults, counters, reset ---
  // Faults since the last call, oldest first (the backend keeps the newest 64).
  virtual std::vector<FaultInfo> read_faults() = 0;
  virtual Counters counters() = 0;
  // Cancels every submission that has not retired (they retire as kFaulted) and brings the
  // command processor back to idle. BOs and bindings stay. The device also does this by itself
  // after a fault, for the faulting submission only.
  virtual Status reset() = 0;
};

// --- the local backend: the emulator in this process ---

struct LocalConfig {
  std::string name = "gsgpu0";  // prefixes log lines
  uint32_t shader_cores = 4;
  uint32_t warp_width = 32;
  uint64_t vram_size = uint64_t{256} << 20;
  uint32_t num_rings = 4;
  // Instructions per warp before the watchdog ends a dispatch; 0 keeps the device's reset value.
  uint64_t watchdog_budget = 0;
  // Wall-clock time one submission may run before the device stops it (FaultKind::kTimeout; the
  // shader cores notice between work-groups and every 4096 instructions of a warp); 0 = no limit.
  uint64_t submit_time_budget_ns = 0;
  // Wall-clock time one DISPATCH of a submission may run (a submission may carry many): the same
  // kTimeout fault, counted from the dispatch's start; 0 = no limit.
  uint64_t dispatch_time_budget_ns = 0;
  // Wall-clock time all of this client's submissions together may run. When it is spent the
  // running submission is stopped (kTimeout) and every later one retires kFaulted with a kTimeout
  // fault without running: the client can no longer run work; its other calls keep working.
  // 0 = no limit.
  uint64_t client_time_budget_ns = 0;
  // Work-items (grid x group) one DISPATCH may ask for; the device refuses more as a bad field.
  uint64_t max_work_items_per_dispatch = uint64_t{1} << 28;
  // Per-client quotas: live buffer objects and their bytes (imported ones included).
  uint32_t max_bos = 65536;
  uint64_t max_bo_bytes = uint64_t{1} << 40;
  // Where the device's readable dump of every dispatch is written ("" = nowhere).
  std::string dump_dir;
  // Draws in the emulator's fast mode (docs/graphics.md "Reference and fast modes": the same
  // pixels, depth and stencil bit for bit; the overdraw counter not kept; larger fragment batches).
  bool fast_draws = false;
  // Called on the device's thread after each submission retires (completed, faulted or
  // cancelled), in timeline order per ring: how the native context retires guest fences without
  // a thread of its own. Must not call back into the Device.
  std::function<void(uint32_t ring, uint64_t seqno, Status outcome)> on_retire;
};

// The local backend's Device, with what only the host side needs.
class LocalDevice : public Device {
 public:
  // A BO over memory the caller owns (the host mapping of a blob resource the guest also maps):
  // `host` page aligned, `size` a page multiple. `release` runs once no binding or submission
  // uses the memory any more (after bo_free), on any thread.
  virtual Status bo_import(void* host, uint64_t size, std::function<void()> release, BoHandle* out) = 0;
};

// `base` with the device's shape taken from the environment, so every mode that opens a local
// device (gsgpu/cl's runtime behind vcomp, the gsgpu native context) emulates the same GPU:
// GSGPU_CORES (shader_cores, 1..256), GSGPU_WARP (warp_width, a power of two in 1..64),
// GSGPU_VRAM_MB (vram_size in MiB, 16..16384), GSGPU_WATCHDOG (watchdog_budget, 1..2^32-1),
// GSGPU_MAX_WORK_ITEMS (max_work_items_per_dispatch, 1..2^40), GSGPU_DISPATCH_TIME_MS
// (dispatch_time_budget_ns in ms, 0..2^32; 0 = none), GSGPU_CLIENT_TIME_S (client_time_budget_ns in
// seconds, 0..2^32; 0 = none), GSGPU_MODE (fast_draws: "fast" or "reference"). A variable that is unset keeps `base`'s value; one that is unusable
// keeps it too, with a log line. The defaults are LocalConfig's (4 cores, warp 32, 256 MiB, the
// device's watchdog, 2^28 work-items, no time budgets); callers that serve guests pass their own.
LocalConfig local_config_from_env(LocalConfig base = {});

// Opens a new emulated device for one client. nullptr and *error when the configuration is
// unusable.
std::unique_ptr<LocalDevice> open_local(const LocalConfig& config, std::string* error);

}  // namespace gsgpu::drv
