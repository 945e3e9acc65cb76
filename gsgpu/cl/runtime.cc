// Handles, info helpers and the device the executor drives: VRAM, the ring, dispatch and recovery.
#include "gsgpu/cl/runtime.h"

#include <chrono>
#include <set>
#include <unordered_set>

#include "common/checked_math.h"
#include "common/log.h"

namespace gsgpu::cl {
namespace {

// Live objects of every runtime in the process. Handles come from vcomp's object table, but a
// registry makes a stale handle (released object) an OpenCL error instead of a use-after-free.
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::unordered_set<const Object*>& registry() {
  static auto* r = new std::unordered_set<const Object*>;
  return *r;
}

constexpr uint32_t kRingBytes = 64 << 10;

}  // namespace

static_assert(offsetof(Object, dispatch) == 0, "cl_khr_icd: the dispatch table comes first");

template <typename T>
T* make_object(Runtime* rt, Kind kind) {
  T* o = new T();
  o->dispatch = rt->table;
  o->kind = kind;
  o->rt = rt;
  o->destroy = [](Object* self) { delete static_cast<T*>(self); };
  std::lock_guard lock(registry_mutex());
  registry().insert(o);
  return o;
}
template Platform* make_object<Platform>(Runtime*, Kind);
template Device* make_object<Device>(Runtime*, Kind);
template Context* make_object<Context>(Runtime*, Kind);
template Queue* make_object<Queue>(Runtime*, Kind);
template Mem* make_object<Mem>(Runtime*, Kind);
template Program* make_object<Program>(Runtime*, Kind);
template Kernel* make_object<Kernel>(Runtime*, Kind);
template Event* make_object<Event>(Runtime*, Kind);

Object* find_object(const void* handle, Kind kind) {
  if (!handle) return nullptr;
  auto* o = static_cast<const Object*>(handle);
  std::lock_guard lock(registry_mutex());
  if (!registry().count(o) || o->kind != kind) return nullptr;
  return const_cast<Object*>(o);
}

void retain(Object* o) { o->refs.fetch_add(1); }

namespace {

// What an object holds a reference to (released after it is gone), and its last rites.
std::vector<Object*> finish_object(Object* o) {
  switch (o->kind) {
    case Kind::kQueue: {
      auto* q = static_cast<Queue*>(o);
      std::erase(q->rt->queues, q);
      return {q->context};
    }
    case Kind::kMem: {
      auto* m = static_cast<Mem*>(o);
      // The spec: destructor callbacks run in the reverse order of registration.
      for (auto it = m->destructors.rbegin(); it != m->destructors.rend(); ++it)
        it->first(handle_of<cl_mem>(m), it->second);
      if (m->vram.mapped) m->rt->free(m->vram);
      return {m->parent ? static_cast<Object*>(m->parent) : m->context};
    }
    case Kind::kProgram: return {static_cast<Program*>(o)->context};
    case Kind::kKernel: {
      auto* k = static_cast<Kernel*>(o);
      --k->program->kernels_alive;
      return {k->program};
    }
    case Kind::kEvent: {
      auto* e = static_cast<Event*>(o);
      if (e->queue) return {e->queue, e->context};
      return {e->context};
    }
    default: return {};
  }
}

}  // namespace

void release(Object* o) {
  if (o->refs.fetch_sub(1) != 1) return;
  {
    std::lock_guard lock(registry_mutex());
    registry().erase(o);
  }
  std::vector<Object*> parents = finish_object(o);
  o->destroy(o);
  for (Object* p : parents)
    if (p) release(p);
}

cl_int put_info(const void* data, size_t size, size_t value_size, void* value, size_t* size_ret) {
  if (size_ret) *size_ret = size;
  if (!value) return CL_SUCCESS;
  if (value_size < size) return CL_INVALID_VALUE;
  if (size) std::memcpy(value, data, size);
  return CL_SUCCESS;
}

cl_int put_string(const std::string& s, size_t value_size, void* value, size_t* size_ret) {
  return put_info(s.c_str(), s.size() + 1, value_size, value, size_ret);
}

void log_once(const char* entry, const std::string& why) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::string key = std::string(entry) + ": " + why;
  std::lock_guard lock(m);
  if (seen.size() < 4096 && seen.insert(key).second) log_error("gsgpu executor: %s", key.c_str());
}

BuiltProgram::~BuiltProgram() {
  for (auto& k : kernels)
    if (k->code.mapped) rt->free(k->code);
}

std::unique_ptr<Runtime> Runtime::create(const RuntimeConfig& config, std::string* error) {
  std::unique_ptr<Runtime> rt(new Runtime(config));
  if (!rt->init(error)) return nullptr;
  return rt;
}

bool Runtime::init(std::string* error) {
  gsgpu::DeviceConfig dc;
  dc.name = "gsgpu-cl";
  dc.shader_cores = config_.shader_cores;
  dc.warp_width = config_.warp_width;
  dc.vram_size = config_.vram_mb << 20;
  // Every buffer is mapped at va_base + its physical offset, so the VA space covers VRAM.
  dc.va_size = std::max<uint64_t>(dc.va_size, dc.vram_size + gsgpu::Mmu::kPageSize);
  // Commands run on the calling thread: completion is deterministic and needs no CP thread.
  dc.cp_mode = gsgpu::CpMode::kManual;
  dc.max_work_items_per_dispatch = config_.max_work_items;
  std::string why;
  device_ = gsgpu::Device::create(dc, &why);
  if (!device_) {
    *error = "gsgpu executor: cannot create the device: " + why;
    return false;
  }
  auto ring = allocate(kRingBytes, gsgpu::kPermRead, &why);
  auto fence = allocate(8, gsgpu::kPermReadWrite, &why);
  if (!ring || !fence) {
    *error = "gsgpu executor: cannot place the ring and fence in VRAM: " + why;
    return false;
  }
  ring_mem_ = *ring;
  fence_mem_ = *fence;
  program_ring();
  table = gsgpu_dispatch_table();
  platform = make_object<Platform>(this, Kind::kPlatform);
  device_object = make_object<Device>(this, Kind::kDevice);
  epoch_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch()).count();
  return true;
}

Runtime::~Runtime() {
  // Platform and device are never released by applications (not reference counted in 1.2).
  if (platform) release(platform);
  if (device_object) release(device_object);
}

void Runtime::program_ring() {
  if (config_.watchdog_budget)
    device_->write_register(gsgpu::hw::reg::WATCHDOG_BUDGET,
                            uint32_t(std::min<uint64_t>(config_.watchdog_budget, UINT32_MAX)));
  ring_ = std::make_unique<gsgpu::RingWriter>(*device_, ring_mem_.va, kRingBytes);
}

std::optional<VramRange> Runtime::allocate(uint64_t size, uint32_t perms, std::string* error) {
  const uint64_t page = gsgpu::Mmu::kPageSize;
  if (size == 0 || size > device_->mmu().vram_size()) {
    *error = "size " + std::to_string(size) + " outside 1.." + std::to_string(device_->mmu().vram_size());
    return std::nullopt;
  }
  VramRange r;
  r.mapped = (size + page - 1) / page * page;
  auto phys = device_->vram_allocator().allocate(r.mapped + page);
  if (!phys) {
    *error = "no free VRAM range of " + std::to_string(r.mapped + page) + " bytes";
    return std::nullopt;
  }
  r.phys = *phys;
  r.va = device_->mmu().config().va_base + r.phys;
  if (!device_->mmu().map(r.va, r.mapped, r.phys, perms, error)) {
    device_->vram_allocator().free(r.phys);
    return std::nullopt;
  }
  return r;
}

void Runtime::free(VramRange& range) {
  if (!range.mapped) return;
  std::string why;
  if (!device_->mmu().unmap(range.va, range.mapped, &why)) log_error("gsgpu executor: unmap: %s", why.c_str());
  device_->vram_allocator().free(range.phys);
  range = {};
}

bool Runtime::write(uint64_t va, const void* data, uint64_t size) {
  return size == 0 || device_->mmu().write(va, data, size);
}

bool Runtime::read(uint64_t va, void* out, uint64_t size) { return size == 0 || device_->mmu().read(va, out, size); }

uint8_t* Runtime::host_span(uint64_t va, uint64_t size) {
  auto l = device_->mmu().lookup(va);
  if (!l || !range_within(l->offset, size, l->segment.size)) return nullptr;
  return l->host;
}

DispatchOutcome Runtime::dispatch(const gsgpu::DispatchRequest& request) {
  namespace SYNC = gsgpu::hw::pkt::SYNC;
  DispatchOutcome out;
  const uint64_t seq = ++fence_seq_;
  std::string why;
  if (!ring_->write(gsgpu::make_dispatch_packet(request), &why) ||
      !ring_->write(gsgpu::make_sync_packet(SYNC::FLAGS_WRITE_FENCE_MASK | SYNC::FLAGS_FENCE_64BIT_MASK,
                                            fence_mem_.va, seq),
                    &why)) {
    out.fault = "ring: " + why;
    recover(out.fault);
    return out;
  }
  ring_->kick();
  device_->run_until_idle();
  uint64_t fence = 0;
  read(fence_mem_.va, &fence, sizeof fence);
  auto record = device_->last_dispatch();
  if (record) out.counters = record->outcome.counters;
  // The SYNC after the dispatch writes the fence only when the dispatch completed: a faulted
  // dispatch stops the command processor before it.
  if (fence == seq) {
    out.ok = true;
    return out;
  }
  if (record && record->outcome.fault) {
    const auto& f = *record->outcome.fault;
    char pc[32];
    std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(f.pc));
    out.fault = std::string(gsgpu::dispatch_fault_name(f.kind)) + " fault at pc " + pc + " in group (" +
                std::to_string(f.group_id[0]) + ", " + std::to_string(f.group_id[1]) + ", " +
                std::to_string(f.group_id[2]) + "): " + f.message;
  } else if (auto cp = device_->cp_fault()) {
    out.fault = std::string("command processor: ") + gsgpu::cp_fault_cause_name(cp->cause) + ": " + cp->message;
  } else {
    out.fault = "fence not written (CP state " + std::string(gsgpu::cp_state_name(device_->cp_state())) + ")";
  }
  recover(out.fault);
  return out;
}

void Runtime::recover(const std::string& why) {
  log_error("gsgpu executor: dispatch failed: %s; resetting the command processor", why.c_str());
  // CP_CONTROL.RESET brings the ring back to head = tail = 0 and the CP to idle; mappings, VRAM
  // and the other registers stay (docs/emulator.md §7).
  device_->write_register(gsgpu::hw::reg::CP_CONTROL, gsgpu::hw::field::CP_CONTROL::RESET_MASK);
  device_->write_register(gsgpu::hw::reg::MMU_FAULT_INFO, 0xffffffffu);
  device_->write_register(gsgpu::hw::reg::IRQ_STATUS, 0xffffffffu);
  device_->mmu().clear_faults();
  program_ring();
}

cl_ulong Runtime::host_now_ns() const {
  uint64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now().time_since_epoch()).count();
  return now - epoch_ns_;
}

void Runtime::schedule(cl_ulong submit, uint64_t cycles, cl_ulong* start, cl_ulong* end) {
  // The device runs one command at a time: work starts when it was submitted or when the
  // previous command's modelled end has passed, whichever is later.
  *start = std::max(submit, device_busy_until_);
  const uint64_t ns = cycles * 1000 / kNominalClockMHz;
  *end = *start + ns;
  device_busy_until_ = *end;
}

}  // namespace gsgpu::cl
