// gsvirt-server: the vtest-protocol server. See docs/transports.md.
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "host/server/vtest_server.h"
#ifdef GSVIRT_HAVE_VCOMP
#include "host/vcomp/vcomp.h"
#endif

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: gsvirt-server [--socket PATH] [--ready-fd N] [--no-fork] [--once]\n"
               "  --socket PATH   unix socket to listen on (default: $GSVIRT_VTEST_SOCKET, else\n"
               "                  /tmp/gsvirt-vtest.sock)\n"
               "  --ready-fd N    write one byte to fd N and close it once clients can connect\n"
               "  --no-fork       serve clients one after another in this process\n"
               "  --once          exit after the first client disconnects\n"
               "SIGTERM or SIGINT: stop, remove the socket, end every client process.\n");
}

}  // namespace

int main(int argc, char** argv) {
  gsvirt::server::ServerOptions options;
  static const option long_options[] = {
      {"socket", required_argument, nullptr, 's'}, {"ready-fd", required_argument, nullptr, 'r'},
      {"no-fork", no_argument, nullptr, 'n'},      {"once", no_argument, nullptr, 'o'},
      {"help", no_argument, nullptr, 'h'},         {nullptr, 0, nullptr, 0}};
  for (int c; (c = getopt_long(argc, argv, "s:r:noh", long_options, nullptr)) != -1;) {
    switch (c) {
      case 's': options.socket_path = optarg; break;
      case 'r': {
        char* end = nullptr;
        long fd = std::strtol(optarg, &end, 10);
        if (!*optarg || *end || fd < 0 || fd > 65535) {
          std::fprintf(stderr, "gsvirt-server: --ready-fd: \"%s\" is not an fd number\n", optarg);
          return 2;
        }
        options.ready_fd = int(fd);
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
#ifdef GSVIRT_HAVE_VCOMP
  gsvirt::vcomp::register_capset();
#else
  gsvirt::log_error("gsvirt-server: built without vcomp: no capset is served");
#endif
  return gsvirt::server::run_server(options);
}
