// BO_CREATE and BO_DESTROY: buffer objects with guest-chosen ids, over a blob the guest maps
// (zero-copy: the device imports the blob's host mapping) or over device memory.
#include "common/checked_math.h"
#include "common/log.h"
#include "host/gsgpu_ctx/context.h"

namespace gsvirt::gsgpu_ctx {

using gsgpu::drv::Status;

proto::Status GsgpuContext::handle_bo_create(const proto::BoCreate& r, proto::BoCreateRsp*) {
  const proto::BoCreateReq& q = r.req;
  const uint64_t page = device_->caps().page_size;
  if (q.flags != 0) return refuse("flags", "unknown bits " + std::to_string(q.flags));
  if (q.size == 0) return refuse("size", "is 0");
  if (q.size > device_->caps().max_bo_size)
    return refuse("size", std::to_string(q.size) + " is above max_bo_size " +
                              std::to_string(device_->caps().max_bo_size));
  std::string why;
  bool quota = false;
  if (!bos_.can_insert(q.bo_id, q.size, &why, &quota))
    return refuse("bo_id", why, quota ? proto::Status::kOutOfMemory : proto::Status::kInvalidArgument);

  BoEntry entry;
  entry.res_id = q.res_id;
  if (q.res_id == 0) {
    if (q.res_offset != 0) return refuse("res_offset", "must be 0 without a resource");
    Status s = device_->bo_create(q.size, 0, &entry.handle);
    if (s != Status::kOk) return refuse("size", "the device refused " + std::to_string(q.size) + " bytes", from_drv(s));
    entry.size = device_->bo_size(entry.handle);
  } else {
    const auto* res = attached_blob(q.res_id, "res_id");
    if (!res) return proto::Status::kInvalidArgument;
    if (q.res_offset % page != 0 || q.size % page != 0)
      return refuse("res_offset", "offset " + std::to_string(q.res_offset) + " and size " + std::to_string(q.size) +
                                      " must be multiples of the page size " + std::to_string(page));
    if (!range_within(q.res_offset, q.size, (*res)->size))
      return refuse("size", "range " + std::to_string(q.res_offset) + " + " + std::to_string(q.size) +
                                " is outside resource " + std::to_string(q.res_id) + " of " +
                                std::to_string((*res)->size) + " bytes");
    // The release callback owns a reference to the blob: its mapping stays valid for the GPU
    // until no binding or submission uses it, even after the guest detaches or frees it.
    std::shared_ptr<renderer::Resource> keep = *res;
    Status s = device_->bo_import((*res)->host_map + q.res_offset, q.size, [keep]() mutable { keep.reset(); },
                                  &entry.handle);
    if (s != Status::kOk) return refuse("res_id", "the device refused to import the range", from_drv(s));
    entry.size = q.size;
  }
  bos_.insert(q.bo_id, entry);
  log_debug(kDebugResources, "gsgpu_ctx ctx %u: BO %u = handle %u (%llu bytes, resource %u)", ctx_id_, q.bo_id,
            entry.handle, (unsigned long long)entry.size, q.res_id);
  return proto::Status::kOk;
}

void GsgpuContext::free_bo(uint32_t bo_id) {
  const BoEntry* bo = bos_.find(bo_id);
  if (!bo) return;
  // The device drops the handle and its bindings now; running submissions keep the memory.
  Status s = device_->bo_free(bo->handle);
  if (s != Status::kOk)
    log_error("gsgpu_ctx ctx %u: BO %u: the device refused to free handle %u (%s)", ctx_id_, bo_id, bo->handle,
              gsgpu::drv::status_name(s));
  bos_.erase(bo_id);
}

proto::Status GsgpuContext::handle_bo_destroy(const proto::BoDestroy& r, proto::BoDestroyRsp*) {
  if (!bos_.find(r.req.bo_id)) return refuse("bo_id", "unknown id " + std::to_string(r.req.bo_id));
  free_bo(r.req.bo_id);
  return proto::Status::kOk;
}

}  // namespace gsvirt::gsgpu_ctx
