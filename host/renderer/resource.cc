#include "host/renderer/resource.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "common/checked_math.h"
#include "common/log.h"

namespace gsvirt::renderer {
namespace {

// The Resource struct is shared with context types, so the unmapping lives in the deleter.
void release_resource(Resource* r) {
  if (r->host_map) munmap(r->host_map, r->size);
  if (r->fd >= 0) close(r->fd);
  log_debug(kDebugResources, "resource %u released", r->id);
  delete r;
}

}  // namespace

bool iov_total_size(std::span<const iovec> iov, uint64_t* total) {
  uint64_t sum = 0;
  for (const iovec& v : iov) {
    auto next = checked_add<uint64_t>(sum, v.iov_len);
    if (!next) return false;
    sum = *next;
  }
  *total = sum;
  return true;
}

std::shared_ptr<Resource> create_host_blob(uint32_t res_id, uint64_t size, int* err) {
  int fd = memfd_create("gsvirt-blob", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    *err = -errno;
    return nullptr;
  }
  if (ftruncate(fd, off_t(size)) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    *err = -errno;
    close(fd);
    return nullptr;
  }
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    *err = -errno;
    close(fd);
    return nullptr;
  }
  std::shared_ptr<Resource> r(new Resource, release_resource);
  r->id = res_id;
  r->size = size;
  r->host_map = static_cast<uint8_t*>(map);
  r->fd = fd;
  return r;
}

std::shared_ptr<Resource> create_iov_resource(uint32_t res_id, std::span<const iovec> iov,
                                              int* err) {
  uint64_t size = 0;
  if (!iov_total_size(iov, &size)) {
    *err = -EOVERFLOW;
    return nullptr;
  }
  std::shared_ptr<Resource> r(new Resource, release_resource);
  r->id = res_id;
  r->size = size;
  r->iov.assign(iov.begin(), iov.end());
  return r;
}

}  // namespace gsvirt::renderer
