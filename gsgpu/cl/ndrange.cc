// clEnqueueNDRangeKernel: work sizes checked against the device's caps, the kernel's code uploaded
// once, the argument buffer laid out per the compiler's ABI (gsgpu/compiler/compiler.h), then a
// DISPATCH packet (and a DUMP one when dumps are asked for) submitted through gsgpu/drv.
//
// A fault inside the kernel (watchdog, memory fault, ...) does not fail the enqueue: like a GPU
// driver, it is reported through the command's event (CL_OUT_OF_RESOURCES) and by the next
// clFinish on the queue; the device recovers by itself, so the context stays usable.
#include <algorithm>
#include <array>
#include <cstdio>

#include "common/checked_math.h"
#include "common/log.h"
#include "gsgpu/cl/entry_points.h"
#include "gsgpu/cl/image_args.h"
#include "gsgpu/cl/printf.h"
#include "gsgpu/compiler/arg_buffer.h"
#include "gsgpu/drv/packets.h"

namespace gsgpu::cl {
namespace {

using gsgpu::compiler::ArgBufferError;
using gsgpu::compiler::ArgKind;
using gsgpu::compiler::ArgumentBuffer;
using gsgpu::compiler::build_argument_buffer;
using gsgpu::compiler::CompiledKernel;
using gsgpu::compiler::KernelArgValue;

constexpr size_t kPreferredGroup = 256;

// The device runs at most max_work_items() work-items per dispatch (GSGPU_MAX_WORK_ITEMS, which
// with the watchdog bounds one dispatch's work). A larger NDRange runs as several dispatches, each
// a slab of whole groups along its last dimension at its own global offset, one after the other in
// the launch's submission: the work-items see the same global and local ids, local sizes and
// work_dim as in one dispatch. Group ids, group counts, global sizes and offsets would differ, so
// a kernel that reads them (CompiledKernel::reads_ndrange_shape) is refused as before. At most
// kMaxPieces dispatches: the guest's one call stays bounded.
constexpr uint64_t kMaxPieces = 64;

struct Range {
  cl_uint dim = 1;
  uint64_t offset[3] = {0, 0, 0};
  uint64_t global[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1};
  uint64_t items = 1;
  uint64_t groups_per_piece = 0;  // along the last dimension; 0: the NDRange is one dispatch
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
  r->items = items;
  if (items / kMaxPieces >= k->rt->max_work_items()) {
    log_once("clEnqueueNDRangeKernel", "NDRange of " + std::to_string(items) + " work-items exceeds " +
                                           std::to_string(kMaxPieces) + " dispatches of " +
                                           std::to_string(k->rt->max_work_items()));
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

// An NDRange over the per-dispatch limit: how many groups along its last dimension each dispatch
// takes (Range::groups_per_piece). CL_OUT_OF_RESOURCES when the kernel reads the NDRange's shape,
// when one slab of groups is already over the limit, or when it needs more than kMaxPieces.
cl_int plan_pieces(const Kernel* k, Range* r) {
  const uint64_t limit = k->rt->max_work_items();
  if (r->items <= limit) return CL_SUCCESS;
  const cl_uint d = r->dim - 1;
  const uint64_t slab = r->items / r->global[d] * r->local[d];  // the work-items of one group along d
  const uint64_t groups = r->global[d] / r->local[d];
  const uint64_t per_piece = limit / slab;
  const char* why = k->image->compiled.reads_ndrange_shape
                        ? "its kernel reads group ids, group counts, global sizes or offsets, which "
                          "several dispatches would change"
                    : per_piece == 0                              ? "one group slab is over the limit"
                    : (groups + per_piece - 1) / per_piece > kMaxPieces ? "it needs too many dispatches"
                                                                        : nullptr;
  if (why) {
    log_once("clEnqueueNDRangeKernel", "NDRange of " + std::to_string(r->items) + " work-items exceeds the limit of " +
                                           std::to_string(limit) + " per dispatch, and " + why);
    return CL_OUT_OF_RESOURCES;
  }
  r->groups_per_piece = per_piece;
  return CL_SUCCESS;
}

cl_int check_local(const Kernel* k, const size_t* local, Range* r) {
  const auto& reqd = k->image->compiled.reqd_work_group_size;
  const uint64_t limit = k->rt->max_work_group_size();
  uint64_t group = 1;
  for (cl_uint d = 0; d < r->dim; ++d) {
    // A zero-sized group divides nothing: CL_INVALID_WORK_GROUP_SIZE, as the remoting ICD answers.
    if (local[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
    if (local[d] > limit) return CL_INVALID_WORK_ITEM_SIZE;
    if (r->global[d] % local[d]) return CL_INVALID_WORK_GROUP_SIZE;
    if (reqd[0] && local[d] != std::max<uint32_t>(reqd[d], 1)) return CL_INVALID_WORK_GROUP_SIZE;
    r->local[d] = uint32_t(local[d]);
    group *= local[d];
  }
  return group > limit ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
}

// Local memory allocation granularity per work-group (bytes).
constexpr uint64_t kLocalGranule = 256;

// The spec lets the implementation choose when local_work_size is NULL: the largest divisors that
// keep a group at kPreferredGroup items or fewer (dimension 0 first, where lanes are adjacent).
cl_int choose_local(const Kernel* k, Range* r) {
  const auto& reqd = k->image->compiled.reqd_work_group_size;
  if (reqd[0]) {
    const size_t l[3] = {reqd[0], std::max<uint32_t>(reqd[1], 1), std::max<uint32_t>(reqd[2], 1)};
    return check_local(k, l, r);
  }
  size_t budget = std::min<uint64_t>(kPreferredGroup, k->rt->max_work_group_size());
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

// An image argument: its slot in the argument buffer gets the VA of this descriptor, which the
// launch places after the arguments (place_buffers).
struct ImagePatch {
  uint32_t slot = 0;  // offset of the 8-byte slot in the argument buffer
  std::array<uint8_t, kImageDescriptorBytes> descriptor{};
};

// An image argument's value at enqueue: the image must still be a live image of the kernel's
// context (it may have been released since clSetKernelArg). Its descriptor is captured now.
cl_int image_argument(const Kernel* k, const KernelArg& a, uint32_t slot, std::vector<drv::BoHandle>* bos,
                      std::vector<ImagePatch>* images) {
  auto* m = as<Mem>(a.mem, Kind::kMem);
  if (!m || !m->is_image() || m->context != k->program->context) return CL_INVALID_KERNEL_ARGS;
  bos->push_back(m->root_alloc().bo);
  ImagePatch patch;
  patch.slot = slot;
  write_image_descriptor(*m->image, m->va, patch.descriptor.data());
  images->push_back(patch);
  return CL_SUCCESS;
}

// The argument buffer (gsgpu::compiler::build_argument_buffer, the compiler's ABI) and the local
// memory a group is granted, the buffer objects the arguments point into and the image
// descriptors to place. CL_INVALID_KERNEL_ARGS when an argument is unset, names a released buffer
// or image or does not fit its slot; CL_OUT_OF_RESOURCES when the __local memory exceeds the device's.
cl_int build_arguments(const Kernel* k, const Range& r, std::vector<uint8_t>* buf, uint32_t* local_bytes,
                       std::vector<drv::BoHandle>* bos, std::vector<ImagePatch>* images) {
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
        bos->push_back(m->root_alloc().bo);
      }
      values[i].bytes.resize(sizeof va);
      std::memcpy(values[i].bytes.data(), &va, sizeof va);
    } else if (kind == ArgKind::kLocalPointer) {
      values[i].local_bytes = a.local_size;
    } else if (kind == ArgKind::kImage) {
      if (cl_int err = image_argument(k, a, ck.args[i].offset, bos, images); err != CL_SUCCESS) return err;
      values[i].bytes.assign(8, 0);  // the descriptor's VA, once it is placed
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
  const uint64_t granted = (uint64_t{laid_out.local_mem_size} + kLocalGranule - 1) / kLocalGranule * kLocalGranule;
  if (granted > k->rt->max_local_mem()) {
    log_once("clEnqueueNDRangeKernel", "__local memory of " + std::to_string(granted) +
                                           " bytes per group exceeds the device's " +
                                           std::to_string(k->rt->max_local_mem()));
    return CL_OUT_OF_RESOURCES;
  }
  *local_bytes = uint32_t(granted);
  *buf = std::move(laid_out.bytes);
  return CL_SUCCESS;
}

// Places the kernel's code in a buffer object (read + execute) the first time it runs.
cl_int upload_code(Runtime* rt, KernelImage* image) {
  if (image->code.size) return CL_SUCCESS;
  const auto& code = image->compiled.code;
  const uint64_t bytes = code.size() * 4;
  if (bytes == 0 || bytes > UINT32_MAX) return CL_OUT_OF_RESOURCES;
  std::string why;
  auto alloc = rt->allocate(bytes, drv::kVaRead | drv::kVaExecute, &why);
  if (!alloc) {
    log_once("clEnqueueNDRangeKernel", "cannot place kernel code: " + why);
    return CL_OUT_OF_RESOURCES;
  }
  std::memcpy(alloc->cpu, code.data(), bytes);
  image->code = *alloc;
  return CL_SUCCESS;
}

drv::DispatchPacket make_packet(const Kernel* k, const Range& r, uint64_t arg_va, uint32_t arg_size,
                               uint32_t local_bytes) {
  drv::DispatchPacket q;
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

// The launch's DISPATCH packets: one, or one per slab of Range::groups_per_piece groups along the
// last dimension, each starting at its first work-item's global offset.
void append_dispatches(std::vector<uint32_t>* packets, const Kernel* k, const Range& r, uint64_t arg_va,
                       uint32_t arg_size, uint32_t local_bytes) {
  drv::DispatchPacket q = make_packet(k, r, arg_va, arg_size, local_bytes);
  if (r.groups_per_piece == 0) {
    drv::append_dispatch(packets, q);
    return;
  }
  const cl_uint d = r.dim - 1;
  const uint64_t groups = r.global[d] / r.local[d];
  for (uint64_t first = 0; first < groups; first += r.groups_per_piece) {
    q.grid_size[d] = uint32_t(std::min(r.groups_per_piece, groups - first));
    q.global_offset[d] = r.offset[d] + first * r.local[d];  // within offset + global, checked
    drv::append_dispatch(packets, q);
  }
}

// The readable dump the device writes after a dispatch (DUMP packet, TO_BUFFER): the counters and
// disassembly fit; a longer one is cut at this size.
constexpr uint32_t kDumpBytes = 256 << 10;

// The buffer objects of one dispatch besides the kernel's buffers: arguments, printf records, dump.
struct DispatchBuffers {
  GpuAlloc args;
  PrintfDispatch printf_buffer;  // kernels that call printf: their buffer, printed after the dispatch
  GpuAlloc dump;                 // GSGPU_DUMP_DIR only
};

void free_buffers(Runtime* rt, DispatchBuffers* b) {
  rt->free(b->args);
  rt->free(b->dump);
  if (b->printf_buffer.buffer) rt->free(*b->printf_buffer.buffer);
}

// Per-dispatch figures for people debugging a kernel: a log line (GSVIRT_DEBUG=gsgpu) and the
// device's dump in GSGPU_DUMP_DIR (for a faulted dispatch, the fault: the device stops before the
// DUMP packet).
void report(const Kernel* k, const Range& r, const SubmitOutcome& out, const GpuAlloc& dump) {
  const auto& c = out.counters;
  const std::string& name = k->image->compiled.name;
  log_debug(kDebugGsgpu,
            "gsgpu runtime: %s global %llux%llux%llu local %ux%ux%u: %s, %llu cycles, %llu warp instructions, "
            "%llu lane instructions, %llu groups",
            name.c_str(), (unsigned long long)r.global[0], (unsigned long long)r.global[1],
            (unsigned long long)r.global[2], r.local[0], r.local[1], r.local[2], out.ok ? "ok" : out.fault.c_str(),
            (unsigned long long)c.cycles, (unsigned long long)c.instructions, (unsigned long long)c.lane_instructions,
            (unsigned long long)c.work_groups);
  const std::string& dir = k->rt->config().dump_dir;
  if (dir.empty() || !dump.size) return;
  static std::atomic<uint64_t> serial{0};
  const std::string path = dir + "/dispatch-" + std::to_string(++serial) + "-" + name + ".txt";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    log_once("GSGPU_DUMP_DIR", "cannot write " + path);
    return;
  }
  if (out.ok) {
    // Device-written text: only up to its terminator, never past the buffer.
    const auto* text = reinterpret_cast<const char*>(dump.cpu);
    std::fwrite(text, 1, strnlen(text, kDumpBytes), f);
  } else {
    std::fprintf(f, "gsgpu dispatch %s faulted: %s\n", name.c_str(), out.fault.c_str());
  }
  std::fclose(f);
}

// Places the dispatch's argument buffer (with the printf fields filled in for kernels that call
// printf) and its dump buffer. CL_OUT_OF_RESOURCES when memory is short.
cl_int place_buffers(Kernel* k, const std::vector<uint8_t>& args, const std::vector<ImagePatch>& images,
                     DispatchBuffers* b) {
  Runtime* rt = k->rt;
  if (cl_int err = printf_begin(rt, k->image->compiled, args, &b->printf_buffer); err != CL_SUCCESS) return err;
  const std::vector<uint8_t>& arg_bytes = b->printf_buffer.buffer ? b->printf_buffer.args : args;
  // Image descriptors follow the arguments in the same read-only piece (pieces start 256-aligned,
  // descriptors need 64).
  const uint64_t descriptors_at = (arg_bytes.size() + kImageDescriptorBytes - 1) / kImageDescriptorBytes *
                                  kImageDescriptorBytes;
  const uint64_t total = descriptors_at + images.size() * kImageDescriptorBytes;
  std::string why;
  auto arg_mem = rt->allocate_arguments(total, &why);
  if (!arg_mem) {
    log_once("clEnqueueNDRangeKernel", "cannot place the argument buffer: " + why);
    return CL_OUT_OF_RESOURCES;
  }
  // A pool piece holds an earlier launch's bytes: the kernel sees this launch's and zeros after.
  std::memcpy(arg_mem->cpu, arg_bytes.data(), arg_bytes.size());
  std::memset(arg_mem->cpu + arg_bytes.size(), 0, arg_mem->size - arg_bytes.size());
  for (size_t i = 0; i < images.size(); ++i) {
    const uint64_t at = descriptors_at + i * kImageDescriptorBytes;
    std::memcpy(arg_mem->cpu + at, images[i].descriptor.data(), kImageDescriptorBytes);
    const uint64_t va = arg_mem->va + at;
    std::memcpy(arg_mem->cpu + images[i].slot, &va, sizeof va);  // inside the arguments (build_arguments)
  }
  b->args = *arg_mem;
  if (!rt->config().dump_dir.empty()) {
    auto dump = rt->allocate(kDumpBytes, drv::kVaRead | drv::kVaWrite, &why);
    if (!dump) log_once("GSGPU_DUMP_DIR", "cannot place a dump buffer: " + why);
    if (dump) b->dump = *dump;
  }
  return CL_SUCCESS;
}

// What one launch needs when it is submitted, captured at enqueue (the spec: later clSetKernelArg
// calls do not change it).
struct LaunchArgs {
  Kernel* k = nullptr;
  Range r;
  std::vector<uint8_t> args;
  uint32_t local_bytes = 0;
  std::vector<drv::BoHandle> arg_bos;  // the objects the argument pointers point into
  std::vector<ImagePatch> images;      // image arguments' descriptors
  // Its bytes against the runtime's launch argument quota until the command goes (shared: the
  // launch function is copyable).
  std::shared_ptr<QuotaHold> quota;
};

// What a queued launch is charged: its argument bytes, the objects it names and a fixed share for
// its command, event and submission bookkeeping.
constexpr uint64_t kLaunchBookkeepingBytes = 512;

// Builds the launch's submission: its per-dispatch objects, DISPATCH (+ DUMP) and the objects they
// use; its retire step prints, dumps and frees, and gives the event's status.
cl_int build_submission(Queue* q, const LaunchArgs& a, Submission* sub) {
  Kernel* k = a.k;
  Runtime* rt = k->rt;
  auto b = std::make_shared<DispatchBuffers>();
  if (cl_int err = place_buffers(k, a.args, a.images, b.get()); err != CL_SUCCESS) {
    free_buffers(rt, b.get());
    return err;
  }
  append_dispatches(&sub->packets, k, a.r, b->args.va, uint32_t(b->args.size), a.local_bytes);
  sub->bos = a.arg_bos;
  sub->bos.push_back(k->image->code.bo);
  sub->bos.push_back(b->args.bo);
  if (b->printf_buffer.buffer) sub->bos.push_back(b->printf_buffer.buffer->bo);
  if (b->dump.size) {
    drv::append_dump(&sub->packets, drv::kDumpToBuffer, b->dump.va, kDumpBytes);
    sub->bos.push_back(b->dump.bo);
  }
  sub->retire = [q, k, r = a.r, b](const SubmitOutcome& out) {
    printf_end(k->rt, *k->image, &b->printf_buffer);
    report(k, r, out, b->dump);
    free_buffers(k->rt, b.get());
    if (out.ok) return CL_COMPLETE;
    log_error("gsgpu runtime: kernel %s faulted: %s", k->image->compiled.name.c_str(), out.fault.c_str());
    if (q->pending_error == CL_SUCCESS) q->pending_error = CL_OUT_OF_RESOURCES;
    return CL_OUT_OF_RESOURCES;
  };
  return CL_SUCCESS;
}

cl_int prepare(Kernel* k, cl_uint dim, const size_t* offset, const size_t* global, const size_t* local, Range* r) {
  if (dim < 1 || dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global) return CL_INVALID_GLOBAL_WORK_SIZE;
  cl_int err = check_global(k, dim, offset, global, r);
  if (err == CL_SUCCESS) err = local ? check_local(k, local, r) : choose_local(k, r);
  if (err == CL_SUCCESS) err = check_grid(*r);
  if (err == CL_SUCCESS) err = plan_pieces(k, r);
  if (err == CL_SUCCESS && k->image->compiled.private_bytes > k->rt->max_private_mem()) err = CL_OUT_OF_RESOURCES;
  return err;
}

// OpenCL 2.1 and later: an NDRange with a global size of 0 in some dimension runs nothing; the
// command still waits for its wait list and completes its event, like a marker. Its arguments
// must still all be set.
cl_int enqueue_empty_range(Queue* q, const Kernel* k, cl_uint n, const cl_event* waits, cl_event* event) {
  for (const KernelArg& arg : k->args)
    if (!arg.set) return CL_INVALID_KERNEL_ARGS;
  CommandDesc desc;
  desc.type = CL_COMMAND_NDRANGE_KERNEL;
  desc.work = [](uint64_t*) { return CL_COMPLETE; };
  return enqueue(q, std::move(desc), n, waits, event);
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
  if (dim >= 1 && dim <= 3 && global && std::find(global, global + dim, size_t(0)) != global + dim)
    return enqueue_empty_range(q, k, n, waits, event);
  LaunchArgs a;
  a.k = k;
  cl_int err = prepare(k, dim, offset, global, local, &a.r);
  if (err == CL_SUCCESS) err = build_arguments(k, a.r, &a.args, &a.local_bytes, &a.arg_bos, &a.images);
  if (err == CL_SUCCESS) err = upload_code(q->rt, k->image);
  if (err != CL_SUCCESS) return err;
  a.quota = std::make_shared<QuotaHold>(q->rt->launch_arg_quota);
  if (!a.quota->resize(a.args.size() + a.arg_bos.size() * sizeof(drv::BoHandle) +
                           a.images.size() * sizeof(ImagePatch) + kLaunchBookkeepingBytes,
                       "clEnqueueNDRangeKernel"))
    return CL_OUT_OF_HOST_MEMORY;
  CommandDesc desc;
  desc.type = CL_COMMAND_NDRANGE_KERNEL;
  // The command keeps the kernel and its buffers alive until it completes (their VAs are in the
  // arguments, their objects in the submission).
  desc.keep = {k};
  for (const KernelArg& arg : k->args)
    if (arg.mem) desc.keep.push_back(as<Mem>(arg.mem, Kind::kMem));
  desc.launch = [q, a = std::move(a)](Submission* sub) { return build_submission(q, a, sub); };
  return enqueue(q, std::move(desc), n, waits, event);
}

cl_int CL_API_CALL gsgpu_clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint n, const cl_event* waits,
                                       cl_event* event) {
  const size_t one = 1;
  return gsgpu_clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, n, waits, event);
}

}  // namespace gsgpu::cl
