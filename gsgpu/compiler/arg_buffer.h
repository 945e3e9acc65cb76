// Building a kernel's argument buffer as the ABI in compiler.h lays it out, so that the executor
// and the tests marshal arguments the same way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/compiler/compiler.h"

namespace gsgpu::compiler {

// One argument as clSetKernelArg gives it: bytes (a 64-bit GPU VA for buffers, the value for
// scalars, vectors and structs) or, for a __local pointer, the size to reserve.
//
// Sizes: pointers, images and samplers take exactly 8 bytes; a by-value argument (scalar, vector
// or struct) takes exactly its slot's ArgInfo::size, except that a 4-byte slot also takes 1..3
// bytes, zero-extended. The ABI widens every value narrower than 4 bytes (char, short, char2, a
// struct of two or three chars) to a 4-byte slot, while the application gives clSetKernelArg
// sizeof of the OpenCL type; a wider slot (long, int2, a 6-byte struct) only ever holds a type of
// its own size, so a shorter value there is a size error, not a narrow value.
struct KernelArgValue {
  std::vector<uint8_t> bytes;
  uint32_t local_bytes = 0;  // > 0: a __local argument of this size
};

struct ArgumentBuffer {
  std::vector<uint8_t> bytes;       // to be placed at DispatchParams::arg_va
  uint32_t local_mem_size = 0;      // static __local + __local arguments, at most kMaxLocalBytes
};

// The local memory one work-group may have (the device's limit, gsgpu::kMaxLocalMemSize).
constexpr uint32_t kMaxLocalBytes = 1u << 20;

// Why build_argument_buffer refused. The two differ for an OpenCL implementation: a value that does
// not fit its argument is the application's error (CL_INVALID_KERNEL_ARGS), local memory beyond
// the device's is a resource the launch cannot have (CL_OUT_OF_RESOURCES).
enum class ArgBufferError : uint8_t {
  kNone,
  kArgument,     // count, size, a __local size/value on the wrong kind, a slot outside the buffer
  kLocalMemory,  // every value fits, but static __local + __local arguments exceed kMaxLocalBytes
};

// printf (docs/compiler.md "printf"). A kernel with CompiledKernel::uses_printf() reads, at
// printf_buffer_offset of its argument buffer, the printf buffer's GPU VA (uint64) and, at +8, the
// bytes its records may take (uint32 capacity). The buffer (read/write, capacity +
// kPrintfHeaderBytes long) starts with a uint64 cursor, zero before the dispatch, that each printf
// call advances atomically by its record's size; the records follow the header. A record, 4-byte
// aligned: uint32 format id (index into printf_formats), uint32 record size (the table's
// record_bytes), then each argument's elements in 4-byte slots (8 for 64-bit values, low word
// first; %s: uint32 index into printf_strings). A call whose record does not fit below the
// capacity writes nothing and returns -1; the cursor still advances, so the records written are
// those in [header, header + min(cursor, capacity)).
constexpr uint32_t kPrintfHeaderBytes = 8;
constexpr uint32_t kPrintfArgFieldBytes = 16;

// Writes the printf fields into an argument buffer built for `kernel` (false when the kernel does
// not use printf or the buffer is too short).
bool set_printf_buffer(const CompiledKernel& kernel, uint64_t va, uint32_t capacity, std::span<uint8_t> arg_bytes);

// Lays out `args` (one per ArgInfo), work_dim and the constant data. False, with *error naming the
// argument and what is wrong and *why (when given) saying which kind of refusal it is, when the
// values do not fit the kernel. Every write is bounds-checked against the argument buffer and the
// local-memory sum cannot overflow, so a corrupt CompiledKernel is refused rather than trusted;
// argument errors are reported before the local-memory limit.
bool build_argument_buffer(const CompiledKernel& kernel, std::span<const KernelArgValue> args, uint32_t work_dim,
                           ArgumentBuffer* out, std::string* error, ArgBufferError* why = nullptr);

}  // namespace gsgpu::compiler
