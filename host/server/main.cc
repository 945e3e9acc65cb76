// gsvirt-server: the vtest-protocol server. See docs/transports.md.
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "host/renderer/builtin_capsets.h"
#include "host/server/vtest_server.h"

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: gsvirt-server [--socket PATH] [--ready-fd N] [--no-fork] [--once]\n"
               "                     [--max-clients N]\n"
               "  --socket PATH   unix socket to listen on (default: $GSVIRT_VTEST_SOCKET, else\n"
               "                  /tmp/gsvirt-vtest.sock)\n"
               "  --ready-fd N    write one byte to fd N and close it once clients can connect\n"
               "  --no-fork       serve clients one after another in this process\n"
               "  --once          exit after the first client disconnects\n"
               "  --max-clients N client processes at once (default 256); more are refused\n"
               "SIGTERM or SIGINT: stop, remove the socket, end every client process.\n");
}

// A decimal number in [min, max], or -1.
long parse_number(const char* text, long min, long max) {
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (!*text || *end || n < min || n > max) return -1;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  gsvirt::server::ServerOptions options;
  static const option long_options[] = {
      {"socket", required_argument, nullptr, 's'}, {"ready-fd", required_argument, nullptr, 'r'},
      {"no-fork", no_argument, nullptr, 'n'},      {"once", no_argument, nullptr, 'o'},
      {"max-clients", required_argument, nullptr, 'm'},
      {"help", no_argument, nullptr, 'h'},         {nullptr, 0, nullptr, 0}};
  for (int c; (c = getopt_long(argc, argv, "s:r:nom:h", long_options, nullptr)) != -1;) {
    switch (c) {
      case 's': options.socket_path = optarg; break;
      case 'r': {
        long fd = parse_number(optarg, 0, 65535);
        if (fd < 0) {
          std::fprintf(stderr, "gsvirt-server: --ready-fd: \"%s\" is not an fd number\n", optarg);
          return 2;
        }
        options.ready_fd = int(fd);
        break;
      }
      case 'm': {
        long n = parse_number(optarg, 1, 65536);
        if (n < 0) {
          std::fprintf(stderr, "gsvirt-server: --max-clients: \"%s\" is not 1..65536\n", optarg);
          return 2;
        }
        options.max_clients = size_t(n);
        break;
      }
      case 'n': options.fork_per_client = false; break;
      case 'o': options.once = true; break;
      case 'h': usage(stdout); return 0;
      default: usage(stderr); return 2;
    }
  }
  if (optind != argc) {
    usage(stderr);
    return 2;
  }
  gsvirt::renderer::register_builtin_capsets();
  return gsvirt::server::run_server(options);
}
