// A hostile guest program for `gsvirt vm` (issue 10): runs inside the VM and sends the host malformed
// requests through the real virtio-gpu ioctls, on a context created with the gsvirt capset
// (GSVIRT_CAPSET_ID, as the ICD's drm transport reads it). Each request prints what the kernel
// answered; none may crash or hang the host (QEMU and gsvirt's libvirglrenderer.so.1). The e2e test
// then runs a correct program in the same guest, which must still get correct results.
// Exit status: 0 when every request came back (accepted or refused) and a final fenced submit on the
// poisoned context retired; 1 when something could not even be attempted or a fence never signalled.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/virtgpu/virtgpu_uapi.h"

namespace vg = gsvirt::virtgpu;

namespace {

constexpr uint32_t kNumRings = 2;
constexpr int kFenceTimeoutMs = 30000;  // a hang detector, not a timing assertion

int render_node() {
  for (int minor = 128; minor < 192; minor++) {
    std::string path = "/dev/dri/renderD" + std::to_string(minor);
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) return fd;
  }
  return -1;
}

// Runs one ioctl and prints its outcome; returns 0 or the errno.
// The request is printed before it is sent, so a hang shows which one it was.
int attempt(int fd, const char* what, unsigned long request, void* arg) {
  std::printf("hostile: %-58s -> ", what);
  std::fflush(stdout);
  int r = ioctl(fd, request, arg);
  int err = r == 0 ? 0 : errno;
  std::printf("%s\n", err ? std::strerror(err) : "accepted");
  return err;
}

uint32_t capset_id() {
  const char* env = std::getenv("GSVIRT_CAPSET_ID");
  return env && *env ? uint32_t(std::strtoul(env, nullptr, 10)) : 16;
}

// Prints what the device offers (the capset mask tells which ids the VMM lists).
void print_features(int fd) {
  auto param = [fd](uint64_t p) {
    int value = 0;
    vg::Getparam args{p, reinterpret_cast<uintptr_t>(&value)};
    return ioctl(fd, vg::kIoctlGetparam, &args) == 0 ? value : -1;
  };
  std::printf("hostile: device: context_init %d, blobs %d, host-visible %d, capset mask 0x%x\n",
              param(vg::kParamContextInit), param(vg::kParamResourceBlob), param(vg::kParamHostVisible),
              param(vg::kParamSupportedCapsetIds));
}

bool init_context(int fd) {
  vg::ContextSetParam params[2] = {{vg::kContextParamCapsetId, capset_id()},
                                   {vg::kContextParamNumRings, kNumRings}};
  vg::ContextInit args{2, 0, reinterpret_cast<uintptr_t>(params)};
  return attempt(fd, "CONTEXT_INIT on the gsvirt capset", vg::kIoctlContextInit, &args) == 0;
}

int execbuffer(int fd, const char* what, const void* cmds, uint32_t size, uint32_t ring, bool fence) {
  vg::Execbuffer args{};
  args.flags = vg::kExecbufRingIdx | (fence ? vg::kExecbufFenceFdOut : 0);
  args.size = size;
  args.command = reinterpret_cast<uintptr_t>(cmds);
  args.fence_fd = -1;
  args.ring_idx = ring;
  int err = attempt(fd, what, vg::kIoctlExecbuffer, &args);
  return err == 0 && fence ? args.fence_fd : -1;
}

void malformed_execbuffers(int fd) {
  std::vector<uint32_t> garbage(1024);
  uint32_t seed = 12345;
  for (auto& word : garbage) word = seed = seed * 1103515245u + 12345u;
  uint32_t huge_command[3] = {1, 0xffffffffu, 1};  // {id, size_in_dwords, flags}: size far past the end
  uint32_t zero_sized[3] = {1, 0, 0};
  execbuffer(fd, "EXECBUFFER of 4 KiB of garbage", garbage.data(), 4096, 0, false);
  execbuffer(fd, "EXECBUFFER with a command size past the buffer", huge_command, sizeof huge_command, 0, false);
  execbuffer(fd, "EXECBUFFER with a zero-dword command", zero_sized, sizeof zero_sized, 1, false);
  execbuffer(fd, "EXECBUFFER of 3 bytes (not dword-aligned)", garbage.data(), 3, 0, false);
  execbuffer(fd, "EXECBUFFER of 0 bytes", garbage.data(), 0, 0, false);
  execbuffer(fd, "EXECBUFFER on ring 7 of 2", garbage.data(), 64, 7, false);
  execbuffer(fd, "EXECBUFFER on ring 0xffffffff", garbage.data(), 64, 0xffffffffu, false);
  execbuffer(fd, "EXECBUFFER from an unmapped address", reinterpret_cast<void*>(0x10), 64, 0, false);
  execbuffer(fd, "EXECBUFFER of 64 MiB claimed from a 4 KiB buffer", garbage.data(), 64u << 20, 0, false);
}

void bad_blob_requests(int fd) {
  auto create = [fd](const char* what, uint32_t mem, uint32_t flags, uint64_t size, uint64_t id) {
    vg::ResourceCreateBlob args{};
    args.blob_mem = mem;
    args.blob_flags = flags;
    args.size = size;
    args.blob_id = id;
    return attempt(fd, what, vg::kIoctlResourceCreateBlob, &args) == 0 ? args.bo_handle : 0u;
  };
  create("CREATE_BLOB of 1 TiB", vg::kBlobMemHost3d, vg::kBlobFlagUseMappable, 1ull << 40, 0);
  create("CREATE_BLOB of 2^64 - 4096 bytes", vg::kBlobMemHost3d, vg::kBlobFlagUseMappable, ~0ull << 12, 0);
  create("CREATE_BLOB of 0 bytes", vg::kBlobMemHost3d, vg::kBlobFlagUseMappable, 0, 0);
  create("CREATE_BLOB with blob id 0xdeadbeef", vg::kBlobMemHost3d, vg::kBlobFlagUseMappable, 4096,
         0xdeadbeefull);
  create("CREATE_BLOB with blob_mem 77", 77, vg::kBlobFlagUseMappable, 4096, 0);
  create("CREATE_BLOB with unknown flags", vg::kBlobMemHost3d, 0xff00, 4096, 0);
  // A blob request may carry commands for the context (the kernel sends them first): garbage here.
  std::vector<uint32_t> garbage(16, 0xa5a5a5a5u);
  vg::ResourceCreateBlob with_cmds{};
  with_cmds.blob_mem = vg::kBlobMemHost3d;
  with_cmds.blob_flags = vg::kBlobFlagUseMappable;
  with_cmds.size = 4096;
  with_cmds.cmd = reinterpret_cast<uintptr_t>(garbage.data());
  with_cmds.cmd_size = uint32_t(garbage.size() * 4);
  attempt(fd, "CREATE_BLOB carrying 64 bytes of garbage commands", vg::kIoctlResourceCreateBlob, &with_cmds);
  with_cmds.cmd_size = 1u << 30;
  attempt(fd, "CREATE_BLOB claiming 1 GiB of commands", vg::kIoctlResourceCreateBlob, &with_cmds);
  uint32_t unmappable = create("CREATE_BLOB without MAPPABLE", vg::kBlobMemHost3d, 0, 4096, 0);
  if (unmappable) {
    vg::Map map{};
    map.handle = unmappable;
    if (attempt(fd, "MAP of the non-mappable blob", vg::kIoctlMap, &map) == 0) {
      void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(map.offset));
      std::printf("hostile: %-58s -> %s\n", "mmap of the non-mappable blob",
                  p == MAP_FAILED ? std::strerror(errno) : "mapped");
      if (p != MAP_FAILED) munmap(p, 4096);
    }
  }
  vg::Map bad_map{};
  bad_map.handle = 0xbad;
  attempt(fd, "MAP of handle 0xbad", vg::kIoctlMap, &bad_map);
  vg::Wait bad_wait{0xbad, 0};
  attempt(fd, "WAIT on handle 0xbad", vg::kIoctlWait, &bad_wait);
}

void bad_context_requests(int fd) {
  uint32_t handles[2] = {0xbad, 0xbad + 1};
  uint32_t nop[3] = {0, 3, 0};
  vg::Execbuffer args{};
  args.flags = vg::kExecbufRingIdx;
  args.size = sizeof nop;
  args.command = reinterpret_cast<uintptr_t>(nop);
  args.bo_handles = reinterpret_cast<uintptr_t>(handles);
  args.num_bo_handles = 2;
  args.fence_fd = -1;
  attempt(fd, "EXECBUFFER naming buffer handles 0xbad, 0xbae", vg::kIoctlExecbuffer, &args);
  vg::ContextSetParam params[1] = {{vg::kContextParamCapsetId, capset_id()}};
  vg::ContextInit again{1, 0, reinterpret_cast<uintptr_t>(params)};
  attempt(fd, "a second CONTEXT_INIT on the same file", vg::kIoctlContextInit, &again);
}

// The context is poisoned by now; a fenced submit must still retire (the host must not stall it).
bool fence_still_retires(int fd) {
  uint32_t nop[3] = {0, 3, 0};
  int fence = execbuffer(fd, "fenced EXECBUFFER on the poisoned context", nop, sizeof nop, 0, true);
  if (fence < 0) return true;  // refused outright: nothing to wait for
  pollfd p{fence, POLLIN, 0};
  int r = poll(&p, 1, kFenceTimeoutMs);
  close(fence);
  std::printf("hostile: %-58s -> %s\n", "its fence", r == 1 ? "signalled" : "NEVER SIGNALLED");
  return r == 1;
}

}  // namespace

// Arguments name the sections to run (execbuffers, blobs, context, fence); none runs them all.
int main(int argc, char** argv) {
  auto wanted = [argc, argv](const char* section) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; i++)
      if (std::strcmp(argv[i], section) == 0) return true;
    return false;
  };
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches the host even if a request hangs
  int fd = render_node();
  if (fd < 0) {
    std::fprintf(stderr, "hostile: no render node under /dev/dri: %s\n", std::strerror(errno));
    return 1;
  }
  print_features(fd);
  if (!init_context(fd)) return 1;
  if (wanted("execbuffers")) malformed_execbuffers(fd);
  if (wanted("blobs")) bad_blob_requests(fd);
  if (wanted("context")) bad_context_requests(fd);
  bool ok = !wanted("fence") || fence_still_retires(fd);
  close(fd);
  std::printf("hostile: done, the host answered every request\n");
  return ok ? 0 : 1;
}
