// libFuzzer target: vcomp on the REAL gsgpu executor (gsgpu/cl on the emulated device), driven by
// structured object-lifecycle sequences. Where fuzz_vcomp_decoder checks the decoder against a fake
// executor, this target checks what a hostile guest can do to the host through whole OpenCL jobs:
// contexts, queues, buffers and sub-buffers, programs from a small fixed kernel set, kernels,
// arguments, launches, transfers, user events and releases, in the order, with the ids and with the
// sizes the fuzzer picks. Kernels really run on the emulated device, so guest-chosen indices reach
// the device's memory checks.
//
// Input format (tests/fuzz/vcomp_gsgpu/README.md): byte 0 = 0xff submits the rest as a raw vcomp
// stream after a fixed prelude (ids 1..7: device, context, queue, program of every kernel built,
// three 4 KiB buffers), which is how protocol/vcomp/gen_vcomp_seeds.py's well-formed streams are
// replayed here. Otherwise the input is a list of operations: one byte picks the operation (low 5
// bits) and whether the batch built so far is submitted now with a reply (bit 7); the operation's
// operands follow (ids are one byte: small numbers shared by every object type, so reuse, wrong
// types and dangling ids come naturally). An input that runs out reads zeros.
//
// Each input gets a fresh VcompContext; the executor (one emulated device) lives for the process,
// as in a vtest server process. The device is small and its watchdog short so that one input stays
// in the millisecond range.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "host/vcomp/gsgpu_executor.h"
#include "tests/host/vcomp/vcomp_harness.h"

using namespace gsvirt;
using namespace gsvirt::vcomp;

namespace {

// The fixed kernel set: each source is one program; kKernelNames lists every name a guest may ask
// for (one is not in any program).
constexpr std::array<std::string_view, 5> kSources = {
    R"(__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
})",
    // A guest-chosen index: the device, not the host, must stop a write past the buffer.
    R"(__kernel void scatter(__global int* p, int index, int value) {
  p[index + (int)get_global_id(0)] = value;
})",
    R"(__kernel void local_sum(__global const int* in, __global int* out, __local int* scratch) {
  size_t l = get_local_id(0), n = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  for (size_t s = n / 2; s > 0; s /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < s) scratch[l] += scratch[l + s];
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
})",
    // Endless unless the guest says otherwise: the watchdog ends it.
    R"(__kernel void spin(__global volatile int* p, __constant int* limit) {
  for (int i = 0; p[0] == 0 && i != limit[0]; ++i) p[1] = i;
})",
    R"(__kernel void copy2d(__global const uchar* src, __global uchar* dst, uint pitch) {
  size_t x = get_global_id(0), y = get_global_id(1);
  dst[y * pitch + x] = src[y * pitch + x] ^ (uchar)get_global_id(2);
}
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
  c[get_global_id(0)] = a[get_global_id(0)] * b[get_global_id(0)];
})",
};
constexpr std::array<std::string_view, 7> kKernelNames = {"vadd", "scatter", "local_sum", "spin",
                                                          "copy2d", "missing", ""};
constexpr std::array<std::string_view, 4> kBuildOptions = {"", "-cl-opt-disable", "-DUNUSED=1",
                                                           "-cl-std=CL3.0"};
constexpr std::array<cl_mem_flags, 6> kMemFlags = {
    CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS,
    CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, CL_MEM_USE_HOST_PTR};

constexpr uint32_t kReplyResource = 1;
constexpr uint32_t kStagingResource = 2;
constexpr size_t kReplyBytes = 8192;
constexpr size_t kStagingBytes = 64 << 10;

// Reads operands front to back; zeros once the input is exhausted.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool done() const { return p_ == end_; }
  uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
  uint16_t u16() { return uint16_t(u8() | u8() << 8); }
  uint32_t u32() { return uint32_t(u16()) | uint32_t(u16()) << 16; }
  // An object id: mostly 0..31 (0 = none), sometimes one no guest would use.
  uint64_t id() {
    uint8_t b = u8();
    if (b < 0xf0) return b & 31;
    return b == 0xff ? ~uint64_t{0} : uint64_t{1} << (b & 15) << 32;
  }
  // A size or offset: small (0..64 KiB) unless bit 31 asks for a wild one.
  uint64_t size() {
    uint32_t v = u32();
    return v >> 31 ? (uint64_t{v} << 32 | v) : (v & 0x1ffff);
  }
  // Up to `max` bytes taken from the input (its length is one byte).
  std::string_view bytes(size_t max) {
    size_t n = std::min<size_t>({u8(), max, size_t(end_ - p_)});
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// A raw stream less the commands that create or build programs: each new source or option string
// would run clang (a second or more), and the compiler has its own target (fuzz_spirv). Framing
// is left to the decoder: the walk stops at the first header that does not fit, and the rest goes
// through as it is.
std::vector<uint8_t> without_program_builds(const uint8_t* data, size_t size) {
  std::vector<uint8_t> out;
  size_t pos = 0;
  while (size - pos >= 12) {
    uint32_t id, dwords;
    std::memcpy(&id, data + pos, 4);
    std::memcpy(&dwords, data + pos + 4, 4);
    if (dwords < 3 || dwords > (size - pos) / 4) break;
    const size_t bytes = size_t(dwords) * 4;
    const auto cmd = proto::CommandId(id);
    const bool builds = cmd == proto::CommandId::clCreateProgramWithSource ||
                        cmd == proto::CommandId::clCreateProgramWithIL ||
                        cmd == proto::CommandId::clCreateProgramWithBinary ||
                        cmd == proto::CommandId::clBuildProgram || cmd == proto::CommandId::clCompileProgram ||
                        cmd == proto::CommandId::clLinkProgram;
    if (!builds) out.insert(out.end(), data + pos, data + pos + bytes);
    pos += bytes;
  }
  out.insert(out.end(), data + pos, data + size);
  return out;
}

// Triage of a finding: GSVIRT_FUZZ_LOG=1 keeps the log and traces every reply.
bool verbose() {
  static const bool on = std::getenv("GSVIRT_FUZZ_LOG") != nullptr;
  return on;
}

Executor* executor() {
  static Executor* e = [] {
    if (!verbose()) set_log_sink([](const char*, void*) {}, nullptr);
    GsgpuExecutorConfig config;
    config.shader_cores = 1;
    config.vram_mb = 16;
    config.watchdog_budget = 20000;
    config.max_work_items = 1024;
    std::string error;
    Executor* made = make_gsgpu_executor(config, &error).release();
    if (!made) __builtin_trap();  // no device: nothing to fuzz
    return made;
  }();
  return e;
}

class Session {
 public:
  Session() : reply_(kReplyBytes), staging_(kStagingBytes), ctx_(1, executor()) {
    ctx_.attach_resource(testing::make_resource(kReplyResource, reply_));
    ctx_.attach_resource(testing::make_resource(kStagingResource, staging_));
    proto::encode_vcSetReplyBuffer(w_, false, kReplyResource, 0, kReplyBytes);
    flush();
  }

  void flush() {
    if (!batch_.empty()) ctx_.submit_cmd(batch_.data(), batch_.size());
    if (verbose() && !batch_.empty()) trace_reply();
    batch_.clear();
  }
  void raw(const uint8_t* data, size_t size) {
    flush();
    std::vector<uint8_t> stream = without_program_builds(data, size);
    ctx_.submit_cmd(stream.data(), stream.size());
  }
  void prelude();
  void run(Input& in);

 private:
  using Op = void (Session::*)(Input&, bool);
  void get_device(Input& in, bool reply);
  void create_context(Input& in, bool reply);
  void create_queue(Input& in, bool reply);
  void create_buffer(Input& in, bool reply);
  void create_sub_buffer(Input& in, bool reply);
  void create_program(Input& in, bool reply);
  void build_program(Input& in, bool reply);
  void create_kernel(Input& in, bool reply);
  void create_kernels(Input& in, bool reply);
  void set_arg(Input& in, bool reply);
  void launch(Input& in, bool reply);
  void read_buffer(Input& in, bool reply);
  void write_buffer(Input& in, bool reply);
  void copy_buffer(Input& in, bool reply);
  void fill_buffer(Input& in, bool reply);
  void rect_transfer(Input& in, bool reply);
  void finish(Input& in, bool reply);
  void marker(Input& in, bool reply);
  void user_event(Input& in, bool reply);
  void set_event_status(Input& in, bool reply);
  void wait(Input& in, bool reply);
  void destroy(Input& in, bool reply);
  void kernel_query(Input& in, bool reply);
  void object_query(Input& in, bool reply);
  void migrate(Input& in, bool reply);

  // A wait list of 0..3 ids.
  std::vector<uint64_t> wait_list(Input& in) {
    std::vector<uint64_t> ids(in.u8() & 3);
    for (auto& id : ids) id = in.id();
    return ids;
  }
  // Where a read lands: inline in the reply, or a range of the staging resource (maybe past it).
  proto::DataOut data_out(Input& in, uint64_t size) {
    uint8_t mode = in.u8();
    if (mode & 1) return {proto::kDataInline, size};
    return {proto::kDataResource, size, mode & 2 ? kReplyResource : kStagingResource, in.size()};
  }
  // Bytes in: inline from the input (as many as it has: the command's own size may claim more),
  // or a range of the staging resource (maybe past it).
  proto::DataIn data_in(Input& in, uint64_t size) {
    if (in.u8() & 1) {
      std::string_view bytes = in.bytes(255);
      return {proto::kDataInline, bytes.data(), bytes.size()};
    }
    return {proto::kDataResource, nullptr, size, kStagingResource, in.size()};
  }

  // Triage (GSVIRT_FUZZ_LOG): the last reply's seqno, result and deferred error.
  void trace_reply() const {
    proto::ReplyHeader h;
    std::memcpy(&h, reply_.data(), sizeof h);
    int32_t result = 0;
    if (h.payload_size >= 4) std::memcpy(&result, reply_.data() + sizeof h, 4);
    std::fprintf(stderr, "reply %u: result %d, deferred %d (command %u)%s\n", h.seqno, result, h.deferred_status,
                 h.deferred_command, ctx_.fatal() ? ", context fatal" : "");
  }

  static const std::array<Op, 25> kOps;

  std::vector<uint8_t> reply_;
  std::vector<uint8_t> staging_;
  VcompContext ctx_;
  std::vector<uint8_t> batch_;
  WireWriter w_{batch_};
};

const std::array<Session::Op, 25> Session::kOps = {
    &Session::get_device,    &Session::create_context,   &Session::create_queue,  &Session::create_buffer,
    &Session::create_sub_buffer, &Session::create_program, &Session::build_program, &Session::create_kernel,
    &Session::create_kernels, &Session::set_arg,         &Session::launch,        &Session::read_buffer,
    &Session::write_buffer,  &Session::copy_buffer,      &Session::fill_buffer,   &Session::rect_transfer,
    &Session::finish,        &Session::marker,           &Session::user_event,    &Session::set_event_status,
    &Session::wait,          &Session::destroy,          &Session::kernel_query,  &Session::object_query,
    &Session::migrate,
};

void Session::run(Input& in) {
  while (!in.done()) {
    uint8_t op = in.u8();
    bool reply = op & 0x80;
    (this->*kOps[(op & 31) % kOps.size()])(in, reply);
    if (reply) flush();
  }
  flush();
}

// Ids 1..7 as a raw stream expects them: device, context, queue, program (every kernel of source
// 0 built), three 4 KiB buffers.
void Session::prelude() {
  const uint64_t device = 1, context = 2, queue = 3, program = 4;
  proto::encode_clGetDeviceIDs(w_, false, CL_DEVICE_TYPE_ALL, &device, 1);
  proto::encode_clCreateContext(w_, false, context, nullptr, 0, &device, 1);
  proto::encode_clCreateCommandQueue(w_, false, queue, context, device, 0);
  proto::encode_clCreateProgramWithSource(w_, false, program, context, kSources[0]);
  proto::encode_clBuildProgram(w_, false, program, &device, 1, "");
  for (uint64_t buffer = 5; buffer <= 7; ++buffer)
    proto::encode_clCreateBuffer(w_, false, buffer, context, CL_MEM_READ_WRITE, 4096, {});
  flush();
}

void Session::get_device(Input& in, bool reply) {
  uint64_t ids[2] = {in.id(), in.id()};
  cl_device_type type = in.u8() & 1 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
  proto::encode_clGetDeviceIDs(w_, reply, type, ids, 1 + (in.u8() & 1));
}

void Session::create_context(Input& in, bool reply) {
  uint64_t context = in.id();
  uint64_t devices[2] = {in.id(), in.id()};
  proto::encode_clCreateContext(w_, reply, context, nullptr, 0, devices, in.u8() % 3);
}

void Session::create_queue(Input& in, bool reply) {
  uint64_t queue = in.id(), context = in.id(), device = in.id();
  static constexpr cl_command_queue_properties kProps[4] = {
      0, CL_QUEUE_PROFILING_ENABLE, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0x1000};
  proto::encode_clCreateCommandQueue(w_, reply, queue, context, device, kProps[in.u8() & 3]);
}

void Session::create_buffer(Input& in, bool reply) {
  uint64_t buffer = in.id(), context = in.id();
  cl_mem_flags flags = kMemFlags[in.u8() % kMemFlags.size()];
  uint64_t size = in.size();
  proto::DataIn init{};
  if (in.u8() & 1) {
    flags |= CL_MEM_COPY_HOST_PTR;
    init = data_in(in, size);
  }
  proto::encode_clCreateBuffer(w_, reply, buffer, context, flags, size, init);
}

void Session::create_sub_buffer(Input& in, bool reply) {
  uint64_t sub = in.id(), parent = in.id();
  cl_mem_flags flags = kMemFlags[in.u8() % 4];
  uint32_t type = in.u8() & 1 ? CL_BUFFER_CREATE_TYPE_REGION : 0;
  uint64_t origin = in.size(), size = in.size();
  proto::encode_clCreateSubBuffer(w_, reply, sub, parent, flags, type, origin, size);
}

void Session::create_program(Input& in, bool reply) {
  uint64_t program = in.id(), context = in.id();
  proto::encode_clCreateProgramWithSource(w_, reply, program, context, kSources[in.u8() % kSources.size()]);
}

void Session::build_program(Input& in, bool reply) {
  uint64_t program = in.id(), device = in.id();
  uint8_t how = in.u8();
  proto::encode_clBuildProgram(w_, reply, program, &device, how & 1, kBuildOptions[(how >> 1) % kBuildOptions.size()]);
}

void Session::create_kernel(Input& in, bool reply) {
  uint64_t kernel = in.id(), program = in.id();
  proto::encode_clCreateKernel(w_, reply, kernel, program, kKernelNames[in.u8() % kKernelNames.size()]);
}

void Session::create_kernels(Input& in, bool reply) {
  uint64_t program = in.id();
  uint64_t ids[3] = {in.id(), in.id(), in.id()};
  proto::encode_clCreateKernelsInProgram(w_, reply, program, ids, in.u8() % 4);
}

void Session::set_arg(Input& in, bool reply) {
  uint64_t kernel = in.id();
  uint8_t index_kind = in.u8();
  uint64_t object = in.id();
  // Mostly the size the kind wants (8 for a handle, 4 for the scalars); sometimes anything.
  uint8_t size_pick = in.u8();
  uint64_t size = size_pick < 0xc0 ? (index_kind >> 4 & 3) == 3 ? 4 * (size_pick + 1) : (size_pick & 1 ? 8 : 4)
                                   : in.size();
  std::string_view value = in.bytes(16);
  proto::encode_clSetKernelArg(w_, reply, kernel, index_kind & 7, index_kind >> 4 & 3, size, object, value.data(),
                               value.size());
}

void Session::launch(Input& in, bool reply) {
  uint64_t queue = in.id(), kernel = in.id();
  uint8_t shape = in.u8();
  uint32_t dims = 1 + (shape & 3);  // 4 is one too many
  uint64_t offset[4], global[4], local[4];
  for (uint32_t d = 0; d < 4; ++d) {
    offset[d] = in.u8() & 0x80 ? in.size() : 0;
    global[d] = 1 + in.u8();
    local[d] = 1u << (in.u8() & 7);
  }
  std::vector<uint64_t> waits = wait_list(in);
  uint64_t event = in.id();
  proto::encode_clEnqueueNDRangeKernel(w_, reply, queue, kernel, dims, offset, shape & 4 ? dims : 0, global, dims,
                                       local, shape & 8 ? dims : 0, waits.data(), waits.size(), event);
}

void Session::read_buffer(Input& in, bool reply) {
  uint64_t queue = in.id(), buffer = in.id(), offset = in.size(), size = in.size();
  std::vector<uint64_t> waits = wait_list(in);
  uint64_t event = in.id();
  // A read always carries a reply: the bytes come back with it.
  proto::encode_clEnqueueReadBuffer(w_, true, queue, buffer, offset, size, waits.data(), waits.size(), event,
                                    data_out(in, size));
  flush();
}

void Session::write_buffer(Input& in, bool reply) {
  uint64_t queue = in.id(), buffer = in.id(), offset = in.size(), size = in.size();
  uint32_t blocking = in.u8() & 1;
  proto::DataIn src = data_in(in, size);
  std::vector<uint64_t> waits = wait_list(in);
  uint64_t event = in.id();
  proto::encode_clEnqueueWriteBuffer(w_, reply, queue, buffer, blocking, offset, size, src, waits.data(),
                                     waits.size(), event);
}

void Session::copy_buffer(Input& in, bool reply) {
  uint64_t queue = in.id(), src = in.id(), dst = in.id();
  uint64_t src_offset = in.size(), dst_offset = in.size(), size = in.size();
  std::vector<uint64_t> waits = wait_list(in);
  proto::encode_clEnqueueCopyBuffer(w_, reply, queue, src, dst, src_offset, dst_offset, size, waits.data(),
                                    waits.size(), in.id());
}

void Session::fill_buffer(Input& in, bool reply) {
  uint64_t queue = in.id(), buffer = in.id();
  std::string_view pattern = in.bytes(160);
  uint64_t offset = in.size(), size = in.size();
  std::vector<uint64_t> waits = wait_list(in);
  proto::encode_clEnqueueFillBuffer(w_, reply, queue, buffer, pattern.data(), pattern.size(), offset, size,
                                    waits.data(), waits.size(), in.id());
}

// Read, write or copy of a 3-D region; pitches and origins are fuzzer-chosen.
void Session::rect_transfer(Input& in, bool reply) {
  uint64_t queue = in.id(), a = in.id(), b = in.id();
  uint8_t which = in.u8();
  uint64_t origin_a[3], origin_b[3], region[3], pitch[4];
  for (int i = 0; i < 3; ++i) {
    origin_a[i] = in.u8();
    origin_b[i] = in.u8();
    region[i] = in.u8() & 0x80 ? in.size() : in.u8();
  }
  for (auto& p : pitch) p = in.u8() & 1 ? in.size() : 0;
  std::vector<uint64_t> waits = wait_list(in);
  uint64_t event = in.id();
  if (which % 3 == 0) {
    proto::encode_clEnqueueReadBufferRect(w_, true, queue, a, origin_a, 3, region, 3, pitch[0], pitch[1],
                                          waits.data(), waits.size(), event,
                                          data_out(in, region[0] * region[1] * region[2]));
    flush();
  } else if (which % 3 == 1) {
    proto::DataIn src = data_in(in, region[0] * region[1] * region[2]);
    proto::encode_clEnqueueWriteBufferRect(w_, reply, queue, a, which >> 7, origin_a, 3, region, 3, pitch[0],
                                           pitch[1], src, waits.data(), waits.size(), event);
  } else {
    proto::encode_clEnqueueCopyBufferRect(w_, reply, queue, a, b, origin_a, 3, origin_b, 3, region, 3, pitch[0],
                                          pitch[1], pitch[2], pitch[3], waits.data(), waits.size(), event);
  }
}

void Session::finish(Input& in, bool reply) {
  uint64_t queue = in.id();
  if (in.u8() & 1)
    proto::encode_clFlush(w_, reply, queue);
  else
    proto::encode_clFinish(w_, reply, queue);
}

void Session::marker(Input& in, bool reply) {
  uint64_t queue = in.id();
  uint8_t which = in.u8();
  std::vector<uint64_t> waits = wait_list(in);
  uint64_t event = in.id();
  if (which & 1)
    proto::encode_clEnqueueBarrierWithWaitList(w_, reply, queue, waits.data(), waits.size(), event);
  else
    proto::encode_clEnqueueMarkerWithWaitList(w_, reply, queue, waits.data(), waits.size(), event);
}

void Session::user_event(Input& in, bool reply) {
  uint64_t event = in.id(), context = in.id();
  proto::encode_clCreateUserEvent(w_, reply, event, context);
}

void Session::set_event_status(Input& in, bool reply) {
  uint64_t event = in.id();
  uint8_t status = in.u8();
  proto::encode_clSetUserEventStatus(w_, reply, event, status < 0x80 ? CL_COMPLETE : -int32_t(status & 0x7f));
}

void Session::wait(Input& in, bool reply) {
  std::vector<uint64_t> events = wait_list(in);
  proto::encode_clWaitForEvents(w_, reply, events.data(), events.size());
}

void Session::destroy(Input& in, bool reply) { proto::encode_vcDestroyObject(w_, reply, in.id()); }

// Kernel, work-group and argument queries with a parameter from the OpenCL ranges or anything.
void Session::kernel_query(Input& in, bool reply) {
  uint64_t kernel = in.id(), device = in.id();
  uint8_t which = in.u8();
  uint32_t param = in.u8() & 0x80 ? in.u32() : 0x1190 + (in.u8() & 0x3f);
  proto::DataOut out{proto::kDataInline, uint64_t(in.u8())};
  if (which % 3 == 0) {
    proto::encode_clGetKernelInfo(w_, true, kernel, param, out);
  } else if (which % 3 == 1) {
    proto::encode_clGetKernelWorkGroupInfo(w_, true, kernel, device, param - 0x1190 + 0x11b0, out);
  } else {
    proto::encode_clGetKernelArgInfo(w_, true, kernel, which >> 4, param - 0x1190 + 0x1196, out);
  }
  flush();
}

// Info queries on memory objects, programs, queues and events.
void Session::object_query(Input& in, bool reply) {
  uint64_t object = in.id(), device = in.id();
  uint8_t which = in.u8();
  uint32_t low = in.u8() & 0x1f;
  proto::DataOut out = data_out(in, in.u8());
  switch (which % 6) {
    case 0: proto::encode_clGetMemObjectInfo(w_, true, object, 0x1100 + low, out); break;
    case 1: proto::encode_clGetProgramInfo(w_, true, object, 0x1160 + low, out); break;
    case 2: proto::encode_clGetProgramBuildInfo(w_, true, object, device, 0x1181 + low, out); break;
    case 3: proto::encode_clGetCommandQueueInfo(w_, true, object, 0x1090 + low, out); break;
    case 4: proto::encode_clGetEventInfo(w_, true, object, 0x11d0 + low, out); break;
    default: proto::encode_clGetEventProfilingInfo(w_, true, object, 0x1280 + low, out); break;
  }
  flush();
}

void Session::migrate(Input& in, bool reply) {
  uint64_t queue = in.id();
  std::vector<uint64_t> mems = wait_list(in);
  uint64_t flags = in.u8() & 3;
  std::vector<uint64_t> waits = wait_list(in);
  proto::encode_clEnqueueMigrateMemObjects(w_, reply, queue, mems.data(), mems.size(), flags, waits.data(),
                                           waits.size(), in.id());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  executor();
  Session session;
  if (size > 0 && data[0] == 0xff) {
    session.prelude();
    session.raw(data + 1, size - 1);
    return 0;
  }
  Input in(data, size);
  session.run(in);
  return 0;
}
