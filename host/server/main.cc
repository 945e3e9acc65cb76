// gsvirt-server: the vtest-protocol server. See docs/transports.md and docs/security.md.
#include <getopt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/log.h"
#include "gsgpu/compiler/frontend.h"
#include "host/capi/builtin_capsets.h"
#include "host/server/vtest_server.h"

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: gsvirt-server [--socket PATH] [--ready-fd N] [--no-fork] [--once] [limits]\n"
               "  --socket PATH   unix socket to listen on (default: $GSVIRT_VTEST_SOCKET, else\n"
               "                  /tmp/gsvirt-vtest.sock)\n"
               "  --ready-fd N    write one byte to fd N and close it once clients can connect\n"
               "  --no-fork       serve clients one after another in this process (no sandbox)\n"
               "  --once          exit after the first client disconnects\n"
               "  --trusted-guest allow the host executor on CPU OpenCL devices (guest kernels then\n"
               "                  run as native code in the client process; sets GSVIRT_TRUSTED_GUEST)\n"
               "limits (fork mode unless noted; 0 = no limit where a limit is optional):\n"
               "  --max-clients N            client processes at once (default 256)\n"
               "  --max-clients-per-user N   of those, from one user id (default 64)\n"
               "  --memory-budget-mib N      memory of all client processes together (default: the\n"
               "                             host's physical memory)\n"
               "  --client-grace-ms N        kill a client process this long after its client\n"
               "                             left (default 2000)\n"
               "  --client-cpu-seconds N     CPU time of one client process (default 3600)\n"
               "  --client-memory-mib N      data memory of one client process (default: the host's\n"
               "                             physical memory)\n"
               "  --client-file-mib N        largest file (and so blob) of one client process\n"
               "                             (default 1024)\n"
               "  --handshake-timeout-ms N   connect to PROTOCOL_VERSION, both modes (default 10000)\n"
               "  --no-sandbox               client processes keep the server's privileges\n"
               "SIGTERM or SIGINT: stop, remove the socket, end every client process.\n");
}

// A decimal number in [min, max], or -1.
long long parse_number(const char* text, long long min, long long max) {
  char* end = nullptr;
  long long n = std::strtoll(text, &end, 10);
  if (!*text || *end || n < min || n > max) return -1;
  return n;
}

enum Option : int {
  kReadyFd = 'r', kMaxClients = 'm', kMaxPerUser = 1000, kMemoryBudget, kGrace, kCpuSeconds,
  kClientMemory, kClientFile, kHandshakeTimeout, kNoSandbox, kTrustedGuest
};

// Applies a numeric option; false (after a message) when its value is out of range.
bool apply_number(int option, const char* name, const char* text,
                  gsvirt::server::ServerOptions& o) {
  struct Range { long long min, max; };
  Range range = option == kReadyFd ? Range{0, 65535} : option == kMaxClients ? Range{1, 65536}
              : option == kMaxPerUser ? Range{1, 65536} : Range{0, 1ll << 40};
  long long n = parse_number(text, range.min, range.max);
  if (n < 0) {
    std::fprintf(stderr, "gsvirt-server: --%s: \"%s\" is not %lld..%lld\n", name, text, range.min,
                 range.max);
    return false;
  }
  switch (option) {
    case kReadyFd: o.ready_fd = int(n); break;
    case kMaxClients: o.admission.max_clients = size_t(n); break;
    case kMaxPerUser: o.admission.max_clients_per_uid = size_t(n); break;
    case kMemoryBudget: o.admission.memory_budget_bytes = uint64_t(n) << 20; break;
    case kGrace: o.admission.client_grace_ms = int(std::min(n, 1ll << 30)); break;
    case kCpuSeconds: o.sandbox.cpu_seconds = uint64_t(n); break;
    case kClientMemory: o.sandbox.memory_bytes = uint64_t(n) << 20; break;
    case kClientFile: o.sandbox.file_bytes = uint64_t(n) << 20; break;
    case kHandshakeTimeout: o.handshake_timeout_ms = int(std::min(n, 1ll << 30)); break;
  }
  return true;
}

// The host executor preprocesses every program with clang-14 before the vendor compiles it: without
// clang every build from source fails, so the operator hears it once, here, not from each client.
void warn_if_the_host_executor_cannot_build() {
  const char* executor = std::getenv("GSVIRT_EXECUTOR");
  if (!executor || std::strcmp(executor, "host") != 0 || !gsgpu::compiler::find_clang().empty()) return;
  gsvirt::log_error("gsvirt-server: %s",
                    gsgpu::compiler::clang_missing_message(
                        "the host executor (GSVIRT_EXECUTOR=host) preprocesses every program with it, so every "
                        "clBuildProgram from source will fail until it is installed")
                        .c_str());
}

}  // namespace

int main(int argc, char** argv) {
  gsvirt::server::ServerOptions options;
  static const option long_options[] = {
      {"socket", required_argument, nullptr, 's'},
      {"ready-fd", required_argument, nullptr, kReadyFd},
      {"no-fork", no_argument, nullptr, 'n'},
      {"once", no_argument, nullptr, 'o'},
      {"max-clients", required_argument, nullptr, kMaxClients},
      {"max-clients-per-user", required_argument, nullptr, kMaxPerUser},
      {"memory-budget-mib", required_argument, nullptr, kMemoryBudget},
      {"client-grace-ms", required_argument, nullptr, kGrace},
      {"client-cpu-seconds", required_argument, nullptr, kCpuSeconds},
      {"client-memory-mib", required_argument, nullptr, kClientMemory},
      {"client-file-mib", required_argument, nullptr, kClientFile},
      {"handshake-timeout-ms", required_argument, nullptr, kHandshakeTimeout},
      {"no-sandbox", no_argument, nullptr, kNoSandbox},
      {"trusted-guest", no_argument, nullptr, kTrustedGuest},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0}};
  int index = 0;
  for (int c; (c = getopt_long(argc, argv, "s:r:nom:h", long_options, &index)) != -1;) {
    switch (c) {
      case 's': options.socket_path = optarg; break;
      case 'n': options.fork_per_client = false; break;
      case 'o': options.once = true; break;
      case kNoSandbox: options.sandbox.enabled = false; break;
      case kTrustedGuest: setenv("GSVIRT_TRUSTED_GUEST", "1", 1); break;
      case 'h': usage(stdout); return 0;
      case kReadyFd: case kMaxClients: case kMaxPerUser: case kMemoryBudget: case kGrace:
      case kCpuSeconds: case kClientMemory: case kClientFile: case kHandshakeTimeout: {
        // getopt_long sets `index` only for long options; the short forms name theirs here.
        const char* name = c == kReadyFd ? "ready-fd" : c == kMaxClients ? "max-clients"
                                                                          : long_options[index].name;
        if (!apply_number(c, name, optarg, options)) return 2;
        break;
      }
      default: usage(stderr); return 2;
    }
  }
  if (optind != argc) {
    usage(stderr);
    return 2;
  }
  gsvirt::renderer::register_builtin_capsets();
  warn_if_the_host_executor_cannot_build();
  return gsvirt::server::run_server(options);
}
