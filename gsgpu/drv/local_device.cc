// The local backend: open, caps, buffer objects and VA bindings (local_device.h).
#include "gsgpu/drv/local_device.h"

#include <cinttypes>
#include <cstring>

#include <sys/mman.h>

#include "common/checked_math.h"
#include "common/log.h"
#include "protocol/gsgpu/gsgpu_hw.h"
#include "common/text.h"

namespace gsgpu::drv {

const char* status_name(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kInvalidArgument: return "invalid argument";
    case Status::kOutOfMemory: return "out of memory";
    case Status::kTimeout: return "timeout";
    case Status::kFaulted: return "faulted";
    case Status::kDeviceLost: return "device lost";
    case Status::kNotSupported: return "not supported";
  }
  return "unknown status";
}

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCommand: return "command";
    case FaultKind::kShader: return "shader";
    case FaultKind::kMemory: return "memory";
    case FaultKind::kTimeout: return "timeout";
  }
  return "unknown fault";
}

namespace local {
namespace {

bool page_aligned(uint64_t v) { return v % kPageSize == 0; }

using gsvirt::hex;

// The DISPATCH backend the device gets: the shader cores, with every dispatch's counters added up
// for Device::counters() (the registers only hold the last dispatch's).
class CountingBackend final : public DispatchBackend {
 public:
  CountingBackend(std::unique_ptr<DispatchBackend> inner, std::shared_ptr<DispatchTotals> totals)
      : inner_(std::move(inner)), totals_(std::move(totals)) {}
  const char* name() const override { return inner_->name(); }
  DispatchOutcome dispatch(const DispatchRequest& request, GpuMemory& memory) override {
    if (totals_->on_dispatch) totals_->on_dispatch(true);
    DispatchOutcome out = inner_->dispatch(request, memory);
    if (totals_->on_dispatch) totals_->on_dispatch(false);
    std::lock_guard lock(totals_->mutex);
    // A draw's vertex and fragment programs run here too: their work counts, but not as DISPATCHes.
    if (!request.fragment && !request.vertex) ++totals_->dispatches;
    totals_->instructions += out.counters.instructions_issued;
    totals_->lane_instructions += out.counters.active_lane_instructions;
    totals_->cycles += out.counters.cycles;
    totals_->work_groups += out.counters.work_groups;
    return out;
  }
  std::string disassemble(const uint32_t* words, size_t count) override { return inner_->disassemble(words, count); }
  uint32_t warp_width() const override { return inner_->warp_width(); }
  // The time budgets' and reset's cancel reaches a draw's fixed-function blocks through this.
  bool cancel_requested() const override { return inner_->cancel_requested(); }

 private:
  std::unique_ptr<DispatchBackend> inner_;
  std::shared_ptr<DispatchTotals> totals_;
};

std::string check_local_config(const LocalConfig& c) {
  if (c.num_rings == 0 || c.num_rings > kMaxRings)
    return "num_rings " + std::to_string(c.num_rings) + " must be in 1.." + std::to_string(kMaxRings);
  if (c.watchdog_budget > UINT32_MAX)
    return "watchdog_budget " + std::to_string(c.watchdog_budget) + " does not fit WATCHDOG_BUDGET (32 bits)";
  if (c.vram_size < 2 * uint64_t{kRingBytes} + kPageSize)
    return "vram_size " + std::to_string(c.vram_size) + " leaves no room beside the driver's ring of " +
           std::to_string(kRingBytes) + " bytes";
  if (c.max_bos == 0) return "max_bos must not be 0";
  // Deadlines are steady_clock time points (signed 64-bit nanoseconds): about 146 years at most.
  constexpr uint64_t kMaxBudgetNs = uint64_t{1} << 62;
  for (auto [name, value] : {std::pair{"submit_time_budget_ns", c.submit_time_budget_ns},
                             std::pair{"dispatch_time_budget_ns", c.dispatch_time_budget_ns},
                             std::pair{"client_time_budget_ns", c.client_time_budget_ns}})
    if (value > kMaxBudgetNs) return std::string(name) + " " + std::to_string(value) + " is above 2^62";
  return {};
}

}  // namespace

BoMemory::~BoMemory() {
  if (vram_phys) allocator->free(*vram_phys);
  if (release) release();
  if (quota) {  // null when creation was refused before anything was counted
    quota->bos -= 1;
    quota->bytes -= size;
  }
}

LocalDeviceImpl::LocalDeviceImpl(const LocalConfig& config, std::unique_ptr<gsgpu::Device> device,
                                 std::shared_ptr<DispatchTotals> totals)
    : config_(config), device_(std::move(device)), totals_(std::move(totals)), rings_(config.num_rings) {
  for (RingTimeline& r : rings_) r.faulted.assign(kOutcomeWindow, false);
  if (config_.dispatch_time_budget_ns) totals_->on_dispatch = [this](bool starting) { dispatch_started(starting); };
}

LocalDeviceImpl::~LocalDeviceImpl() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    cancel_through_ = next_serial_ - 1;
    cancel_running_locked(CancelReason::kReset);  // closing does not wait for a long kernel
  }
  work_.notify_all();
  timer_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (timer_thread_.joinable()) timer_thread_.join();
  // Whatever the client did not free goes now, before the device (and its VRAM) does.
  std::vector<std::shared_ptr<BoMemory>> memories;
  {
    std::lock_guard lock(mutex_);
    device_->mmu().unmap_all();
    va_.clear();
    for (auto& [handle, bo] : bos_) memories.push_back(std::move(bo.memory));
    bos_.clear();
  }
}

bool LocalDeviceImpl::start(std::string* error) {
  std::string why;
  auto ring_phys = device_->vram_allocator().allocate(kRingBytes);
  auto fence_phys = device_->vram_allocator().allocate(kPageSize);
  if (!ring_phys || !fence_phys || !device_->mmu().map(ring_va_, kRingBytes, *ring_phys, kPermRead, &why) ||
      !device_->mmu().map(fence_va_, kPageSize, *fence_phys, kPermReadWrite, &why)) {
    if (error) *error = "gsgpu drv '" + config_.name + "': cannot place the ring and fences: " + why;
    return false;
  }
  ring_host_ = device_->mmu().vram() + *ring_phys;
  fence_host_ = device_->mmu().vram() + *fence_phys;
  device_->write_register(hw::reg::RING_BASE_LO, uint32_t(ring_va_));
  device_->write_register(hw::reg::RING_BASE_HI, uint32_t(ring_va_ >> 32));
  device_->write_register(hw::reg::RING_SIZE, kRingBytes);
  device_->write_register(hw::reg::RING_TAIL, 0);
  if (config_.watchdog_budget != 0)
    device_->write_register(hw::reg::WATCHDOG_BUDGET, uint32_t(config_.watchdog_budget));
  if (!config_.dump_dir.empty())
    device_->set_dump_sink([this](std::string_view text) {
      if (current_) write_dump_file(*current_, std::string(text));
    });
  read_caps();
  thread_ = std::thread([this] { device_thread(); });  // the timer thread starts with the first run
  return true;
}

void LocalDeviceImpl::read_caps() {
  auto reg = [&](uint32_t offset) { return device_->read_register(offset); };
  auto reg64 = [&](uint32_t lo, uint32_t hi) { return uint64_t(reg(lo)) | (uint64_t(reg(hi)) << 32); };
  caps_.chip_id = reg(hw::reg::ID);
  caps_.version = reg(hw::reg::VERSION);
  caps_.shader_cores = reg(hw::reg::CFG_SHADER_CORES);
  caps_.warp_width = reg(hw::reg::CFG_WARP_WIDTH);
  caps_.vram_size = reg64(hw::reg::CFG_VRAM_SIZE_LO, hw::reg::CFG_VRAM_SIZE_HI);
  caps_.va_base = reg64(hw::reg::CFG_VA_BASE_LO, hw::reg::CFG_VA_BASE_HI);
  // The top of the device's VA space is the driver's (ring, fences): not the client's.
  caps_.va_size = reg64(hw::reg::CFG_VA_SIZE_LO, hw::reg::CFG_VA_SIZE_HI) - kDriverVaSize;
  caps_.max_work_group_size = reg(hw::reg::CFG_MAX_WORK_GROUP_SIZE);
  caps_.max_local_mem_size = reg(hw::reg::CFG_LOCAL_MEM_SIZE);
  caps_.max_private_mem_size = reg(hw::reg::CFG_PRIVATE_MEM_SIZE);
  caps_.max_work_items_per_dispatch = reg64(hw::reg::CFG_MAX_WORK_ITEMS_LO, hw::reg::CFG_MAX_WORK_ITEMS_HI);
  caps_.clock_mhz = reg(hw::reg::CFG_CLOCK_MHZ);
  caps_.num_rings = config_.num_rings;
  caps_.max_bo_size = caps_.vram_size - kRingBytes - kPageSize;
  caps_.page_size = uint32_t(kPageSize);
  va_ = VaTable(caps_.va_base, caps_.va_size, caps_.page_size);
}

Status LocalDeviceImpl::refuse(const char* call, const std::string& why) const {
  gsvirt::log_error("%s: %s: %s", config_.name.c_str(), call, why.c_str());
  return Status::kInvalidArgument;
}

Status LocalDeviceImpl::check_quota(const char* call, uint64_t size) const {
  uint64_t bytes = quota_->bytes.load();
  if (quota_->bos.load() >= config_.max_bos) {
    gsvirt::log_error("%s: %s: quota of %u buffer objects reached", config_.name.c_str(), call, config_.max_bos);
    return Status::kOutOfMemory;
  }
  if (bytes > config_.max_bo_bytes || size > config_.max_bo_bytes - bytes) {
    gsvirt::log_error("%s: %s: size %" PRIu64 " would pass the quota of %" PRIu64 " bytes (%" PRIu64 " in use)",
                      config_.name.c_str(), call, size, config_.max_bo_bytes, bytes);
    return Status::kOutOfMemory;
  }
  return Status::kOk;
}

BoHandle LocalDeviceImpl::add_bo(std::shared_ptr<BoMemory> memory) {
  // Handles are not reused soon (a stale handle of a freed BO must not name a new one); 0 is skipped.
  while (next_handle_ == 0 || bos_.count(next_handle_)) ++next_handle_;
  BoHandle handle = next_handle_++;
  bos_.emplace(handle, Bo{std::move(memory)});
  return handle;
}

const Bo* LocalDeviceImpl::find_bo(BoHandle bo) const {
  auto it = bos_.find(bo);
  return it == bos_.end() ? nullptr : &it->second;
}

Status LocalDeviceImpl::bo_create(uint64_t size, uint32_t flags, BoHandle* out) {
  if (!out) return refuse("bo_create", "out is null");
  *out = 0;
  if (flags != 0) return refuse("bo_create", "flags " + hex(flags) + " must be 0");
  if (size == 0 || size > caps_.max_bo_size)
    return refuse("bo_create", "size " + std::to_string(size) + " must be in 1.." + std::to_string(caps_.max_bo_size));
  const uint64_t rounded = (size + kPageSize - 1) / kPageSize * kPageSize;
  auto memory = std::make_shared<BoMemory>();
  {
    std::lock_guard lock(mutex_);
    if (Status s = check_quota("bo_create", rounded); s != Status::kOk) return s;
    auto phys = device_->vram_allocator().allocate(rounded);
    if (!phys) {
      gsvirt::log_error("%s: bo_create: no free VRAM range of %" PRIu64 " bytes", config_.name.c_str(), rounded);
      return Status::kOutOfMemory;
    }
    memory->host = device_->mmu().vram() + *phys;
    memory->size = rounded;
    memory->vram_phys = phys;
    memory->allocator = &device_->vram_allocator();
    memory->quota = quota_;
    quota_->bos += 1;
    quota_->bytes += rounded;
  }
  // VRAM may hold a freed object's data. Nothing else can reach the range yet, so it is cleared
  // unlocked; large ranges are handed back to the kernel, which zero-fills them when touched.
  if (rounded < (uint64_t{64} << 10) || madvise(memory->host, rounded, MADV_DONTNEED) != 0)
    std::memset(memory->host, 0, rounded);
  std::lock_guard lock(mutex_);
  *out = add_bo(std::move(memory));
  return Status::kOk;
}

Status LocalDeviceImpl::bo_import(void* host, uint64_t size, std::function<void()> release, BoHandle* out) {
  if (!out) return refuse("bo_import", "out is null");
  *out = 0;
  if (!host || reinterpret_cast<uintptr_t>(host) % kPageSize != 0)
    return refuse("bo_import", "host memory " + hex(reinterpret_cast<uintptr_t>(host)) + " must be page aligned");
  if (size == 0 || !page_aligned(size) || !gsvirt::checked_add(uint64_t(reinterpret_cast<uintptr_t>(host)), size))
    return refuse("bo_import", "size " + std::to_string(size) + " must be a non-zero page multiple");
  std::lock_guard lock(mutex_);
  if (Status s = check_quota("bo_import", size); s != Status::kOk) return s;
  auto memory = std::make_shared<BoMemory>();
  memory->host = static_cast<uint8_t*>(host);
  memory->size = size;
  memory->release = std::move(release);
  memory->quota = quota_;
  quota_->bos += 1;
  quota_->bytes += size;
  *out = add_bo(std::move(memory));
  return Status::kOk;
}

// Drops a reference to BO memory. While the device thread runs a submission, a shader core may
// still hold a translated range of memory this client just unbound: the last reference then waits
// in the graveyard until the run ends. Otherwise it goes to `released`, dropped by the caller
// after unlocking (a release callback must not run under our lock).
void LocalDeviceImpl::drop_memory_locked(std::shared_ptr<BoMemory> memory,
                                         std::vector<std::shared_ptr<BoMemory>>* released) {
  if (running_)
    graveyard_.push_back(std::move(memory));
  else
    released->push_back(std::move(memory));
}

Status LocalDeviceImpl::bo_free(BoHandle bo) {
  std::vector<std::shared_ptr<BoMemory>> released;
  {
    std::lock_guard lock(mutex_);
    auto it = bos_.find(bo);
    if (it == bos_.end()) return refuse("bo_free", "unknown handle " + std::to_string(bo));
    for (const auto& [va, size] : va_.drop_bo(bo)) {
      std::string why;
      if (!device_->mmu().unmap(va, size, &why))
        gsvirt::log_error("%s: bo_free: unmapping %s: %s", config_.name.c_str(), hex(va).c_str(), why.c_str());
    }
    drop_memory_locked(std::move(it->second.memory), &released);
    bos_.erase(it);
  }
  return Status::kOk;  // `released` goes here, outside the lock
}

void* LocalDeviceImpl::bo_map(BoHandle bo) {
  std::lock_guard lock(mutex_);
  const Bo* b = find_bo(bo);
  if (!b) {
    refuse("bo_map", "unknown handle " + std::to_string(bo));
    return nullptr;
  }
  return b->memory->host;
}

uint64_t LocalDeviceImpl::bo_size(BoHandle bo) {
  std::lock_guard lock(mutex_);
  const Bo* b = find_bo(bo);
  if (!b) {
    refuse("bo_size", "unknown handle " + std::to_string(bo));
    return 0;
  }
  return b->memory->size;
}

Status LocalDeviceImpl::va_bind(BoHandle bo, uint64_t bo_offset, uint64_t va, uint64_t size, uint32_t perms) {
  std::lock_guard lock(mutex_);
  auto it = bos_.find(bo);
  if (it == bos_.end()) return refuse("va_bind", "unknown handle " + std::to_string(bo));
  const BoMemory& memory = *it->second.memory;
  // Every rule of drv.h (alignment, rights, window, range inside the BO, no overlap) is the
  // table's; the MMU, kept in step with it, checks its own invariants again.
  if (std::string why = va_.bind(bo, memory.size, bo_offset, va, size, perms); !why.empty())
    return refuse("va_bind", why);
  // The drv perms are the MMU's permission bits (drv.h says so).
  static_assert(uint32_t(kVaRead) == kPermRead && uint32_t(kVaWrite) == kPermWrite &&
                uint32_t(kVaExecute) == kPermExecute);
  std::string why;
  bool mapped = memory.vram_phys ? device_->mmu().map(va, size, *memory.vram_phys + bo_offset, perms, &why)
                                 : device_->mmu().map_host(va, size, memory.host + bo_offset, perms, &why);
  if (!mapped) {
    (void)va_.unbind(va, size);  // the range was recorded just above
    return refuse("va_bind", why);
  }
  return Status::kOk;
}

Status LocalDeviceImpl::va_unbind(uint64_t va, uint64_t size) {
  std::lock_guard lock(mutex_);
  if (std::string why = va_.unbind(va, size); !why.empty()) return refuse("va_unbind", why);
  std::string why;
  // The table said the range is entirely bound, so the MMU holds it too.
  if (!device_->mmu().unmap(va, size, &why))
    gsvirt::log_error("%s: va_unbind: the MMU disagrees with the binding table: %s", config_.name.c_str(), why.c_str());
  return Status::kOk;
}

}  // namespace local

std::unique_ptr<LocalDevice> open_local(const LocalConfig& config, std::string* error) {
  std::string problem = local::check_local_config(config);
  if (!problem.empty()) {
    if (error) *error = "gsgpu drv '" + config.name + "': " + problem;
    gsvirt::log_error("gsgpu drv '%s': open_local: %s", config.name.c_str(), problem.c_str());
    return nullptr;
  }
  DeviceConfig dc;
  dc.name = config.name;
  dc.shader_cores = config.shader_cores;
  dc.warp_width = config.warp_width;
  dc.vram_size = config.vram_size;
  dc.va_base = local::kClientVaBase;
  dc.va_size = local::kDeviceVaEnd - local::kClientVaBase;
  dc.cp_mode = CpMode::kManual;  // the device thread runs the CP: deterministic, one submission at a time
  dc.max_work_items_per_dispatch = config.max_work_items_per_dispatch;
  dc.draw_mode = config.fast_draws ? graphics::DrawMode::kFast : graphics::DrawMode::kReference;
  auto totals = std::make_shared<local::DispatchTotals>();
  auto backend = std::make_unique<local::CountingBackend>(
      make_shader_backend(ShaderCoreSettings{config.shader_cores, config.warp_width, 0, &totals->cancel}), totals);
  std::unique_ptr<gsgpu::Device> device = gsgpu::Device::create(dc, std::move(backend), error);
  if (!device) {
    if (error) gsvirt::log_error("gsgpu drv '%s': open_local: %s", config.name.c_str(), error->c_str());
    return nullptr;
  }
  auto impl = std::make_unique<local::LocalDeviceImpl>(config, std::move(device), std::move(totals));
  if (!impl->start(error)) return nullptr;
  return impl;
}

}  // namespace gsgpu::drv
