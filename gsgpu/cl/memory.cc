// Buffers and sub-buffers: one buffer object per buffer, bound at a GPU VA the runtime chose and
// reached by the CPU through its mapping. Images are in image.cc.
#include "gsgpu/cl/memory.h"

#include "common/checked_math.h"
#include "gsgpu/cl/entry_points.h"

namespace gsgpu::cl {
namespace {

constexpr size_t kSubBufferAlign = 128;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes

bool at_most_one(cl_mem_flags flags, cl_mem_flags group) {
  const cl_mem_flags f = flags & group;
  return (f & (f - 1)) == 0;
}

}  // namespace

cl_int check_mem_flags(cl_mem_flags flags, const void* host_ptr) {
  if (flags & ~(kAccessFlags | kHostPtrFlags | kHostAccessFlags)) return CL_INVALID_VALUE;
  if (!at_most_one(flags, kAccessFlags) || !at_most_one(flags, kHostAccessFlags)) return CL_INVALID_VALUE;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  const bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr)) return CL_INVALID_HOST_PTR;
  return CL_SUCCESS;
}

Mem* new_root_mem(Context* c, const char* entry, cl_mem_flags flags, size_t size, const void* host_ptr,
                  cl_int* err) {
  Runtime* rt = c->rt;
  std::string why;
  // Buffer objects come zero-filled: a new buffer never shows an old one's bytes.
  auto alloc = rt->allocate(size, drv::kVaRead | drv::kVaWrite, &why);
  if (!alloc) {
    log_once(entry, why);
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
  }
  if (host_ptr) std::memcpy(alloc->cpu, host_ptr, size);
  auto* m = make_object<Mem>(rt, Kind::kMem);
  m->context = c;
  retain_internal(c);
  m->flags = (flags & kAccessFlags) ? flags : (flags | CL_MEM_READ_WRITE);
  m->size = size;
  m->alloc = *alloc;
  m->va = alloc->va;
  // USE_HOST_PTR has copy semantics here (device memory is separate); CL_MEM_HOST_PTR still
  // reports the application's pointer.
  m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? const_cast<void*>(host_ptr) : nullptr;
  *err = CL_SUCCESS;
  return m;
}

cl_int derived_mem_flags(const Mem* parent, cl_mem_flags flags, cl_mem_flags* out) {
  if (flags & kHostPtrFlags) return CL_INVALID_VALUE;
  if (flags & ~(kAccessFlags | kHostAccessFlags)) return CL_INVALID_VALUE;
  if (!at_most_one(flags, kAccessFlags) || !at_most_one(flags, kHostAccessFlags)) return CL_INVALID_VALUE;
  const cl_mem_flags pa = parent->flags & kAccessFlags;
  cl_mem_flags access = flags & kAccessFlags;
  if (!access) access = pa;
  if ((pa == CL_MEM_WRITE_ONLY && access != CL_MEM_WRITE_ONLY) ||
      (pa == CL_MEM_READ_ONLY && access != CL_MEM_READ_ONLY))
    return CL_INVALID_VALUE;
  cl_mem_flags host = flags & kHostAccessFlags;
  const cl_mem_flags ph = parent->flags & kHostAccessFlags;
  if (!host) host = ph;
  // A sub-buffer may narrow the host's access (to none, or to what the parent allows), never
  // widen it.
  const bool widens = (ph == CL_MEM_HOST_WRITE_ONLY && host == CL_MEM_HOST_READ_ONLY) ||
                      (ph == CL_MEM_HOST_READ_ONLY && host == CL_MEM_HOST_WRITE_ONLY) ||
                      (ph == CL_MEM_HOST_NO_ACCESS && host != CL_MEM_HOST_NO_ACCESS);
  if (widens) return CL_INVALID_VALUE;
  *out = access | host | (parent->flags & kHostPtrFlags);
  return CL_SUCCESS;
}

cl_mem CL_API_CALL gsgpu_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr,
                                        cl_int* errcode_ret) {
  auto* c = as<Context>(context, Kind::kContext);
  if (!c) {
    set_error(errcode_ret, CL_INVALID_CONTEXT);
    return nullptr;
  }
  cl_int err = check_mem_flags(flags, host_ptr);
  if (err == CL_SUCCESS && (size == 0 || size > c->rt->max_alloc())) err = CL_INVALID_BUFFER_SIZE;
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  std::lock_guard lock(c->rt->mutex);
  Mem* m = new_root_mem(c, "clCreateBuffer", flags, size, host_ptr, &err);
  set_error(errcode_ret, err);
  return handle_of<cl_mem>(m);
}

cl_mem CL_API_CALL gsgpu_clCreateBufferWithProperties(cl_context context, const cl_mem_properties* props,
                                                      cl_mem_flags flags, size_t size, void* host_ptr,
                                                      cl_int* errcode_ret) {
  if (props && props[0] != 0) {
    set_error(errcode_ret, CL_INVALID_PROPERTY);  // OpenCL 3.0 defines no buffer property
    return nullptr;
  }
  cl_mem mem = gsgpu_clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
  if (mem && props) as<Mem>(mem, Kind::kMem)->properties = {0};  // CL_MEM_PROPERTIES: the list as given
  return mem;
}

cl_mem CL_API_CALL gsgpu_clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                                           const void* info, cl_int* errcode_ret) {
  auto* parent = as<Mem>(buffer, Kind::kMem);
  if (!parent || parent->parent || parent->is_image()) {
    set_error(errcode_ret, CL_INVALID_MEM_OBJECT);
    return nullptr;
  }
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) {
    set_error(errcode_ret, CL_INVALID_VALUE);
    return nullptr;
  }
  cl_buffer_region region;
  std::memcpy(&region, info, sizeof region);
  cl_mem_flags sub_flags = 0;
  cl_int err = derived_mem_flags(parent, flags, &sub_flags);
  if (err == CL_SUCCESS && region.size == 0) err = CL_INVALID_BUFFER_SIZE;
  if (err == CL_SUCCESS && !range_within(region.origin, region.size, parent->size)) err = CL_INVALID_VALUE;
  if (err == CL_SUCCESS && region.origin % kSubBufferAlign) err = CL_MISALIGNED_SUB_BUFFER_OFFSET;
  if (err != CL_SUCCESS) {
    set_error(errcode_ret, err);
    return nullptr;
  }
  std::lock_guard lock(parent->rt->mutex);
  auto* m = make_object<Mem>(parent->rt, Kind::kMem);
  m->context = parent->context;
  m->parent = parent;
  retain_internal(parent);
  m->flags = sub_flags;
  m->size = region.size;
  m->origin = region.origin;
  m->va = parent->va + region.origin;
  if (parent->host_ptr) m->host_ptr = static_cast<uint8_t*>(parent->host_ptr) + region.origin;
  set_error(errcode_ret, CL_SUCCESS);
  return handle_of<cl_mem>(m);
}

cl_int CL_API_CALL gsgpu_clRetainMemObject(cl_mem mem) {
  auto* m = as<Mem>(mem, Kind::kMem);
  if (!m) return CL_INVALID_MEM_OBJECT;
  retain_app(m);
  return CL_SUCCESS;
}

cl_int CL_API_CALL gsgpu_clReleaseMemObject(cl_mem mem) {
  auto* m = as<Mem>(mem, Kind::kMem);
  if (!m) return CL_INVALID_MEM_OBJECT;
  std::lock_guard lock(m->rt->mutex);
  return release_app(m);
}

cl_int CL_API_CALL gsgpu_clGetMemObjectInfo(cl_mem mem, cl_mem_info param, size_t size, void* value,
                                            size_t* ret) {
  auto* m = as<Mem>(mem, Kind::kMem);
  if (!m) return CL_INVALID_MEM_OBJECT;
  // map_count changes in an unmap's work, which may run on the completion thread.
  std::lock_guard lock(m->rt->mutex);
  switch (param) {
    case CL_MEM_TYPE:
      return put_value(cl_mem_object_type(m->is_image() ? m->image->type : CL_MEM_OBJECT_BUFFER), size, value, ret);
    case CL_MEM_FLAGS: return put_value(m->flags, size, value, ret);
    case CL_MEM_SIZE: return put_value(m->size, size, value, ret);
    case CL_MEM_HOST_PTR: return put_value(m->host_ptr, size, value, ret);
    case CL_MEM_MAP_COUNT: return put_value(cl_uint(m->map_count), size, value, ret);
    case CL_MEM_REFERENCE_COUNT: return put_value(cl_uint(m->app_refs()), size, value, ret);
    case CL_MEM_CONTEXT: return put_value(handle_of<cl_context>(m->context), size, value, ret);
    case CL_MEM_ASSOCIATED_MEMOBJECT: return put_value(handle_of<cl_mem>(m->parent), size, value, ret);
    // An image over a buffer starts at that buffer's first byte: its offset is 0 (the spec).
    case CL_MEM_OFFSET: return put_value(m->is_image() ? size_t(0) : m->origin, size, value, ret);
    case CL_MEM_USES_SVM_POINTER: return put_value(cl_bool(CL_FALSE), size, value, ret);  // no SVM
    case CL_MEM_PROPERTIES: return put_array(m->properties, size, value, ret);
  }
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL gsgpu_clGetPipeInfo(cl_mem, cl_pipe_info, size_t, void*, size_t*) {
  return CL_INVALID_MEM_OBJECT;  // no pipe support (CL_DEVICE_PIPE_SUPPORT): no object is a pipe
}

cl_int CL_API_CALL gsgpu_clSetMemObjectDestructorCallback(cl_mem mem, void(CL_CALLBACK* fn)(cl_mem, void*),
                                                          void* data) {
  auto* m = as<Mem>(mem, Kind::kMem);
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard lock(m->rt->mutex);
  m->destructors.emplace_back(fn, data);
  return CL_SUCCESS;
}

}  // namespace gsgpu::cl
