// Buffer, sub-buffer and image commands.
#include <sys/mman.h>

#include "common/checked_math.h"
#include "host/vcomp/handler_util.h"
#include "host/vcomp/image_format.h"

namespace gsvirt::vcomp {
namespace {

// The host copy of guest data always has COPY semantics: the guest's pointer lives in the guest,
// which keeps USE_HOST_PTR coherent itself (docs/guest-driver.md).
cl_mem_flags host_flags(cl_mem_flags flags) {
  if (flags & CL_MEM_USE_HOST_PTR) flags = (flags & ~cl_mem_flags(CL_MEM_USE_HOST_PTR)) | CL_MEM_COPY_HOST_PTR;
  return flags;
}

bool wants_host_data(cl_mem_flags flags) {
  return flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
}

// `size` zero bytes that cost no memory: a private anonymous mapping reads as the shared zero
// page until written. New memory objects are created as copies of it, so that no executor can hand
// the guest what its allocator left in the memory before (issue 12, point 11).
class ZeroBytes {
 public:
  explicit ZeroBytes(uint64_t size) : size_(size) {
    if (size == 0 || size > SIZE_MAX) return;
    void* p = mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) data_ = p;
  }
  ~ZeroBytes() {
    if (data_) munmap(data_, size_t(size_));
  }
  ZeroBytes(const ZeroBytes&) = delete;
  ZeroBytes& operator=(const ZeroBytes&) = delete;
  void* data() const { return data_; }

 private:
  uint64_t size_;
  void* data_ = nullptr;
};

// The executor's answer to a creation the host cannot zero-fill (no zero source of that size, or
// an image whose size the host cannot compute): its own error when it refuses the arguments, and
// otherwise a refusal, since the object would start with whatever the executor's memory held.
template <typename Create>
cl_int refuse_unzeroed(const cl_icd_dispatch& api, Create create, cl_int refusal) {
  cl_int err = CL_SUCCESS;
  cl_mem m = create(&err);
  if (err != CL_SUCCESS) return err;
  if (m) api.clReleaseMemObject(m);
  return refusal;
}

}  // namespace

void VcompContext::dispatch_clCreateBuffer(const proto::Args_clCreateBuffer& args,
                                           proto::Out_clCreateBuffer& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  if (!check_new_id(args.buffer, "buffer", &out.result)) return;
  const void* host_ptr = nullptr;
  if (wants_host_data(args.flags)) {
    host_ptr = data_in(args.host_data, args.size, "host_data");
    if (!host_ptr) {
      out.result = CL_INVALID_HOST_PTR;
      return;
    }
  } else if (args.host_data.size != 0) {
    log_field_error("host_data", "data without CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR");
    out.result = CL_INVALID_HOST_PTR;
    return;
  }
  cl_mem_flags flags = host_flags(args.flags);
  ZeroBytes zeros(host_ptr ? 0 : args.size);
  if (!host_ptr) {
    auto create = [&](cl_int* err) { return api().clCreateBuffer(c->handle, flags, args.size, nullptr, err); };
    if (!zeros.data()) {
      out.result = refuse_unzeroed(api(), create, CL_OUT_OF_HOST_MEMORY);
      if (out.result == CL_OUT_OF_HOST_MEMORY)
        log_field_error("size", "no zero-filled source of " + std::to_string(args.size) + " bytes");
      return;
    }
    host_ptr = zeros.data();
    flags |= CL_MEM_COPY_HOST_PTR;
  }
  cl_int err = CL_SUCCESS;
  cl_mem m = api().clCreateBuffer(c->handle, flags, args.size, const_cast<void*>(host_ptr), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.buffer, std::make_unique<MemObject>(executor_, m), "buffer");
}

void VcompContext::dispatch_clCreateSubBuffer(const proto::Args_clCreateSubBuffer& args,
                                              proto::Out_clCreateSubBuffer& out) {
  auto* b = require<MemObject>(args.buffer, "buffer", CL_INVALID_MEM_OBJECT, &out.result);
  if (!b) return;
  if (!check_new_id(args.sub_buffer, "sub_buffer", &out.result)) return;
  if (args.create_type != CL_BUFFER_CREATE_TYPE_REGION) {
    out.result = CL_INVALID_VALUE;
    return;
  }
  cl_buffer_region region{size_t(args.origin), size_t(args.size)};
  cl_int err = CL_SUCCESS;
  cl_mem m = api().clCreateSubBuffer(b->handle, host_flags(args.flags), args.create_type, &region, &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.sub_buffer, std::make_unique<MemObject>(executor_, m), "sub_buffer");
}

void VcompContext::dispatch_clCreateImage(const proto::Args_clCreateImage& args,
                                          proto::Out_clCreateImage& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  MemObject* backing = nullptr;
  if (args.mem_object) {
    backing = lookup<MemObject>(args.mem_object, "mem_object");
    if (!backing) {
      out.result = CL_INVALID_MEM_OBJECT;
      return;
    }
  }
  if (!check_new_id(args.image, "image", &out.result)) return;
  cl_image_format format{args.channel_order, args.channel_data_type};
  cl_image_desc desc{};
  desc.image_type = args.image_type;
  desc.image_width = args.width;
  desc.image_height = args.height;
  desc.image_depth = args.depth;
  desc.image_array_size = args.array_size;
  desc.num_mip_levels = args.num_mip_levels;
  desc.num_samples = args.num_samples;
  desc.buffer = backing ? backing->handle : nullptr;
  const void* host_ptr = nullptr;
  if (wants_host_data(args.flags)) {
    // The guest always sends packed rows (pitches 0), so the size it must carry is known here.
    auto need = packed_image_size(format, desc);
    if (!need) {
      out.result = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
      return;
    }
    host_ptr = data_in(args.host_data, *need, "host_data");
    if (!host_ptr) {
      out.result = CL_INVALID_HOST_PTR;
      return;
    }
  } else {
    desc.image_row_pitch = args.row_pitch;
    desc.image_slice_pitch = args.slice_pitch;
  }
  cl_mem_flags flags = host_flags(args.flags);
  // An image over a buffer shows the buffer's (zero-filled) bytes; any other new image starts as a
  // copy of packed zeros, which needs the pitches at 0 (as OpenCL wants them without host data).
  std::optional<uint64_t> zero_size;
  if (!host_ptr && !backing && args.row_pitch == 0 && args.slice_pitch == 0)
    zero_size = packed_image_size(format, desc);
  ZeroBytes zeros(zero_size.value_or(0));
  if (!host_ptr && !backing) {
    if (!zeros.data()) {
      auto create = [&](cl_int* err) { return api().clCreateImage(c->handle, flags, &format, &desc, nullptr, err); };
      out.result = refuse_unzeroed(api(), create, CL_INVALID_IMAGE_DESCRIPTOR);
      if (out.result == CL_INVALID_IMAGE_DESCRIPTOR)
        log_field_error("image_type", "the host cannot zero-fill an image of this description");
      return;
    }
    host_ptr = zeros.data();
    flags |= CL_MEM_COPY_HOST_PTR;
  }
  cl_int err = CL_SUCCESS;
  cl_mem m = api().clCreateImage(c->handle, flags, &format, &desc, const_cast<void*>(host_ptr), &err);
  out.result = err;
  if (err == CL_SUCCESS) bind(args.image, std::make_unique<MemObject>(executor_, m), "image");
}

void VcompContext::dispatch_clGetSupportedImageFormats(
    const proto::Args_clGetSupportedImageFormats& args,
    proto::Out_clGetSupportedImageFormats& out) {
  auto* c = require<ContextObject>(args.context, "context", CL_INVALID_CONTEXT, &out.result);
  if (!c) return;
  cl_uint count = 0;
  out.result = api().clGetSupportedImageFormats(c->handle, args.flags, args.image_type, 0,
                                                nullptr, &count);
  if (out.result != CL_SUCCESS) return;
  out.num_image_formats = count;
  if (args.formats_capacity == 0 || count == 0) return;
  std::vector<cl_image_format> formats(count);
  out.result = api().clGetSupportedImageFormats(c->handle, args.flags, args.image_type, count,
                                                formats.data(), nullptr);
  for (const auto& f : formats) {
    out.formats.push_back(f.image_channel_order);
    out.formats.push_back(f.image_channel_data_type);
  }
}

void VcompContext::dispatch_clGetMemObjectInfo(const proto::Args_clGetMemObjectInfo& args,
                                               proto::Out_clGetMemObjectInfo& out) {
  auto* m = require<MemObject>(args.memobj, "memobj", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  forward_info(
      InfoKind::kMem, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetMemObjectInfo(m->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

void VcompContext::dispatch_clGetImageInfo(const proto::Args_clGetImageInfo& args,
                                           proto::Out_clGetImageInfo& out) {
  auto* m = require<MemObject>(args.image, "image", CL_INVALID_MEM_OBJECT, &out.result);
  if (!m) return;
  forward_info(
      InfoKind::kImage, args.param_name, [&](size_t size, void* value, size_t* ret) {
        return api().clGetImageInfo(m->handle, args.param_name, size, value, ret);
      },
      args.value, &out.value, &out.size_ret, &out.result);
}

}  // namespace gsvirt::vcomp
