// printf for gsgpu kernels (docs/gsgpu-executor.md "printf"): a per-dispatch printf buffer for
// kernels that call printf (its layout: gsgpu/compiler/arg_buffer.h), and after the dispatch the
// records parsed — as untrusted data — and printed to the host process's stdout.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/cl/runtime.h"

namespace gsgpu::cl {

// CL_DEVICE_PRINTF_BUFFER_SIZE: the bytes of records one dispatch can hold.
constexpr uint32_t kPrintfBufferSize = 1u << 20;

// A kernel's printf formats parsed into literal text and conversions checked against their
// recorded arguments (printf.cc), with the sizes its records must have and its %s literals: built
// once per kernel when its program is built (KernelImage::printf_table), used for every record.
std::shared_ptr<const PrintfFormatTable> parse_printf_formats(const gsgpu::compiler::CompiledKernel& kernel);

// Formats the records of one printf buffer: `records` are the bytes after the header, cut to
// min(cursor, capacity). Appends the text to *out. A record that is inconsistent (unknown format
// id, wrong size, running past the end, a string index out of range) stops the parsing and is
// described in *problem; a conversion that does not match its argument is printed as its text and
// noted in *problem too. Returns the number of records formatted.
size_t format_printf_records(const PrintfFormatTable& table, std::span<const uint8_t> records, std::string* out,
                             std::string* problem);

// Where printf text goes: the process's stdout unless a test redirects it (nullptr: stdout).
void set_printf_output(FILE* out);

// The printf buffer of one dispatch.
struct PrintfDispatch {
  std::optional<GpuAlloc> buffer;
  std::vector<uint8_t> args;  // the argument buffer with the printf fields filled in
};

// Before a dispatch: for a kernel that calls printf, places a zeroed buffer and fills in the
// argument buffer's printf fields (d->args); nothing for other kernels. CL_OUT_OF_RESOURCES when
// device memory is short.
cl_int printf_begin(Runtime* rt, const gsgpu::compiler::CompiledKernel& kernel, const std::vector<uint8_t>& args,
                    PrintfDispatch* d);
// After it (completed or faulted): prints the records in buffer order (through the kernel's
// printf_table), flushes, frees the buffer.
void printf_end(Runtime* rt, const KernelImage& image, PrintfDispatch* d);

}  // namespace gsgpu::cl
