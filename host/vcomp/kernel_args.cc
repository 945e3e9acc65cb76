// Kernel arguments against a hostile guest (issue 12, point 2).
//
// The guest says what it sends for an argument (value bytes, a memory object id, a sampler id, a
// __local size), but only the kernel knows what the argument is. An executor's clSetKernelArg
// reads a cl_mem or cl_sampler handle out of the value for object arguments, so value bytes given
// to such an argument would become a pointer the driver dereferences, and a host handle given to
// a by-value argument would hand the kernel a host address. vcomp therefore learns each
// argument's class from the executor's kernel metadata when the kernel is created
// (describe_kernel_args) and passes the executor only what that class takes: value bytes to
// by-value arguments, handles of this context's own objects of the right type to object
// arguments, a size to __local ones. Everything else is the spec's error for the mismatch.
#include <array>
#include <string>
#include <string_view>

#include "host/vcomp/handler_util.h"

namespace gsvirt::vcomp {
namespace {

// The wire's arg_kind (vcomp.xml, clSetKernelArg).
enum WireArgKind : uint32_t { kWireValue = 0, kWireMem = 1, kWireSampler = 2, kWireLocal = 3 };

const char* wire_kind_name(uint32_t kind) {
  switch (kind) {
    case kWireValue: return "value bytes";
    case kWireMem: return "a memory object";
    case kWireSampler: return "a sampler";
    case kWireLocal: return "no value (a __local size)";
  }
  return "an unknown kind";
}

// The last word of a type name ("__read_only image2d_t" -> "image2d_t").
std::string_view last_word(std::string_view type) {
  size_t space = type.find_last_of(' ');
  return space == std::string_view::npos ? type : type.substr(space + 1);
}

// The memory object type an image type name takes; nullopt for names that are not images.
std::optional<cl_mem_object_type> image_type_of(std::string_view name) {
  struct Image {
    std::string_view name;
    cl_mem_object_type type;
  };
  static constexpr std::array<Image, 12> kImages = {{
      {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
      {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
      {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
      {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image3d_t", CL_MEM_OBJECT_IMAGE3D},
      {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image2d_msaa_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_msaa_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image2d_msaa_depth_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_msaa_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
  }};
  for (const auto& image : kImages)
    if (image.name == name) return image.type;
  return std::nullopt;
}

// The argument's type name, or "" when the executor does not say.
std::string arg_type_name(const cl_icd_dispatch& api, cl_kernel kernel, cl_uint index) {
  size_t size = 0;
  if (api.clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &size) != CL_SUCCESS)
    return {};
  if (size == 0 || size > 4096) return {};
  std::string name(size, '\0');
  if (api.clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, size, name.data(), nullptr) != CL_SUCCESS)
    return {};
  name.resize(name.find('\0') == std::string::npos ? name.size() : name.find('\0'));
  return name;
}

KernelArgSpec describe_arg(const cl_icd_dispatch& api, cl_kernel kernel, cl_uint index) {
  cl_kernel_arg_address_qualifier address = 0;
  if (api.clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address,
                             nullptr) != CL_SUCCESS)
    return {KernelArgClass::kUnknown};
  if (address == CL_KERNEL_ARG_ADDRESS_LOCAL) return {KernelArgClass::kLocal};
  cl_kernel_arg_type_qualifier qualifier = 0;
  if (api.clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier,
                             nullptr) == CL_SUCCESS &&
      (qualifier & CL_KERNEL_ARG_TYPE_PIPE))
    return {KernelArgClass::kPipe};
  const std::string type = arg_type_name(api, kernel, index);
  const std::string_view word = last_word(type);
  if (auto image = image_type_of(word)) return {KernelArgClass::kImage, *image};
  if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT)
    return {type.empty() ? KernelArgClass::kMemAny : KernelArgClass::kBuffer};
  if (type.empty()) return {KernelArgClass::kPrivateUnknown};
  if (word == "sampler_t") return {KernelArgClass::kSampler};
  if (word == "queue_t" || word == "clk_event_t" || word == "reserve_id_t" || word == "event_t")
    return {KernelArgClass::kUnsupported};
  return {KernelArgClass::kValue};
}

bool mem_type_fits(const KernelArgSpec& spec, cl_mem_object_type type) {
  switch (spec.cls) {
    case KernelArgClass::kBuffer: return type == CL_MEM_OBJECT_BUFFER;
    case KernelArgClass::kPipe: return type == CL_MEM_OBJECT_PIPE;
    case KernelArgClass::kImage:
      return type != CL_MEM_OBJECT_BUFFER && type != CL_MEM_OBJECT_PIPE &&
             (spec.image_type == 0 || spec.image_type == type);
    default: return true;  // kMemAny
  }
}

}  // namespace

std::vector<KernelArgSpec> describe_kernel_args(const cl_icd_dispatch& api, cl_kernel kernel) {
  cl_uint count = 0;
  if (api.clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr) != CL_SUCCESS) return {};
  std::vector<KernelArgSpec> specs(count);
  for (cl_uint i = 0; i < count; ++i) specs[i] = describe_arg(api, kernel, i);
  return specs;
}

cl_int VcompContext::set_kernel_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args) {
  if (args.arg_kind > kWireLocal) {
    log_field_error("arg_kind", "unknown kind " + std::to_string(args.arg_kind));
    return CL_INVALID_VALUE;
  }
  if (args.arg_index >= k.args.size()) {
    log_field_error("arg_index", "kernel has " + std::to_string(k.args.size()) + " arguments");
    return CL_INVALID_ARG_INDEX;
  }
  if (args.arg_kind == kWireValue && args.value.size != args.arg_size) {
    log_field_error("value", "carries " + std::to_string(args.value.size) + " bytes, arg_size is " +
                                 std::to_string(args.arg_size));
    return CL_INVALID_ARG_SIZE;
  }
  const KernelArgSpec& spec = k.args[args.arg_index];
  switch (spec.cls) {
    case KernelArgClass::kValue: return set_value_arg(k, args, true);
    case KernelArgClass::kPrivateUnknown:
      // Without type names (no -cl-kernel-arg-info) a sampler looks like a value; an executor that
      // checks handles itself (gsgpu) is given the sampler and says whether the argument takes one.
      if (args.arg_kind == kWireSampler && executor_->validates_arg_handles()) return set_sampler_arg(k, args);
      return set_value_arg(k, args, false);
    case KernelArgClass::kBuffer:
    case KernelArgClass::kMemAny:
    case KernelArgClass::kImage:
    case KernelArgClass::kPipe: return set_mem_arg(k, spec, args);
    case KernelArgClass::kSampler: return set_sampler_arg(k, args);
    case KernelArgClass::kLocal: return set_local_arg(k, args);
    case KernelArgClass::kUnsupported:
      log_field_error("arg_index", "argument of a type the guest cannot set (a device queue or event)");
      return CL_INVALID_ARG_VALUE;
    case KernelArgClass::kUnknown: break;
  }
  log_field_error("arg_index", "the executor gives no metadata for this argument, so the host cannot tell "
                               "a memory object from a value");
  return CL_INVALID_ARG_VALUE;
}

cl_int VcompContext::set_value_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args,
                                   bool type_known) {
  // Eight zero bytes arrive as a NULL memory object: the guest cannot tell them apart.
  static constexpr uint8_t kZeros[sizeof(cl_mem)] = {};
  const void* bytes = nullptr;
  if (args.arg_kind == kWireValue) {
    bytes = args.value.data;
  } else if (args.arg_kind == kWireMem && args.object == 0 && args.arg_size == sizeof(cl_mem)) {
    bytes = kZeros;
  } else {
    log_field_error("arg_kind", "argument " + std::to_string(args.arg_index) + " is passed by value; the guest sent " +
                                    wire_kind_name(args.arg_kind));
    return CL_INVALID_ARG_VALUE;
  }
  // A by-value argument whose type is unknown might be a sampler or an image: pointer-sized bytes
  // could then be read as a handle, unless the executor checks handles itself.
  if (!type_known && !executor_->validates_arg_handles() && args.arg_size == sizeof(void*)) {
    log_field_error("arg_index", "the type of argument " + std::to_string(args.arg_index) +
                                     " is unknown, so pointer-sized bytes are refused");
    return CL_INVALID_ARG_VALUE;
  }
  return api().clSetKernelArg(k.handle, args.arg_index, size_t(args.arg_size), bytes);
}

cl_int VcompContext::set_mem_arg(const KernelObject& k, const KernelArgSpec& spec,
                                 const proto::Args_clSetKernelArg& args) {
  if (args.arg_size != sizeof(cl_mem)) {
    log_field_error("arg_size", "a memory object argument takes " + std::to_string(sizeof(cl_mem)) + " bytes");
    return CL_INVALID_ARG_SIZE;
  }
  // A NULL arg_value (sent as a __local size) is a NULL buffer, as for a memory object id 0.
  if (args.arg_kind == kWireValue || args.arg_kind == kWireSampler) {
    log_field_error("arg_kind", "argument " + std::to_string(args.arg_index) +
                                    " is a memory object; the guest sent " + wire_kind_name(args.arg_kind));
    return CL_INVALID_MEM_OBJECT;
  }
  const uint64_t object = args.arg_kind == kWireMem ? args.object : 0;
  cl_mem handle = nullptr;
  if (object) {
    auto* m = lookup<MemObject>(object, "object");
    if (!m) return CL_INVALID_MEM_OBJECT;
    handle = m->handle;
    cl_mem_object_type type = 0;
    if (api().clGetMemObjectInfo(handle, CL_MEM_TYPE, sizeof type, &type, nullptr) != CL_SUCCESS ||
        !mem_type_fits(spec, type)) {
      log_field_error("object", "memory object " + std::to_string(object) + " is not of the argument's type");
      return CL_INVALID_MEM_OBJECT;
    }
  } else if (spec.cls == KernelArgClass::kImage || spec.cls == KernelArgClass::kPipe) {
    log_field_error("object", "an image or pipe argument needs an object");
    return CL_INVALID_MEM_OBJECT;
  }
  return api().clSetKernelArg(k.handle, args.arg_index, sizeof(cl_mem), &handle);
}

cl_int VcompContext::set_sampler_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args) {
  if (args.arg_size != sizeof(cl_sampler)) {
    log_field_error("arg_size", "a sampler argument takes " + std::to_string(sizeof(cl_sampler)) + " bytes");
    return CL_INVALID_ARG_SIZE;
  }
  if (args.arg_kind != kWireSampler) {
    log_field_error("arg_kind", "argument " + std::to_string(args.arg_index) + " is a sampler; the guest sent " +
                                    wire_kind_name(args.arg_kind));
    return CL_INVALID_SAMPLER;
  }
  auto* s = lookup<SamplerObject>(args.object, "object");
  if (!s) return CL_INVALID_SAMPLER;
  return api().clSetKernelArg(k.handle, args.arg_index, sizeof(cl_sampler), &s->handle);
}

cl_int VcompContext::set_local_arg(const KernelObject& k, const proto::Args_clSetKernelArg& args) {
  if (args.arg_kind != kWireLocal) {
    log_field_error("arg_kind", "argument " + std::to_string(args.arg_index) +
                                    " is __local and takes no value; the guest sent " + wire_kind_name(args.arg_kind));
    return CL_INVALID_ARG_VALUE;
  }
  if (args.arg_size == 0) {
    log_field_error("arg_size", "a __local argument needs a size");
    return CL_INVALID_ARG_SIZE;
  }
  return api().clSetKernelArg(k.handle, args.arg_index, size_t(args.arg_size), nullptr);
}

}  // namespace gsvirt::vcomp
