// A drv::Device that forwards every call to a real one; tests override what they change (caps, a
// lost device).
#pragma once

#include <memory>
#include <vector>

#include "gsgpu/drv/drv.h"

namespace gsgpu::cl::testing {

class ForwardingDevice : public drv::Device {
 public:
  explicit ForwardingDevice(std::unique_ptr<drv::Device> inner) : inner_(std::move(inner)) {}
  const char* backend_name() const override { return inner_->backend_name(); }
  const drv::Caps& caps() const override { return inner_->caps(); }
  drv::Status bo_create(uint64_t size, uint32_t flags, drv::BoHandle* out) override {
    return inner_->bo_create(size, flags, out);
  }
  drv::Status bo_free(drv::BoHandle bo) override { return inner_->bo_free(bo); }
  void* bo_map(drv::BoHandle bo) override { return inner_->bo_map(bo); }
  uint64_t bo_size(drv::BoHandle bo) override { return inner_->bo_size(bo); }
  drv::Status va_bind(drv::BoHandle bo, uint64_t off, uint64_t va, uint64_t size, uint32_t perms) override {
    return inner_->va_bind(bo, off, va, size, perms);
  }
  drv::Status va_unbind(uint64_t va, uint64_t size) override { return inner_->va_unbind(va, size); }
  drv::Status submit(const drv::SubmitDesc& desc, uint64_t* seqno) override { return inner_->submit(desc, seqno); }
  uint64_t fence_poll(uint32_t ring) override { return inner_->fence_poll(ring); }
  drv::Status fence_wait(uint32_t ring, uint64_t seqno, uint64_t timeout_ns) override {
    return inner_->fence_wait(ring, seqno, timeout_ns);
  }
  std::vector<drv::FaultInfo> read_faults() override { return inner_->read_faults(); }
  drv::Counters counters() override { return inner_->counters(); }
  drv::Status reset() override { return inner_->reset(); }

 protected:
  std::unique_ptr<drv::Device> inner_;
};

}  // namespace gsgpu::cl::testing
