// gsgpu-run: run one gsgpu assembly kernel on an emulated gsgpu device, the way a driver would.
//
// It assembles the kernel, creates a device, maps code, argument and data buffers through the MMU,
// loads inputs from files, writes DISPATCH + SYNC (+ DUMP) packets into a ring, rings the doorbell,
// waits for the fence, writes outputs to files and prints the dispatch counters.
// Usage and examples: docs/emulator.md, or `gsgpu-run --help`.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gsgpu/emu/device.h"
#include "gsgpu/emu/packets.h"
#include "gsgpu/isa/assembler.h"

namespace {

using gsgpu::Device;

constexpr const char* kUsage = R"(usage: gsgpu-run KERNEL.s [options]

Assembles KERNEL.s (gsgpu assembly), runs it on an emulated gsgpu and prints the counters.

  --grid X[,Y[,Z]]        work-groups per dimension (default 1,1,1)
  --group X[,Y[,Z]]       work-items per work-group (default 1,1,1)
  --offset X[,Y[,Z]]      global id offset (default 0,0,0)
  --in NAME=FILE          buffer NAME initialised with FILE's bytes
  --out NAME=FILE[:SIZE]  write buffer NAME to FILE after the run; SIZE creates a zeroed buffer
                          of SIZE bytes (omit it when NAME is also an --in buffer)
  --zero NAME:SIZE        zero-filled buffer that is not written out
  --arg KIND:VALUE        append to the argument buffer: u32/i32/f32/u64/i64 values, or buf:NAME
                          (the buffer's 64-bit GPU address). Without any --arg the argument
                          buffer holds the addresses of all buffers in the order declared.
  --local BYTES           local memory per work-group
  --private BYTES         private memory per work-item
  --entry BYTES           entry offset inside the code (default 0)
  --budget N              watchdog: instruction budget per warp (WATCHDOG_BUDGET)
  --cores N --warp W --threads T --vram MIB   device configuration (4, 32, 0 = auto, 256)
  --dump                  print the DUMP text of the dispatch (packet, state, counters, disassembly)
  --help

Exit status: 0 success, 1 the device reported a fault, 2 bad usage or input.
)";

struct BufferSpec {
  std::string name;
  std::string in_file;   // empty: zero-filled
  std::string out_file;  // empty: not written out
  uint64_t size = 0;
  uint64_t va = 0;
};

struct ArgSpec {
  std::string kind;
  std::string value;
};

struct Options {
  std::string kernel_path;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t group[3] = {1, 1, 1};
  uint64_t offset[3] = {0, 0, 0};
  std::vector<BufferSpec> buffers;
  std::vector<ArgSpec> args;
  uint32_t local_mem = 0, private_mem = 0, entry = 0;
  std::optional<uint32_t> budget;
  gsgpu::DeviceConfig device;
  bool dump = false;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "gsgpu-run: %s\n(see gsgpu-run --help)\n", message.c_str());
  std::exit(2);
}

uint64_t parse_number(const std::string& text, const char* what) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    usage_error(std::string(what) + ": '" + text + "' is not a non-negative number");
  return v;
}

template <typename T>
void parse_triple(const std::string& text, T out[3], const char* what) {
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i == 3) usage_error(std::string(what) + ": more than 3 dimensions in '" + text + "'");
    uint64_t v = parse_number(part, what);
    if (v > std::numeric_limits<T>::max()) usage_error(std::string(what) + ": " + part + " is too large");
    out[i++] = T(v);
  }
  if (i == 0) usage_error(std::string(what) + ": empty");
}

BufferSpec* find_buffer(Options& o, const std::string& name) {
  for (BufferSpec& b : o.buffers)
    if (b.name == name) return &b;
  return nullptr;
}

BufferSpec& buffer_named(Options& o, const std::string& name) {
  if (name.empty()) usage_error("empty buffer name");
  if (BufferSpec* b = find_buffer(o, name)) return *b;
  o.buffers.push_back(BufferSpec{name, "", "", 0, 0});
  return o.buffers.back();
}

std::pair<std::string, std::string> split_at(const std::string& text, char sep, const char* what) {
  size_t at = text.find(sep);
  if (at == std::string::npos) usage_error(std::string(what) + ": expected '" + sep + "' in '" + text + "'");
  return {text.substr(0, at), text.substr(at + 1)};
}

void parse_out(Options& o, const std::string& text) {
  auto [name, rest] = split_at(text, '=', "--out");
  BufferSpec& b = buffer_named(o, name);
  size_t colon = rest.rfind(':');
  if (colon != std::string::npos) {
    b.size = parse_number(rest.substr(colon + 1), "--out size");
    rest = rest.substr(0, colon);
  }
  b.out_file = rest;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.device.vram_size = uint64_t{256} << 20;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) usage_error(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--grid") {
      parse_triple(value(), o.grid, "--grid");
    } else if (a == "--group") {
      parse_triple(value(), o.group, "--group");
    } else if (a == "--offset") {
      parse_triple(value(), o.offset, "--offset");
    } else if (a == "--in") {
      auto [name, file] = split_at(value(), '=', "--in");
      buffer_named(o, name).in_file = file;
    } else if (a == "--out") {
      parse_out(o, value());
    } else if (a == "--zero") {
      auto [name, size] = split_at(value(), ':', "--zero");
      buffer_named(o, name).size = parse_number(size, "--zero size");
    } else if (a == "--arg") {
      auto [kind, v] = split_at(value(), ':', "--arg");
      o.args.push_back(ArgSpec{kind, v});
    } else if (a == "--local") {
      o.local_mem = uint32_t(parse_number(value(), "--local"));
    } else if (a == "--private") {
      o.private_mem = uint32_t(parse_number(value(), "--private"));
    } else if (a == "--entry") {
      o.entry = uint32_t(parse_number(value(), "--entry"));
    } else if (a == "--budget") {
      o.budget = uint32_t(parse_number(value(), "--budget"));
    } else if (a == "--cores") {
      o.device.shader_cores = uint32_t(parse_number(value(), "--cores"));
    } else if (a == "--warp") {
      o.device.warp_width = uint32_t(parse_number(value(), "--warp"));
    } else if (a == "--threads") {
      o.device.host_threads = uint32_t(parse_number(value(), "--threads"));
    } else if (a == "--vram") {
      o.device.vram_size = parse_number(value(), "--vram") << 20;
    } else if (a == "--dump") {
      o.dump = true;
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option " + a);
    } else if (o.kernel_path.empty()) {
      o.kernel_path = a;
    } else {
      usage_error("more than one kernel file: " + o.kernel_path + " and " + a);
    }
  }
  if (o.kernel_path.empty()) usage_error("no kernel file");
  o.device.name = "gsgpu-run";
  o.device.cp_mode = gsgpu::CpMode::kManual;  // deterministic: the ring runs on this thread
  return o;
}

std::optional<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

bool write_file(const std::string& path, const std::vector<uint8_t>& data) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  return bool(f);
}

void fail(const std::string& message) {
  std::fprintf(stderr, "gsgpu-run: %s\n", message.c_str());
  std::exit(2);
}

uint64_t create_buffer(Device& d, uint64_t size, uint32_t perms, const std::string& what) {
  std::string error;
  auto va = d.create_buffer(size, perms, &error);
  if (!va) fail(what + ": " + error);
  return *va;
}

void place_buffers(Device& d, Options& o) {
  for (BufferSpec& b : o.buffers) {
    std::vector<uint8_t> contents;
    if (!b.in_file.empty()) {
      auto data = read_file(b.in_file);
      if (!data) fail("buffer " + b.name + ": cannot read " + b.in_file + ": " + std::strerror(errno));
      contents = std::move(*data);
      if (b.size == 0) b.size = contents.size();
    }
    if (b.size == 0) fail("buffer " + b.name + ": size unknown or 0 (give --in FILE or --out NAME=FILE:SIZE)");
    if (contents.size() > b.size) contents.resize(b.size);
    b.va = create_buffer(d, b.size, gsgpu::kPermReadWrite, "buffer " + b.name);
    if (!contents.empty() && !d.mmu().write(b.va, contents.data(), contents.size()))
      fail("buffer " + b.name + ": could not write its contents");
  }
}

template <typename T>
void append_value(std::vector<uint8_t>* out, T v) {
  // Natural alignment, as a C struct of kernel arguments would have.
  while (out->size() % sizeof(T)) out->push_back(0);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), p, p + sizeof(T));
}

std::vector<uint8_t> build_arguments(Options& o) {
  std::vector<uint8_t> out;
  if (o.args.empty()) {
    for (const BufferSpec& b : o.buffers) append_value<uint64_t>(&out, b.va);
    return out;
  }
  for (const ArgSpec& a : o.args) {
    if (a.kind == "buf") {
      BufferSpec* b = find_buffer(o, a.value);
      if (!b) usage_error("--arg buf:" + a.value + ": no such buffer");
      append_value<uint64_t>(&out, b->va);
    } else if (a.kind == "u32") {
      append_value<uint32_t>(&out, uint32_t(parse_number(a.value, "--arg u32")));
    } else if (a.kind == "i32") {
      append_value<int32_t>(&out, int32_t(std::strtol(a.value.c_str(), nullptr, 0)));
    } else if (a.kind == "u64") {
      append_value<uint64_t>(&out, parse_number(a.value, "--arg u64"));
    } else if (a.kind == "i64") {
      append_value<int64_t>(&out, int64_t(std::strtoll(a.value.c_str(), nullptr, 0)));
    } else if (a.kind == "f32") {
      append_value<float>(&out, std::strtof(a.value.c_str(), nullptr));
    } else {
      usage_error("--arg kind '" + a.kind + "' (expected u32, i32, f32, u64, i64 or buf)");
    }
  }
  return out;
}

void print_counters(const Device& d, const gsgpu::DispatchRecord& r) {
  const gsgpu::DispatchCounterValues& c = r.outcome.counters;
  std::printf("instructions_issued       %" PRIu64 "\n", c.instructions_issued);
  std::printf("active_lane_instructions  %" PRIu64 "\n", c.active_lane_instructions);
  std::printf("cycles                    %" PRIu64 "\n", c.cycles);
  std::printf("work_groups               %" PRIu64 "\n", c.work_groups);
  std::printf("faults                    %u\n", c.faults);
  std::printf("cp_packets                %" PRIu64 "\n", d.cp_counters().packets);
  std::printf("host_seconds              %.6f\n", r.host_seconds);
  if (r.host_seconds > 0)
    std::printf("lane_instructions_per_s   %.3e\n", double(c.active_lane_instructions) / r.host_seconds);
}

int report_fault(gsgpu::CpState state, const std::optional<gsgpu::CpFault>& fault) {
  std::fprintf(stderr, "gsgpu-run: the command processor is %s", gsgpu::cp_state_name(state));
  if (fault) std::fprintf(stderr, ": %s: %s", gsgpu::cp_fault_cause_name(fault->cause), fault->message.c_str());
  std::fprintf(stderr, "\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  auto source = read_file(o.kernel_path);
  if (!source) fail("cannot read " + o.kernel_path + ": " + std::strerror(errno));
  std::vector<uint32_t> code;
  std::string error;
  if (!gsgpu::isa::assemble(std::string_view(reinterpret_cast<const char*>(source->data()), source->size()), &code,
                            &error))
    fail(o.kernel_path + ": " + error);
  if (code.empty()) fail(o.kernel_path + ": no instructions");

  std::unique_ptr<Device> device = Device::create(o.device, &error);
  if (!device) fail(error);
  Device& d = *device;
  if (o.budget) d.write_register(gsgpu::hw::reg::WATCHDOG_BUDGET, *o.budget);

  const uint64_t code_bytes = code.size() * 4;
  const uint64_t code_va = create_buffer(d, code_bytes, gsgpu::kPermRead | gsgpu::kPermExecute, "code");
  d.mmu().write(code_va, code.data(), code_bytes);
  place_buffers(d, o);
  std::vector<uint8_t> arguments = build_arguments(o);
  const uint64_t arg_va = create_buffer(d, std::max<uint64_t>(arguments.size(), 4), gsgpu::kPermRead, "arguments");
  d.mmu().write(arg_va, arguments.data(), arguments.size());
  const uint64_t fence_va = create_buffer(d, 8, gsgpu::kPermReadWrite, "fence");
  const uint64_t ring_va = create_buffer(d, 4096, gsgpu::kPermRead, "ring");

  gsgpu::DispatchRequest q;
  q.code_va = code_va;
  q.code_size = uint32_t(code_bytes);
  q.entry_offset = o.entry;
  q.arg_va = arg_va;
  q.arg_size = uint32_t(arguments.size());
  for (int i = 0; i < 3; ++i) {
    q.grid_size[i] = o.grid[i];
    q.group_size[i] = o.group[i];
    q.global_offset[i] = o.offset[i];
  }
  q.local_mem_size = o.local_mem;
  q.private_mem_size = o.private_mem;

  std::string dump;
  d.set_dump_sink([&](std::string_view text) { dump = std::string(text); });
  gsgpu::RingWriter ring(d, ring_va, 4096);
  namespace SYNC = gsgpu::hw::pkt::SYNC;
  constexpr uint64_t kFenceValue = 1;
  bool ok = ring.write(gsgpu::make_dispatch_packet(q), &error) &&
            ring.write(gsgpu::make_sync_packet(SYNC::FLAGS_WRITE_FENCE_MASK | SYNC::FLAGS_FENCE_64BIT_MASK, fence_va,
                                               kFenceValue),
                       &error);
  if (!ok) fail("ring: " + error);
  ring.kick();
  d.run_until_idle();
  const gsgpu::CpState state = d.cp_state();
  const std::optional<gsgpu::CpFault> fault = d.cp_fault();
  if (o.dump) {
    // The DUMP packet also works after a faulted dispatch once the CP is reset; the text is the same.
    if (d.cp_state() != gsgpu::CpState::kIdle)
      d.write_register(gsgpu::hw::reg::CP_CONTROL, gsgpu::hw::field::CP_CONTROL::RESET_MASK);
    gsgpu::RingWriter dump_ring(d, ring_va, 4096);
    dump_ring.write(gsgpu::make_dump_packet(gsgpu::hw::pkt::DUMP::FLAGS_TO_HOST_MASK, 0, 0));
    dump_ring.kick();
    d.run_until_idle();
    std::fputs(dump.c_str(), stdout);
  }

  auto record = d.last_dispatch();
  uint64_t fence = 0;
  d.mmu().read(fence_va, &fence, sizeof fence);
  if (record) print_counters(d, *record);
  if (fence != kFenceValue) return report_fault(state, fault);

  for (const BufferSpec& b : o.buffers) {
    if (b.out_file.empty()) continue;
    std::vector<uint8_t> data(b.size);
    if (!d.mmu().read(b.va, data.data(), data.size()) || !write_file(b.out_file, data))
      fail("buffer " + b.name + ": cannot write " + b.out_file);
  }
  return 0;
}
