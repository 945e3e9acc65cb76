// The gsgpu OpenCL runtime's object model and the device it drives through gsgpu/drv (internal to
// gsgpu/cl).
//
// Every OpenCL handle this runtime returns points at an Object built on the object base every OpenCL
// implementation in the tree shares (common/cl/object.h: the ICD dispatch table first, cl_khr_icd).
// Handles are checked against the runtime's registry of live objects before use, so a stale or
// foreign handle is an OpenCL error, never a wild read. One recursive mutex per
// Runtime serialises every entry point. The device is reached only through gsgpu/drv: buffer
// objects bound at GPU VAs the runtime chooses, packets submitted on a ring, fences, faults and
// counters; limits come from the device's capabilities (drv::Caps).
//
// Commands complete asynchronously: an enqueue validates, queues the command and submits what is
// ready without waiting; the runtime's completion thread waits on fences, retires submissions in
// order and moves the queues on (queue.cc). Only explicit waits block the caller.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
// The ICD table still has the 1.0/1.1 entry points; this executor fills them.
#ifndef CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gsgpu/cl/bo_pool.h"
#include "gsgpu/cl/gsgpu_cl.h"
#include "gsgpu/cl/quota.h"
#include "gsgpu/compiler/compiler.h"
#include "gsgpu/drv/drv.h"
#include "gsgpu/drv/va_allocator.h"
#include "common/checked_math.h"
#include "common/cl/errors.h"
#include "common/cl/info.h"
#include "common/cl/object.h"
#include "common/log.h"

namespace gsgpu::cl {

// The project's logging and checked arithmetic (common/), used unqualified throughout the runtime.
using gsvirt::checked_add;
using gsvirt::checked_mul;
using gsvirt::debug_enabled;
using gsvirt::kDebugGsgpu;
using gsvirt::log_debug;
using gsvirt::log_error;
using gsvirt::log_info;
using gsvirt::range_within;
// The shared OpenCL object model (common/cl).
using gsvirt::cl::Kind;
using gsvirt::cl::put_array;
using gsvirt::cl::put_info;
using gsvirt::cl::put_string;
using gsvirt::cl::put_value;
using gsvirt::cl::set_error;
// Two reference counts (common/cl/object.h): the application's, taken by clRetain*/clRelease* and
// the creating call (what CL_*_REFERENCE_COUNT reports), and the runtime's own holds (a kernel on
// its program, a queue/mem/program/event on its context, an event on its queue, a sub-buffer on its
// parent, a queued command on its wait list, the objects it uses and its event). When both reach
// zero the object leaves the registry and its destroy hook (runtime.cc) releases what it held.
using gsvirt::cl::release_app;
using gsvirt::cl::release_internal;
using gsvirt::cl::retain_app;
using gsvirt::cl::retain_internal;

class Runtime;

struct Object : gsvirt::cl::Object {
  Object(Runtime* runtime, Kind kind);  // dispatch: the runtime's table
  Runtime* rt;
  void (*destroy)(Object*) = nullptr;  // deletes the concrete object; no vtable before `dispatch`
};

struct Platform : Object {};
struct Device : Object {};

struct Context : Object {
  std::vector<cl_context_properties> properties;  // as given, 0-terminated (empty when NULL)
  void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*) = nullptr;
  void* notify_data = nullptr;
  // clSetContextDestructorCallback's, run in reverse order once the context is gone.
  std::vector<std::pair<void(CL_CALLBACK*)(cl_context, void*), void*>> destructors;
};

// The work of a host-side command (transfers through bo_map, markers): returns CL_COMPLETE or a
// negative error and the device cycles it is modelled to take.
using Work = std::function<cl_int(uint64_t* cycles)>;

// How one submission ended.
struct SubmitOutcome {
  bool ok = false;
  drv::Counters counters;  // what the device did for it (exact only when it ran alone; see Runtime)
  std::string fault;       // what went wrong (fault kind, pc, address, message)
};

// What a device command puts on the ring, built when it is submitted: whole packets, the objects
// they use, and what to do once the submission retires (read printf records, write the dump, free
// the per-dispatch objects), which returns the command's status.
struct Submission {
  std::vector<uint32_t> packets;
  std::vector<drv::BoHandle> bos;
  std::function<cl_int(const SubmitOutcome&)> retire;
};
// Builds a device command's submission; a negative error when it cannot (nothing left to free).
using Launch = std::function<cl_int(Submission*)>;

struct Event;
struct Queue;

// One enqueued command from enqueue until its event completes. It holds internal references to its
// wait list, the objects it uses and its event. Exactly one of `work` (host side) and `launch` (device).
struct Command {
  enum class State { kWaiting, kInFlight, kFinished };
  cl_command_type type = 0;
  Queue* queue = nullptr;
  Event* event = nullptr;  // held (internal reference)
  std::vector<Object*> waits;
  std::vector<Object*> keep;
  Work work;
  Launch launch;
  std::function<cl_int(const SubmitOutcome&)> retire;  // device commands in flight
  bool exact_counters = false;  // its cycles are reported (profiling, GSVIRT_DEBUG=gsgpu)
  drv::Counters counters_before;
  State state = State::kWaiting;
  cl_int status = CL_COMPLETE;  // once finished
  uint64_t cycles = 0;
};

struct Queue : Object {
  Context* context = nullptr;
  // In order: a device command is submitted once its wait list has completed and every command
  // before it is submitted or finished; a host command runs once every command before it has
  // finished; events complete from the front.
  std::deque<std::unique_ptr<Command>> commands;
  // Commands start in order, so the started ones (in flight or finished) are a prefix of
  // `commands`: how long it is, and how many of it are in flight.
  size_t started = 0;
  size_t in_flight = 0;
  cl_command_queue_properties properties = 0;
  // clCreateCommandQueueWithProperties's list as given, 0-terminated (empty otherwise):
  // CL_QUEUE_PROPERTIES_ARRAY.
  std::vector<cl_queue_properties> properties_array;
  // The first kernel fault since the last clFinish: reported by it, as GPU drivers do.
  cl_int pending_error = CL_SUCCESS;
};

// An image's shape and the linear layout of its pixels in device memory (image.cc): pixel (x, y, z)
// of a box lies at x * pixel_bytes + y * row_pitch + z * slice_pitch from the image's first byte,
// where y is the row (a 1D array's layer, whose row_pitch equals its slice_pitch) and z the slice
// (a 3D image's depth or a 2D array's layer).
struct ImageLayout {
  cl_image_format format{};
  cl_mem_object_type type = 0;
  uint32_t pixel_bytes = 0;
  size_t width = 0, height = 0, depth = 0, array_size = 0;  // as CL_IMAGE_* reports them
  size_t row_pitch = 0, slice_pitch = 0;                    // bytes; slice_pitch 0 for 1D and 2D
  // The box a region may cover: rows (height, or a 1D array's layers) and slices (depth, or a 2D
  // array's layers); 1 where the type has none.
  size_t rows = 1, slices = 1;
};

struct Mem : Object {
  Context* context = nullptr;
  // Sub-buffers: the buffer they view; images made from a buffer or image: that object (held).
  Mem* parent = nullptr;
  cl_mem_flags flags = 0;
  size_t size = 0;
  size_t origin = 0;     // offset inside the root buffer object (sub-buffers: inside the parent)
  uint64_t va = 0;       // GPU VA of byte 0
  GpuAlloc alloc;        // root buffers: their buffer object
  void* host_ptr = nullptr;  // as given by the application (CL_MEM_HOST_PTR)
  // clCreateBufferWithProperties's list as given, 0-terminated (empty otherwise): CL_MEM_PROPERTIES.
  std::vector<cl_mem_properties> properties;
  uint32_t map_count = 0;  // guarded by the runtime mutex (unmaps run on the completion thread too)
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructors;
  std::unique_ptr<ImageLayout> image;  // images only
  GpuAlloc image_descriptor;           // images: the descriptor kernels read (image.cc)

  bool is_image() const { return image != nullptr; }
  const GpuAlloc& root_alloc() const { return parent ? parent->root_alloc() : alloc; }
  // The object's bytes through its buffer object's CPU mapping (size bytes; a sub-buffer or an
  // image over another object lies inside it, checked when it was created).
  uint8_t* bytes() const { return root_alloc().cpu + origin; }
};

struct Sampler : Object {
  Context* context = nullptr;
  cl_bool normalized_coords = CL_TRUE;
  cl_addressing_mode addressing_mode = CL_ADDRESS_CLAMP;
  cl_filter_mode filter_mode = CL_FILTER_NEAREST;
  // clCreateSamplerWithProperties's list as given, 0-terminated (empty otherwise).
  std::vector<cl_sampler_properties> properties;
};

// An argument's OpenCL C type as declared in the source (clGetKernelArgInfo).
struct KernelArgType {
  std::string name;  // "float*", "uint4"
  cl_kernel_arg_type_qualifier qualifier = CL_KERNEL_ARG_TYPE_NONE;
};

struct PrintfFormatTable;  // printf.h

// Code of one compiled kernel, uploaded into a buffer object the first time a kernel of it is
// enqueued.
struct KernelImage {
  gsgpu::compiler::CompiledKernel compiled;
  GpuAlloc code;
  // Only for programs built with -cl-kernel-arg-info whose declaration could be read.
  std::optional<std::vector<KernelArgType>> arg_types;
  // The vec_type_hint attribute's type as declared in the source ("uchar2"), "" when none: SPIR-V
  // keeps only its element width and count, and CL_KERNEL_ATTRIBUTES reports the source's type.
  std::string vec_type_hint;
  // Kernels that call printf: their formats, parsed once when the program is built.
  std::shared_ptr<const PrintfFormatTable> printf_table;
};

// What a successful build produced; shared by the program and its kernels, so a kernel keeps its
// code alive after its program is rebuilt or released. Frees its code objects through the runtime.
struct BuiltProgram {
  Runtime* rt = nullptr;
  std::vector<std::unique_ptr<KernelImage>> kernels;
  ~BuiltProgram();
};

struct Program : Object {
  Context* context = nullptr;
  enum class Origin { kSource, kIL, kBinary } origin = Origin::kSource;
  std::string source;              // kSource, kBinary (our binaries carry source)
  std::vector<uint32_t> il;        // kIL
  std::string options;             // of the last build
  cl_build_status build_status = CL_BUILD_NONE;
  cl_program_binary_type binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
  std::string log;
  // clCompileProgram's embedded headers (include name, text), needed again when the object is linked.
  std::vector<std::pair<std::string, std::string>> headers;
  // clCompileProgram's SPIR-V of an OpenCL C unit, kept for a link of several units (which would
  // otherwise compile it again); empty for an object reloaded from a binary.
  std::vector<uint32_t> object_spirv;
  // Its source / IL, headers, options and log against the runtime's program quota (charge_program).
  QuotaHold quota;
  std::shared_ptr<BuiltProgram> built;
  // Kernels the application holds ("kernel objects attached to program"): clBuildProgram and
  // clCompileProgram refuse while there are any (the spec). A kernel only a queued command still
  // holds is not counted: it keeps its own code (BuiltProgram), so a rebuild cannot disturb it.
  uint32_t attached_kernels = 0;
};

struct KernelArg {
  bool set = false;
  std::vector<uint8_t> bytes;  // by-value data
  cl_mem mem = nullptr;        // global/constant pointers (checked again at enqueue)
  uint32_t local_size = 0;     // __local pointers
};

struct Kernel : Object {
  Program* program = nullptr;  // held
  std::shared_ptr<BuiltProgram> built;
  KernelImage* image = nullptr;  // inside built
  std::vector<KernelArg> args;
  bool attached = true;  // counted in program->attached_kernels
};

// The application let go of the kernel (its last clReleaseKernel) or it is destroyed: it no longer
// counts as attached to its program. Called with the runtime mutex held.
inline void detach_kernel(Kernel* k) {
  if (!k->attached) return;
  k->attached = false;
  --k->program->attached_kernels;
}

struct Event : Object {
  Context* context = nullptr;
  Queue* queue = nullptr;  // nullptr for user events
  cl_command_type command_type = 0;
  cl_int status = CL_QUEUED;
  Command* command = nullptr;  // while its command is queued
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;  // ns, see docs/gsgpu-executor.md
  struct Callback {
    cl_int when;
    void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
    void* data;
  };
  std::vector<Callback> callbacks;
};

// --- handles ---

// The live handles of every runtime in the process. Handles come from vcomp's object table, but
// the registry makes a stale handle (released object) an OpenCL error instead of a use-after-free.
gsvirt::cl::Registry& registry();

// Registers a new object (one application reference) and returns it.
template <typename T>
T* make_object(Runtime* rt, Kind kind);
// The object behind a handle when it is live and of the expected kind, else nullptr.
template <typename T>
T* as(const void* handle, Kind kind) {
  return static_cast<T*>(registry().find(handle, kind));
}

template <typename Handle>
Handle handle_of(Object* o) {
  return reinterpret_cast<Handle>(o);
}

// Logs an unsupported or refused call once per entry point and reason.
inline void log_once(const char* entry, const std::string& why) {
  gsvirt::cl::log_once("gsgpu executor", entry, why);
}

// --- programs ---

// The device list of clBuildProgram, clCompileProgram, clLinkProgram: CL_INVALID_VALUE when the
// count and the list disagree (one is zero/NULL, the other not), CL_INVALID_DEVICE for a handle
// that is not this runtime's device (program.cc).
cl_int check_device_list(const Runtime* rt, cl_uint n, const cl_device_id* devices);

// Runs the compiler over the program's source or SPIR-V (with its embedded headers) and records the
// outcome: status, log, kernels (program.cc).
cl_int build_program(Program* p, const char* options);
// The OpenCL C text and options to give the compiler for `p`: its own, or, where the runtime
// resolves includes locally (RuntimeConfig::resolve_includes_locally), the source with the files
// its #includes name inlined and the options without their -I words.
std::string source_to_compile(const Program* p, std::string* options);

// Reads what SPIR-V does not keep from each kernel's declaration in `source`: the vec_type_hint
// attribute, and with `arg_types` (-cl-kernel-arg-info) the argument types (kernel_arg_info.cc).
void attach_source_info(const std::string& source, bool arg_types, BuiltProgram* built);

// --- the device ---

class Runtime {
 public:
  // The runtime over `device` (config: the runtime-side settings such as dump_dir; the device's
  // own shape comes from its caps). nullptr and *error when the device's caps are unusable.
  static std::unique_ptr<Runtime> create(const RuntimeConfig& config, std::unique_ptr<drv::Device> device,
                                         std::string* error);
  ~Runtime();

  std::recursive_mutex mutex;
  const cl_icd_dispatch* table = nullptr;
  Platform* platform = nullptr;
  Device* device_object = nullptr;
  std::vector<Queue*> queues;  // live queues, for commands waiting on other queues' events
  // Byte quotas (RuntimeConfig, quota.h): programs' texts and logs, queued launches' arguments,
  // printf output.
  std::shared_ptr<ByteQuota> program_quota, launch_arg_quota, printf_quota;
  // advance() is running (callbacks it runs may enqueue): a nested call asks for another pass.
  bool advancing = false;
  bool advance_again = false;
  // Event callbacks are running (under the mutex, maybe on the completion thread): a blocking
  // call from one would wait for itself and is refused.
  uint32_t in_callback = 0;
  // Where kernel printf text goes (Instance::set_printf_sink); empty: stdout. Guarded by `mutex`.
  std::function<void(std::string_view)> printf_sink;
  // The completion thread is in advance(): it wakes waiters itself once it has dropped the mutex
  // (woken under it, they would only block on the mutex and need a second wake-up).
  bool notify_after_unlock = false;

  const RuntimeConfig& config() const { return config_; }
  drv::Device& device() { return *device_; }
  const drv::Caps& caps() const { return caps_; }

  // A zero-filled buffer object of at least `size` bytes bound with `perms` (drv::VaPerm) at a VA
  // followed by an unbound guard page.
  std::optional<GpuAlloc> allocate(uint64_t size, uint32_t perms, std::string* error);
  // A read-only piece of at least `size` bytes for a dispatch's argument buffer: from the pool
  // (bo_pool.h) when it is small, else an object of its own. Its bytes are not zeroed.
  std::optional<GpuAlloc> allocate_arguments(uint64_t size, std::string* error);
  // Frees an object or gives a pool piece back (only once no submission in flight uses it).
  void free(GpuAlloc& alloc);

  // Whether a device command may start now. Counters are per client, so a command whose cycles
  // are reported runs alone on the device: it waits until nothing is in flight or held, and
  // nothing starts while it runs. Others wait while the held batch is full.
  bool can_submit(bool exact_counters) const {
    if (exclusive_in_flight_) return false;
    if (exact_counters) return in_flight_.empty() && held_.empty();
    return held_.size() < kMaxBatchLaunches;
  }
  // Starts a device command's submission (submission.cc; never waits): on the ring at once when
  // the device has room, else held to go with the launches after it as one submission once it
  // has. false with the device's status in *why when the device refuses it at once.
  bool start_launch(Command* c, Submission&& s, std::string* why);
  // Sends held launches when the device has room (advance() calls it after each pass); true when
  // something changed (sent, or refused and finished). `now`: whatever single launches are in
  // flight (a thread is about to wait, or clFlush: nothing more is coming from it for now).
  bool flush_held(bool now = false);
  // clFlush, and every blocking wait before it sleeps: held launches go to the device now, so it
  // is not left idle until something retires. Called with `mutex` held.
  void flush_for_wait();
  // Wakes threads blocked in wait_until (a command finished).
  void notify_progress() { progress_.notify_all(); }
  // Blocks (releasing `lock`, which holds `mutex` once) until done() holds.
  // The waiting thread first watches the oldest submission's fence itself (direct_wait): what
  // retires within config().direct_wait_us is retired by this thread, with no wake-up by another.
  // done() is checked again after every direct_wait that let go of the lock: while it did, the
  // completion thread may have retired everything and sent its wake-up to nobody (a wait that
  // then slept on progress_ slept for ever: fuzz_vcomp_gsgpu's clFinish time-outs).
  template <typename Pred>
  void wait_until(std::unique_lock<std::recursive_mutex>& lock, Pred done) {
    if (done()) return;
    flush_for_wait();
    while (!done())
      if (!direct_wait(lock)) progress_.wait(lock);
  }

  // The profiling clock (ns); see docs/gsgpu-executor.md for the time base.
  cl_ulong host_now_ns() const;
  // Start and end of device work that takes `cycles` at the device's nominal clock, submitted at
  // `submit`.
  void schedule(cl_ulong submit, uint64_t cycles, cl_ulong* start, cl_ulong* end);
  static constexpr uint64_t kCopyBytesPerCycle = 32;  // transfers are modelled at 32 B/cycle

  // Limits reported to OpenCL and enforced at enqueue, all from the device's caps.
  // CL_DEVICE_MAX_MEM_ALLOC_SIZE: the full profile's minimum, max(VRAM / 4, 128 MiB), within VRAM
  // and the device's largest buffer object.
  uint64_t max_alloc() const;
  uint64_t max_work_group_size() const { return caps_.max_work_group_size; }
  // __local bytes per group: the device's, within what the compiler's argument buffer can address.
  uint32_t max_local_mem() const;
  uint32_t max_private_mem() const { return caps_.max_private_mem_size; }
  uint64_t max_work_items() const { return caps_.max_work_items_per_dispatch; }
  uint32_t clock_mhz() const { return caps_.clock_mhz; }

 private:
  Runtime(const RuntimeConfig& config, std::unique_ptr<drv::Device> device);
  bool init(std::string* error);
  // A started device command with what it puts on the ring, kept until it retires (a batch that
  // faults sends the launches it never reached again).
  struct LaunchRecord {
    Command* command = nullptr;
    std::vector<uint32_t> packets;
    std::vector<drv::BoHandle> bos;
    uint64_t serial = 0;  // the value its progress marker writes (batches)
  };
  std::string describe_fault(uint64_t seqno);
  // Puts `records` on the ring as one submission (a batch when more than one: each launch but the
  // last followed by its progress marker). false and *why when the device refuses it.
  bool submit_records(std::vector<LaunchRecord>&& records, std::string* why);
  // Ends a launch: its retire step, status and cycles.
  void finish_launch(LaunchRecord& record, const SubmitOutcome& out);
  void retire_batch(uint64_t seqno, std::vector<LaunchRecord>& records, const SubmitOutcome& out);
  // The completion thread: waits for the oldest submission's fence, retires what has retired,
  // moves the queues on.
  void completion_loop();
  // Tells the completion thread which seqno to wait for next (0: nothing in flight), after
  // in_flight_ changed. Called with `mutex` held.
  void update_wait_target();
  void retire_submissions();
  void fail_in_flight(const std::string& why);
  // One application thread at a time waits for the oldest submission's fence for at most
  // direct_wait_us and retires it. true when it let go of `lock` (whatever came of the wait: the
  // caller checks its condition again before sleeping); false when it did not try (nothing in
  // flight, another thread is watching, or it gave up on this submission before: the completion
  // thread retires it and wakes the waiters).
  bool direct_wait(std::unique_lock<std::recursive_mutex>& lock);

  static constexpr uint32_t kRing = 0;  // every queue's work goes on one ring: in order on the device
  // Launches started while the device is busy are held and sent together (submission.cc): at most
  // this many per submission, and within packet and object limits every backend accepts.
  static constexpr size_t kMaxBatchLaunches = 256;
  static constexpr size_t kMaxBatchDwords = 16384;
  static constexpr size_t kMaxBatchBos = 1024;
  // Single launches in flight before further ones are held (the device always has the next one).
  static constexpr size_t kMaxSinglesInFlight = 2;

  RuntimeConfig config_;
  std::unique_ptr<drv::Device> device_;
  drv::Caps caps_;
  std::unique_ptr<drv::VaAllocator> va_;
  std::unique_ptr<BoPool> argument_pool_;  // read-only pieces for argument buffers
  cl_ulong device_busy_until_ = 0;
  uint64_t epoch_ns_ = 0;
  // Guarded by `mutex`:
  std::map<uint64_t, std::vector<LaunchRecord>> in_flight_;  // seqno -> its launches, oldest first
  bool exclusive_in_flight_ = false;
  // A batch is in flight: it is the newest submission, and nothing is sent after it until it
  // retires, so the launches a fault kept it from reaching can be sent again, still in order.
  bool batch_in_flight_ = false;
  std::deque<LaunchRecord> held_;  // started, waiting for the device to have room
  bool direct_waiter_ = false;     // an application thread is in direct_wait()
  // The oldest submission in flight when direct_wait() last gave up on it: it is not watched
  // again (its kernel is long; the completion thread wakes the waiters).
  uint64_t direct_wait_gave_up_ = 0;
  // Where a batch's progress markers (SYNC packets) write the serial of each launch that ended.
  GpuAlloc progress_slot_;
  uint64_t next_serial_ = 1;
  std::map<uint64_t, drv::FaultInfo> unclaimed_faults_;  // read from the device, seqno not retired yet
  // The completion thread sleeps on its own small lock, not on `mutex`: woken while an
  // application thread still holds `mutex` (a submit happens inside an enqueue), it would block on
  // it straight away and need a second wake-up. It goes straight to the fence instead.
  std::mutex completion_mutex_;
  std::condition_variable completion_wake_;
  uint64_t wait_target_ = 0;  // guarded by completion_mutex_: the oldest seqno in flight, 0 = none
  bool stopping_ = false;     // guarded by completion_mutex_
  // Guarded by `mutex`: the runtime is going away; nothing more is submitted (every launch fails).
  bool closing_ = false;
  std::condition_variable_any progress_;   // waiters: a command finished
  std::thread completion_thread_;
};

// Charges a program's texts (source or IL, embedded headers, options, log) to its runtime's
// program quota, `headers` standing for its headers when given (before they are stored). False
// (logged, nothing changed) when they do not fit: the caller answers CL_OUT_OF_HOST_MEMORY.
bool charge_program(Program* p, const char* what,
                    const std::vector<std::pair<std::string, std::string>>* headers = nullptr);
// Stores a build log: at most build_log_max_kb of it, and only what the program quota allows.
void set_build_log(Program* p, std::string log);

// The dispatch table with every entry filled (dispatch_table.cc).
const cl_icd_dispatch* gsgpu_dispatch_table();

// Event helpers shared by the enqueue files (event.cc).
Event* new_event(Queue* q, cl_command_type type);
void set_event_status(Event* e, cl_int status);
// Checks a wait list: CL_INVALID_EVENT_WAIT_LIST for a bad list or handle, CL_INVALID_CONTEXT for an
// event of another context; CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when a listed event failed.
cl_int check_wait_list(Context* context, cl_uint n, const cl_event* events);
// Ends a command's event with its status; profiling times from its submit time and cycles.
void finish_event(Event* e, cl_int status, uint64_t cycles);
// True when `e` can complete only after a user event that is not complete yet is set: waiting for
// it on the only thread that could set that event would never end.
bool waits_for_user_event(const Event* e);

// A command as the enqueue entry points describe it (queue.cc does the rest).
struct CommandDesc {
  cl_command_type type = 0;
  Work work;      // host-side commands
  Launch launch;  // device commands
  // Blocking commands (reads, writes, maps with blocking set) return once their event completed;
  // they are refused with CL_INVALID_OPERATION when that would wait for a user event.
  bool blocking = false;
  std::vector<Object*> keep;  // objects the command uses (retained until it completes)
};
// Validates the wait list, queues the command and moves the runtime's queues on (queue.cc). A
// blocking command's failure is the return value; others report theirs through the event.
cl_int enqueue(Queue* q, CommandDesc desc, cl_uint n, const cl_event* waits, cl_event* event_out);
// Moves every queue of the runtime on as far as it can: submits ready device commands, runs ready
// host commands, completes finished commands' events in order (queue.cc). Called with the runtime
// mutex held, after anything that can unblock a command.
void advance(Runtime* rt);

}  // namespace gsgpu::cl
