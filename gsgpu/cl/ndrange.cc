// clEnqueueNDRangeKernel: work sizes checked, the kernel's code uploaded once, the argument buffer
// laid out per the compiler's ABI (gsgpu/compiler/compiler.h), then DISPATCH + SYNC on the ring.
//
// A fault inside the kernel (watchdog, memory fault, ...) does not fail the enqueue: like a GPU
// driver, it is reported through the command's event (CL_OUT_OF_RESOURCES) and by the next
// clFinish on the queue, and the device is recovered so the context stays usable.
#include <cstdio>

#include "common/checked_math.h"
#include "common/log.h"
#include "gsgpu/compiler/arg_buffer.h"
#include "gsgpu/emu/shader/shader_core.h"
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/printf.h"

namespace gsgpu::cl {
namespace {

using gsgpu::compiler::ArgBufferError;
using gsgpu::compiler::ArgKind;
using gsgpu::compiler::ArgumentBuffer;
using gsgpu::compiler::build_argument_buffer;
using gsgpu::compiler::CompiledKernel;
using gsgpu::compiler::KernelArgValue;

constexpr size_t kPreferredGroup = 256;

struct Range {
  cl_uint dim = 1;
  uint64_t offset[3] = {0, 0, 0};
  uint64_t global[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1};
};

size_t largest_divisor_at_most(uint64_t n, size_t limit) {
  for (size_t d = std::min<uint64_t>(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

cl_int check_global(const Kernel* k, cl_uint dim, const size_t* offset, const size_t* global, Range* r) {
  r->dim = dim;
  uint64_t items = 1;
  for (cl_uint d = 0; d < dim; ++d) {
    if (global[d] == 0) return CL_INVALID_GLOBAL_WORK_SIZE;
    r->global[d] = global[d];
    r->offset[d] = offset ? offset[d] : 0;
    if (!checked_add<uint64_t>(r->offset[d], r->global[d])) return CL_INVALID_GLOBAL_OFFSET;
    auto next = checked_mul<uint64_t>(items, r->global[d]);
    if (!next) return CL_INVALID_GLOBAL_WORK_SIZE;
    items = *next;
  }
  if (items > k->rt->config().max_work_items) {
    log_once("clEnqueueNDRangeKernel", "NDRange of " + std::to_string(items) + " work-items exceeds the limit of " +
                                           std::to_string(k->rt->config().max_work_items));
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

cl_int check_local(const Kernel* k, const size_t* local, Range* r) {
  const auto& reqd = k->image->compiled.reqd_work_group_size;
  uint64_t group = 1;
  for (cl_uint d = 0; d < r->dim; ++d) {
    if (local[d] == 0 || local[d] > gsgpu::kMaxWorkGroupSize) return CL_INVALID_WORK_ITEM_SIZE;
    if (r->global[d] % local[d]) return CL_INVALID_WORK_GROUP_SIZE;
    if (reqd[0] && local[d] != std::max<uint32_t>(reqd[d], 1)) return CL_INVALID_WORK_GROUP_SIZE;
    r->local[d] = uint32_t(local[d]);
    group *= local[d];
  }
  return group > gsgpu::kMaxWorkGroupSize ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
}

// Local memory allocation granularity per work-group (bytes).
constexpr uint64_t kLocalGranule = 256;
static_assert(gsgpu::kMaxLocalMemSize % kLocalGranule == 0, "rounding up to a granule stays within the maximum");
static_assert(gsgpu::compiler::kMaxLocalBytes == gsgpu::kMaxLocalMemSize,
              "the argument buffer refuses local memory beyond the device's");

// The spec lets the implementation choose when local_work_size is NULL: the largest divisors that
// keep a group at kPreferredGroup items or fewer (dimension 0 first, where lanes are adjacent).
cl_int choose_local(const Kernel* k, Range* r) {
  const auto& reqd = k->image->compiled.reqd_work_group_size;
  if (reqd[0]) {
    const size_t l[3] = {reqd[0], std::max<uint32_t>(reqd[1], 1), std::max<uint32_t>(reqd[2], 1)};
    return check_local(k, l, r);
  }
  size_t budget = kPreferredGroup;
  for (cl_uint d = 0; d < r->dim; ++d) {
    r->local[d] = uint32_t(largest_divisor_at_most(r->global[d], budget));
    budget /= r->local[d];
  }
  return CL_SUCCESS;
}

cl_int check_grid(const Range& r) {
  for (cl_uint d = 0; d < 3; ++d)
    if (r.global[d] / r.local[d] > UINT32_MAX) return CL_INVALID_GLOBAL_WORK_SIZE;
  return CL_SUCCESS;
}

// The argument buffer (gsgpu::compiler::build_argument_buffer, the compiler's ABI) and the local
// memory a group is granted. CL_INVALID_KERNEL_ARGS when an argument is unset, names a released
// buffer or does not fit its slot; CL_OUT_OF_RESOURCES when the __local memory exceeds the device's.
cl_int build_arguments(const Kernel* k, const Range& r, std::vector<uint8_t>* buf, uint32_t* local_bytes) {
  const CompiledKernel& ck = k->image->compiled;
  if (k->args.size() != ck.args.size()) return CL_INVALID_KERNEL_ARGS;
  std::vector<KernelArgValue> values(ck.args.size());
  for (size_t i = 0; i < ck.args.size(); ++i) {
    const ArgKind kind = ck.args[i].kind;
    const KernelArg& a = k->args[i];
    if (!a.set) return CL_INVALID_KERNEL_ARGS;
    if (kind == ArgKind::kGlobalPointer || kind == ArgKind::kConstantPointer) {
      uint64_t va = 0;
      if (a.mem) {
        auto* m = as<Mem>(a.mem, Kind::kMem);
        // Released since clSetKernelArg (its address may even hold another context's buffer now).
        if (!m || m->context != k->program->context) return CL_INVALID_KERNEL_ARGS;
        va = m->va;
      }
      values[i].bytes.resize(sizeof va);
      std::memcpy(values[i].bytes.data(), &va, sizeof va);
    } else if (kind == ArgKind::kLocalPointer) {
      values[i].local_bytes = a.local_size;
    } else {
      values[i].bytes = a.bytes;
    }
  }
  ArgumentBuffer laid_out;
  std::string why;
  ArgBufferError refusal = ArgBufferError::kNone;
  if (!build_argument_buffer(ck, values, r.dim, &laid_out, &why, &refusal)) {
    log_once("clEnqueueNDRangeKernel", why);
    return refusal == ArgBufferError::kLocalMemory ? CL_OUT_OF_RESOURCES : CL_INVALID_KERNEL_ARGS;
  }
  // A group's local memory is granted in whole granules, as GPUs allocate LDS: an access past the
  // last argument but inside the group's granule does not fault (PoCL does not check such accesses
  // either; piglit's atomic_int64_cmpxchg-local relies on it), one past the granule does.
  *local_bytes = uint32_t((uint64_t{laid_out.local_mem_size} + kLocalGranule - 1) / kLocalGranule * kLocalGranule);
  *buf = std::move(laid_out.bytes);
  return CL_SUCCESS;
}

// Places the kernel's code in VRAM (read + execute) the first time it runs.
cl_int upload_code(Runtime* rt, KernelImage* image) {
  if (image->code.mapped) return CL_SUCCESS;
  const auto& code = image->compiled.code;
  const uint64_t bytes = code.size() * 4;
  if (bytes == 0 || bytes > UINT32_MAX) return CL_OUT_OF_RESOURCES;
  std::string why;
  auto range = rt->allocate(bytes, gsgpu::kPermRead | gsgpu::kPermExecute, &why);
  if (!range) {
    log_once("clEnqueueNDRangeKernel", "cannot place kernel code: " + why);
    return CL_OUT_OF_RESOURCES;
  }
  rt->write(range->va, code.data(), bytes);
  image->code = *range;
  return CL_SUCCESS;
}

gsgpu::DispatchRequest make_request(const Kernel* k, const Range& r, uint64_t arg_va, uint32_t arg_size,
                                    uint32_t local_bytes) {
  gsgpu::DispatchRequest q;
  q.code_va = k->image->code.va;
  q.code_size = uint32_t(k->image->compiled.code.size() * 4);
  q.arg_va = arg_va;
  q.arg_size = arg_size;
  for (int d = 0; d < 3; ++d) {
    q.grid_size[d] = uint32_t(r.global[d] / r.local[d]);
    q.group_size[d] = r.local[d];
    q.global_offset[d] = r.offset[d];
  }
  q.local_mem_size = local_bytes;
  q.private_mem_size = k->image->compiled.private_bytes;
  return q;
}

// Per-dispatch figures for people debugging a kernel: a log line (GSVIRT_DEBUG=gsgpu) and the
// device's full dump in GSGPU_DUMP_DIR.
void report(const Kernel* k, const Range& r, const DispatchOutcome& out) {
  const auto& c = out.counters;
  const std::string& name = k->image->compiled.name;
  log_debug(kDebugGsgpu,
            "gsgpu executor: %s global %llux%llux%llu local %ux%ux%u: %s, %llu cycles, %llu warp instructions, "
            "%llu lane instructions, %llu groups",
            name.c_str(), (unsigned long long)r.global[0], (unsigned long long)r.global[1],
            (unsigned long long)r.global[2], r.local[0], r.local[1], r.local[2], out.ok ? "ok" : out.fault.c_str(),
            (unsigned long long)c.cycles, (unsigned long long)c.instructions_issued,
            (unsigned long long)c.active_lane_instructions, (unsigned long long)c.work_groups);
  const std::string& dir = k->rt->config().dump_dir;
  if (dir.empty()) return;
  static std::atomic<uint64_t> serial{0};
  const std::string path = dir + "/dispatch-" + std::to_string(++serial) + "-" + name + ".txt";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    const std::string text = k->rt->last_dispatch_dump();
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  } else {
    log_once("GSGPU_DUMP_DIR", "cannot write " + path);
  }
}

// Runs the dispatch; the status the command's event gets.
cl_int run(Kernel* k, const Range& r, const std::vector<uint8_t>& args, uint32_t local_bytes, uint64_t* cycles) {
  Runtime* rt = k->rt;
  std::string why;
  PrintfDispatch printf_buffer;  // kernels that call printf: their buffer, printed after the dispatch
  if (cl_int err = printf_begin(rt, k->image->compiled, args, &printf_buffer); err != CL_SUCCESS) return err;
  const std::vector<uint8_t>& arg_bytes = printf_buffer.buffer ? printf_buffer.args : args;
  auto arg_mem = rt->allocate(arg_bytes.size(), gsgpu::kPermRead, &why);
  if (!arg_mem) {
    log_once("clEnqueueNDRangeKernel", "cannot place the argument buffer: " + why);
    printf_end(rt, *k->image, &printf_buffer);
    return CL_OUT_OF_RESOURCES;
  }
  rt->write(arg_mem->va, arg_bytes.data(), arg_bytes.size());
  DispatchOutcome out = rt->dispatch(make_request(k, r, arg_mem->va, uint32_t(arg_bytes.size()), local_bytes));
  rt->free(*arg_mem);
  printf_end(rt, *k->image, &printf_buffer);
  *cycles = out.counters.cycles;
  report(k, r, out);
  if (out.ok) return CL_COMPLETE;
  log_error("gsgpu executor: kernel %s faulted: %s", k->image->compiled.name.c_str(), out.fault.c_str());
  return CL_OUT_OF_RESOURCES;
}

cl_int prepare(Kernel* k, cl_uint dim, const size_t* offset, const size_t* global, const size_t* local, Range* r) {
  if (dim < 1 || dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global) return CL_INVALID_GLOBAL_WORK_SIZE;
  cl_int err = check_global(k, dim, offset, global, r);
  if (err == CL_SUCCESS) err = local ? check_local(k, local, r) : choose_local(k, r);
  if (err == CL_SUCCESS) err = check_grid(*r);
  if (err == CL_SUCCESS && k->image->compiled.private_bytes > gsgpu::kMaxPrivateMemSize) err = CL_OUT_OF_RESOURCES;
  return err;
}

}  // namespace

cl_int CL_API_CALL gsgpu_clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                                                const size_t* offset, const size_t* global, const size_t* local,
                                                cl_uint n, const cl_event* waits, cl_event* event) {
  auto* q = as<Queue>(queue, Kind::kQueue);
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  auto* k = as<Kernel>(kernel, Kind::kKernel);
  if (!k) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  std::lock_guard lock(q->rt->mutex);
  Range r;
  cl_int err = prepare(k, dim, offset, global, local, &r);
  // The arguments are captured now (the spec): later clSetKernelArg calls do not change this launch.
  std::vector<uint8_t> args;
  uint32_t local_bytes = 0;
  if (err == CL_SUCCESS) err = build_arguments(k, r, &args, &local_bytes);
  if (err == CL_SUCCESS) err = upload_code(q->rt, k->image);
  if (err != CL_SUCCESS) return err;
  // A deferred launch keeps the kernel and its buffers alive (their VAs are in `args`).
  std::vector<Object*> keep = {k};
  for (const KernelArg& a : k->args)
    if (a.mem) keep.push_back(as<Mem>(a.mem, Kind::kMem));
  auto work = [q, k, r, args = std::move(args), local_bytes](uint64_t* cycles) {
    const cl_int status = run(k, r, args, local_bytes, cycles);
    if (status < 0 && q->pending_error == CL_SUCCESS) q->pending_error = status;
    return status;
  };
  return submit(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, true, std::move(keep), std::move(work), event);
}

cl_int CL_API_CALL gsgpu_clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint n, const cl_event* waits,
                                       cl_event* event) {
  const size_t one = 1;
  return gsgpu_clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, n, waits, event);
}

}  // namespace gsgpu::cl
