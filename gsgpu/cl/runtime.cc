// Handles and the device the runtime drives through gsgpu/drv: buffer objects at VAs it chooses,
// submissions on its ring, faults and counters.
#include "gsgpu/cl/runtime.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>

#include "common/checked_math.h"
#include "common/log.h"
#include "gsgpu/compiler/arg_buffer.h"

namespace gsgpu::cl {

Object::Object(Runtime* runtime, Kind kind) : gsvirt::cl::Object(runtime->table, kind), rt(runtime) {}

template <typename T>
T* make_object(Runtime* rt, Kind kind) {
  T* o = new T{{rt, kind}};
  o->destroy = [](Object* self) { delete static_cast<T*>(self); };
  registry().add(o);
  return o;
}
template Platform* make_object<Platform>(Runtime*, Kind);
template Device* make_object<Device>(Runtime*, Kind);
template Context* make_object<Context>(Runtime*, Kind);
template Queue* make_object<Queue>(Runtime*, Kind);
template Mem* make_object<Mem>(Runtime*, Kind);
template Sampler* make_object<Sampler>(Runtime*, Kind);
template Program* make_object<Program>(Runtime*, Kind);
template Kernel* make_object<Kernel>(Runtime*, Kind);
template Event* make_object<Event>(Runtime*, Kind);

namespace {

// What an object holds an internal reference to (released after it is gone), and its last rites.
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
      if (m->alloc.size) m->rt->free(m->alloc);
      if (m->image_descriptor.size) m->rt->free(m->image_descriptor);
      return {m->parent ? static_cast<Object*>(m->parent) : m->context};
    }
    case Kind::kContext: {
      // The spec: after every object of the context is released, in the reverse order of
      // registration.
      auto* c = static_cast<Context*>(o);
      for (auto it = c->destructors.rbegin(); it != c->destructors.rend(); ++it)
        it->first(handle_of<cl_context>(c), it->second);
      return {};
    }
    case Kind::kProgram: return {static_cast<Program*>(o)->context};
    case Kind::kSampler: return {static_cast<Sampler*>(o)->context};
    case Kind::kKernel: {
      auto* k = static_cast<Kernel*>(o);
      detach_kernel(k);
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

// The registry's destroy hook: the last reference is gone and the object has left the registry.
void destroy_object(gsvirt::cl::Object* base) {
  auto* o = static_cast<Object*>(base);
  std::vector<Object*> parents = finish_object(o);
  o->destroy(o);
  for (Object* p : parents)
    if (p) release_internal(p);
}

}  // namespace

gsvirt::cl::Registry& registry() {
  static auto* r = new gsvirt::cl::Registry(&destroy_object);
  return *r;
}

BuiltProgram::~BuiltProgram() {
  for (auto& k : kernels)
    if (k->code.size) rt->free(k->code);
}

std::unique_ptr<Runtime> Runtime::create(const RuntimeConfig& config, std::unique_ptr<drv::Device> device,
                                         std::string* error) {
  if (!device) {
    *error = "gsgpu runtime: no device";
    return nullptr;
  }
  std::unique_ptr<Runtime> rt(new Runtime(config, std::move(device)));
  if (!rt->init(error)) return nullptr;
  return rt;
}

namespace {

std::shared_ptr<ByteQuota> kib_quota(const char* name, uint64_t kib) {
  // 0 = no limit; KiB values are at most 2^32 from the environment, saturated otherwise.
  const uint64_t bytes = kib == 0 ? UINT64_MAX : std::min<uint64_t>(kib, uint64_t{1} << 40) << 10;
  return std::make_shared<ByteQuota>(name, bytes);
}

}  // namespace

bool ByteQuota::charge(uint64_t bytes, const char* what, bool log_once) {
  uint64_t used = used_.load();
  do {
    if (bytes > limit_ || used > limit_ - bytes) {
      if (!log_once || !refused_once_.exchange(true))
        log_error("gsgpu runtime: %s: %llu bytes would pass the %s quota of %llu bytes (%llu in use)%s", what,
                  static_cast<unsigned long long>(bytes), name_.c_str(), static_cast<unsigned long long>(limit_),
                  static_cast<unsigned long long>(used), log_once ? "; not logged again" : "");
      return false;
    }
  } while (!used_.compare_exchange_weak(used, used + bytes));
  return true;
}

Runtime::Runtime(const RuntimeConfig& config, std::unique_ptr<drv::Device> device)
    : program_quota(kib_quota("program bytes (GSGPU_PROGRAM_QUOTA_KB)", config.program_quota_kb)),
      launch_arg_quota(kib_quota("launch argument bytes (GSGPU_ARG_QUOTA_KB)", config.launch_arg_quota_kb)),
      printf_quota(kib_quota("printf bytes (GSGPU_PRINTF_QUOTA_KB)", config.printf_quota_kb)),
      config_(config),
      device_(std::move(device)),
      caps_(device_->caps()) {}

namespace {

// What the runtime needs of a device before it can report limits and place memory.
std::string check_caps(const drv::Caps& c) {
  if (c.page_size == 0 || (c.page_size & (c.page_size - 1))) return "page size is not a power of two";
  if (c.va_size < 4 * uint64_t{c.page_size}) return "the VA window holds fewer than four pages";
  if (c.num_rings == 0) return "no ring";
  if (c.shader_cores == 0 || c.warp_width == 0) return "no shader core or a zero warp width";
  if (c.max_work_group_size == 0 || c.max_work_items_per_dispatch == 0) return "zero work-group or dispatch limit";
  if (c.clock_mhz == 0) return "zero clock";
  if (c.vram_size == 0 || c.max_bo_size == 0) return "no VRAM";
  return "";
}

}  // namespace

bool Runtime::init(std::string* error) {
  if (std::string why = check_caps(caps_); !why.empty()) {
    *error = "gsgpu runtime: unusable device (" + std::string(device_->backend_name()) + "): " + why;
    return false;
  }
  va_ = std::make_unique<drv::VaAllocator>(caps_.va_base, caps_.va_size, caps_.page_size);
  argument_pool_ = std::make_unique<BoPool>(
      drv::kVaRead, [this](uint64_t size, uint32_t perms, std::string* why) { return allocate(size, perms, why); },
      [this](GpuAlloc& whole) { free(whole); });
  table = gsgpu_dispatch_table();
  platform = make_object<Platform>(this, Kind::kPlatform);
  device_object = make_object<Device>(this, Kind::kDevice);
  epoch_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now().time_since_epoch()).count();
  completion_thread_ = std::thread([this] { completion_loop(); });
  return true;
}

Runtime::~Runtime() {
  if (completion_thread_.joinable()) {
    // Its client is gone (vcomp's context ended, the application let go): the work in flight is
    // cancelled rather than run to its end (a dispatch of many near-watchdog warps runs for days)
    // and nothing more is submitted; the device stops a running dispatch between work-groups.
    {
      std::lock_guard lock(mutex);
      closing_ = true;
    }
    if (device_->reset() != drv::Status::kOk) log_error("gsgpu runtime: closing: the device did not reset");
    // The thread leaves once nothing is in flight: the cancelled work retires (failed) and what it
    // unblocks fails too; commands behind a user event nobody set stay unrun.
    {
      std::lock_guard lock(completion_mutex_);
      stopping_ = true;
    }
    completion_wake_.notify_all();
    completion_thread_.join();
  }
  if (argument_pool_) argument_pool_->release_all();
  free(progress_slot_);
  // Platform and device are not reference counted (OpenCL 1.2): they go with the runtime.
  for (Object* o : {static_cast<Object*>(platform), static_cast<Object*>(device_object)}) {
    if (!o) continue;
    registry().remove(o);
    o->destroy(o);
  }
}

uint64_t Runtime::max_alloc() const {
  const uint64_t vram = caps_.vram_size;
  return std::min(std::max(vram / 4, std::min<uint64_t>(vram, uint64_t{128} << 20)), caps_.max_bo_size);
}

uint32_t Runtime::max_local_mem() const { return std::min(caps_.max_local_mem_size, gsgpu::compiler::kMaxLocalBytes); }

std::optional<GpuAlloc> Runtime::allocate(uint64_t size, uint32_t perms, std::string* error) {
  const uint64_t page = caps_.page_size;
  if (size == 0 || size > caps_.max_bo_size) {
    *error = "size " + std::to_string(size) + " outside 1.." + std::to_string(caps_.max_bo_size);
    return std::nullopt;
  }
  GpuAlloc a;
  a.size = (size + page - 1) / page * page;
  if (drv::Status s = device_->bo_create(a.size, 0, &a.bo); s != drv::Status::kOk) {
    *error = "bo_create of " + std::to_string(a.size) + " bytes: " + drv::status_name(s);
    return std::nullopt;
  }
  auto va = va_->allocate(a.size + page);  // the guard page stays unbound
  a.cpu = static_cast<uint8_t*>(device_->bo_map(a.bo));
  drv::Status s = va && a.cpu ? device_->va_bind(a.bo, 0, *va, a.size, perms) : drv::Status::kOutOfMemory;
  if (s != drv::Status::kOk) {
    *error = std::string(va ? (a.cpu ? "va_bind: " : "bo_map failed: ") : "no free GPU VA range: ") +
             drv::status_name(s);
    if (va) va_->free(*va);
    device_->bo_free(a.bo);
    return std::nullopt;
  }
  a.va = *va;
  return a;
}

std::optional<GpuAlloc> Runtime::allocate_arguments(uint64_t size, std::string* error) {
  if (size > BoPool::kMaxPiece) return allocate(size, drv::kVaRead, error);
  return argument_pool_->allocate(size, error);
}

void Runtime::free(GpuAlloc& alloc) {
  if (!alloc.size) return;
  if (alloc.slab) {
    argument_pool_->free(alloc);
    alloc = {};
    return;
  }
  // bo_free removes the binding; the VA is reusable once it is gone.
  if (drv::Status s = device_->bo_free(alloc.bo); s != drv::Status::kOk)
    log_error("gsgpu runtime: bo_free(%u): %s", alloc.bo, drv::status_name(s));
  va_->free(alloc.va);
  alloc = {};
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
  const auto ns = static_cast<uint64_t>(static_cast<unsigned __int128>(cycles) * 1000 / caps_.clock_mhz);
  *end = *start + ns;
  device_busy_until_ = *end;
}

}  // namespace gsgpu::cl
