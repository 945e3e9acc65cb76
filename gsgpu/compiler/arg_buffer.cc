#include "gsgpu/compiler/arg_buffer.h"

#include <algorithm>
#include <cstring>

namespace gsgpu::compiler {

bool build_argument_buffer(const CompiledKernel& kernel, std::span<const KernelArgValue> args, uint32_t work_dim,
                           ArgumentBuffer* out, std::string* error) {
  if (args.size() != kernel.args.size()) {
    *error = "kernel " + kernel.name + " takes " + std::to_string(kernel.args.size()) + " arguments, " +
             std::to_string(args.size()) + " given";
    return false;
  }
  out->bytes.assign(std::max<uint32_t>(kernel.arg_buffer_size, 4), 0);
  uint64_t local_top = kernel.static_local_bytes;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo& info = kernel.args[i];
    const KernelArgValue& value = args[i];
    const std::string which = "argument " + std::to_string(i) + (info.name.empty() ? "" : " (" + info.name + ")");
    if (info.kind == ArgKind::kLocalPointer) {
      if (value.local_bytes == 0 || !value.bytes.empty()) {
        *error = which + " is a __local pointer: it takes a size and no value";
        return false;
      }
      const uint32_t align = std::max(info.local_alignment, 4u);
      local_top = (local_top + align - 1) / align * align;
      std::memcpy(&out->bytes[info.offset], &local_top, 8);
      local_top += value.local_bytes;
      if (local_top > (1u << 20)) {
        *error = which + ": __local memory exceeds 1 MiB";
        return false;
      }
      continue;
    }
    if (value.local_bytes != 0) {
      *error = which + " is not a __local pointer but was given a local size";
      return false;
    }
    // Narrow scalars occupy a wider slot; the value may be given at its own size.
    const bool fits = value.bytes.size() == info.size || (info.kind == ArgKind::kScalar && value.bytes.size() < info.size &&
                                                          value.bytes.size() > 0);
    if (!fits) {
      *error = which + " takes " + std::to_string(info.size) + " bytes, " + std::to_string(value.bytes.size()) + " given";
      return false;
    }
    std::memcpy(&out->bytes[info.offset], value.bytes.data(), value.bytes.size());
  }
  std::memcpy(&out->bytes[kernel.work_dim_offset], &work_dim, 4);
  if (!kernel.constant_data.empty())
    std::memcpy(&out->bytes[kernel.constant_data_offset], kernel.constant_data.data(), kernel.constant_data.size());
  out->local_mem_size = static_cast<uint32_t>(local_top);
  return true;
}

bool set_printf_buffer(const CompiledKernel& kernel, uint64_t va, uint32_t capacity, std::span<uint8_t> arg_bytes) {
  if (!kernel.uses_printf() || uint64_t{kernel.printf_buffer_offset} + kPrintfArgFieldBytes > arg_bytes.size()) return false;
  std::memcpy(&arg_bytes[kernel.printf_buffer_offset], &va, 8);
  std::memcpy(&arg_bytes[kernel.printf_buffer_offset + 8], &capacity, 4);
  return true;
}

}  // namespace gsgpu::compiler
