// gsvirt: run any OpenCL or Vulkan program through the whole gsvirt stack.
//
//   gsvirt run [--mode remote|native] [--transport vtest|inproc] [--executor host|gsgpu]
//              [--socket PATH] -- APP ARGS...
//   gsvirt vm [--mode remote|native] [--executor host|gsgpu] [--keep] [--verbose] -- APP ARGS...
//
// The application's OpenCL loader (Debian's ocl-icd) is pointed at one ICD alone through
// OCL_ICD_VENDORS, so nothing in /etc needs editing: in remote mode the gsvirt ICD (API remoting
// through vcomp), in native mode the gsgpu OpenCL runtime itself over the gsgpu native context.
// Its Vulkan loader is pointed at the gsgpu Vulkan driver alone (VK_DRIVER_FILES): in remote mode
// the driver on a local gsgpu device in APP's process (Vulkan has no API remoting yet), in native
// mode the same driver over the gsgpu native context. With vtest (the default) a gsvirt-server is
// started on a private socket for the run and stopped with SIGTERM afterwards; with inproc the
// host renderer runs inside the application's process.
//
// `vm` runs APP inside a Debian 13 guest under QEMU whose virtio-gpu is served by gsvirt's
// libvirglrenderer.so.1; the orchestration (a cached root with QEMU and Xvfb, namespaces, the guest's
// init) lives in scripts/vm/run, which this execs with the build directory. See docs/vm.md.
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string mode = "remote";
  std::string transport = "vtest";
  std::string executor;
  std::string socket_path;
  std::vector<char*> command;
};

void usage(FILE* out) {
  std::fprintf(out,
               "usage: gsvirt run [--mode remote|native] [--transport vtest|inproc] [--executor host|gsgpu]\n"
               "                  [--socket PATH] -- APP [ARGS...]\n"
               "  Runs APP with its OpenCL and Vulkan calls served through gsvirt.\n"
               "  --mode       remote (default): API remoting, the host runs OpenCL (vcomp);\n"
               "               native: the gsgpu OpenCL runtime runs in APP's process and compiles there,\n"
               "               the host only checks and runs its packets (the gsgpu native context)\n"
               "               Vulkan: the gsgpu Vulkan driver, on a local gsgpu device in APP's process\n"
               "               (remote) or over the gsgpu native context (native)\n"
               "  --transport  vtest (default: a gsvirt-server process per run) or inproc\n"
               "  --executor   remote mode: where the host runs the work: gsgpu (default: the gsgpu\n"
               "               emulator, OpenCL C compiled to gsgpu ISA) or host (a host OpenCL platform)\n"
               "  --socket     vtest socket path (default: a private path under $TMPDIR)\n"
               "environment: GSVIRT_DEBUG=commands logs every host command; GSVIRT_HOST_PLATFORM\n"
               "  picks the host platform by name; GSVIRT_SYNC=1 waits for every call's reply.\n"
               "  GSGPU_MODE=reference|fast: the emulator's draw mode (run's default: fast, the same\n"
               "  pixels as reference; docs/graphics.md \"Reference and fast modes\").\n"
               "usage: gsvirt vm [--mode remote|native] [--executor host|gsgpu] [--keep] [--verbose] -- APP [ARGS...]\n"
               "  Runs APP inside a Debian 13 guest (QEMU 10.0, TCG) through virtio-gpu and gsvirt's\n"
               "  libvirglrenderer.so.1; prepares and caches the VM on first use (GSVIRT_VM_CACHE,\n"
               "  default ~/.cache/gsvirt/vm). APP's output and exit status come back; 125 = the VM failed.\n"
               "  --mode and --executor as for run (native: the gsgpu runtime compiles in the guest).\n"
               "  --keep keeps the run directory (console and QEMU logs), --verbose prints them. docs/vm.md.\n");
}

bool parse(int argc, char** argv, Options* o) {
  static const option kLong[] = {{"mode", required_argument, nullptr, 'm'},
                                 {"transport", required_argument, nullptr, 't'},
                                 {"executor", required_argument, nullptr, 'e'},
                                 {"socket", required_argument, nullptr, 's'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "+m:t:e:s:h", kLong, nullptr)) != -1) {
    switch (c) {
      case 'm': o->mode = optarg; break;
      case 't': o->transport = optarg; break;
      case 'e': o->executor = optarg; break;
      case 's': o->socket_path = optarg; break;
      case 'h': usage(stdout); std::exit(0);
      default: return false;
    }
  }
  for (int i = optind; i < argc; ++i) o->command.push_back(argv[i]);
  o->command.push_back(nullptr);
  if (o->command.size() < 2) {
    std::fprintf(stderr, "gsvirt run: no program given (gsvirt run -- APP ARGS...)\n");
    return false;
  }
  if (o->transport != "vtest" && o->transport != "inproc") {
    std::fprintf(stderr, "gsvirt run: --transport: \"%s\" is not vtest or inproc\n", o->transport.c_str());
    return false;
  }
  if (o->mode != "remote" && o->mode != "native") {
    std::fprintf(stderr, "gsvirt run: --mode: \"%s\" is not remote or native\n", o->mode.c_str());
    return false;
  }
  if (o->mode == "native" && !o->executor.empty()) {
    std::fprintf(stderr, "gsvirt run: --executor is for --mode remote (native mode always runs on gsgpu)\n");
    return false;
  }
  if (!o->executor.empty() && o->executor != "host" && o->executor != "gsgpu") {
    std::fprintf(stderr, "gsvirt run: --executor: \"%s\" is not supported (available: host, gsgpu)\n",
                 o->executor.c_str());
    return false;
  }
  return true;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Starts gsvirt-server on `socket_path` and waits until it accepts clients.
pid_t start_server(const std::string& socket_path) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return -1;
  std::string server = env_or("GSVIRT_SERVER", GSVIRT_SERVER_PATH);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = dup(ready[1]);  // not close-on-exec
    std::string fd_arg = std::to_string(fd);
    execl(server.c_str(), server.c_str(), "--socket", socket_path.c_str(), "--ready-fd",
          fd_arg.c_str(), static_cast<char*>(nullptr));
    std::fprintf(stderr, "gsvirt run: cannot start %s: %s\n", server.c_str(), std::strerror(errno));
    _exit(127);
  }
  close(ready[1]);
  pollfd p{ready[0], POLLIN, 0};
  char byte;
  bool ok = pid > 0 && poll(&p, 1, 30000) == 1 && read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  if (!ok) {
    std::fprintf(stderr, "gsvirt run: gsvirt-server did not become ready\n");
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
    return -1;
  }
  return pid;
}

// VK_DRIVER_FILES names the one driver the loader may load; VK_LOADER_LAYERS_DISABLE keeps out
// Mesa's implicit device-select layer, which has nothing to select with one device.
void point_vulkan_loader_at_gsgpu(const std::string& mode) {
#if defined(GSVIRT_VK_ICD_PATH) && defined(GSVIRT_NATIVE_VK_ICD_PATH)
  std::string manifest = mode == "native" ? env_or("GSVIRT_NATIVE_VK_ICD", GSVIRT_NATIVE_VK_ICD_PATH)
                                          : env_or("GSVIRT_VK_ICD", GSVIRT_VK_ICD_PATH);
  setenv("VK_DRIVER_FILES", manifest.c_str(), 1);
  setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 0);
#else
  (void)mode;  // built without Vulkan headers: no gsgpu Vulkan driver to point at
#endif
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

int run(const Options& o) {
  if (!o.executor.empty()) setenv("GSVIRT_EXECUTOR", o.executor.c_str(), 1);
  setenv("GSVIRT_TRANSPORT", o.transport.c_str(), 1);
  // Applications want speed and fast draws give the reference's pixels bit for bit (only the
  // overdraw counter and a faulting draw's partial output differ), so run defaults to fast; an
  // explicit GSGPU_MODE wins. The server (native mode's device) and the application (remote mode's)
  // both inherit it.
  setenv("GSGPU_MODE", "fast", 0);

  pid_t server = -1;
  std::string socket_path = o.socket_path;
  std::string temp_dir;
  if (o.transport == "vtest") {
    if (socket_path.empty()) {
      std::string tmpl = env_or("TMPDIR", "/tmp") + "/gsvirt-run-XXXXXX";
      if (!mkdtemp(tmpl.data())) {
        std::perror("gsvirt run: mkdtemp");
        return 1;
      }
      temp_dir = tmpl;
      socket_path = temp_dir + "/vtest.sock";
    }
    server = start_server(socket_path);
    if (server < 0) return 1;
    setenv("GSVIRT_VTEST_SOCKET", socket_path.c_str(), 1);
  }

  pid_t app = fork();
  if (app == 0) {
    // Only the application's loader is pointed at gsvirt; the server keeps the host's vendors.
    std::string vendors = o.mode == "native" ? env_or("GSVIRT_NATIVE_ICD_VENDORS", GSVIRT_NATIVE_ICD_VENDORS_DIR)
                                             : env_or("GSVIRT_ICD_VENDORS", GSVIRT_ICD_VENDORS_DIR);
    setenv("OCL_ICD_VENDORS", vendors.c_str(), 1);
    point_vulkan_loader_at_gsgpu(o.mode);
    execvp(o.command[0], o.command.data());
    std::fprintf(stderr, "gsvirt run: cannot run %s: %s\n", o.command[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(app, &status, 0) < 0 && errno == EINTR) {
  }
  if (server > 0) {
    kill(server, SIGTERM);
    waitpid(server, nullptr, 0);
  }
  if (!temp_dir.empty()) {
    unlink(socket_path.c_str());
    rmdir(temp_dir.c_str());
  }
  return exit_code(status);
}

}  // namespace

// `gsvirt vm ARGS...`: hands its arguments to scripts/vm/run with the build directory it belongs to.
int vm(int argc, char** argv) {
  setenv("GSVIRT_BUILD_DIR", GSVIRT_BUILD_DIR, 0);
  std::string script = env_or("GSVIRT_VM_SCRIPT", GSVIRT_VM_SCRIPT_PATH);
  std::vector<char*> args{script.data()};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(script.c_str(), args.data());
  std::fprintf(stderr, "gsvirt vm: cannot run %s: %s\n", script.c_str(), std::strerror(errno));
  return 125;
}

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "vm") == 0) return vm(argc, argv);
  if (argc < 2 || std::strcmp(argv[1], "run") != 0) {
    usage(argc < 2 ? stderr : (std::strcmp(argv[1], "--help") == 0 ? stdout : stderr));
    return argc >= 2 && std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
  }
  Options o;
  if (!parse(argc - 1, argv + 1, &o)) {
    usage(stderr);
    return 2;
  }
  return run(o);
}
