#include "gsgpu/emu/device.h"

#include <cinttypes>

#include "common/log.h"
#include "gsgpu/emu/shader/shader_core.h"

namespace gsgpu {
namespace {

MmuConfig mmu_config(const DeviceConfig& c) { return MmuConfig{c.va_base, c.va_size, c.vram_size}; }

std::string check_config(const DeviceConfig& c) {
  if (c.shader_cores == 0 || c.shader_cores > 256)
    return "shader_cores " + std::to_string(c.shader_cores) + " must be in 1..256";
  if (c.warp_width == 0 || c.warp_width > 64 || (c.warp_width & (c.warp_width - 1)) != 0)
    return "warp_width " + std::to_string(c.warp_width) + " must be a power of two in 1..64";
  if (c.max_work_items_per_dispatch == 0) return "max_work_items_per_dispatch must not be 0";
  const DrawLimits& d = c.draw_limits;
  if (d.vertex_invocations == 0 || d.fragments == 0 || d.warp_instructions == 0 || d.draw_instructions == 0)
    return "draw_limits must not be 0";
  if (c.clock_mhz == 0) return "clock_mhz must not be 0";
  return Mmu::validate_config(mmu_config(c));
}

const char* error_kind_text(RegisterErrorKind kind) {
  switch (kind) {
    case RegisterErrorKind::kHoleRead: return "read of a register hole";
    case RegisterErrorKind::kHoleWrite: return "write to a register hole";
    case RegisterErrorKind::kReadOnlyWrite: return "write to a read-only register";
    case RegisterErrorKind::kUnaligned: return "unaligned register access";
    case RegisterErrorKind::kNone: break;
  }
  return "register access error";
}

}  // namespace

std::unique_ptr<Device> Device::create(const DeviceConfig& config, std::string* error) {
  return create(config, nullptr, error);
}

std::unique_ptr<Device> Device::create(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend,
                                       std::string* error) {
  std::string problem = check_config(config);
  if (!problem.empty()) {
    if (error) *error = "gsgpu device '" + config.name + "': " + problem;
    return nullptr;
  }
  if (!backend)
    backend = make_shader_backend(ShaderCoreSettings{config.shader_cores, config.warp_width, config.host_threads});
  return std::unique_ptr<Device>(new Device(config, std::move(backend)));
}

Device::Device(const DeviceConfig& config, std::unique_ptr<DispatchBackend> backend)
    : config_(config),
      irq_(registers_),
      mmu_(std::make_unique<Mmu>(mmu_config(config))),
      vram_allocator_(config.vram_size),
      backend_(std::move(backend)) {
  registers_.reset([this](const hw::RegisterInfo& r) { return config_register_value(r); });
  mmu_->set_fault_handler([this](const MemoryFault& f) { on_mmu_fault(f); });
  cp_ = std::make_unique<CommandProcessor>(registers_, irq_, *mmu_, *backend_, config.cp_mode,
                                           config.max_work_items_per_dispatch, config.draw_limits);
  cp_->set_draw_mode(config.draw_mode);
  install_write_handlers();
  properties_.name = config.name;
  properties_.chip_id = registers_.load(hw::reg::ID);
  properties_.version = registers_.load(hw::reg::VERSION);
  properties_.capset_id = hw::kCapsetId;
  properties_.config = config;
  properties_.register_count = uint32_t(hw::kRegisterCount);
  properties_.register_aperture_bytes = RegisterFile::kApertureBytes;
  properties_.backend = backend_->name();
}

Device::~Device() {
  // The CP thread may still raise interrupts and MMU faults: stop it first, then the interrupt
  // thread (irq_ is destroyed after cp_ by member order, but the callback must not outlive us).
  cp_.reset();
  irq_.set_callback(nullptr);
  mmu_->set_fault_handler(nullptr);
}

uint32_t Device::config_register_value(const hw::RegisterInfo& r) const {
  switch (r.offset) {
    case hw::reg::CFG_SHADER_CORES: return config_.shader_cores;
    case hw::reg::CFG_WARP_WIDTH: return config_.warp_width;
    case hw::reg::CFG_VRAM_SIZE_LO: return uint32_t(config_.vram_size);
    case hw::reg::CFG_VRAM_SIZE_HI: return uint32_t(config_.vram_size >> 32);
    case hw::reg::CFG_VA_BASE_LO: return uint32_t(config_.va_base);
    case hw::reg::CFG_VA_BASE_HI: return uint32_t(config_.va_base >> 32);
    case hw::reg::CFG_VA_SIZE_LO: return uint32_t(config_.va_size);
    case hw::reg::CFG_VA_SIZE_HI: return uint32_t(config_.va_size >> 32);
    // The shader cores' limits (shader_core.h): what a DISPATCH may ask for.
    case hw::reg::CFG_MAX_WORK_GROUP_SIZE: return uint32_t(kMaxWorkGroupSize);
    case hw::reg::CFG_LOCAL_MEM_SIZE: return kMaxLocalMemSize;
    case hw::reg::CFG_PRIVATE_MEM_SIZE: return kMaxPrivateMemSize;
    case hw::reg::CFG_MAX_WORK_ITEMS_LO: return uint32_t(config_.max_work_items_per_dispatch);
    case hw::reg::CFG_MAX_WORK_ITEMS_HI: return uint32_t(config_.max_work_items_per_dispatch >> 32);
    case hw::reg::CFG_CLOCK_MHZ: return config_.clock_mhz;
  }
  gsvirt::log_error("%s: register %s is marked reset=\"config\" but has no configuration value", config_.name.c_str(),
                    r.name);
  return 0;
}

uint32_t Device::read_register(uint32_t offset) {
  uint32_t value = 0;
  RegisterAccessResult result = registers_.external_read(offset, &value);
  if (result == RegisterAccessResult::kOk) return value;
  report_register_error(result == RegisterAccessResult::kUnaligned ? RegisterErrorKind::kUnaligned
                                                                   : RegisterErrorKind::kHoleRead,
                        offset, 0);
  return kHoleReadValue;
}

void Device::write_register(uint32_t offset, uint32_t value) {
  RegisterAccessResult result = registers_.external_write(offset, value);
  switch (result) {
    case RegisterAccessResult::kOk:
      return;
    case RegisterAccessResult::kHole:
      return report_register_error(RegisterErrorKind::kHoleWrite, offset, value);
    case RegisterAccessResult::kReadOnly:
      return report_register_error(RegisterErrorKind::kReadOnlyWrite, offset, value);
    case RegisterAccessResult::kUnaligned:
      return report_register_error(RegisterErrorKind::kUnaligned, offset, value);
  }
}

void Device::report_register_error(RegisterErrorKind kind, uint32_t offset, uint32_t value) {
  const hw::RegisterInfo* info = RegisterFile::info(offset);
  gsvirt::log_error("%s: %s at offset 0x%03x%s%s (value 0x%08x); ignored", config_.name.c_str(), error_kind_text(kind),
                    offset, info ? " " : "", info ? info->name : "", value);
  ++register_errors_;
  registers_.increment(hw::reg::ERROR_COUNT);
  registers_.store(hw::reg::ERROR_INFO,
                   ((offset << hw::field::ERROR_INFO::OFFSET_SHIFT) & hw::field::ERROR_INFO::OFFSET_MASK) |
                       ((uint32_t(kind) << hw::field::ERROR_INFO::KIND_SHIFT) & hw::field::ERROR_INFO::KIND_MASK));
  irq_.raise(IrqCause::kRegisterAccess);
}

void Device::install_write_handlers() {
  registers_.set_write_handler(hw::reg::CONTROL, [this](uint32_t value) {
    if (value & hw::field::CONTROL::SOFT_RESET_MASK) reset();
  });
  registers_.set_write_handler(hw::reg::IRQ_FORCE, [this](uint32_t value) { irq_.force(value & irq_defined_bits()); });
  registers_.set_write_handler(hw::reg::DOORBELL, [this](uint32_t) { cp_->ring_doorbell(); });
  registers_.set_write_handler(hw::reg::CP_CONTROL, [this](uint32_t value) {
    if (value & hw::field::CP_CONTROL::RESET_MASK) cp_->reset();
  });
}

void Device::on_mmu_fault(const MemoryFault& fault) {
  registers_.increment(hw::reg::MMU_FAULT_COUNT);
  // Only the first fault since the driver last cleared VALID is kept in the registers: the first
  // one is the cause, the rest are usually its consequences. The fault log keeps them all.
  uint32_t info = registers_.load(hw::reg::MMU_FAULT_INFO);
  if ((info & hw::field::MMU_FAULT_INFO::VALID_MASK) == 0) {
    registers_.store64(hw::reg::MMU_FAULT_ADDR_LO, hw::reg::MMU_FAULT_ADDR_HI, fault.address);
    uint32_t size = uint32_t(std::min<uint64_t>(fault.size, 255));
    registers_.store(hw::reg::MMU_FAULT_INFO,
                     ((uint32_t(fault.access) << hw::field::MMU_FAULT_INFO::ACCESS_SHIFT) &
                      hw::field::MMU_FAULT_INFO::ACCESS_MASK) |
                         ((size << hw::field::MMU_FAULT_INFO::SIZE_SHIFT) & hw::field::MMU_FAULT_INFO::SIZE_MASK) |
                         hw::field::MMU_FAULT_INFO::VALID_MASK);
  }
  irq_.raise(IrqCause::kMmuFault);
}

void Device::set_irq_callback(IrqCallback callback) { irq_.set_callback(std::move(callback)); }
void Device::force_interrupt(IrqCause cause) { irq_.force(irq_bit(cause)); }
void Device::wait_for_interrupts() { irq_.drain(); }
void Device::set_dump_sink(DumpSink sink) { cp_->set_dump_sink(std::move(sink)); }

void Device::run_until_idle() {
  cp_->run_until_idle();
  irq_.drain();
}

void Device::reset() {
  // The register file is reset while the CP cannot run a batch, so no packet sees half a reset.
  cp_->reset([this] { registers_.reset([this](const hw::RegisterInfo& r) { return config_register_value(r); }); },
             /*full=*/true);
  mmu_->clear_faults();
  register_errors_ = 0;
  gsvirt::log_debug(gsvirt::kDebugGsgpu, "%s: soft reset", config_.name.c_str());
}

std::optional<uint64_t> Device::create_buffer(uint64_t size, uint32_t perms, std::string* error) {
  if (size == 0 || size > config_.vram_size) {
    if (error) *error = "create_buffer: size " + std::to_string(size) + " must be in 1..VRAM size";
    return std::nullopt;
  }
  uint64_t mapped = (size + Mmu::kPageSize - 1) / Mmu::kPageSize * Mmu::kPageSize;
  // One unmapped guard page after each buffer, so that running off its end faults instead of
  // landing silently in the next buffer.
  std::optional<uint64_t> phys = vram_allocator_.allocate(mapped + Mmu::kPageSize);
  if (!phys) {
    if (error) *error = "create_buffer: no free VRAM range of " + std::to_string(size) + " bytes";
    return std::nullopt;
  }
  uint64_t va = config_.va_base + *phys;
  if (!mmu_->map(va, mapped, *phys, perms, error)) {
    vram_allocator_.free(*phys);
    return std::nullopt;
  }
  return va;
}

}  // namespace gsgpu
