// Image and sampler kernel arguments, as the texture unit's ABI wants them (docs/compiler.md,
// "Images and samplers"): an image argument is the GPU VA of an IMAGE_DESC record the runtime
// writes for each dispatch, a sampler argument its SAMPLER_STATE word. The records' layout comes
// from protocol/gsgpu/gsgpu.xml (the generated gsgpu_hw.h): nothing here hand-writes an offset.
#include "gsgpu/cl/image_args.h"

#include "protocol/gsgpu/gsgpu_hw.h"
#include "protocol/gsgpu/sampler_state.h"

namespace gsgpu::cl {
namespace {

namespace desc = gsgpu::hw::blk::IMAGE_DESC;
namespace smp = gsgpu::hw::blk::SAMPLER_STATE;
using gsgpu::compiler::ImageAccess;
using gsgpu::compiler::ImageDim;
using gsgpu::hw::put_field;

ImageDim dim_of(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: return ImageDim::k1D;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return ImageDim::k1DBuffer;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return ImageDim::k1DArray;
    case CL_MEM_OBJECT_IMAGE2D: return ImageDim::k2D;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return ImageDim::k2DArray;
    case CL_MEM_OBJECT_IMAGE3D: return ImageDim::k3D;
    default: return ImageDim::kNone;
  }
}

// The descriptor's FORMAT.TYPE code of an image type (the same order as ImageDim).
uint32_t type_code(cl_mem_object_type type) {
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: return desc::FORMAT_TYPE_IMAGE_1D;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return desc::FORMAT_TYPE_IMAGE_1D_BUFFER;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return desc::FORMAT_TYPE_IMAGE_1D_ARRAY;
    case CL_MEM_OBJECT_IMAGE2D: return desc::FORMAT_TYPE_IMAGE_2D;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return desc::FORMAT_TYPE_IMAGE_2D_ARRAY;
    default: return desc::FORMAT_TYPE_IMAGE_3D;
  }
}

// The access the image object's flags allow a kernel conflicts with what the argument declares
// (the spec: CL_INVALID_ARG_VALUE).
bool access_conflicts(ImageAccess declared, cl_mem_flags flags) {
  const bool read_only = flags & CL_MEM_READ_ONLY, write_only = flags & CL_MEM_WRITE_ONLY;
  switch (declared) {
    case ImageAccess::kReadOnly: return write_only;
    case ImageAccess::kWriteOnly: return read_only;
    case ImageAccess::kReadWrite: return read_only || write_only;
    default: return false;
  }
}

uint32_t address_code(cl_addressing_mode mode) {
  switch (mode) {
    case CL_ADDRESS_CLAMP_TO_EDGE: return smp::STATE_ADDRESS_U_CLAMP_TO_EDGE;
    case CL_ADDRESS_CLAMP: return smp::STATE_ADDRESS_U_CLAMP_TO_BORDER;
    case CL_ADDRESS_REPEAT: return smp::STATE_ADDRESS_U_REPEAT;
    case CL_ADDRESS_MIRRORED_REPEAT: return smp::STATE_ADDRESS_U_MIRRORED_REPEAT;
    default: return smp::STATE_ADDRESS_U_NONE;
  }
}

}  // namespace

cl_int set_image_arg(const Kernel* k, const gsgpu::compiler::ArgInfo& info, KernelArg& arg, size_t size,
                     const void* value) {
  if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  cl_mem mem = nullptr;
  if (value) std::memcpy(&mem, value, sizeof mem);
  auto* m = as<Mem>(mem, Kind::kMem);
  // An image of the kernel's context, of the type the argument declares (a buffer is not one).
  if (!m || !m->is_image() || m->context != k->program->context) return CL_INVALID_MEM_OBJECT;
  if (info.image_dim != ImageDim::kNone && info.image_dim != dim_of(m->image->type)) return CL_INVALID_MEM_OBJECT;
  if (access_conflicts(info.image_access, m->flags)) return CL_INVALID_ARG_VALUE;
  arg.mem = mem;
  return CL_SUCCESS;
}

cl_int set_sampler_arg(const Kernel* k, KernelArg& arg, size_t size, const void* value) {
  if (size != sizeof(cl_sampler)) return CL_INVALID_ARG_SIZE;
  cl_sampler handle = nullptr;
  if (value) std::memcpy(&handle, value, sizeof handle);
  auto* s = as<Sampler>(handle, Kind::kSampler);
  if (!s || s->context != k->program->context) return CL_INVALID_SAMPLER;
  const uint64_t word = sampler_state(s->normalized_coords, s->addressing_mode, s->filter_mode);
  arg.bytes.resize(sizeof word);
  std::memcpy(arg.bytes.data(), &word, sizeof word);
  return CL_SUCCESS;
}

uint32_t sampler_state(cl_bool normalized_coords, cl_addressing_mode addressing, cl_filter_mode filter) {
  return gsgpu::hw::opencl_sampler_state(normalized_coords, address_code(addressing), filter == CL_FILTER_LINEAR);
}

void write_image_descriptor(const ImageLayout& l, uint64_t va, uint8_t out[kImageDescriptorBytes]) {
  static_assert(kImageDescriptorBytes == desc::SIZE_DWORDS * 4);
  uint32_t d[desc::SIZE_DWORDS] = {};
  d[desc::BASE_VA_LO] = uint32_t(va);
  d[desc::BASE_VA_HI] = uint32_t(va >> 32);
  // The descriptor's codes keep OpenCL's order: CL_R is 1, CL_SNORM_INT8 is 1.
  d[desc::FORMAT] =
      put_field(l.format.image_channel_order - (CL_R - 1), desc::FORMAT_CHANNEL_ORDER_MASK,
                desc::FORMAT_CHANNEL_ORDER_SHIFT) |
      put_field(l.format.image_channel_data_type - (CL_SNORM_INT8 - 1), desc::FORMAT_DATA_TYPE_MASK,
                desc::FORMAT_DATA_TYPE_SHIFT) |
      put_field(type_code(l.type), desc::FORMAT_TYPE_MASK, desc::FORMAT_TYPE_SHIFT) |
      put_field(1, desc::FORMAT_MIP_LEVELS_MASK, desc::FORMAT_MIP_LEVELS_SHIFT) |
      put_field(desc::FORMAT_MIP_LAYOUT_SINGLE, desc::FORMAT_MIP_LAYOUT_MASK, desc::FORMAT_MIP_LAYOUT_SHIFT);
  // Dimensions the type has not are 1; pitches fit 32 bits (checked when the image was made).
  d[desc::WIDTH] = uint32_t(l.width);
  d[desc::HEIGHT] = uint32_t(l.height ? l.height : 1);
  d[desc::DEPTH] = uint32_t(l.depth ? l.depth : 1);
  d[desc::ARRAY_SIZE] = uint32_t(l.array_size ? l.array_size : 1);
  d[desc::ROW_PITCH] = uint32_t(l.row_pitch);
  // One slice or layer: no slice pitch (the descriptor's rule). A 1D array's layers are its rows.
  const size_t layers = l.type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? l.array_size : l.slices;
  d[desc::SLICE_PITCH] = layers > 1 ? uint32_t(l.slice_pitch) : 0;
  std::memcpy(out, d, sizeof d);
}

}  // namespace gsgpu::cl
