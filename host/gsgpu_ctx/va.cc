// VA_BIND and VA_UNBIND: the context's GPU address space (its own device's MMU). The ranges are
// checked here so the log names the field; the device checks them again and refuses overlaps.
#include "common/checked_math.h"
#include "common/log.h"
#include "host/gsgpu_ctx/context.h"

namespace gsvirt::gsgpu_ctx {

namespace {

constexpr uint32_t kKnownPerms = gsgpu::drv::kVaRead | gsgpu::drv::kVaWrite | gsgpu::drv::kVaExecute;

}  // namespace

proto::Status GsgpuContext::handle_va_bind(const proto::VaBind& r, proto::VaBindRsp*) {
  const proto::VaBindReq& q = r.req;
  const gsgpu::drv::Caps& caps = device_->caps();
  const BoEntry* bo = bos_.find(q.bo_id);
  if (!bo) return refuse("bo_id", "unknown id " + std::to_string(q.bo_id));
  if (q.perms == 0 || (q.perms & ~kKnownPerms))
    return refuse("perms", std::to_string(q.perms) + " is not a non-empty set of read 1, write 2, execute 4");
  if (q.size == 0) return refuse("size", "is 0");
  if (q.va % caps.page_size || q.bo_offset % caps.page_size || q.size % caps.page_size)
    return refuse("va", "va " + std::to_string(q.va) + ", bo_offset " + std::to_string(q.bo_offset) +
                            " and size " + std::to_string(q.size) + " must be multiples of the page size " +
                            std::to_string(caps.page_size));
  if (!range_within(q.bo_offset, q.size, bo->size))
    return refuse("bo_offset", "range " + std::to_string(q.bo_offset) + " + " + std::to_string(q.size) +
                                   " is outside BO " + std::to_string(q.bo_id) + " of " +
                                   std::to_string(bo->size) + " bytes");
  if (q.va < caps.va_base || !range_within(q.va - caps.va_base, q.size, caps.va_size))
    return refuse("va", "range " + std::to_string(q.va) + " + " + std::to_string(q.size) +
                            " is outside the VA window " + std::to_string(caps.va_base) + " + " +
                            std::to_string(caps.va_size));
  gsgpu::drv::Status s = device_->va_bind(bo->handle, q.bo_offset, q.va, q.size, q.perms);
  if (s != gsgpu::drv::Status::kOk)
    return refuse("va", "the device refused the binding at " + std::to_string(q.va) + " (overlap?)", from_drv(s));
  return proto::Status::kOk;
}

proto::Status GsgpuContext::handle_va_unbind(const proto::VaUnbind& r, proto::VaUnbindRsp*) {
  const proto::VaUnbindReq& q = r.req;
  if (q.size == 0) return refuse("size", "is 0");
  gsgpu::drv::Status s = device_->va_unbind(q.va, q.size);
  if (s != gsgpu::drv::Status::kOk)
    return refuse("va", "range " + std::to_string(q.va) + " + " + std::to_string(q.size) +
                            " is not exactly covered by bindings", from_drv(s));
  return proto::Status::kOk;
}

}  // namespace gsvirt::gsgpu_ctx
