#include "gsgpu/compiler/arg_buffer.h"

#include <algorithm>
#include <cstring>

#include "common/checked_math.h"

namespace gsgpu::compiler {
namespace {

std::string describe(size_t index, const ArgInfo& info) {
  return "argument " + std::to_string(index) + (info.name.empty() ? "" : " (" + info.name + ")");
}

// Writes `size` bytes at `offset`; false when they would leave the buffer (the kernel's layout is
// inconsistent: CompiledKernel can come from guest-supplied SPIR-V).
bool put(std::vector<uint8_t>& buffer, uint64_t offset, const void* data, size_t size) {
  if (!gsvirt::range_within(offset, size, buffer.size())) return false;
  if (size != 0) std::memcpy(buffer.data() + offset, data, size);
  return true;
}

// The sizes a value may have (arg_buffer.h, KernelArgValue).
bool value_fits(const ArgInfo& info, size_t size) {
  if (size == info.size) return true;
  const bool by_value = info.kind == ArgKind::kScalar || info.kind == ArgKind::kStruct;
  return by_value && info.size == 4 && size > 0 && size < 4;
}

}  // namespace

bool build_argument_buffer(const CompiledKernel& kernel, std::span<const KernelArgValue> args, uint32_t work_dim,
                           ArgumentBuffer* out, std::string* error, ArgBufferError* why) {
  auto refuse = [&](ArgBufferError kind, std::string message) {
    *error = std::move(message);
    if (why) *why = kind;
    return false;
  };
  if (why) *why = ArgBufferError::kNone;
  if (args.size() != kernel.args.size())
    return refuse(ArgBufferError::kArgument, "kernel " + kernel.name + " takes " + std::to_string(kernel.args.size()) +
                                                 " arguments, " + std::to_string(args.size()) + " given");
  out->bytes.assign(std::max<uint32_t>(kernel.arg_buffer_size, 4), 0);
  out->local_mem_size = 0;
  // Only ever compared with kMaxLocalBytes before it grows again, so it stays below
  // 2 * 2^32 + kMaxLocalBytes: no overflow whatever the sizes and alignments.
  uint64_t local_top = kernel.static_local_bytes;
  bool local_exceeded = local_top > kMaxLocalBytes;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo& info = kernel.args[i];
    const KernelArgValue& value = args[i];
    if (info.kind == ArgKind::kLocalPointer) {
      if (value.local_bytes == 0 || !value.bytes.empty())
        return refuse(ArgBufferError::kArgument,
                      describe(i, info) + " is a __local pointer: it takes a size and no value");
      if (local_exceeded) continue;  // refused below; the remaining arguments are still checked
      const uint64_t align = std::max(info.local_alignment, 4u);
      local_top = (local_top + align - 1) / align * align;
      if (!put(out->bytes, info.offset, &local_top, sizeof local_top))
        return refuse(ArgBufferError::kArgument, describe(i, info) + ": slot at offset " + std::to_string(info.offset) +
                                                     " lies outside the " + std::to_string(out->bytes.size()) +
                                                     "-byte argument buffer");
      local_top += value.local_bytes;
      local_exceeded = local_top > kMaxLocalBytes;
      continue;
    }
    if (value.local_bytes != 0)
      return refuse(ArgBufferError::kArgument,
                    describe(i, info) + " is not a __local pointer but was given a local size");
    if (!value_fits(info, value.bytes.size()))
      return refuse(ArgBufferError::kArgument, describe(i, info) + " takes " + std::to_string(info.size) + " bytes, " +
                                                   std::to_string(value.bytes.size()) + " given");
    if (!put(out->bytes, info.offset, value.bytes.data(), value.bytes.size()))
      return refuse(ArgBufferError::kArgument, describe(i, info) + ": slot at offset " + std::to_string(info.offset) +
                                                   " lies outside the " + std::to_string(out->bytes.size()) +
                                                   "-byte argument buffer");
  }
  if (!put(out->bytes, kernel.work_dim_offset, &work_dim, sizeof work_dim) ||
      (!kernel.constant_data.empty() &&
       !put(out->bytes, kernel.constant_data_offset, kernel.constant_data.data(), kernel.constant_data.size())))
    return refuse(ArgBufferError::kArgument, "kernel " + kernel.name +
                                                 ": work_dim or __constant data lies outside the " +
                                                 std::to_string(out->bytes.size()) + "-byte argument buffer");
  if (local_exceeded)
    return refuse(ArgBufferError::kLocalMemory,
                  "kernel " + kernel.name + " needs more than " + std::to_string(kMaxLocalBytes) +
                      " bytes of __local memory (" + std::to_string(kernel.static_local_bytes) + " static)");
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
